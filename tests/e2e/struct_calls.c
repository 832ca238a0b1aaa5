/* struct_calls.c: calls of differentiable functions that return structs
 * (DESIGN 1, "The rest of C"): the result initialising a local, assigned
 * whole (also to the struct passed as the argument, `p = twice(p)`),
 * returned, assigned to a nested field, dropped (a call made for the array
 * it fills), and in a loop. The callee's flat function writes its result
 * into temporaries that are then copied into the destination's leaves. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

typedef struct { double x, y; double v[3]; } P;
struct Q { P p; double w; };

CHAD_DIFFERENTIABLE
P make(const double *a, double s) {
    P r;
    r.x = a[0] * s;
    r.y = sin(a[1]) + s;
    for (int i = 0; i < 3; i++)
        r.v[i] = a[i] * a[(i + 1) % 3];
    return r;
}

CHAD_DIFFERENTIABLE
P twice(P p) {
    P r = p;
    r.x = 2 * p.x + p.y * p.v[0];
    r.v[2] = p.v[2] * p.x;
    return r;
}

/* initialised, reassigned from a call that reads it, and a second local */
CHAD_DIFFERENTIABLE
double use(const double *a, double s) {
    P p = make(a, s);
    p = twice(p);
    P q;
    q = make(a + 1, p.x);
    return p.x * q.y + p.v[2] * q.v[0] + p.y;
}

/* returned straight from a call, and into a nested field */
CHAD_DIFFERENTIABLE
P chain(const double *a, double s) {
    P p = make(a, s * s);
    return twice(p);
}

CHAD_DIFFERENTIABLE
double nested(const double *a) {
    struct Q q;
    q.w = a[3];
    q.p = chain(a, q.w);
    return q.p.x * q.w + q.p.v[1];
}

/* a struct function called for the array it fills, its result dropped */
CHAD_DIFFERENTIABLE
P fill(const double *a, double *out) {
    for (int i = 0; i < 3; i++)
        out[i] = cos(a[i]) * a[3];
    return make(a, out[0]);
}

CHAD_DIFFERENTIABLE
void drop(const double *a, double *out) { fill(a, out); }

/* in a loop, over windows of a */
CHAD_DIFFERENTIABLE
double window_sum(const double *a, int n, double s) {
    double acc = 0;
    for (int i = 0; i + 3 <= n; i++) {
        P t = make(&a[i], s);
        acc += t.x * t.v[1] + t.y;
    }
    return acc;
}

struct ctx { int n; };

/* use: x = (a[0..3], s) */
static void us_w(const double *x, double *y, void *c) { (void)c; y[0] = use(x, x[4]); }
static void us_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c;
    y[0] = use_fwd(x, dx, x[4], dx[4], &dy[0]);
}
static void us_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c;
    y[0] = use_rev(x, xb, x[4], &xb[4], yb[0]);
}

/* nested: x = a[0..4] */
static void ne_w(const double *x, double *y, void *c) { (void)c; y[0] = nested(x); }
static void ne_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c;
    y[0] = nested_fwd(x, dx, &dy[0]);
}
static void ne_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c;
    y[0] = nested_rev(x, xb, yb[0]);
}

/* drop: x = a[0..4], y = out[0..3] */
static void dr_w(const double *x, double *y, void *c) { (void)c; drop(x, y); }
static void dr_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c;
    drop_fwd(x, dx, y, dy);
}
static void dr_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    double ob[3];
    (void)c;
    for (int i = 0; i < 3; i++) ob[i] = yb[i];
    drop_rev(x, xb, y, ob);
}

/* chain: x = (a[0..3], s), y = the struct's leaves x, y, v[0..3] */
static void ch_w(const double *x, double *y, void *c) {
    (void)c;
    P r = chain(x, x[3]);
    y[0] = r.x, y[1] = r.y;
    for (int i = 0; i < 3; i++) y[2 + i] = r.v[i];
}
static void ch_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    P d, r;
    (void)c;
    r = chain_fwd(x, dx, x[3], dx[3], &d);
    y[0] = r.x, y[1] = r.y, dy[0] = d.x, dy[1] = d.y;
    for (int i = 0; i < 3; i++) y[2 + i] = r.v[i], dy[2 + i] = d.v[i];
}
static void ch_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    P b, r;
    (void)c;
    b.x = yb[0], b.y = yb[1];
    for (int i = 0; i < 3; i++) b.v[i] = yb[2 + i];
    r = chain_rev(x, xb, x[3], &xb[3], b);
    y[0] = r.x, y[1] = r.y;
    for (int i = 0; i < 3; i++) y[2 + i] = r.v[i];
}

/* window_sum: x = (a[0..n), s) */
static void ws_w(const double *x, double *y, void *c) {
    int n = ((struct ctx *)c)->n;
    y[0] = window_sum(x, n, x[n]);
}
static void ws_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = ((struct ctx *)c)->n;
    y[0] = window_sum_fwd(x, dx, n, x[n], dx[n], &dy[0]);
}
static void ws_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = ((struct ctx *)c)->n;
    y[0] = window_sum_rev(x, xb, n, x[n], &xb[n], yb[0]);
}

int main(void) {
    char name[64];
    struct ctx c = {0};
    struct gca_problem p = {0};
    p.name = name, p.ctx = &c;
    snprintf(name, sizeof name, "use");
    p.nin = 5, p.nout = 1, p.f = us_w, p.fwd = us_fwd, p.rev = us_rev;
    gca_check_random(&p, 4, -1.5, 1.5);
    snprintf(name, sizeof name, "chain");
    p.nin = 4, p.nout = 5, p.f = ch_w, p.fwd = ch_fwd, p.rev = ch_rev;
    gca_check_random(&p, 4, -1.5, 1.5);
    snprintf(name, sizeof name, "nested");
    p.nin = 4, p.nout = 1, p.f = ne_w, p.fwd = ne_fwd, p.rev = ne_rev;
    gca_check_random(&p, 4, -1.5, 1.5);
    snprintf(name, sizeof name, "drop");
    p.nin = 4, p.nout = 3, p.f = dr_w, p.fwd = dr_fwd, p.rev = dr_rev;
    gca_check_random(&p, 4, -1.5, 1.5);
    static const int sizes[] = {3, 4, 7};
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        c.n = sizes[k];
        snprintf(name, sizeof name, "window_sum n=%d", c.n);
        p.nin = c.n + 1, p.nout = 1, p.f = ws_w, p.fwd = ws_fwd, p.rev = ws_rev;
        gca_check_random(&p, 4, -1.5, 1.5);
    }
    return gc_summary();
}
