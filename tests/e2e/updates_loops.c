/* updates_loops.c: writes that match none of the cheap loop patterns
 * (DESIGN 8.16): arrays carried whole through loops and branches and
 * written by updates, differentiated in both modes (the reverse through
 * the undo log, DESIGN 8.13; in-out parameters as DESIGN 8.7 says) and
 * checked against finite differences and by duality. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

#define REV(w) w

/* ADBench's GMM: out = Q x with Q lower triangular, its diagonal and its
 * strict lower part in two arrays (gmm.c's Qtimesx). */
CHAD_DIFFERENTIABLE
void qtimesx(int d, const double *Qdiag, const double *Ltri, const double *x, double *out) {
    int i, j, Lparamsidx = 0;
    for (i = 0; i < d; i++)
        out[i] = Qdiag[i] * x[i];
    for (i = 0; i < d; i++)
        for (j = i + 1; j < d; j++) {
            out[j] = out[j] + Ltri[Lparamsidx] * x[i];
            Lparamsidx++;
        }
}

/* In-place Cholesky factorisation of a copy of A (n x n, symmetric
 * positive definite), and log det A = 2 sum log L[i][i]. */
CHAD_DIFFERENTIABLE
double chol_logdet(const double *A, int n) {
    double L[n * n];
    for (int i = 0; i < n * n; i++)
        L[i] = A[i];
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            for (int k = 0; k < j; k++)
                L[i * n + j] -= L[i * n + k] * L[j * n + k];
            if (i == j)
                L[i * n + i] = sqrt(L[i * n + i]);
            else
                L[i * n + j] = L[i * n + j] / L[j * n + j];
        }
    double s = 0;
    for (int i = 0; i < n; i++)
        s += log(L[i * n + i]);
    return 2 * s;
}

/* The same factorisation in the caller's matrix: A is in-out (read before
 * it is overwritten); its lower triangle ends holding L. */
CHAD_DIFFERENTIABLE
void chol_inout(double *A, int n) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            for (int k = 0; k < j; k++)
                A[i * n + j] -= A[i * n + k] * A[j * n + k];
            if (i == j)
                A[i * n + i] = sqrt(A[i * n + i]);
            else
                A[i * n + j] = A[i * n + j] / A[j * n + j];
        }
}

/* Explicit heat equation, double-buffered between two local arrays: the
 * even steps write b from a, the odd ones a from b. */
CHAD_DIFFERENTIABLE
void heat(const double *u0, double *u, int n, int steps, double c) {
    double a[64], b[64];
    for (int i = 0; i < n; i++)
        a[i] = u0[i];
    b[0] = a[0];
    b[n - 1] = a[n - 1];
    for (int t = 0; t < steps; t++) {
        if (t % 2 == 0) {
            for (int i = 1; i < n - 1; i++)
                b[i] = a[i] + c * (a[i - 1] - 2 * a[i] + a[i + 1]);
        } else {
            for (int i = 1; i < n - 1; i++)
                a[i] = b[i] + c * (b[i - 1] - 2 * b[i] + b[i + 1]);
        }
    }
    for (int i = 0; i < n; i++)
        u[i] = steps % 2 ? b[i] : a[i];
}

/* y[idx[i]] += e where the loop also reads y: not a scatter-add. */
CHAD_DIFFERENTIABLE
double hist_read(const double *x, const int *idx, int n) {
    double h[4] = {0, 0, 0, 0};
    double s = 0;
    for (int i = 0; i < n; i++) {
        h[idx[i]] += x[i];
        s += h[idx[i]] * x[i];
    }
    return s;
}

/* A write under a condition in a loop: compaction of the positive
 * elements, then a weighted sum. */
CHAD_DIFFERENTIABLE
double compact(const double *x, int n) {
    double kept[32];
    int k = 0;
    for (int i = 0; i < n; i++)
        if (x[i] > 0)
            kept[k++] = x[i] * x[i];
    double s = 0;
    for (int i = 0; i < k; i++)
        s += (i + 1) * kept[i];
    return s;
}

/* Writes under conditions outside loops, at computed indices. */
CHAD_DIFFERENTIABLE
double branchy(double x, double y, int k) {
    double t[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    t[k] = x;
    if (x > y)
        t[k + 1] += y * x;
    else
        t[(k + 2) % 8] = y;
    double s = 0;
    for (int i = 0; i < 8; i++)
        s += t[i] * t[i];
    return s;
}

/* A while loop that writes an array: a geometric sequence until it
 * passes a bound. */
CHAD_DIFFERENTIABLE
double geometric(double x, double limit) {
    double buf[64];
    int n = 0;
    double v = 1;
    while (v < limit && n < 64) {
        buf[n] = v;
        v = v * x + 0.5;
        n++;
    }
    double s = 0;
    do {
        n--;
        s = s * 0.5 + buf[n];
        buf[n] = 0;
    } while (n > 0);
    return s;
}

/* A local array above the scalar-replacement limit, carried across
 * iterations: running sums read back at a computed index. */
CHAD_DIFFERENTIABLE
double big_scratch(const double *x, int m, int n) {
    double w[5000];
    w[0] = x[0];
    for (int i = 1; i < n; i++)
        w[i] = 0.5 * w[i - 1] + x[i % m];
    double s = 0;
    for (int i = 0; i < n; i += 7)
        s += w[i] * w[n - 1 - i];
    return s;
}

/* An in-out parameter read and written at any index, and `a[i] += e`. */
CHAD_DIFFERENTIABLE
void smooth_inout(double *p, const double *w, int n) {
    for (int i = 0; i < n; i++)
        p[i] += w[i] * p[(i + 1) % n];
    p[0] *= p[n - 1];
}

/* A loop that breaks and writes an array. */
CHAD_DIFFERENTIABLE
double until_big(const double *x, int n) {
    double acc[16];
    int k = 0;
    for (int i = 0; i < n; i++) {
        acc[i] = (i ? acc[i - 1] : 0) + x[i] * x[i];
        k = i;
        if (acc[i] > 2.0)
            break;
    }
    return acc[k] * x[0];
}

/* ---------------------------------------------------------- wrappers */

struct ctx { int n, m; const int *idx; };
#define CN(c) (((const struct ctx *)(c))->n)
#define CM(c) (((const struct ctx *)(c))->m)

/* qtimesx: x = (Qdiag d, Ltri d(d-1)/2, x d), y = out (d) */
static void qx_w(const double *x, double *y, void *c) {
    int d = CN(c), t = d * (d - 1) / 2;
    qtimesx(d, x, x + d, x + d + t, y);
}
static void qx_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int d = CN(c), t = d * (d - 1) / 2;
    qtimesx_fwd(d, x, dx, x + d, dx + d, x + d + t, dx + d + t, y, dy);
}
static void qx_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int d = CN(c), t = d * (d - 1) / 2;
    qtimesx_rev(d, x, xb, x + d, xb + d, x + d + t, xb + d + t, y, yb);
}

/* A scalar-valued f(const double *x, int n): y = (f) */
#define SCALAR_ARRAY(f)                                                                   \
    static void f##_w(const double *x, double *y, void *c) { y[0] = f(x, CN(c)); }        \
    static void f##_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) { \
        y[0] = f##_fwd(x, dx, CN(c), &dy[0]); }
#define SCALAR_ARRAY_REV(f)                                                               \
    static void f##_wrev(const double *x, double *xb, double *y, const double *yb, void *c) { \
        y[0] = f##_rev(x, xb, CN(c), yb[0]); }
SCALAR_ARRAY(chol_logdet)
SCALAR_ARRAY(compact)
SCALAR_ARRAY(until_big)
SCALAR_ARRAY_REV(chol_logdet)
SCALAR_ARRAY_REV(compact)
SCALAR_ARRAY_REV(until_big)

/* chol_inout: x = A (n x n), y = A after */
static void ci_w(const double *x, double *y, void *c) {
    int i;
    for (i = 0; i < CN(c) * CN(c); i++) y[i] = x[i];
    chol_inout(y, CN(c));
}
/* f_rev of an in-out array (DESIGN 1): p holds the initial values on
 * entry and the final ones on exit; p_b the seed for the final values on
 * entry and the adjoint of the initial ones on exit (consumed). */
static void ci_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    double pb[64];
    int i, nn = CN(c) * CN(c);
    for (i = 0; i < nn; i++) y[i] = x[i], pb[i] = yb[i];
    chol_inout_rev(y, pb, CN(c));
    for (i = 0; i < nn; i++) xb[i] += pb[i];
}
static void ci_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int i;
    for (i = 0; i < CN(c) * CN(c); i++) y[i] = x[i], dy[i] = dx[i];
    chol_inout_fwd(y, dy, CN(c));
}

/* heat: x = (u0 n, c), y = u (n); steps in m */
static void ht_w(const double *x, double *y, void *c) { heat(x, y, CN(c), CM(c), x[CN(c)]); }
static void ht_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    heat_fwd(x, dx, y, dy, CN(c), CM(c), x[CN(c)], dx[CN(c)]);
}
static void ht_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    double cb = 0;
    heat_rev(x, xb, y, yb, CN(c), CM(c), x[CN(c)], &cb);
    xb[CN(c)] += cb;
}

/* hist_read: x (n), idx in ctx */
static void hr_w(const double *x, double *y, void *c) {
    y[0] = hist_read(x, ((const struct ctx *)c)->idx, CN(c));
}
static void hr_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = hist_read_fwd(x, dx, ((const struct ctx *)c)->idx, CN(c), &dy[0]);
}
static void hr_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = hist_read_rev(x, xb, ((const struct ctx *)c)->idx, CN(c), yb[0]);
}

/* branchy: x = (x, y), k = n */
static void br_w(const double *x, double *y, void *c) { y[0] = branchy(x[0], x[1], CN(c)); }
static void br_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = branchy_fwd(x[0], dx[0], x[1], dx[1], CN(c), &dy[0]);
}
static void br_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = branchy_rev(x[0], &xb[0], x[1], &xb[1], CN(c), yb[0]);
}

/* geometric: x = (x, limit) */
/* limit = 10 + x[1]: at least one step */
static void ge_w(const double *x, double *y, void *c) { (void)c; y[0] = geometric(x[0], 10 + x[1]); }
static void ge_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c;
    y[0] = geometric_fwd(x[0], dx[0], 10 + x[1], dx[1], &dy[0]);
}
static void ge_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c;
    y[0] = geometric_rev(x[0], &xb[0], 10 + x[1], &xb[1], yb[0]);
}

/* big_scratch: x (m), n in ctx */
static void bs_w(const double *x, double *y, void *c) { y[0] = big_scratch(x, CM(c), CN(c)); }
static void bs_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = big_scratch_fwd(x, dx, CM(c), CN(c), &dy[0]);
}
static void bs_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = big_scratch_rev(x, xb, CM(c), CN(c), yb[0]);
}

/* smooth_inout: x = (p n, w n), y = p after */
static void si_w(const double *x, double *y, void *c) {
    int i;
    for (i = 0; i < CN(c); i++) y[i] = x[i];
    smooth_inout(y, x + CN(c), CN(c));
}
static void si_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    double pb[64];
    int i, n = CN(c);
    for (i = 0; i < n; i++) y[i] = x[i], pb[i] = yb[i];
    smooth_inout_rev(y, pb, x + n, xb + n, n);
    for (i = 0; i < n; i++) xb[i] += pb[i];
}
static void si_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int i;
    for (i = 0; i < CN(c); i++) y[i] = x[i], dy[i] = dx[i];
    smooth_inout_fwd(y, dy, x + CN(c), dx + CN(c), CN(c));
}

static void run(const char *name, int nin, int nout, gca_fn f, gca_fwd_fn fwd, gca_rev_fn rev,
                struct ctx *c, int npts, double lo, double hi) {
    struct gca_problem p = {0};
    p.name = name, p.nin = nin, p.nout = nout, p.f = f, p.fwd = fwd, p.rev = rev, p.ctx = c;
    gca_check_random(&p, npts, lo, hi);
}

/* A symmetric positive definite matrix near x: B B^T + n I. */
static void spd(double *A, int n) {
    double B[64];
    int i, j, k;
    gca_random(B, n * n, -1, 1);
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            double s = i == j ? n : 0;
            for (k = 0; k < n; k++)
                s += B[i * n + k] * B[j * n + k];
            A[i * n + j] = s;
        }
}

int main(void) {
    static const int idx[] = {2, 0, 3, 2, 1, 0, 2, 3, 1, 1};
    struct ctx c = {0, 0, idx};
    int d, n, k;
    char name[64];
    for (d = 1; d <= 5; d += 2) {
        c.n = d;
        snprintf(name, sizeof name, "qtimesx d=%d", d);
        run(name, d + d * (d - 1) / 2 + d, d, qx_w, qx_fwd, REV(qx_rev), &c, 3, -1.5, 1.5);
    }
    for (n = 1; n <= 4; n++) {
        struct gca_problem p = {0};
        double A[16];
        c.n = n;
        snprintf(name, sizeof name, "chol_logdet n=%d", n);
        p.name = name, p.nin = n * n, p.nout = 1, p.ctx = &c;
        p.f = chol_logdet_w, p.fwd = chol_logdet_wfwd, p.rev = REV(chol_logdet_wrev);
        for (k = 0; k < 3; k++) {
            spd(A, n);
            gca_check_point(&p, A);
        }
        snprintf(name, sizeof name, "chol_inout n=%d", n);
        p.nout = n * n, p.f = ci_w, p.fwd = ci_fwd, p.rev = ci_rev;
        for (k = 0; k < 3; k++) {
            spd(A, n);
            gca_check_point(&p, A);
        }
    }
    for (n = 3; n <= 8; n += 5) {
        c.n = n;
        for (k = 0; k <= 3; k++) {
            c.m = k;
            snprintf(name, sizeof name, "heat n=%d steps=%d", n, k);
            run(name, n + 1, n, ht_w, ht_fwd, REV(ht_rev), &c, 2, 0.05, 0.3);
        }
    }
    c.n = 10;
    run("hist_read", 10, 1, hr_w, hr_fwd, REV(hr_rev), &c, 3, -1, 1);
    for (n = 1; n <= 9; n += 4) {
        c.n = n;
        snprintf(name, sizeof name, "compact n=%d", n);
        run(name, n, 1, compact_w, compact_wfwd, REV(compact_wrev), &c, 4, -1, 1);
        snprintf(name, sizeof name, "until_big n=%d", n);
        run(name, n, 1, until_big_w, until_big_wfwd, REV(until_big_wrev), &c, 4, -1, 1);
    }
    for (k = 0; k < 6; k++) {
        c.n = k;
        snprintf(name, sizeof name, "branchy k=%d", k);
        run(name, 2, 1, br_w, br_fwd, REV(br_rev), &c, 4, -1, 1);
    }
    run("geometric", 2, 1, ge_w, ge_fwd, REV(ge_rev), &c, 1, 0.7, 0.9);
    {
        struct gca_problem p = {0};
        double pt[2] = {1.3, 30.0};
        p.name = "geometric far", p.nin = 2, p.nout = 1, p.ctx = &c;
        p.f = ge_w, p.fwd = ge_fwd, p.rev = REV(ge_rev);
        gca_check_point(&p, pt);
    }
    c.m = 5, c.n = 4500;
    run("big_scratch", 5, 1, bs_w, bs_fwd, REV(bs_rev), &c, 2, -1, 1);
    for (n = 1; n <= 5; n += 2) {
        c.n = n;
        snprintf(name, sizeof name, "smooth_inout n=%d", n);
        run(name, 2 * n, n, si_w, si_fwd, si_rev, &c, 3, -1, 1);
    }
    return gc_summary();
}
