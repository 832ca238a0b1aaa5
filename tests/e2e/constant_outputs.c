/* constant_outputs.c: outputs that do not depend on the inputs (their
 * tangents are arrays of zeros, not a structural zero the emitter cannot
 * size), and integer constants that clang would warn about once folded
 * (`2 ^ 5` from `m ^ 5` with m = 2: -Wxor-used-as-pow; `1 << 40` from
 * `1 << s` with s = 40: -Wshift-count-overflow and its kin). */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
void fill(const double *x, double *q, int n) {
    for (int c = 0; c < n; c++)
        q[c] = 0.5;
    q[0] = q[0] + 0 * x[0];
}

CHAD_DIFFERENTIABLE
double half_const(const double *x, double *q, int n) {
    for (int c = 0; c < n; c++)
        q[c] = 0.25 * c;
    return x[0] * sin(x[1]);
}

CHAD_DIFFERENTIABLE
double xor_const(double a) {
    int m = 2;
    return a * (double)((m ^ 5) & 3) + a * a;
}

/* The shifts are undefined, but in a branch that never runs: the input
 * has no undefined behaviour and compiles without a warning, and so must
 * the derivatives, where the counts and operands are constants. */
CHAD_DIFFERENTIABLE
double shift_const(double a) {
    int s = 40, m = -1, n = -3, t = 31;
    double r = a * a;
    if (a > 1e300)
        r += (double)((1 << s) + (1 << m) + (n << 3) + (3 << t));
    return r;
}

struct ctx { int n; };
static void fi_w(const double *x, double *y, void *c) { fill(x, y, ((struct ctx *)c)->n); }
static void fi_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    fill_fwd(x, dx, y, dy, ((struct ctx *)c)->n);
}
static void fi_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    fill_rev(x, xb, y, yb, ((struct ctx *)c)->n);
}
/* y = (value, q...) */
static void hc_w(const double *x, double *y, void *c) { y[0] = half_const(x, y + 1, ((struct ctx *)c)->n); }
static void hc_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = half_const_fwd(x, dx, y + 1, dy + 1, ((struct ctx *)c)->n, &dy[0]);
}
static void hc_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = half_const_rev(x, xb, y + 1, yb + 1, ((struct ctx *)c)->n, yb[0]);
}
static void sc_w(const double *x, double *y, void *c) { (void)c; y[0] = shift_const(x[0]); }
static void sc_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c;
    y[0] = shift_const_fwd(x[0], dx[0], &dy[0]);
}
static void sc_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c;
    y[0] = shift_const_rev(x[0], &xb[0], yb[0]);
}
static void xc_w(const double *x, double *y, void *c) { (void)c; y[0] = xor_const(x[0]); }
static void xc_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    (void)c;
    y[0] = xor_const_fwd(x[0], dx[0], &dy[0]);
}
static void xc_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    (void)c;
    y[0] = xor_const_rev(x[0], &xb[0], yb[0]);
}

int main(void) {
    struct ctx c = {3};
    struct gca_problem p = {0};
    p.ctx = &c;
    p.name = "fill", p.nin = 2, p.nout = 3, p.f = fi_w, p.fwd = fi_fwd, p.rev = fi_rev;
    gca_check_random(&p, 2, -1, 1);
    p.name = "half_const", p.nin = 2, p.nout = 4, p.f = hc_w, p.fwd = hc_fwd, p.rev = hc_rev;
    gca_check_random(&p, 2, -1, 1);
    p.name = "xor_const", p.nin = 1, p.nout = 1, p.f = xc_w, p.fwd = xc_fwd, p.rev = xc_rev;
    gca_check_random(&p, 2, -1, 1);
    p.name = "shift_const", p.nin = 1, p.nout = 1, p.f = sc_w, p.fwd = sc_fwd, p.rev = sc_rev;
    gca_check_random(&p, 2, -1, 1);
    return gc_summary();
}
