/* struct_inout.c: fields read and then written through a struct pointer,
 * in-out by DESIGN section 1 ("written data follows the in-out rule"):
 * f_fwd's shadow holds on entry the tangents of the initial values and on
 * exit those of the final ones; f_rev's holds on entry the seeds of the
 * final values and on exit the adjoints of the initial ones, and the struct
 * itself ends holding f's final values. A scalar field, a fixed array
 * field, a nested struct's field, an array behind a pointer field updated
 * in a loop and in time steps, and a custom function updating the field
 * array in place. */
#include <math.h>
#include <string.h>
#include "chad.h"
#include "gradcheck.h"

struct V { double x; double w[3]; };
struct N { struct V in; double s; };
struct B { double *v; int n; double t; };
struct ctx { int n, k; };

/* x, then w, each read before it is written */
CHAD_DIFFERENTIABLE
void bump(struct V *p, double a) {
    p->x += a * p->x;
    for (int i = 0; i < 3; i++)
        p->w[i] = p->w[i] * a + sin(p->x);
}

/* a nested struct's fields, and a field only read */
CHAD_DIFFERENTIABLE
double nested(struct N *q, double a) {
    q->in.x = q->in.x * q->s + a;
    q->in.w[1] -= q->in.x * q->in.w[0];
    return q->in.w[1] * q->s;
}

/* the array a pointer field points to, updated in time steps */
CHAD_DIFFERENTIABLE
void steps(struct B *b, int k) {
    for (int s = 0; s < k; s++) {
        for (int i = b->n - 1; i > 0; i--)
            b->v[i] = b->v[i] + b->t * (b->v[i - 1] - b->v[i] * b->v[i]);
        b->v[0] = cos(b->v[0]) * b->t;
    }
}

/* a custom function (end of file) updates the field's array in place:
 * returns sum v^2, then v[i] = s v[i] + v[i - 1] from the top, v[0] = s v[0] */
CHAD_CUSTOM double mix(int n, double s, double v[n]);
double mix_fwd(int n, double s, double ds, double *v, double *dv, double *d_ret);
double mix_rev(int n, double s, double *s_b, double *v, double *v_b, double ret_b);

CHAD_DIFFERENTIABLE
double mixed(struct B *b) {
    double r = mix(b->n, b->t, b->v);
    b->v[0] += 0.1 * r;
    return r * b->t;
}

double mix(int n, double s, double v[n]) {
    double r = 0;
    for (int i = 0; i < n; i++)
        r += v[i] * v[i];
    for (int i = n - 1; i >= 1; i--)
        v[i] = s * v[i] + v[i - 1];
    v[0] = s * v[0];
    return r;
}
double mix_fwd(int n, double s, double ds, double *v, double *dv, double *d_ret) {
    double dr = 0;
    for (int i = 0; i < n; i++)
        dr += 2 * v[i] * dv[i];
    for (int i = n - 1; i >= 1; i--)
        dv[i] = ds * v[i] + s * dv[i] + dv[i - 1];
    dv[0] = ds * v[0] + s * dv[0];
    *d_ret = dr;
    return mix(n, s, v);
}
double mix_rev(int n, double s, double *s_b, double *v, double *v_b, double ret_b) {
    for (int i = 0; i < n; i++)
        *s_b += v_b[i] * v[i];
    for (int i = 0; i < n; i++)
        v_b[i] = s * v_b[i] + (i + 1 < n ? v_b[i + 1] : 0) + 2 * v[i] * ret_b;
    return mix(n, s, v);
}

/* ------------------------------------------------------------- checks */

/* bump: x = (x, w[3], a), y = (x, w[3]) final */
static void bump_w(const double *x, double *y, void *c) {
    struct V v = {x[0], {x[1], x[2], x[3]}};
    (void)c;
    bump(&v, x[4]);
    y[0] = v.x, memcpy(y + 1, v.w, sizeof v.w);
}
static void bump_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    struct V v = {x[0], {x[1], x[2], x[3]}}, dv = {dx[0], {dx[1], dx[2], dx[3]}};
    (void)c;
    bump_fwd(&v, &dv, x[4], dx[4]);
    y[0] = v.x, memcpy(y + 1, v.w, sizeof v.w);
    dy[0] = dv.x, memcpy(dy + 1, dv.w, sizeof dv.w);
}
static void bump_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    struct V v = {x[0], {x[1], x[2], x[3]}}, vb = {yb[0], {yb[1], yb[2], yb[3]}};
    (void)c;
    bump_rev(&v, &vb, x[4], &xb[4]);
    y[0] = v.x, memcpy(y + 1, v.w, sizeof v.w); /* f's final values */
    xb[0] += vb.x;
    for (int i = 0; i < 3; i++)
        xb[1 + i] += vb.w[i];
}

/* nested: x = (in.x, in.w[3], s, a), y = (ret, in.x, in.w[3], s) */
static void nested_w(const double *x, double *y, void *c) {
    struct N q = {{x[0], {x[1], x[2], x[3]}}, x[4]};
    (void)c;
    y[0] = nested(&q, x[5]);
    y[1] = q.in.x, memcpy(y + 2, q.in.w, sizeof q.in.w), y[5] = q.s;
}
static void nested_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    struct N q = {{x[0], {x[1], x[2], x[3]}}, x[4]}, dq = {{dx[0], {dx[1], dx[2], dx[3]}}, dx[4]};
    (void)c;
    y[0] = nested_fwd(&q, &dq, x[5], dx[5], &dy[0]);
    y[1] = q.in.x, memcpy(y + 2, q.in.w, sizeof q.in.w), y[5] = q.s;
    dy[1] = dq.in.x, memcpy(dy + 2, dq.in.w, sizeof dq.in.w), dy[5] = dq.s;
}
static void nested_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    struct N q = {{x[0], {x[1], x[2], x[3]}}, x[4]};
    struct N qb = {{yb[1], {yb[2], yb[3], yb[4]}}, yb[5]};
    (void)c;
    y[0] = nested_rev(&q, &qb, x[5], &xb[5], yb[0]);
    y[1] = q.in.x, memcpy(y + 2, q.in.w, sizeof q.in.w), y[5] = q.s;
    xb[0] += qb.in.x, xb[4] += qb.s;
    for (int i = 0; i < 3; i++)
        xb[1 + i] += qb.in.w[i];
}

/* steps: x = (v[0..n), t), y = v final */
static void steps_w(const double *x, double *y, void *c) {
    const struct ctx *cx = c;
    struct B b = {y, cx->n, x[cx->n]};
    memcpy(y, x, sizeof(double) * (size_t)cx->n);
    steps(&b, cx->k);
}
static void steps_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    const struct ctx *cx = c;
    struct B b = {y, cx->n, x[cx->n]}, db = {dy, 0, dx[cx->n]};
    memcpy(y, x, sizeof(double) * (size_t)cx->n);
    memcpy(dy, dx, sizeof(double) * (size_t)cx->n);
    steps_fwd(&b, &db, cx->k);
}
static void steps_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    const struct ctx *cx = c;
    double seed[16];
    memcpy(seed, yb, sizeof(double) * (size_t)cx->n);
    struct B b = {y, cx->n, x[cx->n]}, bb = {seed, 0, 0};
    memcpy(y, x, sizeof(double) * (size_t)cx->n);
    steps_rev(&b, &bb, cx->k);
    for (int i = 0; i < cx->n; i++)
        xb[i] += seed[i];
    xb[cx->n] += bb.t;
}

/* mixed: x = (v[0..n), t), y = (ret, v final) */
static void mixed_w(const double *x, double *y, void *c) {
    const struct ctx *cx = c;
    struct B b = {y + 1, cx->n, x[cx->n]};
    memcpy(y + 1, x, sizeof(double) * (size_t)cx->n);
    y[0] = mixed(&b);
}
static void mixed_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    const struct ctx *cx = c;
    struct B b = {y + 1, cx->n, x[cx->n]}, db = {dy + 1, 0, dx[cx->n]};
    memcpy(y + 1, x, sizeof(double) * (size_t)cx->n);
    memcpy(dy + 1, dx, sizeof(double) * (size_t)cx->n);
    y[0] = mixed_fwd(&b, &db, &dy[0]);
}
static void mixed_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    const struct ctx *cx = c;
    double seed[16];
    memcpy(seed, yb + 1, sizeof(double) * (size_t)cx->n);
    struct B b = {y + 1, cx->n, x[cx->n]}, bb = {seed, 0, 0};
    memcpy(y + 1, x, sizeof(double) * (size_t)cx->n);
    y[0] = mixed_rev(&b, &bb, yb[0]);
    for (int i = 0; i < cx->n; i++)
        xb[i] += seed[i];
    xb[cx->n] += bb.t;
}

int main(void) {
    struct gca_problem p = {0};
    p.name = "bump", p.nin = 5, p.nout = 4, p.f = bump_w, p.fwd = bump_wfwd, p.rev = bump_wrev;
    gca_check_random(&p, 3, -1.5, 1.5);
    p.name = "nested", p.nin = 6, p.nout = 6;
    p.f = nested_w, p.fwd = nested_wfwd, p.rev = nested_wrev;
    gca_check_random(&p, 3, -1.5, 1.5);
    static const struct ctx cs[] = {{1, 1}, {3, 2}, {6, 5}};
    for (unsigned q = 0; q < sizeof cs / sizeof cs[0]; q++) {
        char name[64];
        snprintf(name, sizeof name, "steps n=%d k=%d", cs[q].n, cs[q].k);
        p.name = name, p.nin = cs[q].n + 1, p.nout = cs[q].n, p.ctx = (void *)&cs[q];
        p.f = steps_w, p.fwd = steps_wfwd, p.rev = steps_wrev;
        gca_check_random(&p, 3, -0.8, 0.8);
        snprintf(name, sizeof name, "mixed n=%d", cs[q].n);
        p.nout = cs[q].n + 1, p.f = mixed_w, p.fwd = mixed_wfwd, p.rev = mixed_wrev;
        gca_check_random(&p, 3, -0.8, 0.8);
    }
    return gc_summary();
}
