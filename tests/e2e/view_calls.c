/* view_calls.c: end-to-end test of calls that update or fill an array
 * through views (DESIGN.md 8.21): ADBench's lstm_predict passes &s[i] and
 * &s[i + b] to lstm_model's in-out parameters, in a loop with a run-time
 * step, and reads the previous layer's state at &s[i - 2*b]. The callee's
 * code bounds what it touches (hsize elements), so the slices are copied
 * in, stored back by updates, and seen to be disjoint; also where the
 * callee's indices are affine in its loop's counter (`u[j - 1]` from j = 1,
 * `out[2 * j + 1]`), and at its parameters (`v[m - 1]`, `v[2 * m - 1]`). */
#include <math.h>
#include <stdlib.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

/* lstm_model as ADBench writes it, with three gates. */
CHAD_DIFFERENTIABLE
void cell_model(int hsize, const double *weight, double *hidden, double *cell,
                const double *input) {
    double *gates = malloc(3 * hsize * sizeof(double));
    double *forget = &(gates[0]);
    double *ingate = &(gates[hsize]);
    double *change = &(gates[2 * hsize]);
    int i;
    for (i = 0; i < hsize; i++) {
        forget[i] = sigmoid(input[i] * weight[i]);
        ingate[i] = sigmoid(hidden[i] * weight[hsize + i]);
        change[i] = tanh(hidden[i] * weight[2 * hsize + i]);
    }
    for (i = 0; i < hsize; i++)
        cell[i] = cell[i] * forget[i] + ingate[i] * change[i];
    for (i = 0; i < hsize; i++)
        hidden[i] = tanh(cell[i]);
    free(gates);
}

/* Layers of state in s, each reading the layer below it. */
CHAD_DIFFERENTIABLE
void layers(int l, int b, const double *w, double *s, const double *x) {
    int i;
    cell_model(b, w, &s[0], &s[b], x);
    for (i = 2 * b; i <= 2 * l * b - 1; i += 2 * b)
        cell_model(b, &w[i * 3 / 2], &s[i], s + i + b, &s[i - 2 * b]);
}

/* A callee that fills a slice of local scratch, and one that updates a
 * slice of it, at offsets computed in a loop, outside the block form. */
CHAD_DIFFERENTIABLE
void fill_sq(int n, const double *x, double *out) {
    for (int j = 0; j < n; j++)
        out[j] = x[j] * x[j];
}

CHAD_DIFFERENTIABLE
void scale_by(int n, double a, double *u) {
    for (int j = 0; j < n; j++)
        u[j] = a * u[j] + 0.1;
}

CHAD_DIFFERENTIABLE
double slices(int n, const double *x) {
    double *t = calloc(3 * n, sizeof *t);
    fill_sq(n, x, &t[n]);
    for (int k = 0; k < 3; k++)
        scale_by(n, x[k % n], t + k * n / 2);
    scale_by(2, x[0], &t[3 * n - 2]);
    double s = 0;
    for (int i = 0; i < 3 * n; i++)
        s += t[i] * (i + 1);
    free(t);
    return s;
}

/* Callees whose indices are affine in a loop's counter: the element
 * before the counter from a loop that starts at 1, and interleaved pairs
 * (2 j and 2 j + 1): what they touch is still bounded by their code. */
CHAD_DIFFERENTIABLE
void smooth_tail(int n, double *u) {
    for (int j = 1; j < n; j++)
        u[j] += 0.5 * sin(u[j - 1]);
}

CHAD_DIFFERENTIABLE
void interleave(int m, const double *a, double *out) {
    for (int j = 0; j < m; j++) {
        out[2 * j] = a[j];
        out[2 * j + 1] = a[j] * a[j];
    }
}

CHAD_DIFFERENTIABLE
void pairs(int m, double *p) {
    for (int j = 0; j <= m - 1; j++)
        p[1 + 2 * j] += p[j * 2] * p[2 * j + 1];
}

CHAD_DIFFERENTIABLE
double affine(int n, const double *x) {
    double *t = calloc(4 * n, sizeof *t);
    for (int i = 0; i < n; i++)
        t[i] = x[i];
    interleave(n, x, &t[n]);
    smooth_tail(n + 1, t + n - 1);
    pairs(n, &t[2 * n]);
    smooth_tail(2, &t[4 * n - 2]);
    double s = 0;
    for (int i = 0; i < 4 * n; i++)
        s += t[i] * (i % 3 + 1);
    free(t);
    return s;
}

/* elements at the callee's parameters: its extent is m (2m) */
CHAD_DIFFERENTIABLE
void ends(int m, double *v, double a) {
    v[m - 1] *= a;
    v[0] += sin(v[m - 1]);
}
CHAD_DIFFERENTIABLE
double last_of(int m, const double *v) { return v[2 * m - 1] * v[m - 1]; }

CHAD_DIFFERENTIABLE
double tails(int n, const double *x) {
    double *t = calloc(3 * n, sizeof *t);
    for (int i = 0; i < 3 * n; i++)
        t[i] = x[i % n] + 0.1 * i;
    for (int i = 0; i < n; i++)
        ends(3, &t[3 * i], x[i]);
    ends(2, t + n, 0.5);
    double u[4] = {x[0], x[n - 1], 0.5, 0.25};
    ends(n < 4 ? n : 4, u, x[n / 2]);
    double s = last_of(1, &t[3 * n - 2]) + last_of(n / 2, u) * u[3];
    for (int i = 0; i < 3 * n; i++)
        s += t[i] * (i % 2 + 1);
    free(t);
    return s;
}

struct ctx { int l, b; };
#define C(c) ((const struct ctx *)(c))

/* x = (w 3*b*(2l), s0 2lb, x b), y = s after */
static int nw(const struct ctx *c) { return 3 * c->b * 2 * c->l; }
static void ly_w(const double *x, double *y, void *c) {
    int n = 2 * C(c)->l * C(c)->b, o = nw(C(c));
    for (int i = 0; i < n; i++) y[i] = x[o + i];
    layers(C(c)->l, C(c)->b, x, y, x + o + n);
}
static void ly_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = 2 * C(c)->l * C(c)->b, o = nw(C(c));
    for (int i = 0; i < n; i++) y[i] = x[o + i], dy[i] = dx[o + i];
    layers_fwd(C(c)->l, C(c)->b, x, dx, y, dy, x + o + n, dx + o + n);
}
static void ly_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = 2 * C(c)->l * C(c)->b, o = nw(C(c));
    double sb[64];
    for (int i = 0; i < n; i++) y[i] = x[o + i], sb[i] = yb[i];
    layers_rev(C(c)->l, C(c)->b, x, xb, y, sb, x + o + n, xb + o + n);
    for (int i = 0; i < n; i++) xb[o + i] += sb[i];
}
static void af_w(const double *x, double *y, void *c) { y[0] = affine(C(c)->b, x); }
static void af_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = affine_fwd(C(c)->b, x, dx, &dy[0]);
}
static void af_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = affine_rev(C(c)->b, x, xb, yb[0]);
}
static void tl_w(const double *x, double *y, void *c) { y[0] = tails(C(c)->b, x); }
static void tl_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = tails_fwd(C(c)->b, x, dx, &dy[0]);
}
static void tl_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = tails_rev(C(c)->b, x, xb, yb[0]);
}
static void sl_w(const double *x, double *y, void *c) { y[0] = slices(C(c)->b, x); }
static void sl_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = slices_fwd(C(c)->b, x, dx, &dy[0]);
}
static void sl_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = slices_rev(C(c)->b, x, xb, yb[0]);
}

int main(void) {
    char name[64];
    struct ctx c = {1, 1};
    struct gca_problem p = {0};
    p.name = name, p.ctx = &c;
    for (int l = 1; l <= 3; l++)
        for (int b = 1; b <= 3; b++) {
            c.l = l, c.b = b;
            int n = 2 * l * b;
            snprintf(name, sizeof name, "layers l=%d b=%d", l, b);
            p.nin = nw(&c) + n + b, p.nout = n, p.f = ly_w, p.fwd = ly_fwd, p.rev = ly_rev;
            gca_check_random(&p, 3, -1, 1);
        }
    for (int b = 2; b <= 5; b++) {
        c.b = b;
        snprintf(name, sizeof name, "slices n=%d", b);
        p.nin = b, p.nout = 1, p.f = sl_w, p.fwd = sl_fwd, p.rev = sl_rev;
        gca_check_random(&p, 3, -1, 1);
        snprintf(name, sizeof name, "affine n=%d", b);
        p.nin = b, p.nout = 1, p.f = af_w, p.fwd = af_fwd, p.rev = af_rev;
        gca_check_random(&p, 3, -1, 1);
        snprintf(name, sizeof name, "tails n=%d", b);
        p.nin = b, p.nout = 1, p.f = tl_w, p.fwd = tl_fwd, p.rev = tl_rev;
        gca_check_random(&p, 3, -1, 1);
    }
    return gc_summary();
}
