/* loop_fusion.c: consecutive loops over one range, run as one loop where
 * that changes nothing (ad/fuse.c, DESIGN 8.57), and kept apart where it
 * would. lstm_cell is ADBench's lstm_model as its authors wrote it (gates
 * in malloc'd scratch at offsets 0, h, 2h and 3h; the in-out cell and
 * hidden state): its first two loops become one (the third calls tanh, as
 * the fused one calls sigmoid: such pairs stay apart). read_ahead's
 * second loop reads the element its first loop writes a step later,
 * lag's first loop reads the element its second loop wrote a step before,
 * shifted's second loop writes a step ahead of its first: each must stay
 * two loops. lead's first loop reads the element its second writes a
 * step later, before it does, and in_place's two loops update one in-out
 * array at the element they read: one loop each. Checked against finite
 * differences, by forward / reverse duality and for accumulation; f_fwd
 * and f_rev must give exactly f's outputs, which a wrong fusion changes. */
#include <math.h>
#include <stdlib.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

CHAD_DIFFERENTIABLE
void lstm_cell(int h, const double *weight, const double *bias, double *hidden, double *cell,
               const double *input) {
    double *gates = (double *)malloc(4 * h * sizeof(double));
    double *forget = &(gates[0]);
    double *ingate = &(gates[h]);
    double *outgate = &(gates[2 * h]);
    double *change = &(gates[3 * h]);
    int i;
    for (i = 0; i < h; i++) {
        forget[i] = sigmoid(input[i] * weight[i] + bias[i]);
        ingate[i] = sigmoid(hidden[i] * weight[h + i] + bias[h + i]);
        outgate[i] = sigmoid(input[i] * weight[2 * h + i] + bias[2 * h + i]);
        change[i] = tanh(hidden[i] * weight[3 * h + i] + bias[3 * h + i]);
    }
    for (i = 0; i < h; i++)
        cell[i] = cell[i] * forget[i] + ingate[i] * change[i];
    for (i = 0; i < h; i++)
        hidden[i] = outgate[i] * tanh(cell[i]);
    free(gates);
}

CHAD_DIFFERENTIABLE
void read_ahead(const double *x, int n, double *y) {
    double *t = (double *)malloc((n + 1) * sizeof(double));
    t[n] = x[0];
    for (int i = 0; i < n; i++)
        t[i] = sin(x[i]) * x[n - 1 - i];
    for (int i = 0; i < n; i++)
        y[i] = t[i + 1] * x[i];
    free(t);
}

/* u in-out: the first loop reads u behind the second's writes */
CHAD_DIFFERENTIABLE
void lag(double *u, int n, double *y) {
    int m = n - 1;
    for (int i = 0; i < m; i++)
        y[i] = u[i] * u[i + 1];
    for (int i = 0; i < m; i++)
        u[i + 1] = cos(u[i + 1]) + y[i];
}

CHAD_DIFFERENTIABLE
void lead(double *u, int n, double *y) {
    int m = n - 1;
    for (int i = 0; i < m; i++)
        y[i] = exp(u[i + 1]) * u[i + 1];
    for (int i = 0; i < m; i++)
        u[i] = u[i] * y[i];
}

/* u updated in place by two loops at the element each step reads: one
 * loop. shifted's second loop reads and writes t[i + 1], which its first
 * writes a step later: two loops. */
CHAD_DIFFERENTIABLE
void in_place(double *u, int n, double *y) {
    for (int i = 0; i < n; i++)
        u[i] = sin(u[i]) + 0.1;
    for (int i = 0; i < n; i++)
        u[i] = u[i] * (0.5 + u[i]);
    for (int i = 0; i + 1 < n; i++)
        y[i] = u[i] * u[i + 1];
}

CHAD_DIFFERENTIABLE
void shifted(const double *x, int n, double *y) {
    double *t = (double *)malloc(n * sizeof(double));
    int m = n - 1;
    t[m] = x[m];
    for (int i = 0; i < m; i++)
        t[i] = sin(x[i]);
    for (int i = 0; i < m; i++)
        t[i + 1] = t[i + 1] + 0.5 * t[i] * x[i];
    for (int i = 0; i < n; i++)
        y[i] = t[i];
    free(t);
}

/* lstm_cell: x = (weight[4h], bias[4h], hidden[h], cell[h], input[h]),
 * y = (hidden, cell) at the end */
static void cell_w(const double *x, double *y, void *c) {
    int h = ((const struct gca_n *)c)->n;
    double hid[8], cel[8];
    for (int i = 0; i < h; i++)
        hid[i] = x[8 * h + i], cel[i] = x[9 * h + i];
    lstm_cell(h, x, x + 4 * h, hid, cel, x + 10 * h);
    for (int i = 0; i < h; i++)
        y[i] = hid[i], y[h + i] = cel[i];
}
static void cell_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int h = ((const struct gca_n *)c)->n;
    double hid[8], cel[8], dhid[8], dcel[8];
    for (int i = 0; i < h; i++) {
        hid[i] = x[8 * h + i], cel[i] = x[9 * h + i];
        dhid[i] = dx[8 * h + i], dcel[i] = dx[9 * h + i];
    }
    lstm_cell_fwd(h, x, dx, x + 4 * h, dx + 4 * h, hid, dhid, cel, dcel, x + 10 * h,
                  dx + 10 * h);
    for (int i = 0; i < h; i++) {
        y[i] = hid[i], y[h + i] = cel[i];
        dy[i] = dhid[i], dy[h + i] = dcel[i];
    }
}
static void cell_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int h = ((const struct gca_n *)c)->n;
    double hid[8], cel[8], hb[8], cb[8];
    for (int i = 0; i < h; i++) {
        hid[i] = x[8 * h + i], cel[i] = x[9 * h + i];
        hb[i] = yb[i], cb[i] = yb[h + i];
    }
    lstm_cell_rev(h, x, xb, x + 4 * h, xb + 4 * h, hid, hb, cel, cb, x + 10 * h, xb + 10 * h);
    for (int i = 0; i < h; i++) {
        y[i] = hid[i], y[h + i] = cel[i];
        xb[8 * h + i] += hb[i], xb[9 * h + i] += cb[i];
    }
}

/* read_ahead: x = x[n], y = y[n] */
static void ahead_w(const double *x, double *y, void *c) {
    read_ahead(x, ((const struct gca_n *)c)->n, y);
}
static void ahead_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    read_ahead_fwd(x, dx, ((const struct gca_n *)c)->n, y, dy);
}
static void ahead_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    read_ahead_rev(x, xb, ((const struct gca_n *)c)->n, y, yb);
}

/* shifted: x = x[n], y = y[n] */
static void shifted_w(const double *x, double *y, void *c) {
    shifted(x, ((const struct gca_n *)c)->n, y);
}
static void shifted_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    shifted_fwd(x, dx, ((const struct gca_n *)c)->n, y, dy);
}
static void shifted_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    shifted_rev(x, xb, ((const struct gca_n *)c)->n, y, yb);
}

/* lag and lead: x = u[n], y = (y[n - 1], u at the end) */
typedef void (*uy_fn)(double *, int, double *);
typedef void (*uy_fwd_fn)(double *, double *, int, double *, double *);
typedef void (*uy_rev_fn)(double *, double *, int, double *, const double *);
struct uy {
    struct gca_n n;
    uy_fn f;
    uy_fwd_fn fwd;
    uy_rev_fn rev;
};
static void uy_w(const double *x, double *y, void *c) {
    const struct uy *k = c;
    int n = k->n.n;
    double u[8];
    for (int i = 0; i < n; i++)
        u[i] = x[i];
    k->f(u, n, y);
    for (int i = 0; i < n; i++)
        y[n - 1 + i] = u[i];
}
static void uy_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    const struct uy *k = c;
    int n = k->n.n;
    double u[8], du[8];
    for (int i = 0; i < n; i++)
        u[i] = x[i], du[i] = dx[i];
    k->fwd(u, du, n, y, dy);
    for (int i = 0; i < n; i++)
        y[n - 1 + i] = u[i], dy[n - 1 + i] = du[i];
}
static void uy_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    const struct uy *k = c;
    int n = k->n.n;
    double u[8], ub[8];
    for (int i = 0; i < n; i++)
        u[i] = x[i], ub[i] = yb[n - 1 + i];
    k->rev(u, ub, n, y, yb);
    for (int i = 0; i < n; i++)
        y[n - 1 + i] = u[i], xb[i] += ub[i];
}

int main(void) {
    static const int sizes[] = {1, 2, 3, 5};
    struct gca_n c;
    struct gca_problem p = {0};
    p.ctx = &c, p.prec = GC_DOUBLE;
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        c.n = sizes[s];
        p.nin = 11 * c.n, p.nout = 2 * c.n;
        p.name = "lstm_model as ADBench writes it", p.f = cell_w, p.fwd = cell_wfwd,
        p.rev = cell_wrev;
        gca_check_random(&p, 3, -1.5, 1.5);
        p.nin = c.n, p.nout = c.n;
        p.name = "a loop reading what the loop before writes a step later", p.f = ahead_w,
        p.fwd = ahead_wfwd, p.rev = ahead_wrev;
        gca_check_random(&p, 3, -1.5, 1.5);
        p.name = "an array made, then updated a step ahead", p.f = shifted_w,
        p.fwd = shifted_wfwd, p.rev = shifted_wrev;
        gca_check_random(&p, 3, -1.5, 1.5);
    }
    for (unsigned s = 1; s < sizeof sizes / sizeof sizes[0]; s++) {
        struct uy k = {{sizes[s]}, lag, lag_fwd, lag_rev};
        struct gca_problem q = {0};
        q.ctx = &k, q.prec = GC_DOUBLE, q.nin = k.n.n, q.nout = 2 * k.n.n - 1;
        q.name = "a loop reading what the loop after wrote a step before", q.f = uy_w,
        q.fwd = uy_wfwd, q.rev = uy_wrev;
        gca_check_random(&q, 3, -1.5, 1.5);
        k.f = lead, k.fwd = lead_fwd, k.rev = lead_rev;
        q.name = "a loop reading what the loop after writes a step later";
        gca_check_random(&q, 3, -1.5, 1.5);
        k.f = in_place, k.fwd = in_place_fwd, k.rev = in_place_rev;
        q.name = "two loops updating an in-out array in place";
        gca_check_random(&q, 3, -1.5, 1.5);
    }
    return gc_summary();
}
