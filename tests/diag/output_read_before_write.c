__attribute__((differentiable))
void f(double x, double *y) {
  y[1] = y[0] * x; // expect-error: cannot differentiate 'f': reads output 'y[0]' before writing it
  y[0] = x;
}
