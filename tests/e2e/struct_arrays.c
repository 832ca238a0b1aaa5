/* struct_arrays.c: arrays of structs read as numerical C reads its data
 * (`pts[i].x`, `(pts + i)->y`, `pts->x`, a local `const Pt *p = &pts[i]`,
 * a struct copied whole out of the array, a nested struct's field, a fixed
 * array field at a run-time index, integer fields as weights and indices),
 * passed on as one struct (`&os[i]`) and as a shorter array (`os + 1`),
 * walked by pointers (`p++`, `q != end`, `q += 1`, `q = &pts[n - 1]`); and
 * local pointers to structs (`Pt *p = &s`, `const Pt *q = p`, a pointer to
 * a nested struct of a parameter written through); an array of structs
 * and a struct marked CHAD_INACTIVE (data: no shadow). The shadow of an array
 * of structs is an array of structs of the same length (DESIGN section 1:
 * the same shape); its integer fields are left alone. Checked against
 * finite differences, by forward / reverse duality and for accumulation. */
#include <math.h>
#include <stddef.h>
#include <string.h>
#include "chad.h"
#include "gradcheck.h"

typedef struct { double x, y; int tag; } Pt;
typedef struct {
    double w[2];
    struct { double s; long id; } in;
    unsigned char k;
} Obs;

/* a least-squares fit whose data points are an array of structs */
CHAD_DIFFERENTIABLE
double fit(const Pt *pts, unsigned n, const double *c) {
    double r = 0;
    for (unsigned i = 0; i < n; i++) {
        const Pt *p = &pts[i];
        double e = c[0] + c[1] * p->x + c[2] * sin((pts + i)->y) - pts[i].y;
        r += e * e * (1 + pts[i].tag % 3);
    }
    return r + pts->x * (*pts).y;
}

CHAD_DIFFERENTIABLE
static double obs_one(const Obs *o, double a) {
    return o->w[0] * a + o->w[1] * o->in.s * (double)o->k;
}

CHAD_DIFFERENTIABLE
static double obs_sum(const Obs *os, size_t m, double a) {
    double s = 0;
    for (size_t j = 0; j < m; j++)
        s += os[j].in.s * a * os[j].w[os[j].in.id % 2];
    return s;
}

CHAD_DIFFERENTIABLE
double obs(const Obs *os, int n, double a) {
    double r = 0;
    for (int i = 0; i < n; i++) {
        Obs o = os[i]; /* copied whole */
        r += obs_one(&os[i], a) * o.in.s + cos(o.w[1]);
    }
    return r + obs_sum(os + 1, (size_t)(n - 1), a);
}

/* local pointers to a local struct, one through the other */
CHAD_DIFFERENTIABLE
double alias_local(double a, double b) {
    Pt s = {a, b, 2};
    Pt *p = &s;
    const Pt *q = p;
    p->x *= b;
    s.y += a;
    return q->x * q->y + q->tag;
}

typedef struct { double c[3]; Pt o; } Body;

/* a local pointer to a parameter's nested struct, written through */
CHAD_DIFFERENTIABLE
void alias_param(Body *b, double t) {
    Pt *o = &b->o;
    o->x += t * b->c[0];
    o->y = o->x * b->c[1] + exp(t * o->y);
}

/* pointers walked through an array of structs: p++ to an end, a while
 * loop to a pointer compared with !=, a pointer moved by += and reset by
 * assignment */
CHAD_DIFFERENTIABLE
double walk(const Pt *pts, int n, double a) {
    double s = 0;
    for (const Pt *p = pts; p < pts + n; p++)
        s += a * p->x * p->y + p->tag;
    const Pt *end = pts + n, *q = &pts[0];
    while (q != end) {
        s += sin(q->y) * q->x;
        q += 1;
    }
    q = &pts[n - 1];
    for (const Pt *p = pts + n - 1; p >= pts; p--)
        s = s * 0.5 + p->y * a;
    return s + q->x * a;
}

typedef struct { double x; _Bool on; _Bool fl[2]; } Fl;

/* _Bool fields, scalar and array, in an array of structs and by value */
CHAD_DIFFERENTIABLE
double flags(const Fl *fs, int n, Fl g) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += fs[i].on ? fs[i].x * fs[i].x : (fs[i].fl[1] ? 2 * fs[i].x : g.x);
    return s + (g.fl[0] ? g.x * g.x : 0);
}

/* a regression's data, an array of structs, and its settings, a struct
 * by value, both marked inactive: no shadows */
CHAD_DIFFERENTIABLE
double loss(const double *w, CHAD_INACTIVE const Pt *data, int n, CHAD_INACTIVE Body cfg) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        double e = w[0] + w[1] * data[i].x - data[i].y * data[i].tag;
        s += cfg.c[0] * e * e;
    }
    return s + cfg.o.x * w[1] * w[1];
}

struct ctx { int n; };

/* fit: x = (pts[i].x, pts[i].y for each i, c[3]) */
static void pack_pts(Pt *pts, const double *x, int n) {
    for (int i = 0; i < n; i++)
        pts[i].x = x[2 * i], pts[i].y = x[2 * i + 1], pts[i].tag = i;
}
static void fit_w(const double *x, double *y, void *c) {
    int n = ((const struct ctx *)c)->n;
    Pt pts[8];
    pack_pts(pts, x, n);
    y[0] = fit(pts, (unsigned)n, x + 2 * n);
}
static void fit_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = ((const struct ctx *)c)->n;
    Pt pts[8], dpts[8];
    pack_pts(pts, x, n), pack_pts(dpts, dx, n);
    y[0] = fit_fwd(pts, dpts, (unsigned)n, x + 2 * n, dx + 2 * n, &dy[0]);
}
static void fit_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = ((const struct ctx *)c)->n;
    Pt pts[8], ptsb[8];
    pack_pts(pts, x, n), pack_pts(ptsb, xb, n); /* accumulates */
    for (int i = 0; i < n; i++)
        ptsb[i].tag = 1000 + i;
    y[0] = fit_rev(pts, ptsb, (unsigned)n, x + 2 * n, xb + 2 * n, yb[0]);
    for (int i = 0; i < n; i++) {
        xb[2 * i] = ptsb[i].x, xb[2 * i + 1] = ptsb[i].y;
        gc_expect(ptsb[i].tag == 1000 + i, "fit", "an integer field of the shadow changed");
    }
}

/* walk: x = (pts[i].x, pts[i].y for each i, a) */
static void walk_w(const double *x, double *y, void *c) {
    int n = ((const struct ctx *)c)->n;
    Pt pts[8];
    pack_pts(pts, x, n);
    y[0] = walk(pts, n, x[2 * n]);
}
static void walk_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = ((const struct ctx *)c)->n;
    Pt pts[8], dpts[8];
    pack_pts(pts, x, n), pack_pts(dpts, dx, n);
    y[0] = walk_fwd(pts, dpts, n, x[2 * n], dx[2 * n], &dy[0]);
}
static void walk_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = ((const struct ctx *)c)->n;
    Pt pts[8], ptsb[8];
    pack_pts(pts, x, n), pack_pts(ptsb, xb, n);
    y[0] = walk_rev(pts, ptsb, n, x[2 * n], &xb[2 * n], yb[0]);
    for (int i = 0; i < n; i++)
        xb[2 * i] = ptsb[i].x, xb[2 * i + 1] = ptsb[i].y;
}

/* flags: x = (fs[i].x for each i, g.x) */
static void pack_fl(Fl *fs, Fl *g, const double *x, int n) {
    for (int i = 0; i < n; i++)
        fs[i].x = x[i], fs[i].on = i % 3 == 0, fs[i].fl[0] = 1, fs[i].fl[1] = i % 2;
    g->x = x[n], g->on = 0, g->fl[0] = 1, g->fl[1] = 0;
}
static void flags_w(const double *x, double *y, void *c) {
    int n = ((const struct ctx *)c)->n;
    Fl fs[8], g;
    pack_fl(fs, &g, x, n);
    y[0] = flags(fs, n, g);
}
static void flags_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = ((const struct ctx *)c)->n;
    Fl fs[8], g, dfs[8], dg;
    pack_fl(fs, &g, x, n), pack_fl(dfs, &dg, dx, n);
    y[0] = flags_fwd(fs, dfs, n, g, dg, &dy[0]);
}
static void flags_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = ((const struct ctx *)c)->n;
    Fl fs[8], g, fsb[8], gb;
    pack_fl(fs, &g, x, n), pack_fl(fsb, &gb, xb, n);
    y[0] = flags_rev(fs, fsb, n, g, &gb, yb[0]);
    for (int i = 0; i < n; i++)
        xb[i] = fsb[i].x;
    xb[n] = gb.x;
}

/* obs: x = (w[0], w[1], in.s for each i, a) */
static void pack_obs(Obs *os, const double *x, int n) {
    for (int i = 0; i < n; i++) {
        os[i].w[0] = x[3 * i], os[i].w[1] = x[3 * i + 1], os[i].in.s = x[3 * i + 2];
        os[i].in.id = 7 * i + 1, os[i].k = (unsigned char)(i + 2);
    }
}
static void obs_w(const double *x, double *y, void *c) {
    int n = ((const struct ctx *)c)->n;
    Obs os[8];
    pack_obs(os, x, n);
    y[0] = obs(os, n, x[3 * n]);
}
static void obs_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = ((const struct ctx *)c)->n;
    Obs os[8], dos[8];
    pack_obs(os, x, n), pack_obs(dos, dx, n);
    y[0] = obs_fwd(os, dos, n, x[3 * n], dx[3 * n], &dy[0]);
}
static void obs_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = ((const struct ctx *)c)->n;
    Obs os[8], osb[8];
    pack_obs(os, x, n), pack_obs(osb, xb, n);
    for (int i = 0; i < n; i++)
        osb[i].in.id = -5, osb[i].k = 99;
    y[0] = obs_rev(os, osb, n, x[3 * n], &xb[3 * n], yb[0]);
    for (int i = 0; i < n; i++) {
        xb[3 * i] = osb[i].w[0], xb[3 * i + 1] = osb[i].w[1], xb[3 * i + 2] = osb[i].in.s;
        gc_expect(osb[i].in.id == -5 && osb[i].k == 99, "obs",
                  "an integer field of the shadow changed");
    }
}

/* alias_local: x = (a, b) */
static void al_w(const double *x, double *y, void *c) {
    (void)c;
    y[0] = alias_local(x[0], x[1]);
}
static void al_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c;
    y[0] = alias_local_fwd(x[0], dx[0], x[1], dx[1], &dy[0]);
}
static void al_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c;
    y[0] = alias_local_rev(x[0], &xb[0], x[1], &xb[1], yb[0]);
}

/* alias_param: x = (c[3], o.x, o.y, t), y = (c[3], o.x, o.y) final */
static void ap_w(const double *x, double *y, void *c) {
    Body b = {{x[0], x[1], x[2]}, {x[3], x[4], 0}};
    (void)c;
    alias_param(&b, x[5]);
    memcpy(y, b.c, sizeof b.c), y[3] = b.o.x, y[4] = b.o.y;
}
static void ap_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    Body b = {{x[0], x[1], x[2]}, {x[3], x[4], 0}};
    Body db = {{dx[0], dx[1], dx[2]}, {dx[3], dx[4], 0}};
    (void)c;
    alias_param_fwd(&b, &db, x[5], dx[5]);
    memcpy(y, b.c, sizeof b.c), y[3] = b.o.x, y[4] = b.o.y;
    memcpy(dy, db.c, sizeof db.c), dy[3] = db.o.x, dy[4] = db.o.y;
}
static void ap_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    Body b = {{x[0], x[1], x[2]}, {x[3], x[4], 0}};
    Body bb = {{yb[0], yb[1], yb[2]}, {yb[3], yb[4], 0}};
    (void)c;
    alias_param_rev(&b, &bb, x[5], &xb[5]);
    memcpy(y, b.c, sizeof b.c), y[3] = b.o.x, y[4] = b.o.y;
    for (int i = 0; i < 3; i++)
        xb[i] += bb.c[i];
    xb[3] += bb.o.x, xb[4] += bb.o.y;
}

/* loss: x = (w[2]); the data fixed */
static void data_of(Pt *pts, Body *cfg, int n) {
    for (int i = 0; i < n; i++)
        pts[i].x = 0.3 * i - 1, pts[i].y = cos(i), pts[i].tag = i % 2 + 1;
    cfg->c[0] = 0.7, cfg->c[1] = cfg->c[2] = 0, cfg->o.x = 0.2, cfg->o.y = 0, cfg->o.tag = 0;
}
static void loss_w(const double *x, double *y, void *c) {
    int n = ((const struct ctx *)c)->n;
    Pt pts[8];
    Body cfg;
    data_of(pts, &cfg, n);
    y[0] = loss(x, pts, n, cfg);
}
static void loss_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = ((const struct ctx *)c)->n;
    Pt pts[8];
    Body cfg;
    data_of(pts, &cfg, n);
    y[0] = loss_fwd(x, dx, pts, n, cfg, &dy[0]);
}
static void loss_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = ((const struct ctx *)c)->n;
    Pt pts[8];
    Body cfg;
    data_of(pts, &cfg, n);
    y[0] = loss_rev(x, xb, pts, n, cfg, yb[0]);
}

int main(void) {
    static const int sizes[] = {1, 2, 5, 8};
    struct ctx c;
    struct gca_problem p = {0};
    p.ctx = &c, p.prec = GC_DOUBLE;
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        c.n = sizes[s];
        p.name = "array of structs, indexed and through pointers", p.f = fit_w,
        p.fwd = fit_wfwd, p.rev = fit_wrev, p.nin = 2 * c.n + 3, p.nout = 1;
        gca_check_random(&p, 3, -1.5, 1.5);
        p.name = "pointers walked through an array of structs", p.f = walk_w,
        p.fwd = walk_wfwd, p.rev = walk_wrev, p.nin = 2 * c.n + 1, p.nout = 1;
        gca_check_random(&p, 3, -1.5, 1.5);
        p.name = "_Bool fields in an array of structs and a struct", p.f = flags_w,
        p.fwd = flags_wfwd, p.rev = flags_wrev, p.nin = c.n + 1, p.nout = 1;
        gca_check_random(&p, 3, -1.5, 1.5);
        p.name = "array of nested structs, passed on", p.f = obs_w, p.fwd = obs_wfwd,
        p.rev = obs_wrev, p.nin = 3 * c.n + 1, p.nout = 1;
        gca_check_random(&p, 3, -1.5, 1.5);
        p.name = "inactive array of structs and struct", p.f = loss_w, p.fwd = loss_wfwd,
        p.rev = loss_wrev, p.nin = 2, p.nout = 1;
        gca_check_random(&p, 3, -1.5, 1.5);
    }
    p.name = "local pointers to a local struct", p.f = al_w, p.fwd = al_wfwd,
    p.rev = al_wrev, p.nin = 2, p.nout = 1;
    gca_check_random(&p, 4, -1.5, 1.5);
    p.name = "a local pointer into a parameter, written through", p.f = ap_w,
    p.fwd = ap_wfwd, p.rev = ap_wrev, p.nin = 6, p.nout = 5;
    gca_check_random(&p, 4, -1.5, 1.5);
    return gc_summary();
}
