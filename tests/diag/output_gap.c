__attribute__((differentiable))
void f(double x, double *y) {
  y[0] = x;
  y[2] = x * x;
} // expect-error: cannot differentiate 'f': output 'y[1]' is not written on this path but 'y[2]' is
