/* airy.c: a library routine chad cannot see, made differentiable with
 * CHAD_CUSTOM: GSL's Bessel function J1 in a least-squares fit of the Airy
 * diffraction pattern.
 *
 * The light diffracted by a circular aperture has the intensity
 *
 *     I(t; A, s, b) = A (2 J1(s t) / (s t))^2 + b
 *
 * at angle t (s = k a, the wave number times the aperture radius; b a
 * background). N = 300 samples on [0.05, 12], generated here from a fixed
 * seed and known parameters with Gaussian noise of standard deviation 0.01,
 * are fitted by minimising the sum of squared residuals with GSL's BFGS
 * (gsl_multimin_fdfminimizer_vector_bfgs2), the gradient from chad's
 * airy_loss_rev.
 *
 * J1 is GSL's gsl_sf_bessel_J1, compiled code in libgsl: chad cannot
 * differentiate it, so the program re-declares it with CHAD_CUSTOM and
 * writes its derivatives by hand to chad's contract (DESIGN.md section 1):
 * J1'(x) = J0(x) - J1(x)/x (1/2 at 0), with GSL's J0. airy_loss_fwd and
 * airy_loss_rev then call gsl_sf_bessel_J1_fwd and gsl_sf_bessel_J1_rev
 * where the loss calls J1.
 *
 * Checks (exit status non-zero if one fails): the hand-written derivative of
 * J1 against central differences; the gradient of the loss from f_rev
 * against central differences, and against f_fwd along a direction
 * (duality); BFGS converges (gradient norm below 1e-6); the fitted parameters are within 1% (A, s) and
 * 0.005 (b) of the true ones.
 *
 * Build: clang -fplugin=build/libchad.so -Iinclude examples/airy.c -lgsl -lgslcblas -lm */
#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_sf_bessel.h>
#include <math.h>
#include <stdio.h>
#include "chad.h"

#define N 300 /* samples */
#define P 3   /* parameters (A, s, b) */

/* GSL's J1, marked: its derivatives are the two functions below. */
CHAD_CUSTOM double gsl_sf_bessel_J1(const double x);

/* J1'(x) = J0(x) - J1(x)/x, whose limit at 0 is 1/2 (J1(x) = x/2 - ...). */
static double j1_prime(double x) {
    if (fabs(x) < 1e-8)
        return 0.5;
    return gsl_sf_bessel_J0(x) - gsl_sf_bessel_J1(x) / x;
}

/* The contract: value returned, tangent in *d_ret ... */
double gsl_sf_bessel_J1_fwd(double x, double dx, double *d_ret) {
    *d_ret = j1_prime(x) * dx;
    return gsl_sf_bessel_J1(x);
}

/* ... and the adjoint added into *x_b. */
double gsl_sf_bessel_J1_rev(double x, double *x_b, double ret_b) {
    *x_b += j1_prime(x) * ret_b;
    return gsl_sf_bessel_J1(x);
}

/* Half the sum of squared residuals of the Airy pattern p = (A, s, b) at
 * the samples (t, y), which are data: no adjoint for them. */
CHAD_DIFFERENTIABLE
double airy_loss(const double *p, CHAD_INACTIVE const double *t, CHAD_INACTIVE const double *y,
                 int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        double x = p[1] * t[i];
        double a = 2 * gsl_sf_bessel_J1(x) / x;
        double r = p[0] * a * a + p[2] - y[i];
        s += r * r;
    }
    return 0.5 * s;
}

struct data {
    double t[N], y[N];
};

static const double truth[P] = {1.0, 1.3, 0.05};

/* Deterministic generator (64-bit LCG) and standard normals by Box-Muller. */
static unsigned long long rng_state = 11;
static double uniform(void) {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
}
static double normal(void) { return sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform()); }

static double intensity(const double *p, double t) {
    double a = 2 * gsl_sf_bessel_J1(p[1] * t) / (p[1] * t);
    return p[0] * a * a + p[2];
}

/* The loss and its gradient g (overwritten: airy_loss_rev adds into it). */
static double loss_grad(const double *p, double *g, const struct data *d) {
    for (int j = 0; j < P; j++)
        g[j] = 0;
    return airy_loss_rev(p, g, d->t, d->y, N, 1.0);
}

static double f_cb(const gsl_vector *p, void *ctx) {
    const struct data *d = ctx;
    return airy_loss(gsl_vector_const_ptr(p, 0), d->t, d->y, N);
}

static void fdf_cb(const gsl_vector *p, void *ctx, double *f, gsl_vector *g) {
    double grad[P];
    *f = loss_grad(gsl_vector_const_ptr(p, 0), grad, ctx);
    for (int j = 0; j < P; j++)
        gsl_vector_set(g, (size_t)j, grad[j]);
}

static void df_cb(const gsl_vector *p, void *ctx, gsl_vector *g) {
    double f;
    fdf_cb(p, ctx, &f, g);
}

int main(void) {
    static struct data d;
    double p[P] = {0.8, 1.15, 0.0}, g[P], worst = 0;
    int ok = 1;
    gsl_set_error_handler_off();
    for (int i = 0; i < N; i++) {
        d.t[i] = 0.05 + 11.95 * i / (N - 1);
        d.y[i] = intensity(truth, d.t[i]) + 0.01 * normal();
    }

    /* 1. The hand-written derivative of J1 against central differences. */
    for (double x = -7.5; x <= 7.5; x += 0.75) {
        double h = 1e-5, dv, v = gsl_sf_bessel_J1_fwd(x, 1.0, &dv);
        double fd = (gsl_sf_bessel_J1(x + h) - gsl_sf_bessel_J1(x - h)) / (2 * h);
        worst = fmax(worst, fabs(dv - fd));
        if (v != gsl_sf_bessel_J1(x))
            ok = 0;
    }
    printf("J1' by hand against finite differences: max difference %.2e\n", worst);
    if (!(worst < 1e-8))
        ok = 0;

    /* 2. The gradient of the loss: finite differences and duality. */
    double v = loss_grad(p, g, &d), dir[P] = {0.3, -0.7, 0.5}, dv, dot = 0;
    worst = 0;
    for (int j = 0; j < P; j++) {
        double q[P] = {p[0], p[1], p[2]}, h = 1e-6, up, down;
        q[j] = p[j] + h;
        up = airy_loss(q, d.t, d.y, N);
        q[j] = p[j] - h;
        down = airy_loss(q, d.t, d.y, N);
        worst = fmax(worst, fabs((up - down) / (2 * h) - g[j]) / fmax(fabs(g[j]), 1e-3));
        dot += g[j] * dir[j];
    }
    double vf = airy_loss_fwd(p, dir, d.t, d.y, N, &dv);
    printf("loss %.6f, gradient (%.6f, %.6f, %.6f)\n", v, g[0], g[1], g[2]);
    printf("against finite differences: max relative difference %.2e\n", worst);
    printf("duality: <grad, dir> = %.15g, f_fwd along dir = %.15g\n", dot, dv);
    if (!(worst < 1e-6) || vf != v || !(fabs(dot - dv) <= 1e-12 * fmax(1, fabs(dot))))
        ok = 0;

    /* 3. The fit. */
    gsl_multimin_function_fdf fn = {f_cb, df_cb, fdf_cb, P, &d};
    gsl_vector *p0 = gsl_vector_alloc(P);
    for (int j = 0; j < P; j++)
        gsl_vector_set(p0, (size_t)j, p[j]);
    gsl_multimin_fdfminimizer *opt =
        gsl_multimin_fdfminimizer_alloc(gsl_multimin_fdfminimizer_vector_bfgs2, P);
    gsl_multimin_fdfminimizer_set(opt, &fn, p0, 0.01, 0.1);
    int it, converged = 0;
    for (it = 0; it < 500; it++) {
        if (gsl_multimin_test_gradient(gsl_multimin_fdfminimizer_gradient(opt), 1e-6) ==
            GSL_SUCCESS) {
            converged = 1;
            break;
        }
        if (gsl_multimin_fdfminimizer_iterate(opt))
            break; /* no progress possible */
    }
    for (int j = 0; j < P; j++)
        p[j] = gsl_vector_get(gsl_multimin_fdfminimizer_x(opt), (size_t)j);
    printf("\n%d iterations of GSL's vector_bfgs2%s, loss %.6f\n", it,
           converged ? "" : " (not converged)", gsl_multimin_fdfminimizer_minimum(opt));
    printf("fitted A = %.5f, s = %.5f, b = %.5f (true %.2f, %.2f, %.2f)\n", p[0], p[1], p[2],
           truth[0], truth[1], truth[2]);
    if (!converged || !(fabs(p[0] - truth[0]) < 0.01 * truth[0]) ||
        !(fabs(p[1] - truth[1]) < 0.01 * truth[1]) || !(fabs(p[2] - truth[2]) < 0.005))
        ok = 0;
    gsl_multimin_fdfminimizer_free(opt);
    gsl_vector_free(p0);
    printf("%s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
