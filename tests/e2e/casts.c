/* casts.c: end-to-end test of types and conversions.  Casts among float,
 * double and int (explicit and implicit), int locals in arithmetic, (int)
 * truncation (zero derivative), and inactive int parameters, which get no
 * tangent and no adjoint and may sit anywhere in the parameter list. */
#include "chad.h"
#include "gradcheck.h"

/* k = (int)x is piecewise constant: d/dx (x * k + k) = k. */
CHAD_DIFFERENTIABLE
double trunc_mul(double x) {
    int k = (int)x;
    return x * k + k;
}

/* y reaches the result only through (int): its adjoint is zero and its
 * shadow parameters are unused, which must not warn under -Wextra. */
CHAD_DIFFERENTIABLE
double trunc_only(double x, double y) {
    int k = (int)(y * 2);
    return x * k;
}

/* Implicit double -> int conversion on initialisation and assignment. */
CHAD_DIFFERENTIABLE
double implicit_int(double x, double y) {
    int i = x * 3;
    int j;
    j = y;
    return x * y * (i - j);
}

/* int locals: integer arithmetic, compound assignment, then use as double. */
CHAD_DIFFERENTIABLE
double int_locals(double x) {
    int n = 3;
    int m = n * 2 + 1;
    m = m - n;
    m += 2;
    m *= 3;
    m /= 4;
    double s = m * x;
    s += n;
    return s * (double)m / 2 + x / n;
}

/* Through float and back: the computation is in float precision. */
CHAD_DIFFERENTIABLE
double via_float(double x) {
    float f = (float)x;
    f = f * 2.0f + 1;
    return (double)f * x;
}

/* double -> float -> int -> double, and implicit float <-> double. */
CHAD_DIFFERENTIABLE
double conversions(double x, double y) {
    float f = (float)(x * 3);
    int i = (int)f;
    double d = f;
    float g = y;
    return d * i + g * (double)(float)x + (double)i;
}

/* Inactive int parameters, first, middle and last. */
CHAD_DIFFERENTIABLE
double int_param_last(double x, int n) {
    double r = 1;
    if (n > 0) r = r * x;
    if (n > 1) r = r * x;
    if (n > 2) r *= x;
    return r * n;
}

CHAD_DIFFERENTIABLE
double int_param_mid(double x, int n, double y) { return x * n + y * y / n; }

CHAD_DIFFERENTIABLE
double int_param_first(int n, double x) { return n > 0 ? x * x : -x; }

/* Wrappers by hand: the int parameter comes from ctx. */
static double int_param_last_gc(const double *x, void *c) { return int_param_last(x[0], *(int *)c); }
static double int_param_last_gc_fwd(const double *x, const double *d, double *r, void *c) {
    return int_param_last_fwd(x[0], d[0], *(int *)c, r);
}
static double int_param_last_gc_rev(const double *x, double *b, double s, void *c) {
    return int_param_last_rev(x[0], &b[0], *(int *)c, s);
}
static double int_param_mid_gc(const double *x, void *c) { return int_param_mid(x[0], *(int *)c, x[1]); }
static double int_param_mid_gc_fwd(const double *x, const double *d, double *r, void *c) {
    return int_param_mid_fwd(x[0], d[0], *(int *)c, x[1], d[1], r);
}
static double int_param_mid_gc_rev(const double *x, double *b, double s, void *c) {
    return int_param_mid_rev(x[0], &b[0], *(int *)c, x[1], &b[1], s);
}
static double int_param_first_gc(const double *x, void *c) { return int_param_first(*(int *)c, x[0]); }
static double int_param_first_gc_fwd(const double *x, const double *d, double *r, void *c) {
    return int_param_first_fwd(*(int *)c, x[0], d[0], r);
}
static double int_param_first_gc_rev(const double *x, double *b, double s, void *c) {
    return int_param_first_rev(*(int *)c, x[0], &b[0], s);
}

GC_WRAP1(trunc_mul)
GC_WRAP2(trunc_only)
GC_WRAP2(implicit_int)
GC_WRAP1(int_locals)
GC_WRAP1(via_float)
GC_WRAP2(conversions)

int main(void) {
    int n;
    /* points well away from the integers, where (int) jumps */
    GC_CHECK(trunc_mul, 1, 2.5, -3.25, 0.5, 7.75);
    GC_CHECK(trunc_only, 2, 2.5, 1.3, -3.25, -2.2, 0.5, 0.8);
    GC_CHECK(implicit_int, 2, 2.1, 1.3, -3.25, -2.6, 0.5, 4.4);
    GC_CHECK(int_locals, 1, 2.5, -3.25, 0.0);
    GC_CHECKF(via_float, 1, 2.5, -3.25, 0.75);
    GC_CHECKF(conversions, 2, 2.1, 1.3, -3.25, -2.5, 0.5, 4.4);
    for (n = 0; n <= 3; n++) {
        GC_RUN("int_param_last", int_param_last, 1, &n, GC_DOUBLE, 1.5, -0.75);
        GC_RUN("int_param_first", int_param_first, 1, &n, GC_DOUBLE, 1.5, -0.75);
    }
    for (n = 1; n <= 3; n++) /* n divides */
        GC_RUN("int_param_mid", int_param_mid, 2, &n, GC_DOUBLE, 1.5, -0.75, 2.0, 3.0);
    return gc_summary();
}
