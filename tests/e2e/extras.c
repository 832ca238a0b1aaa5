/* extras.c: end-to-end test of ordinary C that the contract implies but the
 * other files do not spell out: declarations without initialiser and with
 * several declarators, nested blocks that shadow a name, hex float literals,
 * the attribute after the return type, and a _Bool parameter (inactive,
 * like int). */
#include "gradcheck.h"

/* Declared first, assigned on every path later. */
__attribute__((differentiable))
double uninit(double x, double y) {
    double a, b;
    double c = x, d = y * 2, e;
    if (x > y) {
        a = x * y;
        b = c;
    } else {
        a = y;
        b = d * x;
    }
    e = a + b;
    return e * c - d;
}

/* Each t is a different variable: the inner one must not leak out. */
__attribute__((differentiable))
double shadow(double x, double y) {
    double t = x * y;
    {
        double t = y * 3;
        x = x + t;
        {
            double t = x * x;
            y = y * t;
        }
    }
    return t + x * y;
}

__attribute__((differentiable))
double hexfloat(double x) { return 0x1p-3 * x * x + 0x1.8p1 * x; }

double __attribute__((differentiable)) attr_after_type(double x, double y) { return x * y * y; }

__attribute__((differentiable))
double bool_param(double x, _Bool neg, int k) {
    double r = x * (double)k + x * x * k;
    return neg ? -r : r;
}

static double bool_param_gc(const double *x, void *c) {
    const int *p = c;
    return bool_param(x[0], p[0], p[1]);
}
static double bool_param_gc_fwd(const double *x, const double *d, double *r, void *c) {
    const int *p = c;
    return bool_param_fwd(x[0], d[0], p[0], p[1], r);
}
static double bool_param_gc_rev(const double *x, double *b, double s, void *c) {
    const int *p = c;
    return bool_param_rev(x[0], &b[0], p[0], p[1], s);
}

GC_WRAP2(uninit)
GC_WRAP2(shadow)
GC_WRAP1(hexfloat)
GC_WRAP2(attr_after_type)

int main(void) {
    static int ints[2][2] = {{0, 3}, {1, -2}};
    GC_CHECK(uninit, 2, 1.5, -2.0, -0.25, 3.0);
    GC_CHECK(shadow, 2, 1.5, -2.0, -0.25, 3.0);
    GC_CHECK(hexfloat, 1, 1.5, -2.0);
    GC_CHECK(attr_after_type, 2, 1.5, -2.0);
    GC_RUN("bool_param", bool_param, 1, ints[0], GC_DOUBLE, 1.5, -0.75);
    GC_RUN("bool_param", bool_param, 1, ints[1], GC_DOUBLE, 1.5, -0.75);
    return gc_summary();
}
