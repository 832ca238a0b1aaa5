/* jumps.c: end-to-end test of `continue`, `break` and `return` in `for`
 * loops: a sum
 * that skips elements, a fold that skips part of its body, a Newton solve
 * that stops on a tolerance (the derivative is that of the iterations it
 * ran), a search that breaks on a threshold, and break and continue in
 * nested loops and nested branches. */
#include <math.h>

#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
double positive_sumsq(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        if (x[i] < 0)
            continue;
        s += x[i] * x[i];
    }
    return s;
}

CHAD_DIFFERENTIABLE
double damped(const double *x, int n, double a) {
    double p = a;
    for (int i = 0; i < n; i++) {
        double t = x[i] * p;
        if (t > 1) {
            p = p * 0.5;
            continue;
        }
        p = p + t;
    }
    return p;
}

/* sqrt(a) by Newton's method, stopping when the step is small: the
 * derivative is that of the iterations run, which converges to
 * 1 / (2 sqrt(a)). */
CHAD_DIFFERENTIABLE
double newton_sqrt(double a) {
    double x = a > 1 ? a : 1;
    for (int it = 0; it < 100; it++) {
        double step = (x * x - a) / (2 * x);
        x = x - step;
        if (fabs(step) < 1e-12 * x)
            break;
    }
    return x;
}

/* Adds terms until the running sum passes a threshold. */
CHAD_DIFFERENTIABLE
double until_threshold(const double *x, int n, double limit) {
    double s = 0, last = 0;
    for (int i = 0; i < n; i++) {
        last = x[i] * x[i];
        s += last;
        if (s > limit)
            break;
    }
    return s + 0.5 * last;
}

/* break and continue of an inner loop, under nested branches. */
CHAD_DIFFERENTIABLE
double nested_jumps(const double *x, int n) {
    double total = 0;
    for (int i = 0; i < n; i++) {
        double row = 0;
        for (int j = 0; j < n; j++) {
            if (j == i)
                continue;
            if (x[j] > 1.5) {
                if (row > 0)
                    break;
            }
            row += x[i] * x[j];
        }
        total += sin(row);
    }
    return total;
}

/* return from inside a loop: the first element past a threshold decides */
CHAD_DIFFERENTIABLE
double first_above(const double *x, int n, double t) {
    double acc = 1;
    for (int i = 0; i < n; i++) {
        acc *= 1 + 0.1 * x[i];
        if (x[i] > t)
            return acc * x[i];
    }
    return -acc;
}

/* return from an inner loop, through the outer one */
CHAD_DIFFERENTIABLE
double nested_return(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            s += x[i] * x[j];
            if (s > 3)
                return s * s;
        }
        s *= 0.9;
    }
    return s;
}

GC_WRAP1(newton_sqrt)

/* A loop that may return, then a loop making a small array from tanh(v)
 * that the return value takes too: the reverse of the branch after the
 * return shares its tanh(v) with the primal, where it is not yet bound in
 * the loop (gen seed 51851, refused with an internal error before). */
CHAD_DIFFERENTIABLE
double return_then_table(const double *x, int n) {
    for (int i = 0; i < n; i++)
        if (x[i] > 1.4)
            return x[i] * x[i];
    double v = 0.5 * x[n - 1], s = 0.5;
    double t[3];
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++)
            t[k] = acos(0.5 * tanh(v)) * x[i] + 0.25 * k;
        s += t[0] * t[2] + t[1];
    }
    return tanh(v) - s;
}

struct ctx { int n; double limit; };
#define N(c) (((const struct ctx *)(c))->n)
#define L(c) (((const struct ctx *)(c))->limit)
static void ps_w(const double *x, double *y, void *c) { y[0] = positive_sumsq(x, N(c)); }
static void ps_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = positive_sumsq_fwd(x, dx, N(c), &dy[0]);
}
static void ps_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = positive_sumsq_rev(x, xb, N(c), yb[0]);
}
/* x = (x[0..n), a) */
static void dm_w(const double *x, double *y, void *c) { y[0] = damped(x, N(c), x[N(c)]); }
static void dm_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = damped_fwd(x, dx, N(c), x[N(c)], dx[N(c)], &dy[0]);
}
static void dm_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = damped_rev(x, xb, N(c), x[N(c)], &xb[N(c)], yb[0]);
}
static void ut_w(const double *x, double *y, void *c) { y[0] = until_threshold(x, N(c), L(c)); }
static void ut_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    double dl = 0;
    y[0] = until_threshold_fwd(x, dx, N(c), L(c), dl, &dy[0]);
}
static void ut_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    double lb = 0;
    y[0] = until_threshold_rev(x, xb, N(c), L(c), &lb, yb[0]);
}
static void nj_w(const double *x, double *y, void *c) { y[0] = nested_jumps(x, N(c)); }
static void nj_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = nested_jumps_fwd(x, dx, N(c), &dy[0]);
}
static void nj_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = nested_jumps_rev(x, xb, N(c), yb[0]);
}

static void fa_w(const double *x, double *y, void *c) { y[0] = first_above(x, N(c), 0.5); }
static void fa_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = first_above_fwd(x, dx, N(c), 0.5, 0, &dy[0]);
}
static void fa_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    double tb = 0;
    y[0] = first_above_rev(x, xb, N(c), 0.5, &tb, yb[0]);
}
static void nr_w(const double *x, double *y, void *c) { y[0] = nested_return(x, N(c)); }
static void nr_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = nested_return_fwd(x, dx, N(c), &dy[0]);
}
static void nr_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = nested_return_rev(x, xb, N(c), yb[0]);
}

static void rt_w(const double *x, double *y, void *c) { y[0] = return_then_table(x, N(c)); }
static void rt_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = return_then_table_fwd(x, dx, N(c), &dy[0]);
}
static void rt_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = return_then_table_rev(x, xb, N(c), yb[0]);
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
    static const int sizes[] = {1, 3, 8};
    for (unsigned k = 0; k < 3; k++) {
        struct ctx c = {sizes[k], 2.5};
        int n = c.n;
        check("positive_sumsq", &c, n, ps_w, ps_wfwd, ps_wrev, -2, 2);
        check("damped", &c, n + 1, dm_w, dm_wfwd, dm_wrev, -1, 1);
        check("until_threshold", &c, n, ut_w, ut_wfwd, ut_wrev, -1.5, 1.5);
        check("nested_jumps", &c, n, nj_w, nj_wfwd, nj_wrev, -1, 2);
        check("first_above", &c, n, fa_w, fa_wfwd, fa_wrev, -1, 1);
        check("nested_return", &c, n, nr_w, nr_wfwd, nr_wrev, -1.5, 1.5);
        check("return_then_table", &c, n, rt_w, rt_wfwd, rt_wrev, -1.5, 1.5);
    }
    GC_CHECK(newton_sqrt, 1, 2.0, 0.25, 9.0, 1e4);
    {   /* the derivative of the converged iteration is 1 / (2 sqrt(a)) */
        double g = 0, v = newton_sqrt_rev(2.0, &g, 1.0);
        gc_expect(fabs(v - sqrt(2.0)) < 1e-15 && fabs(g - 0.5 / sqrt(2.0)) < 1e-12,
                  "newton_sqrt", "value or derivative at 2 is not sqrt's");
    }
    return gc_summary();
}
