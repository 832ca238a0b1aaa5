/* updates.c: writes lowered as in-place updates outside loops (DESIGN
 * 8.16), in both modes: a local array first written at a computed index
 * (not from 0 up), and a large local (above the scalar-replacement limit)
 * written and read at computed indices. Loops and branches that update
 * arrays are in updates_loops.c. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
double first_at_k(double x, double y, int k) {
    double t[6];
    t[k] = x * y;
    t[k - 1] = sin(t[k]) + y;
    t[k] += t[k - 1] * x;
    return t[k] * t[k - 1] + t[k - 1];
}

CHAD_DIFFERENTIABLE
double big_top(const double *x, int k) {
    double big[6000];
    big[k] = x[0];
    big[k + 1] = big[k] * x[1];
    big[0] = big[k + 1] + x[2];
    big[k] -= big[0] * x[2];
    return big[0] * big[k] + big[k + 1];
}

struct ctx { int k; };
#define CK(c) (((const struct ctx *)(c))->k)

static void fk_w(const double *x, double *y, void *c) { y[0] = first_at_k(x[0], x[1], CK(c)); }
static void fk_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = first_at_k_fwd(x[0], dx[0], x[1], dx[1], CK(c), &dy[0]);
}
static void fk_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = first_at_k_rev(x[0], &xb[0], x[1], &xb[1], CK(c), yb[0]);
}
static void bt_w(const double *x, double *y, void *c) { y[0] = big_top(x, CK(c)); }
static void bt_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = big_top_fwd(x, dx, CK(c), &dy[0]);
}
static void bt_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = big_top_rev(x, xb, CK(c), yb[0]);
}

int main(void) {
    struct ctx c;
    char name[64];
    for (c.k = 1; c.k <= 5; c.k += 2) {
        struct gca_problem p = {0};
        p.name = name, p.ctx = &c;
        snprintf(name, sizeof name, "first_at_k k=%d", c.k);
        p.nin = 2, p.nout = 1, p.f = fk_w, p.fwd = fk_fwd, p.rev = fk_rev;
        gca_check_random(&p, 4, -1.5, 1.5);
        snprintf(name, sizeof name, "big_top k=%d", c.k * 1000);
        c.k *= 1000;
        p.nin = 3, p.f = bt_w, p.fwd = bt_fwd, p.rev = bt_rev;
        gca_check_random(&p, 4, -1.5, 1.5);
        c.k /= 1000;
    }
    return gc_summary();
}
