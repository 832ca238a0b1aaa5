/* math2.c: end-to-end test of the double <math.h> functions of issue 8:
 * lgamma and tgamma (whose derivatives call the generated chad_digamma),
 * exp2, log2, log10, fma, fmod, remainder, copysign, fdim, trunc, rint,
 * nearbyint, erfc, asinh, acosh, atanh, ldexp and scalbn (int exponent),
 * pow with an int exponent, and the M_PI-style constants.  Points cover
 * each domain (negative arguments of lgamma and tgamma between the poles,
 * both signs of fmod's and copysign's operands), away from jumps. */
#define _DEFAULT_SOURCE /* M_PI and friends are POSIX, not ISO C */
#include <math.h>
#include <stdio.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE double m_lgamma(double x) { return lgamma(x); }
CHAD_DIFFERENTIABLE double m_lgamma2(double x) { return lgamma(x * x + 0.5) * x; }
CHAD_DIFFERENTIABLE double m_tgamma(double x) { return tgamma(x); }
CHAD_DIFFERENTIABLE double m_exp2(double x) { return exp2(x) * x; }
CHAD_DIFFERENTIABLE double m_log2(double x) { return log2(x * x); }
CHAD_DIFFERENTIABLE double m_log10(double x) { return log10(x) + x; }
CHAD_DIFFERENTIABLE double m_fma(double a, double b, double c) { return fma(a, b, c * a); }
CHAD_DIFFERENTIABLE double m_fmod(double a, double b) { return fmod(a, b); }
CHAD_DIFFERENTIABLE double m_remainder(double a, double b) { return remainder(a, b) * b; }
CHAD_DIFFERENTIABLE double m_copysign(double a, double b) {
    return copysign(a, b) + copysign(2.0, a * b) * a;
}
CHAD_DIFFERENTIABLE double m_fdim(double a, double b) { return fdim(a, b) * a; }
/* trunc, rint and nearbyint are piecewise constant */
CHAD_DIFFERENTIABLE double m_trunc(double x) { return x * trunc(x) + trunc(2 * x); }
CHAD_DIFFERENTIABLE double m_rint(double x) { return x * rint(x); }
CHAD_DIFFERENTIABLE double m_nearbyint(double x) { return x * nearbyint(3 * x); }
CHAD_DIFFERENTIABLE double m_erfc(double x) { return erfc(x); }
CHAD_DIFFERENTIABLE double m_asinh(double x) { return asinh(x); }
CHAD_DIFFERENTIABLE double m_acosh(double x) { return acosh(x); }
CHAD_DIFFERENTIABLE double m_atanh(double x) { return atanh(x); }
/* exponents written as constants, as an int variable, and as an argument */
CHAD_DIFFERENTIABLE double m_ldexp(double x) {
    int k = -2;
    return ldexp(x, 3) + ldexp(x * x, k);
}
CHAD_DIFFERENTIABLE double m_scalbn(double x) { return scalbn(sin(x), 5); }
CHAD_DIFFERENTIABLE double m_ldexp_n(double x, int n) { return ldexp(x, n) * x; }
/* pow with an int exponent: n x^(n-1), finite at 0 and for x < 0, where
 * the general d/dy x^y = x^y log x would be NaN */
CHAD_DIFFERENTIABLE double m_pow_int(double x) {
    return pow(x, 3) + pow(x, 2) + pow(x, 1) + pow(x, 0) + pow(x, 2.0);
}
CHAD_DIFFERENTIABLE double m_pow_neg(double x) { return pow(x, -2) + pow(x, -3.0); }
CHAD_DIFFERENTIABLE double m_pow_n(double x, int n) { return pow(x, n); }
/* lgamma of int data: an inactive argument, its derivative is not needed */
CHAD_DIFFERENTIABLE double m_lgamma_int(double x, int n) { return x * lgamma(n); }
/* M_PI-style constants are macros for literals */
CHAD_DIFFERENTIABLE double m_consts(double x) {
    return M_PI * x * x + M_E * sin(x) + M_LN2 * x + M_SQRT2 + M_LOG2E * M_LN10 * cos(x) +
           M_PI_2 * M_1_PI * x + M_2_SQRTPI * M_SQRT1_2 * M_LOG10E * M_PI_4 * M_2_PI * x;
}
/* Uses of the gamma functions: the log-likelihood of a gamma
 * distribution, and a beta function */
CHAD_DIFFERENTIABLE double gamma_loglik(double x, double k, double theta) {
    return (k - 1) * log(x) - x / theta - lgamma(k) - k * log(theta);
}
CHAD_DIFFERENTIABLE double beta_fn(double a, double b) {
    return exp(lgamma(a) + lgamma(b) - lgamma(a + b));
}

GC_WRAP1(m_lgamma)
GC_WRAP1(m_lgamma2)
GC_WRAP1(m_tgamma)
GC_WRAP1(m_exp2)
GC_WRAP1(m_log2)
GC_WRAP1(m_log10)
GC_WRAP3(m_fma)
GC_WRAP2(m_fmod)
GC_WRAP2(m_remainder)
GC_WRAP2(m_copysign)
GC_WRAP2(m_fdim)
GC_WRAP1(m_trunc)
GC_WRAP1(m_rint)
GC_WRAP1(m_nearbyint)
GC_WRAP1(m_erfc)
GC_WRAP1(m_asinh)
GC_WRAP1(m_acosh)
GC_WRAP1(m_atanh)
GC_WRAP1(m_ldexp)
GC_WRAP1(m_scalbn)
GC_WRAP1(m_pow_int)
GC_WRAP1(m_pow_neg)
GC_WRAP1(m_consts)
GC_WRAP3(gamma_loglik)
GC_WRAP2(beta_fn)

/* Wrappers for f(double x, int n), n from the context. */
#define WRAP_XN(f)                                                                           \
    static double f##_gc(const double *x, void *c) { return f(x[0], *(int *)c); }           \
    static double f##_gc_fwd(const double *x, const double *d, double *r, void *c) {        \
        return f##_fwd(x[0], d[0], *(int *)c, r); }                                          \
    static double f##_gc_rev(const double *x, double *b, double s, void *c) {               \
        return f##_rev(x[0], &b[0], *(int *)c, s); }
WRAP_XN(m_ldexp_n)
WRAP_XN(m_pow_n)
WRAP_XN(m_lgamma_int)

/* digamma at points and values from mpmath (40 digits); the gradient of
 * lgamma is the generated chad_digamma, to within 1e-14 relative. */
static void check_digamma(void) {
    static const double ref[][2] = {
        {0.5, -1.96351002602142347944},
        {1.4616321449683622, -9.24126552172942751679e-17},
        {2.5, 0.703156640645243187226},
        {10.5, 2.30300103429768637527},
        {1e10, 23.0258509298904568402},
        {-1.25, 3.71413912021352783037},
        {-2.75, -1.95905526497799700982},
        {-123456.875, 4.13917564202923334348},
    };
    for (size_t i = 0; i < sizeof ref / sizeof *ref; i++) {
        double g = 0;
        m_lgamma_rev(ref[i][0], &g, 1.0);
        char what[120];
        snprintf(what, sizeof what, "digamma(%.17g) = %.17g, want %.17g", ref[i][0], g, ref[i][1]);
        gc_expect(fabs(g - ref[i][1]) <= 1e-14 * fabs(ref[i][1]), "digamma", what);
    }
}

/* Exact values where finite differences cannot look: pow(-2, 3) and
 * pow(0, n) for n = 0, 1, 2; fmod's quotient at its jump (fmod(1, 0.1)
 * takes 0.1 nine times, though 1/0.1 rounds to 10). */
static void check_exact(void) {
    double g = 0, d = 0, ga = 0, gb = 0;
    m_pow_n_rev(-2.0, &g, 3, 1.0);
    gc_expect(g == 12.0, "pow(-2, 3)", "d/dx is not 12");
    for (int n = 0; n <= 2; n++) {
        g = 0;
        m_pow_n_rev(0.0, &g, n, 1.0);
        m_pow_n_fwd(0.0, 1.0, n, &d);
        gc_expect(g == (n == 1) && d == g, "pow(0, n)", "d/dx is not n 0^(n-1) (0 for n = 0)");
    }
    m_fmod_rev(1.0, &ga, 0.1, &gb, 1.0);
    gc_expect(ga == 1.0 && gb == -9.0, "fmod(1, 0.1)", "partials are not (1, -9)");
    g = 0;
    m_ldexp_n_rev(0.75, &g, -1070, 1.0); /* 2^-1070 x 1.5: exact, subnormal */
    gc_expect(g == ldexp(1.5, -1070), "ldexp(x, -1070) x", "derivative is not 2^-1070 1.5");
}

int main(void) {
    static int ns[] = {0, 1, 2, 3, 5, -1, -4};
    GC_CHECK(m_lgamma, 1, 0.3, 1.0, 2.7, 10.5, 150.0, -0.5, -1.4, -2.6, -5.5);
    GC_CHECK(m_lgamma2, 1, -1.3, 0.2, 2.5);
    GC_CHECK(m_tgamma, 1, 0.45, 1.5, 3.2, 7.5, -0.5, -1.5, -2.3);
    GC_CHECK(m_exp2, 1, -3.0, 0.0, 1.3, 10.0);
    GC_CHECK(m_log2, 1, -3.0, 0.01, 0.7, 1e5);
    GC_CHECK(m_log10, 1, 0.01, 0.7, 3.0, 1e5);
    GC_CHECK(m_fma, 3, 0.8, -1.3, 2.1, -2.0, 0.5, 0.25, 1e3, 1e-3, -7.0);
    /* every sign combination */
    GC_CHECK(m_fmod, 2, 5.3, 1.2, -5.3, 1.2, 5.3, -1.2, -5.3, -1.2, 0.7, 2.5, 100.3, 0.7);
    GC_CHECK(m_remainder, 2, 5.3, 1.2, -7.9, 2.5, 7.9, -2.5, 0.7, 2.5);
    GC_CHECK(m_copysign, 2, 1.3, -0.4, -1.3, -0.4, -1.3, 0.4, 1.3, 0.4);
    GC_CHECK(m_fdim, 2, 1.3, 0.4, 0.3, 0.4, -2.0, -3.5);
    GC_CHECK(m_trunc, 1, -2.7, -0.3, 0.3, 4.6);
    GC_CHECK(m_rint, 1, -2.7, -0.3, 0.2, 4.6);
    GC_CHECK(m_nearbyint, 1, -2.7, -0.3, 0.2, 4.6);
    GC_CHECK(m_erfc, 1, -2.0, -0.5, 0.0, 0.6, 3.0);
    GC_CHECK(m_asinh, 1, -30.0, -0.5, 0.0, 2.0);
    GC_CHECK(m_acosh, 1, 1.1, 2.0, 40.0);
    GC_CHECK(m_atanh, 1, -0.9, -0.2, 0.0, 0.6);
    GC_CHECK(m_ldexp, 1, -1.5, 0.0, 0.3, 7.0);
    GC_CHECK(m_scalbn, 1, -1.5, 0.0, 0.3, 7.0);
    GC_CHECK(m_pow_int, 1, -2.0, -0.5, 0.0, 0.5, 3.0);
    GC_CHECK(m_pow_neg, 1, -2.0, -0.5, 0.5, 3.0);
    GC_CHECK(m_consts, 1, -1.0, 0.0, 2.0);
    GC_CHECK(gamma_loglik, 3, 1.5, 2.0, 0.5, 0.3, 0.7, 3.0, 7.0, 9.5, 1.25);
    GC_CHECK(beta_fn, 2, 0.5, 0.5, 2.5, 1.5, 7.0, 3.25);
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        GC_RUN("ldexp(x, n) x", m_ldexp_n, 1, &ns[i], GC_DOUBLE, -1.5, 0.3, 7.0);
        if (ns[i] > 0) /* lgamma has poles at 0, -1, ... */
            GC_RUN("lgamma(n) x", m_lgamma_int, 1, &ns[i], GC_DOUBLE, -1.5, 0.3, 7.0);
        if (ns[i] >= 0)
            GC_RUN("pow(x, n)", m_pow_n, 1, &ns[i], GC_DOUBLE, -2.0, -0.7, 0.0, 1.3);
        else
            GC_RUN("pow(x, n)", m_pow_n, 1, &ns[i], GC_DOUBLE, -2.0, -0.7, 1.3);
    }
    check_digamma();
    check_exact();
    return gc_summary();
}
