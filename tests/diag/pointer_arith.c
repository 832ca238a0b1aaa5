/* Pointers into arrays are views (tests/e2e/views.c); arithmetic that
   makes anything else of them is not supported. */
__attribute__((differentiable))
double f(const double *a, int n) {
  const double *e = a + n;
  return (double)(e - a); // expect-error: cannot differentiate 'f': pointer arithmetic 'e - a' is not supported yet
}
