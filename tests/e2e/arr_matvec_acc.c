/* arr_matvec_acc.c: end-to-end test of an output array updated in place:
 * y = A^T x, written as y[j] = 0 for all j, then y[j] += A[i][j] x[i] in a
 * double loop (the row loop outside), so each y[j] is read and written
 * once per row; and y = A x with the accumulation straight into y[i]. */
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
void matTvec(const double *A, const double *x, double *y, int n, int m) {
    for (int j = 0; j < m; j++)
        y[j] = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            y[j] += A[i * m + j] * x[i];
}

CHAD_DIFFERENTIABLE
void matvec_inplace(const double *A, const double *x, double *y, int n, int m) {
    for (int i = 0; i < n; i++) {
        y[i] = 0;
        for (int j = 0; j < m; j++)
            y[i] += A[i * m + j] * x[j];
    }
}

struct ctx { int n, m; };
#define NN(c) (((const struct ctx *)(c))->n)
#define MM(c) (((const struct ctx *)(c))->m)

/* x = (A (n x m), x (n)), y (m) */
static void mt_w(const double *x, double *y, void *c) { matTvec(x, x + NN(c) * MM(c), y, NN(c), MM(c)); }
static void mt_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int nm = NN(c) * MM(c);
    matTvec_fwd(x, dx, x + nm, dx + nm, y, dy, NN(c), MM(c));
}
static void mt_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int nm = NN(c) * MM(c);
    matTvec_rev(x, xb, x + nm, xb + nm, y, yb, NN(c), MM(c));
}
/* x = (A (n x m), x (m)), y (n) */
static void mi_w(const double *x, double *y, void *c) { matvec_inplace(x, x + NN(c) * MM(c), y, NN(c), MM(c)); }
static void mi_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int nm = NN(c) * MM(c);
    matvec_inplace_fwd(x, dx, x + nm, dx + nm, y, dy, NN(c), MM(c));
}
static void mi_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int nm = NN(c) * MM(c);
    matvec_inplace_rev(x, xb, x + nm, xb + nm, y, yb, NN(c), MM(c));
}

int main(void) {
    static const int shapes[][2] = {{1, 1}, {3, 4}, {5, 2}};
    char name[64];
    unsigned k;
    for (k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        struct ctx c;
        struct gca_problem p = {0};
        c.n = shapes[k][0], c.m = shapes[k][1];
        p.name = name, p.ctx = &c;
        snprintf(name, sizeof name, "matTvec %dx%d", c.n, c.m);
        p.nin = c.n * c.m + c.n, p.nout = c.m, p.f = mt_w, p.fwd = mt_wfwd, p.rev = mt_wrev;
        gca_check_random(&p, 3, -1.5, 1.5);
        snprintf(name, sizeof name, "matvec_inplace %dx%d", c.n, c.m);
        p.nin = c.n * c.m + c.m, p.nout = c.n, p.f = mi_w, p.fwd = mi_wfwd, p.rev = mi_wrev;
        gca_check_random(&p, 3, -1.5, 1.5);
    }
    return gc_summary();
}
