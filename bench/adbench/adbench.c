/* adbench: ADBench's GMM, BA and LSTM (github.com/microsoft/ADBench; the
 * problems as in its paper, Srajer, Kukelova and Fitzgibbon 2018) benchmarked
 * side by side in one process: ADBench's plain-C objective, chad's
 * derivative of that same source, chad's own GMM port (examples/gmm.c),
 * ADOL-C taping the same source, and central finite differences.  Each row
 * is time(derivative) / time(ADBench's objective), medians of repeated
 * runs, and every derivative is checked (issue 10).
 *
 * usage: adbench [--quick] [--only LIST] [--require-chad LIST] [-d DATA_DIR] [-c C_DIR] [-o OUT_DIR]
 *   -d  ADBench's data/ layout (default: CHAD_ADBENCH_DATA of the build;
 *       "" or none: inputs of the same shapes generated with a fixed seed)
 *   -c  ADBench's plain-C sources, for the compile-time and code-size
 *       report (default: CHAD_ADBENCH_C of the build; the timed objectives
 *       are the ones compiled in at build time)
 *   -o  where the charts adbench-{gmm,ba,lstm}.png go (default: next to
 *       the program)
 *   --quick  smoke test: tiny generated inputs, every check, timings not
 *       judged, no charts or compile report
 *   --only LIST  run only these problems (`gmm`, `ba`, `lstm`, comma
 *       separated), with no charts or compile report: for measuring one
 *       problem alone on a quiet machine
 *   --require-chad LIST  with ADBench's sources at build time, fail when
 *       chad could not compile one of the problems in LIST (`gmm,ba`): the
 *       test suite's guard that the sources as written keep compiling
 * Exits 1 when a derivative disagrees (a row says WRONG). */
#define _POSIX_C_SOURCE 200809L
#include "adbench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "chart.h"
#include "symbols.h"

int adbench_failures;
static int quick_timing;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Batches of at least 20 ms (1 ms in --quick), median of 7 (3 in --quick,
 * or when one call alone takes over a second: the slow tools at the large
 * sizes would otherwise take minutes per row). */
double median_time(void (*fn)(void *), void *ctx) {
    double min_batch = quick_timing ? 1e-3 : 2e-2, t[7], start, first;
    int reps = 1, samples = quick_timing ? 3 : 7;
    start = now();
    fn(ctx); /* warm up (caches, page faults of fresh buffers) */
    first = now() - start;
    if (first > 1.0)
        samples = 3;
    for (;;) {
        start = now();
        for (int r = 0; r < reps; r++)
            fn(ctx);
        t[0] = now() - start;
        if (t[0] >= min_batch)
            break;
        reps *= 2;
    }
    t[0] /= reps;
    for (int s = 1; s < samples; s++) {
        start = now();
        for (int r = 0; r < reps; r++)
            fn(ctx);
        t[s] = (now() - start) / reps;
    }
    qsort(t, (size_t)samples, sizeof t[0], cmp_double);
    return t[samples / 2];
}

/* The repetitions that make one batch of fn last at least `least` seconds
 * (fn warmed up first), and the time of one call in that first batch. */
static int batch_reps(void (*fn)(void *), void *ctx, double least, double *per_call) {
    int reps = 1;
    fn(ctx);
    for (;;) {
        double start = now();
        for (int r = 0; r < reps; r++)
            fn(ctx);
        double t = now() - start;
        if (t >= least || t > 1.0) {
            *per_call = t / reps;
            return reps;
        }
        reps *= 2;
    }
}

static double batch(void (*fn)(void *), void *ctx, int reps) {
    double start = now();
    for (int r = 0; r < reps; r++)
        fn(ctx);
    return (now() - start) / reps;
}

double paired_ratio(void (*obj)(void *), void (*grad)(void *), void *ctx, double *t_obj, double *t_grad) {
    double least = quick_timing ? 1e-3 : 2e-2, to[7], tg[7], ratio[7], first_obj, first_grad;
    int samples = quick_timing ? 3 : 7;
    int reps_obj = batch_reps(obj, ctx, least, &first_obj);
    int reps_grad = batch_reps(grad, ctx, least, &first_grad);
    if (first_grad > 1.0)
        samples = 3;
    for (int s = 0; s < samples; s++) {
        to[s] = batch(obj, ctx, reps_obj);
        tg[s] = batch(grad, ctx, reps_grad);
        ratio[s] = tg[s] / to[s];
    }
    qsort(to, (size_t)samples, sizeof to[0], cmp_double);
    qsort(tg, (size_t)samples, sizeof tg[0], cmp_double);
    qsort(ratio, (size_t)samples, sizeof ratio[0], cmp_double);
    *t_obj = to[samples / 2];
    *t_grad = tg[samples / 2];
    return ratio[samples / 2];
}

double paired_ratio_flushed(void (*obj)(void *), void (*grad)(void *), void *ctx, double *t_obj,
                            double *t_grad) {
#if defined(__SSE2__)
    unsigned old = _mm_getcsr();
    _mm_setcsr(old | 0x8040); /* FTZ (bit 15) | DAZ (bit 6) */
    double ratio = paired_ratio(obj, grad, ctx, t_obj, t_grad);
    _mm_setcsr(old);
    return ratio;
#else
    (void)obj, (void)grad, (void)ctx, (void)t_obj, (void)t_grad;
    return -1;
#endif
}

double median_time_flushed(void (*fn)(void *), void *ctx) {
#if defined(__SSE2__)
    unsigned old = _mm_getcsr();
    _mm_setcsr(old | 0x8040); /* FTZ (bit 15) | DAZ (bit 6) */
    double t = median_time(fn, ctx);
    _mm_setcsr(old);
    return t;
#else
    (void)fn, (void)ctx;
    return -1;
#endif
}

double max_rho(const double *a, const double *b, const int *idx, int n) {
    double worst = 0;
    for (int j = 0; j < n; j++) {
        int i = idx ? idx[j] : j;
        double rho = fabs(a[i] - b[i]) / fmax(1, fabs(a[i]) + fabs(b[i]));
        if (!(rho <= worst)) /* NaN counts as the worst */
            worst = isnan(rho) ? INFINITY : rho;
    }
    return worst;
}

void judge(struct row *r, double rho, double tol, const char *against) {
    int ok = rho <= tol;
    snprintf(r->check, sizeof r->check, "%s (rho %.1e vs %s, tol %.0e)", ok ? "ok" : "WRONG", rho, against, tol);
    if (!ok)
        adbench_failures++;
}

void report(const struct row *r) {
    char tg[32] = "", ratio[32] = "";
    double q = r->ratio > 0 ? r->ratio : r->t_obj > 0 ? r->t_grad / r->t_obj : -1;
    if (r->t_grad >= 0) {
        snprintf(tg, sizeof tg, "%s%.3g", r->estimated ? "~" : "", 1e3 * r->t_grad);
        if (q > 0)
            snprintf(ratio, sizeof ratio, "%s%.2f", r->estimated ? "~" : "", q);
    }
    printf("| %s | %s | %s | %.3g | %s | %s | %s |\n", r->problem, r->size, r->tool, 1e3 * r->t_obj, tg, ratio,
           r->check);
    fflush(stdout);
    if (r->t_grad >= 0 && q > 0)
        chart_add(r->problem, r->size, r->x, r->tool, q);
}

static unsigned long long rng_state;
void rng_seed(unsigned long long s) { rng_state = s; }
/* splitmix64 */
static unsigned long long rng_next(void) {
    unsigned long long z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
double rng_uniform(void) { return (rng_next() >> 11) * 0x1.0p-53; }
double rng_normal(void) { /* Box-Muller */
    double u = rng_uniform(), v = rng_uniform();
    return sqrt(-2 * log(1 - u)) * cos(6.283185307179586 * v);
}

int isolated(void (*fn)(void *ctx, double *out), void *ctx, double *out, int n) {
    int fds[2], status;
    size_t want = sizeof(double) * (size_t)n, got = 0;
    fflush(stdout);
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(fds[0]);
        fn(ctx, out);
        _exit(write(fds[1], out, want) == (ssize_t)want ? 0 : 1);
    }
    close(fds[1]);
    while (got < want) {
        ssize_t r = read(fds[0], (char *)out + got, want - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fds[0]);
    waitpid(pid, &status, 0);
    return got == want && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int file_exists(const char *path) { return access(path, R_OK) == 0; }

/* The folder of this program, for the default output folder. */
static const char *program_dir(char *buf, size_t size) {
    ssize_t len = readlink("/proc/self/exe", buf, size - 1);
    if (len <= 0)
        return ".";
    buf[len] = 0;
    char *slash = strrchr(buf, '/');
    if (slash)
        *slash = 0;
    return buf;
}

static void compile_report(const struct options *o) {
    char cmd[8192];
    printf("\n## Compile time and code size\n\n");
    fflush(stdout);
    snprintf(cmd, sizeof cmd, "bash '%s/compile_report.sh' '%s' '%s' '%s' '%s' '%s'", ADBENCH_SCRIPT_DIR,
             ADBENCH_CLANG, ADBENCH_PLUGIN, ADBENCH_INCLUDE, o->c_dir ? o->c_dir : "", ADBENCH_EXAMPLES);
    if (system(cmd) != 0)
        printf("(the compile report failed)\n");
}

static void usage(const char *argv0) {
    fprintf(stderr, "usage: %s [--quick] [--only LIST] [--require-chad LIST] [-d DATA_DIR] [-c C_DIR] [-o OUT_DIR]\n",
            argv0);
    exit(2);
}

static void parse(int argc, char **argv, struct options *o) {
    static char dir[4096];
    o->data_dir = ADBENCH_DATA[0] ? ADBENCH_DATA : NULL;
    o->c_dir = ADBENCH_C[0] ? ADBENCH_C : NULL;
    o->out_dir = program_dir(dir, sizeof dir);
    o->quick = 0;
    o->require_chad = "";
    o->only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            o->quick = 1;
        else if (i + 1 < argc && strcmp(argv[i], "-d") == 0)
            o->data_dir = argv[++i][0] ? argv[i] : NULL;
        else if (i + 1 < argc && strcmp(argv[i], "-c") == 0)
            o->c_dir = argv[++i][0] ? argv[i] : NULL;
        else if (i + 1 < argc && strcmp(argv[i], "-o") == 0)
            o->out_dir = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--only") == 0)
            o->only = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--require-chad") == 0)
            o->require_chad = argv[++i];
        else
            usage(argv[0]);
    }
    if (o->quick)
        o->data_dir = NULL; /* tiny generated inputs: seconds, not minutes */
}

/* Is problem `name` among those --only lists (all when there is no list)? */
static int wanted(const struct options *o, const char *name) {
    size_t len = strlen(name);
    for (const char *p = o->only; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, name, len) == 0 && (p[len] == ',' || p[len] == 0))
            return 1;
    return o->only == NULL;
}

static void header(const struct options *o) {
    time_t t = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
    printf("# adbench%s, %s\n\n", o->quick ? " --quick" : "", date);
    printf("Machine: %ld cores, shared with other jobs: timings are noisy (medians of repeated runs;\n"
           "each ratio is time(derivative) / time(ADBench's plain-C objective), both measured in this process).\n",
           sysconf(_SC_NPROCESSORS_ONLN));
    printf("Inputs: %s\n", o->data_dir ? o->data_dir : "generated with a fixed seed (no data folder)");
    printf("ADBench's C sources: %s\n", adbench_have_c ? ADBENCH_C : "none at build time (rows skipped)");
    printf("Checks: rho = |a-b| / max(1, |a|+|b|), the largest over all entries; against chad's derivative "
           "when there is one (tol %.0e), else against central finite differences (tol %.0e, ADBench's "
           "tolerance for FD; on a sample of entries for the large sizes).\n",
           TOL_EXACT, TOL_FD);
    printf("'~': extrapolated from the time of a sample of finite-difference coordinates.\n\n");
    printf("| problem | size | tool | objective ms | derivative ms | ratio | check |\n");
    printf("|---|---|---|---:|---:|---:|---|\n");
}

int main(int argc, char **argv) {
    struct options o;
    parse(argc, argv, &o);
    quick_timing = o.quick;
    header(&o);
    if (wanted(&o, "gmm"))
        run_gmm(&o);
    if (wanted(&o, "ba"))
        run_ba(&o);
    if (wanted(&o, "lstm"))
        run_lstm(&o);
    if (!o.quick && !o.only) {
        chart_write_all(o.out_dir);
        compile_report(&o);
    }
    printf("\n%s\n", adbench_failures ? "FAILED: some derivatives disagree (WRONG rows)" : "all derivatives agree");
    static const struct {
        const char *name, *status;
    } problems[] = {{"gmm", chad_gmm_status}, {"ba", chad_ba_status}, {"lstm", chad_lstm_status}};
    int missing = 0;
    for (int i = 0; adbench_have_c && i < 3; i++)
        if (strstr(o.require_chad, problems[i].name) && problems[i].status[0]) {
            printf("FAILED: chad no longer compiles ADBench's %s as written: %s\n", problems[i].name,
                   problems[i].status);
            missing = 1;
        }
    return adbench_failures || missing ? 1 : 0;
}
