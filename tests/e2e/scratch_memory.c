/* scratch_memory.c: end-to-end test of scratch memory (DESIGN.md 8.8,
 * 8.14): malloc'd, calloc'd, realloc'd (grown, prefix kept) and VLA
 * scratch, memset, memcpy and memmove (whole, at an offset, overlapping),
 * free on every path including early returns, the null test after an
 * allocation, scratch passed whole and as a view to a differentiable
 * callee, integer scratch, scratch allocated per loop iteration, an output
 * array filled by memcpy, float scratch, and pointers declared without a
 * value and given their array by their first assignment (C89's style).
 * Run under ASan too: f_fwd and f_rev must free what they allocate on
 * every path. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
double sumsq(const double *a, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * a[i];
    return s;
}

/* malloc, the null test, the array passed whole and as views, read at
 * computed indices, freed */
CHAD_DIFFERENTIABLE
double mal_callee(const double *x, int n) {
    double *t = malloc(n * sizeof *t);
    if (!t)
        return 0;
    for (int i = 0; i < n; i++)
        t[i] = sin(x[i]) * x[(i + 1) % n];
    double s = sumsq(t, n) + sumsq(&t[1], n - 1) + 0.5 * sumsq(t + n / 2, n - n / 2);
    s += t[n - 1] * t[0] + t[(n * 7) % n];
    free(t);
    return s;
}

/* calloc: zeros, then a scatter-add at computed indices */
CHAD_DIFFERENTIABLE
double cal_hist(const double *x, const int *bin, int n, int k) {
    double *h = calloc(k, sizeof(double));
    if (h == NULL) { /* dead code to chad: the allocation is assumed to succeed */
        puts("cal_hist: out of memory");
        abort();
    }
    for (int i = 0; i < n; i++)
        h[bin[i]] += x[i] * x[i];
    double s = 0;
    for (int j = 0; j < k; j++)
        s += h[j] * h[j] * (j + 1);
    free(h);
    return s;
}

/* realloc grows the array, the prefix is kept */
CHAD_DIFFERENTIABLE
double grow(const double *x, int n) {
    double *t = (double *)malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++)
        t[i] = exp(0.5 * x[i]);
    t = realloc(t, 2 * n * sizeof *t);
    if (t == NULL)
        return -1;
    for (int i = n; i < 2 * n; i++)
        t[i] = x[i - n] * x[i - n];
    double s = 0;
    for (int i = 0; i < 2 * n; i++)
        s += t[i] * (i + 1);
    free(t);
    return s;
}

/* a variable-length array */
CHAD_DIFFERENTIABLE
double vla(const double *x, int n) {
    double t[n];
    for (int i = 0; i < n; i++)
        t[i] = x[i] * x[i] - 1;
    double s = 0;
    for (int i = 0; i < n; i++)
        s += t[n - 1 - i] * x[i];
    return s + sumsq(t, n);
}

/* memset of a malloc'd array, whole and in part */
CHAD_DIFFERENTIABLE
double zeroed(const double *x, const int *bin, int n, int k) {
    double *h = malloc((size_t)k * sizeof(double));
    memset(h, 0, k * sizeof *h);
    for (int i = 0; i < n; i++)
        h[bin[i]] += sin(x[i]) + x[i];
    double s = sumsq(h, k);
    memset(h + 1, 0, sizeof(h[0]) * 2);
    for (int j = 0; j < k; j++)
        s += h[j] * x[j];
    free(h);
    return s;
}

/* memcpy into a fresh array and at an offset, memmove overlapping */
CHAD_DIFFERENTIABLE
double copies(const double *x, int n) {
    double *t = malloc(2 * n * sizeof(double));
    memcpy(t, x, n * sizeof(double));
    memcpy(t + n, x, n * sizeof *t);
    memmove(&t[1], t, (n - 1) * sizeof *t);
    double s = 0;
    for (int i = 0; i < 2 * n; i++)
        s += t[i] * t[i] * (i + 1);
    free(t);
    return s;
}

/* free on every path, one of them an early return */
CHAD_DIFFERENTIABLE
double early(const double *x, int n) {
    double *t = malloc(n * sizeof *t);
    double *u = calloc(n, sizeof *u);
    for (int i = 0; i < n; i++)
        t[i] = x[i] * x[i];
    if (t[0] > 1.0) {
        double r = t[0] * x[1] + sumsq(t, n);
        free(u);
        free(t);
        return r;
    }
    for (int i = 0; i < n; i++)
        u[i] = t[i] + x[i];
    double s = sumsq(u, n);
    free(t);
    free(u);
    if (n > 2) { /* scratch of a branch that goes on, freed in it */
        double *q = malloc(n * sizeof *q);
        for (int i = 0; i < n; i++)
            q[i] = cos(x[i]);
        s += sumsq(q, n);
        free(q);
    }
    return s;
}

/* integer scratch: a permutation */
CHAD_DIFFERENTIABLE
double int_scratch(const double *x, int n) {
    int *idx = malloc(n * sizeof *idx);
    for (int i = 0; i < n; i++)
        idx[i] = (i * 3 + 1) % n;
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[idx[i]] * x[i] * x[i];
    free(idx);
    return s;
}

/* scratch allocated and freed in every iteration */
CHAD_DIFFERENTIABLE
double per_iter(const double *x, int n) {
    double s = 0;
    for (int r = 0; r < 3; r++) {
        double *t = malloc(n * sizeof *t);
        for (int i = 0; i < n; i++)
            t[i] = x[i] * (r + 1) + r;
        s += sumsq(t, n) * 0.1;
        free(t);
    }
    return s;
}

/* an output array filled by memcpy from scratch */
CHAD_DIFFERENTIABLE
void out_copy(const double *x, double *y, int n) {
    double *t = malloc(n * sizeof *t);
    for (int i = 0; i < n; i++)
        t[i] = x[i] * cos(x[i]);
    memcpy(y, t, n * sizeof *y);
    free(t);
}

/* float scratch */
CHAD_DIFFERENTIABLE
float fscratch(const float *x, int n) {
    float *t = calloc(n, sizeof *t);
    for (int i = 0; i < n; i++)
        t[i] = x[i] * x[i];
    float s = 0;
    for (int i = 0; i < n; i++)
        s += t[i] * x[(i + 1) % n];
    free(t);
    return s;
}

/* C89: pointers declared at the top without a value (or null), given
 * their array by the first assignment: malloc'd, calloc'd, a view */
CHAD_DIFFERENTIABLE
double c89(const double *x, int n) {
    double *t, *u = NULL, s;
    const double *tail;
    int i;
    s = 0;
    t = malloc(n * sizeof *t);
    for (i = 0; i < n; i++)
        t[i] = x[i] * x[i];
    u = (double *)calloc(n, sizeof *u);
    tail = x + n / 2;
    for (i = 0; i < n - n / 2; i++)
        u[i] = t[i] * tail[i];
    for (i = 0; i < n; i++)
        s += sin(u[i]) + t[i];
    free(u);
    free(t);
    return s;
}

struct ctx { int n, k; int bin[GCA_MAX]; };
#define C(c) ((const struct ctx *)(c))

/* wrappers: f(x, n) -> y[0] */
#define SCALAR(F)                                                                            \
    static void F##_w(const double *x, double *y, void *c) { y[0] = F(x, C(c)->n); }       \
    static void F##_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) { \
        y[0] = F##_fwd(x, dx, C(c)->n, &dy[0]);                                             \
    }                                                                                        \
    static void F##_wrev(const double *x, double *xb, double *y, const double *yb, void *c) { \
        y[0] = F##_rev(x, xb, C(c)->n, yb[0]);                                              \
    }
SCALAR(mal_callee)
SCALAR(grow)
SCALAR(vla)
SCALAR(copies)
SCALAR(early)
SCALAR(int_scratch)
SCALAR(per_iter)
SCALAR(c89)

/* f(x, bin, n, k) -> y[0] */
#define BINNED(F)                                                                            \
    static void F##_w(const double *x, double *y, void *c) {                                \
        y[0] = F(x, C(c)->bin, C(c)->n, C(c)->k);                                           \
    }                                                                                        \
    static void F##_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) { \
        y[0] = F##_fwd(x, dx, C(c)->bin, C(c)->n, C(c)->k, &dy[0]);                         \
    }                                                                                        \
    static void F##_wrev(const double *x, double *xb, double *y, const double *yb, void *c) { \
        y[0] = F##_rev(x, xb, C(c)->bin, C(c)->n, C(c)->k, yb[0]);                          \
    }
BINNED(cal_hist)
BINNED(zeroed)

static void oc_w(const double *x, double *y, void *c) { out_copy(x, y, C(c)->n); }
static void oc_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    out_copy_fwd(x, dx, y, dy, C(c)->n);
}
static void oc_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    out_copy_rev(x, xb, y, yb, C(c)->n);
}

static void fs_w(const double *x, double *y, void *c) {
    float xf[GCA_MAX];
    gca_tof(xf, x, C(c)->n);
    y[0] = fscratch(xf, C(c)->n);
}
static void fs_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    float xf[GCA_MAX], dxf[GCA_MAX], d;
    gca_tof(xf, x, C(c)->n);
    gca_tof(dxf, dx, C(c)->n);
    y[0] = fscratch_fwd(xf, dxf, C(c)->n, &d);
    dy[0] = d;
}
static void fs_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    float xf[GCA_MAX], xbf[GCA_MAX];
    gca_tof(xf, x, C(c)->n);
    gca_tof(xbf, xb, C(c)->n);
    y[0] = fscratch_rev(xf, xbf, C(c)->n, (float)yb[0]);
    gca_tod(xb, xbf, C(c)->n);
}

static void run(struct gca_problem *p, const char *what, gca_fn f, gca_fwd_fn fwd, gca_rev_fn rev,
                int nin, int nout, double lo, double hi) {
    p->name = what, p->f = f, p->fwd = fwd, p->rev = rev, p->nin = nin, p->nout = nout;
    gca_check_random(p, 3, lo, hi);
}

int main(void) {
    static const int sizes[] = {2, 3, 7};
    struct ctx c;
    struct gca_problem p = {0};
    unsigned s;
    int i;
    p.ctx = &c, p.prec = GC_DOUBLE;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        c.n = sizes[s];
        c.k = c.n < 3 ? 3 : c.n;
        for (i = 0; i < c.n; i++)
            c.bin[i] = (i * 5 + 2) % c.k;
        run(&p, "malloc, views, callee", mal_callee_w, mal_callee_wfwd, mal_callee_wrev, c.n, 1, -2, 2);
        run(&p, "calloc, scatter", cal_hist_w, cal_hist_wfwd, cal_hist_wrev, c.n, 1, -2, 2);
        run(&p, "realloc grown", grow_w, grow_wfwd, grow_wrev, c.n, 1, -2, 2);
        run(&p, "VLA", vla_w, vla_wfwd, vla_wrev, c.n, 1, -2, 2);
        run(&p, "memset", zeroed_w, zeroed_wfwd, zeroed_wrev, c.n < c.k ? c.k : c.n, 1, -2, 2);
        run(&p, "memcpy, memmove", copies_w, copies_wfwd, copies_wrev, c.n, 1, -2, 2);
        /* both paths: t[0] = x[0]^2 > 1 returns early */
        run(&p, "early return (taken)", early_w, early_wfwd, early_wrev, c.n, 1, 1.2, 2);
        run(&p, "early return (not taken)", early_w, early_wfwd, early_wrev, c.n, 1, -0.9, 0.9);
        run(&p, "int scratch", int_scratch_w, int_scratch_wfwd, int_scratch_wrev, c.n, 1, -2, 2);
        run(&p, "per iteration", per_iter_w, per_iter_wfwd, per_iter_wrev, c.n, 1, -2, 2);
        run(&p, "C89 declarations", c89_w, c89_wfwd, c89_wrev, c.n, 1, -2, 2);
        run(&p, "memcpy into output", oc_w, oc_wfwd, oc_wrev, c.n, c.n, -2, 2);
        p.prec = GC_FLOAT;
        run(&p, "float calloc", fs_w, fs_wfwd, fs_wrev, c.n, 1, -1, 1);
        p.prec = GC_DOUBLE;
    }
    {   /* exact values: memmove shifts, memcpy appends */
        double x[3] = {1, 2, 3}, xb[3] = {0, 0, 0};
        /* t = {1, 1, 2, 1, 2, 3}: sum (i+1) t_i^2 = 1 + 2 + 12 + 4 + 20 + 54 */
        double v = copies_rev(x, xb, 3, 1.0);
        gc_expect(v == 93 && xb[0] == 2 * 1 * (1 + 2 + 4) && xb[1] == 2 * 2 * (3 + 5) &&
                      xb[2] == 2 * 3 * 6,
                  "copies exact", "wrong value or gradient");
    }
    return gc_summary();
}
