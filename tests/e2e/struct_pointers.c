/* struct_pointers.c: structs with pointer fields, as numerical C writes
 * its matrix types (ADBench's hand.c `Matrix`; DESIGN.md 8.28): a local's
 * pointer field is a local pointer, null at first and given malloc'd
 * data by assignment; a whole copy of the local aliases its data, and a
 * copy re-pointed at an offset is a view; differentiable callees take
 * them by pointer and read, fill or update the data, their loops bounded
 * by the struct's integer fields and by an ordinary parameter after it;
 * a parameter's data updated in place through such a callee (in-out by
 * DESIGN section 1). Checked against finite differences, by forward /
 * reverse duality and for accumulation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "chad.h"
#include "gradcheck.h"

typedef struct { int nrows, ncols; double *data; } Matrix;

CHAD_DIFFERENTIABLE
static void mat_fill(Matrix *m, const double *x) {
    for (int i = 0; i < m->nrows * m->ncols; i++)
        m->data[i] = sin(x[i]) + x[i] * x[i];
}

/* `rows`, after the struct's leaves in the flat callee, bounds the loop */
CHAD_DIFFERENTIABLE
static void scale_rows(Matrix *m, double a, int rows) {
    for (int i = 0; i < rows * m->ncols; i++)
        m->data[i] *= a + 0.5 * m->data[i];
}

CHAD_DIFFERENTIABLE
static double mat_sumsq(const Matrix *m) {
    double s = 0;
    for (int i = 0; i < m->nrows * m->ncols; i++)
        s += m->data[i] * m->data[i];
    return s;
}

CHAD_DIFFERENTIABLE
double mats(const double *x, int n) {
    Matrix m = {n, 2, NULL};
    Matrix v, w;
    double r;
    m.data = malloc(m.nrows * m.ncols * sizeof *m.data);
    mat_fill(&m, x);
    v = m; /* v.data is m.data */
    scale_rows(&v, x[0], n - 1);
    w = m;
    w.data = m.data + 2; /* from the second row on */
    w.nrows = n - 1;
    scale_rows(&w, x[1], 1);
    r = mat_sumsq(&m) + w.data[0] * v.data[1];
    free(m.data);
    return r;
}

/* a parameter's data, updated in place by a callee */
CHAD_DIFFERENTIABLE
void mat_step(Matrix *m, double a) {
    scale_rows(m, a, m->nrows);
    m->data[0] += a * m->data[m->ncols];
}

struct ctx { int n; };

static void mats_w(const double *x, double *y, void *c) {
    y[0] = mats(x, ((const struct ctx *)c)->n);
}
static void mats_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = mats_fwd(x, dx, ((const struct ctx *)c)->n, &dy[0]);
}
static void mats_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = mats_rev(x, xb, ((const struct ctx *)c)->n, yb[0]);
}

/* mat_step: x = (data[0..2n), a), y = data final */
static void step_w(const double *x, double *y, void *c) {
    int n = ((const struct ctx *)c)->n;
    Matrix m = {n, 2, y};
    memcpy(y, x, sizeof(double) * 2 * (size_t)n);
    mat_step(&m, x[2 * n]);
}
static void step_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = ((const struct ctx *)c)->n;
    Matrix m = {n, 2, y}, dm = {0, 0, dy};
    memcpy(y, x, sizeof(double) * 2 * (size_t)n);
    memcpy(dy, dx, sizeof(double) * 2 * (size_t)n);
    mat_step_fwd(&m, &dm, x[2 * n], dx[2 * n]);
}
static void step_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = ((const struct ctx *)c)->n;
    double data_b[2 * 8];
    Matrix m = {n, 2, y}, mb = {0, 0, data_b};
    memcpy(y, x, sizeof(double) * 2 * (size_t)n);
    memcpy(data_b, yb, sizeof(double) * 2 * (size_t)n);
    mat_step_rev(&m, &mb, x[2 * n], &xb[2 * n]);
    for (int i = 0; i < 2 * n; i++) /* the seed became the initial data's adjoint */
        xb[i] += data_b[i];
}

int main(void) {
    static const int sizes[] = {2, 3, 8};
    struct ctx c;
    struct gca_problem p = {0};
    p.ctx = &c, p.prec = GC_DOUBLE;
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        c.n = sizes[s];
        p.name = "locals with pointer fields", p.f = mats_w, p.fwd = mats_wfwd,
        p.rev = mats_wrev, p.nin = 2 * c.n, p.nout = 1;
        gca_check_random(&p, 3, -1.5, 1.5);
        p.name = "in-out data through a callee", p.f = step_w, p.fwd = step_wfwd,
        p.rev = step_wrev, p.nin = 2 * c.n + 1, p.nout = 2 * c.n;
        gca_check_random(&p, 3, -1.5, 1.5);
    }
    return gc_summary();
}
