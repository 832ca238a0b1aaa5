/* y is read before it is written: in-out (DESIGN 1), which forward mode
   takes (tests/e2e/updates_loops.c) and reverse mode not yet (8.7). */
__attribute__((differentiable))
void f(const double *x, double *y, int n) { // expect-error: cannot differentiate 'f': in-out array parameter 'y' (read before it is overwritten) cannot be differentiated in reverse mode yet
  for (int i = 0; i < n; i++)
    y[i] += x[i];
}
