/* Pointers into arrays are views (tests/e2e/views.c); the difference of
   two pointers into one array is an offset (tests/e2e/struct_views.c);
   anything else made of them is not supported. */
__attribute__((differentiable))
double f(const double *a, const double *b, int n) {
  const double *e = a + n;
  return (double)(e - b); // expect-error: cannot differentiate 'f': pointer difference 'e - b' of pointers into different arrays ('a' and 'b')
}

__attribute__((differentiable))
double g(const double *a, const double *b, int n) {
  const double *e = a + n;
  return (double)(e + 1 - a) + (e > b); // expect-error: cannot differentiate 'g': pointer comparison 'e > b' is not supported
}
