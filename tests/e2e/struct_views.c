/* struct_views.c: structs returned by value whose pointer fields point into
 * an array parameter: views, as a row accessor or a slice helper returns
 * them (DESIGN.md 8.46). In a caller the returned pointer is a view of the
 * array the caller passed; f_fwd's d_ret points at the same offset into
 * that array's shadow; f_rev returns the view and ignores ret_b's pointer
 * fields (the adjoint of the data is the array's own shadow). Also pointer
 * differences (`p - x`, `c - b`) of pointers into one array, which such
 * helpers compute. Checked against finite differences, by forward /
 * reverse duality and for accumulation, and the returned pointers exactly. */
#include <math.h>
#include <stddef.h>
#include "chad.h"
#include "gradcheck.h"

typedef struct {
    const double *d;
    int n;
} Vec;

typedef struct {
    double scale;
    Vec v;
} Span;

/* the view of row i of an n x m matrix */
CHAD_DIFFERENTIABLE
static Vec row(const double *A, int i, int m) {
    Vec v = {A + i * m, m};
    return v;
}

/* a view passed on, one row further, from an initializer list */
CHAD_DIFFERENTIABLE
static Vec next_row(const double *A, int i, int m) {
    return row(A, i + 1, m);
}

/* of two arrays, the view points into the one used as a pointer value;
 * w is only indexed */
CHAD_DIFFERENTIABLE
static Span tail(const double *w, const double *x, int k, int n) {
    Span s;
    s.scale = w[0] * x[k];
    s.v.d = &x[k];
    s.v.n = n - k;
    return s;
}

/* a non-const field: a cast that drops const, assigned field by field */
typedef struct {
    double *d;
    int n;
} MVec;

CHAD_DIFFERENTIABLE
static MVec mrow(const double *A, int i) {
    MVec v;
    v.d = (double *)(A + 2 * i);
    v.n = 2;
    return v;
}

CHAD_DIFFERENTIABLE
double row_norms(const double *A, int n, int m) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        Vec r = row(A, i, m);
        double t = 0;
        for (int j = 0; j < r.n; j++)
            t += r.d[j] * r.d[j];
        s += sqrt(t + 1.0);
    }
    for (int i = 0; i + 1 < n; i++)
        s += next_row(A, i, m).d[0] * row(A, i, m).d[m - 1];
    MVec t = mrow(A, 1);
    return s + t.d[1] * t.d[0] + (double)t.n;
}

CHAD_DIFFERENTIABLE
double tail_sum(const double *w, const double *x, int n) {
    double s = 0;
    for (int k = 0; k < n; k++) {
        Span t = tail(w, x, k, n);
        for (int j = 0; j < t.v.n; j++)
            s += t.scale * sin(t.v.d[j]);
    }
    return s;
}

/* in-out data seen through a returned view: written in place */
CHAD_DIFFERENTIABLE
static Vec slot(const double *y, int i) {
    Vec v = {y + 2 * i, 2};
    return v;
}

CHAD_DIFFERENTIABLE
double offsets(const double *x, int n) {
    const double *p = x + 1;
    const double *q = p + 2;
    double s = 0;
    for (int i = 0; i < n - 3; i++) {
        ptrdiff_t k = q - x; /* 3 */
        s += x[i] * p[i] * (double)(k - (p - x)) + (double)(q - p) * q[i - i];
    }
    for (const double *r = x; r < x + n; r++)
        s += *r * (double)(r - x);
    return s + (double)(slot(x, 1).d - x) + (double)(q > p) - (double)(p >= q);
}

enum { N = 3, M = 4 };
static int nn = N;

static void rn_w(const double *x, double *y, void *c) {
    (void)c;
    y[0] = row_norms(x, N, M);
}
static void rn_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c;
    y[0] = row_norms_fwd(x, dx, N, M, &dy[0]);
}
static void rn_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c;
    y[0] = row_norms_rev(x, xb, N, M, yb[0]);
}

static void ts_w(const double *x, double *y, void *c) {
    (void)c;
    y[0] = tail_sum(x, x + 1, nn);
}
static void ts_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c;
    y[0] = tail_sum_fwd(x, dx, x + 1, dx + 1, nn, &dy[0]);
}
static void ts_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    double wb[1] = {0};
    (void)c;
    y[0] = tail_sum_rev(x, wb, x + 1, xb + 1, nn, yb[0]);
    xb[0] += wb[0];
}

static void of_w(const double *x, double *y, void *c) {
    (void)c;
    y[0] = offsets(x, 6);
}
static void of_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c;
    y[0] = offsets_fwd(x, dx, 6, &dy[0]);
}
static void of_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c;
    y[0] = offsets_rev(x, xb, 6, yb[0]);
}

/* the views f_fwd and f_rev return, and f_fwd's shadow views */
static void check_returned(void) {
    double A[N * M], dA[N * M], Ab[N * M] = {0};
    for (int k = 0; k < N * M; k++)
        A[k] = 0.1 * k, dA[k] = 1.0 + k;
    Vec d = {0, 0};
    Vec r = row_fwd(A, dA, 2, M, &d);
    gc_expect(r.d == A + 2 * M && r.n == M && d.d == dA + 2 * M, "row_fwd",
              "the view or its shadow points elsewhere");
    Vec seed = {0, 7};
    r = row_rev(A, Ab, 1, M, seed);
    gc_expect(r.d == A + M && r.n == M, "row_rev", "the view points elsewhere");
    for (int k = 0; k < N * M; k++)
        gc_expect(Ab[k] == 0, "row_rev", "an adjoint was added for a view");
    r = next_row_fwd(A, dA, 0, M, &d);
    gc_expect(r.d == A + M && d.d == dA + M, "next_row_fwd", "the view or its shadow points elsewhere");
    double w[1] = {2}, dw[1] = {0};
    Span sd;
    Span s = tail_fwd(w, dw, A, dA, 3, 5, &sd);
    gc_expect(s.v.d == A + 3 && s.v.n == 2 && sd.v.d == dA + 3 && s.scale == 2 * A[3] &&
                  sd.scale == 2 * dA[3],
              "tail_fwd", "the view, its shadow or the scale is wrong");
}

int main(void) {
    struct gca_problem p = {0};
    p.prec = GC_DOUBLE;
    p.name = "returned row views", p.f = rn_w, p.fwd = rn_wfwd, p.rev = rn_wrev;
    p.nin = N * M, p.nout = 1;
    gca_check_random(&p, 4, -1.0, 1.0);
    p.name = "a returned view into the second array", p.f = ts_w, p.fwd = ts_wfwd, p.rev = ts_wrev;
    p.nin = 1 + N, p.nout = 1;
    gca_check_random(&p, 4, -1.0, 1.0);
    p.name = "pointer differences", p.f = of_w, p.fwd = of_wfwd, p.rev = of_wrev;
    p.nin = 6, p.nout = 1;
    gca_check_random(&p, 4, -1.0, 1.0);
    check_returned();
    return gc_summary();
}
