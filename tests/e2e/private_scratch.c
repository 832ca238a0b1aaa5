/* private_scratch.c: end-to-end test of scratch arrays that a loop's every
 * iteration fills through a call before reading them (lower_private.cpp,
 * DESIGN 8.17), as ADBench's GMM does with `xcentered`: malloc'd and
 * fixed-size scratch, passed as `a` and as `&a[0]`, in nested for loops
 * and in a while loop, next to a per-component array the inner loop
 * writes and the outer one reads. */
#include <math.h>
#include <stdlib.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
void subtract(int d, const double *x, const double *y, double *out) {
    for (int id = 0; id < d; id++)
        out[id] = x[id] - y[id];
}

/* out = L x, L lower triangular with diagonal exp(q), row-major below it */
CHAD_DIFFERENTIABLE
void lower_times(int d, const double *q, const double *l, const double *x, double *out) {
    for (int i = 0; i < d; i++)
        out[i] = exp(q[i]) * x[i];
    int k = 0;
    for (int i = 0; i < d; i++)
        for (int j = i + 1; j < d; j++) {
            out[j] = out[j] + l[k] * x[i];
            k++;
        }
}

CHAD_DIFFERENTIABLE
double sqnorm(int n, const double *x) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] * x[i];
    return s;
}

/* A GMM-shaped objective: for each point the log-sum-exp over components
 * of -|L_k (x_i - mu_k)|^2 / 2 + alpha_k. */
CHAD_DIFFERENTIABLE
double mixture(int d, int K, int n, const double *alphas, const double *means,
               const double *qs, const double *ls, const double *x) {
    int nl = d * (d - 1) / 2;
    double *xc = malloc(d * sizeof(double));
    double Lx[6];
    double *term = malloc(K * sizeof(double));
    double total = 0;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < K; k++) {
            subtract(d, &x[i * d], &means[k * d], &xc[0]);
            lower_times(d, &qs[k * d], &ls[k * nl], xc, Lx);
            term[k] = alphas[k] - 0.5 * sqnorm(d, &Lx[0]);
        }
        double mx = term[0];
        for (int k = 1; k < K; k++)
            if (term[k] > mx)
                mx = term[k];
        double s = 0;
        for (int k = 0; k < K; k++)
            s += exp(term[k] - mx);
        total += mx + log(s);
    }
    free(term);
    free(xc);
    return total;
}

/* The same scratch in a while loop that stops on the data. */
CHAD_DIFFERENTIABLE
double walk(int d, const double *x, const double *y, int steps) {
    double *dv = malloc(d * sizeof(double));
    double acc = 0;
    int t = 0;
    while (t < steps && acc < 1e6) {
        subtract(d, &x[t * d], y, dv);
        acc += sqrt(sqnorm(d, dv) + 1.0);
        t++;
    }
    free(dv);
    return acc;
}

struct ctx { int d, K, n; };

static void mx_w(const double *p, double *y, void *c) {
    const struct ctx *s = c;
    int d = s->d, K = s->K, nl = d * (d - 1) / 2;
    const double *al = p, *mu = al + K, *q = mu + K * d, *l = q + K * d, *x = l + K * nl;
    y[0] = mixture(d, K, s->n, al, mu, q, l, x);
}
static void mx_wfwd(const double *p, const double *dp, double *y, double *dy, void *c) {
    const struct ctx *s = c;
    int d = s->d, K = s->K, nl = d * (d - 1) / 2;
    int o1 = K, o2 = o1 + K * d, o3 = o2 + K * d, o4 = o3 + K * nl;
    y[0] = mixture_fwd(d, K, s->n, p, dp, p + o1, dp + o1, p + o2, dp + o2, p + o3, dp + o3,
                       p + o4, dp + o4, &dy[0]);
}
static void mx_wrev(const double *p, double *pb, double *y, const double *yb, void *c) {
    const struct ctx *s = c;
    int d = s->d, K = s->K, nl = d * (d - 1) / 2;
    int o1 = K, o2 = o1 + K * d, o3 = o2 + K * d, o4 = o3 + K * nl;
    y[0] = mixture_rev(d, K, s->n, p, pb, p + o1, pb + o1, p + o2, pb + o2, p + o3, pb + o3,
                       p + o4, pb + o4, yb[0]);
}
static void wk_w(const double *p, double *y, void *c) {
    const struct ctx *s = c;
    y[0] = walk(s->d, p, p + s->d * s->n, s->n);
}
static void wk_wfwd(const double *p, const double *dp, double *y, double *dy, void *c) {
    const struct ctx *s = c;
    int o = s->d * s->n;
    y[0] = walk_fwd(s->d, p, dp, p + o, dp + o, s->n, &dy[0]);
}
static void wk_wrev(const double *p, double *pb, double *y, const double *yb, void *c) {
    const struct ctx *s = c;
    int o = s->d * s->n;
    y[0] = walk_rev(s->d, p, pb, p + o, pb + o, s->n, yb[0]);
}

int main(void) {
    static const struct ctx sizes[] = {{1, 1, 1}, {2, 3, 4}, {3, 2, 5}, {3, 4, 2}};
    char name[64];
    struct ctx c;
    struct gca_problem p = {0};
    p.name = name, p.ctx = &c;
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        c = sizes[k];
        int nl = c.d * (c.d - 1) / 2;
        snprintf(name, sizeof name, "mixture d=%d K=%d n=%d", c.d, c.K, c.n);
        p.nin = c.K + 2 * c.K * c.d + c.K * nl + c.n * c.d, p.nout = 1;
        p.f = mx_w, p.fwd = mx_wfwd, p.rev = mx_wrev;
        gca_check_random(&p, 3, -1, 1);
        snprintf(name, sizeof name, "walk d=%d steps=%d", c.d, c.n);
        p.nin = c.d * c.n + c.d, p.nout = 1;
        p.f = wk_w, p.fwd = wk_wfwd, p.rev = wk_wrev;
        gca_check_random(&p, 3, -1, 1);
    }
    return gc_summary();
}
