__attribute__((differentiable))
double g(const double *a) { return a[0]; }

__attribute__((differentiable))
double f(const double *a, int n) {
  return g(a + n); // expect-error: cannot differentiate 'f': pointer arithmetic 'a + n' is not supported yet
}
