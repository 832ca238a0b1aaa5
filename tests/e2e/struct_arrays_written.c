/* struct_arrays_written.c: arrays of structs whose floating fields the
 * function writes. By DESIGN section 1 written data of a struct pointer is
 * in-out: f_fwd's shadow holds on entry the tangents of the initial values
 * and on exit those of the final ones; f_rev's holds on entry the seeds of
 * the final values and on exit the adjoints of the initial ones, and the
 * array ends holding f's final values. The fields interleave in memory, so
 * each check also asserts that the integer fields of the primal and of the
 * shadow are untouched. Forms: fields read then written in time steps
 * (leapfrog), a field written before it is read, a fixed array field of a
 * nested struct, a callee writing through `&ps[i]`, a callee indexing a
 * suffix `ps + 1`, a walking pointer, and a written field only some
 * iterations reach. */
#include <math.h>
#include <string.h>
#include "chad.h"
#include "gradcheck.h"

typedef struct { double x, v; int id; } P;
struct E { int tag; double w[2]; struct { double m; short k; } in; };
struct ctx { int n, k; };

/* leapfrog steps of unit springs, in place; returns the final energy */
CHAD_DIFFERENTIABLE
double leapfrog(P *ps, int n, int k, double dt) {
    for (int s = 0; s < k; s++)
        for (int i = 0; i < n; i++) {
            ps[i].v -= dt * sin(ps[i].x);
            ps[i].x += dt * ps[i].v;
        }
    double e = 0;
    for (int i = 0; i < n; i++)
        e += 0.5 * ps[i].v * ps[i].v + (1 - cos(ps[i].x));
    return e;
}

/* v written before it is read: its initial value's adjoint is zero */
CHAD_DIFFERENTIABLE
void velocities(P *ps, unsigned n, double a) {
    for (unsigned i = 0; i < n; i++) {
        ps[i].v = a * ps[i].x * ps[i].x;
        ps[i].x = ps[i].x + ps[i].v;
    }
}

/* a fixed array field and a nested struct's field, at a run-time index */
CHAD_DIFFERENTIABLE
void weights(struct E *es, int n, double a) {
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < 2; j++)
            es[i].w[j] = es[i].w[j] * es[i].in.m + a;
        es[i].in.m = exp(-es[i].w[1] * es[i].w[0]);
    }
}

/* a callee writing one struct through a pointer, another indexing a suffix */
CHAD_DIFFERENTIABLE
static void kick(P *p, double a) {
    p->v += a * p->x;
    p->x *= 1 + p->v * p->v;
}
CHAD_DIFFERENTIABLE
static void drift(P *q, int m, double a) {
    for (int i = 0; i < m; i++)
        q[i].x += a * q[i].v;
}
CHAD_DIFFERENTIABLE
void calls(P *ps, int n, double a) {
    for (int i = 0; i < n; i++)
        kick(&ps[i], a);
    drift(ps + 1, n - 1, a);
}

/* a walking pointer, and a field written only where a condition holds */
CHAD_DIFFERENTIABLE
double walk(P *ps, int n, double a) {
    double s = 0;
    for (P *p = ps; p < ps + n; p++) {
        if (p->x > 0)
            p->v = a * p->x;
        s += p->v * p->x;
    }
    return s;
}

/* ------------------------------------------------------------- checks */

/* The integer fields get values the functions must not change. */
static int intact = 1;
static void fill(P *ps, const double *x, int n) {
    for (int i = 0; i < n; i++)
        ps[i].x = x[2 * i], ps[i].v = x[2 * i + 1], ps[i].id = 100 + i;
}
static void unfill(double *y, const P *ps, int n) {
    for (int i = 0; i < n; i++) {
        y[2 * i] = ps[i].x, y[2 * i + 1] = ps[i].v;
        intact &= ps[i].id == 100 + i;
    }
}

/* P-array functions: x = (x0, v0, x1, v1, ..., a), y = (ret?, final x, v) */
typedef double (*pfun)(P *, const struct ctx *, double);
typedef double (*pfwd)(P *, P *, const struct ctx *, double, double, double *);
typedef double (*prev)(P *, P *, const struct ctx *, double, double *, double);
struct pcase { pfun f; pfwd fwd; prev rev; int ret; const struct ctx *cx; };

static void p_w(const double *x, double *y, void *c) {
    const struct pcase *pc = c;
    int n = pc->cx->n;
    P ps[8];
    fill(ps, x, n);
    double r = pc->f(ps, pc->cx, x[2 * n]);
    if (pc->ret)
        y[0] = r;
    unfill(y + pc->ret, ps, n);
}
static void p_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    const struct pcase *pc = c;
    int n = pc->cx->n;
    P ps[8], dps[8];
    fill(ps, x, n), fill(dps, dx, n);
    double dr = 0, r = pc->fwd(ps, dps, pc->cx, x[2 * n], dx[2 * n], &dr);
    if (pc->ret)
        y[0] = r, dy[0] = dr;
    unfill(y + pc->ret, ps, n), unfill(dy + pc->ret, dps, n);
}
static void p_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    const struct pcase *pc = c;
    int n = pc->cx->n;
    P ps[8], pb[8];
    double seed[16], ab = 0;
    fill(ps, x, n), fill(pb, yb + pc->ret, n);
    double r = pc->rev(ps, pb, pc->cx, x[2 * n], &ab, pc->ret ? yb[0] : 0);
    if (pc->ret)
        y[0] = r;
    unfill(y + pc->ret, ps, n), unfill(seed, pb, n);
    for (int i = 0; i < 2 * n; i++)
        xb[i] += seed[i];
    xb[2 * n] += ab;
}

static double leap_f(P *ps, const struct ctx *cx, double a) { return leapfrog(ps, cx->n, cx->k, a); }
static double leap_fwd(P *ps, P *dps, const struct ctx *cx, double a, double da, double *dr) {
    return leapfrog_fwd(ps, dps, cx->n, cx->k, a, da, dr);
}
static double leap_rev(P *ps, P *pb, const struct ctx *cx, double a, double *ab, double rb) {
    return leapfrog_rev(ps, pb, cx->n, cx->k, a, ab, rb);
}
static double vel_f(P *ps, const struct ctx *cx, double a) { velocities(ps, (unsigned)cx->n, a); return 0; }
static double vel_fwd(P *ps, P *dps, const struct ctx *cx, double a, double da, double *dr) {
    (void)dr;
    velocities_fwd(ps, dps, (unsigned)cx->n, a, da);
    return 0;
}
static double vel_rev(P *ps, P *pb, const struct ctx *cx, double a, double *ab, double rb) {
    (void)rb;
    velocities_rev(ps, pb, (unsigned)cx->n, a, ab);
    return 0;
}
static double calls_f(P *ps, const struct ctx *cx, double a) { calls(ps, cx->n, a); return 0; }
static double calls_fwd2(P *ps, P *dps, const struct ctx *cx, double a, double da, double *dr) {
    (void)dr;
    calls_fwd(ps, dps, cx->n, a, da);
    return 0;
}
static double calls_rev2(P *ps, P *pb, const struct ctx *cx, double a, double *ab, double rb) {
    (void)rb;
    calls_rev(ps, pb, cx->n, a, ab);
    return 0;
}
static double walk_f(P *ps, const struct ctx *cx, double a) { return walk(ps, cx->n, a); }
static double walk_fwd2(P *ps, P *dps, const struct ctx *cx, double a, double da, double *dr) {
    return walk_fwd(ps, dps, cx->n, a, da, dr);
}
static double walk_rev2(P *ps, P *pb, const struct ctx *cx, double a, double *ab, double rb) {
    return walk_rev(ps, pb, cx->n, a, ab, rb);
}

/* weights: x = (w0, w1, m per struct, a), y = the same fields final */
static void efill(struct E *es, const double *x, int n) {
    for (int i = 0; i < n; i++) {
        es[i].tag = 7 * i, es[i].in.k = (short)(3 - i);
        es[i].w[0] = x[3 * i], es[i].w[1] = x[3 * i + 1], es[i].in.m = x[3 * i + 2];
    }
}
static void eunfill(double *y, const struct E *es, int n) {
    for (int i = 0; i < n; i++) {
        y[3 * i] = es[i].w[0], y[3 * i + 1] = es[i].w[1], y[3 * i + 2] = es[i].in.m;
        intact &= es[i].tag == 7 * i && es[i].in.k == 3 - i;
    }
}
static void w_w(const double *x, double *y, void *c) {
    int n = ((const struct ctx *)c)->n;
    struct E es[8];
    efill(es, x, n);
    weights(es, n, x[3 * n]);
    eunfill(y, es, n);
}
static void w_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = ((const struct ctx *)c)->n;
    struct E es[8], des[8];
    efill(es, x, n), efill(des, dx, n);
    weights_fwd(es, des, n, x[3 * n], dx[3 * n]);
    eunfill(y, es, n), eunfill(dy, des, n);
}
static void w_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = ((const struct ctx *)c)->n;
    struct E es[8], eb[8];
    double seed[24], ab = 0;
    efill(es, x, n), efill(eb, yb, n);
    weights_rev(es, eb, n, x[3 * n], &ab);
    eunfill(y, es, n), eunfill(seed, eb, n);
    for (int i = 0; i < 3 * n; i++)
        xb[i] += seed[i];
    xb[3 * n] += ab;
}

int main(void) {
    static const struct ctx cs[] = {{1, 1}, {3, 2}, {6, 5}};
    struct pcase pcs[] = {{leap_f, leap_fwd, leap_rev, 1, 0},
                          {vel_f, vel_fwd, vel_rev, 0, 0},
                          {calls_f, calls_fwd2, calls_rev2, 0, 0},
                          {walk_f, walk_fwd2, walk_rev2, 1, 0}};
    static const char *names[] = {"leapfrog", "velocities", "calls", "walk"};
    for (unsigned q = 0; q < sizeof cs / sizeof cs[0]; q++) {
        char name[64];
        int n = cs[q].n;
        for (unsigned k = 0; k < sizeof pcs / sizeof pcs[0]; k++) {
            struct gca_problem p = {0};
            pcs[k].cx = &cs[q];
            snprintf(name, sizeof name, "%s n=%d k=%d", names[k], n, cs[q].k);
            p.name = name, p.nin = 2 * n + 1, p.nout = 2 * n + pcs[k].ret;
            p.f = p_w, p.fwd = p_wfwd, p.rev = p_wrev, p.ctx = &pcs[k];
            gca_check_random(&p, 3, -1.2, 1.2);
        }
        struct gca_problem p = {0};
        snprintf(name, sizeof name, "weights n=%d", n);
        p.name = name, p.nin = 3 * n + 1, p.nout = 3 * n, p.ctx = (void *)&cs[q];
        p.f = w_w, p.fwd = w_wfwd, p.rev = w_wrev;
        gca_check_random(&p, 3, -1.0, 1.0);
    }
    gc_expect(intact, "struct arrays", "integer fields of the structs and their shadows untouched");
    return gc_summary();
}
