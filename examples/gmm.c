/* gmm.c: the GMM objective of ADBench, differentiated by chad.
 *
 * The log-likelihood of N points under a mixture of K Gaussians in D
 * dimensions, with a Wishart-type prior, as ADBench defines it (Srajer,
 * Kukelova and Fitzgibbon, "A benchmark of selected algorithmic
 * differentiation tools on some problems in computer vision and machine
 * learning", 2018; github.com/microsoft/ADBench), written here in plain C.
 * With T = D(D+1)/2 the unknowns are alphas (K), means (K x D) and icf
 * (K x T: per component the logs of the diagonal of the precision factor
 * Q_k, then its strictly lower triangle column by column); the gradient has
 * K(D+1)(D+2)/2 entries.
 *
 *   F = -(N D / 2) log(2 pi)
 *       + sum_n LSE_k [alpha_k + sum_i q_ki - |Q_k (x_n - mu_k)|^2 / 2]
 *       - N LSE_k [alpha_k]
 *       + sum_k [(gamma^2 / 2)(sum_i exp(2 q_ki) + sum_s l_ks^2) - m sum_i q_ki]
 *       - K C(D, gamma, m)
 *
 * Both LSEs shift by the maximum.  The one over components is computed in a
 * single pass (streaming: the running maximum and the sum rescaled when the
 * maximum grows), so no per-point scratch array is needed.  C(D, gamma, m)
 * involves lgamma, which chad cannot differentiate; it does not depend on
 * the unknowns, so main computes it and passes it in.
 *
 * usage: gmm [-d DIR] [FILE...]
 * DIR is a folder laid out as ADBench's data/ folder (DIR/gmm/test.txt,
 * DIR/gmm/1k/...); by default examples/data/adbench of this repository,
 * which holds two of ADBench's inputs (GMM_DATA_DIR, set by CMake to its
 * absolute path). The program
 *  1. checks F and its gradient against the reference values of ADBench's
 *     unit test (DIR/gmm/test.txt: D = 2, K = 3, N = 1);
 *  2. for each FILE (by default DIR/gmm/1k/gmm_d2_K5.txt) prints F, the
 *     gradient's norm, the largest difference to central finite
 *     differences over a sample of coordinates, and the time of
 *     gmm_objective_rev relative to gmm_objective (medians of repeated
 *     runs).
 * It exits non-zero if a check fails or a file cannot be read.
 *
 * Build (from the repository's root, where the default DIR is found):
 *   clang -fplugin=build/libchad.so -Iinclude -O2 examples/gmm.c -lm */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "chad.h"

#ifndef GMM_DATA_DIR
#define GMM_DATA_DIR "examples/data/adbench"
#endif

/* wishart_c is C(D, gamma, m) (see above); x: N x D points. */
CHAD_DIFFERENTIABLE
double gmm_objective(const double *alphas, const double *means, const double *icf,
                     CHAD_INACTIVE const double *x, int d, int k, int n,
                     CHAD_INACTIVE double wishart_gamma, int wishart_m,
                     CHAD_INACTIVE double wishart_c) {
    const double log_2pi = 1.8378770664093454836;
    int t = d * (d + 1) / 2;

    /* sum over points of LSE over components */
    double slse = 0;
    for (int p = 0; p < n; p++) {
        double mx = -1e300, se = 0; /* running max and sum of exp(v - mx) */
        for (int c = 0; c < k; c++) {
            double sumq = 0, sq = 0;
            for (int i = 0; i < d; i++)
                sumq += icf[c * t + i];
            /* |Q (x - mu)|^2, row by row: (Q z)_r = exp(q_r) z_r + sum_{j<r} L_rj z_j,
             * with L_rj stored at d + j (d - 1) - j (j - 1) / 2 + (r - j - 1). */
            for (int r = 0; r < d; r++) {
                double qz = exp(icf[c * t + r]) * (x[p * d + r] - means[c * d + r]);
                for (int j = 0; j < r; j++)
                    qz += icf[c * t + d + j * (d - 1) - j * (j - 1) / 2 + (r - j - 1)] *
                          (x[p * d + j] - means[c * d + j]);
                sq += qz * qz;
            }
            double v = alphas[c] + sumq - 0.5 * sq;
            if (v > mx) {
                se = se * exp(mx - v) + 1;
                mx = v;
            } else {
                se += exp(v - mx);
            }
        }
        slse += mx + log(se);
    }

    /* LSE of the alphas */
    double amax = alphas[0];
    for (int c = 1; c < k; c++)
        if (alphas[c] > amax)
            amax = alphas[c];
    double asum = 0;
    for (int c = 0; c < k; c++)
        asum += exp(alphas[c] - amax);
    double alse = amax + log(asum);

    /* Wishart-type prior */
    double prior = 0;
    for (int c = 0; c < k; c++) {
        double frob = 0, sumq = 0;
        for (int i = 0; i < d; i++) {
            frob += exp(2 * icf[c * t + i]);
            sumq += icf[c * t + i];
        }
        for (int s = d; s < t; s++)
            frob += icf[c * t + s] * icf[c * t + s];
        prior += 0.5 * wishart_gamma * wishart_gamma * frob - wishart_m * sumq;
    }

    return -0.5 * n * d * log_2pi + slse - n * alse + prior - k * wishart_c;
}

/* C(D, gamma, m) = nu D (log gamma - log(2) / 2) - log Gamma_D(nu / 2), nu = D + m + 1. */
static double wishart_constant(int d, double gamma, int m) {
    const double log_pi = 1.1447298858494001741;
    double nu = d + m + 1, a = nu / 2, lgd = 0.25 * d * (d - 1) * log_pi;
    int j;
    for (j = 1; j <= d; j++)
        lgd += lgamma(a + (1 - j) / 2.0);
    return nu * d * (log(gamma) - 0.5 * log(2.0)) - lgd;
}

struct gmm {
    int d, k, n, m;
    double gamma, c;
    double *alphas, *means, *icf, *x; /* the unknowns are contiguous: alphas, means, icf */
    double *grad;                     /* gradient (same layout) */
};

static int read_gmm(const char *path, struct gmm *g) {
    FILE *f = fopen(path, "r");
    int i, nparam, ok = 1;
    if (!f)
        return 0;
    memset(g, 0, sizeof *g);
    if (fscanf(f, "%d %d %d", &g->d, &g->k, &g->n) != 3 || g->d < 1 || g->k < 1 || g->n < 1) {
        fclose(f);
        return -1;
    }
    nparam = g->k * (g->d + 1) * (g->d + 2) / 2;
    g->alphas = calloc((size_t)nparam, sizeof(double));
    g->grad = calloc((size_t)nparam, sizeof(double));
    g->x = calloc((size_t)g->n * g->d, sizeof(double));
    if (!g->alphas || !g->grad || !g->x) {
        fclose(f);
        return -1;
    }
    g->means = g->alphas + g->k;
    g->icf = g->means + g->k * g->d;
    for (i = 0; i < nparam && ok; i++)
        ok = fscanf(f, "%lf", &g->alphas[i]) == 1;
    for (i = 0; i < g->n * g->d && ok; i++)
        ok = fscanf(f, "%lf", &g->x[i]) == 1;
    ok = ok && fscanf(f, "%lf %d", &g->gamma, &g->m) == 2;
    fclose(f);
    if (!ok)
        return -1;
    g->c = wishart_constant(g->d, g->gamma, g->m);
    return 1;
}

static void free_gmm(struct gmm *g) {
    free(g->alphas), free(g->grad), free(g->x);
}

static int nparams(const struct gmm *g) { return g->k * (g->d + 1) * (g->d + 2) / 2; }

static double objective(const struct gmm *g) {
    return gmm_objective(g->alphas, g->means, g->icf, g->x, g->d, g->k, g->n, g->gamma, g->m, g->c);
}

/* F, and its gradient written to g->grad. */
static double objective_grad(struct gmm *g) {
    int i;
    for (i = 0; i < nparams(g); i++)
        g->grad[i] = 0;
    return gmm_objective_rev(g->alphas, g->grad, g->means, g->grad + g->k, g->icf, g->grad + g->k + g->k * g->d,
                             g->x, g->d, g->k, g->n, g->gamma, g->m, g->c, 1.0);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median over 7 batches of the time of one call; each batch repeats the
 * call until it has taken at least 20 ms. */
static double median_time(struct gmm *g, int rev) {
    double t[7], start;
    volatile double sink = 0;
    int reps = 1, b, r;
    for (;;) { /* calibrate */
        start = now();
        for (r = 0; r < reps; r++)
            sink += rev ? objective_grad(g) : objective(g);
        if (now() - start >= 0.02)
            break;
        reps *= 2;
    }
    for (b = 0; b < 7; b++) {
        start = now();
        for (r = 0; r < reps; r++)
            sink += rev ? objective_grad(g) : objective(g);
        t[b] = (now() - start) / reps;
    }
    (void)sink;
    qsort(t, 7, sizeof t[0], cmp_double);
    return t[3];
}

/* ADBench's unit-test values for gmm/test.txt. */
static int check_reference(const char *dir) {
    static const double f_ref = 8.07380408004975791;
    static const double g_ref[18] = {
        1.08662855508652456e-01, -7.41270039523898472e-01, 6.32607184015246071e-01, 1.11692576532787013e+00,
        1.63333013551455269e-01, -2.19989824071193142e-02, 2.27778292254236098e-01, 1.20963025612832187e+00,
        -6.06375920733956339e-02, 2.58529994051162237e+00, 1.12632694524213789e-01, 3.85744309849611777e-01,
        7.35180573182305508e-02, 5.41836362715595232e+00, -3.21494409677446469e-01, 1.71892309775004937e+00,
        8.60091090790866875e-01, -9.94640930466322848e-01};
    char path[4096];
    struct gmm g;
    double f, fr, err = 0;
    int i, st, ok;

    snprintf(path, sizeof path, "%s/gmm/test.txt", dir);
    st = read_gmm(path, &g);
    if (st <= 0) {
        printf("%s: %s\n", path, st ? "bad file" : "not found");
        return st ? 0 : -1;
    }
    f = objective(&g);
    fr = objective_grad(&g);
    for (i = 0; i < 18 && i < nparams(&g); i++)
        err = fmax(err, fabs(g.grad[i] - g_ref[i]) / fmax(1, fabs(g_ref[i])));
    ok = nparams(&g) == 18 && fabs(f - f_ref) <= 1e-12 * fabs(f_ref) && fr == f && err <= 1e-12;
    printf("reference (ADBench unit test, %s): F = %.17g, expected %.17g; gradient max rel. error %.2e: %s\n", path,
           f, f_ref, err, ok ? "ok" : "MISMATCH");
    free_gmm(&g);
    return ok;
}

/* Richardson-extrapolated central difference of F in unknown i; *err gets
 * an estimate of its error (the difference of the two central differences,
 * which exceeds the rounding noise, about eps |F| / h). */
static double fd(struct gmm *g, int i, double *err) {
    double x0 = g->alphas[i], h = 1e-3 * fmax(1, fabs(x0)), d[2];
    int k;
    for (k = 0; k < 2; k++) {
        double hk = k ? h / 2 : h, up, down;
        g->alphas[i] = x0 + hk;
        up = objective(g);
        g->alphas[i] = x0 - hk;
        down = objective(g);
        g->alphas[i] = x0;
        d[k] = (up - down) / (2 * hk);
    }
    *err = fabs(d[1] - d[0]);
    return d[1] + (d[1] - d[0]) / 3;
}

static int run_file(const char *path) {
    struct gmm g;
    double f, fr, norm = 0, worst = 0, worst_rel = 0, tf, tr;
    int i, st, np, nsample, ok;

    st = read_gmm(path, &g);
    if (st <= 0) {
        printf("%s: %s\n", path, st ? "bad file" : "not found");
        return st ? 0 : -1;
    }
    np = nparams(&g);
    printf("\n%s: D = %d, K = %d, N = %d, %d unknowns\n", path, g.d, g.k, g.n, np);
    f = objective(&g);
    fr = objective_grad(&g);
    for (i = 0; i < np; i++)
        norm += g.grad[i] * g.grad[i];
    norm = sqrt(norm);
    printf("  F = %.15g (gmm_objective_rev returns %.15g)\n", f, fr);
    printf("  |gradient| = %.15g\n", norm);

    /* A sample of coordinates: the first and last of each block, and a
     * stride through the whole vector. */
    nsample = 0;
    for (i = 0; i < np; i += (i < g.k + g.k * g.d + 2 * g.d ? 1 : 1 + np / 40)) {
        double fd_err, d = fd(&g, i, &fd_err), err = fabs(d - g.grad[i]);
        /* within 1e-6 relative (absolute below 1), plus the FD error estimate */
        worst = fmax(worst, err / (1e-6 * fmax(1, fabs(d)) + fd_err));
        worst_rel = fmax(worst_rel, err / fmax(1, fabs(d)));
        nsample++;
        if (nsample >= 60)
            break;
    }
    ok = fr == f && worst <= 1;
    printf("  gradient vs. central differences on %d coordinates: max error %.2e (relative, or absolute below 1): %s\n",
           nsample, worst_rel, worst <= 1 ? "ok" : "MISMATCH");
    if (fr != f)
        printf("  MISMATCH: gmm_objective_rev's value differs from gmm_objective's\n");

    tf = median_time(&g, 0);
    tr = median_time(&g, 1);
    printf("  time: gmm_objective %.3g ms, gmm_objective_rev %.3g ms, ratio %.2f\n", 1e3 * tf, 1e3 * tr, tr / tf);
    free_gmm(&g);
    return ok;
}

int main(int argc, char **argv) {
    const char *dir = GMM_DATA_DIR;
    char path[4096];
    int i = 1, ok = 1;

    if (argc > 2 && strcmp(argv[1], "-d") == 0) {
        dir = argv[2];
        i = 3;
    } else if (argc > 1 && argv[1][0] == '-') {
        fprintf(stderr, "usage: %s [-d DIR] [FILE...]\n", argv[0]);
        return 2;
    }
    printf("data: %s\n", dir);
    if (check_reference(dir) != 1)
        ok = 0;
    if (i == argc) {
        snprintf(path, sizeof path, "%s/gmm/1k/gmm_d2_K5.txt", dir);
        if (run_file(path) != 1)
            ok = 0;
    }
    for (; i < argc; i++)
        if (run_file(argv[i]) != 1)
            ok = 0;
    printf("%s\n", ok ? "all checks passed" : "FAILED");
    return ok ? 0 : 1;
}
