/* zero_trip.c: end-to-end test of loops that may run no step around values
 * whose derivative is infinite at a point the loop never reaches.  chad
 * computes a loop's invariant values once, before it; the reverse sweep then
 * multiplies their derivative by their cotangent, which is zero when no step
 * ran.  sqrt'(0) * 0 is NaN, so such values are computed only when the loop
 * runs (ad/licm.c).  Each function is checked against finite differences
 * where it is smooth, and exactly where the loop runs no step: there the
 * gradient is zero, not NaN.  (Found by gen seed 161903.) */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

/* sqrt(a) and 1/a are invariant in the loop over n. */
CHAD_DIFFERENTIABLE
double scaled_sum(const double *x, double a, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += sqrt(a) * x[i] + x[i] / a;
    return s + a * a;
}

/* The inner loop runs n - i - 1 times: none in the last outer step, where
 * its invariant read of x[0] (hoisted before it) and the cbrt of it are
 * not computed by the source; x[1]'s cotangent flows through them. */
CHAD_DIFFERENTIABLE
double triangle(double *y, const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++)
            y[j] = y[j] * cbrt(atan2(x[0], 1.5 + x[1] * x[1])) + 0.5 * y[i];
        s += y[i];
    }
    return s;
}

#define N 4
static double xs[N], ys[N];

static double ss_f(const double *v, void *c) { return scaled_sum(xs, v[0], *(int *)c); }
static double ss_fwd(const double *v, const double *dv, double *dr, void *c) {
    return scaled_sum_fwd(xs, (double[N]){0}, v[0], dv[0], *(int *)c, dr);
}
static double ss_rev(const double *v, double *vb, double rb, void *c) {
    double xb[N] = {0};
    return scaled_sum_rev(xs, xb, v[0], &vb[0], *(int *)c, rb);
}

static double tr_f(const double *v, void *c) {
    double y[N];
    for (int k = 0; k < N; k++)
        y[k] = ys[k];
    return triangle(y, v, *(int *)c);
}
static double tr_fwd(const double *v, const double *dv, double *dr, void *c) {
    double y[N], dy[N] = {0};
    for (int k = 0; k < N; k++)
        y[k] = ys[k];
    return triangle_fwd(y, dy, v, dv, *(int *)c, dr);
}
static double tr_rev(const double *v, double *vb, double rb, void *c) {
    double y[N], yb[N] = {0};
    for (int k = 0; k < N; k++)
        y[k] = ys[k];
    return triangle_rev(y, yb, v, vb, *(int *)c, rb);
}

int main(void) {
    for (int k = 0; k < N; k++)
        xs[k] = 0.3 + 0.2 * k, ys[k] = 1.0 - 0.1 * k;
    for (int n = 1; n <= N; n++) {
        char name[64];
        snprintf(name, sizeof name, "scaled_sum n=%d", n);
        gc_check(name, 1, ss_f, ss_fwd, ss_rev, &n, 0, 3, (double[]){0.7, 1.3, 2.0});
        snprintf(name, sizeof name, "triangle n=%d", n);
        gc_check(name, 2, tr_f, tr_fwd, tr_rev, &n, 0, 4, (double[]){0.8, 0.3, -0.4, -0.9});
    }
    {   /* no step: d/da (a * a) = 2a = 0 at a = 0, where sqrt'(a) = inf */
        double ab = 0, xb[N] = {0};
        double v = scaled_sum_rev(xs, xb, 0.0, &ab, 0, 1.0);
        gc_expect(v == 0 && ab == 0, "scaled_sum n=0 at a=0", "value or gradient not 0");
    }
    {   /* one outer step, whose inner loop runs no step, at x[0] = 0,
         * where cbrt'(atan2(0, 1.5)) = inf */
        double x[2] = {0, 0.5}, xb[2] = {0, 0}, y[1] = {2}, yb[1] = {0};
        double v = triangle_rev(y, yb, x, xb, 1, 1.0);
        gc_expect(v == 2 && xb[0] == 0 && xb[1] == 0 && yb[0] == 1, "triangle n=1 at x=0",
                  "value or gradient wrong");
    }
    return gc_summary();
}
