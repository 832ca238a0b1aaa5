/* rows.c: parameters C declares as rows (DESIGN 1, 8.41): `const double
 * A[][3]`, `double R[3][3]`, `const double (*M)[4]`, their shadows rows of
 * the same length (`double (*A_b)[3]`), and rows of local two-dimensional
 * arrays used as pointers.
 *
 *   quadform:   rows read at two counters, the rows active;
 *   spin:       a local R[3][3] passed whole to rot, which takes rows and
 *               fills an output through views, in a loop;
 *   scale_rows: rows updated in place (in-out), and twice: passed whole to
 *               scale_rows twice;
 *   rows_views: rows passed on as pointers: M[i], &M[i][0], *M, *(M + 1),
 *               (*M)[2], M + 1, &M[1], M whole;
 *   outer3:     rows written whole by a nest (an output); gram: a local
 *               P[3][3] filled by outer3, its rows passed to dot3;
 *   rows_float: float rows; pairs: int rows (indices, inactive);
 *   weighted:   CHAD_INACTIVE rows (no shadow);
 *   tabled:     a constant 2-D table passed as rows (whole, `T + 1`,
 *               `&T[2]`) to quadform;
 *   lens:       a struct by value beside rows (the struct wrappers pass
 *               the rows and their shadows);
 *   casts:      casts between flat and rows pointers to the same numbers:
 *               rows flattened (`(const double *)A`, `(const double *)A
 *               + 2`, a local `double
 *               R[2][3]` as `(const double *)R`) and a flat array passed
 *               as rows (`(const double (*)[3])w`);
 *   walk_rows:  a pointer walked through rows (p++, q = A[k]).
 */
#include <math.h>
#include <string.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
double quadform(const double A[][3], const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 3; j++)
            s += A[i][j] * x[j] * x[(i + j) % 3];
    return s;
}

CHAD_DIFFERENTIABLE
void rot(const double R[3][3], const double *p, double *out) {
    for (int i = 0; i < 3; i++) {
        out[i] = 0;
        for (int j = 0; j < 3; j++)
            out[i] += R[i][j] * p[j];
    }
}

CHAD_DIFFERENTIABLE
void spin(const double *ang, const double *pts, double *out, int n) {
    double R[3][3];
    double ca = cos(ang[0]), sa = sin(ang[0]), cb = cos(ang[1]), sb = sin(ang[1]);
    R[0][0] = ca, R[0][1] = -sa * cb, R[0][2] = sa * sb;
    R[1][0] = sa, R[1][1] = ca * cb, R[1][2] = -ca * sb;
    R[2][0] = 0, R[2][1] = sb, R[2][2] = cb;
    for (int k = 0; k < n; k++)
        rot(R, &pts[3 * k], &out[3 * k]);
}

CHAD_DIFFERENTIABLE
void scale_rows(double M[][4], int n, double k) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 4; j++)
            M[i][j] *= k * M[i][(j + 1) % 4];
}

CHAD_DIFFERENTIABLE
void twice(double M[][4], int n, double k) {
    scale_rows(M, n, k);
    scale_rows(M, n, k * k);
}

CHAD_DIFFERENTIABLE
double dot4(const double *a, const double *b) {
    double s = 0;
    for (int j = 0; j < 4; j++)
        s += a[j] * b[j];
    return s;
}

CHAD_DIFFERENTIABLE
double block(const double (*M)[4], int rows) {
    double s = 0;
    for (int i = 0; i < rows; i++)
        s += M[i][1] * M[i][2] - M[i][3];
    return s;
}

CHAD_DIFFERENTIABLE
double rows_views(const double (*M)[4], const double *w, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += dot4(M[i], w) * dot4(&M[i][0], *M);
    s += dot4(*(M + 1), w) * (*M)[2];
    s += block(M + 1, n - 1) + block(&M[1], 1) + block(M, n);
    return s;
}

CHAD_DIFFERENTIABLE
void outer3(const double *a, const double *b, double P[3][3]) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            P[i][j] = a[i] * b[j] + (i == j);
}

CHAD_DIFFERENTIABLE
double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

CHAD_DIFFERENTIABLE
double gram(const double *a, const double *b) {
    double P[3][3];
    outer3(a, b, P);
    double s = 0;
    for (int i = 0; i < 3; i++)
        s += dot3(P[i], a) * dot3(P[(i + 1) % 3], b);
    return s + dot3(&P[1][0], P[2]);
}

CHAD_DIFFERENTIABLE
float rows_float(const float A[][2], int n) {
    float s = 0;
    for (int i = 0; i < n; i++)
        s += A[i][0] * sinf(A[i][1]);
    return s;
}

CHAD_DIFFERENTIABLE
double pairs(const int idx[][2], const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[idx[i][0]] * x[idx[i][1]];
    return s;
}

CHAD_DIFFERENTIABLE
double weighted(CHAD_INACTIVE const double D[][2], const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += D[i][0] * x[i] + D[i][1] * x[i] * x[i];
    return s;
}

static const double table[4][3] = {{1, 0.5, 0}, {0, 2, -1}, {0.25, 0, 3}, {1, 1, 1}};

CHAD_DIFFERENTIABLE
double tabled(const double *x) {
    return quadform(table, x, 4) + quadform(table + 1, x, 2) * quadform(&table[2], x, 1);
}

typedef struct { double gain, bias; } Lens;

CHAD_DIFFERENTIABLE
double lens(Lens l, const double A[][2], int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += l.gain * A[i][0] * A[i][1] + l.bias * (*(A + i))[1];
    return s;
}

CHAD_DIFFERENTIABLE
double sum_flat(const double *a, int m) {
    double s = 0;
    for (int k = 0; k < m; k++)
        s += a[k] * a[(k + 1) % m];
    return s;
}

CHAD_DIFFERENTIABLE
double casts(const double A[][3], const double *w, int n) {
    const double *a = (const double *)A;
    double R[2][3];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            R[i][j] = a[i * 3 + j] * w[j];
    double s = sum_flat((const double *)A, 3 * n) + sum_flat((const double *)R, 6) +
               sum_flat((const double *)A + 2, 3 * n - 2);
    return s + quadform((const double (*)[3])w, a, 2) + quadform((const double (*)[3])(w + 3), &A[1][0], 1);
}

/* a pointer walked through rows: stepped, reassigned to another row */
CHAD_DIFFERENTIABLE
double walk_rows(const double A[][3], int n) {
    const double *p = (const double *)A, *q = A[1];
    double s = 0;
    for (int k = 0; k < 3 * n; k++) {
        s += *p * q[0];
        p++;
        if (k % 3 == 2)
            q = A[(k / 3 + 1) % n];
    }
    return s;
}

/* ------------------------------------------------------------ wrappers */

#define ROWS3(p) ((const double (*)[3])(p))
#define ROWS4(p) ((const double (*)[4])(p))

/* quadform: x = (A 4x3, x 3) */
static void qf_w(const double *x, double *y, void *c) { (void)c, y[0] = quadform(ROWS3(x), x + 12, 4); }
static void qf_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c, y[0] = quadform_fwd(ROWS3(x), ROWS3(dx), x + 12, dx + 12, 4, &dy[0]);
}
static void qf_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c, y[0] = quadform_rev(ROWS3(x), (double (*)[3])xb, x + 12, xb + 12, 4, yb[0]);
}
/* spin: x = (ang 2, pts 3x3), y = out 9 */
static void sp_w(const double *x, double *y, void *c) { (void)c, spin(x, x + 2, y, 3); }
static void sp_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c, spin_fwd(x, dx, x + 2, dx + 2, y, dy, 3);
}
static void sp_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c, spin_rev(x, xb, x + 2, xb + 2, y, yb, 3);
}
/* scale_rows and twice: x = (M 3x4, k), y = M after */
typedef void (*rows_inout)(double (*)[4], int, double);
typedef void (*rows_inout_fwd)(double (*)[4], double (*)[4], int, double, double);
typedef void (*rows_inout_rev)(double (*)[4], double (*)[4], int, double, double *);
struct inout_fns { rows_inout f; rows_inout_fwd fwd; rows_inout_rev rev; };
static void sc_w(const double *x, double *y, void *c) {
    memcpy(y, x, 12 * sizeof *y);
    ((const struct inout_fns *)c)->f((double (*)[4])y, 3, x[12]);
}
static void sc_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    memcpy(y, x, 12 * sizeof *y), memcpy(dy, dx, 12 * sizeof *dy);
    ((const struct inout_fns *)c)->fwd((double (*)[4])y, (double (*)[4])dy, 3, x[12], dx[12]);
}
static void sc_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    double mb[12];
    memcpy(y, x, 12 * sizeof *y), memcpy(mb, yb, sizeof mb);
    ((const struct inout_fns *)c)->rev((double (*)[4])y, (double (*)[4])mb, 3, x[12], &xb[12]);
    for (int i = 0; i < 12; i++)
        xb[i] += mb[i];
}
/* rows_views: x = (M 3x4, w 4) */
static void rv_w(const double *x, double *y, void *c) { (void)c, y[0] = rows_views(ROWS4(x), x + 12, 3); }
static void rv_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c, y[0] = rows_views_fwd(ROWS4(x), ROWS4(dx), x + 12, dx + 12, 3, &dy[0]);
}
static void rv_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c, y[0] = rows_views_rev(ROWS4(x), (double (*)[4])xb, x + 12, xb + 12, 3, yb[0]);
}
/* outer3: x = (a 3, b 3), y = P 3x3 */
static void ou_w(const double *x, double *y, void *c) { (void)c, outer3(x, x + 3, (double (*)[3])y); }
static void ou_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c, outer3_fwd(x, dx, x + 3, dx + 3, (double (*)[3])y, (double (*)[3])dy);
}
static void ou_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c, outer3_rev(x, xb, x + 3, xb + 3, (double (*)[3])y, ROWS3(yb));
}
/* gram: x = (a 3, b 3) */
static void gr_w(const double *x, double *y, void *c) { (void)c, y[0] = gram(x, x + 3); }
static void gr_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c, y[0] = gram_fwd(x, dx, x + 3, dx + 3, &dy[0]);
}
static void gr_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c, y[0] = gram_rev(x, xb, x + 3, xb + 3, yb[0]);
}
/* pairs: x = x 4, the index rows fixed */
static const int pair_idx[5][2] = {{0, 1}, {1, 1}, {3, 2}, {2, 0}, {3, 3}};
static void pa_w(const double *x, double *y, void *c) { (void)c, y[0] = pairs(pair_idx, x, 5); }
static void pa_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c, y[0] = pairs_fwd(pair_idx, x, dx, 5, &dy[0]);
}
static void pa_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c, y[0] = pairs_rev(pair_idx, x, xb, 5, yb[0]);
}
/* weighted: x = x 3, D fixed and inactive */
static const double wd[3][2] = {{0.5, -1.25}, {2, 0.75}, {-1, 3}};
static void we_w(const double *x, double *y, void *c) { (void)c, y[0] = weighted(wd, x, 3); }
static void we_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c, y[0] = weighted_fwd(wd, x, dx, 3, &dy[0]);
}
static void we_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c, y[0] = weighted_rev(wd, x, xb, 3, yb[0]);
}
/* tabled: x = x 3 */
static void tb_w(const double *x, double *y, void *c) { (void)c, y[0] = tabled(x); }
static void tb_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c, y[0] = tabled_fwd(x, dx, &dy[0]);
}
static void tb_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c, y[0] = tabled_rev(x, xb, yb[0]);
}
/* lens: x = (gain, bias, A 3x2) */
static void le_w(const double *x, double *y, void *c) {
    Lens l = {x[0], x[1]};
    (void)c, y[0] = lens(l, (const double (*)[2])(x + 2), 3);
}
static void le_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    Lens l = {x[0], x[1]}, dl = {dx[0], dx[1]};
    (void)c, y[0] = lens_fwd(l, dl, (const double (*)[2])(x + 2), (const double (*)[2])(dx + 2), 3, &dy[0]);
}
static void le_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    Lens lb = {0, 0}, l = {x[0], x[1]};
    (void)c, y[0] = lens_rev(l, &lb, (const double (*)[2])(x + 2), (double (*)[2])(xb + 2), 3, yb[0]);
    xb[0] += lb.gain, xb[1] += lb.bias;
}
/* casts: x = (A 3x3, w 9) */
static void ca_w(const double *x, double *y, void *c) { (void)c, y[0] = casts(ROWS3(x), x + 9, 3); }
static void ca_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c, y[0] = casts_fwd(ROWS3(x), ROWS3(dx), x + 9, dx + 9, 3, &dy[0]);
}
static void ca_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c, y[0] = casts_rev(ROWS3(x), (double (*)[3])xb, x + 9, xb + 9, 3, yb[0]);
}
/* walk_rows: x = A 3x3 */
static void wr_w(const double *x, double *y, void *c) { (void)c, y[0] = walk_rows(ROWS3(x), 3); }
static void wr_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c, y[0] = walk_rows_fwd(ROWS3(x), ROWS3(dx), 3, &dy[0]);
}
static void wr_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c, y[0] = walk_rows_rev(ROWS3(x), (double (*)[3])xb, 3, yb[0]);
}
/* rows_float: x = A 3x2 */
static double rf_gc(const double *x, void *c) {
    float a[3][2];
    (void)c, gca_tof(&a[0][0], x, 6);
    return rows_float(a, 3);
}
static double rf_gc_fwd(const double *x, const double *dx, double *d_ret, void *c) {
    float a[3][2], da[3][2], d;
    (void)c, gca_tof(&a[0][0], x, 6), gca_tof(&da[0][0], dx, 6);
    float v = rows_float_fwd((const float (*)[2])a, (const float (*)[2])da, 3, &d);
    *d_ret = d;
    return v;
}
static double rf_gc_rev(const double *x, double *x_b, double ret_b, void *c) {
    float a[3][2], ab[3][2];
    (void)c, gca_tof(&a[0][0], x, 6), gca_tof(&ab[0][0], x_b, 6);
    float v = rows_float_rev((const float (*)[2])a, ab, 3, (float)ret_b);
    gca_tod(x_b, &ab[0][0], 6);
    return v;
}

int main(void) {
    struct gca_problem p = {0};
    static const struct inout_fns scale_fns = {scale_rows, scale_rows_fwd, scale_rows_rev};
    static const struct inout_fns twice_fns = {twice, twice_fwd, twice_rev};
    p.nout = 1;
    p.name = "quadform", p.nin = 15, p.f = qf_w, p.fwd = qf_fwd, p.rev = qf_rev;
    gca_check_random(&p, 3, -2, 2);
    p.name = "rows_views", p.nin = 16, p.f = rv_w, p.fwd = rv_fwd, p.rev = rv_rev;
    gca_check_random(&p, 3, -2, 2);
    p.name = "gram", p.nin = 6, p.f = gr_w, p.fwd = gr_fwd, p.rev = gr_rev;
    gca_check_random(&p, 3, -2, 2);
    p.name = "pairs", p.nin = 4, p.f = pa_w, p.fwd = pa_fwd, p.rev = pa_rev;
    gca_check_random(&p, 3, -2, 2);
    p.name = "weighted", p.nin = 3, p.f = we_w, p.fwd = we_fwd, p.rev = we_rev;
    gca_check_random(&p, 3, -2, 2);
    p.name = "tabled", p.nin = 3, p.f = tb_w, p.fwd = tb_fwd, p.rev = tb_rev;
    gca_check_random(&p, 3, -2, 2);
    p.name = "lens", p.nin = 8, p.f = le_w, p.fwd = le_fwd, p.rev = le_rev;
    gca_check_random(&p, 3, -2, 2);
    p.name = "casts", p.nin = 18, p.f = ca_w, p.fwd = ca_fwd, p.rev = ca_rev;
    gca_check_random(&p, 3, -2, 2);
    p.name = "walk_rows", p.nin = 9, p.f = wr_w, p.fwd = wr_fwd, p.rev = wr_rev;
    gca_check_random(&p, 3, -2, 2);
    p.name = "spin", p.nin = 11, p.nout = 9, p.f = sp_w, p.fwd = sp_fwd, p.rev = sp_rev;
    gca_check_random(&p, 3, -2, 2);
    p.name = "outer3", p.nin = 6, p.nout = 9, p.f = ou_w, p.fwd = ou_fwd, p.rev = ou_rev;
    gca_check_random(&p, 3, -2, 2);
    p.name = "scale_rows", p.nin = 13, p.nout = 12, p.f = sc_w, p.fwd = sc_fwd, p.rev = sc_rev;
    p.ctx = (void *)&scale_fns;
    gca_check_random(&p, 3, -1.5, 1.5);
    p.name = "twice", p.ctx = (void *)&twice_fns;
    gca_check_random(&p, 3, -1.2, 1.2);
    {
        static const double pts[] = {0.3, -1.1, 0.7, 2.0, -0.4, 1.5, 0.9, 0.2, -0.6, 1.1, 1.7, -2.2};
        gc_check("rows_float", 6, rf_gc, rf_gc_fwd, rf_gc_rev, NULL, GC_FLOAT, 12, pts);
    }
    {   /* values: a rotation keeps length; the rows are those C lays out */
        double ang[2] = {0.4, -1.3}, pts[6] = {1, 2, 2, 0, 3, 4}, out[6];
        double A[2][3] = {{1, 0, 0}, {0, 2, 0}}, x[3] = {1, 1, 1};
        spin(ang, pts, out, 2);
        gc_expect(fabs(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] - 9) < 1e-12 &&
                      fabs(out[3] * out[3] + out[4] * out[4] + out[5] * out[5] - 25) < 1e-12,
                  "spin lengths", "wrong value");
        gc_expect(quadform(A, x, 2) == 3, "quadform value", "wrong value");
    }
    return gc_summary();
}
