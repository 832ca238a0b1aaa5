__attribute__((differentiable))
void f(const double *x, double *y, int k) {
  y[k] = x[0]; // expect-error: cannot differentiate 'f': 'y' is first written at index 'k', not at 0
}
