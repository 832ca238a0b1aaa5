/* CHAD_CUSTOM with the derivatives declared before the use and defined
   after it, in a file that is clean under -Wall -Wextra -pedantic -Werror;
   and without the plugin's help the macro is an annotation clang accepts. */
// diag-args: -std=c99 -Wall -Wextra -pedantic -Werror
#include "../../include/chad.h"

CHAD_CUSTOM double sq(double x);
double sq_fwd(double x, double dx, double *d_ret);
double sq_rev(double x, double *x_b, double ret_b);

CHAD_DIFFERENTIABLE
double f(double x, double y) { return sq(x * y) + sq(2.0); }

double sq(double x) { return x * x; }
double sq_fwd(double x, double dx, double *d_ret) { *d_ret = 2 * x * dx; return x * x; }
double sq_rev(double x, double *x_b, double ret_b) { *x_b += 2 * x * ret_b; return x * x; }

double use(void) {
  double xb = 0, yb = 0, d = 0;
  return f_rev(1.0, &xb, 2.0, &yb, 1.0) + f_fwd(1.0, 1.0, 2.0, 0.0, &d) + xb + yb + d;
}
