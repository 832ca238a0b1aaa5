/* inout_float.c: an in-out float array updated under a condition in a
 * loop body, whose old elements the reverse sweep needs: f_rev saves them
 * in the undo log (8.13) and writes them back, 4 bytes at a time, by the
 * runtime's out-of-line restore (DESIGN 8.76; a double is restored
 * inline). Checked: gradients against finite differences and duality, and
 * f_rev leaving f's final values in the array. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
float shuffle(int n, float *a, const float *x) {
    float s = 0;
    for (int i = 0; i < n; i++) {
        if (x[i] > 0.25f)
            a[i % 3] = sinf(a[(i + 1) % 3] * x[i]);
        for (int j = 0; j < 3; j++)
            s += a[j] * x[i];
    }
    return s;
}

/* The same with doubles: the inline restore. */
CHAD_DIFFERENTIABLE
double shuffle_d(int n, double *a, const double *x) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        if (x[i] > 0.25)
            a[i % 3] = sin(a[(i + 1) % 3] * x[i]);
        for (int j = 0; j < 3; j++)
            s += a[j] * x[i];
    }
    return s;
}

struct ctx { int n; };
#define CN(c) (((const struct ctx *)(c))->n)

/* x = (x n, a0 3); y = (s, a after 3) */
static void sh_w(const double *x, double *y, void *c) {
    int n = CN(c);
    float xf[GCA_MAX], af[3];
    gca_tof(xf, x, n);
    gca_tof(af, x + n, 3);
    y[0] = shuffle(n, af, xf);
    gca_tod(y + 1, af, 3);
}
static void sh_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = CN(c);
    float xf[GCA_MAX], dxf[GCA_MAX], af[3], daf[3], ds = 0;
    gca_tof(xf, x, n), gca_tof(dxf, dx, n);
    gca_tof(af, x + n, 3), gca_tof(daf, dx + n, 3);
    y[0] = shuffle_fwd(n, af, daf, xf, dxf, &ds);
    dy[0] = ds;
    gca_tod(y + 1, af, 3), gca_tod(dy + 1, daf, 3);
}
static void sh_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = CN(c);
    float xf[GCA_MAX], xbf[GCA_MAX] = {0}, af[3], abf[3];
    gca_tof(xf, x, n);
    gca_tof(af, x + n, 3);
    gca_tof(abf, yb + 1, 3);
    y[0] = shuffle_rev(n, af, abf, xf, xbf, (float)yb[0]);
    gca_tod(y + 1, af, 3);
    for (int i = 0; i < n; i++) xb[i] += xbf[i];
    for (int i = 0; i < 3; i++) xb[n + i] += abf[i];
}
static void sd_w(const double *x, double *y, void *c) {
    int n = CN(c);
    double a[3] = {x[n], x[n + 1], x[n + 2]};
    y[0] = shuffle_d(n, a, x);
    for (int i = 0; i < 3; i++) y[1 + i] = a[i];
}
static void sd_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = CN(c);
    double a[3] = {x[n], x[n + 1], x[n + 2]}, da[3] = {dx[n], dx[n + 1], dx[n + 2]};
    y[0] = shuffle_d_fwd(n, a, da, x, dx, &dy[0]);
    for (int i = 0; i < 3; i++) y[1 + i] = a[i], dy[1 + i] = da[i];
}
static void sd_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = CN(c);
    double a[3] = {x[n], x[n + 1], x[n + 2]}, ab[3] = {yb[1], yb[2], yb[3]};
    y[0] = shuffle_d_rev(n, a, ab, x, xb, yb[0]);
    for (int i = 0; i < 3; i++) y[1 + i] = a[i], xb[n + i] += ab[i];
}

int main(void) {
    struct ctx c;
    char name[64];
    for (int n = 1; n <= 9; n += 4) {
        struct gca_problem p = {0};
        c.n = n;
        p.nin = n + 3, p.nout = 4, p.ctx = &c;
        snprintf(name, sizeof name, "shuffle n=%d", n);
        p.name = name, p.prec = GC_FLOAT, p.f = sh_w, p.fwd = sh_fwd, p.rev = sh_rev;
        gca_check_random(&p, 4, -1, 1);
        snprintf(name, sizeof name, "shuffle_d n=%d", n);
        p.name = name, p.prec = GC_DOUBLE, p.f = sd_w, p.fwd = sd_fwd, p.rev = sd_rev;
        gca_check_random(&p, 4, -1, 1);
    }
    return gc_summary();
}
