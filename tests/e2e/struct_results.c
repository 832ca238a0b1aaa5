/* struct_results.c: structs returned by value with integer fields beside
 * the floating ones (a count, a flag, a small integer array), as C returns
 * a result with its status: f_fwd and f_rev return the whole struct, its
 * integer fields exactly as f's (they travel as doubles, exact at up to 32
 * bits), and the shadow's integer fields are ignored. A caller takes the
 * struct a differentiable callee returns, reads its integer fields and
 * returns one in turn. Checked against finite differences, by forward /
 * reverse duality and for accumulation, and the integer fields against
 * f's. */
#include <math.h>
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
    return gc_summary();
}
