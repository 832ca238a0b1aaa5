/* float.c: end-to-end test of float functions.  f_fwd and f_rev of a float
 * function use float for every tangent, adjoint, seed and return, and the
 * arithmetic stays in float (with promotion to double where C says so).
 * Also float callees of float and double callers, and an int parameter. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
float fpoly(float x, float y) {
    float t = x * y - 2.0f;
    t += x;
    t *= t;
    return t / (y * y + 1) - -x;
}

/* 0.1 is a double literal: x * 0.1 is computed in double, then narrowed. */
CHAD_DIFFERENTIABLE
float fpromote(float x) {
    float a = x * 0.1;
    double b = a * (double)x;
    return (float)(b + a);
}

CHAD_DIFFERENTIABLE
float fcontrol(float x, float y, float z) {
    float r;
    if (x > y && z > 0)
        r = x * z;
    else
        r = y - z;
    return r > 1 ? r * r : r + x;
}

CHAD_DIFFERENTIABLE
float fsq(float x) { return x * x; }

/* Float callee of a float caller; results used twice. */
CHAD_DIFFERENTIABLE
float fcaller(float x, float y) {
    float s = fsq(x + y);
    return s * fsq(x) + s;
}

/* Float callee of a double caller: conversions around the call. */
CHAD_DIFFERENTIABLE
double dcaller(double x, double y) { return fsq((float)x) * y + (double)fsq((float)(x * y)); }

CHAD_DIFFERENTIABLE
float fint(float x, int n) { return n > 1 ? x * x * n : x / (n + 2); }

static double fint_gc(const double *x, void *c) { return fint((float)x[0], *(int *)c); }
static double fint_gc_fwd(const double *x, const double *d, double *r, void *c) {
    float r_ = 0;
    double v = fint_fwd((float)x[0], (float)d[0], *(int *)c, &r_);
    *r = r_;
    return v;
}
static double fint_gc_rev(const double *x, double *b, double s, void *c) {
    float b_ = (float)b[0];
    double v = fint_rev((float)x[0], &b_, *(int *)c, (float)s);
    b[0] = b_;
    return v;
}

GC_WRAPF2(fpoly)
GC_WRAPF1(fpromote)
GC_WRAPF3(fcontrol)
GC_WRAPF1(fsq)
GC_WRAPF2(fcaller)
GC_WRAP2(dcaller)

int main(void) {
    int n;
    /* Through pointers of the types the contract states (all float): any
     * other type is an incompatible-pointer error under -Werror. */
    float (*fwd)(float, float, float, float, float *) = fpoly_fwd;
    float (*rev)(float, float *, float, float *, float) = fpoly_rev;
    float d = 0, bx = 0, by = 0;
    fwd(1.5f, 1.0f, -2.0f, 0.0f, &d);
    rev(1.5f, &bx, -2.0f, &by, 1.0f);
    gc_expect(fabsf(d - bx) <= 1e-5f * fabsf(bx), "fpoly", "d/dx from f_fwd and f_rev through pointers");

    GC_CHECKF(fpoly, 2, 1.5, -2.0, -0.25, 3.0, 0.5, 0.5);
    GC_CHECKF(fpromote, 1, 1.5, -2.0, 0.25);
    GC_CHECKF(fcontrol, 3, 2.0, 1.0, 0.75, 2.0, 1.0, 0.25, 0.5, 1.0, -0.5, 0.5, 3.0, 2.5);
    GC_CHECKF(fsq, 1, 1.5, -0.25);
    GC_CHECKF(fcaller, 2, 1.5, -2.0, -0.25, 3.0);
    GC_CHECKF(dcaller, 2, 1.5, -2.0, -0.25, 3.0);
    for (n = 0; n <= 3; n++)
        GC_RUN("fint", fint, 1, &n, GC_FLOAT, 1.5, -0.75);
    return gc_summary();
}
