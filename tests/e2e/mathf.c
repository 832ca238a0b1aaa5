/* mathf.c: end-to-end test of every supported float <math.h> function (the
 * f-suffixed forms) in float functions, whose f_fwd and f_rev take float
 * tangents and adjoints.  One annotated function per primitive, at points
 * inside its domain and away from kinks and jumps; float tolerances. */
#include <math.h>
#include "gradcheck.h"

__attribute__((differentiable)) float mf_sqrt(float x) { return sqrtf(2 * x); }
__attribute__((differentiable)) float mf_exp(float x) { return expf(x) * x; }
__attribute__((differentiable)) float mf_log(float x) { return logf(x * x + x); }
__attribute__((differentiable)) float mf_log1p(float x) { return log1pf(x); }
__attribute__((differentiable)) float mf_expm1(float x) { return expm1f(x); }
__attribute__((differentiable)) float mf_pow(float x, float y) { return powf(x, y); }
__attribute__((differentiable)) float mf_pow_const_exp(float x) { return powf(x, 3.0f); }
__attribute__((differentiable)) float mf_sin(float x) { return sinf(x); }
__attribute__((differentiable)) float mf_cos(float x) { return cosf(x) * x; }
__attribute__((differentiable)) float mf_tan(float x) { return tanf(x); }
__attribute__((differentiable)) float mf_asin(float x) { return asinf(x); }
__attribute__((differentiable)) float mf_acos(float x) { return acosf(x / 2); }
__attribute__((differentiable)) float mf_atan(float x) { return atanf(x); }
__attribute__((differentiable)) float mf_atan2(float y, float x) { return atan2f(y, x); }
__attribute__((differentiable)) float mf_sinh(float x) { return sinhf(x); }
__attribute__((differentiable)) float mf_cosh(float x) { return coshf(x); }
__attribute__((differentiable)) float mf_tanh(float x) { return tanhf(x); }
__attribute__((differentiable)) float mf_fabs(float x) { return fabsf(x) * x + fabsf(x - 1); }
__attribute__((differentiable)) float mf_fmin(float x, float y) { return fminf(x, y) + fminf(x, 1.0f); }
__attribute__((differentiable)) float mf_fmax(float x, float y) { return fmaxf(x, y) * fmaxf(y, -1.0f); }
__attribute__((differentiable)) float mf_hypot(float x, float y) { return hypotf(x, y); }
__attribute__((differentiable)) float mf_erf(float x) { return erff(x); }
__attribute__((differentiable)) float mf_cbrt(float x) { return cbrtf(x); }
__attribute__((differentiable)) float mf_floor(float x) { return x * floorf(x); }
__attribute__((differentiable)) float mf_ceil(float x) { return x * ceilf(x) + ceilf(x); }
__attribute__((differentiable)) float mf_round(float x, float y) { return y * roundf(x) + roundf(x * y); }

GC_WRAPF1(mf_sqrt)
GC_WRAPF1(mf_exp)
GC_WRAPF1(mf_log)
GC_WRAPF1(mf_log1p)
GC_WRAPF1(mf_expm1)
GC_WRAPF2(mf_pow)
GC_WRAPF1(mf_pow_const_exp)
GC_WRAPF1(mf_sin)
GC_WRAPF1(mf_cos)
GC_WRAPF1(mf_tan)
GC_WRAPF1(mf_asin)
GC_WRAPF1(mf_acos)
GC_WRAPF1(mf_atan)
GC_WRAPF2(mf_atan2)
GC_WRAPF1(mf_sinh)
GC_WRAPF1(mf_cosh)
GC_WRAPF1(mf_tanh)
GC_WRAPF1(mf_fabs)
GC_WRAPF2(mf_fmin)
GC_WRAPF2(mf_fmax)
GC_WRAPF2(mf_hypot)
GC_WRAPF1(mf_erf)
GC_WRAPF1(mf_cbrt)
GC_WRAPF1(mf_floor)
GC_WRAPF1(mf_ceil)
GC_WRAPF2(mf_round)

int main(void) {
    GC_CHECKF(mf_sqrt, 1, 0.125, 1.0, 2.5, 1e4);
    GC_CHECKF(mf_exp, 1, -3.0, 0.0, 0.5, 4.0);
    GC_CHECKF(mf_log, 1, 0.125, 1.0, 2.5, -3.0);
    GC_CHECKF(mf_log1p, 1, -0.75, 0.0, 0.5, 40.0);
    GC_CHECKF(mf_expm1, 1, -3.0, 0.0, 0.5, 4.0);
    GC_CHECKF(mf_pow, 2, 0.5, 2.0, 2.0, 0.5, 3.0, -1.5, 1.5, 3.0);
    GC_CHECKF(mf_pow_const_exp, 1, -1.5, -0.25, 2.0);
    GC_CHECKF(mf_sin, 1, -2.0, 0.0, 0.5, 3.0, 10.0);
    GC_CHECKF(mf_cos, 1, -2.0, 0.0, 0.5, 3.0, 10.0);
    GC_CHECKF(mf_tan, 1, -1.2, 0.0, 0.5, 1.3);
    GC_CHECKF(mf_asin, 1, -0.9, 0.0, 0.5, 0.8);
    GC_CHECKF(mf_acos, 1, -1.8, 0.0, 1.0, 1.6);
    GC_CHECKF(mf_atan, 1, -20.0, -0.5, 0.0, 3.0);
    GC_CHECKF(mf_atan2, 2, 1.0, 2.0, 1.5, -0.5, -0.5, -2.0, -3.0, 1.0);
    GC_CHECKF(mf_sinh, 1, -3.0, 0.0, 0.5, 2.0);
    GC_CHECKF(mf_cosh, 1, -3.0, 0.0, 0.5, 2.0);
    GC_CHECKF(mf_tanh, 1, -3.0, 0.0, 0.5, 2.0);
    GC_CHECKF(mf_fabs, 1, -3.0, -0.5, 0.5, 2.0);
    GC_CHECKF(mf_fmin, 2, 0.5, 2.0, 2.0, 0.5, -3.0, -1.0, 1.5, -2.5);
    GC_CHECKF(mf_fmax, 2, 0.5, 2.0, 2.0, 0.5, -3.0, -1.5, 1.5, -2.5);
    GC_CHECKF(mf_hypot, 2, 3.0, 4.0, -1.0, 0.5, 0.25, -2.0);
    GC_CHECKF(mf_erf, 1, -2.5, -0.5, 0.0, 0.3, 1.7);
    GC_CHECKF(mf_cbrt, 1, -8.0, -0.3, 0.125, 27.0);
    GC_CHECKF(mf_floor, 1, -2.5, -0.25, 0.5, 3.75);
    GC_CHECKF(mf_ceil, 1, -2.5, -0.25, 0.5, 3.75);
    GC_CHECKF(mf_round, 2, 1.2, 0.5, -2.25, 1.5, 3.9, -0.25);
    return gc_summary();
}
