/* arr_calls.c: end-to-end test of calls with arrays: a scalar annotated
 * function called in a loop body, and an annotated function taking arrays
 * called with the same array twice and with a pointer to part of an array. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
double softplus(double z) { return log1p(exp(z)); }

CHAD_DIFFERENTIABLE
double sum_softplus(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += softplus(x[i]) * x[i];
    return s;
}

CHAD_DIFFERENTIABLE
double vdot(const double *a, const double *b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* |x|^2 + <x, y> through vdot: x is passed twice to one call. */
CHAD_DIFFERENTIABLE
double twice(const double *x, const double *y, int n) { return vdot(x, x, n) + 2 * vdot(x, y, n); }

struct ctx { int n; };
#define N(c) (((const struct ctx *)(c))->n)

static void sp_w(const double *x, double *y, void *c) { y[0] = sum_softplus(x, N(c)); }
static void sp_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = sum_softplus_fwd(x, dx, N(c), &dy[0]);
}
static void sp_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = sum_softplus_rev(x, xb, N(c), yb[0]);
}
static void tw_w(const double *x, double *y, void *c) { y[0] = twice(x, x + N(c), N(c)); }
static void tw_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = twice_fwd(x, dx, x + N(c), dx + N(c), N(c), &dy[0]);
}
static void tw_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = twice_rev(x, xb, x + N(c), xb + N(c), N(c), yb[0]);
}

int main(void) {
    static const int sizes[] = {1, 4, 13};
    char name[64];
    unsigned k;
    struct ctx c;
    struct gca_problem p = {0};
    p.name = name, p.ctx = &c, p.nout = 1;
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        c.n = sizes[k];
        snprintf(name, sizeof name, "sum_softplus n=%d", c.n);
        p.nin = c.n, p.f = sp_w, p.fwd = sp_wfwd, p.rev = sp_wrev;
        gca_check_random(&p, 3, -3, 3);
        snprintf(name, sizeof name, "twice n=%d", c.n);
        p.nin = 2 * c.n, p.f = tw_w, p.fwd = tw_wfwd, p.rev = tw_wrev;
        gca_check_random(&p, 3, -2, 2);
    }
    return gc_summary();
}
