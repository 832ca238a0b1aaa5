/* bool_arrays.c: `const _Bool *` and `const bool *` parameters (issue 8:
 * pointers to every integer type are inactive), read as conditions, as
 * numbers in arithmetic, as indices, through `*p`, and passed on to a
 * callee. An element is a byte 0 or 1, an int in the IR. */
#include <math.h>
#include <stdbool.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
double masked_sum(const double *x, const _Bool *mask, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        if (mask[i])
            s += sin(x[i]) * x[i];
    return s;
}

CHAD_DIFFERENTIABLE
double weighted(const double *x, const bool *on, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += on[i] * x[i] * x[i] + (on[i] + 1) * x[(i + on[i]) % n];
    return s + masked_sum(x, on, n) + (*on ? x[0] : 0.0);
}

CHAD_DIFFERENTIABLE
double picked(const double *x, const _Bool *pick, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[pick[i]] * x[i] - (double)pick[i] * 0.5 * x[i];
    return s;
}

static const _Bool gmask[8] = {1, 0, 1, 1, 0, 0, 1, 0};
struct ctx { int n; };
#define CN(c) (((const struct ctx *)(c))->n)
#define WRAP(fn, pre)                                                                      \
    static void pre##_w(const double *x, double *y, void *c) { y[0] = fn(x, gmask, CN(c)); } \
    static void pre##_fwd(const double *x, const double *dx, double *y, double *dy,        \
                          void *c) {                                                        \
        y[0] = fn##_fwd(x, dx, gmask, CN(c), &dy[0]);                                       \
    }                                                                                       \
    static void pre##_rev(const double *x, double *xb, double *y, const double *yb,        \
                          void *c) {                                                        \
        y[0] = fn##_rev(x, xb, gmask, CN(c), yb[0]);                                        \
    }
WRAP(masked_sum, ms)
WRAP(weighted, wt)
WRAP(picked, pk)

int main(void) {
    char name[64];
    struct ctx c = {0};
    struct gca_problem p = {0};
    p.name = name, p.ctx = &c;
    static const int sizes[] = {2, 3, 5, 8};
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        c.n = sizes[k];
        p.nin = c.n, p.nout = 1;
        snprintf(name, sizeof name, "masked_sum n=%d", c.n);
        p.f = ms_w, p.fwd = ms_fwd, p.rev = ms_rev;
        gca_check_random(&p, 4, -2, 2);
        snprintf(name, sizeof name, "weighted n=%d", c.n);
        p.f = wt_w, p.fwd = wt_fwd, p.rev = wt_rev;
        gca_check_random(&p, 4, -2, 2);
        snprintf(name, sizeof name, "picked n=%d", c.n);
        p.f = pk_w, p.fwd = pk_fwd, p.rev = pk_rev;
        gca_check_random(&p, 4, -2, 2);
    }
    return gc_summary();
}
