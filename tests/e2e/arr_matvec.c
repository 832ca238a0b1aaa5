/* arr_matvec.c: end-to-end test of an output array: y = A x for a row-major
 * n x m matrix A.  The outer loop writes y[i] (a build), the inner one is a
 * sum.  f_fwd fills dy with the tangent of y, f_rev reads the seed y_b. */
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
void matvec(const double *A, const double *x, double *y, int n, int m) {
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j < m; j++)
            s += A[i * m + j] * x[j];
        y[i] = s;
    }
}

/* y = tanh(A x + b): the output is a nonlinear function of an inner sum. */
CHAD_DIFFERENTIABLE
void layer(const double *A, const double *x, const double *b, double *y, int n, int m) {
    for (int i = 0; i < n; i++) {
        double s = b[i];
        for (int j = 0; j < m; j++)
            s += A[i * m + j] * x[j];
        y[i] = tanh(s);
    }
}

struct ctx { int n, m; };
#define NN(c) (((const struct ctx *)(c))->n)
#define MM(c) (((const struct ctx *)(c))->m)

/* x = (A, x), y = A x */
static void mv_w(const double *x, double *y, void *c) { matvec(x, x + NN(c) * MM(c), y, NN(c), MM(c)); }
static void mv_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int nm = NN(c) * MM(c);
    matvec_fwd(x, dx, x + nm, dx + nm, y, dy, NN(c), MM(c));
}
static void mv_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int nm = NN(c) * MM(c);
    matvec_rev(x, xb, x + nm, xb + nm, y, yb, NN(c), MM(c));
}

/* x = (A, x, b), y = tanh(A x + b) */
static void layer_w(const double *x, double *y, void *c) {
    int nm = NN(c) * MM(c);
    layer(x, x + nm, x + nm + MM(c), y, NN(c), MM(c));
}
static void layer_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int nm = NN(c) * MM(c);
    layer_fwd(x, dx, x + nm, dx + nm, x + nm + MM(c), dx + nm + MM(c), y, dy, NN(c), MM(c));
}
static void layer_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int nm = NN(c) * MM(c);
    layer_rev(x, xb, x + nm, xb + nm, x + nm + MM(c), xb + nm + MM(c), y, yb, NN(c), MM(c));
}

int main(void) {
    static const int shapes[][2] = {{1, 1}, {3, 4}, {5, 2}, {8, 8}};
    char name[64];
    unsigned k;
    for (k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        struct ctx c;
        struct gca_problem p = {0};
        c.n = shapes[k][0], c.m = shapes[k][1];
        p.name = name;
        p.ctx = &c;
        snprintf(name, sizeof name, "matvec %dx%d", c.n, c.m);
        p.nin = c.n * c.m + c.m, p.nout = c.n, p.f = mv_w, p.fwd = mv_wfwd, p.rev = mv_wrev;
        gca_check_random(&p, 3, -1.5, 1.5);
        snprintf(name, sizeof name, "layer %dx%d", c.n, c.m);
        p.nin = c.n * c.m + c.m + c.n, p.f = layer_w, p.fwd = layer_wfwd, p.rev = layer_wrev;
        gca_check_random(&p, 3, -0.7, 0.7);
    }
    return gc_summary();
}
