/* y[i] depends on y[i - 1], written by the previous iteration. */
__attribute__((differentiable))
void f(const double *x, double *y, int n) {
  y[0] = x[0];
  for (int i = 1; i < n; i++)
    y[i] = y[i - 1] + x[i]; // expect-error: cannot differentiate 'f': loop carries array 'y' from one iteration to the next; not supported yet
}
