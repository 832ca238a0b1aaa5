__attribute__((differentiable))
void sq(const double *x, double *y) { y[0] = x[0] * x[0]; }

__attribute__((differentiable))
void f(double *y) {
  y[0] = 2;
  sq(y, y); // expect-error: cannot differentiate 'f': 'y' is passed to 'sq' twice, once as an output array; aliasing is not supported
}
