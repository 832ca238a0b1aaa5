/* ridge.c: a library routine that writes an array, made differentiable
 * with CHAD_CUSTOM: GSL's Cholesky solver inside the validation loss of a
 * ridge regression, whose regularisation weights are tuned by gradient
 * descent on that loss (automatic relevance determination).
 *
 * P = 8 features; 30 training and 200 validation samples, generated here
 * from a fixed seed, with y = X w* + noise (standard deviation 0.5) and
 * w* = (1.5, -2, 0, 0, 0.8, 0, 0, 0.3). The weights of the ridge
 * regression with one penalty per feature, lambda_j = exp(theta_j), are
 *
 *     w(theta) = (Xt' Xt + diag(lambda))^-1 Xt' yt,
 *
 * and the validation loss is L(theta) = 1/2 |Xv w(theta) - yv|^2. GSL's
 * BFGS (vector_bfgs2) minimises L over theta with the gradient from chad's
 * val_loss_rev.
 *
 * The solve is spd_solve below: GSL's gsl_linalg_cholesky_decomp1 and
 * gsl_linalg_cholesky_solve, compiled code in libgsl that chad cannot
 * differentiate. So spd_solve is declared CHAD_CUSTOM, with the lengths of
 * its arrays in the prototype (chad needs them: the solution x[n] is an
 * array it writes), and its derivatives are written by hand to chad's
 * contract (DESIGN.md section 1), each one more solve with the same
 * factor:
 *
 *     forward:  dx = A^-1 (db - dA x)
 *     reverse:  u = A^-1 x_b (A is symmetric);  b_b += u;  A_b -= u x'.
 *
 * Checks (exit status non-zero if one fails): spd_solve's derivatives
 * against central differences and against each other (duality); the
 * gradient of the loss from val_loss_rev against central differences, and
 * against val_loss_fwd along a direction; BFGS converges (gradient norm
 * below 1e-6); the tuned loss is below the loss with every lambda = 1, and
 * the penalties of the three largest true coefficients end smaller than
 * those of the four zero ones.
 *
 * Build: clang -fplugin=build/libchad.so -Iinclude examples/ridge.c -lgsl -lgslcblas -lm */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multimin.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "chad.h"

#define P 8    /* features */
#define NT 30  /* training samples */
#define NV 200 /* validation samples */

/* x = A^-1 b for a symmetric positive definite A (n x n, row-major): x is
 * an output, declared with its length, as are the inputs. */
CHAD_CUSTOM void spd_solve(int n, const double A[n * n], const double b[n], double x[n]);
/* forward: dx receives the tangent of x */
void spd_solve_fwd(int n, const double *A, const double *dA, const double *b, const double *db,
                   double *x, double *dx);
/* reverse: the seed x_b is read only (const: x is an output); the
 * adjoints are added into A_b and b_b */
void spd_solve_rev(int n, const double *A, double *A_b, const double *b, double *b_b, double *x,
                   const double *x_b);

/* The Cholesky factor of A in a GSL matrix the caller frees. */
static gsl_matrix *factor(int n, const double *A) {
    gsl_matrix *L = gsl_matrix_alloc((size_t)n, (size_t)n);
    memcpy(L->data, A, sizeof(double) * (size_t)(n * n));
    if (gsl_linalg_cholesky_decomp1(L))
        fprintf(stderr, "ridge: matrix not positive definite\n");
    return L;
}

/* x = A^-1 b with the factor L. */
static void solve_with(const gsl_matrix *L, int n, const double *b, double *x) {
    gsl_vector_const_view bv = gsl_vector_const_view_array(b, (size_t)n);
    gsl_vector_view xv = gsl_vector_view_array(x, (size_t)n);
    gsl_linalg_cholesky_solve(L, &bv.vector, &xv.vector);
}

void spd_solve(int n, const double A[n * n], const double b[n], double x[n]) {
    gsl_matrix *L = factor(n, A);
    solve_with(L, n, b, x);
    gsl_matrix_free(L);
}

void spd_solve_fwd(int n, const double *A, const double *dA, const double *b, const double *db,
                   double *x, double *dx) {
    gsl_matrix *L = factor(n, A);
    solve_with(L, n, b, x);
    double r[64];
    for (int i = 0; i < n; i++) {
        r[i] = db[i];
        for (int j = 0; j < n; j++)
            r[i] -= dA[i * n + j] * x[j];
    }
    solve_with(L, n, r, dx);
    gsl_matrix_free(L);
}

void spd_solve_rev(int n, const double *A, double *A_b, const double *b, double *b_b, double *x,
                   const double *x_b) {
    gsl_matrix *L = factor(n, A);
    solve_with(L, n, b, x);
    double u[64];
    solve_with(L, n, x_b, u);
    for (int i = 0; i < n; i++) {
        b_b[i] += u[i];
        for (int j = 0; j < n; j++)
            A_b[i * n + j] -= u[i] * x[j];
    }
    gsl_matrix_free(L);
}

/* The validation loss of ridge regression with penalties exp(theta_j).
 * The samples are data: no adjoints for them. */
CHAD_DIFFERENTIABLE
double val_loss(const double *theta, CHAD_INACTIVE const double *Xt, CHAD_INACTIVE const double *yt,
                CHAD_INACTIVE const double *Xv, CHAD_INACTIVE const double *yv, int nt, int nv) {
    double A[P * P], b[P], w[P];
    for (int j = 0; j < P; j++) {
        for (int k = 0; k < P; k++) {
            double s = j == k ? exp(theta[j]) : 0;
            for (int i = 0; i < nt; i++)
                s += Xt[i * P + j] * Xt[i * P + k];
            A[j * P + k] = s;
        }
        double t = 0;
        for (int i = 0; i < nt; i++)
            t += Xt[i * P + j] * yt[i];
        b[j] = t;
    }
    spd_solve(P, A, b, w);
    double loss = 0;
    for (int i = 0; i < nv; i++) {
        double r = -yv[i];
        for (int j = 0; j < P; j++)
            r += Xv[i * P + j] * w[j];
        loss += r * r;
    }
    return 0.5 * loss;
}

struct data {
    double Xt[NT * P], yt[NT], Xv[NV * P], yv[NV];
};

static const double truth[P] = {1.5, -2, 0, 0, 0.8, 0, 0, 0.3};

/* Deterministic generator (64-bit LCG) and standard normals by Box-Muller. */
static unsigned long long rng_state = 7;
static double uniform(void) {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
}
static double normal(void) { return sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform()); }

static void samples(double *X, double *y, int n) {
    for (int i = 0; i < n; i++) {
        y[i] = 0.5 * normal();
        for (int j = 0; j < P; j++) {
            X[i * P + j] = normal();
            y[i] += X[i * P + j] * truth[j];
        }
    }
}

static double loss_of(const double *theta, const struct data *d) {
    return val_loss(theta, d->Xt, d->yt, d->Xv, d->yv, NT, NV);
}

/* The loss and its gradient g (overwritten: val_loss_rev adds into it). */
static double loss_grad(const double *theta, double *g, const struct data *d) {
    for (int j = 0; j < P; j++)
        g[j] = 0;
    return val_loss_rev(theta, g, d->Xt, d->yt, d->Xv, d->yv, NT, NV, 1.0);
}

static double f_cb(const gsl_vector *t, void *ctx) { return loss_of(gsl_vector_const_ptr(t, 0), ctx); }

static void fdf_cb(const gsl_vector *t, void *ctx, double *f, gsl_vector *g) {
    double grad[P];
    *f = loss_grad(gsl_vector_const_ptr(t, 0), grad, ctx);
    for (int j = 0; j < P; j++)
        gsl_vector_set(g, (size_t)j, grad[j]);
}

static void df_cb(const gsl_vector *t, void *ctx, gsl_vector *g) {
    double f;
    fdf_cb(t, ctx, &f, g);
}

/* 1. spd_solve's hand-written derivatives on a random 5 x 5 system. */
static int check_solve(void) {
    enum { n = 5 };
    double M[n * n], A[n * n], b[n], dA[n * n], db[n], x[n], dx[n], xb[n];
    for (int i = 0; i < n * n; i++)
        M[i] = normal(), dA[i] = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = i == j ? n : 0;
            for (int k = 0; k < n; k++)
                s += M[k * n + i] * M[k * n + j];
            A[i * n + j] = s;
        }
    for (int i = 0; i < n; i++) /* a symmetric direction, as A's are */
        for (int j = 0; j <= i; j++)
            dA[i * n + j] = dA[j * n + i] = normal();
    for (int i = 0; i < n; i++)
        b[i] = normal(), db[i] = normal(), xb[i] = normal();
    spd_solve_fwd(n, A, dA, b, db, x, dx);
    double h = 1e-6, worst = 0, Ap[n * n], Am[n * n], bp[n], bm[n], xp[n], xm[n];
    for (int i = 0; i < n * n; i++)
        Ap[i] = A[i] + h * dA[i], Am[i] = A[i] - h * dA[i];
    for (int i = 0; i < n; i++)
        bp[i] = b[i] + h * db[i], bm[i] = b[i] - h * db[i];
    spd_solve(n, Ap, bp, xp);
    spd_solve(n, Am, bm, xm);
    for (int i = 0; i < n; i++)
        worst = fmax(worst, fabs((xp[i] - xm[i]) / (2 * h) - dx[i]));
    /* duality: <x_b, dx> = <A_b, dA> + <b_b, db> */
    double Ab[n * n] = {0}, bb[n] = {0}, xr[n], lhs = 0, rhs = 0;
    spd_solve_rev(n, A, Ab, b, bb, xr, xb);
    for (int i = 0; i < n; i++)
        lhs += xb[i] * dx[i], rhs += bb[i] * db[i];
    for (int i = 0; i < n * n; i++)
        rhs += Ab[i] * dA[i];
    printf("spd_solve by hand: finite differences %.2e, duality %.2e\n", worst, fabs(lhs - rhs));
    return worst < 1e-7 && fabs(lhs - rhs) <= 1e-12 * fmax(1, fabs(lhs));
}

int main(void) {
    static struct data d;
    double theta[P] = {0}, g[P];
    int ok = 1;
    gsl_set_error_handler_off();
    samples(d.Xt, d.yt, NT);
    samples(d.Xv, d.yv, NV);
    ok = check_solve();

    /* 2. The gradient of the loss: finite differences and duality. */
    double v = loss_grad(theta, g, &d), dir[P], dv, dot = 0, worst = 0;
    for (int j = 0; j < P; j++) {
        double q[P], h = 1e-6;
        memcpy(q, theta, sizeof q);
        q[j] = theta[j] + h;
        double up = loss_of(q, &d);
        q[j] = theta[j] - h;
        double down = loss_of(q, &d);
        worst = fmax(worst, fabs((up - down) / (2 * h) - g[j]) / fmax(fabs(g[j]), 1e-3));
        dir[j] = 0.25 * (j % 3) - 0.3;
        dot += g[j] * dir[j];
    }
    double vf = val_loss_fwd(theta, dir, d.Xt, d.yt, d.Xv, d.yv, NT, NV, &dv);
    printf("validation loss at lambda = 1: %.6f\n", v);
    printf("gradient against finite differences: max relative difference %.2e\n", worst);
    printf("duality: <grad, dir> = %.15g, f_fwd along dir = %.15g\n", dot, dv);
    if (!(worst < 1e-6) || vf != v || !(fabs(dot - dv) <= 1e-12 * fmax(1, fabs(dot))))
        ok = 0;

    /* 3. Tuning the penalties. */
    gsl_multimin_function_fdf fn = {f_cb, df_cb, fdf_cb, P, &d};
    gsl_vector *t0 = gsl_vector_calloc(P);
    gsl_multimin_fdfminimizer *opt =
        gsl_multimin_fdfminimizer_alloc(gsl_multimin_fdfminimizer_vector_bfgs2, P);
    gsl_multimin_fdfminimizer_set(opt, &fn, t0, 0.5, 0.1);
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
        theta[j] = gsl_vector_get(gsl_multimin_fdfminimizer_x(opt), (size_t)j);
    double tuned = gsl_multimin_fdfminimizer_minimum(opt);
    printf("\n%d iterations of GSL's vector_bfgs2%s, validation loss %.6f\n", it,
           converged ? "" : " (not converged)", tuned);
    printf("log penalties:");
    for (int j = 0; j < P; j++)
        printf(" %.2f", theta[j]);
    printf("\n");
    double big = fmax(theta[0], fmax(theta[1], theta[4]));
    double zero = fmin(fmin(theta[2], theta[3]), fmin(theta[5], theta[6]));
    if (!converged || !(tuned < v) || !(big < zero))
        ok = 0;
    gsl_multimin_fdfminimizer_free(opt);
    gsl_vector_free(t0);
    printf("%s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
