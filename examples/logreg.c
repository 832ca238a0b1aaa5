/* logreg.c: training a logistic regression with GSL, gradients from chad.
 *
 * The loss is the mean logistic loss plus an L2 penalty,
 *
 *     L(w) = (1/n) sum_i log(1 + exp(-y_i w.x_i)) + (lambda/2) |w|^2,
 *
 * written as plain C over arrays: a loop over the points with an inner dot
 * product.  chad generates logreg_loss_rev, which returns L(w) and adds its
 * gradient into w_b in one call.  The data (n points in d dimensions, the
 * last feature a constant 1 for the bias) are generated here from a fixed
 * seed: labels come from a known weight vector, with 5% of them flipped.
 * GSL's BFGS (gsl_multimin_fdfminimizer_vector_bfgs2, with its own line
 * search) trains the model through the callbacks f, df and fdf, ordinary C
 * that call logreg_loss and logreg_loss_rev.  The program prints the loss at
 * every iteration and the accuracy on the training set and on a fresh test
 * set.  It fails unless the gradient agrees with finite differences, the
 * loss never increases, BFGS converges (gradient norm below 1e-7) and the
 * test accuracy is above 85%.
 *
 * The labels are a const int array, which chad treats as inactive.  The
 * features are marked CHAD_INACTIVE: they are data, so logreg_loss_rev has
 * no adjoint for them and computes nothing for them.
 *
 * Build: clang -fplugin=build/libchad.so -Iinclude examples/logreg.c -lgsl -lgslcblas -lm */
#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multimin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "chad.h"

/* log(1 + exp(m)), without overflow for large m. */
CHAD_DIFFERENTIABLE
double softplus(double m) {
    if (m > 0)
        return m + log1p(exp(-m));
    return log1p(exp(m));
}

/* x: n x d row-major features, y: labels +1 or -1. */
CHAD_DIFFERENTIABLE
double logreg_loss(const double *w, CHAD_INACTIVE const double *x, const int *y, int n, int d,
                   CHAD_INACTIVE double lambda) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        double z = 0;
        for (int j = 0; j < d; j++)
            z += w[j] * x[i * d + j];
        s += softplus(-y[i] * z);
    }
    double r = 0;
    for (int j = 0; j < d; j++)
        r += w[j] * w[j];
    return s / n + 0.5 * lambda * r;
}

#define D 6 /* 5 features and the bias */
#define NTRAIN 400
#define NTEST 2000
#define LAMBDA 1e-3

struct data {
    int n;
    double *x; /* n x D features */
    int *y;
};

/* Deterministic generator (64-bit LCG) and standard normals by Box-Muller. */
static unsigned long long rng_state = 2024;
static double uniform(void) {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
}
static double normal(void) { return sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform()); }

static void generate(struct data *s, int n) {
    static const double w_true[D] = {2.0, -1.5, 0.5, 0.0, 1.0, -0.5};
    int i, j;
    s->n = n;
    s->x = malloc(sizeof(double) * n * D);
    s->y = malloc(sizeof(int) * n);
    if (!s->x || !s->y) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (i = 0; i < n; i++) {
        double z = 0;
        for (j = 0; j < D - 1; j++)
            s->x[i * D + j] = normal();
        s->x[i * D + D - 1] = 1;
        for (j = 0; j < D; j++)
            z += w_true[j] * s->x[i * D + j];
        s->y[i] = z > 0 ? 1 : -1;
        if (uniform() < 0.05)
            s->y[i] = -s->y[i];
    }
}

static double accuracy(const struct data *s, const double *w) {
    int i, j, right = 0;
    for (i = 0; i < s->n; i++) {
        double z = 0;
        for (j = 0; j < D; j++)
            z += w[j] * s->x[i * D + j];
        right += (z > 0 ? 1 : -1) == s->y[i];
    }
    return (double)right / s->n;
}

/* The loss and its gradient g (overwritten: logreg_loss_rev adds into it). */
static double loss_grad(const double *w, double *g, const struct data *s) {
    int j;
    for (j = 0; j < D; j++)
        g[j] = 0;
    return logreg_loss_rev(w, g, s->x, s->y, s->n, D, LAMBDA, 1.0);
}

/* GSL's callbacks: the loss, its gradient, both. */
static double f_cb(const gsl_vector *w, void *ctx) {
    const struct data *s = ctx;
    return logreg_loss(gsl_vector_const_ptr(w, 0), s->x, s->y, s->n, D, LAMBDA);
}

static void fdf_cb(const gsl_vector *w, void *ctx, double *f, gsl_vector *g) {
    double grad[D];
    int j;
    *f = loss_grad(gsl_vector_const_ptr(w, 0), grad, ctx);
    for (j = 0; j < D; j++)
        gsl_vector_set(g, (size_t)j, grad[j]);
}

static void df_cb(const gsl_vector *w, void *ctx, gsl_vector *g) {
    double f;
    fdf_cb(w, ctx, &f, g);
}

int main(void) {
    struct data train, test;
    double w[D], g[D], wp[D], fd, worst = 0, last = INFINITY;
    gsl_multimin_function_fdf fn;
    gsl_multimin_fdfminimizer *opt;
    gsl_vector *w0;
    int j, it, status = GSL_CONTINUE, ok = 1, increased = 0, converged = 0;

    generate(&train, NTRAIN);
    generate(&test, NTEST);

    /* The gradient at a nonzero point against central differences. */
    for (j = 0; j < D; j++)
        w[j] = 0.3 * (j % 3) - 0.2;
    loss_grad(w, g, &train);
    for (j = 0; j < D; j++) {
        double h = 1e-6, up, down;
        int k;
        for (k = 0; k < D; k++)
            wp[k] = w[k];
        wp[j] = w[j] + h;
        up = logreg_loss(wp, train.x, train.y, train.n, D, LAMBDA);
        wp[j] = w[j] - h;
        down = logreg_loss(wp, train.x, train.y, train.n, D, LAMBDA);
        fd = (up - down) / (2 * h);
        worst = fmax(worst, fabs(fd - g[j]) / fmax(fabs(fd), 1e-3));
    }
    printf("gradient check at w0: max relative difference to finite differences %.2e\n\n", worst);
    if (!(worst < 1e-6))
        ok = 0;

    printf("logistic regression: %d training points, %d features + bias, lambda = %g\n", NTRAIN, D - 1, LAMBDA);
    fn.n = D;
    fn.f = f_cb;
    fn.df = df_cb;
    fn.fdf = fdf_cb;
    fn.params = &train;
    w0 = gsl_vector_calloc(D); /* start at w = 0 */
    opt = gsl_multimin_fdfminimizer_alloc(gsl_multimin_fdfminimizer_vector_bfgs2, D);
    gsl_multimin_fdfminimizer_set(opt, &fn, w0, 0.1, 0.1); /* first step 0.1, line search tolerance 0.1 */
    printf("%4s %20s %12s\n", "iter", "loss", "|grad|");
    for (it = 0; it < 200; it++) {
        double f = gsl_multimin_fdfminimizer_minimum(opt);
        printf("%4d %20.15f %12.4e\n", it, f, gsl_blas_dnrm2(gsl_multimin_fdfminimizer_gradient(opt)));
        if (f > last)
            increased = 1;
        last = f;
        if (gsl_multimin_test_gradient(gsl_multimin_fdfminimizer_gradient(opt), 1e-7) == GSL_SUCCESS) {
            converged = 1;
            break;
        }
        status = gsl_multimin_fdfminimizer_iterate(opt);
        if (status) /* no progress possible: GSL_ENOPROG */
            break;
    }
    for (j = 0; j < D; j++)
        w[j] = gsl_vector_get(gsl_multimin_fdfminimizer_x(opt), (size_t)j);
    printf("\n%d iterations of GSL's vector_bfgs2%s\n", it, status ? " (stopped: no progress)" : "");
    printf("w = (");
    for (j = 0; j < D; j++)
        printf("%s%.4f", j ? ", " : "", w[j]);
    printf(")\n");
    printf("training accuracy %.1f%%, test accuracy %.1f%% (%d test points)\n", 100 * accuracy(&train, w),
           100 * accuracy(&test, w), NTEST);
    if (increased) {
        printf("FAIL: the loss increased\n");
        ok = 0;
    }
    if (!converged) {
        printf("FAIL: BFGS did not converge\n");
        ok = 0;
    }
    if (!(accuracy(&test, w) > 0.85)) {
        printf("FAIL: test accuracy too low\n");
        ok = 0;
    }
    printf("%s\n", ok ? "ok" : "FAILED");
    gsl_multimin_fdfminimizer_free(opt);
    gsl_vector_free(w0);
    free(train.x), free(train.y);
    free(test.x), free(test.y);
    return ok ? 0 : 1;
}
