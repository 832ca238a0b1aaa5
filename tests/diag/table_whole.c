/* A table is read element by element: not passed whole, not by row. */
static const double A[2][2] = {{1, 2}, {3, 4}};
static const double c[2] = {0.5, 0.25};

__attribute__((differentiable))
double dot(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1];
}

__attribute__((differentiable))
double f(const double *x) {
  return dot(c, x); // expect-error: cannot differentiate 'f': table 'c' used as a whole; only its elements can be read
}

__attribute__((differentiable))
double g(const double *x) {
  return dot(A[1], x); // expect-error: cannot differentiate 'g': row 'A[1]' of table 'A' used as a value; read its elements ('A[i][j]')
}
