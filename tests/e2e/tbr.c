/* tbr.c: loops of f's primal sweep that carry arrays f made, whose steps
 * save nothing they overwrite when no reverse code after the loop's reads
 * that memory (DESIGN 8.23): a heat equation, an in-place Cholesky, a loop
 * after a sum that read the array (lowering gives the loop its own copy),
 * two loops carrying one array (the second, whose state comes from the
 * first, saves). And where the undo log must save: a step whose reverse
 * reads the carried memory (a callee's tape holding its address), a sum
 * reading an in-out parameter before the nest that updates it. In-out
 * nests save nothing, also with updates before and after them. Each against finite differences, duality and
 * accumulation. */
#include <math.h>
#include <stdlib.h>
#include "chad.h"
#include "gradcheck.h"

/* double-buffered by copying: nothing after the loop reads u or v */
CHAD_DIFFERENTIABLE
double heat(const double *u0, double kappa, int n, int steps) {
    double *u = malloc(n * sizeof *u);
    double *v = malloc(n * sizeof *v);
    for (int i = 0; i < n; i++)
        u[i] = u0[i];
    for (int t = 0; t < steps; t++) {
        v[0] = u[0];
        v[n - 1] = u[n - 1];
        for (int i = 1; i < n - 1; i++)
            v[i] = u[i] + kappa * (u[i - 1] - 2 * u[i] + u[i + 1]);
        for (int i = 0; i < n; i++)
            u[i] = v[i] * (1 + 0.1 * sin(v[i]));
    }
    double s = 0;
    for (int i = 0; i < n; i++)
        s += u[i] * u[i];
    free(u);
    free(v);
    return s;
}

/* in-place Cholesky, the log-determinant */
CHAD_DIFFERENTIABLE
double logdet(const double *a, int n) {
    double l[64];
    for (int i = 0; i < n * n; i++)
        l[i] = a[i];
    for (int j = 0; j < n; j++) {
        for (int k = 0; k < j; k++)
            for (int i = j; i < n; i++)
                l[i * n + j] -= l[i * n + k] * l[j * n + k];
        double d = sqrt(l[j * n + j]);
        l[j * n + j] = d;
        for (int i = j + 1; i < n; i++)
            l[i * n + j] /= d;
    }
    double s = 0;
    for (int j = 0; j < n; j++)
        s += 2 * log(l[j * n + j]);
    return s;
}

/* a sum reads w before the loop updates it: its reverse reads w again */
CHAD_DIFFERENTIABLE
double read_before(const double *x, int n) {
    double *w = malloc(n * sizeof *w);
    for (int i = 0; i < n; i++)
        w[i] = x[i] * x[i];
    for (int i = 0; i < n; i++)
        w[(i * 3 + 1) % n] += x[i];
    double pre = 0;
    for (int i = 0; i < n; i++)
        pre += sin(w[i]);
    for (int t = 0; t < 3; t++)
        for (int i = 1; i < n; i++)
            w[i] = w[i] * cos(w[i - 1]) + pre;
    double r = w[n - 1] + pre * w[0];
    free(w);
    return r;
}

/* two loops carry w: the first's reverse undoes from what the second
 * left */
CHAD_DIFFERENTIABLE
double two_loops(const double *x, int n) {
    double *w = malloc(n * sizeof *w);
    for (int i = 0; i < n; i++)
        w[i] = x[i];
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < n; i++)
            w[(i + t) % n] = sin(w[i]) + w[(i + 1) % n];
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < n; i++)
            w[i] = w[i] * w[(i + 2) % n] + 0.5;
    double s = 0;
    for (int i = 0; i < n; i++)
        s += w[i];
    free(w);
    return s;
}

CHAD_DIFFERENTIABLE
void scale_into(int n, const double *a, double k, double *out) {
    for (int i = 0; i < n; i++)
        out[i] = a[i] * a[i] * k;
}

/* the step calls a function on scratch the loop carries, filled in the
 * step: the callee's tape holds its address */
CHAD_DIFFERENTIABLE
double tape_reads(const double *x, int n) {
    double *tmp = malloc(n * sizeof *tmp);
    double *out = malloc(n * sizeof *out);
    double s = 0;
    for (int t = 0; t < 3; t++) {
        for (int i = 0; i < n; i++)
            tmp[i] = x[i] + t;
        scale_into(n, tmp, x[t % n], out);
        for (int i = 0; i < n; i++)
            s += out[i] * tmp[(i + 1) % n];
    }
    free(tmp);
    free(out);
    return s;
}

/* an in-out parameter carried by a nest */
CHAD_DIFFERENTIABLE
void relax(double *p, const double *k, int n) {
    for (int t = 0; t < 3; t++)
        for (int i = 1; i < n; i++)
            p[i] = p[i] + k[i] * sin(p[i - 1] - p[i]);
}

/* the in-out parameter updated before the nest (saved, restored, then
 * made final again by f_rev) and after it */
CHAD_DIFFERENTIABLE
void relax_around(double *p, const double *k, int n) {
    p[0] = p[0] * k[0] + p[n - 1];
    for (int t = 0; t < 3; t++)
        for (int i = 1; i < n; i++)
            p[i] = p[i] + k[i] * sin(p[i - 1] - p[i]);
    p[n - 1] *= cos(p[0]);
}

/* a sum reads the in-out parameter before the nest: the nest saves */
CHAD_DIFFERENTIABLE
void relax_read(double *p, const double *k, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += p[i] * p[i];
    for (int t = 0; t < 3; t++)
        for (int i = 1; i < n; i++)
            p[i] = p[i] + s * k[i] * sin(p[i - 1]);
}

/* a loop reads the in-out parameter into scratch, storing its elements;
 * its reverse reads none of p's memory, so the loop after it updates p in
 * place and saves nothing (lstm_model's gates, then its hidden state) */
CHAD_DIFFERENTIABLE
void gates(double *p, const double *k, int n) {
    double *g = malloc(2 * n * sizeof *g);
    for (int i = 0; i < n; i++) {
        g[i] = tanh(p[i] * k[i]);
        g[n + i] = sin(p[i] + k[i]);
    }
    for (int i = 0; i < n; i++)
        p[i] = p[i] * g[i] + g[n + (i + 1) % n];
    free(g);
}

struct ctx { int n; };
#define CN(c) (((const struct ctx *)(c))->n)

/* heat: x = (u0 n, kappa) */
static void he_w(const double *x, double *y, void *c) { y[0] = heat(x, x[CN(c)], CN(c), 5); }
static void he_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = heat_fwd(x, dx, x[CN(c)], dx[CN(c)], CN(c), 5, &dy[0]);
}
static void he_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = heat_rev(x, xb, x[CN(c)], &xb[CN(c)], CN(c), 5, yb[0]);
}

/* logdet: x = a small perturbation of a diagonally dominant matrix */
static void spd(const double *x, double *a, int n) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i * n + j] = (i == j ? n + 1.0 : 0.0) + 0.1 * (x[i * n + j] + x[j * n + i]);
}
static void ld_w(const double *x, double *y, void *c) {
    double a[64];
    spd(x, a, CN(c));
    y[0] = logdet(a, CN(c));
}
/* the derivative through spd by hand: da = 0.1 (dx + dx^T) */
static void ld_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = CN(c);
    double a[64], da[64];
    spd(x, a, n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            da[i * n + j] = 0.1 * (dx[i * n + j] + dx[j * n + i]);
    y[0] = logdet_fwd(a, da, n, &dy[0]);
}
static void ld_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = CN(c);
    double a[64], ab[64] = {0};
    spd(x, a, n);
    y[0] = logdet_rev(a, ab, n, yb[0]);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            xb[i * n + j] += 0.1 * (ab[i * n + j] + ab[j * n + i]);
}

#define SCALAR_WRAPPERS(fn, pre)                                                              \
    static void pre##_w(const double *x, double *y, void *c) { y[0] = fn(x, CN(c)); }         \
    static void pre##_fwd(const double *x, const double *dx, double *y, double *dy, void *c) { \
        y[0] = fn##_fwd(x, dx, CN(c), &dy[0]);                                                \
    }                                                                                         \
    static void pre##_rev(const double *x, double *xb, double *y, const double *yb, void *c) { \
        y[0] = fn##_rev(x, xb, CN(c), yb[0]);                                                 \
    }
SCALAR_WRAPPERS(read_before, rb)
SCALAR_WRAPPERS(two_loops, tl)
SCALAR_WRAPPERS(tape_reads, tr)

/* in-out: x = (p n, k n), y = p after */
#define INOUT_WRAPPERS(fn, pre)                                                               \
    static void pre##_w(const double *x, double *y, void *c) {                                 \
        for (int i = 0; i < CN(c); i++) y[i] = x[i];                                           \
        fn(y, x + CN(c), CN(c));                                                               \
    }                                                                                          \
    static void pre##_fwd(const double *x, const double *dx, double *y, double *dy, void *c) { \
        for (int i = 0; i < CN(c); i++) y[i] = x[i], dy[i] = dx[i];                            \
        fn##_fwd(y, dy, x + CN(c), dx + CN(c), CN(c));                                         \
    }                                                                                          \
    static void pre##_rev(const double *x, double *xb, double *y, const double *yb, void *c) { \
        double pb[16];                                                                         \
        for (int i = 0; i < CN(c); i++) y[i] = x[i], pb[i] = yb[i];                            \
        fn##_rev(y, pb, x + CN(c), xb + CN(c), CN(c));                                         \
        for (int i = 0; i < CN(c); i++) xb[i] += pb[i];                                        \
    }
INOUT_WRAPPERS(relax, re)
INOUT_WRAPPERS(relax_around, ra)
INOUT_WRAPPERS(relax_read, rr)
INOUT_WRAPPERS(gates, ga)

int main(void) {
    char name[64];
    struct ctx c = {0};
    struct gca_problem p = {0};
    p.name = name, p.ctx = &c;
    static const int sizes[] = {3, 5, 8};
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        c.n = sizes[k];
        snprintf(name, sizeof name, "heat n=%d", c.n);
        p.nin = c.n + 1, p.nout = 1, p.f = he_w, p.fwd = he_fwd, p.rev = he_rev;
        gca_check_random(&p, 4, 0.05, 0.3);
        snprintf(name, sizeof name, "logdet n=%d", c.n);
        p.nin = c.n * c.n, p.nout = 1, p.f = ld_w, p.fwd = ld_fwd, p.rev = ld_rev;
        gca_check_random(&p, 4, -1, 1);
        snprintf(name, sizeof name, "read_before n=%d", c.n);
        p.nin = c.n, p.nout = 1, p.f = rb_w, p.fwd = rb_fwd, p.rev = rb_rev;
        gca_check_random(&p, 4, -1, 1);
        snprintf(name, sizeof name, "two_loops n=%d", c.n);
        p.nin = c.n, p.nout = 1, p.f = tl_w, p.fwd = tl_fwd, p.rev = tl_rev;
        gca_check_random(&p, 4, -1, 1);
        snprintf(name, sizeof name, "tape_reads n=%d", c.n);
        p.nin = c.n, p.nout = 1, p.f = tr_w, p.fwd = tr_fwd, p.rev = tr_rev;
        gca_check_random(&p, 4, -1, 1);
        snprintf(name, sizeof name, "relax n=%d", c.n);
        p.nin = 2 * c.n, p.nout = c.n, p.f = re_w, p.fwd = re_fwd, p.rev = re_rev;
        gca_check_random(&p, 4, -1, 1);
        snprintf(name, sizeof name, "relax_around n=%d", c.n);
        p.nin = 2 * c.n, p.nout = c.n, p.f = ra_w, p.fwd = ra_fwd, p.rev = ra_rev;
        gca_check_random(&p, 4, -1, 1);
        snprintf(name, sizeof name, "relax_read n=%d", c.n);
        p.nin = 2 * c.n, p.nout = c.n, p.f = rr_w, p.fwd = rr_fwd, p.rev = rr_rev;
        gca_check_random(&p, 4, -1, 1);
        snprintf(name, sizeof name, "gates n=%d", c.n);
        p.nin = 2 * c.n, p.nout = c.n, p.f = ga_w, p.fwd = ga_fwd, p.rev = ga_rev;
        gca_check_random(&p, 4, -1, 1);
    }
    return gc_summary();
}
