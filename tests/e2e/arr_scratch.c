/* arr_scratch.c: end-to-end test of a local fixed-size array used as
 * scratch.  cross_sq: per iteration, double t[3] holds a cross product,
 * written element by element and read back by a loop.  variance: double
 * t[3] accumulates across a loop (count, sum, sum of squares) and is read
 * after it. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

/* Sum over i of |a_i x b_i|^2, with a_i = x[6i..6i+3), b_i = x[6i+3..6i+6). */
CHAD_DIFFERENTIABLE
double cross_sq(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        double t[3];
        t[0] = x[6 * i + 1] * x[6 * i + 5] - x[6 * i + 2] * x[6 * i + 4];
        t[1] = x[6 * i + 2] * x[6 * i + 3] - x[6 * i + 0] * x[6 * i + 5];
        t[2] = x[6 * i + 0] * x[6 * i + 4] - x[6 * i + 1] * x[6 * i + 3];
        for (int k = 0; k < 3; k++)
            s += t[k] * t[k];
    }
    return s;
}

CHAD_DIFFERENTIABLE
double variance(const double *x, int n) {
    double t[3];
    for (int k = 0; k < 3; k++)
        t[k] = 0;
    for (int i = 0; i < n; i++) {
        t[0] += 1;
        t[1] += x[i];
        t[2] += x[i] * x[i];
    }
    double mean = t[1] / t[0];
    return t[2] / t[0] - mean * mean;
}

struct ctx { int n; };
#define N(c) (((const struct ctx *)(c))->n)

static void cs_w(const double *x, double *y, void *c) { y[0] = cross_sq(x, N(c)); }
static void cs_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = cross_sq_fwd(x, dx, N(c), &dy[0]);
}
static void cs_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = cross_sq_rev(x, xb, N(c), yb[0]);
}
static void var_w(const double *x, double *y, void *c) { y[0] = variance(x, N(c)); }
static void var_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = variance_fwd(x, dx, N(c), &dy[0]);
}
static void var_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = variance_rev(x, xb, N(c), yb[0]);
}

int main(void) {
    static const int sizes[] = {1, 2, 5};
    char name[64];
    unsigned k;
    struct ctx c;
    struct gca_problem p = {0};
    p.name = name, p.ctx = &c, p.nout = 1;
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        c.n = sizes[k];
        snprintf(name, sizeof name, "cross_sq n=%d", c.n);
        p.nin = 6 * c.n, p.f = cs_w, p.fwd = cs_wfwd, p.rev = cs_wrev;
        gca_check_random(&p, 3, -1.5, 1.5);
        snprintf(name, sizeof name, "variance n=%d", c.n + 1);
        c.n += 1;
        p.nin = c.n, p.f = var_w, p.fwd = var_wfwd, p.rev = var_wrev;
        gca_check_random(&p, 3, -3, 3);
    }
    {   /* The gradient of the variance is 2 (x_i - mean) / n. */
        double x[4] = {1, 2, 4, 9}, xb[4] = {0, 0, 0, 0};
        double v = variance_rev(x, xb, 4, 1.0);
        gc_expect(fabs(v - 9.5) < 1e-14 && fabs(xb[0] + 1.5) < 1e-14 && fabs(xb[3] - 2.5) < 1e-14,
                  "variance exact", "wrong value or gradient");
    }
    return gc_summary();
}
