/* minimize.c: minimising with NLopt, gradients from chad.
 *
 * The chained Rosenbrock function in N = 10 dimensions,
 *
 *     f(x) = sum_{i < N-1} 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2,
 *
 * a long curved valley with its minimum 0 at (1, ..., 1), is written as
 * plain C over an array.  chad generates rosen_rev, which returns f(x) and
 * adds its whole gradient into x_b in one call; NLopt's objective callback
 * (ordinary C) calls it.  Two of NLopt's gradient-based algorithms use it:
 *
 *  1. L-BFGS (NLOPT_LD_LBFGS), unconstrained from (-1.2, 1, -1.2, 1, ...):
 *     it must reach (1, ..., 1) to 1e-6;
 *  2. MMA (NLOPT_LD_MMA, Svanberg's method of moving asymptotes) with bound
 *     constraints -1.5 <= x_i <= 0.7, which cut off the minimum: the result
 *     must satisfy the optimality (KKT) conditions of a box, checked with
 *     the gradient from rosen_rev: each component strictly inside the box
 *     has a zero derivative, one at its upper bound a derivative <= 0, at
 *     its lower bound >= 0 (to 1e-5).
 *
 * It prints what each run found and the number of evaluations, and exits
 * non-zero if a check fails.
 *
 * Build: clang -fplugin=build/libchad.so -Iinclude examples/minimize.c -lnlopt -lm */
#include <math.h>
#include <nlopt.h>
#include <stdio.h>
#include "chad.h"

#define N 10

CHAD_DIFFERENTIABLE
double rosen(const double *x, int n) {
    double s = 0;
    for (int i = 0; i + 1 < n; i++) {
        double a = x[i + 1] - x[i] * x[i], b = 1 - x[i];
        s += 100 * a * a + b * b;
    }
    return s;
}

static int evaluations;

/* NLopt's objective: f(x) and, when NLopt asks for it, the gradient,
 * overwritten (rosen_rev adds into it, so it is zeroed first). */
static double objective(unsigned n, const double *x, double *grad, void *data) {
    unsigned i;
    (void)data;
    evaluations++;
    if (!grad)
        return rosen(x, (int)n);
    for (i = 0; i < n; i++)
        grad[i] = 0;
    return rosen_rev(x, grad, (int)n, 1.0);
}

static void print_x(const char *label, const double *x) {
    int i;
    printf("%s (", label);
    for (i = 0; i < N; i++)
        printf("%s%.8f", i ? ", " : "", x[i]);
    printf(")\n");
}

/* Runs `alg` from the usual starting point, within [lo, hi] if given;
 * returns NLopt's result and leaves the minimiser in x, its value in *f. */
static nlopt_result run(nlopt_algorithm alg, const double *lo, const double *hi, double *x, double *f) {
    nlopt_opt opt = nlopt_create(alg, N);
    nlopt_result r;
    int i;
    for (i = 0; i < N; i++)
        x[i] = i % 2 ? 1.0 : -1.2;
    if (lo) { /* the start must be feasible */
        for (i = 0; i < N; i++)
            x[i] = fmin(fmax(x[i], lo[i]), hi[i]);
        nlopt_set_lower_bounds(opt, lo);
        nlopt_set_upper_bounds(opt, hi);
    }
    nlopt_set_min_objective(opt, objective, NULL);
    nlopt_set_ftol_rel(opt, 1e-15);
    nlopt_set_xtol_rel(opt, 1e-12);
    nlopt_set_maxeval(opt, 20000);
    evaluations = 0;
    r = nlopt_optimize(opt, x, f);
    nlopt_destroy(opt);
    return r;
}

int main(void) {
    double x[N], g[N], lo[N], hi[N], f, worst = 0;
    nlopt_result r;
    int i, ok = 1, at_bound = 0;

    /* 1. L-BFGS, no constraints */
    r = run(NLOPT_LD_LBFGS, NULL, NULL, x, &f);
    printf("L-BFGS: NLopt result %d, %d evaluations of rosen_rev, f = %.3e\n", (int)r, evaluations, f);
    print_x("  x =", x);
    for (i = 0; i < N; i++)
        worst = fmax(worst, fabs(x[i] - 1));
    printf("  max |x_i - 1| = %.2e: %s\n", worst, r > 0 && worst < 1e-6 ? "ok" : "FAILED");
    if (!(r > 0 && worst < 1e-6))
        ok = 0;

    /* 2. MMA within -1.5 <= x_i <= 0.7 */
    for (i = 0; i < N; i++)
        lo[i] = -1.5, hi[i] = 0.7;
    r = run(NLOPT_LD_MMA, lo, hi, x, &f);
    printf("\nMMA, %g <= x_i <= %g: NLopt result %d, %d evaluations, f = %.10f\n", lo[0], hi[0], (int)r,
           evaluations, f);
    print_x("  x =", x);
    for (i = 0; i < N; i++)
        g[i] = 0;
    rosen_rev(x, g, N, 1.0);
    worst = 0;
    for (i = 0; i < N; i++) {
        double violation; /* of the KKT condition of component i */
        if (x[i] >= hi[i] - 1e-9)
            violation = fmax(g[i], 0), at_bound++;
        else if (x[i] <= lo[i] + 1e-9)
            violation = fmax(-g[i], 0), at_bound++;
        else
            violation = fabs(g[i]);
        worst = fmax(worst, violation);
    }
    printf("  %d components at a bound; largest violation of the KKT conditions %.2e: %s\n", at_bound, worst,
           r > 0 && at_bound > 0 && worst < 1e-5 ? "ok" : "FAILED");
    if (!(r > 0 && at_bound > 0 && worst < 1e-5))
        ok = 0;

    printf("%s\n", ok ? "all checks passed" : "FAILED");
    return ok ? 0 : 1;
}
