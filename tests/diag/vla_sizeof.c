/* sizeof of a variable-length array is its length, as the declaration
 * evaluated it, times its element's size: accepted when that length
 * cannot have changed since, refused otherwise. */
typedef struct { double a, b; int k; } P;

__attribute__((differentiable))
double accepted(const double *x, int n) {
  double v[n];
  P q[n + 1];
  for (int i = 0; i < n; i++)
    v[i] = x[i], q[i].a = x[i];
  return v[0] * (double)(sizeof v / sizeof v[0]) + q[0].a * (double)(sizeof q / sizeof(P));
}

__attribute__((differentiable))
double changed(const double *x, int n) {
  double v[n];
  v[0] = x[0];
  n = 2;
  return v[0] * (double)sizeof v; // expect-error: cannot differentiate 'changed': 'sizeof v' of a variable-length array whose length 'n' may change after its declaration; not supported
}
