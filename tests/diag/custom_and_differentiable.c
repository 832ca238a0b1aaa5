/* A function cannot be both CHAD_CUSTOM and differentiable: the error is at
   its definition, and a caller of it is reported at its call. */
#include "../../include/chad.h"

double twice_fwd(double x, double dx, double *d_ret);
double twice_rev(double x, double *x_b, double ret_b);

CHAD_CUSTOM CHAD_DIFFERENTIABLE
double twice(double x) { return 2 * x; } // expect-error: cannot differentiate 'twice': 'twice' is marked both CHAD_CUSTOM and differentiable

CHAD_DIFFERENTIABLE
double f(double x) {
  return twice(x) * x; // expect-error: cannot differentiate 'f': 'twice' is marked both CHAD_CUSTOM and differentiable
}
