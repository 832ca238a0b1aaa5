/* custom_arrays.c: end-to-end test of CHAD_CUSTOM functions that write
 * arrays (DESIGN 1 and 8.25): an output array and an in-out array, each
 * declared with its length as a C99 array parameter (`double out[n]`,
 * `double v[2]`); a custom returning void, one returning a value, one
 * returning an integer status. Called on local arrays not yet written and
 * already written, on the caller's output and in-out parameters, at views
 * in a loop (a block per iteration), at computed views of malloc'd scratch
 * in a loop that carries it (time stepping), under a condition, through an
 * inlined differentiable callee, and in float. The derivatives are the
 * user's (the end of the file), checked with chad's against finite
 * differences, forward/reverse duality and accumulation. */
#include <math.h>
#include <stdlib.h>
#include "chad.h"
#include "gradcheck.h"

/* ---------------------------------------------- the user's declarations */

/* out[i] = a x[i]^2: an output g overwrites, so its seed is const */
CHAD_CUSTOM void sq(int n, double a, const double x[n], double out[n]);
void sq_fwd(int n, double a, double da, const double *x, const double *dx, double *out,
            double *dout);
void sq_rev(int n, double a, double *a_b, const double *x, double *x_b, double *out,
            const double *out_b);

/* returns sum p[i]^2, then p[i] = s p[i] + p[i-1] (old values) and p[0] =
 * s p[0]: in-out, so g_rev consumes the seed p_b and leaves the adjoint of
 * p's initial values there */
CHAD_CUSTOM double mix(int n, double s, double p[n]);
double mix_fwd(int n, double s, double ds, double *p, double *dp, double *d_ret);
double mix_rev(int n, double s, double *s_b, double *p, double *p_b, double ret_b);

/* rotates v by theta; returns a status, as library routines do */
CHAD_CUSTOM int rotate(double theta, double v[2]);
int rotate_fwd(double theta, double dtheta, double *v, double *dv);
int rotate_rev(double theta, double *theta_b, double *v, double *v_b);

CHAD_CUSTOM void sqf(int n, float a, const float x[n], float out[n]);
void sqf_fwd(int n, float a, float da, const float *x, const float *dx, float *out, float *dout);
void sqf_rev(int n, float a, float *a_b, const float *x, float *x_b, float *out,
             const float *out_b);

/* ------------------------------------------- differentiable functions */

/* an output into a local array not yet written */
CHAD_DIFFERENTIABLE
double out_local(const double *x, int n, double a) {
    double t[8];
    sq(n, a, x, t);
    double r = 0;
    for (int i = 0; i < n; i++)
        r += t[i] * x[i];
    return r;
}

/* in-out on a local array already written, and the value it returns */
CHAD_DIFFERENTIABLE
double inout_local(const double *x, int n, double s) {
    double t[8];
    for (int i = 0; i < n; i++)
        t[i] = x[i];
    double m = mix(n, s, t);
    double r = m;
    for (int i = 0; i < n; i++)
        r += t[i] * t[i] * x[i];
    return r;
}

/* the caller's output, written whole, then at a view per iteration:
 * y[b m .. b m + m) */
CHAD_DIFFERENTIABLE
void out_views(const double *x, double *y, int m, int k, double a) {
    for (int i = 0; i < m * k; i++)
        y[i] = x[i];
    for (int b = 0; b < k; b++)
        sq(m, a * (b + 1), &x[b * m], &y[b * m]);
}

/* a block of two per iteration of the caller's output, not written before */
CHAD_DIFFERENTIABLE
void out_blocks(const double *x, double *y, int k, double a) {
    for (int b = 0; b < k; b++)
        sq(2, a + b, &x[2 * b], &y[2 * b]);
}

/* the caller's in-out parameter, whole, then updated again */
CHAD_DIFFERENTIABLE
void inout_param(double *p, int n, double s) {
    mix(n, s, p);
    p[0] = p[0] * s + p[n - 1];
}

/* time stepping over malloc'd scratch: the loop carries the state, which
 * the custom functions update in place, whole and at computed views */
CHAD_DIFFERENTIABLE
double steps(const double *u0, int n, int nsteps, double s) {
    double *u = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++)
        u[i] = u0[i];
    double acc = 0;
    for (int t = 0; t < nsteps; t++) {
        acc += mix(n, s, u);
        for (int j = 0; j + 1 < n; j += 2)
            rotate(s * (t + 1) + j, &u[j]);
        u[0] = sin(u[0]);
    }
    double r = acc * 0.1;
    for (int i = 0; i < n; i++)
        r += u[i] * u[i];
    free(u);
    return r;
}

/* a status that decides nothing, and a custom call under a condition */
CHAD_DIFFERENTIABLE
double branch(const double *x, int n, double a) {
    double t[8];
    double v[2] = {x[0], a};
    for (int i = 0; i < n; i++)
        t[i] = 0;
    if (a > 0)
        sq(n, a, x, t);
    else
        sq(n, -a * a, x, t);
    int status = rotate(a, v);
    double r = v[0] * v[1] + status;
    for (int i = 0; i < n; i++)
        r += t[i] * x[(i + 1) % n];
    return r;
}

/* through a differentiable callee that writes an output, inlined */
CHAD_DIFFERENTIABLE
void shifted_sq(int n, double a, const double *x, double *out) {
    sq(n, a, x, out);
    for (int i = 0; i < n; i++)
        out[i] = out[i] + x[i];
}

CHAD_DIFFERENTIABLE
double through(const double *x, int n, double a) {
    double t[8];
    shifted_sq(n, a, x, t);
    double r = 0;
    for (int i = 0; i < n; i++)
        r += t[i] * t[i];
    return r;
}

CHAD_DIFFERENTIABLE
float out_float(const float *x, int n, float a) {
    float t[8];
    sqf(n, a, x, t);
    float r = 0;
    for (int i = 0; i < n; i++)
        r += t[i] * x[i];
    return r;
}

/* ----------------------------------------- the hand-written derivatives */

void sq(int n, double a, const double x[n], double out[n]) {
    for (int i = 0; i < n; i++)
        out[i] = a * x[i] * x[i];
}
void sq_fwd(int n, double a, double da, const double *x, const double *dx, double *out,
            double *dout) {
    for (int i = 0; i < n; i++)
        dout[i] = da * x[i] * x[i] + 2 * a * x[i] * dx[i];
    sq(n, a, x, out);
}
void sq_rev(int n, double a, double *a_b, const double *x, double *x_b, double *out,
            const double *out_b) {
    for (int i = 0; i < n; i++) {
        *a_b += out_b[i] * x[i] * x[i];
        x_b[i] += 2 * a * x[i] * out_b[i];
    }
    sq(n, a, x, out);
}

double mix(int n, double s, double p[n]) {
    double r = 0;
    for (int i = 0; i < n; i++)
        r += p[i] * p[i];
    for (int i = n - 1; i >= 1; i--)
        p[i] = s * p[i] + p[i - 1];
    p[0] = s * p[0];
    return r;
}
double mix_fwd(int n, double s, double ds, double *p, double *dp, double *d_ret) {
    double dr = 0;
    for (int i = 0; i < n; i++)
        dr += 2 * p[i] * dp[i];
    for (int i = n - 1; i >= 1; i--)
        dp[i] = ds * p[i] + s * dp[i] + dp[i - 1];
    dp[0] = ds * p[0] + s * dp[0];
    *d_ret = dr;
    return mix(n, s, p);
}
double mix_rev(int n, double s, double *s_b, double *p, double *p_b, double ret_b) {
    /* p_b holds the seed of the final values; the initial p is in p */
    for (int i = 0; i < n; i++)
        *s_b += p_b[i] * p[i];
    for (int i = 0; i < n; i++) {
        double next = i + 1 < n ? p_b[i + 1] : 0;
        p_b[i] = s * p_b[i] + next + 2 * p[i] * ret_b;
    }
    return mix(n, s, p);
}

int rotate(double theta, double v[2]) {
    double c = cos(theta), s = sin(theta);
    double x = c * v[0] - s * v[1], y = s * v[0] + c * v[1];
    v[0] = x, v[1] = y;
    return 0;
}
int rotate_fwd(double theta, double dtheta, double *v, double *dv) {
    double c = cos(theta), s = sin(theta);
    double dx = c * dv[0] - s * dv[1] - dtheta * (s * v[0] + c * v[1]);
    double dy = s * dv[0] + c * dv[1] + dtheta * (c * v[0] - s * v[1]);
    dv[0] = dx, dv[1] = dy;
    return rotate(theta, v);
}
int rotate_rev(double theta, double *theta_b, double *v, double *v_b) {
    double c = cos(theta), s = sin(theta);
    double xb = v_b[0], yb = v_b[1];
    *theta_b += xb * -(s * v[0] + c * v[1]) + yb * (c * v[0] - s * v[1]);
    v_b[0] = c * xb + s * yb;
    v_b[1] = -s * xb + c * yb;
    return rotate(theta, v);
}

void sqf(int n, float a, const float x[n], float out[n]) {
    for (int i = 0; i < n; i++)
        out[i] = a * x[i] * x[i];
}
void sqf_fwd(int n, float a, float da, const float *x, const float *dx, float *out, float *dout) {
    for (int i = 0; i < n; i++)
        dout[i] = da * x[i] * x[i] + 2 * a * x[i] * dx[i];
    sqf(n, a, x, out);
}
void sqf_rev(int n, float a, float *a_b, const float *x, float *x_b, float *out,
             const float *out_b) {
    for (int i = 0; i < n; i++) {
        *a_b += out_b[i] * x[i] * x[i];
        x_b[i] += 2 * a * x[i] * out_b[i];
    }
    sqf(n, a, x, out);
}

/* ---------------------------------------------------------- the checks */

struct ctx { int n, k; };
#define CN(c) (((const struct ctx *)(c))->n)
#define CK(c) (((const struct ctx *)(c))->k)

/* x = (x[0..n), a): one scalar result */
#define XA_WRAP(f)                                                                           \
    static void f##_w(const double *x, double *y, void *c) { y[0] = f(x, CN(c), x[CN(c)]); } \
    static void f##_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) { \
        y[0] = f##_fwd(x, dx, CN(c), x[CN(c)], dx[CN(c)], &dy[0]); }                          \
    static void f##_wrev(const double *x, double *xb, double *y, const double *yb, void *c) { \
        y[0] = f##_rev(x, xb, CN(c), x[CN(c)], &xb[CN(c)], yb[0]); }
XA_WRAP(out_local)
XA_WRAP(inout_local)
XA_WRAP(branch)
XA_WRAP(through)

/* x = (x[0..m k), a), y = y[0..m k) */
static void ov_w(const double *x, double *y, void *c) {
    out_views(x, y, CN(c), CK(c), x[CN(c) * CK(c)]);
}
static void ov_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int m = CN(c) * CK(c);
    out_views_fwd(x, dx, y, dy, CN(c), CK(c), x[m], dx[m]);
}
static void ov_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int m = CN(c) * CK(c);
    out_views_rev(x, xb, y, yb, CN(c), CK(c), x[m], &xb[m]);
}
/* x = (x[0..2 k), a), y = y[0..2 k) */
static void ob_w(const double *x, double *y, void *c) { out_blocks(x, y, CK(c), x[2 * CK(c)]); }
static void ob_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int m = 2 * CK(c);
    out_blocks_fwd(x, dx, y, dy, CK(c), x[m], dx[m]);
}
static void ob_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int m = 2 * CK(c);
    out_blocks_rev(x, xb, y, yb, CK(c), x[m], &xb[m]);
}

/* x = (p0[0..n), s), y = p after */
static void ip_w(const double *x, double *y, void *c) {
    int n = CN(c);
    for (int i = 0; i < n; i++) y[i] = x[i];
    inout_param(y, n, x[n]);
}
static void ip_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = CN(c);
    for (int i = 0; i < n; i++) y[i] = x[i], dy[i] = dx[i];
    inout_param_fwd(y, dy, n, x[n], dx[n]);
}
static void ip_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = CN(c);
    double pb[16];
    for (int i = 0; i < n; i++) y[i] = x[i], pb[i] = yb[i];
    inout_param_rev(y, pb, n, x[n], &xb[n]);
    for (int i = 0; i < n; i++) xb[i] += pb[i];
}

/* x = (u0[0..n), s), k steps */
static void st_w(const double *x, double *y, void *c) { y[0] = steps(x, CN(c), CK(c), x[CN(c)]); }
static void st_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = steps_fwd(x, dx, CN(c), CK(c), x[CN(c)], dx[CN(c)], &dy[0]);
}
static void st_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = steps_rev(x, xb, CN(c), CK(c), x[CN(c)], &xb[CN(c)], yb[0]);
}

/* float: x = (x[0..n), a) */
static void of_w(const double *x, double *y, void *c) {
    float xf[9];
    gca_tof(xf, x, CN(c) + 1);
    y[0] = out_float(xf, CN(c), xf[CN(c)]);
}
static void of_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    float xf[9], dxf[9], d;
    gca_tof(xf, x, CN(c) + 1);
    gca_tof(dxf, dx, CN(c) + 1);
    y[0] = out_float_fwd(xf, dxf, CN(c), xf[CN(c)], dxf[CN(c)], &d);
    dy[0] = d;
}
static void of_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    float xf[9], xbf[9] = {0};
    gca_tof(xf, x, CN(c) + 1);
    y[0] = out_float_rev(xf, xbf, CN(c), xf[CN(c)], &xbf[CN(c)], (float)yb[0]);
    for (int i = 0; i <= CN(c); i++)
        xb[i] += xbf[i];
}

static void run(const char *fn, int n, int k, int nin, int nout, int prec, gca_fn f,
                gca_fwd_fn fwd, gca_rev_fn rev) {
    struct ctx c = {n, k};
    char name[64];
    snprintf(name, sizeof name, "%s n=%d k=%d", fn, n, k);
    struct gca_problem p = {0};
    p.name = name, p.nin = nin, p.nout = nout, p.prec = prec;
    p.f = f, p.fwd = fwd, p.rev = rev, p.ctx = &c;
    gca_check_random(&p, 3, -1.5, 1.5);
}

int main(void) {
    static const int sizes[] = {1, 3, 8};
    for (unsigned q = 0; q < sizeof sizes / sizeof sizes[0]; q++) {
        int n = sizes[q];
        run("out_local", n, 0, n + 1, 1, GC_DOUBLE, out_local_w, out_local_wfwd, out_local_wrev);
        run("inout_local", n, 0, n + 1, 1, GC_DOUBLE, inout_local_w, inout_local_wfwd,
            inout_local_wrev);
        run("branch", n, 0, n + 1, 1, GC_DOUBLE, branch_w, branch_wfwd, branch_wrev);
        run("through", n, 0, n + 1, 1, GC_DOUBLE, through_w, through_wfwd, through_wrev);
        run("inout_param", n, 0, n + 1, n, GC_DOUBLE, ip_w, ip_wfwd, ip_wrev);
        run("out_float", n, 0, n + 1, 1, GC_FLOAT, of_w, of_wfwd, of_wrev);
        for (int k = 1; k <= 3; k += 2) {
            if (n * k + 1 <= GCA_MAX)
                run("out_views", n, k, n * k + 1, n * k, GC_DOUBLE, ov_w, ov_wfwd, ov_wrev);
            run("steps", n, 4 * k, n + 1, 1, GC_DOUBLE, st_w, st_wfwd, st_wrev);
            run("out_blocks", n, k + n, 2 * (k + n) + 1, 2 * (k + n), GC_DOUBLE, ob_w, ob_wfwd,
                ob_wrev);
        }
    }
    return gc_summary();
}
