/* CHAD_CUSTOM functions that write arrays (DESIGN 8.25), used in ways chad
   refuses: a call inside an expression, the same array read and written by
   one call (chad cannot see in which order the custom function reads and
   writes), and a length chad cannot follow. */
#include "../../include/chad.h"

CHAD_CUSTOM double mix(int n, double s, double p[n]);
double mix_fwd(int n, double s, double ds, double *p, double *dp, double *d_ret);
double mix_rev(int n, double s, double *s_b, double *p, double *p_b, double ret_b);

CHAD_CUSTOM void sq(int n, double a, const double x[n], double out[n]);
void sq_fwd(int n, double a, double da, const double *x, const double *dx, double *out,
            double *dout);
void sq_rev(int n, double a, double *a_b, const double *x, double *x_b, double *out,
            const double *out_b);

CHAD_CUSTOM void half(int n, const double x[n], double y[n / 2]);
void half_fwd(int n, const double *x, const double *dx, double *y, double *dy);
void half_rev(int n, const double *x, double *x_b, double *y, const double *y_b);

CHAD_DIFFERENTIABLE
double in_expression(const double *x, double s) {
  double t[3] = {x[0], x[1], x[2]};
  return 1 + mix(3, s, t); // expect-error: cannot differentiate 'in_expression': call to CHAD_CUSTOM function 'mix', which writes arrays, must be a statement of its own or the value of an assignment or declaration
}

CHAD_DIFFERENTIABLE
double aliased(const double *x, double a) {
  double t[4] = {x[0], x[1], x[2], x[3]};
  sq(2, a, t, &t[2]); // expect-error: cannot differentiate 'aliased': 't' is passed to 'sq' at the view '&t[2]', which it writes, and also read through parameter 'x', which 'sq' may read after writing (a CHAD_CUSTOM function: chad cannot see); aliasing is not supported
  return t[2] + t[3];
}

CHAD_DIFFERENTIABLE
double odd_length(const double *x) {
  double y[2];
  half(4, x, y); // expect-error: cannot differentiate 'odd_length': the length of parameter 'y' of 'half' is not an integer expression of its parameters chad can follow (+, -, * of parameters and constants)
  return y[0] + y[1];
}
