/* loop_conjunctions.c: for loops whose condition joins a bound with other
 * tests by `&&` (`i < n && i < cap`, `i < n && x[i] > 0`, `ok && i < n`
 * with `ok` set in the body, a downward loop stopping on a tolerance, an
 * inner loop bounded twice inside an accumulating outer loop, an array
 * written in such a loop), and the counter of a loop that breaks read
 * after it (piecewise-linear interpolation finding its interval by
 * `for (k = 0; k < n - 2 && x > xs[k + 1]; k++);`, and a `break` in the
 * body). The loop runs while every part holds, as in C: the derivative is
 * that of the iterations it ran. Checked against finite
 * differences, by forward / reverse duality and for accumulation. */
#include <math.h>
#include <stddef.h>
#include "chad.h"
#include "gradcheck.h"

/* two bounds on one counter */
CHAD_DIFFERENTIABLE
double capped(const double *x, int n, double a) {
    double s = 0;
    int cap = 3;
    for (int i = 0; i < n && i < cap; i++)
        s += a * x[i] * x[i];
    return s;
}

/* stops at the first element that is not positive */
CHAD_DIFFERENTIABLE
double positive_prefix(const double *x, int n, double a) {
    double s = a;
    for (int i = 0; i < n && x[i] > 0; i++)
        s += sin(a * x[i]);
    return s;
}

/* the bound second, the first part set in the body */
CHAD_DIFFERENTIABLE
double until_large(const double *x, int n, double a) {
    double s = 0;
    int ok = 1;
    for (int i = 0; ok && i < n; i++) {
        s += x[i] * x[i] + a;
        ok = s < 2.0;
    }
    return s * a;
}

/* downward, carried product, stopping on a tolerance */
CHAD_DIFFERENTIABLE
double shrink(const double *x, int n, double a) {
    double w = 1 + a * a;
    for (int i = n - 1; i >= 0 && w > 0.05; i--)
        w *= 0.5 * tanh(x[i] + a) + 0.3;
    return w;
}

/* an inner loop bounded twice, inside an outer loop that accumulates */
CHAD_DIFFERENTIABLE
double triangle(const double *x, int n, double a) {
    double s = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n && j <= i; j++)
            s += x[i] * x[j] * a;
    return s;
}

/* a local array written in such a loop, then read */
CHAD_DIFFERENTIABLE
double written(const double *x, int n, double a) {
    double t[8];
    for (int i = 0; i < 8; i++)
        t[i] = a;
    for (unsigned i = 0; i < (unsigned)n && i < 6u; i++)
        t[i] = t[i] * x[i] + exp(0.25 * x[i]);
    double s = 0;
    for (int i = 0; i < 8; i++)
        s += t[i] * t[i];
    return s;
}

/* the interval by a loop with an empty body, its counter used after it */
CHAD_DIFFERENTIABLE
double interp(const double *xs, const double *ys, int n, double x) {
    int k;
    for (k = 0; k < n - 2 && x > xs[k + 1]; k++)
        ;
    double t = (x - xs[k]) / (xs[k + 1] - xs[k]);
    return ys[k] + t * (ys[k + 1] - ys[k]);
}

/* the counter where a break left it, or n */
CHAD_DIFFERENTIABLE
double until_one(const double *x, int n, double a) {
    int i;
    double s = 0;
    for (i = 0; i < n; i++) {
        s += x[i] * a;
        if (s > 1.0)
            break;
    }
    return s + i * a + (i < n ? x[i] * x[i] : 0);
}


/* xs[k] = k + 0.3 x[k] (increasing), ys = x[n..2n), the point x[2n] + 2 */
enum { NI = 5 };
static void interp_w(const double *x, double *y, void *c) {
    double xs[NI];
    (void)c;
    for (int k = 0; k < NI; k++)
        xs[k] = k + 0.3 * x[k];
    y[0] = interp(xs, x + NI, NI, x[2 * NI] + 2);
}
static void interp_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    double xs[NI], dxs[NI];
    (void)c;
    for (int k = 0; k < NI; k++)
        xs[k] = k + 0.3 * x[k], dxs[k] = 0.3 * dx[k];
    y[0] = interp_fwd(xs, dxs, x + NI, dx + NI, NI, x[2 * NI] + 2, dx[2 * NI], &dy[0]);
}
static void interp_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    double xs[NI], xsb[NI] = {0};
    (void)c;
    for (int k = 0; k < NI; k++)
        xs[k] = k + 0.3 * x[k];
    y[0] = interp_rev(xs, xsb, x + NI, xb + NI, NI, x[2 * NI] + 2, &xb[2 * NI], yb[0]);
    for (int k = 0; k < NI; k++)
        xb[k] += 0.3 * xsb[k];
}

GCA_WRAP_XNA(capped)
GCA_WRAP_XNA(positive_prefix)
GCA_WRAP_XNA(until_large)
GCA_WRAP_XNA(shrink)
GCA_WRAP_XNA(triangle)
GCA_WRAP_XNA(written)
GCA_WRAP_XNA(until_one)

int main(void) {
    static const int sizes[] = {0, 1, 2, 5, 7};
    struct gca_n c;
    struct gca_problem p = {0};
    p.ctx = &c, p.prec = GC_DOUBLE, p.nout = 1;
#define RUN(fn, what)                                                                  \
    p.name = what, p.f = fn##_w, p.fwd = fn##_wfwd, p.rev = fn##_wrev;                  \
    gca_check_random(&p, 4, -1.5, 1.5)
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        c.n = sizes[s];
        p.nin = c.n + 1;
        RUN(capped, "i < n && i < cap");
        RUN(positive_prefix, "i < n && x[i] > 0");
        RUN(until_large, "ok && i < n, ok set in the body");
        RUN(shrink, "downward, i >= 0 && w > tol");
        RUN(triangle, "inner j < n && j <= i in an accumulating loop");
        RUN(written, "a local array written while i < n && i < 6");
        RUN(until_one, "the counter where a break left it, read after the loop");
    }
    c.n = NI;
    p.nin = 2 * NI + 1;
    for (int k = 0; k < 9; k++) { /* 36 points: the intervals all get some */
        RUN(interp, "interpolation: the interval found by a for loop with &&");
    }
    return gc_summary();
}
