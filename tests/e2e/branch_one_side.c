/* branch_one_side.c: scratch that only one branch of an if writes (gen
 * seed 110498). Lowering rebuilds the scratch in the branch that writes
 * it, so one branch makes a new array while the other passes the old one
 * on: the emitted if copies the passed array into the result's memory
 * (the frame buffer or the heap, as the other branch's), and reverse mode
 * gives the result a buffer of its own, which the passing branch's reverse
 * adds into the old array's (DESIGN 8.13). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "chad.h"
#include "gradcheck.h"

/* a VLA of run-time length, two elements written before the if, one in
 * the else branch only */
CHAD_DIFFERENTIABLE
double vla_else(double a1, double a3, int n) {
    double s[n];
    s[0] = a3;
    s[1] = a3 * a3;
    if (a1 < 0.5) {
        a3 *= 2;
    } else {
        s[0] -= a1;
    }
    return s[0] * s[1] + a3;
}

/* malloc'd scratch filled in a loop, one element rewritten in the then
 * branch only */
CHAD_DIFFERENTIABLE
double heap_then(const double *x, int n) {
    double *s = malloc(n * sizeof *s);
    for (int i = 0; i < n; i++)
        s[i] = x[i] * x[i];
    if (x[0] > 0)
        s[n - 1] = sin(x[0] * s[n - 1]);
    double r = 0;
    for (int i = 0; i < n; i++)
        r += s[i] * x[i];
    free(s);
    return r;
}

/* a fixed-size local array, each branch writes a different element, and
 * a second array only one branch writes */
CHAD_DIFFERENTIABLE
double two_arrays(const double *x, int n) {
    double a[3], b[n];
    for (int i = 0; i < 3; i++)
        a[i] = x[i % n] + i;
    for (int i = 0; i < n; i++)
        b[i] = cos(x[i]);
    if (x[n - 1] < 0.3) {
        a[1] = a[0] * a[2];
    } else {
        b[0] = b[n - 1] * a[1];
        a[2] = exp(0.5 * b[0]);
    }
    double r = 0;
    for (int i = 0; i < n; i++)
        r += b[i] * a[i % 3];
    return r;
}

/* inside a loop over steps: the step writes its scratch under a condition */
CHAD_DIFFERENTIABLE
double steps_one_side(const double *x, int n) {
    double *s = malloc(n * sizeof *s);
    for (int i = 0; i < n; i++)
        s[i] = x[i];
    double r = 0;
    for (int k = 0; k < 4; k++) {
        if (x[k % n] * k > 0.1)
            s[k % n] = s[(k + 1) % n] * x[k % n];
        r += s[k % n] * s[0];
    }
    free(s);
    return r;
}

/* nested: the inner if writes in one branch only, the outer else writes
 * another element */
CHAD_DIFFERENTIABLE
double nested_if(const double *x, int n) {
    double *t = malloc(n * sizeof *t);
    t[0] = x[0];
    t[n - 1] = x[n - 1];
    if (x[0] > 0) {
        if (x[1 % n] > 0)
            t[0] = t[n - 1] * 3;
    } else {
        t[n - 1] = t[0] * t[0];
    }
    double r = t[0] * t[n - 1];
    free(t);
    return r;
}

/* a small local array carried by a loop, one element written under a
 * condition in each step */
CHAD_DIFFERENTIABLE
double loop_const(const double *x, int n) {
    double t[2];
    t[0] = x[0];
    t[1] = x[1 % n];
    double r = 0;
    for (int k = 0; k < n; k++) {
        if (x[k] > 0.2)
            t[0] = t[1] * x[k];
        else
            r += 1;
        r += t[0] * t[1];
    }
    return r;
}

/* a pointer chooses which output the last write goes to: each branch
 * writes one output anew and passes the other on */
CHAD_DIFFERENTIABLE
void choose_output(double *y, double *z, double x) {
    *y = x;
    *z = x;
    double *p = y;
    if (x > 0)
        p = z;
    *p = x * x;
}

/* an output written whole in one branch, kept in the other, then written
 * again after the if */
CHAD_DIFFERENTIABLE
void output_in_branch(const double *x, double *y, double c) {
    y[0] = x[0];
    if (c > 0) {
        for (int i = 0; i < 3; i++)
            y[i] = x[i] * c;
    }
    y[1] = y[0] * 2;
    y[2] = 1;
}

/* scratch overwritten by memcpy in one branch */
CHAD_DIFFERENTIABLE
double copied_in_branch(const double *x, int n) {
    double *t = malloc(n * sizeof *t);
    for (int i = 0; i < n; i++)
        t[i] = 2 * x[i];
    if (x[0] > 0)
        memcpy(t, x, n * sizeof *t);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += t[i] * sin(t[i]);
    free(t);
    return s;
}

struct ctx { int n; };
#define CN(c) (((const struct ctx *)(c))->n)

static void ve_w(const double *x, double *y, void *c) { y[0] = vla_else(x[0], x[1], CN(c)); }
static void ve_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = vla_else_fwd(x[0], dx[0], x[1], dx[1], CN(c), &dy[0]);
}
static void ve_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = vla_else_rev(x[0], &xb[0], x[1], &xb[1], CN(c), yb[0]);
}

#define ARRAY_WRAPPERS(fn, pre)                                                           \
    static void pre##_w(const double *x, double *y, void *c) { y[0] = fn(x, CN(c)); }      \
    static void pre##_fwd(const double *x, const double *dx, double *y, double *dy,       \
                          void *c) {                                                       \
        y[0] = fn##_fwd(x, dx, CN(c), &dy[0]);                                             \
    }                                                                                      \
    static void pre##_rev(const double *x, double *xb, double *y, const double *yb,       \
                          void *c) {                                                       \
        y[0] = fn##_rev(x, xb, CN(c), yb[0]);                                              \
    }

ARRAY_WRAPPERS(heap_then, ht)
ARRAY_WRAPPERS(two_arrays, ta)
ARRAY_WRAPPERS(steps_one_side, so)
ARRAY_WRAPPERS(nested_if, ni)
ARRAY_WRAPPERS(loop_const, lc)
ARRAY_WRAPPERS(copied_in_branch, cb)

/* x = (x); y = (y[0], z[0]) */
static void co_w(const double *x, double *y, void *c) {
    (void)c;
    choose_output(&y[0], &y[1], x[0]);
}
static void co_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c;
    choose_output_fwd(&y[0], &dy[0], &y[1], &dy[1], x[0], dx[0]);
}
static void co_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c;
    choose_output_rev(&y[0], &yb[0], &y[1], &yb[1], x[0], &xb[0]);
}

/* x = (x[3], c); y = y[3] */
static void ob_w(const double *x, double *y, void *c) {
    (void)c;
    output_in_branch(x, y, x[3]);
}
static void ob_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c;
    output_in_branch_fwd(x, dx, y, dy, x[3], dx[3]);
}
static void ob_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c;
    output_in_branch_rev(x, xb, y, yb, x[3], &xb[3]);
}

int main(void) {
    char name[64];
    struct ctx c = {0};
    struct gca_problem p = {0};
    p.name = name, p.ctx = &c;
    static const int sizes[] = {2, 3, 5, 8};
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        c.n = sizes[k];
        snprintf(name, sizeof name, "vla_else n=%d", c.n);
        p.nin = 2, p.nout = 1, p.f = ve_w, p.fwd = ve_fwd, p.rev = ve_rev;
        gca_check_random(&p, 8, -1, 2);
        snprintf(name, sizeof name, "heap_then n=%d", c.n);
        p.nin = c.n, p.nout = 1, p.f = ht_w, p.fwd = ht_fwd, p.rev = ht_rev;
        gca_check_random(&p, 8, -2, 2);
        snprintf(name, sizeof name, "two_arrays n=%d", c.n);
        p.nin = c.n, p.nout = 1, p.f = ta_w, p.fwd = ta_fwd, p.rev = ta_rev;
        gca_check_random(&p, 8, -1, 1.5);
        snprintf(name, sizeof name, "steps_one_side n=%d", c.n);
        p.nin = c.n, p.nout = 1, p.f = so_w, p.fwd = so_fwd, p.rev = so_rev;
        gca_check_random(&p, 8, -2, 2);
        snprintf(name, sizeof name, "nested_if n=%d", c.n);
        p.nin = c.n, p.nout = 1, p.f = ni_w, p.fwd = ni_fwd, p.rev = ni_rev;
        gca_check_random(&p, 8, -2, 2);
        snprintf(name, sizeof name, "loop_const n=%d", c.n);
        p.nin = c.n, p.nout = 1, p.f = lc_w, p.fwd = lc_fwd, p.rev = lc_rev;
        gca_check_random(&p, 8, -1, 1.5);
        snprintf(name, sizeof name, "copied_in_branch n=%d", c.n);
        p.nin = c.n, p.nout = 1, p.f = cb_w, p.fwd = cb_fwd, p.rev = cb_rev;
        gca_check_random(&p, 8, -2, 2);
    }
    snprintf(name, sizeof name, "choose_output");
    p.nin = 1, p.nout = 2, p.f = co_w, p.fwd = co_fwd, p.rev = co_rev;
    gca_check_random(&p, 8, -2, 2);
    snprintf(name, sizeof name, "output_in_branch");
    p.nin = 4, p.nout = 3, p.f = ob_w, p.fwd = ob_fwd, p.rev = ob_rev;
    gca_check_random(&p, 8, -2, 2);
    return gc_summary();
}
