/* A local pointer may be reassigned while it points into one array; one
   that moves from an array to another (ADBench's lstm_predict, `xp = x2`
   then `xp = &s[i]`) is not supported yet. */
__attribute__((differentiable))
double f(const double *a, const double *b, int n) {
  const double *p = b;
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += p[0];
    p = &a[i]; // expect-error: cannot differentiate 'f': assigning pointer 'p' after its declaration is supported only when it always points into the same array
  }
  return s;
}
