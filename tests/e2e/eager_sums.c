/* eager_sums.c: end-to-end test of sums whose reverse runs in the primal
 * sweep (DESIGN 8.35) and of scratch that a loop fills whole in every
 * iteration (8.17): a GMM-shaped objective written to `*err` (the sum's
 * cotangent is the seed's element 0, scaled by -1/n), with its
 * per-component terms in malloc'd, variable-length and fixed-size scratch
 * and an array made before the point loop; a sum returned through a
 * chain of operations; and scratch that is NOT filled whole (a shorter
 * loop, a fill that reads the old values), which must keep the values
 * earlier iterations left. */
#include <math.h>
#include <stdlib.h>
#include "chad.h"
#include "gradcheck.h"

enum { HEAP, VLA, FIXED };

/* One point's log-sum-exp over components of log q_k - |x - mu_k|^2 q_k / 2. */
#define MIX_BODY(TERM, KB)                                                   \
    for (int i = 0; i < n; i++) {                                            \
        for (int k = 0; k < KB; k++) {                                       \
            double s = 0;                                                    \
            for (int j = 0; j < d; j++) {                                    \
                double t = x[i * d + j] - means[k * d + j];                  \
                s += t * t;                                                  \
            }                                                                \
            TERM[k] = log(q[k]) - 0.5 * s * q[k];                            \
        }                                                                    \
        double mx = TERM[0];                                                 \
        for (int k = 1; k < KB; k++)                                         \
            if (TERM[k] > mx)                                                \
                mx = TERM[k];                                                \
        double z = 0;                                                        \
        for (int k = 0; k < KB; k++)                                         \
            z += exp(TERM[k] - mx);                                          \
        total += mx + log(z);                                                \
    }

CHAD_DIFFERENTIABLE
void mix_heap(int d, int K, int n, const double *alphas, const double *means, const double *x,
              double *err) {
    double *q = malloc(K * sizeof(double));
    for (int k = 0; k < K; k++)
        q[k] = exp(alphas[k]);
    double *term = (double *)malloc(K * sizeof(double));
    double total = 0;
    MIX_BODY(term, K)
    free(term);
    free(q);
    *err = 0.5 - total / n;
}

CHAD_DIFFERENTIABLE
void mix_vla(int d, int K, int n, const double *alphas, const double *means, const double *x,
             double *err) {
    double *q = malloc(K * sizeof(double));
    for (int k = 0; k < K; k++)
        q[k] = exp(alphas[k]);
    double term[K];
    double total = 0;
    MIX_BODY(term, K)
    free(q);
    *err = 0.5 - total / n;
}

/* K must be 3 */
CHAD_DIFFERENTIABLE
void mix_fixed(int d, int K, int n, const double *alphas, const double *means, const double *x,
               double *err) {
    double q[3];
    for (int k = 0; k < K; k++)
        q[k] = exp(alphas[k]);
    double term[3];
    double total = 0;
    MIX_BODY(term, 3)
    *err = 0.5 - total / n;
}

/* A sum of the return value's chain: -(w - 2 s) / w. */
CHAD_DIFFERENTIABLE
double chain(const double *x, int n, double w) {
    double s = w * w;
    for (int i = 0; i < n; i++)
        s += x[i] * sin(w * x[i]);
    double t = s * 2.0;
    return -((w - t) / w);
}

/* The last element is written once, before the loop; each iteration
 * fills the others: not private, the sum of sines reads a each time. */
CHAD_DIFFERENTIABLE
double stale(int K, int n, const double *x, double a) {
    double *term = malloc(K * sizeof(double));
    term[K - 1] = a;
    double total = 0;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < K - 1; k++)
            term[k] = x[i] * (k + 1);
        double z = 0;
        for (int k = 0; k < K; k++)
            z += sin(term[k]);
        total += z;
    }
    free(term);
    return total;
}

/* Each iteration's fill reads what the previous one left. */
CHAD_DIFFERENTIABLE
double cumulative(int K, int n, const double *x) {
    double term[4] = {0.1, 0.2, 0.3, 0.4};
    double total = 0;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 4; k++)
            term[k] = 0.5 * term[k] + x[i] * (k + 1);
        double z = 0;
        for (int k = 0; k < K; k++)
            z += cos(term[k]);
        total += z;
    }
    return total;
}

struct ctx { int d, K, n, kind; };

static void (*const mix_f[])(int, int, int, const double *, const double *, const double *,
                             double *) = {mix_heap, mix_vla, mix_fixed};
static void (*const mix_fwd[])(int, int, int, const double *, const double *, const double *,
                               const double *, const double *, const double *, double *,
                               double *) = {mix_heap_fwd, mix_vla_fwd, mix_fixed_fwd};
static void (*const mix_rev[])(int, int, int, const double *, double *, const double *, double *,
                               const double *, double *, double *, const double *) = {
    mix_heap_rev, mix_vla_rev, mix_fixed_rev};

static void mx_w(const double *p, double *y, void *c) {
    const struct ctx *s = c;
    int K = s->K, d = s->d;
    mix_f[s->kind](d, K, s->n, p, p + K, p + K + K * d, y);
}
static void mx_wfwd(const double *p, const double *dp, double *y, double *dy, void *c) {
    const struct ctx *s = c;
    int K = s->K, d = s->d, o = K + K * d;
    mix_fwd[s->kind](d, K, s->n, p, dp, p + K, dp + K, p + o, dp + o, y, dy);
}
static void mx_wrev(const double *p, double *pb, double *y, const double *yb, void *c) {
    const struct ctx *s = c;
    int K = s->K, d = s->d, o = K + K * d;
    mix_rev[s->kind](d, K, s->n, p, pb, p + K, pb + K, p + o, pb + o, y, yb);
}

static void ch_w(const double *p, double *y, void *c) {
    const struct ctx *s = c;
    y[0] = chain(p, s->n, p[s->n]);
}
static void ch_wfwd(const double *p, const double *dp, double *y, double *dy, void *c) {
    const struct ctx *s = c;
    y[0] = chain_fwd(p, dp, s->n, p[s->n], dp[s->n], dy);
}
static void ch_wrev(const double *p, double *pb, double *y, const double *yb, void *c) {
    const struct ctx *s = c;
    y[0] = chain_rev(p, pb, s->n, p[s->n], &pb[s->n], yb[0]);
}

static void st_w(const double *p, double *y, void *c) {
    const struct ctx *s = c;
    y[0] = stale(s->K, s->n, p, p[s->n]);
}
static void st_wfwd(const double *p, const double *dp, double *y, double *dy, void *c) {
    const struct ctx *s = c;
    y[0] = stale_fwd(s->K, s->n, p, dp, p[s->n], dp[s->n], dy);
}
static void st_wrev(const double *p, double *pb, double *y, const double *yb, void *c) {
    const struct ctx *s = c;
    y[0] = stale_rev(s->K, s->n, p, pb, p[s->n], &pb[s->n], yb[0]);
}

static void cu_w(const double *p, double *y, void *c) {
    const struct ctx *s = c;
    y[0] = cumulative(s->K, s->n, p);
}
static void cu_wfwd(const double *p, const double *dp, double *y, double *dy, void *c) {
    const struct ctx *s = c;
    y[0] = cumulative_fwd(s->K, s->n, p, dp, dy);
}
static void cu_wrev(const double *p, double *pb, double *y, const double *yb, void *c) {
    const struct ctx *s = c;
    y[0] = cumulative_rev(s->K, s->n, p, pb, yb[0]);
}

int main(void) {
    static const struct ctx sizes[] = {{1, 3, 1, HEAP}, {2, 3, 4, HEAP}, {3, 3, 5, HEAP}};
    char name[64];
    struct ctx c;
    struct gca_problem p = {0};
    p.name = name, p.ctx = &c;
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        for (int kind = HEAP; kind <= FIXED; kind++) {
            c = sizes[k];
            c.kind = kind;
            snprintf(name, sizeof name, "mix(%s) d=%d K=%d n=%d",
                     kind == HEAP ? "malloc" : kind == VLA ? "vla" : "fixed", c.d, c.K, c.n);
            p.nin = c.K + c.K * c.d + c.n * c.d, p.nout = 1;
            p.f = mx_w, p.fwd = mx_wfwd, p.rev = mx_wrev;
            gca_check_random(&p, 3, -1, 1);
        }
        c = sizes[k];
        snprintf(name, sizeof name, "chain n=%d", c.n);
        p.nin = c.n + 1, p.nout = 1;
        p.f = ch_w, p.fwd = ch_wfwd, p.rev = ch_wrev;
        gca_check_random(&p, 3, 0.5, 1.5);
        snprintf(name, sizeof name, "stale K=%d n=%d", c.K, c.n);
        p.f = st_w, p.fwd = st_wfwd, p.rev = st_wrev;
        gca_check_random(&p, 3, -1, 1);
        snprintf(name, sizeof name, "cumulative n=%d", c.n);
        p.nin = c.n;
        p.f = cu_w, p.fwd = cu_wfwd, p.rev = cu_wrev;
        gca_check_random(&p, 3, -1, 1);
    }
    return gc_summary();
}
