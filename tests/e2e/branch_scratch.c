/* branch_scratch.c: branches that make scratch arrays and update arrays in
 * place, whose reverse recomputes them (DESIGN 8.13): the primal branch
 * saves in the undo log only what it overwrites in memory from outside it
 * (an in-out parameter), not the elements of the arrays it makes and frees,
 * which the reverse branch makes again. An early return in a loop makes the
 * rest of the function such a branch (gen seeds 440024, 440134). And an
 * inactive loop that updates only scratch it makes (a callee called for a
 * condition). */
#include <math.h>
#include <stdlib.h>
#include "chad.h"
#include "gradcheck.h"

/* after the loop that may return: malloc'd scratch, updated at indices
 * that wrap, and p updated in place from it */
CHAD_DIFFERENTIABLE
double early_exit(double *p, const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        s += x[i] * x[i];
        if (s > 40)
            return s * p[0];
    }
    double *t = malloc(n * sizeof *t);
    for (int i = 0; i < n; i++)
        t[i] = sin(x[i]) + p[i];
    for (int i = 0; i < n; i++) {
        if (i % 2 == 0)
            t[i] = 0.5 * t[(i + 1) % n] + x[i] * t[i];
        else
            t[n - 1 - i] -= 0.25 * tanh(t[i]);
    }
    for (int i = 0; i < n; i++)
        p[n - 1 - i] = 0.5 * p[n - 1 - i] + t[i] * t[(i + 2) % n];
    double r = 0;
    for (int i = 0; i < n; i++)
        r += t[i] * p[i];
    free(t);
    return r + s;
}

/* a condition on data: the taken branch fills a VLA, updates it, and adds
 * it into p; the other scales p */
CHAD_DIFFERENTIABLE
void cond_scratch(double *p, const double *x, int n) {
    if (x[0] > 0) {
        double t[n];
        for (int i = 0; i < n; i++)
            t[i] = x[i] * p[i];
        for (int i = 1; i < n; i++)
            t[i] += t[i - 1] * cos(x[i]);
        for (int i = 0; i < n; i++)
            p[i] += t[(i + 1) % n];
    } else {
        for (int i = 0; i < n; i++)
            p[i] *= 2 + x[i];
    }
}

/* the same inside a loop over steps: each step's branch makes its scratch */
CHAD_DIFFERENTIABLE
void steps_scratch(double *p, const double *x, int n) {
    for (int k = 0; k < 3; k++) {
        if (x[k % n] * (k + 1) > -1) {
            double t[4];
            for (int i = 0; i < 4; i++)
                t[i] = p[i % n] * x[(i + k) % n];
            t[k] = sin(t[k]) + t[(k + 1) % 4];
            for (int i = 0; i < n; i++)
                p[i] = p[i] * 0.5 + t[i % 4];
        }
    }
}

/* a callee that updates its own scratch in a loop, called only for a
 * condition (gen seed 700786): the inlined loop is inactive, and its
 * updates touch nothing outside it, so reverse mode needs no log of them */
CHAD_DIFFERENTIABLE
double relaxed_norm(const double *x, int n) {
    double *w = malloc(n * sizeof *w);
    for (int i = 0; i < n; i++)
        w[i] = x[i];
    for (int t = 0; t < 3; t++)
        for (int i = 1; i < n; i++)
            w[i] += 0.5 * sin(w[i - 1]);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += w[i] * w[i];
    free(w);
    return s;
}

CHAD_DIFFERENTIABLE
double choose(const double *x, int n) {
    double a = x[0] * x[n - 1];
    if (relaxed_norm(x, n) < 2.0 || relaxed_norm(x, n) > 6.0)
        a = sin(a);
    return a + relaxed_norm(x, n) * x[0];
}

struct ctx { int n; };
#define CN(c) (((const struct ctx *)(c))->n)

/* x = (p n, x n); y = (result, p after) or (p after) */
static void ee_w(const double *x, double *y, void *c) {
    int n = CN(c);
    double p[8];
    for (int i = 0; i < n; i++) p[i] = x[i];
    y[0] = early_exit(p, x + n, n);
    for (int i = 0; i < n; i++) y[1 + i] = p[i];
}
static void ee_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = CN(c);
    double p[8], dp[8];
    for (int i = 0; i < n; i++) p[i] = x[i], dp[i] = dx[i];
    y[0] = early_exit_fwd(p, dp, x + n, dx + n, n, &dy[0]);
    for (int i = 0; i < n; i++) y[1 + i] = p[i], dy[1 + i] = dp[i];
}
static void ee_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = CN(c);
    double p[8], pb[8];
    for (int i = 0; i < n; i++) p[i] = x[i], pb[i] = yb[1 + i];
    y[0] = early_exit_rev(p, pb, x + n, xb + n, n, yb[0]);
    for (int i = 0; i < n; i++) y[1 + i] = p[i], xb[i] += pb[i];
}

#define INOUT_WRAPPERS(fn, pre)                                                          \
    static void pre##_w(const double *x, double *y, void *c) {                            \
        int n = CN(c);                                                                    \
        for (int i = 0; i < n; i++) y[i] = x[i];                                          \
        fn(y, x + n, n);                                                                  \
    }                                                                                     \
    static void pre##_fwd(const double *x, const double *dx, double *y, double *dy,      \
                          void *c) {                                                      \
        int n = CN(c);                                                                    \
        for (int i = 0; i < n; i++) y[i] = x[i], dy[i] = dx[i];                           \
        fn##_fwd(y, dy, x + n, dx + n, n);                                                \
    }                                                                                     \
    static void pre##_rev(const double *x, double *xb, double *y, const double *yb,      \
                          void *c) {                                                      \
        int n = CN(c);                                                                    \
        double pb[8];                                                                     \
        for (int i = 0; i < n; i++) y[i] = x[i], pb[i] = yb[i];                           \
        fn##_rev(y, pb, x + n, xb + n, n);                                                \
        for (int i = 0; i < n; i++) xb[i] += pb[i];                                       \
    }

INOUT_WRAPPERS(cond_scratch, cs)

static void ch_w(const double *x, double *y, void *c) { y[0] = choose(x, CN(c)); }
static void ch_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = choose_fwd(x, dx, CN(c), &dy[0]);
}
static void ch_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = choose_rev(x, xb, CN(c), yb[0]);
}
INOUT_WRAPPERS(steps_scratch, ss)

int main(void) {
    char name[64];
    struct ctx c = {0};
    struct gca_problem p = {0};
    p.name = name, p.ctx = &c;
    static const int sizes[] = {1, 3, 5, 8};
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        c.n = sizes[k];
        snprintf(name, sizeof name, "early_exit n=%d", c.n);
        p.nin = 2 * c.n, p.nout = 1 + c.n, p.f = ee_w, p.fwd = ee_fwd, p.rev = ee_rev;
        gca_check_random(&p, 4, -2, 2);
        /* |x| large enough that the loop returns early */
        snprintf(name, sizeof name, "early_exit returns n=%d", c.n);
        gca_check_random(&p, 3, -5, 5);
        snprintf(name, sizeof name, "cond_scratch n=%d", c.n);
        p.nin = 2 * c.n, p.nout = c.n, p.f = cs_w, p.fwd = cs_fwd, p.rev = cs_rev;
        gca_check_random(&p, 6, -2, 2);
        snprintf(name, sizeof name, "choose n=%d", c.n);
        p.nin = c.n, p.nout = 1, p.f = ch_w, p.fwd = ch_fwd, p.rev = ch_rev;
        gca_check_random(&p, 4, -2, 2);
        snprintf(name, sizeof name, "steps_scratch n=%d", c.n);
        p.nin = 2 * c.n, p.nout = c.n, p.f = ss_w, p.fwd = ss_fwd, p.rev = ss_rev;
        gca_check_random(&p, 6, -2, 2);
    }
    return gc_summary();
}
