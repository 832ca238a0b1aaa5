/* tables.c: end-to-end test of constant tables and multi-dimensional
 * arrays, as optimisation test functions write them.
 *
 *   shekel:   Shekel's function (m = 10), a file-scope static const
 *             double A[10][4] read as A[i][j] in a nested loop, and a 1-D
 *             table c[10] read at the loop counter;
 *   hartmann: Hartmann's 3-D function, three file-scope tables of two and
 *             one dimensions (not static) and a const global scalar;
 *   interp:   piecewise-linear interpolation in a 1-D table, read at an
 *             index computed from the input (k and k + 1);
 *   quad:     Gauss-Legendre quadrature with its nodes in a static const
 *             table and its weights in a const (automatic) table, both
 *             inside the function;
 *   permuted: a const int table used as indices into the input;
 *   rotate:   a local double R[3][3] scratch matrix, built from three
 *             angles with constant indices and applied to a vector with
 *             loop counters;
 *   det2, mat23: local two-dimensional arrays with constant indices
 *             only, and with an initializer, updated and read at k;
 *   taylorf:  a float table;
 *   shekel_rows, weighted, spline, taylor2f: tables passed to
 *             differentiable functions: rows of a 2-D table (shekel_A[i]),
 *             a 2-D table flattened by a cast and a pointer into it, a
 *             whole 1-D table, a view into one (&knots[k], knots + k), an
 *             int table and a float one, also passed on by the callee and
 *             to a callee that writes an output array.
 */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

static const double shekel_A[10][4] = {
    {4, 4, 4, 4}, {1, 1, 1, 1}, {8, 8, 8, 8}, {6, 6, 6, 6}, {3, 7, 3, 7},
    {2, 9, 2, 9}, {5, 5, 3, 3}, {8, 1, 8, 1}, {6, 2, 6, 2}, {7, 3.6, 7, 3.6},
};
static const double shekel_c[10] = {0.1, 0.2, 0.2, 0.4, 0.4, 0.6, 0.3, 0.7, 0.5, 0.5};

CHAD_DIFFERENTIABLE
double shekel(const double *x) {
    double f = 0;
    for (int i = 0; i < 10; i++) {
        double d = shekel_c[i];
        for (int j = 0; j < 4; j++)
            d += (x[j] - shekel_A[i][j]) * (x[j] - shekel_A[i][j]);
        f -= 1 / d;
    }
    return f;
}

const double hartmann_alpha[4] = {1.0, 1.2, 3.0, 3.2};
const double hartmann_A[4][3] = {{3, 10, 30}, {0.1, 10, 35}, {3, 10, 30}, {0.1, 10, 35}};
const double hartmann_P[4][3] = {
    {0.3689, 0.1170, 0.2673},
    {0.4699, 0.4387, 0.7470},
    {0.1091, 0.8732, 0.5547},
    {0.0381, 0.5743, 0.8828},
};
const double hartmann_scale = -1.0;

CHAD_DIFFERENTIABLE
double hartmann(const double *x) {
    double f = 0;
    for (unsigned i = 0; i < 4; i++) {
        double e = 0;
        for (unsigned j = 0; j < 3; j++) {
            double d = x[j] - hartmann_P[i][j];
            e += hartmann_A[i][j] * d * d;
        }
        f += hartmann_alpha[i] * exp(-e);
    }
    return hartmann_scale * f;
}

static const double knots[8] = {0.0, 0.5, 0.8, 0.6, -0.2, -1.0, 0.3, 2.0};

CHAD_DIFFERENTIABLE
double interp(double t) {
    double u = t * 7;
    int k = (int)floor(u);
    if (k < 0)
        k = 0;
    if (k > 6)
        k = 6;
    return knots[k] + (u - k) * (knots[k + 1] - knots[k]);
}

CHAD_DIFFERENTIABLE
double quad(double p, double q) {
    static const double nodes[5] = {-0.9061798459386640, -0.5384693101056831, 0.0,
                                    0.5384693101056831, 0.9061798459386640};
    const double weights[5] = {0.2369268850561891, 0.4786286704993665, 0.5688888888888889,
                               0.4786286704993665, 0.2369268850561891};
    double s = 0;
    for (int k = 0; k < 5; k++)
        s += weights[k] * exp(-p * nodes[k] * nodes[k]) * cos(q * nodes[k]);
    return s + weights[2] * nodes[4];
}

static const int perm[6] = {3, 0, 5, 1, 4, 2};
static const short sign[6] = {1, -1, 1, 1, -1, 1};

CHAD_DIFFERENTIABLE
double permuted(const double *x) {
    double s = 0;
    for (int i = 0; i < 6; i++)
        s += sign[i] * x[perm[i]] * x[i] + x[perm[perm[i]]];
    return s;
}

CHAD_DIFFERENTIABLE
double rotate(const double *a, const double *v) {
    double R[3][3];
    double ca = cos(a[0]), sa = sin(a[0]), cb = cos(a[1]), sb = sin(a[1]);
    double cc = cos(a[2]), sc = sin(a[2]);
    R[0][0] = ca * cb;
    R[0][1] = ca * sb * sc - sa * cc;
    R[0][2] = ca * sb * cc + sa * sc;
    R[1][0] = sa * cb;
    R[1][1] = sa * sb * sc + ca * cc;
    R[1][2] = sa * sb * cc - ca * sc;
    R[2][0] = -sb;
    R[2][1] = cb * sc;
    R[2][2] = cb * cc;
    double s = 0;
    for (int i = 0; i < 3; i++) {
        double y = 0;
        for (int j = 0; j < 3; j++)
            y += R[i][j] * v[j];
        s += (i + 1) * y * y;
    }
    return s;
}

/* A 2 x 2 local matrix with constant indices only (its elements become
 * scalars), and a 2 x 3 one with an initializer, updated in place and read
 * at an index computed from k. */
CHAD_DIFFERENTIABLE
double det2(const double *x) {
    double B[2][2];
    B[0][0] = x[0] * x[1];
    B[0][1] = x[1];
    B[1][0] = sin(x[0]);
    B[1][1] = x[0] + 1;
    return B[0][0] * B[1][1] - B[0][1] * B[1][0];
}

CHAD_DIFFERENTIABLE
double mat23(const double *x, int k) {
    double M[2][3] = {{x[0], 1, 2}, {3, x[1]}};
    M[1][0] *= x[0];
    M[1][2] = x[1] * x[1];
    return M[k / 3][k % 3] * M[0][0] + M[1][2];
}

static const float taylor_c[4][2] = {{1.0f, 0.5f}, {-0.25f, 0.125f}, {2.0f, -1.0f}, {0.1f, 0.2f}};

CHAD_DIFFERENTIABLE
float taylorf(float x, int row) {
    return taylor_c[row][0] + x * taylor_c[row][1] + x * x * taylor_c[row % 4][1];
}

/* Tables as arguments: the callees see them as ordinary input arrays. */
CHAD_DIFFERENTIABLE
static double sqdist4(const double *a, const double *x) {
    double d = 0;
    for (int j = 0; j < 4; j++)
        d += (x[j] - a[j]) * (x[j] - a[j]);
    return d;
}

CHAD_DIFFERENTIABLE
double shekel_rows(const double *x) {
    double f = 0;
    for (int i = 0; i < 10; i++) {
        const double *row = (const double *)shekel_A + 4 * i;
        f -= 1 / (shekel_c[i] + (i % 2 ? sqdist4(shekel_A[i], x) : sqdist4(row, x) + 0 * row[1]));
    }
    return f + 0 * sqdist4(&shekel_A[9][0], x);
}

CHAD_DIFFERENTIABLE
static double dotw(const double *w, const double *x, const int *idx, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += w[i] * x[idx[i]] * x[i];
    return s;
}

CHAD_DIFFERENTIABLE
static double dotw_on(const double *w, const double *x, int n) {
    return dotw(w, x, perm, n) + w[0] * x[1];
}

CHAD_DIFFERENTIABLE
static void scale_by(const double *w, const double *x, int n, double *out) {
    for (int i = 0; i < n; i++)
        out[i] = w[i] * sin(x[i]);
}

CHAD_DIFFERENTIABLE
double weighted(const double *x) {
    double y[6];
    scale_by(shekel_c + 2, x, 6, y);
    double s = dotw_on(shekel_c, x, 6) + dotw(hartmann_alpha, y, perm, 4);
    return s + dotw(shekel_c, y, perm, 6);
}

CHAD_DIFFERENTIABLE
static double lerp2(const double *k, double u) { return k[0] + u * (k[1] - k[0]); }

CHAD_DIFFERENTIABLE
double spline(double t) {
    double u = t * 7;
    int k = (int)floor(u);
    k = k < 0 ? 0 : k > 6 ? 6 : k;
    return lerp2(&knots[k], u - k) + t * lerp2(knots + (6 - k), u - k);
}

CHAD_DIFFERENTIABLE
static float linf(const float *c, float x) { return c[0] + x * c[1]; }

CHAD_DIFFERENTIABLE
float taylor2f(float x, int row) {
    return linf(taylor_c[row], x) + x * x * taylor_c[row % 4][1];
}

/* ------------------------------------------------------------ wrappers */

static void sh_w(const double *x, double *y, void *c) { (void)c, y[0] = shekel(x); }
static void sh_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c, y[0] = shekel_fwd(x, dx, &dy[0]);
}
static void sh_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c, y[0] = shekel_rev(x, xb, yb[0]);
}
static void ha_w(const double *x, double *y, void *c) { (void)c, y[0] = hartmann(x); }
static void ha_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c, y[0] = hartmann_fwd(x, dx, &dy[0]);
}
static void ha_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c, y[0] = hartmann_rev(x, xb, yb[0]);
}
static void pe_w(const double *x, double *y, void *c) { (void)c, y[0] = permuted(x); }
static void pe_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c, y[0] = permuted_fwd(x, dx, &dy[0]);
}
static void pe_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c, y[0] = permuted_rev(x, xb, yb[0]);
}
/* rotate: x = (three angles, a vector of three) */
static void ro_w(const double *x, double *y, void *c) { (void)c, y[0] = rotate(x, x + 3); }
static void ro_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c, y[0] = rotate_fwd(x, dx, x + 3, dx + 3, &dy[0]);
}
static void ro_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c, y[0] = rotate_rev(x, xb, x + 3, xb + 3, yb[0]);
}

static void d2_w(const double *x, double *y, void *c) { (void)c, y[0] = det2(x); }
static void d2_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c, y[0] = det2_fwd(x, dx, &dy[0]);
}
static void d2_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c, y[0] = det2_rev(x, xb, yb[0]);
}
static int kk;
static void m23_w(const double *x, double *y, void *c) { (void)c, y[0] = mat23(x, kk); }
static void m23_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c, y[0] = mat23_fwd(x, dx, kk, &dy[0]);
}
static void m23_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c, y[0] = mat23_rev(x, xb, kk, yb[0]);
}

static void shr_w(const double *x, double *y, void *c) { (void)c, y[0] = shekel_rows(x); }
static void shr_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c, y[0] = shekel_rows_fwd(x, dx, &dy[0]);
}
static void shr_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c, y[0] = shekel_rows_rev(x, xb, yb[0]);
}
static void we_w(const double *x, double *y, void *c) { (void)c, y[0] = weighted(x); }
static void we_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c, y[0] = weighted_fwd(x, dx, &dy[0]);
}
static void we_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c, y[0] = weighted_rev(x, xb, yb[0]);
}

GC_WRAP1(interp)
GC_WRAP1(spline)
GC_WRAP2(quad)

static int row;
static double tf_gc(const double *x, void *c) { (void)c; return taylorf((float)x[0], row); }
static double tf2_gc(const double *x, void *c) { (void)c; return taylor2f((float)x[0], row); }
static double tf2_gc_fwd(const double *x, const double *dx, double *d_ret, void *c) {
    float d;
    float v = taylor2f_fwd((float)x[0], (float)dx[0], row, &d);
    (void)c, *d_ret = d;
    return v;
}
static double tf2_gc_rev(const double *x, double *x_b, double ret_b, void *c) {
    float b = (float)x_b[0];
    float v = taylor2f_rev((float)x[0], &b, row, (float)ret_b);
    (void)c, x_b[0] = b;
    return v;
}
static double tf_gc_fwd(const double *x, const double *dx, double *d_ret, void *c) {
    float d;
    float v = taylorf_fwd((float)x[0], (float)dx[0], row, &d);
    (void)c, *d_ret = d;
    return v;
}
static double tf_gc_rev(const double *x, double *x_b, double ret_b, void *c) {
    float b = (float)x_b[0];
    float v = taylorf_rev((float)x[0], &b, row, (float)ret_b);
    (void)c, x_b[0] = b;
    return v;
}

int main(void) {
    struct gca_problem p = {0};
    p.nout = 1;
    p.name = "shekel", p.nin = 4, p.f = sh_w, p.fwd = sh_wfwd, p.rev = sh_wrev;
    {
        static const double pts[] = {4.1, 3.9, 4.2, 4.05, 1, 8, 1.2, 7.7, 5, 5, 3, 3};
        gca_check(&p, 3, pts);
    }
    gca_check_random(&p, 3, 0, 10);
    p.name = "hartmann", p.nin = 3, p.f = ha_w, p.fwd = ha_wfwd, p.rev = ha_wrev;
    gca_check_random(&p, 4, 0, 1);
    p.name = "permuted", p.nin = 6, p.f = pe_w, p.fwd = pe_wfwd, p.rev = pe_wrev;
    gca_check_random(&p, 3, -2, 2);
    p.name = "rotate", p.nin = 6, p.f = ro_w, p.fwd = ro_wfwd, p.rev = ro_wrev;
    gca_check_random(&p, 4, -3, 3);
    p.name = "det2", p.nin = 2, p.f = d2_w, p.fwd = d2_wfwd, p.rev = d2_wrev;
    gca_check_random(&p, 3, -2, 2);
    p.name = "mat23", p.nin = 2, p.f = m23_w, p.fwd = m23_wfwd, p.rev = m23_wrev;
    for (kk = 0; kk < 6; kk++)
        gca_check_random(&p, 2, -2, 2);
    {   /* the interior of every interval of the table, and both clamps */
        static const double ts[] = {0.05, 0.2, 0.33, 0.49, 0.6, 0.75, 0.9, 1.2, -0.3};
        gc_check("interp", 1, interp_gc, interp_gc_fwd, interp_gc_rev, NULL, GC_DOUBLE,
                 (int)(sizeof ts / sizeof ts[0]), ts);
    }
    GC_CHECK(quad, 2, 0.7, 1.3, 2.5, -0.4);
    p.name = "shekel_rows", p.nin = 4, p.f = shr_w, p.fwd = shr_wfwd, p.rev = shr_wrev;
    gca_check_random(&p, 3, 0, 10);
    p.name = "weighted", p.nin = 6, p.f = we_w, p.fwd = we_wfwd, p.rev = we_wrev;
    gca_check_random(&p, 3, -2, 2);
    {   /* as interp: every interval and both clamps */
        static const double ts[] = {0.05, 0.2, 0.33, 0.49, 0.6, 0.75, 0.9, 1.2, -0.3};
        gc_check("spline", 1, spline_gc, spline_gc_fwd, spline_gc_rev, NULL, GC_DOUBLE,
                 (int)(sizeof ts / sizeof ts[0]), ts);
    }
    for (row = 0; row < 4; row++) {
        GC_CHECKF(tf, 1, 0.75, -1.5);
        GC_CHECKF(tf2, 1, 0.75, -1.5);
    }
    {   /* exact values: Shekel's minimum is near A[0], rotations keep length */
        double x[4] = {4, 4, 4, 4}, v[3] = {1, 2, 2}, a[3] = {0, 0, 0};
        double xb[4] = {0, 0, 0, 0};
        double f = shekel_rev(x, xb, 1.0);
        gc_expect(f < -10.5 && f > -10.6, "shekel at A[0]", "wrong value");
        gc_expect(shekel_rows(x) == shekel(x) &&
                      fabs(spline(0.05) - (interp(0.05) + 0.05 * (0.3 + 0.35 * 1.7))) < 1e-14,
                  "tables passed: values", "wrong value");
        gc_expect(fabs(rotate(a, v) - (1 + 8 + 12)) < 1e-14, "rotate identity", "wrong value");
        gc_expect(interp(1.0 / 7) == 0.5 && quad(0, 0) > 1.99999 && quad(0, 0) < 2.00001 + 0.55,
                  "interp, quad values", "wrong value");
    }
    return gc_summary();
}
