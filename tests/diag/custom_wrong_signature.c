/* g_rev declared with the wrong signature (the adjoint by value): the
   error says where it is declared, as what, and what the contract expects. */
#include "../../include/chad.h"

CHAD_CUSTOM double softplus(double x, int k);
double softplus_fwd(double x, double dx, int k, double *d_ret);
double softplus_rev(double x, double x_b, int k, double ret_b);

CHAD_DIFFERENTIABLE
double f(double x) {
  double y = x * x;
  return softplus(y, 2); // expect-error: cannot differentiate 'f': 'softplus_rev', the reverse derivative of CHAD_CUSTOM function 'softplus', is declared at line 7 as 'double (double, double, int, double)'; the contract (DESIGN.md section 1) expects 'double softplus_rev(double x, double *x_b, int k, double ret_b)'
}
