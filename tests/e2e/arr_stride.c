/* arr_stride.c: end-to-end test of a loop with step 2: the sum of the moduli
 * of complex numbers stored as (re, im) pairs, and a loop starting at 1 with
 * step 2 reading the odd elements only (the even ones get zero adjoint). */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
double cabs_sum(const double *z, int n) {
    double s = 0;
    for (int i = 0; i < n; i += 2)
        s += sqrt(z[i] * z[i] + z[i + 1] * z[i + 1]);
    return s;
}

CHAD_DIFFERENTIABLE
double odd_sq(const double *x, int n) {
    double s = 0;
    for (int i = 1; i < n; i += 2)
        s += x[i] * x[i] * x[i - 1];
    return s;
}

struct ctx { int n; };
#define N(c) (((const struct ctx *)(c))->n)

static void cs_w(const double *x, double *y, void *c) { y[0] = cabs_sum(x, N(c)); }
static void cs_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = cabs_sum_fwd(x, dx, N(c), &dy[0]);
}
static void cs_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = cabs_sum_rev(x, xb, N(c), yb[0]);
}
static void os_w(const double *x, double *y, void *c) { y[0] = odd_sq(x, N(c)); }
static void os_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = odd_sq_fwd(x, dx, N(c), &dy[0]);
}
static void os_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = odd_sq_rev(x, xb, N(c), yb[0]);
}

int main(void) {
    static const int sizes[] = {2, 6, 20};
    static const int odd_sizes[] = {1, 2, 5, 12};
    char name[64];
    unsigned k;
    struct ctx c;
    struct gca_problem p = {0};
    p.name = name;
    p.ctx = &c;
    p.nout = 1;
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        c.n = sizes[k];
        snprintf(name, sizeof name, "cabs_sum n=%d", c.n);
        p.nin = c.n, p.f = cs_w, p.fwd = cs_wfwd, p.rev = cs_wrev;
        gca_check_random(&p, 3, 0.2, 2); /* away from |z| = 0 */
    }
    for (k = 0; k < sizeof odd_sizes / sizeof odd_sizes[0]; k++) {
        c.n = odd_sizes[k];
        snprintf(name, sizeof name, "odd_sq n=%d", c.n);
        p.nin = c.n, p.f = os_w, p.fwd = os_wfwd, p.rev = os_wrev;
        gca_check_random(&p, 3, -2, 2);
    }
    {   /* n = 5: x[4] is never read; its adjoint stays as it was. */
        double x[5] = {1, 2, 3, 4, 5}, xb[5] = {0, 0, 0, 0, 0.5};
        double v = odd_sq_rev(x, xb, 5, 1.0);
        gc_expect(v == 4 * 1 + 16 * 3 && xb[0] == 4 && xb[1] == 4 && xb[2] == 16 && xb[3] == 24 && xb[4] == 0.5,
                  "odd_sq exact", "wrong value or adjoints");
    }
    return gc_summary();
}
