/* memory.c: the reverse derivative of a fold stores the loop state, and only
 * that, once per iteration, and frees it all (DESIGN.md section 5, rule 5).
 *
 * Linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free,
 * so that every allocation made by this translation unit, the code chad
 * generated included, goes through the counting wrappers below.  For folds
 * with a state of S = 1, 2 and 3 doubles run for T = 10^5 and 10^6 steps it
 * checks that
 *   - f and f_fwd allocate nothing;
 *   - one call of f_rev allocates at most c T S doubles (c = 2) plus 4 KiB,
 *     and at least T S doubles in total (the state is stored, not
 *     recomputed from the start), so bytes grow linearly with T;
 *   - f_rev frees everything it allocates: as many frees as allocations,
 *     no live bytes afterwards, once what it keeps for the next call is
 *     freed (chad__spares_free);
 *   - f_rev's value equals f's and its gradient matches central differences.
 * It prints allocations, frees, total and peak bytes per case.
 *
 * Build: clang -fplugin=build/libchad.so -Iinclude -O1 memory.c -lm \
 *            -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Each block carries its size in a 16-byte header (keeps malloc's alignment). */
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
    mem.frees++;
    mem.live -= size;
    return size;
}

void *__wrap_malloc(size_t size) { return account(__real_malloc(size + HDR), size); }

void *__wrap_calloc(size_t count, size_t size) {
    if (size && count > ((size_t)-1 - HDR) / size)
        return NULL;
    return account(__real_calloc(1, count * size + HDR), count * size);
}

void *__wrap_realloc(void *p, size_t size) {
    char *q;
    if (!p)
        return __wrap_malloc(size);
    unaccount(p);
    q = __real_realloc((char *)p - HDR, size + HDR);
    return account(q, size);
}

void __wrap_free(void *p) {
    if (!p)
        return;
    unaccount(p);
    __real_free((char *)p - HDR);
}

/* ------------------------------------------------------------ folds */

/* S = 1: the product of the elements (the state is the running product). */
CHAD_DIFFERENTIABLE
double prod(const double *x, int n) {
    double p = 1;
    for (int i = 0; i < n; i++)
        p *= x[i];
    return p;
}

/* S = 2: harmonic oscillator, explicit Euler. */
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

/* S = 3: the Lorenz system, explicit Euler. */
CHAD_DIFFERENTIABLE
double lorenz(double x, double y, double z, double h, int steps) {
    for (int t = 0; t < steps; t++) {
        double dx = 10 * (y - x), dy = x * (28 - z) - y, dz = x * y - 8.0 / 3.0 * z;
        x = x + h * dx;
        y = y + h * dy;
        z = z + h * dz;
    }
    return x + y + z;
}

/* ------------------------------------------------------------ checks */

static int failures;

static void expect(int ok, const char *what) {
    if (!ok) {
        failures++;
        printf("FAIL: %s\n", what);
    }
}

/* One case: f, f_fwd and f_rev through the closures below. */
struct fold_case {
    const char *name;
    int state; /* S, doubles carried by the loop */
    double (*f)(long T, const double *in);
    double (*fwd)(long T, const double *in, const double *din, double *dret);
    double (*rev)(long T, const double *in, double *in_b);
};

static double ode_f(long T, const double *in) { return ode(in[0], in[1], in[2], in[3], (int)T); }
static double ode_fwd_(long T, const double *in, const double *d, double *dret) {
    return ode_fwd(in[0], d[0], in[1], d[1], in[2], d[2], in[3], d[3], (int)T, dret);
}
static double ode_rev_(long T, const double *in, double *b) {
    return ode_rev(in[0], &b[0], in[1], &b[1], in[2], &b[2], in[3], &b[3], (int)T, 1.0);
}

static double lorenz_f(long T, const double *in) { return lorenz(in[0], in[1], in[2], in[3], (int)T); }
static double lorenz_fwd_(long T, const double *in, const double *d, double *dret) {
    return lorenz_fwd(in[0], d[0], in[1], d[1], in[2], d[2], in[3], d[3], (int)T, dret);
}
static double lorenz_rev_(long T, const double *in, double *b) {
    return lorenz_rev(in[0], &b[0], in[1], &b[1], in[2], &b[2], in[3], &b[3], (int)T, 1.0);
}

static void run_case(const struct fold_case *c, long T, const double *in) {
    double din[4] = {1, 0, 0, 0}, b[4] = {0, 0, 0, 0}, v, vf, vr, dret = 0;
    size_t bound = 2 * (size_t)T * c->state * sizeof(double) + 4096;
    size_t floor_ = (size_t)T * c->state * sizeof(double);
    char what[256];

    memset(&mem, 0, sizeof mem);
    v = c->f(T, in);
    vf = c->fwd(T, in, din, &dret);
    snprintf(what, sizeof what, "%s T=%ld: f and f_fwd allocate %ld blocks", c->name, T, mem.allocs);
    expect(mem.allocs == 0, what);

    chad__spares_free();
    memset(&mem, 0, sizeof mem);
    vr = c->rev(T, in, b);
    chad__spares_free(); /* the arrays and log kept for the next call (DESIGN 8.42, 8.58) */
    printf("%-7s S=%d T=%-8ld %8ld %8ld %14zu %14zu %10.2f %10.2f\n", c->name, c->state, T, mem.allocs, mem.frees,
           mem.bytes, mem.peak, (double)mem.bytes / ((double)T * c->state * sizeof(double)),
           (double)mem.peak / ((double)T * c->state * sizeof(double)));
    snprintf(what, sizeof what, "%s T=%ld: f_rev allocates %zu bytes, more than 2 T S doubles + 4 KiB = %zu", c->name,
             T, mem.bytes, bound);
    expect(mem.bytes <= bound, what);
    snprintf(what, sizeof what, "%s T=%ld: f_rev allocates %zu bytes, less than T S doubles = %zu", c->name, T,
             mem.bytes, floor_);
    expect(mem.bytes >= floor_, what);
    snprintf(what, sizeof what, "%s T=%ld: %ld allocations but %ld frees, %zu bytes live", c->name, T, mem.allocs,
             mem.frees, mem.live);
    expect(mem.allocs == mem.frees && mem.live == 0, what);
    snprintf(what, sizeof what, "%s T=%ld: values differ: f %.17g, f_fwd %.17g, f_rev %.17g", c->name, T, v, vf, vr);
    expect(v == vf && v == vr && isfinite(v), what);

    {   /* d/d(first input) by central differences, against f_rev and f_fwd */
        double p[4], h = 1e-6 * fmax(1, fabs(in[0])), up, down, fd;
        memcpy(p, in, sizeof p);
        p[0] = in[0] + h;
        up = c->f(T, p);
        p[0] = in[0] - h;
        down = c->f(T, p);
        fd = (up - down) / (2 * h);
        snprintf(what, sizeof what, "%s T=%ld: d/din0 is %.12g (f_rev), %.12g (f_fwd), %.12g (finite differences)",
                 c->name, T, b[0], dret, fd);
        expect(fabs(b[0] - fd) <= 1e-5 * fmax(1, fabs(fd)) && fabs(dret - b[0]) <= 1e-9 * fmax(1, fabs(b[0])),
               what);
    }
}

/* prod: its state is S = 1 double, and its input an array of T elements. */
static void run_prod(long T) {
    double *x = malloc(sizeof(double) * (size_t)T), *x_b = malloc(sizeof(double) * (size_t)T);
    double v, vr, dret = 0, want;
    size_t bound = 2 * (size_t)T * sizeof(double) + 4096, floor_ = (size_t)T * sizeof(double);
    char what[256];
    long i;

    if (!x || !x_b) {
        expect(0, "out of memory");
        return;
    }
    for (i = 0; i < T; i++) {
        x[i] = 1 + (double)((i % 7) - 3) * 1e-6; /* the product stays near 1 */
        x_b[i] = 0;
    }
    mem.allocs = 0;
    v = prod(x, (int)T);
    prod_fwd(x, x, (int)T, &dret);
    expect(mem.allocs == 0, "prod: f or f_fwd allocates");

    chad__spares_free();
    memset(&mem, 0, sizeof mem);
    vr = prod_rev(x, x_b, (int)T, 1.0);
    chad__spares_free(); /* the arrays and log kept for the next call (DESIGN 8.42, 8.58) */
    printf("%-7s S=%d T=%-8ld %8ld %8ld %14zu %14zu %10.2f %10.2f\n", "prod", 1, T, mem.allocs, mem.frees, mem.bytes,
           mem.peak, (double)mem.bytes / ((double)T * sizeof(double)), (double)mem.peak / ((double)T * sizeof(double)));
    snprintf(what, sizeof what, "prod T=%ld: f_rev allocates %zu bytes, outside [%zu, %zu]", T, mem.bytes, floor_,
             bound);
    expect(mem.bytes <= bound && mem.bytes >= floor_, what);
    snprintf(what, sizeof what, "prod T=%ld: %ld allocations, %ld frees, %zu bytes live", T, mem.allocs, mem.frees,
             mem.live);
    expect(mem.allocs == mem.frees && mem.live == 0, what);
    want = v / x[0]; /* d/dx0 = product of the others (no element is 0) */
    snprintf(what, sizeof what, "prod T=%ld: value %.17g (f %.17g), d/dx0 %.17g, expected %.17g", T, vr, v, x_b[0],
             want);
    expect(vr == v && fabs(x_b[0] - want) <= 1e-12 * fabs(want), what);
    free(x);
    free(x_b);
}

int main(void) {
    static const struct fold_case cases[] = {
        {"ode", 2, ode_f, ode_fwd_, ode_rev_},
        {"lorenz", 3, lorenz_f, lorenz_fwd_, lorenz_rev_},
    };
    static const double ode_in[4] = {1.0, 0.0, 1e-3, 4.0};
    static const double lorenz_in[4] = {1.0, 1.0, 1.0, 1e-6};
    static const long Ts[] = {100000, 1000000};
    unsigned k, t;

    printf("%-7s %-13s %8s %8s %14s %14s %10s %10s\n", "fold", "", "allocs", "frees", "bytes", "peak bytes",
           "bytes/8TS", "peak/8TS");
    for (t = 0; t < sizeof Ts / sizeof Ts[0]; t++) {
        run_prod(Ts[t]);
        for (k = 0; k < sizeof cases / sizeof cases[0]; k++)
            run_case(&cases[k], Ts[t], k == 0 ? ode_in : lorenz_in);
    }
    printf("%s\n", failures ? "FAILED" : "ok: f_rev stores O(T S) doubles and frees them all");
    return failures ? 1 : 0;
}
