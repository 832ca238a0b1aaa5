/* inout.c: in-out array parameters (DESIGN 1, 8.7): a double *p that f
 * reads before overwriting it. f_fwd takes dp as the tangent of p's
 * initial values and leaves that of its final ones; f_rev takes p_b as the
 * seed for p's final values and leaves the adjoint of its initial ones,
 * with p holding f's final values, as after f. Also a local 3 x 3 matrix
 * carried whole through a loop nest. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

/* y[k] += a[i] for k < i, in a do loop */
CHAD_DIFFERENTIABLE
void do_acc(const double *a, double *y, int n) {
    for (int i = 0; i < n; i++) {
        int k = 0;
        do {
            y[k] += a[i] * y[(k + 1) % n];
            k++;
        } while (k < i);
    }
}

CHAD_DIFFERENTIABLE
void acc(const double *x, double *y, int n) {
    for (int i = 0; i < n; i++)
        y[i] += x[i] * sin(y[i]);
}

/* y[0] is read before y is written */
CHAD_DIFFERENTIABLE
void read_first(double x, double *y) {
    y[1] = y[0] * x;
    y[0] = x * cos(y[1]);
}

CHAD_DIFFERENTIABLE
void bump(double *p, double a) { p[0] += a * p[0]; }

CHAD_DIFFERENTIABLE
double outer(const double *x) {
    double R[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            R[i][j] = x[i] * x[j];
    for (int i = 0; i < 3; i++)
        R[i][(i + 1) % 3] += R[(i + 2) % 3][i];
    return R[1][2] * R[0][1] + R[2][0];
}

struct ctx { int n; };
#define CN(c) (((const struct ctx *)(c))->n)

/* x = (a n, y0 n), y = y after: the in-out array first, then the input */
static void da_w(const double *x, double *y, void *c) {
    int n = CN(c);
    for (int i = 0; i < n; i++) y[i] = x[n + i];
    do_acc(x, y, n);
}
static void da_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = CN(c);
    for (int i = 0; i < n; i++) y[i] = x[n + i], dy[i] = dx[n + i];
    do_acc_fwd(x, dx, y, dy, n);
}
static void da_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = CN(c);
    double pb[16];
    for (int i = 0; i < n; i++) y[i] = x[n + i], pb[i] = yb[i];
    do_acc_rev(x, xb, y, pb, n);
    for (int i = 0; i < n; i++) xb[n + i] += pb[i];
}
static void ac_w(const double *x, double *y, void *c) {
    int n = CN(c);
    for (int i = 0; i < n; i++) y[i] = x[n + i];
    acc(x, y, n);
}
static void ac_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = CN(c);
    for (int i = 0; i < n; i++) y[i] = x[n + i], dy[i] = dx[n + i];
    acc_fwd(x, dx, y, dy, n);
}
static void ac_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = CN(c);
    double pb[16];
    for (int i = 0; i < n; i++) y[i] = x[n + i], pb[i] = yb[i];
    acc_rev(x, xb, y, pb, n);
    for (int i = 0; i < n; i++) xb[n + i] += pb[i];
}
/* x = (x, y0[0], y0[1]) */
static void rf_w(const double *x, double *y, void *c) {
    (void)c;
    y[0] = x[1], y[1] = x[2];
    read_first(x[0], y);
}
static void rf_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c;
    y[0] = x[1], y[1] = x[2], dy[0] = dx[1], dy[1] = dx[2];
    read_first_fwd(x[0], dx[0], y, dy);
}
static void rf_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    double pb[2] = {yb[0], yb[1]}, x0b = 0;
    (void)c;
    y[0] = x[1], y[1] = x[2];
    read_first_rev(x[0], &x0b, y, pb);
    xb[0] += x0b, xb[1] += pb[0], xb[2] += pb[1];
}
/* x = (p0, a) */
static void bu_w(const double *x, double *y, void *c) {
    (void)c;
    y[0] = x[0];
    bump(y, x[1]);
}
static void bu_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c;
    y[0] = x[0], dy[0] = dx[0];
    bump_fwd(y, dy, x[1], dx[1]);
}
static void bu_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    double pb[1] = {yb[0]}, ab = 0;
    (void)c;
    y[0] = x[0];
    bump_rev(y, pb, x[1], &ab);
    xb[0] += pb[0], xb[1] += ab;
}
static void ou_w(const double *x, double *y, void *c) { (void)c; y[0] = outer(x); }
static void ou_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c;
    y[0] = outer_fwd(x, dx, &dy[0]);
}
static void ou_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c;
    y[0] = outer_rev(x, xb, yb[0]);
}

static void run(const char *name, int nin, int nout, gca_fn f, gca_fwd_fn fwd, gca_rev_fn rev,
                struct ctx *c) {
    struct gca_problem p = {0};
    p.name = name, p.nin = nin, p.nout = nout, p.f = f, p.fwd = fwd, p.rev = rev, p.ctx = c;
    gca_check_random(&p, 3, -1, 1);
}

int main(void) {
    struct ctx c = {1};
    char name[64];
    for (int n = 1; n <= 7; n += 3) {
        c.n = n;
        snprintf(name, sizeof name, "do_acc n=%d", n);
        run(name, 2 * n, n, da_w, da_fwd, da_rev, &c);
        snprintf(name, sizeof name, "acc n=%d", n);
        run(name, 2 * n, n, ac_w, ac_fwd, ac_rev, &c);
    }
    run("read_first", 3, 2, rf_w, rf_fwd, rf_rev, &c);
    run("bump", 2, 1, bu_w, bu_fwd, bu_rev, &c);
    run("outer", 3, 1, ou_w, ou_fwd, ou_rev, &c);
    return gc_summary();
}
