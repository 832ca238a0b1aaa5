/* A table is read element by element, or passed to a read-only (const)
 * array parameter: whole (1-D), at a row (2-D) or at a view into it. A
 * 2-D table passed whole, or a table passed where the callee writes, is
 * refused. */
static const double A[2][2] = {{1, 2}, {3, 4}};
static const double c[2] = {0.5, 0.25};
static const float cf[2] = {0.5f, 0.25f};

__attribute__((differentiable))
double dot(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1];
}

__attribute__((differentiable))
void twice(double *a, int n) {
  for (int i = 0; i < n; i++)
    a[i] *= 2;
}

__attribute__((differentiable))
double accepted(const double *x) {
  const double *p = &A[0][1];
  return dot(c, x) + dot(A[1], x) + dot(c + 1, x) + p[0] * dot(p, x);
}

__attribute__((differentiable))
double f(const double *x) {
  return dot((const double *)A, x) + dot(A, x); // expect-warning: incompatible pointer types // expect-error: cannot differentiate 'f': table 'A' used as 'A', which is not a pointer to its elements; use a row ('A[i]')
}

__attribute__((differentiable))
double g(const double *x) {
  twice((double *)c, 2); // expect-error: cannot differentiate 'g': table 'c' passed to parameter 'a' of 'twice', which writes it; a table is constant
  return x[0];
}

__attribute__((differentiable))
double h(const double *x) {
  const double *p = (const double *)cf; // expect-error: cannot differentiate 'h': table 'cf' cast to a pointer to another element type in '(const double *)cf'
  return p[0] * x[0];
}
