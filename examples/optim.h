/* optim.h: BFGS with a weak Wolfe line search, for the examples.
 *
 * A textbook quasi-Newton method (Nocedal and Wright, Numerical
 * Optimization, ch. 3 and 6): an inverse Hessian approximation H, the
 * direction d = -H g, a step t satisfying the weak Wolfe conditions found by
 * bracketing and bisection (Lewis and Overton), and the BFGS update of H.
 * The curvature condition guarantees s.y > 0, which keeps H positive
 * definite, so every step decreases f.
 *
 * The caller supplies value and gradient in one function, typically a thin
 * wrapper around a chad-generated f_rev that zeroes the gradient first
 * (f_rev adds into its adjoints).  Header only; dense n x n memory for H.
 */
#ifndef CHAD_EXAMPLES_OPTIM_H
#define CHAD_EXAMPLES_OPTIM_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* f(x), and its gradient written (not added) to g. */
typedef double (*optim_fg)(const double *x, double *g, void *ctx);

/* Called once per iteration (it = 0 before the first step) and once at the
 * end, with the current point, value, gradient's infinity norm and the step
 * length t of the last line search (0 before the first). */
typedef void (*optim_progress)(int it, double f, double gnorm, double t, const double *x, void *ctx);

struct optim_result {
    int iterations;  /* BFGS steps taken */
    int evaluations; /* calls of fg */
    int converged;   /* gradient infinity norm reached gtol */
    double f;        /* final value */
    double gnorm;    /* final gradient infinity norm */
};

static inline double optim_dot(int n, const double *a, const double *b) {
    double s = 0;
    int i;
    for (i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

static inline double optim_norm_inf(int n, const double *a) {
    double m = 0;
    int i;
    for (i = 0; i < n; i++)
        m = fmax(m, fabs(a[i]));
    return m;
}

/* Weak Wolfe line search from x along d: finds t with sufficient decrease
 * f(x+td) <= f + c1 t g.d and curvature g(x+td).d >= c2 g.d, leaving the
 * new point, value and gradient in xn, *fn, gn.  Returns 0 on failure. */
static inline double optim_line_search(int n, optim_fg fg, void *ctx, int *evals, const double *x, double f,
                                       const double *g, const double *d, double *xn, double *fn, double *gn) {
    const double c1 = 1e-4, c2 = 0.9, slope = optim_dot(n, g, d);
    double lo = 0, hi = INFINITY, t = 1;
    int it, i;
    for (it = 0; it < 100; it++) {
        for (i = 0; i < n; i++)
            xn[i] = x[i] + t * d[i];
        *fn = fg(xn, gn, ctx);
        ++*evals;
        if (!(*fn <= f + c1 * t * slope))
            hi = t;
        else if (optim_dot(n, gn, d) < c2 * slope)
            lo = t;
        else
            return t;
        t = isinf(hi) ? 2 * lo : (lo + hi) / 2;
    }
    return 0;
}

/* Minimises f from x (updated in place) until |grad|_inf <= gtol or maxit
 * iterations.  progress may be NULL. */
static inline struct optim_result optim_bfgs(int n, double *x, optim_fg fg, void *ctx, double gtol, int maxit,
                                             optim_progress progress) {
    struct optim_result r = {0, 0, 0, 0, 0};
    double *mem = malloc(sizeof(double) * ((size_t)n * n + 7 * (size_t)n));
    double *h, *g, *d, *xn, *gn, *s, *y, *hy, f, fn, t = 0, sy, yhy;
    int it, i, j;

    if (!mem) {
        fprintf(stderr, "optim_bfgs: out of memory\n");
        r.f = NAN;
        return r;
    }
    h = mem; /* inverse Hessian approximation, row-major */
    g = h + (size_t)n * n, d = g + n, xn = d + n, gn = xn + n, s = gn + n, y = s + n, hy = y + n;
    for (i = 0; i < n * n; i++)
        h[i] = 0;
    for (i = 0; i < n; i++)
        h[i * n + i] = 1;
    f = fg(x, g, ctx);
    r.evaluations = 1;
    for (it = 0; it < maxit && optim_norm_inf(n, g) > gtol; it++) {
        if (progress)
            progress(it, f, optim_norm_inf(n, g), t, x, ctx);
        for (i = 0; i < n; i++) { /* d = -H g */
            d[i] = 0;
            for (j = 0; j < n; j++)
                d[i] -= h[i * n + j] * g[j];
        }
        t = optim_line_search(n, fg, ctx, &r.evaluations, x, f, g, d, xn, &fn, gn);
        if (t == 0) {
            printf("line search failed\n");
            break;
        }
        for (i = 0; i < n; i++) {
            s[i] = xn[i] - x[i];
            y[i] = gn[i] - g[i];
        }
        sy = optim_dot(n, s, y);
        if (it == 0) { /* scale the first H to the curvature just seen */
            double scale = sy / optim_dot(n, y, y);
            for (i = 0; i < n; i++)
                h[i * n + i] = scale;
        }
        /* H += (1 + y.Hy / s.y) s s^T / s.y - (H y s^T + s y^T H) / s.y */
        for (i = 0; i < n; i++) {
            hy[i] = 0;
            for (j = 0; j < n; j++)
                hy[i] += h[i * n + j] * y[j];
        }
        yhy = optim_dot(n, y, hy);
        for (i = 0; i < n; i++)
            for (j = 0; j < n; j++)
                h[i * n + j] += ((sy + yhy) * s[i] * s[j] / sy - hy[i] * s[j] - s[i] * hy[j]) / sy;
        for (i = 0; i < n; i++) {
            x[i] = xn[i];
            g[i] = gn[i];
        }
        f = fn;
    }
    r.iterations = it;
    r.f = f;
    r.gnorm = optim_norm_inf(n, g);
    r.converged = r.gnorm <= gtol;
    if (progress)
        progress(it, f, r.gnorm, t, x, ctx);
    free(mem);
    return r;
}

#endif /* CHAD_EXAMPLES_OPTIM_H */
