/* gmm.c: the GMM rows of adbench (ADBENCH-SPEC.md section 1): the gradient
 * of the log-likelihood with respect to alphas, means and icf, ordered as
 * the inputs (the points are constants). */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adbench.h"
#include "symbols.h"

/* ADOL-C tapes larger than this many operations are not recorded: about
 * 30 bytes each, and the machine is shared. */
#define ADOLC_MAX_OPS 3e7
/* Finite differences of every coordinate only while that takes at most
 * this long; beyond, a sample is timed and the time extrapolated. */
#define FD_FULL_SECONDS 2.0
#define FD_SAMPLE 24

struct gmm {
    int d, k, n, m, np;
    double gamma, c;     /* c: the Wishart constant, which the port takes as an argument */
    double *params, *x;  /* params: alphas, means, icf (contiguous) */
    double *grad, *x_b;  /* a gradient, and the adjoint of x that chad's f_rev of ADBench's code wants */
};

/* C(D, gamma, m) of the spec, 1.3 */
static double wishart_constant(int d, double gamma, int m) {
    double nu = d + m + 1, lgd = 0.25 * d * (d - 1) * log(3.14159265358979323846);
    for (int j = 1; j <= d; j++)
        lgd += lgamma(nu / 2 + (1 - j) / 2.0);
    return nu * d * (log(gamma) - 0.5 * log(2.0)) - lgd;
}

static void alloc_gmm(struct gmm *g) {
    g->np = g->k * (g->d + 1) * (g->d + 2) / 2;
    g->params = calloc((size_t)g->np, sizeof(double));
    g->grad = calloc((size_t)g->np, sizeof(double));
    g->x = calloc((size_t)g->n * g->d, sizeof(double));
    g->x_b = calloc((size_t)g->n * g->d, sizeof(double));
    if (!g->params || !g->grad || !g->x || !g->x_b) {
        fprintf(stderr, "adbench: out of memory\n");
        exit(1);
    }
}

/* ADBench's file format (spec 1.5); 0 if it cannot be read */
static int read_gmm(const char *path, struct gmm *g) {
    FILE *f = fopen(path, "r");
    int ok;
    if (!f)
        return 0;
    ok = fscanf(f, "%d %d %d", &g->d, &g->k, &g->n) == 3 && g->d > 0 && g->k > 0 && g->n > 0;
    if (ok) {
        alloc_gmm(g);
        for (int i = 0; i < g->np && ok; i++)
            ok = fscanf(f, "%lf", &g->params[i]) == 1;
        for (int i = 0; i < g->n * g->d && ok; i++)
            ok = fscanf(f, "%lf", &g->x[i]) == 1;
        ok = ok && fscanf(f, "%lf %d", &g->gamma, &g->m) == 2;
    }
    fclose(f);
    return ok;
}

/* The same shapes and distributions as ADBench's generator (spec 1.5). */
static void generate_gmm(struct gmm *g, int d, int k, int n) {
    g->d = d, g->k = k, g->n = n, g->gamma = 1, g->m = 0;
    alloc_gmm(g);
    rng_seed(0x6d6d67ULL * 1000003u + (unsigned long long)(d * 1000 + k) * 7919u + (unsigned)n);
    for (int i = 0; i < g->np; i++)
        g->params[i] = (i >= k && i < k + k * d) ? rng_uniform() : rng_normal();
    for (int i = 0; i < n * d; i++)
        g->x[i] = rng_normal();
}

static void free_gmm(struct gmm *g) {
    free(g->params), free(g->grad), free(g->x), free(g->x_b);
}

static double *alphas(struct gmm *g) { return g->params; }
static double *means(struct gmm *g) { return g->params + g->k; }
static double *icf(struct gmm *g) { return g->params + g->k + g->k * g->d; }

static double objective_adb(struct gmm *g) {
    adb_wishart w = {g->gamma, g->m};
    double err;
    adb_gmm_objective(g->d, g->k, g->n, alphas(g), means(g), icf(g), g->x, w, &err);
    return err;
}

static double objective_port(struct gmm *g) {
    return port_gmm_objective(alphas(g), means(g), icf(g), g->x, g->d, g->k, g->n, g->gamma, g->m, g->c);
}

/* The objective the other rows are measured against: ADBench's, or the
 * port's when the build had no ADBench sources. */
static double objective(struct gmm *g) { return adb_gmm_objective ? objective_adb(g) : objective_port(g); }

/* The gradients, each into g->grad, the adjoints zeroed first (the
 * contract: adjoints accumulate, the caller zeroes them). */
static void grad_chad(struct gmm *g) {
    adb_wishart w = {g->gamma, g->m}, w_b = {0, 0};
    double err, seed = 1;
    memset(g->grad, 0, sizeof(double) * (size_t)g->np);
    memset(g->x_b, 0, sizeof(double) * (size_t)g->n * g->d);
    chad_gmm_objective_rev(g->d, g->k, g->n, alphas(g), g->grad, means(g), g->grad + g->k, icf(g),
                           g->grad + g->k + g->k * g->d, g->x, g->x_b, w, &w_b, &err, &seed);
}

static void grad_port(struct gmm *g) {
    memset(g->grad, 0, sizeof(double) * (size_t)g->np);
    port_gmm_objective_rev(alphas(g), g->grad, means(g), g->grad + g->k, icf(g), g->grad + g->k + g->k * g->d,
                           g->x, g->d, g->k, g->n, g->gamma, g->m, g->c, 1.0);
}

static void grad_adolc(struct gmm *g) { adolc_gmm_gradient(1, g->np, g->params, g->grad); }

/* central difference in coordinate i, ADBench's step (spec 5.1) */
static double fd_coord(struct gmm *g, int i) {
    double x0 = g->params[i], h = cbrt(DBL_EPSILON) * fmax(fabs(x0), 1), up, down;
    g->params[i] = x0 + h;
    up = objective(g);
    g->params[i] = x0 - h;
    down = objective(g);
    g->params[i] = x0;
    return (up - down) / (2 * h);
}

/* the coordinates finite differences visit: all, or an even sample */
struct fd_plan {
    int *idx, n;
};
static struct fd_plan fd_plan(int np, int full) {
    struct fd_plan p = {malloc(sizeof(int) * (size_t)np), 0};
    int want = full ? np : FD_SAMPLE;
    for (int j = 0; j < want; j++)
        p.idx[p.n++] = (int)((long long)j * (np - 1) / (want > 1 ? want - 1 : 1));
    return p;
}

static void grad_fd(struct gmm *g, const struct fd_plan *p) {
    for (int j = 0; j < p->n; j++)
        g->grad[p->idx[j]] = fd_coord(g, p->idx[j]);
}

/* median_time's callbacks */
struct job {
    struct gmm *g;
    const struct fd_plan *plan;
};
static void job_obj(void *c) { (void)objective(((struct job *)c)->g); }
static void job_obj_port(void *c) { (void)objective_port(((struct job *)c)->g); }
static void job_chad(void *c) { grad_chad(((struct job *)c)->g); }
static void job_port(void *c) { grad_port(((struct job *)c)->g); }
static void job_adolc(void *c) { grad_adolc(((struct job *)c)->g); }
static void job_fd(void *c) { grad_fd(((struct job *)c)->g, ((struct job *)c)->plan); }

/* ADOL-C in its own process (see isolated): out = t_obj, t_grad, rho, ratio
 * against the reference (all entries) or FD (the plan's entries). */
struct adolc_job {
    struct gmm *g;
    const double *ref;
    const struct fd_plan *plan;
};
static void adolc_measure(void *c, double *out) {
    struct adolc_job *aj = c;
    struct gmm *g = aj->g;
    struct job job = {g, NULL};
    adolc_gmm_tape(1, g->d, g->k, g->n, g->params, g->x, g->gamma, g->m);
    grad_adolc(g);
    out[2] = aj->plan ? max_rho(g->grad, aj->ref, aj->plan->idx, aj->plan->n) : max_rho(g->grad, aj->ref, NULL, g->np);
    out[3] = paired_ratio(job_obj, job_adolc, &job, &out[0], &out[1]);
}

static double *copy_grad(const struct gmm *g) {
    double *c = malloc(sizeof(double) * (size_t)g->np);
    memcpy(c, g->grad, sizeof(double) * (size_t)g->np);
    return c;
}

/* One size: every tool's row. */
static void run_size(struct gmm *g, const char *label, double x) {
    struct job job = {g, NULL};
    struct row base = {"gmm", label, "", x, 0, -1, 0, "", 0};
    double *ref = NULL, *fd;
    const char *ref_name = NULL;
    struct fd_plan plan;
    int have_chad = chad_gmm_objective_rev != NULL, full_fd;

    g->c = wishart_constant(g->d, g->gamma, g->m);
    base.t_obj = median_time(job_obj, &job);

    /* finite differences first: the reference's own check */
    full_fd = 2.0 * g->np * base.t_obj <= FD_FULL_SECONDS;
    plan = fd_plan(g->np, full_fd);
    memset(g->grad, 0, sizeof(double) * (size_t)g->np);
    grad_fd(g, &plan);
    fd = copy_grad(g);

    struct row r = base;
    r.tool = adb_gmm_objective ? "objective (ADBench C)" : "objective (port: no ADBench C)";
    r.t_grad = -1;
    snprintf(r.check, sizeof r.check, "%d unknowns", g->np);
    report(&r);

    r = base, r.tool = "chad";
    if (have_chad) {
        grad_chad(g);
        ref = copy_grad(g), ref_name = "chad";
        r.ratio = paired_ratio(job_obj, job_chad, &job, &r.t_obj, &r.t_grad);
        judge(&r, max_rho(ref, fd, plan.idx, plan.n), TOL_FD, "FD");
    } else {
        snprintf(r.check, sizeof r.check, "not yet (%s)", adbench_have_c ? chad_gmm_status : "no ADBench C");
    }
    report(&r);

    /* The same two functions with subnormal numbers flushed to zero: at
     * d = 64 many exp(main_term - max) of log_sum_exp are subnormal, and
     * every operation of their reverse sweep then takes the slow path;
     * the objective meets one such number per point and component. */
    r = base, r.tool = "chad, subnormals flushed";
    if (have_chad && (r.ratio = paired_ratio_flushed(job_obj, job_chad, &job, &r.t_obj, &r.t_grad)) > 0) {
        judge(&r, max_rho(ref, g->grad, NULL, g->np), TOL_EXACT, "chad");
        report(&r);
    }

    r = base, r.tool = "chad (port)";
    if (port_gmm_objective_rev) {
        grad_port(g);
        r.ratio = paired_ratio(job_obj, job_port, &job, &r.t_obj, &r.t_grad);
        if (ref)
            judge(&r, max_rho(ref, g->grad, NULL, g->np), TOL_EXACT, ref_name);
        else {
            ref = copy_grad(g), ref_name = "chad (port)";
            judge(&r, max_rho(ref, fd, plan.idx, plan.n), TOL_FD, "FD");
        }
        if (adb_gmm_objective) {
            double t_own = median_time(job_obj_port, &job);
            size_t len = strlen(r.check);
            snprintf(r.check + len, sizeof r.check - len, "; %.2f x its own f", r.t_grad / t_own);
        }
    } else
        snprintf(r.check, sizeof r.check, "not built");
    report(&r);

    r = base, r.tool = "ADOL-C";
    if (!adolc_gmm_tape || !adb_gmm_objective)
        snprintf(r.check, sizeof r.check, "skipped (%s)", adolc_gmm_tape ? "no ADBench C" : "no ADOL-C");
    else if (adolc_gmm_ops(g->d, g->k, g->n) > ADOLC_MAX_OPS)
        snprintf(r.check, sizeof r.check, "skipped (tape of ~%.0e operations > %.0e: memory of a shared machine)",
                 adolc_gmm_ops(g->d, g->k, g->n), ADOLC_MAX_OPS);
    else {
        struct adolc_job aj = {g, ref ? ref : fd, ref ? NULL : &plan};
        double out[4];
        if (isolated(adolc_measure, &aj, out, 4) == 0) {
            r.t_obj = out[0], r.t_grad = out[1], r.ratio = out[3];
            judge(&r, out[2], ref ? TOL_EXACT : TOL_FD, ref ? ref_name : "FD");
        } else
            snprintf(r.check, sizeof r.check, "failed (the ADOL-C process died)"), adbench_failures++;
    }
    report(&r);

    r = base, r.tool = "finite differences";
    job.plan = &plan;
    r.t_grad = median_time(job_fd, &job) * g->np / plan.n;
    r.estimated = !full_fd;
    if (ref)
        judge(&r, max_rho(ref, fd, plan.idx, plan.n), TOL_FD, ref_name);
    else
        snprintf(r.check, sizeof r.check, "no reference to check against");
    report(&r);

    free(ref), free(fd), free(plan.idx);
}

struct gmm_size {
    int d, k, n;
};

static void run_one(const struct options *o, struct gmm_size s, double x) {
    struct gmm g;
    char path[4096], label[64];
    int from_file = 0;
    memset(&g, 0, sizeof g);
    if (o->data_dir) {
        snprintf(path, sizeof path, "%s/gmm/%s/gmm_d%d_K%d.txt", o->data_dir, s.n == 1000 ? "1k" : "10k", s.d, s.k);
        from_file = read_gmm(path, &g);
        if (!from_file && g.params)
            free_gmm(&g), memset(&g, 0, sizeof g);
    }
    if (!from_file)
        generate_gmm(&g, s.d, s.k, s.n);
    snprintf(label, sizeof label, "d%d K%d n%d%s", g.d, g.k, g.n, from_file ? "" : " (gen)");
    run_size(&g, label, x);
    free_gmm(&g);
}

void run_gmm(const struct options *o) {
    static const struct gmm_size full[] = {{2, 5, 1000},   {10, 25, 1000},  {20, 50, 1000}, {64, 100, 1000},
                                           {2, 5, 10000},  {10, 25, 10000}, {20, 50, 10000}};
    static const struct gmm_size quick[] = {{2, 3, 20}, {5, 4, 30}};
    const struct gmm_size *sizes = o->quick ? quick : full;
    int n = o->quick ? 2 : (int)(sizeof full / sizeof full[0]);
    for (int i = 0; i < n; i++)
        run_one(o, sizes[i], i);
}
