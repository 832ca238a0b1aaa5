/* forward_only.c: -fplugin-arg-chad-forward-only makes f_fwd alone; the
 * marker chad-e2e: forward-only makes the test harness pass the option.
 * f_rev is not generated (the declaration below would clash with it), and
 * f_fwd is checked against finite differences. */
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

/* Declared here: compiling a call to it would fail if the plugin made it. */
double smooth_rev(const double *x, double *x_b, int n, double ret_b, int not_generated);

struct ctx { int n; };
static void w(const double *x, double *y, void *c) { y[0] = smooth(x, ((struct ctx *)c)->n); }
static void wf(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = smooth_fwd(x, dx, ((struct ctx *)c)->n, &dy[0]);
}

int main(void) {
    struct ctx c = {5};
    struct gca_problem p = {0};
    p.name = "smooth (forward only)", p.nin = 5, p.nout = 1, p.ctx = &c;
    p.f = w, p.fwd = wf, p.rev = NULL;
    gca_check_random(&p, 3, -2, 2);
    return gc_summary();
}
