/* chained_updates.c: statements whose value is that of an update of an
 * array element (lowering/lower_chains.cpp): `a[0] = a[1] = v`, a chain
 * of three, `t = a[i] += v`, `s += a[i] = v`, `t = a[i]++` and
 * `t = ++a[i]` on floating elements, a conversion to float between the
 * two assignments, chains in loop bodies and branches without braces, on
 * a local array, an output, an in-out array and a field of an array of
 * structs. Checked against finite differences, by forward / reverse
 * duality and for accumulation. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

typedef struct { double x, v; } P;

CHAD_DIFFERENTIABLE
double chains(const double *x, int n, double a) {
    double w[8], t, s = 0;
    float f[2];
    w[0] = w[1] = x[0] * a;
    w[2] = w[3] = w[4] = sin(x[n - 1]);
    for (int i = 0; i < 3; i++)
        s += w[5 + i] = x[i % n] * x[i % n];
    t = w[1] += a * w[2];
    s += t;
    t = w[3]++;
    s += t * w[3];
    t = --w[4];
    s += t * w[4] * a;
    f[0] = w[0] = f[1] = (float)(a * x[0]);
    if (a > 0)
        w[6] = w[7] = w[6] * a;
    else
        w[7] = w[6] *= a;
    return s + w[0] * f[0] + w[1] * w[2] + w[6] * w[7] + f[1];
}

/* an output and an in-out array, chained */
CHAD_DIFFERENTIABLE
void outputs(const double *x, int n, double a, double *y, double *z) {
    for (int i = 0; i < n; i++)
        y[i] = z[i] = z[i] * a + x[i];
}

/* fields of an array of structs, chained */
CHAD_DIFFERENTIABLE
double fields(P *ps, int n, double a) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += ps[i].x = ps[i].v = ps[i].x * a;
    return s;
}

GCA_WRAP_XNA(chains)

/* outputs: x = (x[0..n), z[0..n), a), y = (y, z final) */
static void out_w(const double *x, double *y, void *c) {
    int n = ((const struct gca_n *)c)->n;
    double z[8];
    for (int i = 0; i < n; i++)
        z[i] = x[n + i];
    outputs(x, n, x[2 * n], y, z);
    for (int i = 0; i < n; i++)
        y[n + i] = z[i];
}
static void out_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = ((const struct gca_n *)c)->n;
    double z[8], dz[8];
    for (int i = 0; i < n; i++)
        z[i] = x[n + i], dz[i] = dx[n + i];
    outputs_fwd(x, dx, n, x[2 * n], dx[2 * n], y, dy, z, dz);
    for (int i = 0; i < n; i++)
        y[n + i] = z[i], dy[n + i] = dz[i];
}
static void out_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = ((const struct gca_n *)c)->n;
    double z[8], zb[8];
    for (int i = 0; i < n; i++)
        z[i] = x[n + i], zb[i] = yb[n + i];
    outputs_rev(x, xb, n, x[2 * n], &xb[2 * n], y, yb, z, zb);
    for (int i = 0; i < n; i++)
        y[n + i] = z[i], xb[n + i] += zb[i];
}

/* fields: x = (x0, v0, x1, v1, ..., a), y = (ret, final x, v) */
static void fields_w(const double *x, double *y, void *c) {
    int n = ((const struct gca_n *)c)->n;
    P ps[8];
    for (int i = 0; i < n; i++)
        ps[i].x = x[2 * i], ps[i].v = x[2 * i + 1];
    y[0] = fields(ps, n, x[2 * n]);
    for (int i = 0; i < n; i++)
        y[1 + 2 * i] = ps[i].x, y[2 + 2 * i] = ps[i].v;
}
static void fields_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = ((const struct gca_n *)c)->n;
    P ps[8], dps[8];
    for (int i = 0; i < n; i++)
        ps[i].x = x[2 * i], ps[i].v = x[2 * i + 1], dps[i].x = dx[2 * i], dps[i].v = dx[2 * i + 1];
    y[0] = fields_fwd(ps, dps, n, x[2 * n], dx[2 * n], &dy[0]);
    for (int i = 0; i < n; i++) {
        y[1 + 2 * i] = ps[i].x, y[2 + 2 * i] = ps[i].v;
        dy[1 + 2 * i] = dps[i].x, dy[2 + 2 * i] = dps[i].v;
    }
}
static void fields_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = ((const struct gca_n *)c)->n;
    P ps[8], pb[8];
    for (int i = 0; i < n; i++)
        ps[i].x = x[2 * i], ps[i].v = x[2 * i + 1], pb[i].x = yb[1 + 2 * i], pb[i].v = yb[2 + 2 * i];
    y[0] = fields_rev(ps, pb, n, x[2 * n], &xb[2 * n], yb[0]);
    for (int i = 0; i < n; i++) {
        y[1 + 2 * i] = ps[i].x, y[2 + 2 * i] = ps[i].v;
        xb[2 * i] += pb[i].x, xb[2 * i + 1] += pb[i].v;
    }
}

int main(void) {
    static const int sizes[] = {1, 2, 3, 7};
    struct gca_n c;
    struct gca_problem p = {0};
    p.ctx = &c, p.prec = GC_FLOAT; /* chains goes through float */
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        c.n = sizes[s];
        p.nin = c.n + 1, p.nout = 1;
        p.name = "chained updates of a local array", p.f = chains_w, p.fwd = chains_wfwd,
        p.rev = chains_wrev;
        gca_check_random(&p, 3, -1.5, 1.5);
        p.prec = GC_DOUBLE;
        p.nin = 2 * c.n + 1, p.nout = 2 * c.n;
        p.name = "an output and an in-out array, chained", p.f = out_w, p.fwd = out_wfwd,
        p.rev = out_wrev;
        gca_check_random(&p, 3, -1.5, 1.5);
        p.nin = 2 * c.n + 1, p.nout = 2 * c.n + 1;
        p.name = "fields of an array of structs, chained", p.f = fields_w, p.fwd = fields_wfwd,
        p.rev = fields_wrev;
        gca_check_random(&p, 3, -1.5, 1.5);
        p.prec = GC_FLOAT;
    }
    return gc_summary();
}
