/* minimize.c: minimising a function with gradients from chad.
 *
 * The 4-dimensional Rosenbrock function (a long curved valley, minimum 0 at
 * (1, 1, 1, 1)) is written as plain C over four double parameters.  chad
 * generates rosen_rev, which returns the value and the whole gradient in one
 * call.  The rest is a textbook quasi-Newton method: BFGS with an inverse
 * Hessian approximation and a line search satisfying the weak Wolfe
 * conditions (Nocedal and Wright, Numerical Optimization, ch. 3 and 6).
 * It prints one line per iteration and fails unless it reaches the minimum
 * to 1e-6.  The optimiser is in optim.h, shared with logreg.c.
 *
 * Build: clang -fplugin=build/libchad.so -Iinclude minimize.c -lm */
#include <math.h>
#include <stdio.h>
#include "chad.h"
#include "optim.h"

#define N 4

CHAD_DIFFERENTIABLE
double rosen(double x0, double x1, double x2, double x3) {
    double a = x1 - x0 * x0, b = x2 - x1 * x1, c = x3 - x2 * x2;
    return 100 * (a * a + b * b + c * c) + (1 - x0) * (1 - x0) + (1 - x1) * (1 - x1) +
           (1 - x2) * (1 - x2);
}

/* f(x) and its gradient g (overwritten: the adjoints are zeroed first,
 * because rosen_rev adds into them). */
static double value_grad(const double *x, double *g, void *ctx) {
    int i;
    (void)ctx;
    for (i = 0; i < N; i++)
        g[i] = 0;
    return rosen_rev(x[0], &g[0], x[1], &g[1], x[2], &g[2], x[3], &g[3], 1.0);
}

static void progress(int it, double f, double gnorm, double t, const double *x, void *ctx) {
    (void)ctx;
    if (it == 0)
        printf("%4s %22s %12s %10s   x\n", "iter", "f", "|grad|", "step");
    printf("%4d %22.15e %12.4e %10.3g   (%.8f, %.8f, %.8f, %.8f)\n", it, f, gnorm, t, x[0], x[1], x[2], x[3]);
}

int main(void) {
    double x[N] = {-1.2, 1.0, -1.2, 1.0};
    struct optim_result r;
    int i, ok = 1;

    r = optim_bfgs(N, x, value_grad, NULL, 1e-10, 500, progress);
    printf("\n%d iterations, %d evaluations of value and gradient (rosen_rev)\n", r.iterations, r.evaluations);
    for (i = 0; i < N; i++)
        if (!(fabs(x[i] - 1) < 1e-6))
            ok = 0;
    printf("minimum %s (1, 1, 1, 1) to 1e-6: x = (%.12f, %.12f, %.12f, %.12f), f = %.3e\n",
           ok ? "found at" : "NOT found at", x[0], x[1], x[2], x[3], r.f);
    return ok ? 0 : 1;
}
