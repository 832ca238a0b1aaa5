/* lstm.c: the LSTM rows of adbench (ADBENCH-SPEC.md section 3): the full
 * gradient of the loss with respect to the main and extra parameters.  The
 * state starts from the input's state at every call, inside the timed loop
 * for the objective and for the derivatives alike (as in ADBench). */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adbench.h"
#include "symbols.h"

#define ADOLC_MAX_OPS 3e7
#define FD_FULL_SECONDS 4.0

struct lstm {
    int l, c, b, np;
    double *params;          /* main (8 l b), then extra (3 b) */
    double *state0, *state;  /* the input's state, and the one a call updates */
    double *seq, *seq_b, *state_b, *grad;
};

static void *xcalloc(size_t n) {
    void *p = calloc(n ? n : 1, sizeof(double));
    if (!p) {
        fprintf(stderr, "adbench: out of memory\n");
        exit(1);
    }
    return p;
}

static void alloc_lstm(struct lstm *s, int l, int c, int b) {
    s->l = l, s->c = c, s->b = b, s->np = 8 * l * b + 3 * b;
    s->params = xcalloc((size_t)s->np);
    s->grad = xcalloc((size_t)s->np);
    s->state0 = xcalloc(2 * (size_t)l * b);
    s->state = xcalloc(2 * (size_t)l * b);
    s->state_b = xcalloc(2 * (size_t)l * b);
    s->seq = xcalloc((size_t)c * b);
    s->seq_b = xcalloc((size_t)c * b);
}

static void free_lstm(struct lstm *s) {
    free(s->params), free(s->grad), free(s->state0), free(s->state), free(s->state_b), free(s->seq), free(s->seq_b);
}

/* ADBench's format (spec 3.4), keeping the first c characters (c at most
 * the file's): the file's parameters on a shorter sequence. */
static int read_lstm(const char *path, struct lstm *s, int c) {
    int l, cf, b, ok;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    ok = fscanf(f, "%d %d %d", &l, &cf, &b) == 3 && l > 0 && b > 0 && cf >= c;
    if (ok) {
        alloc_lstm(s, l, c, b);
        for (int i = 0; i < s->np && ok; i++)
            ok = fscanf(f, "%lf", &s->params[i]) == 1;
        for (int i = 0; i < 2 * l * b && ok; i++)
            ok = fscanf(f, "%lf", &s->state0[i]) == 1;
        for (int i = 0; i < c * b && ok; i++)
            ok = fscanf(f, "%lf", &s->seq[i]) == 1;
    }
    fclose(f);
    return ok;
}

/* Parameters and state uniform on [0, 1], random bits (spec 3.4). */
static void generate_lstm(struct lstm *s, int l, int c, int b) {
    alloc_lstm(s, l, c, b);
    rng_seed(0x6c73746dULL * 1000003u + (unsigned)(l * 100000 + c));
    for (int i = 0; i < s->np; i++)
        s->params[i] = rng_uniform();
    for (int i = 0; i < 2 * l * b; i++)
        s->state0[i] = rng_uniform();
    for (int i = 0; i < c * b; i++)
        s->seq[i] = rng_uniform() < 0.5;
}

static double *main_p(struct lstm *s) { return s->params; }
static double *extra_p(struct lstm *s) { return s->params + 8 * s->l * s->b; }

static void reset_state(struct lstm *s) { memcpy(s->state, s->state0, sizeof(double) * 2 * (size_t)s->l * s->b); }

static double objective(struct lstm *s) {
    double loss;
    reset_state(s);
    adb_lstm_objective(s->l, s->c, s->b, main_p(s), extra_p(s), s->state, s->seq, &loss);
    return loss;
}

static void grad_chad(struct lstm *s) {
    double loss, seed = 1;
    reset_state(s);
    memset(s->grad, 0, sizeof(double) * (size_t)s->np);
    memset(s->state_b, 0, sizeof(double) * 2 * (size_t)s->l * s->b);
    memset(s->seq_b, 0, sizeof(double) * (size_t)s->c * s->b);
    chad_lstm_objective_rev(s->l, s->c, s->b, main_p(s), s->grad, extra_p(s), s->grad + 8 * s->l * s->b, s->state,
                            s->state_b, s->seq, s->seq_b, &loss, &seed);
}

static void grad_adolc(struct lstm *s) { adolc_lstm_gradient(20, s->np, s->params, s->grad); }

static void grad_fd(struct lstm *s) {
    for (int i = 0; i < s->np; i++) {
        double x0 = s->params[i], h = cbrt(DBL_EPSILON) * fmax(fabs(x0), 1), up, down;
        s->params[i] = x0 + h;
        up = objective(s);
        s->params[i] = x0 - h;
        down = objective(s);
        s->params[i] = x0;
        s->grad[i] = (up - down) / (2 * h);
    }
}

static void job_obj(void *c) { (void)objective(c); }
static void job_chad(void *c) { grad_chad(c); }
static void job_adolc(void *c) { grad_adolc(c); }
static void job_fd(void *c) { grad_fd(c); }

/* ADOL-C in its own process (see isolated): out = t_obj, t_grad, rho, ratio */
struct adolc_job {
    struct lstm *s;
    const double *ref;
};
static void adolc_measure(void *c, double *out) {
    struct adolc_job *aj = c;
    struct lstm *s = aj->s;
    adolc_lstm_tape(20, s->l, s->c, s->b, s->params, s->state0, s->seq);
    grad_adolc(s);
    out[2] = max_rho(s->grad, aj->ref, NULL, s->np);
    out[3] = paired_ratio(job_obj, job_adolc, s, &out[0], &out[1]);
}

static double *copy_grad(const struct lstm *s) {
    double *g = malloc(sizeof(double) * (size_t)s->np);
    memcpy(g, s->grad, sizeof(double) * (size_t)s->np);
    return g;
}

/* hand_lstm.c's lstm_model reverse against chad's, on this size's first
 * layer (weights, biases, state) and a made-up input and seeds: every
 * output and adjoint, rho; appended to the chad row's check */
static void check_hand_model(struct row *r, struct lstm *s) {
    int b = s->b;
    double *m = xcalloc(26 * (size_t)b), rho; /* 4b + 4b + 4b + 4b, then ten of b */
    double *w_b[2] = {m, m + 4 * b}, *bias_b[2] = {m + 8 * b, m + 12 * b}, *hidden[2] = {m + 16 * b, m + 17 * b},
           *hidden_b[2] = {m + 18 * b, m + 19 * b}, *cell[2] = {m + 20 * b, m + 21 * b},
           *cell_b[2] = {m + 22 * b, m + 23 * b}, *input_b[2] = {m + 24 * b, m + 25 * b};
    double *input = xcalloc((size_t)b);
    rng_seed(0x68616e64ULL + (unsigned)b);
    for (int i = 0; i < b; i++) {
        input[i] = rng_normal();
        hidden[0][i] = hidden[1][i] = s->state0[i];
        cell[0][i] = cell[1][i] = s->state0[b + i];
        hidden_b[0][i] = hidden_b[1][i] = rng_normal();
        cell_b[0][i] = cell_b[1][i] = rng_normal();
    }
    for (int t = 0; t < 2; t++)
        (t ? hand_lstm_model_rev : chad_lstm_model_rev)(b, main_p(s), w_b[t], main_p(s) + 4 * b, bias_b[t],
                                                         hidden[t], hidden_b[t], cell[t], cell_b[t], input,
                                                         input_b[t]);
    /* the two halves of m, entry by entry: [0, 16b) weights and biases,
     * then pairs of b-blocks for hidden, hidden_b, cell, cell_b, input_b */
    rho = fmax(max_rho(m, m + 4 * b, NULL, 4 * b), max_rho(m + 8 * b, m + 12 * b, NULL, 4 * b));
    for (int k = 16; k < 26; k += 2)
        rho = fmax(rho, max_rho(m + k * b, m + (k + 1) * b, NULL, b));
    size_t used = strlen(r->check);
    if (rho > TOL_EXACT) {
        snprintf(r->check, sizeof r->check, "WRONG (hand-written lstm_model reverse: rho %.1e vs chad's)", rho);
        adbench_failures++;
    } else
        snprintf(r->check + used, sizeof r->check - used, "; hand-written lstm_model reverse: rho %.1e", rho);
    free(m), free(input);
}

static void run_size(struct lstm *s, const char *label, double x) {
    struct row base = {"lstm", label, "", x, 0, -1, 0, "", 0}, r;
    double *fd, *ref = NULL;

    if (!adb_lstm_objective) {
        r = base, r.tool = "all tools";
        snprintf(r.check, sizeof r.check, "skipped (no ADBench C at build time)");
        report(&r);
        return;
    }
    base.t_obj = median_time(job_obj, s);
    r = base, r.tool = "objective (ADBench C)";
    snprintf(r.check, sizeof r.check, "%d unknowns, loss %.8g", s->np, objective(s));
    report(&r);

    grad_fd(s);
    fd = copy_grad(s);

    r = base, r.tool = "chad";
    if (chad_lstm_objective_rev) {
        grad_chad(s);
        ref = copy_grad(s);
        judge(&r, max_rho(ref, fd, NULL, s->np), TOL_FD, "FD");
        if (chad_lstm_model_rev)
            check_hand_model(&r, s);
        r.ratio = paired_ratio(job_obj, job_chad, s, &r.t_obj, &r.t_grad);
    } else
        snprintf(r.check, sizeof r.check, "not yet (%s)", chad_lstm_status);
    report(&r);

    r = base, r.tool = "ADOL-C";
    if (!adolc_lstm_tape)
        snprintf(r.check, sizeof r.check, "skipped (no ADOL-C)");
    else if (adolc_lstm_ops(s->l, s->c, s->b) > ADOLC_MAX_OPS)
        snprintf(r.check, sizeof r.check, "skipped (tape of ~%.0e operations)", adolc_lstm_ops(s->l, s->c, s->b));
    else {
        struct adolc_job aj = {s, ref ? ref : fd};
        double out[4];
        if (isolated(adolc_measure, &aj, out, 4) == 0) {
            r.t_obj = out[0], r.t_grad = out[1], r.ratio = out[3];
            judge(&r, out[2], ref ? TOL_EXACT : TOL_FD, ref ? "chad" : "FD");
        } else
            snprintf(r.check, sizeof r.check, "failed (the ADOL-C process died)"), adbench_failures++;
    }
    report(&r);

    r = base, r.tool = "finite differences";
    if (2.0 * s->np * base.t_obj <= FD_FULL_SECONDS) {
        r.t_grad = median_time(job_fd, s);
        if (ref)
            judge(&r, max_rho(ref, fd, NULL, s->np), TOL_FD, "chad");
        else
            snprintf(r.check, sizeof r.check, "reference for the others (no chad row yet)");
    } else
        snprintf(r.check, sizeof r.check, "not timed (over %.0f s per gradient)", FD_FULL_SECONDS);
    report(&r);
    free(fd), free(ref);
}

struct lstm_size {
    int l, c, file_c; /* file_c: the data file that holds this size's parameters */
};

void run_lstm(const struct options *o) {
    static const struct lstm_size full[] = {
        {2, 256, 1024}, {2, 1024, 1024}, {4, 1024, 1024}, {2, 4096, 4096}, {4, 4096, 4096}};
    static const struct lstm_size quick[] = {{1, 8, 0}, {2, 20, 0}};
    const struct lstm_size *sizes = o->quick ? quick : full;
    int count = o->quick ? 2 : (int)(sizeof full / sizeof full[0]);
    for (int i = 0; i < count; i++) {
        struct lstm s;
        char path[4096], label[64];
        int from_file = 0;
        memset(&s, 0, sizeof s);
        if (o->data_dir) {
            snprintf(path, sizeof path, "%s/lstm/lstm_l%d_c%d.txt", o->data_dir, sizes[i].l, sizes[i].file_c);
            from_file = read_lstm(path, &s, sizes[i].c);
            if (!from_file && s.params)
                free_lstm(&s), memset(&s, 0, sizeof s);
        }
        if (!from_file)
            generate_lstm(&s, sizes[i].l, sizes[i].c, 14);
        snprintf(label, sizeof label, "l%d c%d%s", s.l, s.c,
                 !from_file ? " (gen)" : sizes[i].c < sizes[i].file_c ? " (cut)" : "");
        run_size(&s, label, i);
        free_lstm(&s);
    }
}
