/* as chad.h defines them */
#define CHAD_DIFFERENTIABLE __attribute__((differentiable))
#define CHAD_INACTIVE __attribute__((annotate("chad_inactive")))

CHAD_DIFFERENTIABLE
double dot(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

/* The callee would add into an adjoint buffer for x, whose length C does
   not say: the mark must be on the callee's parameter too. */
CHAD_DIFFERENTIABLE
double f(const double *w, CHAD_INACTIVE const double *x, int n) {
  return dot(w, x, n); // expect-error: cannot differentiate 'f': array 'x' is marked inactive but passed to 'dot', whose parameter 'b' is active: mark that parameter CHAD_INACTIVE too, or drop the mark
}

CHAD_DIFFERENTIABLE
void g(const double *a, CHAD_INACTIVE double *y, int n) { // expect-error: cannot differentiate 'g': parameter 'y' is marked inactive but written: only scalars and read-only (const) arrays can be inactive
  for (int i = 0; i < n; i++)
    y[i] = a[i];
}
