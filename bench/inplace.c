/* inplace.c: gradients of code that updates arrays in place (issue 9).
 *
 * Objectives written as C updates memory, each at four sizes:
 *   heat      explicit heat equation on n points for T = n steps, the
 *             next state computed into a second array and copied back
 *   heat-swap the same, double-buffered: pointers to the two arrays
 *             swapped after each step (DESIGN 8.26)
 *   cholesky  the log-determinant of an n x n SPD matrix by an in-place
 *             Cholesky factorisation (L[i][j] -= L[i][k] L[j][k])
 *   lstm      a one-layer LSTM over a sequence of c steps, hidden and cell
 *             state updated in place, summed squared prediction error
 * For each it prints time(f) and time(f_rev) (medians over batches of
 * repeated calls), their ratio, and the bytes f_rev allocates beyond f,
 * against the number of array elements f overwrites (the undo log's
 * bound, DESIGN 8.13). Before timing, f_rev's value is checked against f's
 * and its gradient against central differences at the smallest size.
 *
 * usage: inplace [--quick]   (--quick: two small sizes, short batches;
 * the verdicts are printed but do not set the exit status)
 *
 * Build: clang -fplugin=build/libchad.so -Iinclude -O2 inplace.c -lm \
 *            -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "chad.h"

/* ------------------------------------------------------------ counting */

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *p, size_t size);
void __wrap_free(void *p);

static struct {
    long allocs, frees;
    size_t bytes, live, peak;
} mem;

#define HDR ((size_t)16)

static void *account(char *block, size_t size) {
    if (!block)
        return NULL;
    memcpy(block, &size, sizeof size);
    mem.allocs++;
    mem.bytes += size;
    mem.live += size;
    if (mem.live > mem.peak)
        mem.peak = mem.live;
    return block + HDR;
}

static size_t unaccount(void *p) {
    size_t size;
    memcpy(&size, (char *)p - HDR, sizeof size);
    mem.live -= size;
    return size;
}

void *__wrap_malloc(size_t size) { return account(__real_malloc(size + HDR), size); }
void *__wrap_calloc(size_t count, size_t size) {
    char *b = __real_calloc(1, count * size + HDR);
    return account(b, count * size);
}
void *__wrap_realloc(void *p, size_t size) {
    if (!p)
        return __wrap_malloc(size);
    unaccount(p);
    mem.frees++;
    return account(__real_realloc((char *)p - HDR, size + HDR), size);
}
void __wrap_free(void *p) {
    if (!p)
        return;
    unaccount(p);
    mem.frees++;
    __real_free((char *)p - HDR);
}

/* ---------------------------------------------------------- objectives */

/* Explicit heat equation: u_t = kappa u_xx with fixed ends, T steps. */
CHAD_DIFFERENTIABLE
double heat(const double *u0, double kappa, int n, int steps) {
    double *u = malloc(n * sizeof *u);
    double *v = malloc(n * sizeof *v);
    for (int i = 0; i < n; i++)
        u[i] = u0[i];
    for (int t = 0; t < steps; t++) {
        v[0] = u[0];
        v[n - 1] = u[n - 1];
        for (int i = 1; i < n - 1; i++)
            v[i] = u[i] + kappa * (u[i - 1] - 2 * u[i] + u[i + 1]);
        for (int i = 0; i < n; i++)
            u[i] = v[i];
    }
    double s = 0;
    for (int i = 0; i < n; i++)
        s += u[i] * u[i];
    free(u);
    free(v);
    return s;
}

/* The same, double-buffered through swapped pointers. */
CHAD_DIFFERENTIABLE
double heat_swap(const double *u0, double kappa, int n, int steps) {
    double *u = malloc(n * sizeof *u);
    double *v = malloc(n * sizeof *v);
    for (int i = 0; i < n; i++)
        u[i] = u0[i];
    v[0] = u[0];
    v[n - 1] = u[n - 1];
    double *cur = u, *nxt = v;
    for (int t = 0; t < steps; t++) {
        for (int i = 1; i < n - 1; i++)
            nxt[i] = cur[i] + kappa * (cur[i - 1] - 2 * cur[i] + cur[i + 1]);
        double *tmp = cur;
        cur = nxt;
        nxt = tmp;
    }
    double s = 0;
    for (int i = 0; i < n; i++)
        s += cur[i] * cur[i];
    free(u);
    free(v);
    return s;
}

/* log det A = 2 sum log L[j][j], A = L L^T factorised in place. */
CHAD_DIFFERENTIABLE
double cholesky(const double *a, int n) {
    double *l = malloc(n * n * sizeof *l);
    for (int i = 0; i < n * n; i++)
        l[i] = a[i];
    for (int j = 0; j < n; j++) {
        for (int k = 0; k < j; k++)
            for (int i = j; i < n; i++)
                l[i * n + j] -= l[i * n + k] * l[j * n + k];
        double d = sqrt(l[j * n + j]);
        l[j * n + j] = d;
        for (int i = j + 1; i < n; i++)
            l[i * n + j] /= d;
    }
    double s = 0;
    for (int j = 0; j < n; j++)
        s += 2 * log(l[j * n + j]);
    free(l);
    return s;
}

CHAD_DIFFERENTIABLE
static double sigmoid(double x) { return 1 / (1 + exp(-x)); }

/* One LSTM layer of width h over c steps of input x (c x h): weights w
 * (4 h: forget, input, output, candidate, each scaling its input) and b
 * (4 h); the prediction of step t is hidden[.] after step t, compared
 * with x at step t + 1. */
CHAD_DIFFERENTIABLE
double lstm(const double *w, const double *b, const double *x, int h, int c) {
    double *hidden = malloc(h * sizeof *hidden);
    double *cell = malloc(h * sizeof *cell);
    for (int i = 0; i < h; i++) {
        hidden[i] = 0;
        cell[i] = 0;
    }
    double err = 0;
    for (int t = 0; t + 1 < c; t++) {
        for (int i = 0; i < h; i++) {
            double in = x[t * h + i] + hidden[i];
            double f = sigmoid(w[i] * in + b[i]);
            double g = sigmoid(w[h + i] * in + b[h + i]);
            double o = sigmoid(w[2 * h + i] * in + b[2 * h + i]);
            double z = tanh(w[3 * h + i] * in + b[3 * h + i]);
            cell[i] = cell[i] * f + g * z;
            hidden[i] = o * tanh(cell[i]);
        }
        for (int i = 0; i < h; i++) {
            double d = hidden[i] - x[(t + 1) * h + i];
            err += d * d;
        }
    }
    free(hidden);
    free(cell);
    return err;
}

/* ------------------------------------------------------------ harness */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A problem at one size: the inputs flattened into x (the active ones),
 * the size parameters in p. */
typedef struct Problem {
    const char *name;
    int n;       /* the size shown */
    int nx;      /* active inputs */
    double *x, *g;
    double (*f)(const struct Problem *, const double *);
    double (*rev)(const struct Problem *, const double *, double *);
    long writes; /* elements f overwrites in memory it allocated */
} Problem;

static double heat_f(const Problem *p, const double *x) { return heat(x, x[p->n], p->n, p->n); }
static double heat_r(const Problem *p, const double *x, double *g) {
    double kb = 0;
    double v = heat_rev(x, g, x[p->n], &kb, p->n, p->n, 1.0);
    g[p->n] += kb;
    return v;
}
static double swap_f(const Problem *p, const double *x) { return heat_swap(x, x[p->n], p->n, p->n); }
static double swap_r(const Problem *p, const double *x, double *g) {
    double kb = 0;
    double v = heat_swap_rev(x, g, x[p->n], &kb, p->n, p->n, 1.0);
    g[p->n] += kb;
    return v;
}
static double chol_f(const Problem *p, const double *x) { return cholesky(x, p->n); }
static double chol_r(const Problem *p, const double *x, double *g) {
    return cholesky_rev(x, g, p->n, 1.0);
}
enum { LSTM_H = 16 };
static double lstm_f(const Problem *p, const double *x) {
    return lstm(x, x + 4 * LSTM_H, x + 8 * LSTM_H, LSTM_H, p->n);
}
static double lstm_r(const Problem *p, const double *x, double *g) {
    return lstm_rev(x, g, x + 4 * LSTM_H, g + 4 * LSTM_H, x + 8 * LSTM_H, g + 8 * LSTM_H,
                    LSTM_H, p->n, 1.0);
}

static unsigned long rng = 88172645463325252UL;
static double uniform(void) { /* [-1, 1) */
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2 - 1;
}

static void make(Problem *p, const char *name, int n) {
    memset(p, 0, sizeof *p);
    p->name = name;
    p->n = n;
    if (!strcmp(name, "heat")) {
        p->nx = n + 1, p->f = heat_f, p->rev = heat_r;
        p->writes = (long)n * ((n - 2) + 2 + n) + n;
    } else if (!strcmp(name, "heat-swap")) {
        p->nx = n + 1, p->f = swap_f, p->rev = swap_r;
        p->writes = (long)n * (n - 2) + 2 + n;
    } else if (!strcmp(name, "cholesky")) {
        p->nx = n * n, p->f = chol_f, p->rev = chol_r;
        p->writes = (long)n * n;
        for (int j = 0; j < n; j++)
            p->writes += (long)j * (n - j) + 1 + (n - j - 1);
    } else {
        p->nx = 8 * LSTM_H + n * LSTM_H, p->f = lstm_f, p->rev = lstm_r;
        p->writes = 2L * LSTM_H * (n - 1) + 2 * LSTM_H;
    }
    p->x = __real_malloc(sizeof(double) * (size_t)p->nx);
    p->g = __real_malloc(sizeof(double) * (size_t)p->nx);
    for (int i = 0; i < p->nx; i++)
        p->x[i] = 0.5 * uniform();
    if (!strcmp(name, "heat") || !strcmp(name, "heat-swap"))
        p->x[n] = 0.2; /* kappa: stable below 0.5 */
    if (!strcmp(name, "cholesky")) { /* A = B B^T / n + I: SPD */
        double *bm = __real_malloc(sizeof(double) * (size_t)(n * n));
        for (int i = 0; i < n * n; i++)
            bm[i] = uniform();
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double s = i == j;
                for (int k = 0; k < n; k++)
                    s += bm[i * n + k] * bm[j * n + k] / n;
                p->x[i * n + j] = s;
            }
        __real_free(bm);
    }
}

static void drop(Problem *p) {
    __real_free(p->x);
    __real_free(p->g);
}

/* Seconds per call: the median over batches of repeated calls. */
static double time_call(Problem *p, int rev, double min_batch, int batches) {
    double t[16];
    int reps = 1;
    for (;;) {
        double t0 = now();
        for (int r = 0; r < reps; r++)
            rev ? p->rev(p, p->x, p->g) : p->f(p, p->x);
        if (now() - t0 >= min_batch || reps > (1 << 24))
            break;
        reps *= 2;
    }
    for (int b = 0; b < batches; b++) {
        double t0 = now();
        for (int r = 0; r < reps; r++)
            rev ? p->rev(p, p->x, p->g) : p->f(p, p->x);
        t[b] = (now() - t0) / reps;
    }
    for (int i = 1; i < batches; i++) /* insertion sort, then the median */
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            double s = t[j];
            t[j] = t[j - 1];
            t[j - 1] = s;
        }
    return t[batches / 2];
}

/* The arrays and undo log a reverse sweep keeps for the next call (DESIGN
 * 8.42, 8.58), freed: the generated runtime is part of this translation
 * unit. Measured cold, f_rev allocates its whole tape; a leak is what it
 * keeps besides. */
static void drop_kept_log(void) { chad__spares_free(); }

/* f_rev's value is f's, its gradient matches central differences, and it
 * frees what it allocates. */
static int check(Problem *p) {
    int bad = 0;
    memset(p->g, 0, sizeof(double) * (size_t)p->nx);
    drop_kept_log();
    long a0 = mem.allocs, f0 = mem.frees;
    double v = p->rev(p, p->x, p->g), want = p->f(p, p->x);
    drop_kept_log();
    if (v != want) {
        printf("FAIL %s n=%d: f_rev value %.17g, f %.17g\n", p->name, p->n, v, want);
        bad++;
    }
    if (mem.allocs - a0 != mem.frees - f0) {
        printf("FAIL %s n=%d: f_rev leaks %ld blocks\n", p->name, p->n, (mem.allocs - a0) - (mem.frees - f0));
        bad++;
    }
    for (int i = 0; i < p->nx; i += 1 + p->nx / 25) {
        double keep = p->x[i], h = 1e-6 * (1 + fabs(keep));
        p->x[i] = keep + h;
        double up = p->f(p, p->x);
        p->x[i] = keep - h;
        double down = p->f(p, p->x);
        p->x[i] = keep;
        double fd = (up - down) / (2 * h);
        if (!(fabs(p->g[i] - fd) <= 1e-5 * (1 + fabs(fd)))) {
            printf("FAIL %s n=%d: d/dx[%d] %.10g, finite differences %.10g\n", p->name, p->n, i,
                   p->g[i], fd);
            bad++;
        }
    }
    return bad;
}

int main(int argc, char **argv) {
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    static const char *const names[] = {"heat", "heat-swap", "cholesky", "lstm"};
    static const int sizes[4][4] = {
        {50, 100, 200, 400}, {50, 100, 200, 400}, {25, 50, 100, 200}, {64, 256, 1024, 4096}};
    int nsizes = quick ? 2 : 4, batches = quick ? 3 : 9, bad = 0, verdicts = 0;
    double min_batch = quick ? 2e-3 : 2e-2;
    printf("time(f_rev) / time(f), median of %d batches of >= %g ms; bytes f_rev allocates\n\n",
           batches, 1e3 * min_batch);
    printf("%-9s %6s %12s %12s %7s %14s %10s %9s\n", "problem", "n", "f (s)", "f_rev (s)", "ratio",
           "f_rev bytes", "writes", "B/write");
    for (int k = 0; k < 4; k++) {
        double lo = INFINITY, hi = 0;
        for (int s = 0; s < nsizes; s++) {
            Problem p;
            make(&p, names[k], sizes[k][s]);
            if (s == 0)
                bad += check(&p);
            size_t b0 = mem.bytes;
            p.f(&p, p.x);
            size_t fb = mem.bytes - b0;
            drop_kept_log();
            b0 = mem.bytes;
            p.rev(&p, p.x, p.g);
            size_t rb = mem.bytes - b0;
            double tf = time_call(&p, 0, min_batch, batches);
            double tr = time_call(&p, 1, min_batch, batches);
            double ratio = tr / tf;
            lo = fmin(lo, ratio), hi = fmax(hi, ratio);
            long extra = (long)rb - (long)fb;
            printf("%-9s %6d %12.3e %12.3e %7.2f %14ld %10ld %9.1f\n", p.name, p.n, tf, tr, ratio, extra,
                   p.writes, (double)extra / (double)p.writes);
            fflush(stdout);
            drop(&p);
        }
        int below = hi < 5, flat = hi / lo < 2;
        printf("%-9s ratio below 5 at every size: %s; max/min across sizes %.2f below 2: %s\n\n", names[k],
               below ? "yes" : "no", hi / lo, flat ? "yes" : "no");
        verdicts += !below + !flat;
    }
    if (bad)
        printf("%d checks failed\n", bad);
    return bad || (!quick && verdicts) ? 1 : 0;
}
