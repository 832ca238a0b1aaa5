/* A CHAD_CUSTOM function whose g_fwd is not declared before the call: the
   error names the call, the function and the declaration it expects. */
#include "../../include/chad.h"

CHAD_CUSTOM double bessel(double x);
double bessel_rev(double x, double *x_b, double ret_b);

CHAD_DIFFERENTIABLE
double f(double x) {
  return bessel(x) * x; // expect-error: cannot differentiate 'f': call to CHAD_CUSTOM function 'bessel', whose forward derivative 'bessel_fwd' is not declared before the call: declare 'double bessel_fwd(double x, double dx, double *d_ret)'
}

double bessel_fwd(double x, double dx, double *d_ret);
