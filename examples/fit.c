/* fit.c: nonlinear least squares with GSL, the Jacobian from chad.
 *
 * A damped oscillation
 *
 *     y(t) = A exp(-k t) cos(w t + phi) + c,   p = (A, k, w, phi, c),
 *
 * is fitted to N = 200 noisy samples on [0, 10] (generated here from a fixed
 * seed and known parameters, with Gaussian noise of standard deviation
 * 0.05) by gsl_multifit_nlinear (a trust region method, Levenberg-Marquardt
 * steps).  The residuals r_i(p) = y(t_i; p) - y_i are one differentiable C
 * function writing an output array; the data t and y are CHAD_INACTIVE.
 * The Jacobian GSL asks for, d r_i / d p_j (N x 5), is built from chad's
 * derivatives by columns: column j is the tangent of the residuals along
 * p_j, from one residuals_fwd call with dp = e_j (5 calls, each as cheap as
 * a few evaluations of the residuals).
 *
 * Checks (exit status non-zero if one fails): at the starting point the
 * Jacobian by columns equals the Jacobian by rows, row i being the gradient
 * of r_i from residuals_rev with seed e_i, and agrees with central finite
 * differences; the fit converges; the fitted parameters are within 5
 * standard errors (from GSL's covariance matrix, scaled by the residual
 * variance) of the true ones.
 *
 * Build: clang -fplugin=build/libchad.so -Iinclude examples/fit.c -lgsl -lgslcblas -lm */
#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdio.h>
#include "chad.h"

#define N 200 /* samples */
#define P 5   /* parameters */

/* r[i] = A exp(-k t_i) cos(w t_i + phi) + c - y_i */
CHAD_DIFFERENTIABLE
void residuals(const double *p, CHAD_INACTIVE const double *t, CHAD_INACTIVE const double *y, double *r, int n) {
    for (int i = 0; i < n; i++)
        r[i] = p[0] * exp(-p[1] * t[i]) * cos(p[2] * t[i] + p[3]) + p[4] - y[i];
}

struct data {
    double t[N], y[N];
};

/* Deterministic generator (64-bit LCG) and standard normals by Box-Muller. */
static unsigned long long rng_state = 7;
static double uniform(void) {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
}
static double normal(void) { return sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform()); }

/* The Jacobian by columns: J[i][j] = dr_i/dp_j from residuals_fwd along e_j. */
static void jacobian_fwd(const double *p, const struct data *d, double jac[N][P]) {
    double dp[P] = {0}, r[N], dr[N];
    int i, j;
    for (j = 0; j < P; j++) {
        dp[j] = 1;
        residuals_fwd(p, dp, d->t, d->y, r, dr, N);
        dp[j] = 0;
        for (i = 0; i < N; i++)
            jac[i][j] = dr[i];
    }
}

/* The same by rows: row i is the gradient of r_i, from residuals_rev with
 * the seed e_i (N calls: the way to go when there are fewer residuals than
 * parameters; here a check). */
static void jacobian_rev(const double *p, const struct data *d, double jac[N][P]) {
    double r_b[N] = {0}, r[N], p_b[P];
    int i, j;
    for (i = 0; i < N; i++) {
        for (j = 0; j < P; j++)
            p_b[j] = 0;
        r_b[i] = 1;
        residuals_rev(p, p_b, d->t, d->y, r, r_b, N);
        r_b[i] = 0;
        for (j = 0; j < P; j++)
            jac[i][j] = p_b[j];
    }
}

/* GSL's callbacks: the residuals and their Jacobian. */
static int f_cb(const gsl_vector *x, void *params, gsl_vector *f) {
    const struct data *d = params;
    double p[P], r[N];
    int i;
    for (i = 0; i < P; i++)
        p[i] = gsl_vector_get(x, (size_t)i);
    residuals(p, d->t, d->y, r, N);
    for (i = 0; i < N; i++)
        gsl_vector_set(f, (size_t)i, r[i]);
    return GSL_SUCCESS;
}

static int df_cb(const gsl_vector *x, void *params, gsl_matrix *jm) {
    static double jac[N][P];
    double p[P];
    int i, j;
    for (j = 0; j < P; j++)
        p[j] = gsl_vector_get(x, (size_t)j);
    jacobian_fwd(p, params, jac);
    for (i = 0; i < N; i++)
        for (j = 0; j < P; j++)
            gsl_matrix_set(jm, (size_t)i, (size_t)j, jac[i][j]);
    return GSL_SUCCESS;
}

static void progress(const size_t iter, void *params, const gsl_multifit_nlinear_workspace *w) {
    gsl_vector *f = gsl_multifit_nlinear_residual(w);
    gsl_vector *x = gsl_multifit_nlinear_position(w);
    double norm = gsl_blas_dnrm2(f);
    (void)params;
    printf("%4zu %14.8f   p = (%.6f, %.6f, %.6f, %.6f, %.6f)\n", iter, 0.5 * norm * norm, gsl_vector_get(x, 0),
           gsl_vector_get(x, 1), gsl_vector_get(x, 2), gsl_vector_get(x, 3), gsl_vector_get(x, 4));
}

int main(void) {
    static const double p_true[P] = {2.0, 0.3, 2.5, 0.4, 0.5};
    static const char *names[P] = {"A", "k", "w", "phi", "c"};
    static struct data d;
    static double jf[N][P], jr[N][P];
    double p0[P] = {1.0, 0.1, 2.4, 0.0, 0.0}, dual = 0, fd_err = 0, chisq, dof = N - P;
    gsl_multifit_nlinear_fdf fdf;
    gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *work;
    gsl_vector_view x0 = gsl_vector_view_array(p0, P);
    gsl_matrix *covar = gsl_matrix_alloc(P, P);
    int i, j, status, info, ok = 1;

    for (i = 0; i < N; i++) {
        double t = 10.0 * i / (N - 1);
        d.t[i] = t;
        d.y[i] = p_true[0] * exp(-p_true[1] * t) * cos(p_true[2] * t + p_true[3]) + p_true[4] + 0.05 * normal();
    }

    /* The Jacobian by columns (f_fwd) and by rows (f_rev), and against
     * central differences, at the starting point. */
    jacobian_fwd(p0, &d, jf);
    jacobian_rev(p0, &d, jr);
    for (j = 0; j < P; j++) {
        double h = 1e-6 * fmax(1, fabs(p0[j])), pp[P], up[N], down[N];
        for (i = 0; i < P; i++)
            pp[i] = p0[i];
        pp[j] = p0[j] + h;
        residuals(pp, d.t, d.y, up, N);
        pp[j] = p0[j] - h;
        residuals(pp, d.t, d.y, down, N);
        for (i = 0; i < N; i++) {
            double fd = (up[i] - down[i]) / (2 * h);
            dual = fmax(dual, fabs(jf[i][j] - jr[i][j]) / fmax(1, fabs(jf[i][j])));
            fd_err = fmax(fd_err, fabs(jf[i][j] - fd) / fmax(1, fabs(fd)));
        }
    }
    printf("Jacobian (%d x %d) at the start: by columns (residuals_fwd) vs by rows (residuals_rev) %.1e, "
           "vs central differences %.1e\n",
           N, P, dual, fd_err);
    if (!(dual < 1e-12 && fd_err < 1e-7)) {
        printf("FAIL: the Jacobians disagree\n");
        ok = 0;
    }

    fdf.f = f_cb;
    fdf.df = df_cb;
    fdf.fvv = NULL;
    fdf.n = N;
    fdf.p = P;
    fdf.params = &d;
    work = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, N, P);
    gsl_multifit_nlinear_init(&x0.vector, &fdf, work);
    printf("\n%4s %14s\n", "iter", "|r|^2 / 2");
    status = gsl_multifit_nlinear_driver(200, 1e-10, 1e-10, 1e-10, progress, NULL, &info, work);
    printf("\n%s after %zu iterations (%s), %zu evaluations of the residuals, %zu of the Jacobian\n",
           status == GSL_SUCCESS ? "converged" : "NOT converged", gsl_multifit_nlinear_niter(work),
           info == 1 ? "small step" : info == 2 ? "small gradient" : "other", fdf.nevalf, fdf.nevaldf);
    if (status != GSL_SUCCESS)
        ok = 0;

    gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(work), 0.0, covar);
    chisq = gsl_blas_dnrm2(gsl_multifit_nlinear_residual(work));
    chisq *= chisq;
    printf("residual standard deviation %.4f (the noise is 0.05)\n", sqrt(chisq / dof));
    for (j = 0; j < P; j++) {
        double v = gsl_vector_get(gsl_multifit_nlinear_position(work), (size_t)j);
        double se = sqrt(chisq / dof * gsl_matrix_get(covar, (size_t)j, (size_t)j));
        int good = fabs(v - p_true[j]) < 5 * se;
        printf("  %-3s = %9.5f +/- %.5f   (true %g)%s\n", names[j], v, se, p_true[j], good ? "" : "  FAIL");
        if (!good)
            ok = 0;
    }
    printf("%s\n", ok ? "all checks passed" : "FAILED");
    gsl_multifit_nlinear_free(work);
    gsl_matrix_free(covar);
    return ok ? 0 : 1;
}
