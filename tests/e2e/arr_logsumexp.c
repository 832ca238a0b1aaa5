/* arr_logsumexp.c: end-to-end test of log-sum-exp with a max loop: an if
 * inside a loop carrying the running maximum (a fold whose state changes
 * only on some iterations), then a sum of exponentials shifted by it.
 * The max does not change the value mathematically, so the gradient is
 * softmax(x) whichever element is the maximum. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
double logsumexp(const double *x, int n) {
    double m = x[0];
    for (int i = 1; i < n; i++)
        if (x[i] > m)
            m = x[i];
    double s = 0;
    for (int i = 0; i < n; i++)
        s += exp(x[i] - m);
    return m + log(s);
}

struct ctx { int n; };
#define N(c) (((const struct ctx *)(c))->n)

static void lse_w(const double *x, double *y, void *c) { y[0] = logsumexp(x, N(c)); }
static void lse_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = logsumexp_fwd(x, dx, N(c), &dy[0]);
}
static void lse_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = logsumexp_rev(x, xb, N(c), yb[0]);
}

int main(void) {
    static const int sizes[] = {1, 2, 6, 40};
    char name[64];
    unsigned k;
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        struct ctx c;
        struct gca_problem p = {0};
        c.n = sizes[k];
        p.name = name;
        p.ctx = &c;
        snprintf(name, sizeof name, "logsumexp n=%d", c.n);
        p.nin = c.n, p.nout = 1, p.f = lse_w, p.fwd = lse_wfwd, p.rev = lse_wrev;
        gca_check_random(&p, 4, -4, 4);
    }
    {   /* Far beyond exp's range, and the maximum first, last, in the middle:
         * the gradient is softmax(x), summing to 1. */
        static const double pts[3][5] = {{800, 799, 798, 797.5, 790},
                                         {-900, -901, -899.5, -905, -898},
                                         {700, 712, 705, 711, 709}};
        int k2, i;
        for (k2 = 0; k2 < 3; k2++) {
            double xb[5] = {0, 0, 0, 0, 0}, v, sum = 0, ok = 1;
            v = logsumexp_rev(pts[k2], xb, 5, 1.0);
            for (i = 0; i < 5; i++) {
                double want = exp(pts[k2][i] - v);
                ok = ok && fabs(xb[i] - want) < 1e-13;
                sum += xb[i];
            }
            gc_expect(isfinite(v) && ok && fabs(sum - 1) < 1e-14, "logsumexp at large |x|",
                      "gradient is not softmax(x)");
        }
    }
    return gc_summary();
}
