/* The portable macro of include/chad.h, in both placements before the
   declarator. */
// diag-args: -std=c11 -Wall -Wextra -pedantic -Werror
#include "../../include/chad.h"

CHAD_DIFFERENTIABLE double f(double x) { return 3 * x; }

double CHAD_DIFFERENTIABLE g(double x) { return f(x) * x; }

double use(void) {
  double xb = 0;
  return g_rev(2.0, &xb, 1.0) + xb;
}
