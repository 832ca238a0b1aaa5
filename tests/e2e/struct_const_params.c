/* struct_const_params.c: end-to-end test of functions that take or return
 * structs (so chad writes wrappers for f_fwd and f_rev) with qualified
 * parameters: `const double a`, a struct by value declared `const v2 p`,
 * a `volatile double`. The adjoint of each is written, so f_rev takes
 * `double *a_b` and `v2 *p_b`; the wrappers copied the qualifier into the
 * shadow (`const double *a_b`, a warning under -Werror) and into the flat
 * primal's local struct (`const v2 chad__s_p;` then assigned: an error).
 * Found by the fuzzer (seed s63, input 277: `make(const double a, ...)`). */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

typedef struct { double x, y; } v2;

CHAD_DIFFERENTIABLE v2 make(const double a, double b) {
    v2 r = {a * b, sin(a) - b};
    return r;
}
CHAD_DIFFERENTIABLE double energy(const v2 p, const double w) { return w * p.x * p.y + cos(p.x); }
CHAD_DIFFERENTIABLE double through(const v2 *p, volatile double q) { return p->x * q + p->y * p->y; }

/* callers, through each of them */
CHAD_DIFFERENTIABLE double chain(const double *x) {
    v2 m = make(x[0], x[1]);
    return energy(m, x[2]) + through(&m, x[1]) + make(x[2], 0.5).y;
}

static double c_f(const double *x, void *c) { (void)c; return chain(x); }
static double c_fwd(const double *x, const double *dx, double *dr, void *c) {
    (void)c;
    return chain_fwd(x, dx, dr);
}
static double c_rev(const double *x, double *xb, double rb, void *c) {
    (void)c;
    return chain_rev(x, xb, rb);
}

/* the wrappers themselves, called directly */
static double e_f(const double *x, void *c) {
    (void)c;
    v2 p = {x[0], x[1]};
    return energy(p, x[2]);
}
static double e_fwd(const double *x, const double *dx, double *dr, void *c) {
    (void)c;
    v2 p = {x[0], x[1]}, dp = {dx[0], dx[1]};
    return energy_fwd(p, dp, x[2], dx[2], dr);
}
static double e_rev(const double *x, double *xb, double rb, void *c) {
    (void)c;
    v2 p = {x[0], x[1]}, pb = {0, 0};
    double r = energy_rev(p, &pb, x[2], &xb[2], rb);
    xb[0] += pb.x;
    xb[1] += pb.y;
    return r;
}
static double m_f(const double *x, void *c) {
    (void)c;
    v2 r = make(x[0], x[1]);
    return r.x + 3 * r.y;
}
static double m_fwd(const double *x, const double *dx, double *dr, void *c) {
    (void)c;
    v2 d;
    v2 r = make_fwd(x[0], dx[0], x[1], dx[1], &d);
    *dr = d.x + 3 * d.y;
    return r.x + 3 * r.y;
}
static double m_rev(const double *x, double *xb, double rb, void *c) {
    (void)c;
    v2 seed = {rb, 3 * rb};
    v2 r = make_rev(x[0], &xb[0], x[1], &xb[1], seed);
    return r.x + 3 * r.y;
}

int main(void) {
    gc_check("chain", 3, c_f, c_fwd, c_rev, NULL, 0, 6, (double[]){0.3, -0.7, 1.1, 1.5, 0.2, -0.9});
    gc_check("energy", 3, e_f, e_fwd, e_rev, NULL, 0, 6, (double[]){0.3, -0.7, 1.1, -1.2, 0.4, 0.8});
    gc_check("make", 2, m_f, m_fwd, m_rev, NULL, 0, 4, (double[]){0.3, -0.7, 1.4, 0.25});
    return gc_summary();
}
