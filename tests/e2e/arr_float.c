/* arr_float.c: end-to-end test of float array functions: the dot product,
 * softmax into an output array and the ODE by time stepping, in float.
 * f_fwd and f_rev take float tangent arrays, adjoint arrays and seeds.
 * Checked with float tolerances through the double harness. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
float dotf(const float *a, const float *b, int n) {
    float s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

CHAD_DIFFERENTIABLE
void softmaxf(const float *x, float *y, int n) {
    float m = x[0];
    for (int i = 1; i < n; i++)
        if (x[i] > m)
            m = x[i];
    float s = 0;
    for (int i = 0; i < n; i++)
        s += expf(x[i] - m);
    for (int i = 0; i < n; i++)
        y[i] = expf(x[i] - m) / s;
}

CHAD_DIFFERENTIABLE
float odef(float x, float v, float h, float k, int steps) {
    for (int t = 0; t < steps; t++) {
        float a = x + h * v;
        float b = v - h * k * x;
        x = a;
        v = b;
    }
    return x + 0.5f * v;
}

#define MAXN 32
struct ctx { int n; };
#define N(c) (((const struct ctx *)(c))->n)

/* Each wrapper converts the double vectors of the harness to float and back
 * (exactly: the harness passes float-representable values in float mode). */
static void dot_w(const double *x, double *y, void *c) {
    float xf[2 * MAXN];
    gca_tof(xf, x, 2 * N(c));
    y[0] = dotf(xf, xf + N(c), N(c));
}
static void dot_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    float xf[2 * MAXN], dxf[2 * MAXN], d = NAN;
    gca_tof(xf, x, 2 * N(c));
    gca_tof(dxf, dx, 2 * N(c));
    y[0] = dotf_fwd(xf, dxf, xf + N(c), dxf + N(c), N(c), &d);
    dy[0] = d;
}
static void dot_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    float xf[2 * MAXN], xbf[2 * MAXN];
    gca_tof(xf, x, 2 * N(c));
    gca_tof(xbf, xb, 2 * N(c));
    y[0] = dotf_rev(xf, xbf, xf + N(c), xbf + N(c), N(c), (float)yb[0]);
    gca_tod(xb, xbf, 2 * N(c));
}

static void sm_w(const double *x, double *y, void *c) {
    float xf[MAXN], yf[MAXN];
    gca_tof(xf, x, N(c));
    gca_nanf(yf, N(c));
    softmaxf(xf, yf, N(c));
    gca_tod(y, yf, N(c));
}
static void sm_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    float xf[MAXN], dxf[MAXN], yf[MAXN], dyf[MAXN];
    gca_tof(xf, x, N(c));
    gca_tof(dxf, dx, N(c));
    gca_nanf(yf, N(c));
    gca_nanf(dyf, N(c));
    softmaxf_fwd(xf, dxf, yf, dyf, N(c));
    gca_tod(y, yf, N(c));
    gca_tod(dy, dyf, N(c));
}
static void sm_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    float xf[MAXN], xbf[MAXN], yf[MAXN], ybf[MAXN];
    gca_tof(xf, x, N(c));
    gca_tof(xbf, xb, N(c));
    gca_tof(ybf, yb, N(c));
    gca_nanf(yf, N(c));
    softmaxf_rev(xf, xbf, yf, ybf, N(c));
    gca_tod(y, yf, N(c));
    gca_tod(xb, xbf, N(c));
}

static void ode_w(const double *x, double *y, void *c) {
    y[0] = odef((float)x[0], (float)x[1], (float)x[2], (float)x[3], N(c));
}
static void ode_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    float d = NAN;
    y[0] = odef_fwd((float)x[0], (float)dx[0], (float)x[1], (float)dx[1], (float)x[2], (float)dx[2], (float)x[3],
                    (float)dx[3], N(c), &d);
    dy[0] = d;
}
static void ode_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    float b[4];
    gca_tof(b, xb, 4);
    y[0] = odef_rev((float)x[0], &b[0], (float)x[1], &b[1], (float)x[2], &b[2], (float)x[3], &b[3], N(c),
                    (float)yb[0]);
    gca_tod(xb, b, 4);
}

int main(void) {
    static const int sizes[] = {1, 3, 16};
    static const double ode_pts[] = {1.0, 0.0, 0.01, 4.0, -0.5, 1.5, 0.05, 0.7};
    char name[64];
    unsigned k;
    struct ctx c;
    struct gca_problem p = {0};
    p.name = name, p.ctx = &c, p.prec = GC_FLOAT;
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        c.n = sizes[k];
        snprintf(name, sizeof name, "dotf n=%d", c.n);
        p.nin = 2 * c.n, p.nout = 1, p.f = dot_w, p.fwd = dot_wfwd, p.rev = dot_wrev;
        gca_check_random(&p, 3, -2, 2);
        snprintf(name, sizeof name, "softmaxf n=%d", c.n);
        p.nin = c.n, p.nout = c.n, p.f = sm_w, p.fwd = sm_wfwd, p.rev = sm_wrev;
        gca_check_random(&p, 3, -3, 3);
    }
    for (c.n = 0; c.n <= 40; c.n += 20) {
        snprintf(name, sizeof name, "odef steps=%d", c.n);
        p.nin = 4, p.nout = 1, p.f = ode_w, p.fwd = ode_wfwd, p.rev = ode_wrev;
        gca_check(&p, 2, ode_pts);
    }
    return gc_summary();
}
