/* arr_softmax.c: end-to-end test of softmax into an output array: a max
 * loop (if inside a loop: a fold), a sum of exponentials, then a build of
 * the output.  A second version also returns the log-normaliser, so the
 * function has an output array and a floating return value at once. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
void softmax(const double *x, double *y, int n) {
    double m = x[0];
    for (int i = 1; i < n; i++)
        if (x[i] > m)
            m = x[i];
    double s = 0;
    for (int i = 0; i < n; i++)
        s += exp(x[i] - m);
    for (int i = 0; i < n; i++)
        y[i] = exp(x[i] - m) / s;
}

/* Returns log sum exp(x), writes softmax(x) to p. */
CHAD_DIFFERENTIABLE
double softmax_lse(const double *x, double *p, int n) {
    double m = x[0];
    for (int i = 1; i < n; i++)
        m = fmax(m, x[i]);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += exp(x[i] - m);
    double lse = m + log(s);
    for (int i = 0; i < n; i++)
        p[i] = exp(x[i] - lse);
    return lse;
}

struct ctx { int n; };
#define N(c) (((const struct ctx *)(c))->n)

static void sm_w(const double *x, double *y, void *c) { softmax(x, y, N(c)); }
static void sm_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    softmax_fwd(x, dx, y, dy, N(c));
}
static void sm_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    softmax_rev(x, xb, y, yb, N(c));
}

/* y = (p[0..n), lse) */
static void sl_w(const double *x, double *y, void *c) { y[N(c)] = softmax_lse(x, y, N(c)); }
static void sl_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[N(c)] = softmax_lse_fwd(x, dx, y, dy, N(c), &dy[N(c)]);
}
static void sl_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[N(c)] = softmax_lse_rev(x, xb, y, yb, N(c), yb[N(c)]);
}

int main(void) {
    static const int sizes[] = {1, 2, 5, 17};
    char name[64];
    unsigned k;
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        struct ctx c;
        struct gca_problem p = {0};
        c.n = sizes[k];
        p.name = name;
        p.ctx = &c;
        snprintf(name, sizeof name, "softmax n=%d", c.n);
        p.nin = c.n, p.nout = c.n, p.f = sm_w, p.fwd = sm_wfwd, p.rev = sm_wrev;
        gca_check_random(&p, 3, -3, 3);
        snprintf(name, sizeof name, "softmax_lse n=%d", c.n);
        p.nout = c.n + 1, p.f = sl_w, p.fwd = sl_wfwd, p.rev = sl_wrev;
        gca_check_random(&p, 3, -3, 3);
    }
    {   /* Inputs near 1000: exp(x) overflows, the shifted form does not. */
        double x[4] = {1000, 999, 998.5, 1001}, y[4], yb[4] = {1, 0, 0, 0}, xb[4] = {0, 0, 0, 0};
        int i, ok = 1;
        softmax_rev(x, xb, y, yb, 4);
        for (i = 0; i < 4; i++)
            ok = ok && isfinite(y[i]) && isfinite(xb[i]);
        gc_expect(ok && fabs(xb[0] - y[0] * (1 - y[0])) < 1e-15 && fabs(xb[3] + y[0] * y[3]) < 1e-15,
                  "softmax at 1000", "non-finite or wrong gradient");
    }
    return gc_summary();
}
