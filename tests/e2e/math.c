/* math.c: end-to-end test of every supported double <math.h> function, one
 * annotated function each (so a failure names the primitive), at points
 * inside its domain and away from its kinks and jumps.  Inner expressions
 * make the chain rule do some work too. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE double m_sqrt(double x) { return sqrt(2 * x); }
CHAD_DIFFERENTIABLE double m_exp(double x) { return exp(x) * x; }
CHAD_DIFFERENTIABLE double m_log(double x) { return log(x * x + x); }
CHAD_DIFFERENTIABLE double m_log1p(double x) { return log1p(x); }
CHAD_DIFFERENTIABLE double m_expm1(double x) { return expm1(x); }
CHAD_DIFFERENTIABLE double m_pow(double x, double y) { return pow(x, y); }
/* Negative base, constant exponent: d/dy would be log(x) = NaN, so the
 * derivative must not touch it (only structural zeros may be dropped). */
CHAD_DIFFERENTIABLE double m_pow_const_exp(double x) { return pow(x, 3.0) + pow(x, 2); }
CHAD_DIFFERENTIABLE double m_pow_const_base(double y) { return pow(2.0, y); }
CHAD_DIFFERENTIABLE double m_sin(double x) { return sin(x); }
CHAD_DIFFERENTIABLE double m_cos(double x) { return cos(x) * x; }
CHAD_DIFFERENTIABLE double m_tan(double x) { return tan(x); }
CHAD_DIFFERENTIABLE double m_asin(double x) { return asin(x); }
CHAD_DIFFERENTIABLE double m_acos(double x) { return acos(x / 2); }
CHAD_DIFFERENTIABLE double m_atan(double x) { return atan(x); }
CHAD_DIFFERENTIABLE double m_atan2(double y, double x) { return atan2(y, x); }
CHAD_DIFFERENTIABLE double m_sinh(double x) { return sinh(x); }
CHAD_DIFFERENTIABLE double m_cosh(double x) { return cosh(x); }
CHAD_DIFFERENTIABLE double m_tanh(double x) { return tanh(x); }
CHAD_DIFFERENTIABLE double m_fabs(double x) { return fabs(x) * x + fabs(x - 1); }
CHAD_DIFFERENTIABLE double m_fmin(double x, double y) { return fmin(x, y) + fmin(x, 1.0); }
CHAD_DIFFERENTIABLE double m_fmax(double x, double y) { return fmax(x, y) * fmax(y, -1.0); }
CHAD_DIFFERENTIABLE double m_hypot(double x, double y) { return hypot(x, y); }
CHAD_DIFFERENTIABLE double m_erf(double x) { return erf(x); }
CHAD_DIFFERENTIABLE double m_cbrt(double x) { return cbrt(x); }
/* floor, ceil, round are piecewise constant: d/dx (x * floor(x)) = floor(x). */
CHAD_DIFFERENTIABLE double m_floor(double x) { return x * floor(x); }
CHAD_DIFFERENTIABLE double m_ceil(double x) { return x * ceil(x) + ceil(x); }
CHAD_DIFFERENTIABLE double m_round(double x, double y) { return y * round(x) + round(x * y); }

/* Compositions that numerical code writes. */
CHAD_DIFFERENTIABLE double softplus(double x) { return log1p(exp(x)); }
CHAD_DIFFERENTIABLE double logistic(double x) { return 1 / (1 + exp(-x)); }
CHAD_DIFFERENTIABLE double gaussian(double x, double mu, double s) {
    double z = (x - mu) / s;
    return exp(-0.5 * z * z) / (s * sqrt(2 * 3.141592653589793));
}
CHAD_DIFFERENTIABLE double trig_mix(double x, double y) {
    return sin(x * y) * cos(x - y) + atan2(sin(y), cos(x)) + tanh(x * x) * hypot(x, y);
}

GC_WRAP1(m_sqrt)
GC_WRAP1(m_exp)
GC_WRAP1(m_log)
GC_WRAP1(m_log1p)
GC_WRAP1(m_expm1)
GC_WRAP2(m_pow)
GC_WRAP1(m_pow_const_exp)
GC_WRAP1(m_pow_const_base)
GC_WRAP1(m_sin)
GC_WRAP1(m_cos)
GC_WRAP1(m_tan)
GC_WRAP1(m_asin)
GC_WRAP1(m_acos)
GC_WRAP1(m_atan)
GC_WRAP2(m_atan2)
GC_WRAP1(m_sinh)
GC_WRAP1(m_cosh)
GC_WRAP1(m_tanh)
GC_WRAP1(m_fabs)
GC_WRAP2(m_fmin)
GC_WRAP2(m_fmax)
GC_WRAP2(m_hypot)
GC_WRAP1(m_erf)
GC_WRAP1(m_cbrt)
GC_WRAP1(m_floor)
GC_WRAP1(m_ceil)
GC_WRAP2(m_round)
GC_WRAP1(softplus)
GC_WRAP1(logistic)
GC_WRAP3(gaussian)
GC_WRAP2(trig_mix)

int main(void) {
    GC_CHECK(m_sqrt, 1, 0.125, 1.0, 2.5, 1e4);
    GC_CHECK(m_exp, 1, -3.0, 0.0, 0.5, 4.0);
    GC_CHECK(m_log, 1, 0.125, 1.0, 2.5, -3.0);
    GC_CHECK(m_log1p, 1, -0.75, -1e-3, 0.0, 0.5, 40.0);
    GC_CHECK(m_expm1, 1, -3.0, -1e-3, 0.0, 0.5, 4.0);
    GC_CHECK(m_pow, 2, 0.5, 2.0, 2.0, 0.5, 3.0, -1.5, 1.5, 3.0);
    GC_CHECK(m_pow_const_exp, 1, -1.5, -0.25, 2.0);
    GC_CHECK(m_pow_const_base, 1, -1.5, 0.0, 2.5);
    GC_CHECK(m_sin, 1, -2.0, 0.0, 0.5, 3.0, 10.0);
    GC_CHECK(m_cos, 1, -2.0, 0.0, 0.5, 3.0, 10.0);
    GC_CHECK(m_tan, 1, -1.2, 0.0, 0.5, 1.4);
    GC_CHECK(m_asin, 1, -0.9, 0.0, 0.5, 0.9);
    GC_CHECK(m_acos, 1, -1.8, 0.0, 1.0, 1.7);
    GC_CHECK(m_atan, 1, -20.0, -0.5, 0.0, 3.0);
    /* all four quadrants */
    GC_CHECK(m_atan2, 2, 1.0, 2.0, 1.5, -0.5, -0.5, -2.0, -3.0, 1.0);
    GC_CHECK(m_sinh, 1, -3.0, 0.0, 0.5, 2.0);
    GC_CHECK(m_cosh, 1, -3.0, 0.0, 0.5, 2.0);
    GC_CHECK(m_tanh, 1, -3.0, 0.0, 0.5, 2.0);
    GC_CHECK(m_fabs, 1, -3.0, -0.5, 0.5, 2.0);
    /* both orders of the arguments */
    GC_CHECK(m_fmin, 2, 0.5, 2.0, 2.0, 0.5, -3.0, -1.0, 1.5, -2.5);
    GC_CHECK(m_fmax, 2, 0.5, 2.0, 2.0, 0.5, -3.0, -1.5, 1.5, -2.5);
    GC_CHECK(m_hypot, 2, 3.0, 4.0, -1.0, 0.5, 1e-3, -2.0);
    GC_CHECK(m_erf, 1, -2.5, -0.5, 0.0, 0.3, 1.7);
    GC_CHECK(m_cbrt, 1, -8.0, -0.3, 0.125, 27.0);
    GC_CHECK(m_floor, 1, -2.5, -0.25, 0.5, 3.75);
    GC_CHECK(m_ceil, 1, -2.5, -0.25, 0.5, 3.75);
    /* x and x*y away from the half-integers */
    GC_CHECK(m_round, 2, 1.2, 0.5, -2.25, 1.5, 3.9, -0.25);
    GC_CHECK(softplus, 1, -5.0, 0.0, 3.0);
    GC_CHECK(logistic, 1, -5.0, 0.0, 3.0);
    GC_CHECK(gaussian, 3, 0.5, 0.0, 1.0, -1.0, 0.5, 2.0, 3.0, 2.5, 0.25);
    GC_CHECK(trig_mix, 2, 0.5, 1.5, -1.0, 0.25, 2.0, -3.0);
    return gc_summary();
}
