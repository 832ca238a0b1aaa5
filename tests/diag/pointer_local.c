/* A local pointer is bound where it is declared; assigning it later is
   not supported yet. */
__attribute__((differentiable))
double f(const double *a, int n) {
  const double *p = a;
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += p[0];
    p = &a[i]; // expect-error: cannot differentiate 'f': assigning pointer 'p' after its declaration is not supported yet (declare a new pointer where it is needed)
  }
  return s;
}
