/* kept_arrays.c: the arrays f_rev keeps for the next call (DESIGN 8.58).
 * chain's f_rev makes five arrays of n doubles (a scratch copy and four
 * cotangents, four of them zeroed); from n = 8192 on (64 KB) each is kept
 * when the call ends and the next call takes the smallest that fits. The
 * gradient must be right (central differences at sampled coordinates,
 * forward / reverse duality) and the same to the bit at every call: sizes
 * going down (a call taking larger blocks, which the last call left full
 * of its values: zeroed ones must be zero again) and up (new blocks), and
 * from four threads at once (chad-e2e: threads), each with its own size.
 * Under ASan too: a block reused past its capacity, or given back twice,
 * is an error there. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chad.h"

CHAD_DIFFERENTIABLE
double chain(int n, const double *x, double *y) {
    double *t = malloc(n * sizeof *t);
    for (int i = 0; i < n; i++)
        t[i] = sin(x[i]) * x[(i + 1) % n];
    for (int i = 0; i < n; i++)
        y[i] = t[i] * t[i] + x[i];
    double s = 0;
    for (int i = 0; i < n; i++)
        s += y[i] * cos(t[i]);
    free(t);
    return s;
}

static int failures;

static void fail(const char *what, int n, double got, double want) {
    printf("FAIL %s (n = %d): %.17g, expected %.17g\n", what, n, got, want);
    failures++;
}

static void point(int n, double *x, double *y_b) {
    for (int i = 0; i < n; i++) {
        x[i] = 0.3 + 0.7 * sin(1.7 * i + 0.1 * n);
        y_b[i] = 0.01 * cos(0.3 * i);
    }
}

/* s + <y_b, y>: the scalar whose gradient chain_rev computes */
static double objective(int n, const double *x, const double *y_b, double *y) {
    double s = chain(n, x, y);
    for (int i = 0; i < n; i++)
        s += y_b[i] * y[i];
    return s;
}

/* The gradient at n's point, with the value in *value. */
static double *gradient(int n, double *value) {
    double *x = malloc(n * sizeof *x), *y_b = malloc(n * sizeof *y_b), *y = malloc(n * sizeof *y);
    double *x_b = calloc(n, sizeof *x_b);
    point(n, x, y_b);
    *value = chain_rev(n, x, x_b, y, y_b, 1.0);
    free(x), free(y_b), free(y);
    return x_b;
}

/* Against central differences at a few coordinates, and forward mode in a
 * pseudo-random direction (duality). */
static void check_gradient(int n, const double *g) {
    double *x = malloc(n * sizeof *x), *y_b = malloc(n * sizeof *y_b), *y = malloc(n * sizeof *y);
    double *dx = malloc(n * sizeof *dx), *dy = malloc(n * sizeof *dy), dret = 0, dot = 0, dual = 0;
    point(n, x, y_b);
    for (int k = 0; k < 5; k++) {
        int i = (int)((k * 7919L + 13) % n);
        double x0 = x[i], h = 1e-5, up, down;
        x[i] = x0 + h, up = objective(n, x, y_b, y);
        x[i] = x0 - h, down = objective(n, x, y_b, y);
        x[i] = x0;
        double fd = (up - down) / (2 * h);
        if (fabs(fd - g[i]) > 1e-6 * (1 + fabs(fd)))
            fail("central differences", n, g[i], fd);
    }
    for (int i = 0; i < n; i++)
        dx[i] = sin(0.37 * i + 1), dot += g[i] * dx[i];
    chain_fwd(n, x, dx, y, dy, &dret);
    for (int i = 0; i < n; i++)
        dual += y_b[i] * dy[i];
    dual += dret;
    if (fabs(dual - dot) > 1e-10 * (1 + fabs(dot)))
        fail("duality", n, dot, dual);
    free(x), free(y_b), free(y), free(dx), free(dy);
}

static void check_same(const char *what, int n, const double *g, double v, const double *want, double want_v) {
    if (v != want_v)
        fail(what, n, v, want_v);
    if (memcmp(g, want, n * sizeof *g) != 0)
        fail(what, n, 0, 1);
}

enum { SIZES = 4 };
static const int sizes[SIZES] = {40000, 9000, 1000, 20000};
static double *want[SIZES], want_v[SIZES];

static void *worker(void *arg) {
    int k = (int)(long)arg;
    for (int r = 0; r < 25; r++) {
        int s = (k + r) % SIZES;
        double v, *g = gradient(sizes[s], &v);
        check_same("a thread's gradient against the first call's", sizes[s], g, v, want[s], want_v[s]);
        free(g);
    }
    return NULL;
}

int main(void) {
    for (int s = 0; s < SIZES; s++) {
        want[s] = gradient(sizes[s], &want_v[s]);
        check_gradient(sizes[s], want[s]);
    }
    /* down and up again, the blocks of each call left dirty for the next */
    for (int r = 0; r < 3; r++)
        for (int s = SIZES - 1; s >= 0; s--) {
            double v, *g = gradient(sizes[s], &v);
            check_same("a later call's gradient against the first's", sizes[s], g, v, want[s], want_v[s]);
            free(g);
        }
    pthread_t threads[4];
    for (long k = 0; k < 4; k++)
        if (pthread_create(&threads[k], NULL, worker, (void *)k) != 0)
            fail("pthread_create", 0, 0, 0);
    for (int k = 0; k < 4; k++)
        pthread_join(threads[k], NULL);
    for (int s = 0; s < SIZES; s++)
        free(want[s]);
    printf("kept_arrays: %s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
