/* views.c: end-to-end test of pointers into arrays (read-only views):
 * `&x[k]` and `x + k` passed to differentiable functions (their adjoints
 * land at the same offsets of the caller's shadow), local pointers
 * `const double *row = A + i * m;` read in loops, `*p` and `*(p + k)`,
 * views of views, a view of a local array, and ADBench's way of summing
 * the rows of a matrix through `&Qdiags[ik * p]`. */
#include <math.h>

#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
double sqnorm(int n, const double *x) {
    double res = x[0] * x[0];
    for (int i = 1; i < n; i++)
        res = res + x[i] * x[i];
    return res;
}

CHAD_DIFFERENTIABLE
double dotv(const double *a, const double *b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* rows of an m x k matrix through &A[i * k] (as ADBench's GMM does) */
CHAD_DIFFERENTIABLE
double row_norms(const double *A, int m, int k) {
    double out = 0;
    for (int i = 0; i < m; i++)
        out = out + sin(sqnorm(k, &A[i * k]));
    return out;
}

/* a local pointer to the row, read in the loop; x + k as an argument */
CHAD_DIFFERENTIABLE
double matvec_dot(const double *A, const double *x, int m, int k) {
    double s = 0;
    for (int i = 0; i < m; i++) {
        const double *row = A + i * k;
        double r = 0;
        for (int j = 0; j < k; j++)
            r += row[j] * x[j];
        s += r * r + dotv(row, x + 1, k - 1);
    }
    return s;
}

/* *p and *(p + k), views of views (n >= 3) */
CHAD_DIFFERENTIABLE
double derefs(const double *x, int n) {
    const double *tail = &x[1];
    const double *tail2 = tail + 1;
    double s = *x * *tail;
    for (int i = 0; i + 2 < n; i++)
        s += *(tail2 + i) * cos(*(tail + i));
    return s + *tail2;
}

/* a view of a local array built in the function */
CHAD_DIFFERENTIABLE
double local_view(const double *x, int n) {
    double t[8];
    for (int i = 0; i < 8; i++)
        t[i] = x[i % n] * (i + 1);
    return sqnorm(4, &t[4]) + dotv(t + 2, x, n < 6 ? n : 6);
}

/* the result through a pointer, as ADBench writes it: *err = ... */
CHAD_DIFFERENTIABLE
void objective(const double *x, int n, double *err) {
    *err = sqnorm(n, x) + *(x + n - 1);
}

struct ctx { int m, k; };
#define M(c) (((const struct ctx *)(c))->m)
#define K(c) (((const struct ctx *)(c))->k)
static void rn_w(const double *x, double *y, void *c) { y[0] = row_norms(x, M(c), K(c)); }
static void rn_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = row_norms_fwd(x, dx, M(c), K(c), &dy[0]);
}
static void rn_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = row_norms_rev(x, xb, M(c), K(c), yb[0]);
}
/* x = (A[m*k], x[k]) */
static void mv_w(const double *x, double *y, void *c) { y[0] = matvec_dot(x, x + M(c) * K(c), M(c), K(c)); }
static void mv_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int o = M(c) * K(c);
    y[0] = matvec_dot_fwd(x, dx, x + o, dx + o, M(c), K(c), &dy[0]);
}
static void mv_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int o = M(c) * K(c);
    y[0] = matvec_dot_rev(x, xb, x + o, xb + o, M(c), K(c), yb[0]);
}
static void dr_w(const double *x, double *y, void *c) { y[0] = derefs(x, K(c)); }
static void dr_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = derefs_fwd(x, dx, K(c), &dy[0]);
}
static void dr_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = derefs_rev(x, xb, K(c), yb[0]);
}
static void lv_w(const double *x, double *y, void *c) { y[0] = local_view(x, K(c)); }
static void lv_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = local_view_fwd(x, dx, K(c), &dy[0]);
}
static void lv_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = local_view_rev(x, xb, K(c), yb[0]);
}

static void ob_w(const double *x, double *y, void *c) { objective(x, K(c), y); }
static void ob_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    objective_fwd(x, dx, K(c), y, dy);
}
static void ob_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    objective_rev(x, xb, K(c), y, yb);
}

static void check(const char *what, struct ctx *c, int nin, gca_fn f, gca_fwd_fn fwd, gca_rev_fn rev) {
    char name[64];
    struct gca_problem p = {0};
    snprintf(name, sizeof name, "%s m=%d k=%d", what, c->m, c->k);
    p.name = name, p.ctx = c, p.nin = nin, p.nout = 1, p.f = f, p.fwd = fwd, p.rev = rev;
    gca_check_random(&p, 4, -1.5, 1.5);
}

int main(void) {
    static const struct ctx sizes[] = {{1, 2}, {3, 2}, {2, 5}, {4, 3}};
    for (unsigned s = 0; s < 4; s++) {
        struct ctx c = sizes[s];
        check("row_norms", &c, c.m * c.k, rn_w, rn_wfwd, rn_wrev);
        check("matvec_dot", &c, c.m * c.k + c.k, mv_w, mv_wfwd, mv_wrev);
        if (c.k >= 3) /* reads x[0..2] */
            check("derefs", &c, c.k, dr_w, dr_wfwd, dr_wrev);
        check("local_view", &c, c.k, lv_w, lv_wfwd, lv_wrev);
        check("objective", &c, c.k, ob_w, ob_wfwd, ob_wrev);
    }
    return gc_summary();
}
