/* pointer_swaps.c: double buffering through pointers that are swapped
 * (`t = cur; cur = nxt; nxt = t;`, DESIGN 8.26): each such pointer points
 * into one of several arrays, written and read through. A heat equation
 * over malloc'd buffers and over local arrays, a leapfrog scheme rotating
 * three buffers, a buffer that is the caller's in-out parameter, a swap
 * under a condition, compound writes through the pointers, and swapped
 * pointers read by a callee. Both modes, against finite differences and
 * each other. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "chad.h"
#include "gradcheck.h"

/* explicit heat equation, two malloc'd buffers swapped each step */
CHAD_DIFFERENTIABLE
void heat(const double *u0, double *u, int n, int steps, double c) {
    double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++)
        a[i] = u0[i];
    b[0] = a[0];
    b[n - 1] = a[n - 1];
    double *cur = a, *nxt = b;
    for (int t = 0; t < steps; t++) {
        for (int i = 1; i < n - 1; i++)
            nxt[i] = cur[i] + c * (cur[i - 1] - 2 * cur[i] + cur[i + 1]);
        double *tmp = cur;
        cur = nxt;
        nxt = tmp;
    }
    for (int i = 0; i < n; i++)
        u[i] = cur[i];
    free(a);
    free(b);
}

/* the same over local arrays, the boundary written through the pointers,
 * the pointers declared before their first value */
CHAD_DIFFERENTIABLE
double heat_local(const double *u0, int n, int steps, double c) {
    double a[16], b[16];
    double *cur, *nxt, *tmp;
    for (int i = 0; i < n; i++)
        a[i] = u0[i];
    cur = a;
    nxt = b;
    for (int t = 0; t < steps; t++) {
        nxt[0] = cur[0] * (1 - c);
        for (int i = 1; i < n; i++)
            nxt[i] = cur[i] + c * (cur[i - 1] - cur[i]);
        tmp = nxt;
        nxt = cur;
        cur = tmp;
    }
    double s = 0;
    for (int i = 0; i < n; i++)
        s += cur[i] * cur[i] * (i + 1);
    return s;
}

/* leapfrog for y'' = -k sin(y) on n pendulums: three buffers rotated */
CHAD_DIFFERENTIABLE
double leapfrog(const double *y0, const double *y1, int n, int steps, double k) {
    double *p = malloc(n * sizeof(double)), *q = malloc(n * sizeof(double));
    double *r = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) {
        p[i] = y0[i];
        q[i] = y1[i];
    }
    double *old = p, *now = q, *next = r;
    for (int t = 0; t < steps; t++) {
        for (int i = 0; i < n; i++)
            next[i] = 2 * now[i] - old[i] - 0.01 * k * sin(now[i]);
        double *spare = old;
        old = now;
        now = next;
        next = spare;
    }
    double e = 0;
    for (int i = 0; i < n; i++)
        e += now[i] * old[i];
    free(p);
    free(q);
    free(r);
    return e;
}

/* one buffer is the caller's in-out array, the other scratch; compound
 * writes through the pointer; the result copied back at the end */
CHAD_DIFFERENTIABLE
void smooth(double *u, int n, int steps, double w) {
    double *s = malloc(n * sizeof(double));
    double *src = u, *dst = s;
    for (int t = 0; t < steps; t++) {
        for (int i = 0; i < n; i++) {
            dst[i] = (1 - w) * src[i];
            dst[i] += w * src[(i + 1) % n];
        }
        double *x = src;
        src = dst;
        dst = x;
    }
    for (int i = 0; i < n; i++)
        u[i] = src[i] * 1.0;
    free(s);
}

/* a swap under a condition, and the current buffer read by a callee */
CHAD_DIFFERENTIABLE
double sumsq(const double *v, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += v[i] * v[i];
    return s;
}

CHAD_DIFFERENTIABLE
double maybe_swap(const double *x, int n, int steps, double g) {
    double a[8], b[8];
    double *cur = a, *nxt = b;
    for (int i = 0; i < n; i++)
        a[i] = x[i];
    for (int i = 0; i < n; i++)
        b[i] = 0;
    for (int t = 0; t < steps; t++) {
        for (int i = 0; i < n; i++)
            nxt[i] = tanh(g * cur[i] + cur[(i + n - 1) % n]);
        if (t % 3 != 1) {
            double *h = cur;
            cur = nxt;
            nxt = h;
        }
    }
    return sumsq(cur, n) + 0.5 * sumsq(nxt, n);
}

/* writes under a test no step changes, with and without an else: the
 * inner loop is unswitched (ad/unswitch.c, DESIGN 8.29), and without the
 * else one copy of it writes nothing */
CHAD_DIFFERENTIABLE
double flag_write(const double *x, int n, int steps, double c) {
    double a[16], b[16];
    for (int i = 0; i < n; i++) {
        a[i] = x[i];
        b[i] = x[i] * c;
    }
    for (int t = 0; t < 3; t++)
        for (int i = 1; i < n; i++)
            if (steps > 2)
                a[i] += c * sin(a[i - 1]);
            else
                b[i] = b[i - 1] * c + a[i];
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

CHAD_DIFFERENTIABLE
double flag_skip(const double *x, int n, int steps, double c) {
    double a[16];
    for (int i = 0; i < n; i++)
        a[i] = x[i];
    for (int i = 1; i < n; i++)
        if (steps % 2 == 1)
            a[i] = a[i] * c + cos(a[i - 1]);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * a[i] * c;
    return s;
}

/* The step as a callee that fills its output, and one that updates its
 * in-out array: the swapped pointers passed to them (a choice of calls,
 * one per buffer the pointers can point into). */
CHAD_DIFFERENTIABLE
static void diffuse(int n, double c, const double *u, double *v) {
    for (int i = 0; i < n; i++)
        v[i] = u[i] + c * ((i > 0 ? u[i - 1] : 0) - 2 * u[i] + (i + 1 < n ? u[i + 1] : 0));
}

CHAD_DIFFERENTIABLE
static void relax(int n, double c, double *v) {
    for (int i = 0; i < n; i++)
        v[i] += c * sin(v[i]);
}

CHAD_DIFFERENTIABLE
double heat_calls(const double *x, int n, int steps, double c) {
    double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++)
        a[i] = x[i] * x[i];
    double *cur = a;
    double *nxt = b;
    for (int t = 0; t < steps; t++) {
        diffuse(n, c, cur, nxt);
        relax(n, c, nxt);
        double *tmp = cur;
        cur = nxt;
        nxt = tmp;
    }
    double s = 0;
    for (int i = 0; i < n; i++)
        s += cur[i] * (i + 1);
    free(a);
    free(b);
    return s;
}

/* three buffers rotated, all three passed to the step */
CHAD_DIFFERENTIABLE
static void leap(int n, double k, const double *old, const double *now, double *next) {
    for (int i = 0; i < n; i++)
        next[i] = 2 * now[i] - old[i] - 0.01 * k * sin(now[i]);
}

CHAD_DIFFERENTIABLE
double leap_calls(const double *x, int n, int steps, double k) {
    double p[16], q[16], r[16];
    for (int i = 0; i < n; i++) {
        p[i] = x[i];
        q[i] = cos(x[i]);
        r[i] = 0;
    }
    double *old = p, *now = q, *next = r;
    for (int t = 0; t < steps; t++) {
        leap(n, k, old, now, next);
        double *spare = old;
        old = now;
        now = spare;
        spare = now;
        now = next;
        next = spare;
    }
    double s = 0;
    for (int i = 0; i < n; i++)
        s += now[i] * old[i];
    return s;
}

/* ------------------------------------------------------------- checks */

struct ctx { int n, steps; };
#define CN(c) (((const struct ctx *)(c))->n)
#define CS(c) (((const struct ctx *)(c))->steps)

/* heat: x = (u0, c), y = u */
static void heat_w(const double *x, double *y, void *c) { heat(x, y, CN(c), CS(c), x[CN(c)]); }
static void heat_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    heat_fwd(x, dx, y, dy, CN(c), CS(c), x[CN(c)], dx[CN(c)]);
}
static void heat_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    heat_rev(x, xb, y, yb, CN(c), CS(c), x[CN(c)], &xb[CN(c)]);
}

/* heat_local, maybe_swap: x = (x, c), y = value */
#define XC_WRAP(f)                                                                            \
    static void f##_w(const double *x, double *y, void *c) { y[0] = f(x, CN(c), CS(c), x[CN(c)]); } \
    static void f##_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {  \
        y[0] = f##_fwd(x, dx, CN(c), CS(c), x[CN(c)], dx[CN(c)], &dy[0]); }                    \
    static void f##_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {  \
        y[0] = f##_rev(x, xb, CN(c), CS(c), x[CN(c)], &xb[CN(c)], yb[0]); }
XC_WRAP(heat_local)
XC_WRAP(maybe_swap)
XC_WRAP(flag_write)
XC_WRAP(flag_skip)
XC_WRAP(heat_calls)
XC_WRAP(leap_calls)

/* leapfrog: x = (y0, y1, k) */
static void lf_w(const double *x, double *y, void *c) {
    int n = CN(c);
    y[0] = leapfrog(x, x + n, n, CS(c), x[2 * n]);
}
static void lf_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = CN(c);
    y[0] = leapfrog_fwd(x, dx, x + n, dx + n, n, CS(c), x[2 * n], dx[2 * n], &dy[0]);
}
static void lf_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = CN(c);
    y[0] = leapfrog_rev(x, xb, x + n, xb + n, n, CS(c), x[2 * n], &xb[2 * n], yb[0]);
}

/* smooth: x = (u, w), y = u after */
static void sm_w(const double *x, double *y, void *c) {
    memcpy(y, x, sizeof(double) * (size_t)CN(c));
    smooth(y, CN(c), CS(c), x[CN(c)]);
}
static void sm_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    memcpy(y, x, sizeof(double) * (size_t)CN(c));
    memcpy(dy, dx, sizeof(double) * (size_t)CN(c));
    smooth_fwd(y, dy, CN(c), CS(c), x[CN(c)], dx[CN(c)]);
}
static void sm_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = CN(c);
    double seed[16];
    memcpy(y, x, sizeof(double) * (size_t)n);
    memcpy(seed, yb, sizeof(double) * (size_t)n);
    smooth_rev(y, seed, n, CS(c), x[n], &xb[n]);
    for (int i = 0; i < n; i++)
        xb[i] += seed[i];
}

static void run(const char *fn, int n, int steps, int nin, int nout, gca_fn f, gca_fwd_fn fwd,
                gca_rev_fn rev) {
    struct ctx c = {n, steps};
    char name[64];
    snprintf(name, sizeof name, "%s n=%d steps=%d", fn, n, steps);
    struct gca_problem p = {0};
    p.name = name, p.nin = nin, p.nout = nout, p.f = f, p.fwd = fwd, p.rev = rev, p.ctx = &c;
    gca_check_random(&p, 3, -0.9, 0.9);
}

int main(void) {
    static const int ns[] = {3, 8};
    for (unsigned q = 0; q < sizeof ns / sizeof ns[0]; q++)
        for (int steps = 0; steps <= 5; steps += (steps < 2 ? 1 : 3)) {
            int n = ns[q];
            run("heat", n, steps, n + 1, n, heat_w, heat_wfwd, heat_wrev);
            run("heat_local", n, steps, n + 1, 1, heat_local_w, heat_local_wfwd, heat_local_wrev);
            run("leapfrog", n, steps, 2 * n + 1, 1, lf_w, lf_wfwd, lf_wrev);
            run("smooth", n, steps, n + 1, n, sm_w, sm_wfwd, sm_wrev);
            run("maybe_swap", n, steps, n + 1, 1, maybe_swap_w, maybe_swap_wfwd, maybe_swap_wrev);
            run("flag_write", n, steps, n + 1, 1, flag_write_w, flag_write_wfwd, flag_write_wrev);
            run("flag_skip", n, steps, n + 1, 1, flag_skip_w, flag_skip_wfwd, flag_skip_wrev);
            run("heat_calls", n, steps, n + 1, 1, heat_calls_w, heat_calls_wfwd, heat_calls_wrev);
            run("leap_calls", n, steps, n + 1, 1, leap_calls_w, leap_calls_wfwd, leap_calls_wrev);
        }
    return gc_summary();
}
