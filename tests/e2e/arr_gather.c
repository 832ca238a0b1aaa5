/* arr_gather.c: end-to-end test of a gather through an index array,
 * x[idx[i]]: idx is a const int pointer, an inactive parameter (no shadow).
 * Indices repeat (the adjoint of x[k] sums the contributions of every i with
 * idx[i] == k) and some x[k] are never read (their adjoint is untouched).
 * Also a gather into an output array, y[i] = w[i] * x[idx[i]]. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
double gather(const double *x, const int *idx, const double *w, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += w[i] * x[idx[i]] * x[idx[i]];
    return s;
}

CHAD_DIFFERENTIABLE
void gather_out(const double *x, const int *idx, const double *w, double *y, int n) {
    for (int i = 0; i < n; i++)
        y[i] = w[i] * sin(x[idx[i]]);
}

/* m elements of x, n indices */
struct ctx { int m, n; const int *idx; };
#define C(c) ((const struct ctx *)(c))

/* x = (x[0..m), w[0..n)) */
static void g_w(const double *x, double *y, void *c) { y[0] = gather(x, C(c)->idx, x + C(c)->m, C(c)->n); }
static void g_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = gather_fwd(x, dx, C(c)->idx, x + C(c)->m, dx + C(c)->m, C(c)->n, &dy[0]);
}
static void g_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = gather_rev(x, xb, C(c)->idx, x + C(c)->m, xb + C(c)->m, C(c)->n, yb[0]);
}
static void go_w(const double *x, double *y, void *c) { gather_out(x, C(c)->idx, x + C(c)->m, y, C(c)->n); }
static void go_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    gather_out_fwd(x, dx, C(c)->idx, x + C(c)->m, dx + C(c)->m, y, dy, C(c)->n);
}
static void go_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    gather_out_rev(x, xb, C(c)->idx, x + C(c)->m, xb + C(c)->m, y, yb, C(c)->n);
}

int main(void) {
    static const int idx[] = {3, 0, 3, 5, 1, 3, 0, 6, 5, 1}; /* x[2], x[4] never read */
    struct ctx c;
    struct gca_problem p = {0};
    c.m = 7, c.n = 10, c.idx = idx;
    p.name = "gather m=7 n=10", p.ctx = &c;
    p.nin = c.m + c.n, p.nout = 1, p.f = g_w, p.fwd = g_wfwd, p.rev = g_wrev;
    gca_check_random(&p, 3, -2, 2);
    p.name = "gather_out m=7 n=10", p.nout = c.n, p.f = go_w, p.fwd = go_wfwd, p.rev = go_wrev;
    gca_check_random(&p, 3, -2, 2);
    c.n = 1;
    p.name = "gather_out m=7 n=1", p.nin = c.m + c.n, p.nout = c.n;
    gca_check_random(&p, 2, -2, 2);
    {   /* Exact adjoints: w = 1, x = 1..7: x_b[k] = 2 x[k] * count(k). */
        double x[7] = {1, 2, 3, 4, 5, 6, 7}, w[10], xb[7] = {0}, wb[10] = {0};
        int i, ok = 1;
        for (i = 0; i < 10; i++)
            w[i] = 1;
        gather_rev(x, xb, idx, w, wb, 10, 1.0);
        ok = xb[0] == 2 * 1 * 2 && xb[1] == 2 * 2 * 2 && xb[2] == 0 && xb[3] == 2 * 4 * 3 && xb[4] == 0 &&
             xb[5] == 2 * 6 * 2 && xb[6] == 2 * 7 * 1;
        for (i = 0; i < 10; i++)
            ok = ok && wb[i] == x[idx[i]] * x[idx[i]];
        gc_expect(ok, "gather exact", "adjoints of repeated and unread indices are wrong");
    }
    return gc_summary();
}
