/* An output array made in both branches of a condition is differentiated
   (e2e/branch_arrays.c); one that a single branch makes anew while the
   other keeps the version from before the if is not yet. */
__attribute__((differentiable))
void f(const double *x, double *y, double c) {
  y[0] = x[0];
  if (c > 0) { // expect-error: cannot differentiate 'f': an array made or chosen under a condition cannot be differentiated in reverse mode yet
    for (int i = 0; i < 3; i++)
      y[i] = x[i] * c;
  }
  y[1] = y[0] * 2;
  y[2] = 1;
}
