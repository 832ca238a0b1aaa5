/* late_includes.c: the derivatives are spliced in right after each
 * function, where clang may already be reading the file's next #include.
 * Here <stdio.h> and <stdlib.h> come right after annotated functions (the
 * first with loops and arrays, whose derivatives allocate), so the
 * generated code must not include headers itself. Also NAN in an annotated
 * function: a call clang evaluates at compile time is a constant. */
#include <math.h>

#include "chad.h"

CHAD_DIFFERENTIABLE
double smooth_max(const double *x, int n) {
    double m = x[0];
    for (int i = 1; i < n; i++)
        m = fmax(m, x[i]);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += exp(x[i] - m);
    return m + log(s);
}
#include <stdio.h>
CHAD_DIFFERENTIABLE
double square(double x) { return x * x; }
#include <stdlib.h>
CHAD_DIFFERENTIABLE
double guarded_log(double x) { return x > 0 ? log(x) * x : NAN; }
#include "gradcheck.h"

GC_WRAP1(guarded_log)
GC_WRAP1(square)

static int n_of(void *c) { return *(const int *)c; }
static void sm_w(const double *x, double *y, void *c) { y[0] = smooth_max(x, n_of(c)); }
static void sm_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = smooth_max_fwd(x, dx, n_of(c), &dy[0]);
}
static void sm_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = smooth_max_rev(x, xb, n_of(c), yb[0]);
}

int main(void) {
    int n = 6;
    struct gca_problem p = {0};
    GC_CHECK(guarded_log, 1, 0.5, 2.0, 7.0);
    GC_CHECK(square, 1, 0.5, -2.0);
    {
        double g = 0, d = 0;
        gc_expect(isnan(guarded_log_rev(-1.0, &g, 1.0)) && isnan(guarded_log_fwd(-1.0, 1.0, &d)),
                  "guarded_log", "NaN below 0 is lost");
    }
    p.name = "smooth_max n=6", p.ctx = &n, p.nin = n, p.nout = 1;
    p.f = sm_w, p.fwd = sm_wfwd, p.rev = sm_wrev;
    gca_check_random(&p, 4, -2, 2);
    return gc_summary();
}
