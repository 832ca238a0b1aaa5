/* y[i] is left unwritten when x[i] <= 0: the caller's value would stay. */
__attribute__((differentiable))
void f(const double *x, double *y, int n) {
  for (int i = 0; i < n; i++) // expect-error: cannot differentiate 'f': 'y[i]' is not written in every iteration of the loop
    if (x[i] > 0)
      y[i] = x[i];
}
