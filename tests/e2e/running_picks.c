/* running_picks.c: end-to-end test of loops keeping the last value a
 * condition picked (DESIGN 8.52: the loop carries the pick's index, its
 * derivatives carry nothing through it): ADBench's arr_max as written, in
 * float too, a running minimum of products and its mirrored spelling, the
 * last element above a threshold (a condition that does not read the
 * state), a maximum per row inside a loop, and two loops that are not
 * rewritten and must stay right: an argmax that also keeps the index
 * (a state of two values) and a running mean of the picks (the picked
 * value reads the state). */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

/* ADBench's gmm.c, as its authors wrote it */
CHAD_DIFFERENTIABLE
double arr_max(int n, double const *x) {
    int i;
    double m = x[0];
    for (i = 1; i < n; i++) {
        if (m < x[i]) {
            m = x[i];
        }
    }
    return m;
}

CHAD_DIFFERENTIABLE
float arr_maxf(int n, const float *x) {
    float m = x[0];
    for (int i = 1; i < n; i++)
        if (m < x[i])
            m = x[i];
    return m * m;
}

CHAD_DIFFERENTIABLE
double min_product(int n, const double *x, const double *w) {
    double m = 1e3;
    for (int i = 0; i < n; i++) {
        double v = x[i] * w[n - 1 - i];
        if (v < m)
            m = v;
    }
    return m * m + x[0];
}

CHAD_DIFFERENTIABLE
double min_mirrored(int n, const double *x) {
    double m = x[n - 1];
    for (int i = n - 2; i >= 0; i--)
        m = x[i] >= m ? m : x[i] + 0.5;
    return sin(m);
}

CHAD_DIFFERENTIABLE
double last_above(int n, const double *x) {
    double last = -1;
    for (int i = 0; i < n; i++)
        if (x[i] > 0.25)
            last = 2 * x[i] - x[0];
    return last * x[n - 1];
}

CHAD_DIFFERENTIABLE
double row_maxima(int n, const double *a) {
    double s = 0;
    for (int r = 0; r < n; r++) {
        double m = a[r * n];
        for (int c = 1; c < n; c++)
            if (a[r * n + c] > m)
                m = a[r * n + c];
        s += m * a[r];
    }
    return s;
}

CHAD_DIFFERENTIABLE
double argmax_weight(int n, const double *x, const double *w) {
    double m = x[0];
    int at = 0;
    for (int i = 1; i < n; i++)
        if (x[i] > m) {
            m = x[i];
            at = i;
        }
    return m * w[at];
}

CHAD_DIFFERENTIABLE
double running_mean(int n, const double *x) {
    double m = x[0];
    for (int i = 1; i < n; i++)
        if (m < x[i])
            m = 0.5 * (m + x[i]);
    return m;
}

struct ctx { int n; };
#define N(c) (((const struct ctx *)(c))->n)

/* f(n, x) with x the whole input */
#define WRAP_X(f)                                                                                     \
    static void f##_w(const double *x, double *y, void *c) { y[0] = f(N(c), x); }                     \
    static void f##_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {         \
        y[0] = f##_fwd(N(c), x, dx, &dy[0]);                                                          \
    }                                                                                                 \
    static void f##_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {         \
        y[0] = f##_rev(N(c), x, xb, yb[0]);                                                           \
    }
/* f(n, x, w) with x the input's first n elements, w the rest */
#define WRAP_XW(f)                                                                                    \
    static void f##_w(const double *x, double *y, void *c) { y[0] = f(N(c), x, x + N(c)); }           \
    static void f##_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {         \
        y[0] = f##_fwd(N(c), x, dx, x + N(c), dx + N(c), &dy[0]);                                     \
    }                                                                                                 \
    static void f##_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {         \
        y[0] = f##_rev(N(c), x, xb, x + N(c), xb + N(c), yb[0]);                                      \
    }
WRAP_X(arr_max)
WRAP_X(min_mirrored)
WRAP_X(last_above)
WRAP_X(row_maxima)
WRAP_X(running_mean)
WRAP_XW(min_product)
WRAP_XW(argmax_weight)

static void amf_w(const double *x, double *y, void *c) {
    float xf[GCA_MAX];
    gca_tof(xf, x, N(c));
    y[0] = arr_maxf(N(c), xf);
}
static void amf_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    float xf[GCA_MAX], dxf[GCA_MAX], d;
    gca_tof(xf, x, N(c)), gca_tof(dxf, dx, N(c));
    y[0] = arr_maxf_fwd(N(c), xf, dxf, &d);
    dy[0] = d;
}
static void amf_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    float xf[GCA_MAX], xbf[GCA_MAX];
    gca_tof(xf, x, N(c)), gca_tof(xbf, xb, N(c));
    y[0] = arr_maxf_rev(N(c), xf, xbf, (float)yb[0]);
    gca_tod(xb, xbf, N(c));
}

int main(void) {
    static const int sizes[] = {1, 2, 5, 12};
    char name[64];
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        struct ctx c = {sizes[k]};
        struct gca_problem p = {0};
        p.name = name, p.ctx = &c, p.nout = 1;
#define RUN(fn, len)                                                                                  \
    snprintf(name, sizeof name, #fn " n=%d", c.n);                                                    \
    p.nin = len, p.f = fn##_w, p.fwd = fn##_wfwd, p.rev = fn##_wrev, p.prec = GC_DOUBLE;              \
    gca_check_random(&p, 4, -2, 2)
        RUN(arr_max, c.n);
        RUN(min_mirrored, c.n);
        RUN(last_above, c.n);
        RUN(running_mean, c.n);
        RUN(min_product, 2 * c.n);
        RUN(argmax_weight, 2 * c.n);
        if (c.n * c.n <= GCA_MAX) {
            RUN(row_maxima, c.n * c.n);
        }
        snprintf(name, sizeof name, "arr_maxf n=%d", c.n);
        p.nin = c.n, p.f = amf_w, p.fwd = amf_wfwd, p.rev = amf_wrev, p.prec = GC_FLOAT;
        gca_check_random(&p, 4, -2, 2);
    }
    {   /* the maximum first, last, in the middle: its seed goes there only */
        static const double pts[3][5] = {{3, 1, 2, -1, 0.5}, {-1, 0, 1, 2, 3}, {0, 1, 4, 1, 0}};
        static const int at[3] = {0, 4, 2};
        for (int k = 0; k < 3; k++) {
            double xb[5] = {0.5, 0.5, 0.5, 0.5, 0.5}, v;
            int ok = 1;
            v = arr_max_rev(5, pts[k], xb, 2.0);
            for (int i = 0; i < 5; i++)
                ok = ok && xb[i] == (i == at[k] ? 2.5 : 0.5);
            gc_expect(v == pts[k][at[k]] && ok, "arr_max_rev at its maximum",
                      "the seed must be added at the maximum, and only there");
        }
    }
    return gc_summary();
}
