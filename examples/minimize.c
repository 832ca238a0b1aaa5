/* minimize.c: minimising a function with gradients from chad.
 *
 * The 4-dimensional Rosenbrock function (a long curved valley, minimum 0 at
 * (1, 1, 1, 1)) is written as plain C over four double parameters.  chad
 * generates rosen_rev, which returns the value and the whole gradient in one
 * call.  The rest is a textbook quasi-Newton method: BFGS with an inverse
 * Hessian approximation and a line search satisfying the weak Wolfe
 * conditions (Nocedal and Wright, Numerical Optimization, ch. 3 and 6).
 * It prints one line per iteration and fails unless it reaches the minimum
 * to 1e-6.
 *
 * Build: clang -fplugin=build/libchad.so -Iinclude minimize.c -lm */
#include <math.h>
#include <stdio.h>
#include "chad.h"

#define N 4

CHAD_DIFFERENTIABLE
double rosen(double x0, double x1, double x2, double x3) {
    double a = x1 - x0 * x0, b = x2 - x1 * x1, c = x3 - x2 * x2;
    return 100 * (a * a + b * b + c * c) + (1 - x0) * (1 - x0) + (1 - x1) * (1 - x1) +
           (1 - x2) * (1 - x2);
}

static int evaluations;

/* f(x) and its gradient g (overwritten: the adjoints are zeroed first,
 * because rosen_rev adds into them). */
static double value_grad(const double *x, double *g) {
    int i;
    for (i = 0; i < N; i++)
        g[i] = 0;
    evaluations++;
    return rosen_rev(x[0], &g[0], x[1], &g[1], x[2], &g[2], x[3], &g[3], 1.0);
}

static double dot(const double *a, const double *b) {
    double s = 0;
    int i;
    for (i = 0; i < N; i++)
        s += a[i] * b[i];
    return s;
}

static double norm_inf(const double *a) {
    double m = 0;
    int i;
    for (i = 0; i < N; i++)
        m = fmax(m, fabs(a[i]));
    return m;
}

/* Weak Wolfe line search by bracketing and bisection (Lewis and Overton):
 * finds t with sufficient decrease f(x+td) <= f + c1 t g.d and curvature
 * g(x+td).d >= c2 g.d.  The curvature condition guarantees s.y > 0, which
 * keeps the BFGS matrix positive definite.  Returns 0 on failure. */
static double line_search(const double *x, double f, const double *g, const double *d, double *xn,
                          double *fn, double *gn) {
    const double c1 = 1e-4, c2 = 0.9, slope = dot(g, d);
    double lo = 0, hi = INFINITY, t = 1;
    int it, i;
    for (it = 0; it < 100; it++) {
        for (i = 0; i < N; i++)
            xn[i] = x[i] + t * d[i];
        *fn = value_grad(xn, gn);
        if (!(*fn <= f + c1 * t * slope))
            hi = t;
        else if (dot(gn, d) < c2 * slope)
            lo = t;
        else
            return t;
        t = isinf(hi) ? 2 * lo : (lo + hi) / 2;
    }
    return 0;
}

int main(void) {
    double x[N] = {-1.2, 1.0, -1.2, 1.0}, g[N], d[N], xn[N], gn[N], s[N], y[N], hy[N];
    double h[N][N] = {{0}}; /* inverse Hessian approximation */
    double f, fn, t = 0, sy, yhy;
    int it, i, j, ok = 1;

    for (i = 0; i < N; i++)
        h[i][i] = 1;
    f = value_grad(x, g);
    printf("%4s %22s %12s %10s   x\n", "iter", "f", "|grad|", "step");
    for (it = 0; it < 500 && norm_inf(g) > 1e-10; it++) {
        printf("%4d %22.15e %12.4e %10.3g   (%.8f, %.8f, %.8f, %.8f)\n", it, f, norm_inf(g), t, x[0],
               x[1], x[2], x[3]);
        for (i = 0; i < N; i++) { /* d = -H g */
            d[i] = 0;
            for (j = 0; j < N; j++)
                d[i] -= h[i][j] * g[j];
        }
        t = line_search(x, f, g, d, xn, &fn, gn);
        if (t == 0) {
            printf("line search failed\n");
            break;
        }
        for (i = 0; i < N; i++) {
            s[i] = xn[i] - x[i];
            y[i] = gn[i] - g[i];
        }
        sy = dot(s, y);
        if (it == 0) { /* scale the first H to the curvature just seen */
            double scale = sy / dot(y, y);
            for (i = 0; i < N; i++)
                h[i][i] = scale;
        }
        /* H += (1 + y.Hy / s.y) s s^T / s.y - (H y s^T + s y^T H) / s.y */
        for (i = 0; i < N; i++) {
            hy[i] = 0;
            for (j = 0; j < N; j++)
                hy[i] += h[i][j] * y[j];
        }
        yhy = dot(y, hy);
        for (i = 0; i < N; i++)
            for (j = 0; j < N; j++)
                h[i][j] += ((sy + yhy) * s[i] * s[j] / sy - hy[i] * s[j] - s[i] * hy[j]) / sy;
        for (i = 0; i < N; i++) {
            x[i] = xn[i];
            g[i] = gn[i];
        }
        f = fn;
    }
    printf("%4d %22.15e %12.4e %10.3g   (%.8f, %.8f, %.8f, %.8f)\n", it, f, norm_inf(g), t, x[0], x[1],
           x[2], x[3]);
    printf("\n%d iterations, %d evaluations of value and gradient (rosen_rev)\n", it, evaluations);
    for (i = 0; i < N; i++)
        if (!(fabs(x[i] - 1) < 1e-6))
            ok = 0;
    printf("minimum %s (1, 1, 1, 1) to 1e-6: x = (%.12f, %.12f, %.12f, %.12f), f = %.3e\n",
           ok ? "found at" : "NOT found at", x[0], x[1], x[2], x[3], f);
    return ok ? 0 : 1;
}
