/* structs.c: end-to-end test of structs (DESIGN.md section 1, "The rest of
 * C"): by value, by pointer (const and not, written fields as outputs),
 * nested, with fixed-array and pointer-to-double fields, returned by
 * value, typedef'd anonymous (ADBench's Wishart), float fields, locals
 * assigned whole, locals with pointer fields, and calls between
 * differentiable functions passing structs; functions with structs in the body only, called by others; a
 * struct function called in a loop; shadow names that would be keywords.
 * Each is checked against finite differences, by forward/reverse duality
 * and for accumulation, through wrappers that pack the test vector into
 * the structs and the shadow structs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "chad.h"
#include "gradcheck.h"

struct V { double x, y; };
typedef struct { double gamma; int m; } Wishart;
struct P { struct V c; double w[3]; const double *d; int n; float f; };
struct B { double c[2]; double *w; int n; };
struct VF { float x, y; };

/* by value */
CHAD_DIFFERENTIABLE
double norm2(struct V v) { return v.x * v.x + v.y * v.y; }

/* typedef'd anonymous struct with an int field used as a loop bound */
CHAD_DIFFERENTIABLE
double wish(Wishart w, double a) {
    double s = 0;
    for (int j = 1; j <= w.m; j++)
        s += pow(a, j) * w.gamma;
    return s;
}

/* const pointer, nested struct, array field, pointer field, float field,
 * and a call passing a field struct by value */
CHAD_DIFFERENTIABLE
double pfun(const struct P *p) {
    double s = p->c.x * p->f;
    for (int i = 0; i < 3; i++)
        s += p->w[i] * p->c.y;
    for (int i = 0; i < p->n; i++)
        s += sin(p->d[i]) * p->w[i % 3];
    return s + norm2(p->c);
}

/* by pointer, two pointers to the same struct type, and a local passed by
 * address */
CHAD_DIFFERENTIABLE
double pdot(const struct V *a, const struct V *b) { return a->x * b->x + a->y * b->y; }

CHAD_DIFFERENTIABLE
double callp(const double *x, double k) {
    struct V v = {x[0], x[1] * k};
    struct V u;
    u = v;
    u.y = u.y + x[0];
    return norm2(v) + pdot(&v, &u) * exp(k);
}

/* non-const pointer: written fields are outputs */
CHAD_DIFFERENTIABLE
void scale(struct V *out, const struct V *in, double k) {
    out->x = in->x * k;
    out->y = in->y * k + out->x;
}

/* returned by value, locals, initializer list, whole assignment */
CHAD_DIFFERENTIABLE
struct V rot(struct V v, double t) {
    struct V r = {cos(t) * v.x - sin(t) * v.y, 0};
    r.y = sin(t) * v.x + cos(t) * v.y;
    struct V q;
    q = r;
    return q;
}

/* a pointer field written: an output array */
CHAD_DIFFERENTIABLE
void fill(struct B *b, double t) {
    for (int i = 0; i < b->n; i++)
        b->w[i] = t * b->c[i % 2] + b->c[1];
}

/* float fields, float stays float */
CHAD_DIFFERENTIABLE
float fnorm(struct VF v) { return sqrtf(v.x * v.x + v.y * v.y + 1.0f); }

/* structs in the body only: the function keeps its name and signature, and
 * plain callers (locsq2) and flattened ones (locsq_v) call it as it is
 * (found by tests/gen: 'unknown function' before) */
CHAD_DIFFERENTIABLE
double locsq(double a) {
    struct V v = {a, 2 * a};
    return v.x * v.y + sin(v.y);
}

CHAD_DIFFERENTIABLE
double locsq2(double a) { return locsq(a) * a; }

CHAD_DIFFERENTIABLE
double locsq_v(struct V v) { return locsq(v.x) + v.y; }

/* a struct function called for its value in a loop: the reverse sweep
 * recomputes the loop body, calling the flat function itself, which must
 * exist as C (found by tests/gen: 'implicit declaration of function
 * chad__flat_pfun' before) */
CHAD_DIFFERENTIABLE
double pfun_loop(const struct P *p, double t) {
    double s = 0;
    for (int i = 0; i < 3; i++)
        s += sin(pfun(p) * t * i) + norm2(p->c);
    return s;
}

/* parameters whose shadow names would be keywords: `o` and `ouble` give
 * `do` and `double` (found by tests/gen) */
CHAD_DIFFERENTIABLE
void kw(struct V *o, const struct V *ouble, double t) {
    o->x = ouble->x * t;
    o->y = ouble->y * t * t;
}

/* a local struct with pointer fields: each is a local pointer. `data` is
 * null at first and malloc'd by assignment, `src` a view of the
 * parameter; the whole copy `v` aliases `m`'s data, so a write through it
 * is one through `m`; `&m` passed to a callee that reads through both */
struct M { int rows, cols; double *data; const double *src; };

CHAD_DIFFERENTIABLE
static double msum(const struct M *m) {
    double s = 0;
    for (int i = 0; i < m->rows * m->cols; i++)
        s += m->data[i] * m->src[i % 2];
    return s;
}

CHAD_DIFFERENTIABLE
double locptr(const double *x) {
    struct M m = {2, 2, 0, x + 2};
    struct M v;
    m.data = malloc(m.rows * m.cols * sizeof *m.data);
    for (int i = 0; i < 4; i++)
        m.data[i] = sin(x[i]) * x[(i + 1) % 4];
    v = m;
    v.data[1] *= x[0];
    double r = msum(&m) + v.src[1] * m.data[1];
    free(m.data);
    return r;
}

/* ---- wrappers: x packs the struct's floating data in field order ---- */

static double norm2_gc(const double *x, void *c) {
    struct V v = {x[0], x[1]};
    (void)c;
    return norm2(v);
}
static double norm2_gc_fwd(const double *x, const double *d, double *r, void *c) {
    struct V v = {x[0], x[1]}, dv = {d[0], d[1]};
    (void)c;
    return norm2_fwd(v, dv, r);
}
static double norm2_gc_rev(const double *x, double *b, double s, void *c) {
    struct V v = {x[0], x[1]}, vb = {b[0], b[1]};
    double r;
    (void)c;
    r = norm2_rev(v, &vb, s);
    b[0] = vb.x, b[1] = vb.y;
    return r;
}

static double wish_gc(const double *x, void *c) {
    Wishart w = {x[0], 4};
    (void)c;
    return wish(w, x[1]);
}
static double wish_gc_fwd(const double *x, const double *d, double *r, void *c) {
    Wishart w = {x[0], 4}, dw = {d[0], 12345}; /* the shadow's int is ignored */
    (void)c;
    return wish_fwd(w, dw, x[1], d[1], r);
}
static double wish_gc_rev(const double *x, double *b, double s, void *c) {
    Wishart w = {x[0], 4}, wb = {b[0], -7};
    double r;
    (void)c;
    r = wish_rev(w, &wb, x[1], &b[1], s);
    b[0] = wb.gamma;
    return r;
}

/* pfun: x = c.x c.y w0 w1 w2 d0..d3 f; float tolerances, for the float
 * field (its finite differences and adjoint are in float) */
#define PN 4
static void p_pack(struct P *p, const double *x, double *d) {
    int i;
    p->c.x = x[0], p->c.y = x[1];
    for (i = 0; i < 3; i++)
        p->w[i] = x[2 + i];
    for (i = 0; i < PN; i++)
        d[i] = x[5 + i];
    p->d = d;
    p->n = PN;
    p->f = (float)x[5 + PN];
}
static double pfun_gc(const double *x, void *c) {
    struct P p;
    double d[PN];
    (void)c;
    p_pack(&p, x, d);
    return pfun(&p);
}
static double pfun_gc_fwd(const double *x, const double *dx, double *r, void *c) {
    struct P p, dp;
    double d[PN], dd[PN];
    (void)c;
    p_pack(&p, x, d);
    p_pack(&dp, dx, dd);
    dp.n = -1; /* ignored */
    return pfun_fwd(&p, &dp, r);
}
static double pfun_gc_rev(const double *x, double *b, double s, void *c) {
    struct P p, pb;
    double d[PN], db[PN], r;
    int i;
    (void)c;
    p_pack(&p, x, d);
    p_pack(&pb, b, db);
    r = pfun_rev(&p, &pb, s);
    b[0] = pb.c.x, b[1] = pb.c.y;
    for (i = 0; i < 3; i++)
        b[2 + i] = pb.w[i];
    for (i = 0; i < PN; i++)
        b[5 + i] = db[i];
    b[5 + PN] = pb.f;
    return r;
}

static double callp_gc(const double *x, void *c) {
    (void)c;
    return callp(x, x[2]);
}
static double callp_gc_fwd(const double *x, const double *d, double *r, void *c) {
    (void)c;
    return callp_fwd(x, d, x[2], d[2], r);
}
static double callp_gc_rev(const double *x, double *b, double s, void *c) {
    (void)c;
    return callp_rev(x, b, x[2], &b[2], s);
}

static double pdot_gc(const double *x, void *c) {
    struct V a = {x[0], x[1]}, b = {x[2], x[3]};
    (void)c;
    return pdot(&a, &b);
}
static double pdot_gc_fwd(const double *x, const double *d, double *r, void *c) {
    struct V a = {x[0], x[1]}, b = {x[2], x[3]}, da = {d[0], d[1]}, db = {d[2], d[3]};
    (void)c;
    return pdot_fwd(&a, &da, &b, &db, r);
}
static double pdot_gc_rev(const double *x, double *g, double s, void *c) {
    struct V a = {x[0], x[1]}, b = {x[2], x[3]}, ab = {g[0], g[1]}, bb = {g[2], g[3]};
    double r;
    (void)c;
    r = pdot_rev(&a, &ab, &b, &bb, s);
    g[0] = ab.x, g[1] = ab.y, g[2] = bb.x, g[3] = bb.y;
    return r;
}

static double fnorm_gc(const double *x, void *c) {
    struct VF v = {(float)x[0], (float)x[1]};
    (void)c;
    return fnorm(v);
}
static double fnorm_gc_fwd(const double *x, const double *d, double *r, void *c) {
    struct VF v = {(float)x[0], (float)x[1]}, dv = {(float)d[0], (float)d[1]};
    float dr, y;
    (void)c;
    y = fnorm_fwd(v, dv, &dr);
    *r = dr;
    return y;
}
static double fnorm_gc_rev(const double *x, double *b, double s, void *c) {
    struct VF v = {(float)x[0], (float)x[1]}, vb = {(float)b[0], (float)b[1]};
    float y;
    (void)c;
    y = fnorm_rev(v, &vb, (float)s);
    b[0] = vb.x, b[1] = vb.y;
    return y;
}

/* vector-valued: scale (x = in.x in.y k; y = out.x out.y) */
static void scale_w(const double *x, double *y, void *c) {
    struct V out, in = {x[0], x[1]};
    (void)c;
    scale(&out, &in, x[2]);
    y[0] = out.x, y[1] = out.y;
}
static void scale_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    struct V out, dout, in = {x[0], x[1]}, din = {dx[0], dx[1]};
    (void)c;
    scale_fwd(&out, &dout, &in, &din, x[2], dx[2]);
    y[0] = out.x, y[1] = out.y, dy[0] = dout.x, dy[1] = dout.y;
}
static void scale_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    struct V out, outb = {yb[0], yb[1]}, in = {x[0], x[1]}, inb = {xb[0], xb[1]};
    (void)c;
    scale_rev(&out, &outb, &in, &inb, x[2], &xb[2]);
    y[0] = out.x, y[1] = out.y, xb[0] = inb.x, xb[1] = inb.y;
}

/* rot (x = v.x v.y t; y = the returned struct) */
static void rot_w(const double *x, double *y, void *c) {
    struct V v = {x[0], x[1]}, r;
    (void)c;
    r = rot(v, x[2]);
    y[0] = r.x, y[1] = r.y;
}
static void rot_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    struct V v = {x[0], x[1]}, dv = {dx[0], dx[1]}, r, dr;
    (void)c;
    r = rot_fwd(v, dv, x[2], dx[2], &dr);
    y[0] = r.x, y[1] = r.y, dy[0] = dr.x, dy[1] = dr.y;
}
static void rot_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    struct V v = {x[0], x[1]}, vb = {xb[0], xb[1]}, rb = {yb[0], yb[1]}, r;
    (void)c;
    r = rot_rev(v, &vb, x[2], &xb[2], rb);
    y[0] = r.x, y[1] = r.y, xb[0] = vb.x, xb[1] = vb.y;
}

/* fill (x = c0 c1 t; y = w[0..FN)) */
#define FN 5
static void fill_w(const double *x, double *y, void *c) {
    struct B b = {{x[0], x[1]}, y, FN};
    (void)c;
    fill(&b, x[2]);
}
static void fill_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    struct B b = {{x[0], x[1]}, y, FN}, db = {{dx[0], dx[1]}, dy, 0};
    (void)c;
    fill_fwd(&b, &db, x[2], dx[2]);
}
static void fill_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    double seed[FN];
    struct B b = {{x[0], x[1]}, y, FN}, bb = {{xb[0], xb[1]}, seed, 0};
    (void)c;
    memcpy(seed, yb, sizeof seed);
    fill_rev(&b, &bb, x[2], &xb[2]);
    xb[0] = bb.c[0], xb[1] = bb.c[1];
}

GC_WRAP1(locsq)
GC_WRAP1(locsq2)

static double locsq_v_gc(const double *x, void *c) {
    struct V v = {x[0], x[1]};
    (void)c;
    return locsq_v(v);
}
static double locsq_v_gc_fwd(const double *x, const double *d, double *r, void *c) {
    struct V v = {x[0], x[1]}, dv = {d[0], d[1]};
    (void)c;
    return locsq_v_fwd(v, dv, r);
}
static double locsq_v_gc_rev(const double *x, double *b, double s, void *c) {
    struct V v = {x[0], x[1]}, vb = {b[0], b[1]};
    double r;
    (void)c;
    r = locsq_v_rev(v, &vb, s);
    b[0] = vb.x, b[1] = vb.y;
    return r;
}

static double locptr_gc(const double *x, void *c) { (void)c; return locptr(x); }
static double locptr_gc_fwd(const double *x, const double *d, double *r, void *c) {
    (void)c;
    return locptr_fwd(x, d, r);
}
static double locptr_gc_rev(const double *x, double *g, double s, void *c) {
    (void)c;
    return locptr_rev(x, g, s);
}

/* pfun_loop: x = pfun's x, then t */
static double pfun_loop_gc(const double *x, void *c) {
    struct P p;
    double d[PN];
    (void)c;
    p_pack(&p, x, d);
    return pfun_loop(&p, x[6 + PN]);
}
static double pfun_loop_gc_fwd(const double *x, const double *dx, double *r, void *c) {
    struct P p, dp;
    double d[PN], dd[PN];
    (void)c;
    p_pack(&p, x, d);
    p_pack(&dp, dx, dd);
    dp.n = -1; /* ignored */
    return pfun_loop_fwd(&p, &dp, x[6 + PN], dx[6 + PN], r);
}
static double pfun_loop_gc_rev(const double *x, double *b, double s, void *c) {
    struct P p, pb;
    double d[PN], db[PN], r;
    int i;
    (void)c;
    p_pack(&p, x, d);
    p_pack(&pb, b, db);
    r = pfun_loop_rev(&p, &pb, x[6 + PN], &b[6 + PN], s);
    b[0] = pb.c.x, b[1] = pb.c.y;
    for (i = 0; i < 3; i++)
        b[2 + i] = pb.w[i];
    for (i = 0; i < PN; i++)
        b[5 + i] = db[i];
    b[5 + PN] = pb.f;
    return r;
}

/* kw (x = ouble.x ouble.y t; y = o.x o.y) */
static void kw_w(const double *x, double *y, void *c) {
    struct V o, in = {x[0], x[1]};
    (void)c;
    kw(&o, &in, x[2]);
    y[0] = o.x, y[1] = o.y;
}
static void kw_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    struct V o, dout, in = {x[0], x[1]}, din = {dx[0], dx[1]};
    (void)c;
    kw_fwd(&o, &dout, &in, &din, x[2], dx[2]);
    y[0] = o.x, y[1] = o.y, dy[0] = dout.x, dy[1] = dout.y;
}
static void kw_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    struct V o, outb = {yb[0], yb[1]}, in = {x[0], x[1]}, inb = {xb[0], xb[1]};
    (void)c;
    kw_rev(&o, &outb, &in, &inb, x[2], &xb[2]);
    y[0] = o.x, y[1] = o.y, xb[0] = inb.x, xb[1] = inb.y;
}

int main(void) {
    struct gca_problem p = {0};
    GC_CHECK(norm2, 2, 1.5, -0.5, 0.25, 2.0);
    GC_CHECK(wish, 2, 0.7, 1.3, -1.1, 0.9);
    GC_CHECKF(pfun, 10, 0.3, -0.4, 1.1, 0.2, -0.7, 0.5, 1.5, -2.0, 0.1, 0.75);
    GC_CHECK(pdot, 4, 0.3, -0.4, 1.1, 0.2);
    GC_CHECK(callp, 3, 0.3, -0.4, 0.6, 1.2, 0.8, -0.3);
    GC_CHECKF(fnorm, 2, 0.5, -1.25, 2.0, 0.75);
    GC_CHECK(locsq, 1, 0.4, -1.3);
    GC_CHECK(locsq2, 1, 0.4, -1.3);
    GC_CHECK(locsq_v, 2, 0.4, -1.3, 0.8, 0.2);
    GC_CHECK(locptr, 4, 0.3, -0.4, 1.1, 0.2, -0.7, 0.5, 1.5, -2.0);
    GC_CHECKF(pfun_loop, 11, 0.3, -0.4, 1.1, 0.2, -0.7, 0.5, 1.5, -2.0, 0.1, 0.75, 0.6);
    p.ctx = NULL, p.nout = 2, p.nin = 3;
    p.name = "scale", p.f = scale_w, p.fwd = scale_wfwd, p.rev = scale_wrev;
    gca_check_random(&p, 3, -2, 2);
    p.name = "rot", p.f = rot_w, p.fwd = rot_wfwd, p.rev = rot_wrev;
    gca_check_random(&p, 3, -2, 2);
    p.name = "fill", p.nout = FN, p.f = fill_w, p.fwd = fill_wfwd, p.rev = fill_wrev;
    gca_check_random(&p, 3, -2, 2);
    p.name = "kw", p.nout = 2, p.f = kw_w, p.fwd = kw_wfwd, p.rev = kw_wrev;
    gca_check_random(&p, 3, -2, 2);
    return gc_summary();
}
