/* arr_prod.c: end-to-end test of the product of all elements: a fold whose
 * state is multiplied at every step.  The reverse sweep must use the stored
 * partial products, not divide the product by x[i]: with one zero element
 * the gradient is the product of the others there and zero elsewhere; with
 * two zeros it is zero everywhere. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
double prod(const double *x, int n) {
    double p = 1;
    for (int i = 0; i < n; i++)
        p *= x[i];
    return p;
}

struct ctx { int n; };
#define N(c) (((const struct ctx *)(c))->n)

static void prod_w(const double *x, double *y, void *c) { y[0] = prod(x, N(c)); }
static void prod_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = prod_fwd(x, dx, N(c), &dy[0]);
}
static void prod_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = prod_rev(x, xb, N(c), yb[0]);
}

int main(void) {
    static const double pts[] = {
        1.5, -0.5, 2.0, 0.75, -1.25, 1.1,  /* no zero */
        1.5, -0.5, 0.0, 0.75, -1.25, 1.1,  /* one zero */
        0.0, -0.5, 2.0, 0.75, -1.25, 0.0,  /* two zeros */
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0,      /* all zero */
    };
    struct ctx c = {6};
    struct gca_problem p = {0};
    p.name = "prod n=6", p.ctx = &c;
    p.nin = 6, p.nout = 1, p.f = prod_w, p.fwd = prod_wfwd, p.rev = prod_wrev;
    gca_check(&p, 4, pts);

    {   /* Exact values at the zero: d/dx2 = product of the others. */
        double x[6] = {1.5, -0.5, 0.0, 0.75, -1.25, 1.1}, xb[6] = {0};
        double want = 1.5 * -0.5 * 0.75 * -1.25 * 1.1;
        int i, ok;
        prod_rev(x, xb, 6, 1.0);
        ok = fabs(xb[2] - want) <= 1e-15 * fabs(want);
        for (i = 0; i < 6; i++)
            if (i != 2)
                ok = ok && xb[i] == 0;
        gc_expect(ok, "prod with one zero", "gradient is not (0, 0, prod of others, 0, 0, 0)");
    }
    {   /* Longer products, and n = 1 (gradient 1). */
        static const int sizes[] = {1, 3, 20};
        char name[64];
        unsigned k;
        for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            c.n = sizes[k];
            snprintf(name, sizeof name, "prod n=%d", c.n);
            p.name = name, p.nin = c.n;
            gca_check_random(&p, 3, 0.5, 1.5);
        }
    }
    return gc_summary();
}
