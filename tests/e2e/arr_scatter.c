/* arr_scatter.c: end-to-end test of a scatter-add into an output array:
 * y is zeroed by a loop, then y[idx[i]] += w[i] * x[i] (reduce-by-index, with
 * repeated indices and output elements no index reaches, which stay 0). */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
void scatter(const double *w, const double *x, const int *idx, double *y, int n, int m) {
    for (int j = 0; j < m; j++)
        y[j] = 0;
    for (int i = 0; i < n; i++)
        y[idx[i]] += w[i] * x[i];
}

/* A histogram-like scatter of a nonlinear value, then a sum over the bins
 * of a nonlinear function of each: the output is a scalar. */
CHAD_DIFFERENTIABLE
double scatter_sum(const double *x, const int *bin, double *h, int n, int m) {
    for (int j = 0; j < m; j++)
        h[j] = 0;
    for (int i = 0; i < n; i++)
        h[bin[i]] += exp(-x[i] * x[i]);
    double s = 0;
    for (int j = 0; j < m; j++)
        s += h[j] * h[j];
    return s;
}

struct ctx { int n, m; const int *idx; };
#define C(c) ((const struct ctx *)(c))

/* x = (w[0..n), x[0..n)), y = y[0..m) */
static void s_w(const double *x, double *y, void *c) { scatter(x, x + C(c)->n, C(c)->idx, y, C(c)->n, C(c)->m); }
static void s_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    scatter_fwd(x, dx, x + C(c)->n, dx + C(c)->n, C(c)->idx, y, dy, C(c)->n, C(c)->m);
}
static void s_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    scatter_rev(x, xb, x + C(c)->n, xb + C(c)->n, C(c)->idx, y, yb, C(c)->n, C(c)->m);
}
/* x = x[0..n), y = (h[0..m), s) */
static void ss_w(const double *x, double *y, void *c) {
    y[C(c)->m] = scatter_sum(x, C(c)->idx, y, C(c)->n, C(c)->m);
}
static void ss_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[C(c)->m] = scatter_sum_fwd(x, dx, C(c)->idx, y, dy, C(c)->n, C(c)->m, &dy[C(c)->m]);
}
static void ss_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[C(c)->m] = scatter_sum_rev(x, xb, C(c)->idx, y, yb, C(c)->n, C(c)->m, yb[C(c)->m]);
}

int main(void) {
    static const int idx[] = {2, 0, 2, 4, 0, 2, 5, 4}; /* y[1], y[3] stay 0 */
    struct ctx c;
    struct gca_problem p = {0};
    c.n = 8, c.m = 6, c.idx = idx;
    p.name = "scatter n=8 m=6", p.ctx = &c;
    p.nin = 2 * c.n, p.nout = c.m, p.f = s_w, p.fwd = s_wfwd, p.rev = s_wrev;
    gca_check_random(&p, 3, -2, 2);
    p.name = "scatter_sum n=8 m=6", p.nin = c.n, p.nout = c.m + 1, p.f = ss_w, p.fwd = ss_wfwd, p.rev = ss_wrev;
    gca_check_random(&p, 3, -1.5, 1.5);
    {   /* Exact: y = (w1 x1 + w4 x4, 0, w0 x0 + w2 x2 + w5 x5, 0, ...) */
        double w[8] = {1, 2, 3, 4, 5, 6, 7, 8}, x[8] = {8, 7, 6, 5, 4, 3, 2, 1}, y[6], yb[6] = {1, 10, 100, 1000, 1e4, 1e5};
        double wb[8] = {0}, xb[8] = {0};
        int i, ok;
        scatter_rev(w, wb, x, xb, idx, y, yb, 8, 6);
        ok = y[0] == 2 * 7 + 5 * 4 && y[1] == 0 && y[2] == 1 * 8 + 3 * 6 + 6 * 3 && y[3] == 0 &&
             y[4] == 4 * 5 + 8 * 1 && y[5] == 7 * 2;
        for (i = 0; i < 8; i++)
            ok = ok && wb[i] == yb[idx[i]] * x[i] && xb[i] == yb[idx[i]] * w[i];
        gc_expect(ok, "scatter exact", "wrong outputs or adjoints");
    }
    return gc_summary();
}
