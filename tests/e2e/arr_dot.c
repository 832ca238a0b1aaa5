/* arr_dot.c: end-to-end test of a loop over two input arrays: the dot
 * product, a sum (s += e) whose body reads both arrays at i.  Also the sum of
 * squares, which reads one array twice per iteration. */
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
double dot(const double *a, const double *b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

CHAD_DIFFERENTIABLE
double sumsq(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] * x[i];
    return s;
}

struct ctx { int n; };
#define N(c) (((const struct ctx *)(c))->n)

/* x = (a, b), y = (dot) */
static void dot_w(const double *x, double *y, void *c) { y[0] = dot(x, x + N(c), N(c)); }
static void dot_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = dot_fwd(x, dx, x + N(c), dx + N(c), N(c), &dy[0]);
}
static void dot_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = dot_rev(x, xb, x + N(c), xb + N(c), N(c), yb[0]);
}

static void sumsq_w(const double *x, double *y, void *c) { y[0] = sumsq(x, N(c)); }
static void sumsq_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = sumsq_fwd(x, dx, N(c), &dy[0]);
}
static void sumsq_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = sumsq_rev(x, xb, N(c), yb[0]);
}

int main(void) {
    static const int sizes[] = {1, 2, 7, 32};
    char name[64];
    unsigned k;
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        struct ctx c;
        struct gca_problem p = {0};
        c.n = sizes[k];
        p.name = name;
        p.ctx = &c;
        snprintf(name, sizeof name, "dot n=%d", c.n);
        p.nin = 2 * c.n, p.nout = 1, p.f = dot_w, p.fwd = dot_wfwd, p.rev = dot_wrev;
        gca_check_random(&p, 3, -2, 2);
        snprintf(name, sizeof name, "sumsq n=%d", c.n);
        p.nin = c.n, p.f = sumsq_w, p.fwd = sumsq_wfwd, p.rev = sumsq_wrev;
        gca_check_random(&p, 3, -2, 2);
    }
    {   /* n = 0: the loop runs no iteration; value and tangent are 0. */
        double a[1] = {1.5}, da[1] = {1}, ab[1] = {0.5}, d = -1;
        gc_expect(dot(a, a, 0) == 0, "dot n=0", "value is not 0");
        gc_expect(dot_fwd(a, da, a, da, 0, &d) == 0 && d == 0, "dot n=0", "f_fwd: value or tangent not 0");
        gc_expect(dot_rev(a, ab, a, ab, 0, 1.0) == 0 && ab[0] == 0.5, "dot n=0", "f_rev touched the adjoint");
    }
    return gc_summary();
}
