/* complexity.c: does the gradient cost a constant times the function, at
 * every size?  (DESIGN.md section 5: a ratio time(f_rev) / time(f) that grows
 * with the input means one of the efficiency rules has been broken.)
 *
 * For six functions and sizes 10^3 .. 10^6 it measures time(f) and
 * time(f_rev), each the median over batches of repeated calls, with the
 * repetitions scaled so that a batch takes at least 20 ms, and prints
 * their ratio as a table.  Then, per function, whether the ratio is below 5
 * at every size and whether max/min of the ratio across sizes is below 2.
 *
 *   sumsq   sum of squares of n elements (a sum)
 *   dot     dot product of two n-vectors (a sum over two arrays)
 *   matvec  y = A x for an m x m matrix, m = floor(sqrt(n)) (build of sums)
 *   ode     harmonic oscillator by explicit Euler, n steps (a fold whose
 *           state, two doubles, is stored per step for the reverse sweep)
 *   chain   three loops through an output array: y = x^2 + 1, then
 *           y = 3y - x, then the sum of y x (f_rev makes arrays of n
 *           doubles for the cotangents: kept between calls, DESIGN 8.58)
 *   waves   the sum of x sin(x): f calls sin once per element, f_rev
 *           needs sin and cos of it, one sincos call (DESIGN 8.60)
 *
 * Before timing, each f_rev is checked against the closed-form gradient (and
 * the ODE against finite differences) at the smallest size, and its value
 * against f's; a failure exits with status 1.
 *
 * usage: complexity [--quick]
 *   --quick: sizes 10^3 and 10^4, batches of 2 ms; timing verdicts are
 *   printed but do not affect the exit status (a CTest smoke test).
 *   Without it the exit status is 1 if a verdict is "no".
 *
 * Build: clang -fplugin=build/libchad.so -Iinclude -O2 complexity.c -lm */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "chad.h"

CHAD_DIFFERENTIABLE
double sumsq(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] * x[i];
    return s;
}

CHAD_DIFFERENTIABLE
double dot(const double *a, const double *b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

CHAD_DIFFERENTIABLE
void matvec(const double *A, const double *x, double *y, int m) {
    for (int i = 0; i < m; i++) {
        double s = 0;
        for (int j = 0; j < m; j++)
            s += A[i * m + j] * x[j];
        y[i] = s;
    }
}

CHAD_DIFFERENTIABLE
double ode(double x, double v, double h, double k, int steps) {
    for (int t = 0; t < steps; t++) {
        double a = x + h * v;
        double b = v - h * k * x;
        x = a;
        v = b;
    }
    return x + 0.5 * v;
}

CHAD_DIFFERENTIABLE
double chain(const double *x, double *y, int n) {
    for (int i = 0; i < n; i++)
        y[i] = x[i] * x[i] + 1.0;
    for (int i = 0; i < n; i++)
        y[i] = 3.0 * y[i] - x[i];
    double s = 0;
    for (int i = 0; i < n; i++)
        s += y[i] * x[i];
    return s;
}

CHAD_DIFFERENTIABLE
double waves(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] * sin(x[i]);
    return s;
}

/* Buffers for one problem size; every array has room for n elements. */
struct buf {
    int n, m;                   /* size, and matrix side m = floor(sqrt(n)) */
    double *x, *x_b, *y, *y_b;  /* vectors */
    double *A, *A_b;            /* n elements (the m x m matrix fits) */
};

/* The calls that are timed.  They are called through volatile function
 * pointers, so that the compiler can neither inline them into the timing
 * loop nor hoist a call out of it. */
static volatile double sink;
static void f_sumsq(struct buf *b) { sink = sumsq(b->x, b->n); }
static void r_sumsq(struct buf *b) { sink = sumsq_rev(b->x, b->x_b, b->n, 1.0); }
static void f_dot(struct buf *b) { sink = dot(b->x, b->y, b->n); }
static void r_dot(struct buf *b) { sink = dot_rev(b->x, b->x_b, b->y, b->y_b, b->n, 1.0); }
static void f_matvec(struct buf *b) { matvec(b->A, b->x, b->y, b->m); }
static void r_matvec(struct buf *b) { matvec_rev(b->A, b->A_b, b->x, b->x_b, b->y, b->y_b, b->m); }
static void f_ode(struct buf *b) { sink = ode(1.0, 0.0, 1e-3, 4.0, b->n); }
static void r_ode(struct buf *b) {
    double xb = 0, vb = 0, hb = 0, kb = 0;
    sink = ode_rev(1.0, &xb, 0.0, &vb, 1e-3, &hb, 4.0, &kb, b->n, 1.0);
}

static void f_chain(struct buf *b) { sink = chain(b->x, b->y, b->n); }
static void r_chain(struct buf *b) { sink = chain_rev(b->x, b->x_b, b->y, b->y_b, b->n, 1.0); }
static void f_waves(struct buf *b) { sink = waves(b->x, b->n); }
static void r_waves(struct buf *b) { sink = waves_rev(b->x, b->x_b, b->n, 1.0); }

typedef void (*run_fn)(struct buf *);
struct problem {
    const char *name, *size_note;
    run_fn f, rev;
};
static const struct problem problems[] = {
    {"sumsq", "n", f_sumsq, r_sumsq},
    {"dot", "n", f_dot, r_dot},
    {"matvec", "m*m", f_matvec, r_matvec},
    {"ode", "steps", f_ode, r_ode},
    {"chain", "n", f_chain, r_chain},
    {"waves", "n", f_waves, r_waves},
};
#define NPROBLEMS (int)(sizeof problems / sizeof problems[0])

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Seconds per call of fn: the median over `batches` batches of reps calls,
 * reps doubled until one batch takes at least min_batch seconds. */
static double time_call(run_fn fn, struct buf *b, double min_batch, int batches) {
    run_fn volatile call = fn;
    double t[16], start;
    long reps = 1, r;
    int k;
    call(b); /* warm up: page in the buffers */
    for (;;) {
        start = now();
        for (r = 0; r < reps; r++)
            call(b);
        if (now() - start >= min_batch)
            break;
        reps *= 2;
    }
    for (k = 0; k < batches; k++) {
        start = now();
        for (r = 0; r < reps; r++)
            call(b);
        t[k] = (now() - start) / (double)reps;
    }
    qsort(t, (size_t)batches, sizeof t[0], cmp_double);
    return t[batches / 2];
}

static unsigned long long rng = 42;
static double uniform(void) { /* [-1, 1) */
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng >> 11) / 4503599627370496.0 - 1.0;
}

static double *alloc(int n) {
    double *p = malloc(sizeof(double) * (size_t)n);
    int i;
    if (!p) {
        fprintf(stderr, "complexity: out of memory\n");
        exit(2);
    }
    for (i = 0; i < n; i++)
        p[i] = uniform();
    return p;
}

static void buf_init(struct buf *b, int n) {
    b->n = n;
    b->m = (int)sqrt((double)n); /* floor: m * m <= n */
    while ((b->m + 1) * (b->m + 1) <= n)
        b->m++;
    while (b->m * b->m > n)
        b->m--;
    b->x = alloc(n), b->x_b = alloc(n), b->y = alloc(n), b->y_b = alloc(n);
    b->A = alloc(n), b->A_b = alloc(n);
}

static void buf_free(struct buf *b) {
    free(b->x), free(b->x_b), free(b->y), free(b->y_b), free(b->A), free(b->A_b);
}

static void zero(double *a, int n) { memset(a, 0, sizeof(double) * (size_t)n); }

static int close_to(double a, double b) { return fabs(a - b) <= 1e-12 * fmax(1, fabs(b)); }

/* Gradients against closed forms (and the ODE against central differences). */
static int check(int n) {
    struct buf b;
    int i, j, ok = 1;
    double v;
    buf_init(&b, n);
    zero(b.x_b, n);
    v = sumsq_rev(b.x, b.x_b, n, 1.0);
    ok = ok && v == sumsq(b.x, n);
    for (i = 0; i < n; i++)
        ok = ok && close_to(b.x_b[i], 2 * b.x[i]);
    zero(b.x_b, n), zero(b.y_b, n);
    v = dot_rev(b.x, b.x_b, b.y, b.y_b, n, 1.0);
    ok = ok && v == dot(b.x, b.y, n);
    for (i = 0; i < n; i++)
        ok = ok && b.x_b[i] == b.y[i] && b.y_b[i] == b.x[i];
    if (!ok)
        printf("check failed: sumsq or dot\n");
    {   /* matvec: A_b = y_b x^T, x_b = A^T y_b */
        int m = b.m, good = 1;
        double *y0 = alloc(m);
        matvec(b.A, b.x, y0, m);
        zero(b.A_b, m * m), zero(b.x_b, m);
        matvec_rev(b.A, b.A_b, b.x, b.x_b, b.y, b.y_b, m);
        for (i = 0; i < m; i++) {
            double s = 0;
            good = good && b.y[i] == y0[i];
            for (j = 0; j < m; j++) {
                good = good && close_to(b.A_b[i * m + j], b.y_b[i] * b.x[j]);
                s += b.A[j * m + i] * b.y_b[j];
            }
            good = good && close_to(b.x_b[i], s);
        }
        free(y0);
        if (!good)
            printf("check failed: matvec\n");
        ok = ok && good;
    }
    {   /* ode: d/dk by central differences */
        double xb = 0, vb = 0, hb = 0, kb = 0, h = 1e-5, fd;
        v = ode_rev(1.0, &xb, 0.0, &vb, 1e-3, &hb, 4.0, &kb, n, 1.0);
        fd = (ode(1.0, 0.0, 1e-3, 4.0 + h, n) - ode(1.0, 0.0, 1e-3, 4.0 - h, n)) / (2 * h);
        if (!(v == ode(1.0, 0.0, 1e-3, 4.0, n) && fabs(kb - fd) <= 1e-6 * fmax(1, fabs(fd)))) {
            printf("check failed: ode (d/dk = %.12g, finite differences %.12g)\n", kb, fd);
            ok = 0;
        }
    }
    {   /* chain: x_b = (6x - 1)(x + y_b) + y, y = 3 (x^2 + 1) - x */
        int good = 1;
        zero(b.x_b, n);
        v = chain_rev(b.x, b.x_b, b.y, b.y_b, n, 1.0);
        good = v == chain(b.x, b.y, n);
        for (i = 0; i < n; i++) {
            double x = b.x[i], y = 3 * (x * x + 1) - x;
            good = good && b.y[i] == y && close_to(b.x_b[i], (6 * x - 1) * (x + b.y_b[i]) + y);
        }
        if (!good)
            printf("check failed: chain\n");
        ok = ok && good;
    }
    {   /* waves: x_b = sin x + x cos x */
        int good = 1;
        zero(b.x_b, n);
        v = waves_rev(b.x, b.x_b, n, 1.0);
        good = v == waves(b.x, n);
        for (i = 0; i < n; i++)
            good = good && close_to(b.x_b[i], sin(b.x[i]) + b.x[i] * cos(b.x[i]));
        if (!good)
            printf("check failed: waves\n");
        ok = ok && good;
    }
    buf_free(&b);
    return ok;
}

int main(int argc, char **argv) {
    static const int full_sizes[] = {1000, 10000, 100000, 1000000};
    static const int quick_sizes[] = {1000, 10000};
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    const int *sizes = quick ? quick_sizes : full_sizes;
    int nsizes = quick ? 2 : 4;
    double min_batch = quick ? 0.002 : 0.02, ratio[NPROBLEMS][4];
    int batches = quick ? 3 : 7, p, s, all_good = 1;

    if (argc > 1 && !quick) {
        fprintf(stderr, "usage: %s [--quick]\n", argv[0]);
        return 2;
    }
    if (!check(1000)) {
        printf("FAILED: a gradient is wrong, no timing\n");
        return 1;
    }
    printf("gradients checked at size 1000\n\n");
    printf("time(f_rev) / time(f), median of %d batches of >= %g ms%s\n\n", batches, 1e3 * min_batch,
           quick ? " (quick mode)" : "");
    printf("%-8s %-6s %10s %12s %12s %7s\n", "function", "size", "", "f (us)", "f_rev (us)", "ratio");
    for (p = 0; p < NPROBLEMS; p++) {
        for (s = 0; s < nsizes; s++) {
            struct buf b;
            double tf, tr;
            char what[32];
            buf_init(&b, sizes[s]);
            tf = time_call(problems[p].f, &b, min_batch, batches);
            tr = time_call(problems[p].rev, &b, min_batch, batches);
            ratio[p][s] = tr / tf;
            if (problems[p].f == f_matvec)
                snprintf(what, sizeof what, "m=%d", b.m);
            else
                snprintf(what, sizeof what, "%s=%d", problems[p].size_note, sizes[s]);
            printf("%-8s 10^%-3d %10s %12.3f %12.3f %7.2f\n", problems[p].name, (int)floor(log10(sizes[s]) + 0.5),
                   what, 1e6 * tf, 1e6 * tr, ratio[p][s]);
            buf_free(&b);
        }
    }
    printf("\n%-8s %14s %18s\n", "function", "all ratios < 5", "max/min ratio < 2");
    for (p = 0; p < NPROBLEMS; p++) {
        double lo = INFINITY, hi = 0;
        for (s = 0; s < nsizes; s++)
            lo = fmin(lo, ratio[p][s]), hi = fmax(hi, ratio[p][s]);
        printf("%-8s %14s %12s (%.2f)\n", problems[p].name, hi < 5 ? "yes" : "NO", hi / lo < 2 ? "yes" : "NO", hi / lo);
        if (!(hi < 5 && hi / lo < 2))
            all_good = 0;
    }
    if (quick)
        return 0;
    return all_good ? 0 : 1;
}
