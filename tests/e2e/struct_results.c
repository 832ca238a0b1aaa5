/* struct_results.c: structs returned by value with integer fields beside
 * the floating ones (a count, a flag, a small integer array), as C returns
 * a result with its status: f_fwd and f_rev return the whole struct, its
 * integer fields exactly as f's (they travel as doubles, exact at up to 32
 * bits), and the shadow's integer fields are ignored. A caller takes the
 * struct a differentiable callee returns, reads its integer fields and
 * returns one in turn. 64-bit fields (long long, size_t, int64_t, an
 * array of them; negative, above 2^53 and at the extremes) travel as two
 * doubles each, their high and low 32 bits. Checked against finite
 * differences, by forward / reverse duality and for accumulation, and the
 * integer fields against f's. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "chad.h"
#include "gradcheck.h"

typedef struct {
    int n;
    double v;
    double w[3];
    unsigned char c[2];
    _Bool ok;
} Res;

CHAD_DIFFERENTIABLE
static Res make(double a, int k) {
    Res s;
    s.n = k + 1;
    s.v = a * a;
    s.w[0] = sin(a), s.w[1] = 2 * a, s.w[2] = k;
    s.c[0] = 3, s.c[1] = (unsigned char)(k * 40);
    s.ok = a > 0;
    return s;
}

/* Newton steps for sqrt(b), counting them: the count is an integer field */
CHAD_DIFFERENTIABLE
Res solve(double b, double tol) {
    Res r = {0, b > 1 ? b : 1, {0, 0, 0}, {0, 0}, 0};
    while (fabs(r.v * r.v - b) > tol && r.n < 50) {
        r.v = 0.5 * (r.v + b / r.v);
        r.n++;
    }
    Res m = make(r.v, r.n);
    r.w[0] = m.w[0] * m.n;
    r.w[1] = m.v + (m.ok ? 1.0 : 0.0) * m.c[1];
    r.w[2] = m.w[2];
    r.c[0] = m.c[0];
    r.ok = m.ok;
    return r;
}

/* 64-bit integer fields: a hash of the iteration, a size, a signed count */
typedef struct {
    double v;
    long long big;
    size_t size;
    int64_t w[2];
    unsigned long long u;
} Wide;

CHAD_DIFFERENTIABLE
static Wide widen(double a, long long k) {
    Wide s;
    s.v = a * exp(-a);
    s.big = k * 1000000007LL - 9007199254740993LL; /* below -2^53 */
    s.size = (size_t)k << 40;
    s.w[0] = -k, s.w[1] = INT64_MAX - k;
    s.u = 0xfedcba9876543210ULL ^ (unsigned long long)k;
    return s;
}

CHAD_DIFFERENTIABLE
Wide wide(double a, long long k) {
    Wide s = widen(a * a, k + 1); /* through a callee's result */
    Wide r = {s.v * a, s.big + 3, s.size | 7, {s.w[0] * 2, s.w[1]}, s.u + 1};
    if (a > 1)
        return r;
    return widen(r.v, k); /* a callee's result returned */
}

static Wide wide_plain(double a, long long k) {
    Wide s;
    s.v = 0;
    s.big = (k + 1) * 1000000007LL - 9007199254740993LL + 3;
    s.size = (((size_t)(k + 1)) << 40) | 7;
    s.w[0] = -2 * (k + 1), s.w[1] = INT64_MAX - (k + 1);
    s.u = (0xfedcba9876543210ULL ^ (unsigned long long)(k + 1)) + 1;
    if (a > 1)
        return s;
    s.big = k * 1000000007LL - 9007199254740993LL;
    s.size = (size_t)k << 40;
    s.w[0] = -k, s.w[1] = INT64_MAX - k;
    s.u = 0xfedcba9876543210ULL ^ (unsigned long long)k;
    return s;
}
static void check_wide(const Wide *r, double a, long long k, const char *mode) {
    Wide f = wide(a, k), p = wide_plain(a, k);
    gc_expect(r->big == f.big && r->size == f.size && r->w[0] == f.w[0] && r->w[1] == f.w[1] &&
                  r->u == f.u,
              mode, "a 64-bit field of the result differs from f's");
    gc_expect(f.big == p.big && f.size == p.size && f.w[0] == p.w[0] && f.w[1] == p.w[1] &&
                  f.u == p.u,
              mode, "f's 64-bit fields differ from C's");
}
static void wide_w(const double *x, double *y, void *c) {
    (void)c;
    y[0] = wide(x[0], 77).v;
}
static void wide_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    Wide d;
    (void)c;
    Wide r = wide_fwd(x[0], dx[0], 77, &d);
    y[0] = r.v, dy[0] = d.v;
    check_wide(&r, x[0], 77, "wide_fwd");
}
static void wide_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    Wide seed = {yb[0], 5, 5, {5, 5}, 5};
    (void)c;
    Wide r = wide_rev(x[0], &xb[0], 77, seed);
    y[0] = r.v;
    check_wide(&r, x[0], 77, "wide_rev");
}

struct ctx { int expect_n; };

/* solve: x = (b), y = (v, w[3]) */
static void put(double *y, const Res *r) {
    y[0] = r->v;
    memcpy(y + 1, r->w, sizeof r->w);
}
static void solve_w(const double *x, double *y, void *c) {
    Res r = solve(x[0], 1e-13);
    ((struct ctx *)c)->expect_n = r.n;
    put(y, &r);
}
static void check_ints(const Res *r, const double *x, const char *mode) {
    Res f = solve(x[0], 1e-13);
    gc_expect(r->n == f.n && r->c[0] == f.c[0] && r->c[1] == f.c[1] && r->ok == f.ok,
              mode, "an integer field of the result differs from f's");
}
static void solve_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    Res d;
    Res r = solve_fwd(x[0], dx[0], 1e-13, 0, &d);
    (void)c;
    put(y, &r), put(dy, &d);
    check_ints(&r, x, "solve_fwd");
}
static void solve_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    Res seed = {12345, yb[0], {yb[1], yb[2], yb[3]}, {7, 7}, 1};
    double tol_b = 0;
    Res r = solve_rev(x[0], &xb[0], 1e-13, &tol_b, seed);
    (void)c;
    put(y, &r);
    check_ints(&r, x, "solve_rev");
}

int main(void) {
    struct ctx c;
    struct gca_problem p = {0};
    p.ctx = &c, p.prec = GC_DOUBLE;
    p.name = "a struct result with integer fields, through a callee's",
    p.f = solve_w, p.fwd = solve_wfwd, p.rev = solve_wrev, p.nin = 1, p.nout = 4;
    gca_check_random(&p, 6, 0.3, 9.0);
    p.name = "a struct result with 64-bit integer fields", p.f = wide_w, p.fwd = wide_wfwd,
    p.rev = wide_wrev, p.nout = 1;
    gca_check_random(&p, 6, 0.3, 2.0);
    return gc_summary();
}
