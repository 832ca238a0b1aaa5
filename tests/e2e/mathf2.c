/* mathf2.c: the float forms of math2.c's functions (lgammaf ... scalbnf,
 * powf with an int exponent) in float functions: float tangents and
 * adjoints, float tolerances.  tgammaf's and lgammaf's derivatives call
 * chad_digammaf, digamma computed in double and rounded once. */
#include <math.h>
#include <stdio.h>
#include "gradcheck.h"

#define D __attribute__((differentiable))
D float mf_lgamma(float x) { return lgammaf(x); }
D float mf_tgamma(float x) { return tgammaf(x); }
D float mf_exp2(float x) { return exp2f(x) * x; }
D float mf_log2(float x) { return log2f(x * x); }
D float mf_log10(float x) { return log10f(x) + x; }
D float mf_fma(float a, float b, float c) { return fmaf(a, b, c * a); }
D float mf_fmod(float a, float b) { return fmodf(a, b); }
D float mf_remainder(float a, float b) { return remainderf(a, b) * b; }
D float mf_copysign(float a, float b) { return copysignf(a, b) + copysignf(2.0f, a * b) * a; }
D float mf_fdim(float a, float b) { return fdimf(a, b) * a; }
D float mf_trunc(float x) { return x * truncf(x) + truncf(2 * x); }
D float mf_rint(float x) { return x * rintf(x); }
D float mf_nearbyint(float x) { return x * nearbyintf(3 * x); }
D float mf_erfc(float x) { return erfcf(x); }
D float mf_asinh(float x) { return asinhf(x); }
D float mf_acosh(float x) { return acoshf(x); }
D float mf_atanh(float x) { return atanhf(x); }
D float mf_ldexp(float x) { return ldexpf(x, 3) + ldexpf(x * x, -2); }
D float mf_scalbn(float x) { return scalbnf(sinf(x), 5); }
D float mf_pow_int(float x) { return powf(x, 3) + powf(x, 2) + powf(x, 0) + powf(x, 2.0f); }
D float mf_pow_n(float x, int n) { return powf(x, n); }

GC_WRAPF1(mf_lgamma)
GC_WRAPF1(mf_tgamma)
GC_WRAPF1(mf_exp2)
GC_WRAPF1(mf_log2)
GC_WRAPF1(mf_log10)
GC_WRAPF3(mf_fma)
GC_WRAPF2(mf_fmod)
GC_WRAPF2(mf_remainder)
GC_WRAPF2(mf_copysign)
GC_WRAPF2(mf_fdim)
GC_WRAPF1(mf_trunc)
GC_WRAPF1(mf_rint)
GC_WRAPF1(mf_nearbyint)
GC_WRAPF1(mf_erfc)
GC_WRAPF1(mf_asinh)
GC_WRAPF1(mf_acosh)
GC_WRAPF1(mf_atanh)
GC_WRAPF1(mf_ldexp)
GC_WRAPF1(mf_scalbn)
GC_WRAPF1(mf_pow_int)

/* powf(x, n), n from the context */
static double mf_pow_n_gc(const double *x, void *c) { return mf_pow_n((float)x[0], *(int *)c); }
static double mf_pow_n_gc_fwd(const double *x, const double *d, double *r, void *c) {
    float r_ = 0;
    double v = mf_pow_n_fwd((float)x[0], (float)d[0], *(int *)c, &r_);
    *r = r_;
    return v;
}
static double mf_pow_n_gc_rev(const double *x, double *b, double s, void *c) {
    float b_ = (float)b[0];
    double v = mf_pow_n_rev((float)x[0], &b_, *(int *)c, (float)s);
    b[0] = b_;
    return v;
}

int main(void) {
    static int ns[] = {0, 1, 2, 3, -2};
    float g = 0;
    GC_CHECKF(mf_lgamma, 1, 0.375, 1.0, 2.75, 10.5, -0.5, -1.375, -2.625);
    GC_CHECKF(mf_tgamma, 1, 0.4375, 1.5, 3.25, 7.5, -0.5, -1.5, -2.25);
    GC_CHECKF(mf_exp2, 1, -3.0, 0.0, 1.25, 10.0);
    GC_CHECKF(mf_log2, 1, -3.0, 0.0625, 0.75, 1e5);
    GC_CHECKF(mf_log10, 1, 0.0625, 0.75, 3.0, 1e5);
    GC_CHECKF(mf_fma, 3, 0.75, -1.25, 2.0, -2.0, 0.5, 0.25);
    GC_CHECKF(mf_fmod, 2, 5.25, 1.25, -5.25, 1.25, 5.25, -1.25, -5.25, -1.25, 0.75, 2.5);
    GC_CHECKF(mf_remainder, 2, 5.125, 1.5, -7.75, 2.5, 7.75, -2.5);
    GC_CHECKF(mf_copysign, 2, 1.25, -0.375, -1.25, -0.375, -1.25, 0.375, 1.25, 0.375);
    GC_CHECKF(mf_fdim, 2, 1.25, 0.375, 0.25, 0.375);
    GC_CHECKF(mf_trunc, 1, -2.75, -0.375, 0.375, 4.625);
    GC_CHECKF(mf_rint, 1, -2.75, -0.375, 0.25, 4.625);
    GC_CHECKF(mf_nearbyint, 1, -2.75, -0.375, 0.25, 4.625);
    GC_CHECKF(mf_erfc, 1, -2.0, -0.5, 0.0, 0.625, 3.0);
    GC_CHECKF(mf_asinh, 1, -30.0, -0.5, 0.0, 2.0);
    GC_CHECKF(mf_acosh, 1, 1.125, 2.0, 40.0);
    GC_CHECKF(mf_atanh, 1, -0.875, -0.25, 0.0, 0.625);
    GC_CHECKF(mf_ldexp, 1, -1.5, 0.0, 0.375, 7.0);
    GC_CHECKF(mf_scalbn, 1, -1.5, 0.0, 0.375, 7.0);
    GC_CHECKF(mf_pow_int, 1, -2.0, -0.5, 0.0, 0.5, 3.0);
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        if (ns[i] >= 0)
            GC_RUN("powf(x, n)", mf_pow_n, 1, &ns[i], GC_FLOAT, -2.0, -0.75, 0.0, 1.25);
        else
            GC_RUN("powf(x, n)", mf_pow_n, 1, &ns[i], GC_FLOAT, -2.0, -0.75, 1.25);
    }
    mf_pow_n_rev(-2.0f, &g, 3, 1.0f);
    gc_expect(g == 12.0f, "powf(-2, 3)", "d/dx is not 12");
    g = 0;
    mf_lgamma_rev(2.5f, &g, 1.0f); /* digamma(2.5) = 0.70315664064524318723 */
    gc_expect(g == 0.70315664064524318723f, "digammaf(2.5)", "not the rounded value");
    return gc_summary();
}
