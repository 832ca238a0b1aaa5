__attribute__((differentiable))
double f(const double *a, const double *b) {
  return a == b ? a[0] : b[0]; // expect-error: cannot differentiate 'f': pointer comparison 'a == b' is not supported
}
