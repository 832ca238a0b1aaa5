/* sweep_fusion.c: the loops of f_rev's sweep that touch shared arrays only
 * at their own element run as one loop, and buffers one step touches
 * become numbers (DESIGN 8.59). stages: a scratch array and an output
 * through three elementwise loops (the sweep is one loop); chain: three
 * loops through an output into a sum (bench/complexity's); inout: an
 * in-out array updated elementwise, whose adjoint is read as the seed
 * and written as the result in the fused step; neighbours: the second
 * loop reads the element after the one the first writes (apart); both
 * steps calling sin (apart). Checked against finite differences, by
 * forward / reverse duality and for accumulation, also under ASan. */
#include <math.h>
#include <stdlib.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
void stages(const double *x, int n, double *y) {
    double *t = malloc(n * sizeof *t);
    for (int i = 0; i < n; i++)
        t[i] = x[i] * x[i] + 1.0;
    for (int i = 0; i < n; i++)
        y[i] = 3.0 * t[i] - x[i];
    for (int i = 0; i < n; i++)
        y[i] = y[i] * t[i];
    free(t);
}

CHAD_DIFFERENTIABLE
double chain(const double *x, int n, double a) {
    double *y = malloc(n * sizeof *y);
    for (int i = 0; i < n; i++)
        y[i] = x[i] * x[i] + a;
    for (int i = 0; i < n; i++)
        y[i] = 3.0 * y[i] - x[i];
    double s = 0;
    for (int i = 0; i < n; i++)
        s += y[i] * x[i];
    free(y);
    return s;
}

CHAD_DIFFERENTIABLE
void inout(double *u, int n, double *y) {
    for (int i = 0; i < n; i++)
        u[i] = 2.0 * u[i] * u[i] + 1.0;
    for (int i = 0; i < n; i++)
        y[i] = u[i] * (u[i] - 0.5);
    for (int i = 0; i < n; i++)
        u[i] = u[i] + y[i];
}

CHAD_DIFFERENTIABLE
void neighbours(const double *x, int n, double *y) {
    double *t = malloc((n + 1) * sizeof *t);
    t[n] = 0.5;
    for (int i = 0; i < n; i++)
        t[i] = x[i] * x[i];
    for (int i = 0; i < n; i++)
        y[i] = t[i + 1] * x[i] + t[i];
    free(t);
}

CHAD_DIFFERENTIABLE
double calls(const double *x, int n, double a) {
    double *t = malloc(n * sizeof *t);
    for (int i = 0; i < n; i++)
        t[i] = sin(x[i] * a);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += sin(t[i]) * x[i];
    free(t);
    return s;
}

GCA_WRAP_XNA(chain)
GCA_WRAP_XNA(calls)

/* x = x[n], y = y[n] */
typedef void (*xy_fn)(const double *, int, double *);
typedef void (*xy_fwd_fn)(const double *, const double *, int, double *, double *);
typedef void (*xy_rev_fn)(const double *, double *, int, double *, const double *);
struct xy {
    struct gca_n n;
    xy_fn f;
    xy_fwd_fn fwd;
    xy_rev_fn rev;
};
static void xy_w(const double *x, double *y, void *c) {
    const struct xy *k = c;
    k->f(x, k->n.n, y);
}
static void xy_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    const struct xy *k = c;
    k->fwd(x, dx, k->n.n, y, dy);
}
static void xy_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    const struct xy *k = c;
    k->rev(x, xb, k->n.n, y, yb);
}

/* inout: x = u[n], y = (y[n], u at the end) */
static void inout_w(const double *x, double *y, void *c) {
    int n = ((const struct gca_n *)c)->n;
    double u[8];
    for (int i = 0; i < n; i++)
        u[i] = x[i];
    inout(u, n, y);
    for (int i = 0; i < n; i++)
        y[n + i] = u[i];
}
static void inout_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = ((const struct gca_n *)c)->n;
    double u[8], du[8];
    for (int i = 0; i < n; i++)
        u[i] = x[i], du[i] = dx[i];
    inout_fwd(u, du, n, y, dy);
    for (int i = 0; i < n; i++)
        y[n + i] = u[i], dy[n + i] = du[i];
}
static void inout_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = ((const struct gca_n *)c)->n;
    double u[8], ub[8];
    for (int i = 0; i < n; i++)
        u[i] = x[i], ub[i] = yb[n + i];
    inout_rev(u, ub, n, y, yb);
    for (int i = 0; i < n; i++)
        y[n + i] = u[i], xb[i] += ub[i];
}

int main(void) {
    static const int sizes[] = {1, 2, 3, 5, 8};
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int n = sizes[s];
        struct gca_problem p = {0};
        struct xy k = {{n}, stages, stages_fwd, stages_rev};
        p.ctx = &k, p.prec = GC_DOUBLE, p.nin = n, p.nout = n, p.f = xy_w, p.fwd = xy_wfwd,
        p.rev = xy_wrev;
        p.name = "three elementwise stages through scratch and an output";
        gca_check_random(&p, 3, -1.5, 1.5);
        k.f = neighbours, k.fwd = neighbours_fwd, k.rev = neighbours_rev;
        p.name = "a loop reading the element after the one the loop before writes";
        gca_check_random(&p, 3, -1.5, 1.5);
        struct gca_n c = {n};
        struct gca_problem q = {0};
        q.ctx = &c, q.prec = GC_DOUBLE, q.nin = n + 1, q.nout = 1;
        q.name = "three loops through an array into a sum", q.f = chain_w, q.fwd = chain_wfwd,
        q.rev = chain_wrev;
        gca_check_random(&q, 3, -1.5, 1.5);
        q.name = "two loops whose steps call sin", q.f = calls_w, q.fwd = calls_wfwd,
        q.rev = calls_wrev;
        gca_check_random(&q, 3, -1.5, 1.5);
        struct gca_problem r = {0};
        r.ctx = &c, r.prec = GC_DOUBLE, r.nin = n, r.nout = 2 * n;
        r.name = "an in-out array updated elementwise", r.f = inout_w, r.fwd = inout_wfwd,
        r.rev = inout_wrev;
        gca_check_random(&r, 3, -1.5, 1.5);
    }
    return gc_summary();
}
