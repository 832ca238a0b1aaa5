/* side_effects.c: end-to-end test of C's effects inside expressions:
 * assignments and compound assignments as values (`f -= (p = pow(p, 0.2))`,
 * `a = b = x`), ++ and -- anywhere (`x[i++]`, `k = n--`), the comma
 * operator, effects in declarations, in `if` conditions, in return values,
 * and inside loops, where an accumulator used as a value is carried state. */
#include <math.h>

#include "chad.h"
#include "gradcheck.h"

/* From an optimisation test suite: a value assigned inside a compound
 * assignment. */
CHAD_DIFFERENTIABLE
double chained_pow(double x, double y) {
    double f = x * y, p = x * x + 1;
    f -= (p = pow(p, 0.2));
    f += (p *= y);
    return f + p;
}

/* a = b = e, and a value of an assignment used twice. */
CHAD_DIFFERENTIABLE
double multi_assign(double x, double y) {
    double a, b, c;
    a = b = x * y;
    c = (a += y) * (b -= x);
    return a * b + c;
}

/* ++ and -- inside expressions: indices, values and comparisons. */
CHAD_DIFFERENTIABLE
double incdec(const double *v, int n) {
    int i = 0, k = n;
    double s = v[i++] * 2;      /* v[0], then i = 1 */
    s += v[i++] * v[--k];       /* v[1] * v[n-1] */
    s += v[++i] * (double)(k--); /* v[3] * (n - 1) */
    return s + v[i] * k;        /* v[3] * (n - 2) */
}

/* The comma operator, and effects in declarations and conditions. */
CHAD_DIFFERENTIABLE
double comma_and_conditions(double x, double y) {
    double t, u = (t = x * y, t * t);
    double r = 0;
    if ((t = sin(x) + y) > 0.5)
        r = t * u;
    else
        r = t - u;
    return (r += t, r * y);
}

/* Inside loops: a running sum used as a value is carried state, and an
 * index bumped inside an expression. */
CHAD_DIFFERENTIABLE
double loop_effects(const double *a, int n) {
    double s = 0, m = 0;
    int j = 0;
    for (int i = 0; i < n; i++) {
        m += (s += a[i]) * a[j++];
        if ((s *= 0.9) > 2)
            m -= s;
    }
    return m + s + j;
}

/* A return value with an effect. */
CHAD_DIFFERENTIABLE
double return_effect(double x) {
    double y = x * 3;
    return y *= x;
}

GC_WRAP2(chained_pow)
GC_WRAP2(multi_assign)
GC_WRAP2(comma_and_conditions)
GC_WRAP1(return_effect)

struct ctx { int n; };
#define N(c) (((const struct ctx *)(c))->n)
static void id_w(const double *x, double *y, void *c) { y[0] = incdec(x, N(c)); }
static void id_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = incdec_fwd(x, dx, N(c), &dy[0]);
}
static void id_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = incdec_rev(x, xb, N(c), yb[0]);
}
static void le_w(const double *x, double *y, void *c) { y[0] = loop_effects(x, N(c)); }
static void le_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = loop_effects_fwd(x, dx, N(c), &dy[0]);
}
static void le_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = loop_effects_rev(x, xb, N(c), yb[0]);
}

int main(void) {
    GC_CHECK(chained_pow, 2, 1.5, 0.7, -0.75, 1.3, 0.25, -2.0);
    GC_CHECK(multi_assign, 2, 1.5, 0.7, -0.75, 1.3, 0.25, -2.0);
    GC_CHECK(comma_and_conditions, 2, 1.5, 0.7, -0.75, 1.3, 0.25, -2.0);
    GC_CHECK(return_effect, 1, 1.5, -0.75, 0.25);
    {   /* the values C gives, checked against the primal's own reading */
        double v[5] = {1, 2, 3, 4, 5};
        gc_expect(incdec(v, 5) == 1 * 2 + 2 * 5 + 4 * 4 + 4 * 3, "incdec", "value differs from C's");
    }
    for (int n = 4; n <= 9; n += 5) {
        struct ctx c = {n};
        struct gca_problem p = {0};
        char name[64];
        p.ctx = &c, p.name = name, p.nout = 1, p.nin = n;
        snprintf(name, sizeof name, "incdec n=%d", n);
        p.f = id_w, p.fwd = id_wfwd, p.rev = id_wrev;
        gca_check_random(&p, 3, -2, 2);
        snprintf(name, sizeof name, "loop_effects n=%d", n);
        p.f = le_w, p.fwd = le_wfwd, p.rev = le_wrev;
        gca_check_random(&p, 3, -1, 1.5);
    }
    return gc_summary();
}
