/* logreg.c: training a logistic regression with gradients from chad.
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
 * BFGS (optim.h, shared with minimize.c) trains the model; the program
 * prints the loss at every iteration and the accuracy on the training set
 * and on a fresh test set.  It fails unless the gradient agrees with finite
 * differences, the loss decreases at every iteration, BFGS converges and the
 * test accuracy is above 85%.
 *
 * The labels are a const int array, which chad treats as inactive.  The
 * features are a const double array, which is active as far as chad knows:
 * f_rev also computes their adjoint, into a scratch buffer we ignore.
 *
 * Build: clang -fplugin=build/libchad.so -Iinclude logreg.c -lm */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "chad.h"
#include "optim.h"

/* log(1 + exp(m)), without overflow for large m. */
CHAD_DIFFERENTIABLE
double softplus(double m) {
    if (m > 0)
        return m + log1p(exp(-m));
    return log1p(exp(m));
}

/* x: n x d row-major features, y: labels +1 or -1. */
CHAD_DIFFERENTIABLE
double logreg_loss(const double *w, const double *x, const int *y, int n, int d, double lambda) {
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
    double *x, *x_b; /* features and their (ignored) adjoint */
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
    s->x_b = malloc(sizeof(double) * n * D);
    s->y = malloc(sizeof(int) * n);
    if (!s->x || !s->x_b || !s->y) {
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

/* Loss and gradient for BFGS: g is zeroed, then logreg_loss_rev adds into it. */
static double value_grad(const double *w, double *g, void *ctx) {
    struct data *s = ctx;
    double lambda_b = 0; /* the adjoint of lambda, an active scalar: unused */
    int j;
    for (j = 0; j < D; j++)
        g[j] = 0;
    return logreg_loss_rev(w, g, s->x, s->x_b, s->y, s->n, D, LAMBDA, &lambda_b, 1.0);
}

static double last_loss = INFINITY;
static int increased;

static void progress(int it, double f, double gnorm, double t, const double *w, void *ctx) {
    (void)w, (void)ctx;
    if (it == 0)
        printf("%4s %20s %12s %8s\n", "iter", "loss", "|grad|", "step");
    printf("%4d %20.15f %12.4e %8.3g\n", it, f, gnorm, t);
    if (f > last_loss)
        increased = 1;
    last_loss = f;
}

int main(void) {
    struct data train, test;
    double w[D] = {0}, g[D], wp[D], fd, worst = 0;
    struct optim_result r;
    double lambda_b = 0;
    int j, ok = 1;

    generate(&train, NTRAIN);
    generate(&test, NTEST);

    /* The gradient at a nonzero point against central differences. */
    for (j = 0; j < D; j++)
        w[j] = 0.3 * (j % 3) - 0.2;
    for (j = 0; j < D; j++)
        g[j] = 0;
    logreg_loss_rev(w, g, train.x, train.x_b, train.y, train.n, D, LAMBDA, &lambda_b, 1.0);
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

    for (j = 0; j < D; j++)
        w[j] = 0;
    printf("logistic regression: %d training points, %d features + bias, lambda = %g\n", NTRAIN, D - 1, LAMBDA);
    r = optim_bfgs(D, w, value_grad, &train, 1e-7, 200, progress);
    printf("\n%d iterations, %d evaluations of loss and gradient (logreg_loss_rev)\n", r.iterations,
           r.evaluations);
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
    if (!r.converged) {
        printf("FAIL: BFGS did not converge\n");
        ok = 0;
    }
    if (!(accuracy(&test, w) > 0.85)) {
        printf("FAIL: test accuracy too low\n");
        ok = 0;
    }
    printf("%s\n", ok ? "ok" : "FAILED");
    free(train.x), free(train.x_b), free(train.y);
    free(test.x), free(test.x_b), free(test.y);
    return ok ? 0 : 1;
}
