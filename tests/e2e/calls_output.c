/* calls_output.c: end-to-end test of calls to differentiable functions
 * that write output arrays: cross products and differences written into
 * the caller's local arrays, into the caller's own output array, and read
 * from views of the caller's arrays. Such callees have no reverse halves:
 * their callers differentiate them inline (ad/inline.c). And calls that
 * update the caller's array through an in-out parameter, as ADBench's BA
 * does with `radial_distort(&cam[9], proj)`. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
void cross(const double *a, const double *b, double *out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

CHAD_DIFFERENTIABLE
void subtract(int d, const double *x, const double *y, double *out) {
    for (int id = 0; id < d; id++)
        out[id] = x[id] - y[id];
}

/* |a x b|^2 + <a - c, b>, through two calls that fill local arrays. */
CHAD_DIFFERENTIABLE
double cross_energy(const double *a, const double *b, const double *c) {
    double w[3], dlt[3];
    cross(a, b, w);
    subtract(3, a, c, dlt);
    double s = 0;
    for (int i = 0; i < 3; i++)
        s += w[i] * w[i] + dlt[i] * b[i];
    return s;
}

/* The caller's own output, written by the callee. */
CHAD_DIFFERENTIABLE
void scaled_diff(const double *x, const double *m, int d, double *y) {
    subtract(d, x, m, y);
}

/* Views of the caller's array passed to the callee: the distance of the
 * first point of x to the second, each d long. */
CHAD_DIFFERENTIABLE
double pair_dist(const double *x, int d) {
    double t[8];
    subtract(d, &x[0], x + d, t);
    double s = 0;
    for (int i = 0; i < d; i++)
        s += t[i] * t[i];
    return sqrt(s + 1e-3);
}

/* proj is in-out: read before it is overwritten. */
CHAD_DIFFERENTIABLE
void distort(const double *rad, double *proj) {
    double rsq = proj[0] * proj[0] + proj[1] * proj[1];
    double L = 1. + rad[0] * rsq + rad[1] * rsq * rsq;
    proj[0] = proj[0] * L;
    proj[1] = proj[1] * L;
}

/* The caller's output, written, updated by the callee twice, written
 * again; a local array updated by the callee between reads. */
CHAD_DIFFERENTIABLE
void project2(const double *cam, const double *X, double *proj) {
    proj[0] = X[0] / (X[2] + 3.0);
    proj[1] = X[1] / (X[2] + 3.0);
    distort(&cam[1], proj);
    double q[2];
    q[0] = proj[0] + cam[0];
    q[1] = proj[1] - cam[0];
    double before = q[0] * q[1];
    distort(cam + 1, q);
    distort(&cam[0], proj);
    proj[0] = proj[0] * cam[3] + q[1] + before;
    proj[1] = proj[1] * cam[3] + q[0];
}

struct ctx { int d; };
#define D(c) (((const struct ctx *)(c))->d)

static void ce_w(const double *x, double *y, void *c) { (void)c; y[0] = cross_energy(x, x + 3, x + 6); }
static void ce_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c;
    y[0] = cross_energy_fwd(x, dx, x + 3, dx + 3, x + 6, dx + 6, &dy[0]);
}
static void ce_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c;
    y[0] = cross_energy_rev(x, xb, x + 3, xb + 3, x + 6, xb + 6, yb[0]);
}
static void sd_w(const double *x, double *y, void *c) { scaled_diff(x, x + D(c), D(c), y); }
static void sd_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    scaled_diff_fwd(x, dx, x + D(c), dx + D(c), D(c), y, dy);
}
static void sd_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    scaled_diff_rev(x, xb, x + D(c), xb + D(c), D(c), y, yb);
}
static void pd_w(const double *x, double *y, void *c) { y[0] = pair_dist(x, D(c)); }
static void pd_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = pair_dist_fwd(x, dx, D(c), &dy[0]);
}
static void pd_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = pair_dist_rev(x, xb, D(c), yb[0]);
}

static void pj_w(const double *x, double *y, void *c) { (void)c; project2(x, x + 4, y); }
static void pj_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c;
    project2_fwd(x, dx, x + 4, dx + 4, y, dy);
}
static void pj_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c;
    project2_rev(x, xb, x + 4, xb + 4, y, yb);
}

int main(void) {
    static const int sizes[] = {1, 3, 8};
    char name[64];
    struct ctx c = {3};
    struct gca_problem p = {0};
    p.name = name, p.ctx = &c;
    snprintf(name, sizeof name, "cross_energy");
    p.nin = 9, p.nout = 1, p.f = ce_w, p.fwd = ce_wfwd, p.rev = ce_wrev;
    gca_check_random(&p, 4, -2, 2);
    snprintf(name, sizeof name, "project2");
    p.nin = 7, p.nout = 2, p.f = pj_w, p.fwd = pj_wfwd, p.rev = pj_wrev;
    gca_check_random(&p, 4, -0.5, 0.5);
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        c.d = sizes[k];
        snprintf(name, sizeof name, "scaled_diff d=%d", c.d);
        p.nin = 2 * c.d, p.nout = c.d, p.f = sd_w, p.fwd = sd_wfwd, p.rev = sd_wrev;
        gca_check_random(&p, 3, -2, 2);
        snprintf(name, sizeof name, "pair_dist d=%d", c.d);
        p.nin = 2 * c.d, p.nout = 1, p.f = pd_w, p.fwd = pd_wfwd, p.rev = pd_wrev;
        gca_check_random(&p, 3, -2, 2);
    }
    return gc_summary();
}
