/* y[i] depends on y[i - 1], written by the previous iteration: the loop
   carries y whole and updates it, but y is an output whose written part
   before the loop is y[0] only, and i may lie beyond it. A local or in-out
   array is carried this way (tests/e2e/updates_loops.c). */
__attribute__((differentiable))
void f(const double *x, double *y, int n) {
  y[0] = x[0];
  for (int i = 1; i < n; i++)
    y[i] = y[i - 1] + x[i]; // expect-error: cannot differentiate 'f': a loop updates output 'y' at 'i', which may lie beyond the elements written before the loop; not supported (write the whole output first, or count up to the length it was written with)
}
