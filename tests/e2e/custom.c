/* custom.c: end-to-end test of CHAD_CUSTOM functions, whose derivatives are
 * written by hand to the contract of DESIGN.md section 1 and called from
 * chad's: scalar custom functions (one and two active arguments, a constant
 * argument), an integer and a CHAD_INACTIVE parameter, custom kernels on
 * const arrays (a dot product, a norm, one with an inactive data array, the
 * same array passed twice, a local array computed by the caller), calls
 * inside loops (a sum, a fold, an output array built element-wise), in the
 * branches of an if, through a differentiable callee (its split halves), a
 * static custom function, and the float forms. The custom functions and their g_fwd/g_rev are only declared
 * before the differentiable functions: the definitions come at the end of
 * the file, as a library's would live in another one. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

/* ---------------------------------------------- the user's declarations */

CHAD_CUSTOM double softplus(double x);
double softplus_fwd(double x, double dx, double *d_ret);
double softplus_rev(double x, double *x_b, double ret_b);

CHAD_CUSTOM double mypow(double x, double y); /* x^y for x > 0 */
double mypow_fwd(double x, double dx, double y, double dy, double *d_ret);
double mypow_rev(double x, double *x_b, double y, double *y_b, double ret_b);

/* c x^k: k is an integer (inactive), c is marked inactive (a constant of
 * the map: callers pass data there). Unnamed parameters in the prototype. */
CHAD_CUSTOM double scaled(double, int, CHAD_INACTIVE double);
double scaled_fwd(double x, double dx, int k, double c, double *d_ret);
double scaled_rev(double x, double *x_b, int k, double c, double ret_b);

CHAD_CUSTOM double dotk(const double *a, const double *b, int n);
double dotk_fwd(const double *a, const double *da, const double *b, const double *db, int n,
                double *d_ret);
double dotk_rev(const double *a, double *a_b, const double *b, double *b_b, int n, double ret_b);

/* sqrt(sum a_i^2 + 1), an array declared with its length */
CHAD_CUSTOM double norm1p(const double a[], int n);
double norm1p_fwd(const double *a, const double *da, int n, double *d_ret);
double norm1p_rev(const double *a, double *a_b, int n, double ret_b);

/* sum w_i a_i^2 with the weights w inactive: no shadow */
CHAD_CUSTOM double wsq(const double *a, CHAD_INACTIVE const double *w, int n);
double wsq_fwd(const double *a, const double *da, const double *w, int n, double *d_ret);
double wsq_rev(const double *a, double *a_b, const double *w, int n, double ret_b);

CHAD_CUSTOM float softplusf(float x);
float softplusf_fwd(float x, float dx, float *d_ret);
float softplusf_rev(float x, float *x_b, float ret_b);

/* a static one, defined in this file: its derivatives are static too */
CHAD_CUSTOM static double cube(double x);
static double cube_fwd(double x, double dx, double *d_ret);
static double cube_rev(double x, double *x_b, double ret_b);

/* ------------------------------------------- differentiable functions */

CHAD_DIFFERENTIABLE
double scalars(double x, double y) {
    return softplus(x * y) + mypow(x * x + 1, y) * softplus(2.0) - cube(x - y);
}

CHAD_DIFFERENTIABLE
double inactive_args(double x, CHAD_INACTIVE double c, int k) {
    return scaled(x, k, c) + scaled(sin(x), 2, 1.5) * x;
}

/* fan-out: one result used twice, and the same call twice (CSE may merge
 * the primal calls; the reverse must count both) */
CHAD_DIFFERENTIABLE
double fanout(double x) {
    double s = softplus(x);
    return s * s + softplus(x) + softplus(x * 0.5);
}

CHAD_DIFFERENTIABLE
double in_loop(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += softplus(x[i]) * x[i];
    return s;
}

/* carried state through a custom call */
CHAD_DIFFERENTIABLE
double in_fold(double x, int n) {
    double s = x;
    for (int i = 0; i < n; i++)
        s = softplus(s) - 0.5 * s;
    return s;
}

CHAD_DIFFERENTIABLE
double arrays(const double *a, const double *b, int n, double t) {
    return t * dotk(a, b, n) + norm1p(a, n) + dotk(a, a, n);
}

/* a kernel called in a loop with carried state */
CHAD_DIFFERENTIABLE
double arrays_loop(const double *a, const double *b, int n, double t) {
    double s = 0;
    for (int k = 0; k < 3; k++)
        s = s * t + dotk(a, b, n) * norm1p(b, n);
    return s;
}

/* a local array the caller computes: its buffer is chad's */
CHAD_DIFFERENTIABLE
double local_array(const double *x, int n) {
    double y[16];
    for (int i = 0; i < n; i++)
        y[i] = x[i] * x[i] - x[i];
    return norm1p(y, n) * x[0];
}

/* its halves, from a caller: the local array is recomputed for g_rev */
CHAD_DIFFERENTIABLE
double via_local(const double *x, int n, double t) { return t * local_array(x, n) + t; }

CHAD_DIFFERENTIABLE
double weighted(const double *a, CHAD_INACTIVE const double *w, int n) {
    return wsq(a, w, n) + softplus(a[0]);
}

/* through a differentiable callee: the caller uses its halves */
CHAD_DIFFERENTIABLE
double inner(double x, const double *a, int n) { return softplus(x) * norm1p(a, n); }

CHAD_DIFFERENTIABLE
double outer(double x, double y, const double *a, int n) {
    return inner(x * y, a, n) + inner(y, a, n) * x;
}

CHAD_DIFFERENTIABLE
float floats(float x, float y) { return softplusf(x * y) + softplusf(x) * y; }

/* custom calls in the branches of an if */
CHAD_DIFFERENTIABLE
double branches(double x, double y) {
    double r;
    if (x > 0)
        r = softplus(x * y) * cube(y);
    else
        r = mypow(x * x + 1, y) + softplus(y);
    return r * x;
}

/* an output array built element by element from custom calls */
CHAD_DIFFERENTIABLE
void activate(const double *x, double *y, int n, double t) {
    for (int i = 0; i < n; i++)
        y[i] = softplus(t * x[i]) + scaled(x[i], 2, 0.5);
}

/* ----------------------------------------- the hand-written derivatives */

double softplus(double x) { return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)); }
static double sigmoid(double x) { return 1 / (1 + exp(-x)); }
double softplus_fwd(double x, double dx, double *d_ret) {
    *d_ret = sigmoid(x) * dx;
    return softplus(x);
}
double softplus_rev(double x, double *x_b, double ret_b) {
    *x_b += sigmoid(x) * ret_b;
    return softplus(x);
}

double mypow(double x, double y) { return exp(y * log(x)); }
double mypow_fwd(double x, double dx, double y, double dy, double *d_ret) {
    double v = mypow(x, y);
    *d_ret = v * (y / x * dx + log(x) * dy);
    return v;
}
double mypow_rev(double x, double *x_b, double y, double *y_b, double ret_b) {
    double v = mypow(x, y);
    *x_b += v * y / x * ret_b;
    *y_b += v * log(x) * ret_b;
    return v;
}

double scaled(double x, int k, double c) {
    double p = 1;
    for (int i = 0; i < k; i++)
        p *= x;
    return c * p;
}
double scaled_fwd(double x, double dx, int k, double c, double *d_ret) {
    *d_ret = k ? c * k * scaled(x, k - 1, 1) * dx : 0;
    return scaled(x, k, c);
}
double scaled_rev(double x, double *x_b, int k, double c, double ret_b) {
    if (k)
        *x_b += c * k * scaled(x, k - 1, 1) * ret_b;
    return scaled(x, k, c);
}

double dotk(const double *a, const double *b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}
double dotk_fwd(const double *a, const double *da, const double *b, const double *db, int n,
                double *d_ret) {
    *d_ret = dotk(da, b, n) + dotk(a, db, n);
    return dotk(a, b, n);
}
double dotk_rev(const double *a, double *a_b, const double *b, double *b_b, int n, double ret_b) {
    for (int i = 0; i < n; i++) {
        a_b[i] += b[i] * ret_b;
        b_b[i] += a[i] * ret_b;
    }
    return dotk(a, b, n);
}

double norm1p(const double a[], int n) { return sqrt(dotk(a, a, n) + 1); }
double norm1p_fwd(const double *a, const double *da, int n, double *d_ret) {
    double v = norm1p(a, n);
    *d_ret = dotk(a, da, n) / v;
    return v;
}
double norm1p_rev(const double *a, double *a_b, int n, double ret_b) {
    double v = norm1p(a, n);
    for (int i = 0; i < n; i++)
        a_b[i] += a[i] / v * ret_b;
    return v;
}

double wsq(const double *a, const double *w, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += w[i] * a[i] * a[i];
    return s;
}
double wsq_fwd(const double *a, const double *da, const double *w, int n, double *d_ret) {
    double d = 0;
    for (int i = 0; i < n; i++)
        d += 2 * w[i] * a[i] * da[i];
    *d_ret = d;
    return wsq(a, w, n);
}
double wsq_rev(const double *a, double *a_b, const double *w, int n, double ret_b) {
    for (int i = 0; i < n; i++)
        a_b[i] += 2 * w[i] * a[i] * ret_b;
    return wsq(a, w, n);
}

float softplusf(float x) { return x > 0 ? x + log1pf(expf(-x)) : log1pf(expf(x)); }
float softplusf_fwd(float x, float dx, float *d_ret) {
    *d_ret = dx / (1 + expf(-x));
    return softplusf(x);
}
float softplusf_rev(float x, float *x_b, float ret_b) {
    *x_b += ret_b / (1 + expf(-x));
    return softplusf(x);
}

static double cube(double x) { return x * x * x; }
static double cube_fwd(double x, double dx, double *d_ret) {
    *d_ret = 3 * x * x * dx;
    return cube(x);
}
static double cube_rev(double x, double *x_b, double ret_b) {
    *x_b += 3 * x * x * ret_b;
    return cube(x);
}

/* --------------------------------------------------------------- checks */

GC_WRAP2(scalars)
GC_WRAP2(branches)
GC_WRAP1(fanout)
GC_WRAPF2(floats)

struct ctx { int n; double c; double w[16]; };
#define C(c) ((const struct ctx *)(c))

static double inactive_args_gc(const double *x, void *c) { return inactive_args(x[0], C(c)->c, C(c)->n); }
static double inactive_args_gc_fwd(const double *x, const double *d, double *r, void *c) {
    return inactive_args_fwd(x[0], d[0], C(c)->c, C(c)->n, r);
}
static double inactive_args_gc_rev(const double *x, double *b, double s, void *c) {
    return inactive_args_rev(x[0], &b[0], C(c)->c, C(c)->n, s);
}

static double in_fold_gc(const double *x, void *c) { return in_fold(x[0], C(c)->n); }
static double in_fold_gc_fwd(const double *x, const double *d, double *r, void *c) {
    return in_fold_fwd(x[0], d[0], C(c)->n, r);
}
static double in_fold_gc_rev(const double *x, double *b, double s, void *c) {
    return in_fold_rev(x[0], &b[0], C(c)->n, s);
}

/* x = (x[0..n)) */
static void in_loop_w(const double *x, double *y, void *c) { y[0] = in_loop(x, C(c)->n); }
static void in_loop_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = in_loop_fwd(x, dx, C(c)->n, &dy[0]);
}
static void in_loop_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = in_loop_rev(x, xb, C(c)->n, yb[0]);
}

/* x = (a, b, t) */
#define AB_WRAP(f)                                                                           \
    static void f##_w(const double *x, double *y, void *c) {                                 \
        int n = C(c)->n; y[0] = f(x, x + n, n, x[2 * n]); }                                   \
    static void f##_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) { \
        int n = C(c)->n;                                                                     \
        y[0] = f##_fwd(x, dx, x + n, dx + n, n, x[2 * n], dx[2 * n], &dy[0]); }               \
    static void f##_wrev(const double *x, double *xb, double *y, const double *yb, void *c) { \
        int n = C(c)->n;                                                                     \
        y[0] = f##_rev(x, xb, x + n, xb + n, n, x[2 * n], &xb[2 * n], yb[0]); }
AB_WRAP(arrays)
AB_WRAP(arrays_loop)

static void local_array_w(const double *x, double *y, void *c) { y[0] = local_array(x, C(c)->n); }
static void local_array_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = local_array_fwd(x, dx, C(c)->n, &dy[0]);
}
static void local_array_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = local_array_rev(x, xb, C(c)->n, yb[0]);
}

/* x = (x, t) */
static void via_local_w(const double *x, double *y, void *c) { y[0] = via_local(x, C(c)->n, x[C(c)->n]); }
static void via_local_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = C(c)->n;
    y[0] = via_local_fwd(x, dx, n, x[n], dx[n], &dy[0]);
}
static void via_local_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = C(c)->n;
    y[0] = via_local_rev(x, xb, n, x[n], &xb[n], yb[0]);
}

static void weighted_w(const double *x, double *y, void *c) { y[0] = weighted(x, C(c)->w, C(c)->n); }
static void weighted_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = weighted_fwd(x, dx, C(c)->w, C(c)->n, &dy[0]);
}
static void weighted_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = weighted_rev(x, xb, C(c)->w, C(c)->n, yb[0]);
}

/* x = (x, t), y = (y) */
static void activate_w(const double *x, double *y, void *c) { activate(x, y, C(c)->n, x[C(c)->n]); }
static void activate_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = C(c)->n;
    activate_fwd(x, dx, y, dy, n, x[n], dx[n]);
}
static void activate_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = C(c)->n;
    activate_rev(x, xb, y, yb, n, x[n], &xb[n]);
}

/* x = (x, y, a) */
static void outer_w(const double *x, double *y, void *c) { y[0] = outer(x[0], x[1], x + 2, C(c)->n); }
static void outer_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = outer_fwd(x[0], dx[0], x[1], dx[1], x + 2, dx + 2, C(c)->n, &dy[0]);
}
static void outer_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = outer_rev(x[0], &xb[0], x[1], &xb[1], x + 2, xb + 2, C(c)->n, yb[0]);
}

int main(void) {
    GC_CHECK(scalars, 2, 0.5, 1.5, -1.25, 0.75, 2.0, -0.5, 0.1, 3.0);
    GC_CHECK(fanout, 1, -3.0, -0.5, 0.0, 0.7, 4.0);
    GC_CHECK(branches, 2, 0.5, 1.5, -1.25, 0.75, 2.0, -0.5, -0.1, 3.0);
    GC_CHECKF(floats, 2, 0.5f, 1.5f, -1.25f, 0.75f, 2.0f, -0.5f);
    {
        static const int ks[] = {0, 1, 3};
        static const double xs[] = {-1.5, -0.2, 0.4, 1.3};
        for (unsigned i = 0; i < sizeof ks / sizeof ks[0]; i++) {
            struct ctx c = {ks[i], 0.75 + i, {0}};
            gc_check("inactive_args", 1, inactive_args_gc, inactive_args_gc_fwd,
                     inactive_args_gc_rev, &c, GC_DOUBLE, 4, xs);
            gc_check("in_fold", 1, in_fold_gc, in_fold_gc_fwd, in_fold_gc_rev, &c, GC_DOUBLE,
                     4, xs);
        }
    }
    static const int sizes[] = {1, 3, 8};
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        struct ctx c = {sizes[k], 0, {0}};
        char name[64];
        struct gca_problem p = {0};
        for (int i = 0; i < c.n; i++)
            c.w[i] = 0.5 + 0.25 * i;
        p.name = name, p.ctx = &c, p.nout = 1;
#define RUN(FN, NIN)                                                                         \
        snprintf(name, sizeof name, #FN " n=%d", c.n);                                      \
        p.nin = (NIN), p.f = FN##_w, p.fwd = FN##_wfwd, p.rev = FN##_wrev;                   \
        gca_check_random(&p, 3, -2, 2)
        RUN(in_loop, c.n);
        RUN(arrays, 2 * c.n + 1);
        RUN(arrays_loop, 2 * c.n + 1);
        RUN(local_array, c.n);
        RUN(via_local, c.n + 1);
        RUN(weighted, c.n);
        RUN(outer, c.n + 2);
        p.nout = c.n;
        RUN(activate, c.n + 1);
        p.nout = 1;
#undef RUN
    }
    return gc_summary();
}
