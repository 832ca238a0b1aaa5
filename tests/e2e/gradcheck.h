/* gradcheck.h: derivative checks for chad's end-to-end tests.
 *
 * A test file wraps each annotated function f, and the f_fwd and f_rev the
 * plugin generated for it, behind one interface over double vectors (the
 * GC_WRAP* macros below), then calls GC_CHECK with points inside f's domain.
 * At every point this header checks that
 *
 *   - f_fwd and f_rev return exactly (==) the value of f: they run the same
 *     primal computation, so not even rounding may differ;
 *   - the reverse gradient (seed 1) matches Richardson-extrapolated central
 *     differences of f, to a mixed absolute/relative tolerance;
 *   - forward and reverse are dual: f_fwd(x; dx) == <f_rev(x; 1), dx> to near
 *     machine precision for a pseudo-random direction dx;
 *   - the reverse seed is honoured: seeding with s gives s times the gradient;
 *   - f_rev adds into the adjoint buffer instead of overwriting it: starting
 *     from nonzero values b, one call gives b + g and a second b + 2g.
 *
 * Float functions are checked through the same double interface, with float
 * tolerances: their rounding error is about 1e-7, so FD agreement to 1e-3
 * relative is the honest target there.
 *
 * Header only (static functions, libc and libm only) so that every test is
 * one self-contained C file compiled by the plugin under -Werror; the entry
 * points are static inline so that a test not using one is not an error.  Failures
 * name the function and the point; gc_summary() prints "N passed, M failed"
 * and returns the exit status for main().
 */
#ifndef CHAD_GRADCHECK_H
#define CHAD_GRADCHECK_H

#include <math.h>
#include <stdio.h>

#define GC_MAXN 16

/* f, f_fwd and f_rev seen through double vectors; ctx carries anything else
 * (inactive int parameters, for instance). */
typedef double (*gc_fn)(const double *x, void *ctx);
typedef double (*gc_fwd_fn)(const double *x, const double *dx, double *d_ret, void *ctx);
typedef double (*gc_rev_fn)(const double *x, double *x_b, double ret_b, void *ctx);

enum { GC_DOUBLE, GC_FLOAT };

/* Tolerances per precision.  fd_step: FD step relative to max(|x|, fd_floor).
 * grad_rtol/grad_atol: FD agreement (atol is scaled by 1 + |f(x)|).
 * exact_rtol: identities that hold up to rounding only (duality, seed
 * scaling, accumulation), relative to the magnitude of the terms involved.
 * tiny: an adjoint below it may have been made by products that underflow,
 * where scaling the seed by 4 is no longer exact (2^58 times the smallest
 * normal number of the precision). */
struct gc_tol {
    double fd_step, fd_floor, grad_rtol, grad_atol, exact_rtol, tiny;
};

static const struct gc_tol gc_tols[2] = {
    /* double: h = 1e-3|x| gives truncation ~1e-12 after one Richardson step
     * and cancellation ~1e-13, far inside 1e-6. */
    {1e-3, 1e-2, 1e-6, 1e-8, 1e-12, 1e-290},
    /* float: cancellation costs ~6e-8/h, so take bigger steps. */
    {1e-2, 1e-1, 1e-3, 1e-4, 1e-5, 3.4e-21},
};

/* An absolute floor for the duality check. Both sides are rounded sums of
 * terms as large as the function's own intermediate values, which the
 * checker cannot see: a tangent that cancels to nearly zero carries their
 * rounding error, not its own. The floor is that of a tangent of size
 * |f| * |dx| / |x|, one hundredth of the finite-difference check's
 * absolute tolerance relative to exact_rtol (1e-10 for double). */
static double gc_dual_floor(const struct gc_tol *t, double fscale, const double *x, const double *dx, int n) {
    double s = 0;
    int i;
    for (i = 0; i < n; i++)
        s += fabs(dx[i]) / fmax(fabs(x[i]), t->fd_floor);
    return 100 * t->exact_rtol * fscale * s;
}

static int gc_passed, gc_failed;
static unsigned long gc_seed = 12345;

/* Deterministic pseudo-random number in [-1, -0.125] U [0.125, 1]: the
 * direction has no near-zero component, so every input is exercised. */
static double gc_rand(void) {
    double u;
    gc_seed = gc_seed * 6364136223846793005UL + 1442695040888963407UL;
    u = (double)((gc_seed >> 11) & 0xfffff) / (double)0xfffff; /* [0,1] */
    u = 0.125 + 0.875 * u;
    return (gc_seed >> 40) & 1 ? u : -u;
}

static void gc_print_point(const double *x, int n) {
    int i;
    printf("(");
    for (i = 0; i < n; i++)
        printf("%s%.17g", i ? ", " : "", x[i]);
    printf(")");
}

/* Records one check's outcome; on failure prints what, where and why. */
static int gc_report(int ok, const char *name, const double *x, int n, const char *what) {
    if (ok) {
        gc_passed++;
        return 1;
    }
    gc_failed++;
    printf("FAIL %s at ", name);
    gc_print_point(x, n);
    printf(": %s\n", what);
    return 0;
}

/* Central difference of f along coordinate i with step h, using the points
 * actually reached (x +- h rounded, to float when prec is GC_FLOAT). */
static double gc_central(gc_fn f, void *ctx, int prec, double *x, int i, double h) {
    double x0 = x[i], xp = x0 + h, xm = x0 - h, fp, fm;
    if (prec == GC_FLOAT) {
        xp = (float)xp;
        xm = (float)xm;
    }
    x[i] = xp;
    fp = f(x, ctx);
    x[i] = xm;
    fm = f(x, ctx);
    x[i] = x0;
    return (fp - fm) / (xp - xm);
}

/* Richardson-extrapolated central differences: D(h) has error c h^2 + O(h^4),
 * so (4 D(h/2) - D(h)) / 3 cancels the h^2 term. */
static double gc_fd(gc_fn f, void *ctx, int prec, const double *x0, int n, int i) {
    const struct gc_tol *t = &gc_tols[prec];
    double x[GC_MAXN], h, d1, d2;
    int k;
    for (k = 0; k < n; k++)
        x[k] = x0[k];
    h = t->fd_step * fmax(fabs(x0[i]), t->fd_floor);
    d1 = gc_central(f, ctx, prec, x, i, h);
    d2 = gc_central(f, ctx, prec, x, i, h / 2);
    return d2 + (d2 - d1) / 3;
}

/* Checks one function at one point; see the header comment for what. */
static void gc_check_point(const char *name, int n, gc_fn f, gc_fwd_fn fwd, gc_rev_fn rev,
                           void *ctx, int prec, const double *xin) {
    const struct gc_tol *t = &gc_tols[prec];
    double x[GC_MAXN], dx[GC_MAXN], g[GC_MAXN], gs[GC_MAXN], b[GC_MAXN], b0[GC_MAXN];
    double v, vf, vr, dret, dot, scale, fd, err, tol;
    char msg[512];
    int i, ok;

    for (i = 0; i < n; i++)
        x[i] = prec == GC_FLOAT ? (double)(float)xin[i] : xin[i];

    v = f(x, ctx);
    if (!gc_report(isfinite(v), name, x, n, "f is not finite here: bad test point"))
        return;

    /* Primal values must be bit-identical. */
    for (i = 0; i < n; i++)
        dx[i] = prec == GC_FLOAT ? (double)(float)gc_rand() : gc_rand();
    dret = NAN;
    vf = fwd(x, dx, &dret, ctx);
    snprintf(msg, sizeof msg, "f_fwd returns %.17g, f returns %.17g", vf, v);
    gc_report(vf == v, name, x, n, msg);

    for (i = 0; i < n; i++)
        g[i] = 0;
    vr = rev(x, g, 1.0, ctx);
    snprintf(msg, sizeof msg, "f_rev returns %.17g, f returns %.17g", vr, v);
    gc_report(vr == v, name, x, n, msg);

    /* Reverse gradient against finite differences. */
    for (i = 0; i < n; i++) {
        fd = gc_fd(f, ctx, prec, x, n, i);
        err = fabs(g[i] - fd);
        tol = t->grad_rtol * fmax(fabs(g[i]), fabs(fd)) + t->grad_atol * (1 + fabs(v));
        snprintf(msg, sizeof msg, "d/dx%d: f_rev gives %.17g, finite differences %.17g (error %.3g > tol %.3g)",
                 i, g[i], fd, err, tol);
        gc_report(err <= tol, name, x, n, msg);
    }

    /* Duality: forward tangent == <reverse gradient, dx>. */
    dot = 0;
    scale = fabs(dret);
    for (i = 0; i < n; i++) {
        dot += g[i] * dx[i];
        scale += fabs(g[i] * dx[i]);
    }
    err = fabs(dret - dot);
    snprintf(msg, sizeof msg, "duality: f_fwd tangent %.17g but <f_rev gradient, dx> = %.17g (error %.3g)",
             dret, dot, err);
    gc_report(err <= t->exact_rtol * scale + gc_dual_floor(t, 1 + fabs(v), x, dx, n), name, x, n, msg);

    /* The seed scales the gradient. */
    for (i = 0; i < n; i++)
        gs[i] = 0;
    rev(x, gs, -4.0, ctx);
    ok = 1;
    /* The reverse sweep is linear in the seed, and scaling by a power of
     * two is exact in binary floating point, so -4 times the seed gives
     * exactly -4 times every adjoint: no tolerance, whatever cancellation
     * happened inside (short of underflow). */
    for (i = 0; i < n; i++)
        if (!(gs[i] == -4.0 * g[i] || fabs(g[i]) < t->tiny)) {
            snprintf(msg, sizeof msg, "seed -4 gives d/dx%d = %.17g, expected -4 * %.17g", i, gs[i], g[i]);
            ok = 0;
            break;
        }
    gc_report(ok, name, x, n, msg);

    /* Adjoints accumulate: b -> b + g -> b + 2g.  The b are exact in float. */
    for (i = 0; i < n; i++)
        b[i] = b0[i] = 0.25 + 0.5 * i;
    for (ok = 1; ok <= 2; ok++) {
        int k, good = 1;
        rev(x, b, 1.0, ctx);
        for (k = 0; k < n; k++) {
            double want = b0[k] + ok * g[k];
            if (!(fabs(b[k] - want) <= 10 * t->exact_rtol * (fabs(b0[k]) + ok * fabs(g[k])))) {
                snprintf(msg, sizeof msg,
                         "adjoints must accumulate: after %d call(s) on a buffer holding %g, "
                         "x%d_b = %.17g, expected %.17g",
                         ok, b0[k], k, b[k], want);
                good = 0;
                break;
            }
        }
        if (!gc_report(good, name, x, n, msg))
            break;
    }
}

/* Checks f at every point of pts (npts_vals doubles, n per point). */
static inline void gc_check(const char *name, int n, gc_fn f, gc_fwd_fn fwd, gc_rev_fn rev, void *ctx,
                     int prec, int npts_vals, const double *pts) {
    int p, before = gc_failed;
    if (n < 1 || n > GC_MAXN || npts_vals % n != 0 || npts_vals == 0) {
        gc_report(0, name, pts, 0, "bad test table: point count is not a multiple of the arity");
        return;
    }
    for (p = 0; p < npts_vals / n; p++)
        gc_check_point(name, n, f, fwd, rev, ctx, prec, pts + p * n);
    printf("%s %s (%d point%s)\n", gc_failed == before ? "ok  " : "FAIL", name, npts_vals / n,
           npts_vals / n == 1 ? "" : "s");
}

/* A single check made by a test itself (for things outside gc_check). */
static inline void gc_expect(int ok, const char *name, const char *what) {
    if (ok) {
        gc_passed++;
    } else {
        gc_failed++;
        printf("FAIL %s: %s\n", name, what);
    }
}

/* Prints the summary line and gives main() its exit status. */
static inline int gc_summary(void) {
    printf("%d passed, %d failed\n", gc_passed, gc_failed);
    return gc_failed ? 1 : 0;
}

/* GC_CHECK(f, n, x0, x1, ..., x0', x1', ...): check f (arity n) at points. */
#define GC_RUN(label, f, n, ctx, prec, ...)                                                  \
    do {                                                                                     \
        static const double gc_pts_[] = {__VA_ARGS__};                                       \
        gc_check(label, n, f##_gc, f##_gc_fwd, f##_gc_rev, ctx, prec,                        \
                 (int)(sizeof gc_pts_ / sizeof gc_pts_[0]), gc_pts_);                        \
    } while (0)
#define GC_CHECK(f, n, ...) GC_RUN(#f, f, n, NULL, GC_DOUBLE, __VA_ARGS__)
/* Float tolerances: float functions, or double ones computing in float. */
#define GC_CHECKF(f, n, ...) GC_RUN(#f, f, n, NULL, GC_FLOAT, __VA_ARGS__)

/* GC_WRAPn(f): f_gc, f_gc_fwd, f_gc_rev for double f(double, ... n times).
 * Use at file scope after f's definition, without a trailing semicolon. */
#define GC_WRAP1(f)                                                                          \
    static double f##_gc(const double *x, void *c) { (void)c; return f(x[0]); }             \
    static double f##_gc_fwd(const double *x, const double *d, double *r, void *c) {        \
        (void)c; return f##_fwd(x[0], d[0], r); }                                            \
    static double f##_gc_rev(const double *x, double *b, double s, void *c) {               \
        (void)c; return f##_rev(x[0], &b[0], s); }
#define GC_WRAP2(f)                                                                          \
    static double f##_gc(const double *x, void *c) { (void)c; return f(x[0], x[1]); }       \
    static double f##_gc_fwd(const double *x, const double *d, double *r, void *c) {        \
        (void)c; return f##_fwd(x[0], d[0], x[1], d[1], r); }                                \
    static double f##_gc_rev(const double *x, double *b, double s, void *c) {               \
        (void)c; return f##_rev(x[0], &b[0], x[1], &b[1], s); }
#define GC_WRAP3(f)                                                                          \
    static double f##_gc(const double *x, void *c) { (void)c; return f(x[0], x[1], x[2]); } \
    static double f##_gc_fwd(const double *x, const double *d, double *r, void *c) {        \
        (void)c; return f##_fwd(x[0], d[0], x[1], d[1], x[2], d[2], r); }                    \
    static double f##_gc_rev(const double *x, double *b, double s, void *c) {               \
        (void)c; return f##_rev(x[0], &b[0], x[1], &b[1], x[2], &b[2], s); }
#define GC_WRAP4(f)                                                                          \
    static double f##_gc(const double *x, void *c) {                                         \
        (void)c; return f(x[0], x[1], x[2], x[3]); }                                         \
    static double f##_gc_fwd(const double *x, const double *d, double *r, void *c) {        \
        (void)c; return f##_fwd(x[0], d[0], x[1], d[1], x[2], d[2], x[3], d[3], r); }        \
    static double f##_gc_rev(const double *x, double *b, double s, void *c) {               \
        (void)c; return f##_rev(x[0], &b[0], x[1], &b[1], x[2], &b[2], x[3], &b[3], s); }
#define GC_WRAP5(f)                                                                          \
    static double f##_gc(const double *x, void *c) {                                         \
        (void)c; return f(x[0], x[1], x[2], x[3], x[4]); }                                   \
    static double f##_gc_fwd(const double *x, const double *d, double *r, void *c) {        \
        (void)c; return f##_fwd(x[0], d[0], x[1], d[1], x[2], d[2], x[3], d[3], x[4], d[4], r); } \
    static double f##_gc_rev(const double *x, double *b, double s, void *c) {               \
        (void)c;                                                                             \
        return f##_rev(x[0], &b[0], x[1], &b[1], x[2], &b[2], x[3], &b[3], x[4], &b[4], s); }

/* GC_WRAPFn(f): the same for float f(float, ...): f_fwd and f_rev take float
 * tangents, adjoints and seed, so convert on the way in and out (exactly:
 * the harness only passes float-representable values in float mode). */
#define GC_WRAPF1(f)                                                                         \
    static double f##_gc(const double *x, void *c) { (void)c; return f((float)x[0]); }      \
    static double f##_gc_fwd(const double *x, const double *d, double *r, void *c) {        \
        float r_ = 0; double v_;                                                             \
        (void)c; v_ = f##_fwd((float)x[0], (float)d[0], &r_); *r = r_; return v_; }          \
    static double f##_gc_rev(const double *x, double *b, double s, void *c) {               \
        float b_[1]; double v_;                                                              \
        (void)c; b_[0] = (float)b[0];                                                        \
        v_ = f##_rev((float)x[0], &b_[0], (float)s); b[0] = b_[0]; return v_; }
#define GC_WRAPF2(f)                                                                         \
    static double f##_gc(const double *x, void *c) {                                         \
        (void)c; return f((float)x[0], (float)x[1]); }                                       \
    static double f##_gc_fwd(const double *x, const double *d, double *r, void *c) {        \
        float r_ = 0; double v_;                                                             \
        (void)c;                                                                             \
        v_ = f##_fwd((float)x[0], (float)d[0], (float)x[1], (float)d[1], &r_);               \
        *r = r_; return v_; }                                                                \
    static double f##_gc_rev(const double *x, double *b, double s, void *c) {               \
        float b_[2]; double v_;                                                              \
        (void)c; b_[0] = (float)b[0]; b_[1] = (float)b[1];                                   \
        v_ = f##_rev((float)x[0], &b_[0], (float)x[1], &b_[1], (float)s);                    \
        b[0] = b_[0]; b[1] = b_[1]; return v_; }
#define GC_WRAPF3(f)                                                                         \
    static double f##_gc(const double *x, void *c) {                                         \
        (void)c; return f((float)x[0], (float)x[1], (float)x[2]); }                          \
    static double f##_gc_fwd(const double *x, const double *d, double *r, void *c) {        \
        float r_ = 0; double v_;                                                             \
        (void)c;                                                                             \
        v_ = f##_fwd((float)x[0], (float)d[0], (float)x[1], (float)d[1], (float)x[2],        \
                     (float)d[2], &r_);                                                      \
        *r = r_; return v_; }                                                                \
    static double f##_gc_rev(const double *x, double *b, double s, void *c) {               \
        float b_[3]; double v_;                                                              \
        (void)c; b_[0] = (float)b[0]; b_[1] = (float)b[1]; b_[2] = (float)b[2];              \
        v_ = f##_rev((float)x[0], &b_[0], (float)x[1], &b_[1], (float)x[2], &b_[2], (float)s); \
        b[0] = b_[0]; b[1] = b_[1]; b[2] = b_[2]; return v_; }

/* ------------------------------------------------------------------------
 * Functions of arrays: gca_check.
 *
 * A function with array inputs and outputs is seen as a map F: R^nin ->
 * R^nout.  Its inputs are all active floating inputs (scalars and the
 * elements of const arrays) laid out in one vector x; its outputs are the
 * elements of its output arrays followed by its return value, if floating,
 * in one vector y.  A test writes three wrappers with the signatures below
 * (inactive arguments such as n or an index array travel in ctx):
 *
 *   f(x, y):            y = F(x)
 *   fwd(x, dx, y, dy):  y = F(x) and dy = J dx, from f_fwd
 *   rev(x, x_b, y, y_b): y = F(x) and x_b += J^T y_b, from f_rev
 *                        (NULL: forward mode only, the checks of f_fwd)
 *
 * At every point gca_check checks that
 *
 *   - f_fwd and f_rev produce exactly (==) f's outputs, output arrays and
 *     return value alike, and write every output and tangent: all output
 *     buffers are filled with NaN before every call;
 *   - J dx from f_fwd matches Richardson-extrapolated central differences of
 *     F along dx (a directional derivative), for a pseudo-random dx;
 *   - J^T y_b from f_rev matches Richardson-extrapolated central differences
 *     of <y_b, F(x)> in every coordinate, for a pseudo-random seed y_b;
 *     (the FD tolerance includes the difference between the two central
 *     differences extrapolated, an estimate of the FD error itself);
 *   - forward and reverse are dual: <J dx, y_b> == <dx, J^T y_b> to near
 *     machine precision;
 *   - the seed is honoured (-4 y_b gives exactly -4 J^T y_b) and not modified;
 *   - f_rev adds into the adjoint buffer: from b, one call gives b + g and a
 *     second b + 2g.
 * ---------------------------------------------------------------------- */

#define GCA_MAX 256

typedef void (*gca_fn)(const double *x, double *y, void *ctx);
typedef void (*gca_fwd_fn)(const double *x, const double *dx, double *y, double *dy, void *ctx);
typedef void (*gca_rev_fn)(const double *x, double *x_b, double *y, const double *y_b, void *ctx);

struct gca_problem {
    const char *name;
    int nin, nout; /* lengths of x and y, at most GCA_MAX */
    int prec;      /* GC_DOUBLE or GC_FLOAT */
    gca_fn f;
    gca_fwd_fn fwd; /* NULL when f_fwd is not made (reverse-only) */
    gca_rev_fn rev; /* NULL when f_rev is not made (forward-only) */
    void *ctx;
};

/* Helpers for wrappers: copies between double and float vectors, NaN fill. */
static inline void gca_tof(float *dst, const double *src, int n) {
    int i;
    for (i = 0; i < n; i++)
        dst[i] = (float)src[i];
}
static inline void gca_tod(double *dst, const float *src, int n) {
    int i;
    for (i = 0; i < n; i++)
        dst[i] = src[i];
}
static inline void gca_nan(double *a, int n) {
    int i;
    for (i = 0; i < n; i++)
        a[i] = NAN;
}
static inline void gca_nanf(float *a, int n) {
    int i;
    for (i = 0; i < n; i++)
        a[i] = NAN;
}

static inline double gca_round(int prec, double v) { return prec == GC_FLOAT ? (double)(float)v : v; }

static inline int gca_report(int ok, const struct gca_problem *p, const double *x, const char *what) {
    return gc_report(ok, p->name, x, p->nin, what);
}

/* F(x) into y, all outputs pre-set to NaN. */
static inline void gca_eval(const struct gca_problem *p, const double *x, double *y) {
    gca_nan(y, p->nout);
    p->f(x, y, p->ctx);
}

/* <w, F(x)>. */
static inline double gca_phi(const struct gca_problem *p, const double *x, const double *w) {
    double y[GCA_MAX], s = 0;
    int j;
    gca_eval(p, x, y);
    for (j = 0; j < p->nout; j++)
        s += w[j] * y[j];
    return s;
}

/* Central difference of F along dir (or coordinate `coord` when dir is
 * NULL) with step h, dividing by the step actually taken (points rounded to
 * float in float mode).  Writes nout values to d. */
static inline void gca_central(const struct gca_problem *p, const double *x, const double *dir, int coord,
                               double h, double *d) {
    double xp[GCA_MAX], xm[GCA_MAX], yp[GCA_MAX], ym[GCA_MAX], step;
    int i, j;
    for (i = 0; i < p->nin; i++) {
        double e = dir ? dir[i] : (i == coord);
        xp[i] = gca_round(p->prec, x[i] + h * e);
        xm[i] = gca_round(p->prec, x[i] - h * e);
    }
    /* Along a coordinate the step taken is exact; along a direction, use the
     * nominal one (float rounding then perturbs the result by ~1e-7 / h). */
    step = dir ? 2 * h : xp[coord] - xm[coord];
    gca_eval(p, xp, yp);
    gca_eval(p, xm, ym);
    for (j = 0; j < p->nout; j++)
        d[j] = (yp[j] - ym[j]) / step;
}

/* The steps tried, as multiples of fd_step: the first that agrees wins.
 * Smaller steps resolve a function that turns within the first step (sin
 * of a cube); in float, cancellation noise grows as the step shrinks, and
 * the error estimate with it: at 1/64 of fd_step it is still below 1e-3 of
 * |f| / |x| (a wrong tangent is off by far more). A larger step beats
 * float's rounding where f is flat between nearby floats (tanhf near
 * saturation) or a coordinate is small (the step is fd_step times
 * fd_floor there). In double, a last step of 1/4096 resolves a function
 * that turns within 1e-5 (sin of a large value that depends on x through
 * several steps of an iteration); its cancellation noise, ~1e-16 / 2.4e-7
 * relative, is still far below the tolerance. In float that noise would be
 * 1e-7 / 2.4e-7, so float stops at 1/64. */
enum { GCA_STEPS = 5 };
static const double gca_step_scale[GCA_STEPS] = {1, 1.0 / 8, 1.0 / 64, 8, 1.0 / 4096};
static inline int gca_steps(const struct gca_problem *p) { return p->prec == GC_DOUBLE ? GCA_STEPS : GCA_STEPS - 1; }

/* The FD error estimate a check at step k allows. At another step it is
 * at most 2 % of the derivative: a retry resolves a function that turns
 * fast or rounds coarsely, and never passes a tangent off by more. */
static inline double gca_retry_estimate(int k, double estimate, double size) {
    return k == 0 ? estimate : fmin(estimate, 0.02 * size);
}

/* Richardson-extrapolated central differences (see gc_fd), and in e[j] an
 * estimate of their error: the difference between the two central
 * differences, which bounds the truncation error of the coarser one and
 * exceeds the cancellation noise (in float, noise can dominate). */
static inline void gca_fd(const struct gca_problem *p, const double *x, const double *dir, int coord,
                          double h, double *d, double *e) {
    double d1[GCA_MAX], d2[GCA_MAX];
    int j;
    gca_central(p, x, dir, coord, h, d1);
    gca_central(p, x, dir, coord, h / 2, d2);
    for (j = 0; j < p->nout; j++) {
        d[j] = d2[j] + (d2[j] - d1[j]) / 3;
        e[j] = fabs(d2[j] - d1[j]);
    }
}

static inline void gca_check_point(const struct gca_problem *p, const double *xin) {
    const struct gc_tol *t = &gc_tols[p->prec];
    double x[GCA_MAX], dx[GCA_MAX], y0[GCA_MAX], y1[GCA_MAX], dy[GCA_MAX], yb[GCA_MAX], ybc[GCA_MAX];
    double g[GCA_MAX], gs[GCA_MAX], b[GCA_MAX], b0[GCA_MAX], fd[GCA_MAX], fde[GCA_MAX];
    double lhs, rhs, scale, err = 0, tol = 0, vscale = 1;
    char msg[512];
    int i, j, ok, k;

    for (i = 0; i < p->nin; i++)
        x[i] = gca_round(p->prec, xin[i]);

    /* The primal, every output written and finite. */
    gca_eval(p, x, y0);
    ok = 1;
    for (j = 0; j < p->nout; j++)
        if (!isfinite(y0[j])) {
            snprintf(msg, sizeof msg, "output %d of f is %g: not written, or a bad test point", j, y0[j]);
            ok = 0;
            break;
        }
    if (!gca_report(ok, p, x, msg))
        return;

    if (p->fwd) { /* NULL: reverse mode only (a problem whose f_fwd is not made) */
        /* f_fwd: same outputs, exactly; tangents against FD along dx. */
        /* Each coordinate of dx is scaled like the coordinate (|x_i|, at least
         * fd_floor), so that a step along dx is small for every input, even
         * when inputs differ by orders of magnitude (a time step and a
         * stiffness, say). */
        for (i = 0; i < p->nin; i++)
            dx[i] = gca_round(p->prec, gc_rand() * fmax(fabs(x[i]), t->fd_floor));
        gca_nan(y1, p->nout);
        gca_nan(dy, p->nout);
        p->fwd(x, dx, y1, dy, p->ctx);
        ok = 1;
        for (j = 0; j < p->nout; j++)
            if (!(y1[j] == y0[j])) {
                snprintf(msg, sizeof msg, "output %d: f_fwd gives %.17g, f gives %.17g", j, y1[j], y0[j]);
                ok = 0;
                break;
            }
        gca_report(ok, p, x, msg);
        /* A function that curves fast (cos of a large sum, say) has a
         * truncation error that the estimate misses at the first step: a
         * disagreement is checked again at smaller steps, where a right
         * tangent agrees and a wrong one does not. */
        for (k = 0, ok = 0; k < gca_steps(p) && !ok; k++) {
            gca_fd(p, x, dx, -1, t->fd_step * gca_step_scale[k], fd, fde);
            ok = 1;
            for (j = 0; j < p->nout; j++) {
                err = fabs(dy[j] - fd[j]);
                tol = t->grad_rtol * fmax(fabs(dy[j]), fabs(fd[j])) + t->grad_atol * (1 + fabs(y0[j])) +
                      gca_retry_estimate(k, fde[j], fmax(fabs(dy[j]), fabs(fd[j])));
                if (!(err <= tol) && ok) {
                    snprintf(msg, sizeof msg,
                             "output %d: f_fwd tangent %.17g, finite differences along dx %.17g (error %.3g > tol %.3g)",
                             j, dy[j], fd[j], err, tol);
                    ok = 0;
                }
            }
        }
        gca_report(ok, p, x, msg);
    }
    if (!p->rev) /* forward mode only (a problem whose f_rev is not made) */
        return;

    /* f_rev with a random seed: same outputs; gradient of <y_b, F> by FD. */
    for (j = 0; j < p->nout; j++) {
        yb[j] = ybc[j] = gca_round(p->prec, gc_rand());
        vscale += fabs(yb[j] * y0[j]);
    }
    for (i = 0; i < p->nin; i++)
        g[i] = 0;
    gca_nan(y1, p->nout);
    p->rev(x, g, y1, yb, p->ctx);
    ok = 1;
    for (j = 0; j < p->nout; j++)
        if (!(y1[j] == y0[j])) {
            snprintf(msg, sizeof msg, "output %d: f_rev gives %.17g, f gives %.17g", j, y1[j], y0[j]);
            ok = 0;
            break;
        }
    gca_report(ok, p, x, msg);
    ok = 1;
    for (j = 0; j < p->nout; j++)
        if (!(yb[j] == ybc[j]))
            ok = 0;
    gca_report(ok, p, x, "f_rev modified the seed y_b");
    ok = 1;
    for (i = 0; i < p->nin && ok; i++) {
        double xi[GCA_MAX], d[2], hi;
        int s;
        for (k = 0; k < p->nin; k++)
            xi[k] = x[k];
        /* FD of the scalar <y_b, F> along coordinate i, by Richardson; at
         * smaller steps when it disagrees (as for f_fwd above). */
        for (s = 0; s < gca_steps(p); s++) {
            hi = t->fd_step * gca_step_scale[s] * fmax(fabs(x[i]), t->fd_floor);
            for (k = 0; k < 2; k++) {
                double hk = k ? hi / 2 : hi, xp, xm, fp, fm;
                xp = gca_round(p->prec, x[i] + hk);
                xm = gca_round(p->prec, x[i] - hk);
                xi[i] = xp;
                fp = gca_phi(p, xi, yb);
                xi[i] = xm;
                fm = gca_phi(p, xi, yb);
                xi[i] = x[i];
                d[k] = (fp - fm) / (xp - xm);
            }
            fd[i] = d[1] + (d[1] - d[0]) / 3;
            err = fabs(g[i] - fd[i]);
            tol = t->grad_rtol * fmax(fabs(g[i]), fabs(fd[i])) + t->grad_atol * vscale +
                  gca_retry_estimate(s, fabs(d[1] - d[0]), fmax(fabs(g[i]), fabs(fd[i])));
            if (err <= tol)
                break;
        }
        if (!(err <= tol)) {
            snprintf(msg, sizeof msg,
                     "input %d: f_rev gives %.17g, finite differences of <y_b, f> %.17g (error %.3g > tol %.3g)",
                     i, g[i], fd[i], err, tol);
            ok = 0;
        }
    }
    gca_report(ok, p, x, msg);

    if (p->fwd) {
        /* Duality: <J dx, y_b> == <dx, J^T y_b>. */
        lhs = rhs = scale = 0;
        for (j = 0; j < p->nout; j++) {
            lhs += dy[j] * yb[j];
            scale += fabs(dy[j] * yb[j]);
        }
        for (i = 0; i < p->nin; i++) {
            rhs += dx[i] * g[i];
            scale += fabs(dx[i] * g[i]);
        }
        err = fabs(lhs - rhs);
        snprintf(msg, sizeof msg, "duality: <f_fwd tangent, y_b> = %.17g but <dx, f_rev gradient> = %.17g (error %.3g)",
                 lhs, rhs, err);
        gca_report(err <= 10 * t->exact_rtol * scale + gc_dual_floor(t, vscale, x, dx, p->nin), p, x, msg);
    }

    /* The seed scales the gradient. */
    for (j = 0; j < p->nout; j++)
        yb[j] = -4.0 * ybc[j]; /* exact: see gc_check */
    for (i = 0; i < p->nin; i++)
        gs[i] = 0;
    p->rev(x, gs, y1, yb, p->ctx);
    ok = 1;
    for (i = 0; i < p->nin; i++)
        if (!(gs[i] == -4.0 * g[i] || fabs(g[i]) < t->tiny)) {
            snprintf(msg, sizeof msg, "seed -4 y_b gives input %d adjoint %.17g, expected -4 * %.17g", i,
                     gs[i], g[i]);
            ok = 0;
            break;
        }
    gca_report(ok, p, x, msg);

    /* Adjoints accumulate: b -> b + g -> b + 2g. */
    for (i = 0; i < p->nin; i++)
        b[i] = b0[i] = 0.25 + 0.5 * (i % 8);
    for (k = 1; k <= 2; k++) {
        int good = 1;
        p->rev(x, b, y1, ybc, p->ctx);
        for (i = 0; i < p->nin; i++) {
            double want = b0[i] + k * g[i];
            if (!(fabs(b[i] - want) <= 10 * t->exact_rtol * (fabs(b0[i]) + k * fabs(g[i])))) {
                snprintf(msg, sizeof msg,
                         "adjoints must accumulate: after %d call(s) on a buffer holding %g, "
                         "input %d adjoint = %.17g, expected %.17g",
                         k, b0[i], i, b[i], want);
                good = 0;
                break;
            }
        }
        if (!gca_report(good, p, x, msg))
            break;
    }
}

/* Checks p at npts points, stored one after the other in pts (nin each). */
static inline void gca_check(const struct gca_problem *p, int npts, const double *pts) {
    int k, before = gc_failed;
    if (p->nin < 1 || p->nin > GCA_MAX || p->nout < 1 || p->nout > GCA_MAX) {
        gc_report(0, p->name, pts, 0, "bad problem: nin and nout must be in 1..GCA_MAX");
        return;
    }
    for (k = 0; k < npts; k++)
        gca_check_point(p, pts + k * p->nin);
    printf("%s %s (%d input%s, %d output%s, %d point%s)\n", gc_failed == before ? "ok  " : "FAIL", p->name,
           p->nin, p->nin == 1 ? "" : "s", p->nout, p->nout == 1 ? "" : "s", npts, npts == 1 ? "" : "s");
}

/* Fills x[0..n) with pseudo-random values in [lo, hi]. */
static inline void gca_random(double *x, int n, double lo, double hi) {
    int i;
    for (i = 0; i < n; i++) {
        gc_seed = gc_seed * 6364136223846793005UL + 1442695040888963407UL;
        x[i] = lo + (hi - lo) * ((double)(gc_seed >> 11) / 9007199254740992.0);
    }
}

/* Checks p at npts pseudo-random points with coordinates in [lo, hi]. */
static inline void gca_check_random(const struct gca_problem *p, int npts, double lo, double hi) {
    double pts[4 * GCA_MAX];
    if (npts > 4)
        npts = 4;
    if (p->nin >= 1 && p->nin <= GCA_MAX)
        gca_random(pts, npts * p->nin, lo, hi);
    gca_check(p, npts, pts);
}

/* GCA_WRAP_XNA(f): f_w, f_wfwd and f_wrev for gca_problem, for
 * `double f(const double *x, int n, double a)` with ctx a struct gca_n:
 * inputs x[0..n) then a, one output. */
struct gca_n {
    int n;
};
#define GCA_WRAP_XNA(f)                                                                           \
    static void f##_w(const double *x, double *y, void *c) {                                      \
        const struct gca_n *k = c;                                                                 \
        y[0] = f(x, k->n, x[k->n]);                                                                \
    }                                                                                              \
    static void f##_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {     \
        const struct gca_n *k = c;                                                                 \
        y[0] = f##_fwd(x, dx, k->n, x[k->n], dx[k->n], &dy[0]);                                    \
    }                                                                                              \
    static void f##_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {     \
        const struct gca_n *k = c;                                                                 \
        y[0] = f##_rev(x, xb, k->n, x[k->n], &xb[k->n], yb[0]);                                    \
    }

#endif /* CHAD_GRADCHECK_H */
