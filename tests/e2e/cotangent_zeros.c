/* cotangent_zeros.c: f_rev starts the cotangents it makes at -0 (DESIGN
 * 8.66), so that the C compiler drops the additions into them, and divides
 * by a number once (8.65). project: small arrays filled element by element
 * and two quotients by one number, as BA's projection (float too);
 * select: an array one branch fills. Checked against finite differences,
 * by duality and for accumulation, also under ASan. The caller never sees
 * a -0 it did not put there: adjoints chad adds nothing to, and an in-out
 * array's adjoint of values f overwrites, stay +0. */
#include <math.h>
#include <string.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
double project(double a, double b, double c) {
    double v[3], p[2];
    v[0] = a - 0.5;
    v[1] = b * a;
    v[2] = c + 2.0;
    p[0] = v[0] / v[2];
    p[1] = v[1] / v[2];
    double r = sqrt(p[0] * p[0] + p[1] * p[1] + 1.0);
    return p[0] * r + p[1] / r;
}

CHAD_DIFFERENTIABLE
float projectf(float a, float b, float c) {
    float v[3];
    v[0] = a * c;
    v[1] = b;
    v[2] = c * c + 1.0f;
    return (v[0] + v[1]) / v[2] + sqrtf(v[2]);
}

CHAD_DIFFERENTIABLE
double select(double x, double y) {
    double w[2];
    if (x > 0) {
        w[0] = x * y;
        w[1] = y;
    } else {
        w[0] = x;
        w[1] = 1.0;
    }
    return w[0] * w[1] + x;
}

/* y reaches nothing: its adjoint gets no contribution */
CHAD_DIFFERENTIABLE
double first_only(double x, double y) {
    double v[2];
    v[0] = x;
    v[1] = y;
    return v[0] * 3.0;
}

/* p[0]'s initial value is overwritten unread: its adjoint is zero */
CHAD_DIFFERENTIABLE
double overwrite(double *p, const double *x) {
    double r = p[1] * x[0];
    p[0] = 3.0;
    p[2] = x[1] * r;
    return r;
}

GC_WRAP3(project)
GC_WRAPF3(projectf)
GC_WRAP2(select)
GC_WRAP2(first_only)

static void check_positive_zeros(void) {
    double xb = 0.0, yb = 0.0;
    first_only_rev(1.5, &xb, -2.0, &yb, 1.0);
    gc_report(xb == 3.0 && yb == 0.0 && !signbit(yb), "first_only", NULL, 0,
              "an adjoint nothing is added to stays +0");

    double p[3] = {1.0, 2.0, 3.0}, pb[3] = {0.5, 0.0, 0.25}, x[2] = {0.7, 1.3}, xb2[2] = {0.0, 0.0};
    double r = overwrite_rev(p, pb, x, xb2, 1.0);
    /* r = p1 x0 with the final p2 = x1 r seeded 0.25: r_b = 1 + 0.25 x1 */
    double rb = 1.0 + 0.25 * 1.3;
    gc_report(r == 2.0 * 0.7 && p[0] == 3.0 && p[2] == 1.3 * r, "overwrite", NULL, 0,
              "f_rev leaves p as f does");
    gc_report(pb[0] == 0.0 && !signbit(pb[0]) && pb[2] == 0.0 && !signbit(pb[2]), "overwrite", NULL, 0,
              "an in-out adjoint of overwritten values is +0");
    gc_report(fabs(pb[1] - rb * 0.7) < 1e-15 && fabs(xb2[0] - rb * 2.0) < 1e-15 &&
                  fabs(xb2[1] - 0.25 * r) < 1e-15,
              "overwrite", NULL, 0, "in-out adjoints");
}

int main(void) {
    GC_CHECK(project, 3, 0.3, 1.5, -0.7, -2.0, 0.25, 3.0, 1.1, -0.4, 0.6);
    GC_CHECKF(projectf, 3, 0.5f, 1.5f, -1.25f, 0.75f, -0.5f, 2.0f);
    GC_CHECK(select, 2, 0.7, 1.3, -0.5, 2.0);
    GC_CHECK(first_only, 2, 0.7, 1.3);
    check_positive_zeros();
    return gc_summary();
}
