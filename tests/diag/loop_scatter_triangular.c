/* The inner trip count changes with i: the accumulation cannot be
   flattened into one scatter-add. */
__attribute__((differentiable))
void f(const double *x, const int *idx, double *y, int n) {
  y[0] = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      y[idx[j]] += x[i]; // expect-error: cannot differentiate 'f': accumulation into 'y' in a nested loop whose bounds change with the enclosing loop is not supported yet
}
