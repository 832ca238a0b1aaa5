/* loop_calls.c: end-to-end test of loops whose step is known only at run
 * time (`i += b`, as ADBench's LSTM steps through its state) and of loops
 * that pass an array whole to a callee that updates it in place or fills
 * it (DESIGN.md 8.16: the loop carries the array whole and the call gives
 * its new value). */
#include <math.h>
#include <stdlib.h>
#include "chad.h"
#include "gradcheck.h"

/* Runtime steps up and down, with <= and < bounds, an unsigned counter
 * and a floating bound. */
CHAD_DIFFERENTIABLE
double strided_sum(int n, int s, const double *x) {
    double t = 0;
    for (int i = 0; i <= n - 1; i += s)
        t += x[i] * x[i];
    for (int i = n - 1; i >= 0; i -= s)
        t += sin(x[i]) * t;
    unsigned us = (unsigned)s;
    for (unsigned i = 1; i < (unsigned)n; i = i + us)
        t += x[i] * x[i - 1];
    double p = n - 0.5;
    for (int j = 0; j <= p; j += s)
        t -= cos(x[j]);
    return t;
}

/* Blocks of b at a runtime stride, as lstm_objective walks its sequence. */
CHAD_DIFFERENTIABLE
double blocks(int c, int b, const double *seq) {
    double total = 0;
    for (int t = 0; t <= (c - 1) * b - 1; t += b)
        for (int i = 0; i < b; i++)
            total += seq[t + i] * seq[t + b + i];
    return total;
}

/* An in-out callee called at every step of a time loop. */
CHAD_DIFFERENTIABLE
void relax(int n, double *u, const double *k) {
    for (int i = 0; i < n; i++)
        u[i] = u[i] + k[i] * sin(u[i]);
}

CHAD_DIFFERENTIABLE
void evolve(int n, int T, const double *k, double *u) {
    for (int t = 0; t < T; t++)
        relax(n, u, k);
}

/* A callee that fills scratch, called in a loop, and an in-out local
 * array updated by a callee in a loop and read after it. */
CHAD_DIFFERENTIABLE
void scaled(int n, const double *x, double a, double *out) {
    for (int i = 0; i < n; i++)
        out[i] = a * x[i] * x[i];
}

CHAD_DIFFERENTIABLE
double energy(int n, int T, const double *x) {
    double *tmp = malloc(n * sizeof(double));
    double *acc = calloc(n, sizeof(double));
    double e = 0;
    for (int t = 0; t < T; t++) {
        scaled(n, x, t + 1.0, tmp);
        for (int i = 0; i < n; i++)
            e += tmp[i] * x[i];
        relax(n, acc, x);
        acc[0] += 0.5;
    }
    for (int i = 0; i < n; i++)
        e += acc[i];
    free(tmp);
    free(acc);
    return e;
}

/* A callee fills an array the loop carries (it is read after the loop):
 * its output is stored into the array element by element. */
CHAD_DIFFERENTIABLE
double refill(int n, int T, const double *x) {
    double *m = malloc(n * sizeof(double));
    double v = 0;
    for (int i = 0; i < n; i++)
        m[i] = 0.5 * tanh(x[i]);
    for (int t = 0; t < T; t++) {
        v += m[0] * x[0];
        scaled(n, x, 0.5 + 0.25 * t, m);
        for (int j = 0; j < n; j++)
            v += m[j] * x[j];
    }
    for (int j = 0; j < n; j++)
        v += sin(m[j]);
    free(m);
    return v;
}

struct ctx { int n, s, T; };
#define C(c) ((const struct ctx *)(c))

static void ss_w(const double *x, double *y, void *c) { y[0] = strided_sum(C(c)->n, C(c)->s, x); }
static void ss_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = strided_sum_fwd(C(c)->n, C(c)->s, x, dx, &dy[0]);
}
static void ss_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = strided_sum_rev(C(c)->n, C(c)->s, x, xb, yb[0]);
}
/* blocks: c = T, b = s */
static void bl_w(const double *x, double *y, void *c) { y[0] = blocks(C(c)->T, C(c)->s, x); }
static void bl_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = blocks_fwd(C(c)->T, C(c)->s, x, dx, &dy[0]);
}
static void bl_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = blocks_rev(C(c)->T, C(c)->s, x, xb, yb[0]);
}
/* x = (k n, u0 n), y = u after T steps: the in-out array's seed is consumed
 * and replaced by the adjoint of its initial values */
static void ev_w(const double *x, double *y, void *c) {
    int n = C(c)->n;
    for (int i = 0; i < n; i++) y[i] = x[n + i];
    evolve(n, C(c)->T, x, y);
}
static void ev_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = C(c)->n;
    for (int i = 0; i < n; i++) y[i] = x[n + i], dy[i] = dx[n + i];
    evolve_fwd(n, C(c)->T, x, dx, y, dy);
}
static void ev_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = C(c)->n;
    double ub[16];
    for (int i = 0; i < n; i++) y[i] = x[n + i], ub[i] = yb[i];
    evolve_rev(n, C(c)->T, x, xb, y, ub);
    for (int i = 0; i < n; i++) xb[n + i] += ub[i];
}
static void en_w(const double *x, double *y, void *c) { y[0] = energy(C(c)->n, C(c)->T, x); }
static void en_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = energy_fwd(C(c)->n, C(c)->T, x, dx, &dy[0]);
}
static void en_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = energy_rev(C(c)->n, C(c)->T, x, xb, yb[0]);
}

static void rf_w(const double *x, double *y, void *c) { y[0] = refill(C(c)->n, C(c)->T, x); }
static void rf_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = refill_fwd(C(c)->n, C(c)->T, x, dx, &dy[0]);
}
static void rf_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = refill_rev(C(c)->n, C(c)->T, x, xb, yb[0]);
}

int main(void) {
    static const int ns[] = {1, 2, 5, 8};
    char name[64];
    struct ctx c = {0, 1, 0};
    struct gca_problem p = {0};
    p.name = name, p.ctx = &c;
    for (unsigned k = 0; k < sizeof ns / sizeof ns[0]; k++)
        for (int s = 1; s <= 3; s++) {
            c.n = ns[k], c.s = s, c.T = s + 1;
            snprintf(name, sizeof name, "strided_sum n=%d s=%d", c.n, s);
            p.nin = c.n, p.nout = 1, p.f = ss_w, p.fwd = ss_fwd, p.rev = ss_rev;
            gca_check_random(&p, 3, -1.5, 1.5);
            snprintf(name, sizeof name, "blocks c=%d b=%d", c.T, s);
            p.nin = c.T * s, p.nout = 1, p.f = bl_w, p.fwd = bl_fwd, p.rev = bl_rev;
            gca_check_random(&p, 3, -1.5, 1.5);
            snprintf(name, sizeof name, "evolve n=%d T=%d", c.n, c.T);
            p.nin = 2 * c.n, p.nout = c.n, p.f = ev_w, p.fwd = ev_fwd, p.rev = ev_rev;
            gca_check_random(&p, 3, -1, 1);
            snprintf(name, sizeof name, "energy n=%d T=%d", c.n, c.T);
            p.nin = c.n, p.nout = 1, p.f = en_w, p.fwd = en_fwd, p.rev = en_rev;
            gca_check_random(&p, 3, -1, 1);
            snprintf(name, sizeof name, "refill n=%d T=%d", c.n, c.T);
            p.nin = c.n, p.nout = 1, p.f = rf_w, p.fwd = rf_fwd, p.rev = rf_rev;
            gca_check_random(&p, 3, -1, 1);
        }
    {   /* T = 0: the in-out array passes through, its adjoint too */
        double k[1] = {0.3}, kb[1] = {0}, u[1] = {0.7}, ub[1] = {2};
        evolve_rev(1, 0, k, kb, u, ub);
        gc_expect(u[0] == 0.7 && ub[0] == 2 && kb[0] == 0, "evolve T=0", "identity");
    }
    return gc_summary();
}
