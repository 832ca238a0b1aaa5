/* A non-const pointer parameter that the body never writes is an in-out
   array that ends as it began: its value and tangent are returned in
   place, so the generated C names neither of them, and says so with
   (void) rather than warn under -Wunused-parameter (found by fuzz seed ci,
   input 35). */
// diag-args: -std=c11 -Wall -Wextra -pedantic -Werror
__attribute__((differentiable))
double only_read(const double *x, double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * y[i];
  return s;
}

__attribute__((differentiable))
void never_named(const double *x, double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i];
  (void)s;
  (void)y;
}
