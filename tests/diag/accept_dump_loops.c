/* The dump shows the loop forms that lowering chose. */
// diag-args: -fplugin-arg-chad-dump
// expect-output: (sum n_i (i)
// expect-output: (fold n_i (tuple m) (i state)
// expect-output: (build n_i (i)
// expect-output: (scatter y n_i (i)
__attribute__((differentiable))
double total(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i];
  return s;
}

__attribute__((differentiable))
double largest(const double *x, int n) {
  double m = x[0];
  for (int i = 0; i < n; i++)
    m = x[i] > m ? x[i] : m;
  return m;
}

__attribute__((differentiable))
void twice(const double *x, const int *idx, double *y, int n) {
  for (int i = 0; i < n; i++)
    y[i] = 2 * x[i];
  for (int i = 0; i < n; i++)
    y[idx[i]] += x[i];
}
