/* What a CHAD_CUSTOM function may not be: one that writes an array whose
   length its declaration does not give, one that returns an integer and
   writes no array, a variadic one. */
#include "../../include/chad.h"

CHAD_CUSTOM double fill(double *y, int n);
double fill_fwd(double *y, double *dy, int n, double *d_ret);
double fill_rev(double *y, const double *y_b, int n, double ret_b);

CHAD_CUSTOM int count(double x);

CHAD_CUSTOM double vsum(int n, ...);

CHAD_DIFFERENTIABLE
double f(double x) {
  double y[4];
  return fill(y, 4) * x; // expect-error: cannot differentiate 'f': CHAD_CUSTOM function 'fill' writes array parameter 'y', declared 'double *y', whose length chad cannot see: declare it with its length, as a C99 array parameter ('double y[n]' over an earlier integer parameter n, or 'double y[3]'), or make it 'const'
}

CHAD_DIFFERENTIABLE
double g(double x) {
  return count(x) * x; // expect-error: cannot differentiate 'g': CHAD_CUSTOM function 'count' returns 'int': a custom function must return double or float, or write an array (then it may return void or an integer)
}

CHAD_DIFFERENTIABLE
double h(double x) {
  return vsum(1, x); // expect-error: cannot differentiate 'h': call to CHAD_CUSTOM function 'vsum': variadic functions are not supported
}
