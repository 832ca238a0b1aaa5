/* forward_only.c: -fplugin-arg-chad-forward-only makes f_fwd alone; the
 * marker chad-e2e: forward-only makes the test harness pass the option.
 * f_rev is not generated (the declarations below would clash with it), and
 * f_fwd is checked against finite differences: of a loop, and of a struct
 * by value (its wrapper) calling a CHAD_CUSTOM function whose user wrote
 * g_fwd only. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
double smooth(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += sin(x[i]) * x[(i + 1) % n];
    return s;
}

/* a custom function with its forward derivative only */
CHAD_CUSTOM double softplus(double x);
double softplus_fwd(double x, double dx, double *d_ret);

typedef struct {
    double scale;
    double w[2];
} Lin;

/* a struct by value (the struct wrapper of f_fwd alone), the custom call */
CHAD_DIFFERENTIABLE
double lin(Lin m, const double *x) {
    return m.scale * softplus(m.w[0] * x[0] + m.w[1] * x[1]) + smooth(x, 2);
}

/* Declared here: compiling a call to it would fail if the plugin made it. */
double smooth_rev(const double *x, double *x_b, int n, double ret_b, int not_generated);
double lin_rev(int not_generated);

double softplus(double x) { return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)); }
double softplus_fwd(double x, double dx, double *d_ret) {
    *d_ret = dx / (1 + exp(-x));
    return softplus(x);
}

struct ctx { int n; };
static void w(const double *x, double *y, void *c) { y[0] = smooth(x, ((struct ctx *)c)->n); }
static void wf(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = smooth_fwd(x, dx, ((struct ctx *)c)->n, &dy[0]);
}

/* x: scale, w[0], w[1], then the 2 data values */
static void lw(const double *x, double *y, void *c) {
    Lin m = {x[0], {x[1], x[2]}};
    (void)c;
    y[0] = lin(m, x + 3);
}
static void lwf(const double *x, const double *dx, double *y, double *dy, void *c) {
    Lin m = {x[0], {x[1], x[2]}}, dm = {dx[0], {dx[1], dx[2]}};
    (void)c;
    y[0] = lin_fwd(m, dm, x + 3, dx + 3, &dy[0]);
}

int main(void) {
    struct ctx c = {5};
    struct gca_problem p = {0};
    p.name = "smooth (forward only)", p.nin = 5, p.nout = 1, p.ctx = &c;
    p.f = w, p.fwd = wf, p.rev = NULL;
    gca_check_random(&p, 3, -2, 2);
    p.name = "lin (struct by value, a custom function; forward only)";
    p.nin = 5, p.f = lw, p.fwd = lwf;
    gca_check_random(&p, 3, -1.5, 1.5);
    return gc_summary();
}
