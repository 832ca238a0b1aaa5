__attribute__((differentiable))
double g(const double *a) { return a[0]; }

__attribute__((differentiable))
double f(double x) {
  return g(&x); // expect-error: cannot differentiate 'f': address-of '&x' is not supported
}
