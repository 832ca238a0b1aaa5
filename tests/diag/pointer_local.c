/* A local pointer may be reassigned while each value it takes points into
   an array (e2e/pointer_aliases.c: one array, or several when it is only
   read through); a value chosen by a condition is not supported yet. */
__attribute__((differentiable))
double f(const double *a, const double *b, int n) {
  const double *p = b;
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += p[0];
    p = i % 2 ? a + i : b; // expect-error: cannot differentiate 'f': assigning pointer 'p' after its declaration is supported only when it always points into the same array
  }
  return s;
}
