/* ba.c: the BA rows of adbench (ADBENCH-SPEC.md section 2): ADBench's
 * sparse Jacobian of the residuals, in CSR form, built block by block (a
 * 2 x 15 block per observation, one entry per weight row), the building of
 * the CSR structure included in the time as in ADBench. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adbench.h"
#include "symbols.h"

struct ba {
    int n, m, p;
    double *cams, *X, *w, *feats, *reproj, *werr;
    int *obs;
};

struct csr {
    int nrows, ncols, nnz;
    int *rows, *cols;
    double *vals;
};

static void *xmalloc(size_t size) {
    void *p = malloc(size ? size : 1);
    if (!p) {
        fprintf(stderr, "adbench: out of memory\n");
        exit(1);
    }
    return p;
}

/* The replicated description (spec 2.5): one camera, point, weight and
 * feature copied to all; observation i uses camera i mod n, point i mod m. */
static void expand(struct ba *b, const double *cam, const double *X, double w, const double *feat) {
    b->cams = xmalloc(sizeof(double) * 11 * (size_t)b->n);
    b->X = xmalloc(sizeof(double) * 3 * (size_t)b->m);
    b->w = xmalloc(sizeof(double) * (size_t)b->p);
    b->feats = xmalloc(sizeof(double) * 2 * (size_t)b->p);
    b->obs = xmalloc(sizeof(int) * 2 * (size_t)b->p);
    b->reproj = xmalloc(sizeof(double) * 2 * (size_t)b->p);
    b->werr = xmalloc(sizeof(double) * (size_t)b->p);
    for (int i = 0; i < b->n; i++)
        memcpy(b->cams + 11 * i, cam, 11 * sizeof(double));
    for (int i = 0; i < b->m; i++)
        memcpy(b->X + 3 * i, X, 3 * sizeof(double));
    for (int i = 0; i < b->p; i++) {
        b->w[i] = w;
        b->feats[2 * i] = feat[0], b->feats[2 * i + 1] = feat[1];
        b->obs[2 * i] = i % b->n, b->obs[2 * i + 1] = i % b->m;
    }
}

static int read_ba(const char *path, struct ba *b) {
    double cam[11], X[3], w, feat[2];
    int ok;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    ok = fscanf(f, "%d %d %d", &b->n, &b->m, &b->p) == 3 && b->n > 0 && b->m > 0 && b->p > 0;
    for (int i = 0; i < 11 && ok; i++)
        ok = fscanf(f, "%lf", &cam[i]) == 1;
    for (int i = 0; i < 3 && ok; i++)
        ok = fscanf(f, "%lf", &X[i]) == 1;
    ok = ok && fscanf(f, "%lf %lf %lf", &w, &feat[0], &feat[1]) == 3;
    fclose(f);
    if (ok)
        expand(b, cam, X, w, feat);
    return ok;
}

/* Without data: one random camera (a rotation of angle below 1, a centre
 * away from the point, focal length and principal point of pixel scale),
 * as ADBench's files hold. */
static void generate_ba(struct ba *b, int n, int m, int p) {
    double cam[11], X[3], w, feat[2];
    rng_seed(0x6261ULL * 1000003u + (unsigned)p);
    b->n = n, b->m = m, b->p = p;
    for (int i = 0; i < 3; i++)
        cam[i] = 0.5 * rng_uniform(), cam[3 + i] = rng_normal(), X[i] = 5 + rng_normal();
    cam[6] = 500 + 100 * rng_uniform(), cam[7] = 300 * rng_uniform(), cam[8] = 300 * rng_uniform();
    cam[9] = 1e-3 * rng_normal(), cam[10] = 1e-5 * rng_normal();
    w = rng_uniform(), feat[0] = 500 * rng_uniform(), feat[1] = 500 * rng_uniform();
    expand(b, cam, X, w, feat);
}

static void free_ba(struct ba *b) {
    free(b->cams), free(b->X), free(b->w), free(b->feats), free(b->obs), free(b->reproj), free(b->werr);
}

static void alloc_csr(struct csr *J, const struct ba *b) {
    J->nrows = 3 * b->p;
    J->ncols = 11 * b->n + 3 * b->m + b->p;
    J->rows = xmalloc(sizeof(int) * ((size_t)J->nrows + 1));
    J->cols = xmalloc(sizeof(int) * 31 * (size_t)b->p);
    J->vals = xmalloc(sizeof(double) * 31 * (size_t)b->p);
}

static void free_csr(struct csr *J) { free(J->rows), free(J->cols), free(J->vals); }

/* Rows 2i and 2i+1: the 15 columns of camera, point and weight (spec 2.4);
 * block is 2 x 15, row-major, in that column order. */
static void insert_block(struct csr *J, const struct ba *b, int i, const double *block) {
    int cam = b->obs[2 * i], pt = b->obs[2 * i + 1];
    for (int r = 0; r < 2; r++) {
        int at = J->nnz;
        for (int c = 0; c < 11; c++)
            J->cols[at + c] = 11 * cam + c;
        for (int c = 0; c < 3; c++)
            J->cols[at + 11 + c] = 11 * b->n + 3 * pt + c;
        J->cols[at + 14] = 11 * b->n + 3 * b->m + i;
        memcpy(J->vals + at, block + 15 * r, 15 * sizeof(double));
        J->nnz += 15;
        J->rows[2 * i + r + 1] = J->nnz;
    }
}

static void insert_weight(struct csr *J, const struct ba *b, int i, double d) {
    J->cols[J->nnz] = 11 * b->n + 3 * b->m + i;
    J->vals[J->nnz++] = d;
    J->rows[2 * b->p + i + 1] = J->nnz;
}

/* One tool: the 2 x 15 block of observation i, and d(1 - w^2)/dw. */
struct tool {
    void (*block)(const struct ba *b, int i, double *block);
    double (*weight)(const struct ba *b, int i);
};

static void jacobian(const struct tool *t, const struct ba *b, struct csr *J) {
    double block[30];
    J->nnz = 0;
    J->rows[0] = 0;
    for (int i = 0; i < b->p; i++) {
        t->block(b, i, block);
        insert_block(J, b, i, block);
    }
    for (int i = 0; i < b->p; i++)
        insert_weight(J, b, i, t->weight(b, i));
}

static const double *cam_of(const struct ba *b, int i) { return b->cams + 11 * b->obs[2 * i]; }
static const double *pt_of(const struct ba *b, int i) { return b->X + 3 * b->obs[2 * i + 1]; }

/* chad: two reverse sweeps per observation, as ADBench's Tapenade module */
static void chad_block(const struct ba *b, int i, double *block) {
    for (int r = 0; r < 2; r++) {
        double *row = block + 15 * r, feat_b[2] = {0, 0}, err[2], seed[2] = {r == 0, r == 1};
        memset(row, 0, 15 * sizeof(double));
        chad_compute_reproj_error_rev(cam_of(b, i), row, pt_of(b, i), row + 11, &b->w[i], row + 14,
                                      &b->feats[2 * i], feat_b, err, seed);
    }
}
static double chad_weight(const struct ba *b, int i) {
    double w_b = 0, err, seed = 1;
    chad_compute_zach_weight_error_rev(&b->w[i], &w_b, &err, &seed);
    return w_b;
}

/* hand-written (hand_ba.c): a forward and a reverse sweep per row, as chad
 * must with one seed per call; and one forward sweep per observation */
static void hand_row_block(const struct ba *b, int i, double *block) {
    for (int r = 0; r < 2; r++) {
        double *row = block + 15 * r, err[2], seed[2] = {r == 0, r == 1};
        memset(row, 0, 15 * sizeof(double));
        hand_reproj_row(cam_of(b, i), row, pt_of(b, i), row + 11, &b->w[i], row + 14, &b->feats[2 * i], err, seed);
    }
}
static void hand_shared_block(const struct ba *b, int i, double *block) {
    double err[2];
    hand_reproj_block(cam_of(b, i), pt_of(b, i), &b->w[i], &b->feats[2 * i], err, block);
}
static double hand_weight(const struct ba *b, int i) { return -2 * b->w[i]; }

static void adolc_block(const struct ba *b, int i, double *block) {
    double in[15];
    memcpy(in, cam_of(b, i), 11 * sizeof(double));
    memcpy(in + 11, pt_of(b, i), 3 * sizeof(double));
    in[14] = b->w[i];
    adolc_ba_block(10, in, block);
}
static double adolc_weight(const struct ba *b, int i) { return adolc_ba_weight(10, b->w[i]); }

/* central differences of ADBench's compute_reproj_error, ADBench's step */
static void fd_block(const struct ba *b, int i, double *block) {
    double in[15], up[2], down[2];
    memcpy(in, cam_of(b, i), 11 * sizeof(double));
    memcpy(in + 11, pt_of(b, i), 3 * sizeof(double));
    in[14] = b->w[i];
    for (int j = 0; j < 15; j++) {
        double x0 = in[j], h = cbrt(DBL_EPSILON) * fmax(fabs(x0), 1);
        in[j] = x0 + h;
        adb_compute_reproj_error(in, in + 11, in + 14, &b->feats[2 * i], up);
        in[j] = x0 - h;
        adb_compute_reproj_error(in, in + 11, in + 14, &b->feats[2 * i], down);
        in[j] = x0;
        block[j] = (up[0] - down[0]) / (2 * h);
        block[15 + j] = (up[1] - down[1]) / (2 * h);
    }
}
static double fd_weight(const struct ba *b, int i) {
    double w = b->w[i], h = cbrt(DBL_EPSILON) * fmax(fabs(w), 1), up, down, wp = w + h, wm = w - h;
    adb_compute_zach_weight_error(&wp, &up);
    adb_compute_zach_weight_error(&wm, &down);
    return (up - down) / (2 * h);
}

struct job {
    const struct tool *tool;
    const struct ba *b;
    struct csr *J;
};
static void job_obj(void *c) {
    const struct ba *b = ((struct job *)c)->b;
    adb_ba_objective(b->n, b->m, b->p, b->cams, b->X, b->w, b->obs, b->feats, b->reproj, b->werr);
}
/* chad's ba_objective_rev, one call: J^T v for the seed v (3p entries) */
struct vjp_job {
    const struct ba *b;
    const double *seed;
    double *grad, *feats_b; /* 11n + 3m + p, 2p */
};
static void job_vjp(void *c) {
    struct vjp_job *j = c;
    const struct ba *b = j->b;
    int ncols = 11 * b->n + 3 * b->m + b->p;
    memset(j->grad, 0, sizeof(double) * (size_t)ncols);
    chad_ba_objective_rev(b->n, b->m, b->p, b->cams, j->grad, b->X, j->grad + 11 * b->n, b->w,
                          j->grad + 11 * b->n + 3 * b->m, b->obs, b->feats, j->feats_b, b->reproj, j->seed,
                          b->werr, j->seed + 2 * b->p);
}

/* ba_objective as written, differentiated whole: its J^T v against the
 * transpose of chad's Jacobian times v; appends the outcome and the time
 * of one call (a multiple of the objective's) to the row's check. */
static void check_vjp(struct row *r, const struct ba *b, const struct csr *J) {
    int ncols = J->ncols;
    double *seed = xmalloc(sizeof(double) * (size_t)J->nrows), *want = xmalloc(sizeof(double) * (size_t)ncols);
    struct vjp_job job = {b, seed, xmalloc(sizeof(double) * (size_t)ncols), xmalloc(sizeof(double) * 2 * (size_t)b->p)};
    unsigned s = 12345;
    for (int i = 0; i < J->nrows; i++) {
        s = s * 1103515245u + 12345u;
        seed[i] = (double)(s >> 8) / (double)(1u << 24) - 0.5;
    }
    memset(want, 0, sizeof(double) * (size_t)ncols);
    for (int i = 0; i < J->nrows; i++)
        for (int k = J->rows[i]; k < J->rows[i + 1]; k++)
            want[J->cols[k]] += J->vals[k] * seed[i];
    job_vjp(&job);
    double rho = max_rho(want, job.grad, NULL, ncols);
    double t = median_time(job_vjp, &job);
    size_t used = strlen(r->check);
    snprintf(r->check + used, sizeof r->check - used, "; ba_objective_rev: J^T v rho %.1e, %.1f x f", rho,
             t / r->t_obj);
    if (!(rho <= TOL_EXACT)) {
        snprintf(r->check, sizeof r->check, "WRONG (ba_objective_rev: J^T v rho %.1e vs chad's J)", rho);
        adbench_failures++;
    }
    free(seed), free(want), free(job.grad), free(job.feats_b);
}

static void job_jac(void *c) {
    struct job *j = c;
    jacobian(j->tool, j->b, j->J);
}

/* The structure must be ADBench's: 3p + 1 row pointers, 31p entries. */
static int same_structure(const struct csr *a, const struct csr *b) {
    return a->nnz == b->nnz && memcmp(a->rows, b->rows, sizeof(int) * ((size_t)a->nrows + 1)) == 0 &&
           memcmp(a->cols, b->cols, sizeof(int) * (size_t)a->nnz) == 0;
}

static void tool_row(struct row *r, const struct tool *t, const struct ba *b, struct csr *J, const struct csr *ref,
                     const char *ref_name, double tol) {
    struct job job = {t, b, J};
    jacobian(t, b, J);
    if (ref && !same_structure(J, ref)) {
        snprintf(r->check, sizeof r->check, "WRONG (CSR structure differs from %s's)", ref_name);
        adbench_failures++;
    } else if (ref)
        judge(r, max_rho(ref->vals, J->vals, NULL, J->nnz), tol, ref_name);
    r->ratio = paired_ratio(job_obj, job_jac, &job, &r->t_obj, &r->t_grad);
}

/* ADOL-C in its own process (see isolated): out = t_obj, t_grad, rho
 * against the reference (-1: another structure), ratio */
struct adolc_job {
    const struct tool *tool;
    const struct ba *b;
    struct csr *J;
    const struct csr *ref;
    double tol;
};
static void adolc_measure(void *c, double *out) {
    struct adolc_job *aj = c;
    struct job job = {aj->tool, aj->b, aj->J};
    const struct ba *b = aj->b;
    adolc_ba_tape(10, cam_of(b, 0), pt_of(b, 0), b->w[0], b->feats);
    jacobian(aj->tool, b, aj->J);
    out[2] = same_structure(aj->J, aj->ref) ? max_rho(aj->ref->vals, aj->J->vals, NULL, aj->J->nnz) : -1;
    out[3] = paired_ratio(job_obj, job_jac, &job, &out[0], &out[1]);
}

static void run_size(const struct ba *b, const char *label, double x) {
    static const struct tool chad = {chad_block, chad_weight}, adolc = {adolc_block, adolc_weight},
                             fd = {fd_block, fd_weight}, hand_row = {hand_row_block, hand_weight},
                             hand_shared = {hand_shared_block, hand_weight};
    struct row base = {"ba", label, "", x, 0, -1, 0, "", 0}, r;
    struct csr J_fd, J_ref, J;
    struct job job = {NULL, b, NULL};
    const char *ref_name = NULL;
    const struct csr *ref = NULL;

    if (!adb_ba_objective) {
        r = base, r.tool = "all tools";
        snprintf(r.check, sizeof r.check, "skipped (no ADBench C at build time)");
        report(&r);
        return;
    }
    alloc_csr(&J_fd, b), alloc_csr(&J_ref, b), alloc_csr(&J, b);
    base.t_obj = median_time(job_obj, &job);
    r = base, r.tool = "objective (ADBench C)";
    snprintf(r.check, sizeof r.check, "J: %d x %d, %d non-zeros", J.nrows, J.ncols, 31 * b->p);
    report(&r);

    jacobian(&fd, b, &J_fd); /* the reference's own check */

    r = base, r.tool = "chad";
    if (chad_compute_reproj_error_rev && chad_compute_zach_weight_error_rev) {
        tool_row(&r, &chad, b, &J_ref, &J_fd, "FD", TOL_FD);
        ref = &J_ref, ref_name = "chad";
        if (chad_ba_objective_rev)
            check_vjp(&r, b, &J_ref);
    } else
        snprintf(r.check, sizeof r.check, "not yet (%s)", chad_ba_status);
    report(&r);

    /* what one seed per call costs in code written by hand, and what
     * sharing the forward sweep between the two rows gains */
    r = base, r.tool = "hand-written, per row";
    tool_row(&r, &hand_row, b, &J, ref ? ref : &J_fd, ref ? ref_name : "FD", ref ? TOL_EXACT : TOL_FD);
    report(&r);
    r = base, r.tool = "hand-written, shared forward";
    tool_row(&r, &hand_shared, b, &J, ref ? ref : &J_fd, ref ? ref_name : "FD", ref ? TOL_EXACT : TOL_FD);
    report(&r);

    r = base, r.tool = "ADOL-C";
    if (adolc_ba_tape) {
        struct adolc_job aj = {&adolc, b, &J, ref ? ref : &J_fd, ref ? TOL_EXACT : TOL_FD};
        double out[4];
        if (isolated(adolc_measure, &aj, out, 4) == 0) {
            r.t_obj = out[0], r.t_grad = out[1], r.ratio = out[3];
            if (out[2] < 0)
                snprintf(r.check, sizeof r.check, "WRONG (CSR structure differs)"), adbench_failures++;
            else
                judge(&r, out[2], aj.tol, ref ? ref_name : "FD");
        } else
            snprintf(r.check, sizeof r.check, "failed (the ADOL-C process died)"), adbench_failures++;
    } else
        snprintf(r.check, sizeof r.check, "skipped (no ADOL-C)");
    report(&r);

    r = base, r.tool = "finite differences";
    tool_row(&r, &fd, b, &J, ref, ref_name, TOL_FD);
    if (!ref)
        snprintf(r.check, sizeof r.check, "reference for the others (no chad row yet)");
    report(&r);
    free_csr(&J_fd), free_csr(&J_ref), free_csr(&J);
}

struct ba_size {
    const char *file; /* ADBench's file name, its sizes in it */
    int n, m, p;
};

void run_ba(const struct options *o) {
    static const struct ba_size full[] = {{"ba1_n49_m7776_p31843", 49, 7776, 31843},
                                          {"ba3_n161_m48126_p182072", 161, 48126, 182072},
                                          {"ba5_n257_m65132_p225911", 257, 65132, 225911},
                                          {"ba10_n1197_m126327_p563734", 1197, 126327, 563734}};
    static const struct ba_size quick[] = {{"tiny", 3, 20, 50}, {"small", 5, 40, 200}};
    const struct ba_size *sizes = o->quick ? quick : full;
    int count = o->quick ? 2 : (int)(sizeof full / sizeof full[0]);
    for (int i = 0; i < count; i++) {
        struct ba b;
        char path[4096], label[64];
        int from_file = 0;
        memset(&b, 0, sizeof b);
        if (o->data_dir) {
            snprintf(path, sizeof path, "%s/ba/%s.txt", o->data_dir, sizes[i].file);
            from_file = read_ba(path, &b);
        }
        if (!from_file)
            generate_ba(&b, sizes[i].n, sizes[i].m, sizes[i].p);
        snprintf(label, sizeof label, "%.*s p%d%s", (int)strcspn(sizes[i].file, "_"), sizes[i].file, b.p,
                 from_file ? "" : " (gen)");
        run_size(&b, label, i);
        free_ba(&b);
    }
}
