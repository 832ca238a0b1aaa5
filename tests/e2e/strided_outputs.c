/* strided_outputs.c: end-to-end test of loops that write an output a block
 * per iteration (DESIGN.md 8.19): y[2*i] and y[2*i + 1] written in the
 * body, blocks of three written in another order and under a condition,
 * and calls whose output array is a view `&y[m*i + c]` or `y + m*i + c`
 * into the caller's output, as ADBench's BA does in `ba_objective` with
 * `compute_reproj_error(..., &reproj_err[2 * i])` and
 * `compute_zach_weight_error(&w[i], &w_err[i])`. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

/* Two elements per point, written at the counter's stride. */
CHAD_DIFFERENTIABLE
void polar_pairs(int p, const double *x, double *y) {
    for (int i = 0; i < p; i++) {
        y[2 * i] = x[i] * x[i];
        y[2 * i + 1] = sin(x[i]) + x[i];
    }
}

/* Blocks of three written last element first, one element under a
 * condition that writes it in both branches; the counter is unsigned. */
CHAD_DIFFERENTIABLE
void triples(unsigned p, const double *x, double *y) {
    for (unsigned i = 0; i < p; i++) {
        double s = x[i] * 0.5;
        y[i * 3 + 2] = exp(s);
        if (x[i] > 0)
            y[3 * i + 1] = s * x[i];
        else
            y[3 * i + 1] = -s;
        y[3 * i] = cos(s);
    }
}

/* A BA-shaped objective: a callee fills two elements of the caller's
 * output per observation through a view, another one element. */
CHAD_DIFFERENTIABLE
void residual(const double *cam, const double *pt, const double *w, double *err) {
    double proj[2];
    proj[0] = cam[0] * pt[0] + cam[1];
    proj[1] = cam[0] * pt[1] * pt[1] - cam[1];
    err[0] = (*w) * (proj[0] - 1.0);
    err[1] = (*w) * (proj[1] + 0.5);
}

CHAD_DIFFERENTIABLE
void weight_error(const double *w, double *err) {
    *err = 1 - (*w) * (*w);
}

CHAD_DIFFERENTIABLE
void objective(int p, const double *cams, const double *pts, const double *w,
               const int *obs, double *reproj_err, double *w_err) {
    int i;
    for (i = 0; i < p; i++) {
        int camIdx = obs[i * 2 + 0];
        int ptIdx = obs[i * 2 + 1];
        residual(&cams[camIdx * 2], &pts[ptIdx * 2], &w[i], &reproj_err[2 * i]);
    }
    for (i = 0; i < p; i++)
        weight_error(&w[i], &w_err[i]);
}

/* A call's block and the body's own element in one block of three, the
 * view written `y + 3*i + 1`. */
CHAD_DIFFERENTIABLE
void mixed(int p, const double *x, double *y) {
    for (int i = 0; i < p; i++) {
        y[3 * i] = x[2 * i] - x[2 * i + 1];
        residual(&x[2 * i], &x[2 * i], &x[2 * i + 1], y + 3 * i + 1);
    }
}

/* A callee that fills its output through an in-out callee (BA's project
 * and radial_distort), called in a loop into the caller's output and into
 * a local array of the loop body. */
CHAD_DIFFERENTIABLE
void distort(const double *k, double *proj) {
    double L = 1. + k[0] * (proj[0] * proj[0] + proj[1] * proj[1]);
    proj[0] = proj[0] * L;
    proj[1] = proj[1] * L;
}

CHAD_DIFFERENTIABLE
void project2d(const double *c, double *out) {
    out[0] = c[0] * c[1];
    out[1] = c[1] - c[2];
    distort(&c[2], out);
}

CHAD_DIFFERENTIABLE
void projections(int p, const double *c, double *r) {
    for (int i = 0; i < p; i++)
        project2d(&c[i], &r[2 * i]);
}

CHAD_DIFFERENTIABLE
double projection_energy(int p, const double *c) {
    double t = 0;
    for (int i = 0; i < p; i++) {
        double o[2];
        project2d(&c[i], o);
        t += o[0] * o[1];
    }
    return t;
}

struct ctx { int p; };
#define P(c) (((struct ctx *)(c))->p)

static void pp_w(const double *x, double *y, void *c) { polar_pairs(P(c), x, y); }
static void pp_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    polar_pairs_fwd(P(c), x, dx, y, dy);
}
static void pp_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    polar_pairs_rev(P(c), x, xb, y, yb);
}
static void tr_w(const double *x, double *y, void *c) { triples((unsigned)P(c), x, y); }
static void tr_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    triples_fwd((unsigned)P(c), x, dx, y, dy);
}
static void tr_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    triples_rev((unsigned)P(c), x, xb, y, yb);
}
/* x = cams (3 cameras of 2) ++ pts (4 points of 2) ++ w (p) */
static const int obs[] = {0, 1, 2, 3, 1, 0, 2, 2, 0, 3, 1, 1, 2, 0};
static void ob_w(const double *x, double *y, void *c) {
    objective(P(c), x, x + 6, x + 14, obs, y, y + 2 * P(c));
}
static void ob_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    objective_fwd(P(c), x, dx, x + 6, dx + 6, x + 14, dx + 14, obs, y, dy, y + 2 * P(c),
                  dy + 2 * P(c));
}
static void ob_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    objective_rev(P(c), x, xb, x + 6, xb + 6, x + 14, xb + 14, obs, y, yb, y + 2 * P(c),
                  yb + 2 * P(c));
}
static void mx_w(const double *x, double *y, void *c) { mixed(P(c), x, y); }
static void mx_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    mixed_fwd(P(c), x, dx, y, dy);
}
static void mx_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    mixed_rev(P(c), x, xb, y, yb);
}

static void pr_w(const double *x, double *y, void *c) { projections(P(c), x, y); }
static void pr_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    projections_fwd(P(c), x, dx, y, dy);
}
static void pr_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    projections_rev(P(c), x, xb, y, yb);
}
static void pe_w(const double *x, double *y, void *c) { y[0] = projection_energy(P(c), x); }
static void pe_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = projection_energy_fwd(P(c), x, dx, &dy[0]);
}
static void pe_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = projection_energy_rev(P(c), x, xb, yb[0]);
}

int main(void) {
    static const int sizes[] = {0, 1, 3, 7};
    char name[64];
    struct ctx c = {0};
    struct gca_problem p = {0};
    p.name = name, p.ctx = &c;
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        c.p = sizes[k];
        if (c.p == 0)
            continue; /* below: p = 0 writes nothing */
        snprintf(name, sizeof name, "polar_pairs p=%d", c.p);
        p.nin = c.p, p.nout = 2 * c.p, p.f = pp_w, p.fwd = pp_wfwd, p.rev = pp_wrev;
        gca_check_random(&p, 3, -2, 2);
        snprintf(name, sizeof name, "triples p=%d", c.p);
        p.nin = c.p, p.nout = 3 * c.p, p.f = tr_w, p.fwd = tr_wfwd, p.rev = tr_wrev;
        gca_check_random(&p, 4, -2, 2);
        snprintf(name, sizeof name, "objective p=%d", c.p);
        p.nin = 14 + c.p, p.nout = 3 * c.p, p.f = ob_w, p.fwd = ob_wfwd, p.rev = ob_wrev;
        gca_check_random(&p, 3, -1.5, 1.5);
        snprintf(name, sizeof name, "mixed p=%d", c.p);
        p.nin = 2 * c.p, p.nout = 3 * c.p, p.f = mx_w, p.fwd = mx_wfwd, p.rev = mx_wrev;
        gca_check_random(&p, 3, -1.5, 1.5);
        snprintf(name, sizeof name, "projections p=%d", c.p);
        p.nin = c.p + 2, p.nout = 2 * c.p, p.f = pr_w, p.fwd = pr_wfwd, p.rev = pr_wrev;
        gca_check_random(&p, 3, -1, 1);
        snprintf(name, sizeof name, "projection_energy p=%d", c.p);
        p.nin = c.p + 2, p.nout = 1, p.f = pe_w, p.fwd = pe_wfwd, p.rev = pe_wrev;
        gca_check_random(&p, 3, -1, 1);
    }
    {   /* p = 0: nothing written, and nothing read from the seeds */
        double x[1] = {0.5}, xb[1] = {0}, y[1] = {42}, yb[1] = {1};
        objective_rev(0, x, xb, x, xb, x, xb, obs, y, yb, y, yb);
        gc_expect(y[0] == 42 && xb[0] == 0, "objective p=0", "writes nothing");
    }
    return gc_summary();
}
