/* The inner trip count changes with i: no scatter-add. The loop carries
   y whole and updates it, but y is an output whose written part before the
   loop is y[0] only, and idx[j] may lie beyond it. */
__attribute__((differentiable))
void f(const double *x, const int *idx, double *y, int n) {
  y[0] = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      y[idx[j]] += x[i]; // expect-error: cannot differentiate 'f': a loop updates output 'y' at 'idx[j]', which may lie beyond the elements written before the loop; not supported (write the whole output first, or count up to the length it was written with)
}
