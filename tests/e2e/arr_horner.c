/* arr_horner.c: end-to-end test of Horner's rule, p = c[n-1] x^(n-1) + ... +
 * c[0], evaluated by a DECREASING loop (i from n - 1 down to 0) whose state p
 * depends on an active scalar parameter x and on the coefficient array c. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
double horner(const double *c, double x, int n) {
    double p = 0;
    for (int i = n - 1; i >= 0; i--)
        p = p * x + c[i];
    return p;
}

struct ctx { int n; };
#define N(c) (((const struct ctx *)(c))->n)

/* x = (c[0..n), x) */
static void h_w(const double *x, double *y, void *c) { y[0] = horner(x, x[N(c)], N(c)); }
static void h_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = horner_fwd(x, dx, x[N(c)], dx[N(c)], N(c), &dy[0]);
}
static void h_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = horner_rev(x, xb, x[N(c)], &xb[N(c)], N(c), yb[0]);
}

int main(void) {
    static const int sizes[] = {0, 1, 2, 5, 12};
    char name[64];
    unsigned k;
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        struct ctx c;
        struct gca_problem p = {0};
        c.n = sizes[k];
        p.name = name;
        p.ctx = &c;
        snprintf(name, sizeof name, "horner n=%d", c.n);
        p.nin = c.n + 1, p.nout = 1, p.f = h_w, p.fwd = h_wfwd, p.rev = h_wrev;
        gca_check_random(&p, 3, -1.2, 1.2);
    }
    {   /* Exact on a small polynomial: 1 + 2x + 3x^2 at x = 2 is 17, p' = 14,
         * and dp/dc = (1, x, x^2). */
        const double cf[3] = {1, 2, 3};
        double cb[3] = {0, 0, 0}, xb = 0, v;
        v = horner_rev(cf, cb, 2.0, &xb, 3, 1.0);
        gc_expect(v == 17 && xb == 14 && cb[0] == 1 && cb[1] == 2 && cb[2] == 4, "horner exact",
                  "wrong value or gradient for 1 + 2x + 3x^2 at x = 2");
    }
    return gc_summary();
}
