/* g_fwd whose tangent array is not const, and a float custom function
   whose g_rev returns double: both differ from the contract. */
#include "../../include/chad.h"

CHAD_CUSTOM double norm(const double *a, int n);
double norm_fwd(const double *a, double *da, int n, double *d_ret);
double norm_rev(const double *a, double *a_b, int n, double ret_b);

CHAD_CUSTOM float sq(float x);
float sq_fwd(float x, float dx, float *d_ret);
double sq_rev(float x, float *x_b, float ret_b);

CHAD_DIFFERENTIABLE
double f(const double *a, int n) {
  return norm(a, n); // expect-error: cannot differentiate 'f': 'norm_fwd', the forward derivative of CHAD_CUSTOM function 'norm', is declared at line 6 as 'double (const double *, double *, int, double *)'; the contract (DESIGN.md section 1) expects 'double norm_fwd(const double *a, const double *da, int n, double *d_ret)'
}

CHAD_DIFFERENTIABLE
float g(float x) {
  return sq(x) + x; // expect-error: cannot differentiate 'g': 'sq_rev', the reverse derivative of CHAD_CUSTOM function 'sq', is declared at line 11 as 'double (float, float *, float)'; the contract (DESIGN.md section 1) expects 'float sq_rev(float x, float *x_b, float ret_b)'
}
