/* while_loops.c: end-to-end test of `while` and `do ... while` loops, whose
 * trip count is known only when they stop: a Newton solve with `while`
 * that stops on a tolerance and with `break`, a fixed-point iteration with
 * `do`, a loop that may run no step, conditions with effects (`n--`),
 * `continue` (which goes to the condition), `return` from inside, a while
 * nested in a for loop and a for loop nested in a while, and unsigned
 * counters of any width, and loops left by `break` that call a callee
 * given an array. The derivative is that of the steps that ran. */
#include <math.h>
#include <stddef.h>

#include "chad.h"
#include "gradcheck.h"

/* sqrt(a) by Newton's method until the step is small. */
CHAD_DIFFERENTIABLE
double newton_while(double a) {
    double x = a > 1 ? a : 1, step = 1;
    while (fabs(step) > 1e-13 * x) {
        step = (x * x - a) / (2 * x);
        x -= step;
    }
    return x;
}

/* The same with an endless loop left by `break`, and a step budget. */
CHAD_DIFFERENTIABLE
double newton_break(double a) {
    double x = a > 1 ? a : 1;
    unsigned it = 0;
    while (1) {
        double step = (x * x - a) / (2 * x);
        x = x - step;
        it++;
        if (fabs(step) < 1e-13 * x || it == 60u)
            break;
    }
    return x * it;
}

/* x = cos(x) + p by a do loop: the fixed point of a contraction. */
CHAD_DIFFERENTIABLE
double fixed_point(double p) {
    double x = 0, prev;
    do {
        prev = x;
        x = 0.5 * cos(x) + p;
    } while (fabs(x - prev) > 1e-14);
    return x;
}

/* Halves x until it drops below lim: may run no step at all. */
CHAD_DIFFERENTIABLE
double halve_below(double x, double lim) {
    double w = 1;
    while (x > lim) {
        x *= 0.5;
        w = w * (1 + x);
    }
    return x + w;
}

/* A condition with an effect: n counts down as the loop runs; the
 * counter ends at -1 (the failing test decrements it too). */
CHAD_DIFFERENTIABLE
double countdown(const double *x, int n) {
    double s = 0;
    int i = n;
    while (i-- > 0)
        s = s * 0.5 + x[i] * x[i];
    return s + i;
}

/* continue goes to the condition; unsigned long counter. */
CHAD_DIFFERENTIABLE
double skip_negative(const double *x, unsigned long n) {
    double s = 0;
    unsigned long k = 0;
    while (k < n) {
        double v = x[k++];
        if (v < 0)
            continue;
        s += sin(v) * v;
    }
    return s;
}

/* return from inside a do loop */
CHAD_DIFFERENTIABLE
double first_big(const double *x, int n, double t) {
    int i = 0;
    double acc = 1;
    do {
        acc = acc * (1 + 0.25 * x[i]);
        if (acc > t)
            return acc * x[i];
        i++;
    } while (i < n);
    return -acc;
}

/* a while in a for loop: each element is reduced by its own number of
 * halvings */
CHAD_DIFFERENTIABLE
double reduce_each(const double *x, int n) {
    double total = 0;
    for (int i = 0; i < n; i++) {
        double v = x[i] * x[i] + 1;
        while (v > 2)
            v = sqrt(v) * 0.9;
        total += v * x[i];
    }
    return total;
}

/* a for loop in a while: passes over the data until the norm is small */
CHAD_DIFFERENTIABLE
double shrink_passes(const double *x, int n, double tol) {
    double scale = 1, norm = 0;
    short passes = 0;
    do {
        norm = 0;
        for (int i = 0; i < n; i++)
            norm += (scale * x[i]) * (scale * x[i]);
        scale *= 0.75;
        passes++;
    } while (norm > tol && passes < 50);
    return norm + scale;
}

/* float */
CHAD_DIFFERENTIABLE
float halve_f(float x) {
    float w = 0;
    while (x > 1.0f) {
        x = x * 0.5f;
        w += x;
    }
    return w * x;
}

GC_WRAP1(newton_while)
GC_WRAP1(newton_break)
GC_WRAP1(fixed_point)
GC_WRAP2(halve_below)
GC_WRAPF1(halve_f)

/* A loop left by `break` (and one bounded by `&&`, which lowers the same
 * way: a done flag and a branch) calling a callee given an array: the
 * callee's derivative sits in a branch of a step that stores (gen seed
 * 255990: a zero gradient, DESIGN 8.81). */
CHAD_DIFFERENTIABLE
double sumsq(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] * x[i];
    return s;
}
CHAD_DIFFERENTIABLE
double break_call(const double *x, int n) {
    double v = 0;
    for (int i = 0; i < n; i++) {
        if (i >= 3)
            break;
        v += x[i] * sumsq(x + 1, n - 1);
    }
    return v;
}
CHAD_DIFFERENTIABLE
double and_bound_call(const double *x, int n) {
    double v = 0;
    for (int i = 0; i < n && i < 3; i++)
        v += sumsq(&x[1], n - 1);
    return v;
}

struct ctx { int n; double t; };
#define N(c) (((const struct ctx *)(c))->n)
#define T(c) (((const struct ctx *)(c))->t)
static void cd_w(const double *x, double *y, void *c) { y[0] = countdown(x, N(c)); }
static void cd_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = countdown_fwd(x, dx, N(c), &dy[0]);
}
static void cd_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = countdown_rev(x, xb, N(c), yb[0]);
}
static void sn_w(const double *x, double *y, void *c) { y[0] = skip_negative(x, (unsigned long)N(c)); }
static void sn_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = skip_negative_fwd(x, dx, (unsigned long)N(c), &dy[0]);
}
static void sn_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = skip_negative_rev(x, xb, (unsigned long)N(c), yb[0]);
}
static void fb_w(const double *x, double *y, void *c) { y[0] = first_big(x, N(c), T(c)); }
static void fb_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = first_big_fwd(x, dx, N(c), T(c), 0, &dy[0]);
}
static void fb_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    double tb = 0;
    y[0] = first_big_rev(x, xb, N(c), T(c), &tb, yb[0]);
}
static void bc_w(const double *x, double *y, void *c) { y[0] = break_call(x, N(c)); }
static void bc_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = break_call_fwd(x, dx, N(c), &dy[0]);
}
static void bc_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = break_call_rev(x, xb, N(c), yb[0]);
}
static void ab_w(const double *x, double *y, void *c) { y[0] = and_bound_call(x, N(c)); }
static void ab_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = and_bound_call_fwd(x, dx, N(c), &dy[0]);
}
static void ab_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = and_bound_call_rev(x, xb, N(c), yb[0]);
}
static void re_w(const double *x, double *y, void *c) { y[0] = reduce_each(x, N(c)); }
static void re_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = reduce_each_fwd(x, dx, N(c), &dy[0]);
}
static void re_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = reduce_each_rev(x, xb, N(c), yb[0]);
}
/* x = (x[0..n), tol) */
static void sp_w(const double *x, double *y, void *c) { y[0] = shrink_passes(x, N(c), x[N(c)]); }
static void sp_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = shrink_passes_fwd(x, dx, N(c), x[N(c)], dx[N(c)], &dy[0]);
}
static void sp_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = shrink_passes_rev(x, xb, N(c), x[N(c)], &xb[N(c)], yb[0]);
}

static void check(const char *what, struct ctx *c, int nin, gca_fn f, gca_fwd_fn fwd, gca_rev_fn rev,
                  double lo, double hi) {
    char name[64];
    struct gca_problem p = {0};
    snprintf(name, sizeof name, "%s n=%d", what, c->n);
    p.name = name, p.ctx = c, p.nin = nin, p.nout = 1, p.f = f, p.fwd = fwd, p.rev = rev;
    gca_check_random(&p, 4, lo, hi);
}

int main(void) {
    GC_CHECK(newton_while, 1, 2.0, 0.25, 9.0, 1e4);
    GC_CHECK(newton_break, 1, 2.0, 0.25, 9.0, 1e4);
    GC_CHECK(fixed_point, 1, 0.3, -1.0, 2.5);
    GC_CHECK(halve_below, 2, 40.0, 1.5, 1.0, 1.5, 7.3, 0.8);
    GC_CHECKF(halve_f, 1, 0.5, 3.3, 41.0);
    {   /* Newton's derivative converges to sqrt's */
        double g = 0, v = newton_while_rev(2.0, &g, 1.0);
        gc_expect(fabs(v - sqrt(2.0)) < 1e-15 && fabs(g - 0.5 / sqrt(2.0)) < 1e-12,
                  "newton_while", "value or derivative at 2 is not sqrt's");
    }
    {   /* x = cos(x)/2 + p: dx/dp = 1 / (1 + sin(x)/2) */
        double g = 0, v = fixed_point_rev(0.3, &g, 1.0);
        gc_expect(fabs(g - 1 / (1 + 0.5 * sin(v))) < 1e-10, "fixed_point",
                  "derivative is not the implicit function's");
    }
    static const int sizes[] = {1, 3, 8};
    for (unsigned k = 0; k < 3; k++) {
        struct ctx c = {sizes[k], 1.4};
        int n = c.n;
        check("countdown", &c, n, cd_w, cd_wfwd, cd_wrev, -2, 2);
        check("skip_negative", &c, n, sn_w, sn_wfwd, sn_wrev, -2, 2);
        check("first_big", &c, n, fb_w, fb_wfwd, fb_wrev, -1, 2);
        check("reduce_each", &c, n, re_w, re_wfwd, re_wrev, -3, 3);
        check("break_call", &c, n, bc_w, bc_wfwd, bc_wrev, -2, 2);
        check("and_bound_call", &c, n, ab_w, ab_wfwd, ab_wrev, -2, 2);
        check("shrink_passes", &c, n + 1, sp_w, sp_wfwd, sp_wrev, 0.1, 1.5);
    }
    return gc_summary();
}
