/* An output array made in both branches of a condition (ADBench's
   rodrigues_rotate_point writes its output so): not yet, in either mode. */
__attribute__((differentiable))
void f(const double *x, double *y, double c) { // expect-error: cannot differentiate 'f': cannot emit C: an array made under a condition and used after it: not supported yet
  if (c > 0) {
    for (int i = 0; i < 3; i++)
      y[i] = x[i] * c;
  } else {
    for (int i = 0; i < 3; i++)
      y[i] = x[i] - c;
  }
}
