/* inactive.c: end-to-end test of CHAD_INACTIVE parameters: data arrays and
 * floating scalars that get no shadow in f_fwd and f_rev. The gradient with
 * respect to the remaining inputs is checked as usual; the data are
 * constants of the map, passed through ctx. Also: functions with inactive
 * parameters called from another differentiable function. */
#include "chad.h"
#include "gradcheck.h"

/* Least squares of a line through data points (x, y): w = (slope,
 * intercept) is active, the data and the weight lambda are not. */
CHAD_DIFFERENTIABLE
double lsq(const double *w, CHAD_INACTIVE const double *x, CHAD_INACTIVE const double *y,
           int n, CHAD_INACTIVE double lambda) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        double r = w[0] * x[i] + w[1] - y[i];
        s += r * r;
    }
    return s + lambda * (w[0] * w[0] + w[1] * w[1]);
}

/* A helper with an active array parameter, called with inactive data. */
CHAD_DIFFERENTIABLE
double weighted(const double *a, const double *b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* The same with its second array inactive. */
CHAD_DIFFERENTIABLE
double weighted_data(const double *a, CHAD_INACTIVE const double *b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* Calls them: the callees' inactive parameters get no shadow. */
CHAD_DIFFERENTIABLE
double caller(const double *w, const double *v, CHAD_INACTIVE const double *x,
              CHAD_INACTIVE const double *y, int n, double scale) {
    return scale * lsq(w, x, y, n, 0.5) + weighted_data(v, x, n) * weighted(v, v, n);
}

struct data { int n; double x[16], y[16]; };
#define D(c) ((const struct data *)(c))

/* lsq: inputs w[0..2) */
static void lsq_w(const double *in, double *out, void *c) {
    out[0] = lsq(in, D(c)->x, D(c)->y, D(c)->n, 0.25);
}
static void lsq_wfwd(const double *in, const double *din, double *out, double *dout, void *c) {
    out[0] = lsq_fwd(in, din, D(c)->x, D(c)->y, D(c)->n, 0.25, &dout[0]);
}
static void lsq_wrev(const double *in, double *inb, double *out, const double *outb, void *c) {
    out[0] = lsq_rev(in, inb, D(c)->x, D(c)->y, D(c)->n, 0.25, outb[0]);
}

/* caller: inputs (w[0..2), v[0..n), scale) */
static void caller_w(const double *in, double *out, void *c) {
    int n = D(c)->n;
    out[0] = caller(in, in + 2, D(c)->x, D(c)->y, n, in[2 + n]);
}
static void caller_wfwd(const double *in, const double *din, double *out, double *dout, void *c) {
    int n = D(c)->n;
    out[0] = caller_fwd(in, din, in + 2, din + 2, D(c)->x, D(c)->y, n, in[2 + n], din[2 + n],
                        &dout[0]);
}
static void caller_wrev(const double *in, double *inb, double *out, const double *outb, void *c) {
    int n = D(c)->n;
    out[0] = caller_rev(in, inb, in + 2, inb + 2, D(c)->x, D(c)->y, n, in[2 + n], &inb[2 + n],
                        outb[0]);
}

int main(void) {
    static const int sizes[] = {1, 3, 16};
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        struct data d;
        char name[64];
        struct gca_problem p = {0};
        d.n = sizes[k];
        for (int i = 0; i < d.n; i++) {
            d.x[i] = 0.3 * i - 1;
            d.y[i] = 0.7 * d.x[i] + 0.2 + 0.05 * ((i * 7) % 3);
        }
        p.name = name, p.ctx = &d, p.nout = 1;
        snprintf(name, sizeof name, "lsq n=%d", d.n);
        p.nin = 2, p.f = lsq_w, p.fwd = lsq_wfwd, p.rev = lsq_wrev;
        gca_check_random(&p, 3, -2, 2);
        snprintf(name, sizeof name, "caller n=%d", d.n);
        p.nin = 3 + d.n, p.f = caller_w, p.fwd = caller_wfwd, p.rev = caller_wrev;
        gca_check_random(&p, 3, -2, 2);
    }
    return gc_summary();
}
