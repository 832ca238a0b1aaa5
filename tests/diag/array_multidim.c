/* Local two-dimensional arrays of constant size are supported (see
   tests/e2e/tables.c); these uses of them are not yet. */
__attribute__((differentiable))
double f(double x, int n) {
  double m[n][2]; // expect-error: cannot differentiate 'f': variable-length two-dimensional array 'm' is not supported yet
  m[0][0] = x;
  return m[0][0];
}

__attribute__((differentiable))
double g(double x) {
  double t[2][2][2]; // expect-error: cannot differentiate 'g': array 't' has more than two dimensions, or rows of variable length; not supported
  t[0][0][0] = x;
  return t[0][0][0];
}
