/* scaled_counters.c: end-to-end test of loop conditions that compare a
 * multiple of the counter (`2*i < n`, `3*i + 1 <= n`, `i*2 - 1 < n`,
 * counting down to `2*i >= -n`), with signed, unsigned and floating
 * bounds, for bounds of every sign: the trip count must be C's. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
double scaled(const double *x, int n, double p) {
    double s = 0;
    for (int i = 0; 2 * i < n; i++)
        s += x[2 * i] * x[2 * i];
    for (int i = 0; 3 * i + 1 <= n; i++)
        s += sin(x[i]) * (i + 1);
    for (int i = 1; i * 2 - 1 < n; i++)
        s += x[i - 1] * x[i];
    for (unsigned u = 0; 2 * u < (unsigned)n + 1; u++)
        s += 0.5 * x[u] * x[u] * x[u];
    for (int j = 0; 2 * j <= p; j++)
        s += x[j] * p;
    for (int k = n; 2 * k >= -n; k--) /* n down to ceil(-n/2) */
        s += x[k + n] * (k - 1);
    for (int k = n; 3 * k > -2; k -= 2)
        s += cos(x[k + 1]) * k;
    return s;
}

struct ctx { int n; double p; };

static void sc_w(const double *x, double *y, void *c) {
    const struct ctx *s = c;
    y[0] = scaled(x, s->n, s->p);
}
static void sc_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    const struct ctx *s = c;
    y[0] = scaled_fwd(x, dx, s->n, s->p, 0.0, &dy[0]); /* p: a bound, not varied */
}
static void sc_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    const struct ctx *s = c;
    double pb = 0;
    y[0] = scaled_rev(x, xb, s->n, s->p, &pb, yb[0]);
}

/* The same sum written with the trip counts C gives, as the reference
 * for the value. */
static double reference(const double *x, int n, double p) {
    double s = 0;
    for (int i = 0; i < (n + 1) / 2 && n > 0; i++)
        s += x[2 * i] * x[2 * i];
    for (int i = 0; 3 * i + 1 <= n; i++)
        s += sin(x[i]) * (i + 1);
    for (int i = 1; 2 * i - 1 < n; i++)
        s += x[i - 1] * x[i];
    for (unsigned u = 0; u < ((unsigned)n + 2) / 2; u++)
        s += 0.5 * x[u] * x[u] * x[u];
    for (int j = 0; j <= (int)floor(p / 2); j++)
        s += x[j] * p;
    for (int k = n; k >= -(n / 2); k--)
        s += x[k + n] * (k - 1);
    for (int k = n; k >= 0; k -= 2)
        s += cos(x[k + 1]) * k;
    return s;
}

int main(void) {
    static const struct ctx sizes[] = {{0, 0.0}, {1, 1.5}, {2, 2.0}, {5, 4.9}, {6, -1.0}, {7, 6.0}};
    char name[64];
    struct ctx c;
    struct gca_problem p = {0};
    p.name = name, p.ctx = &c;
    int bad = 0;
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        c = sizes[k];
        double x[32];
        for (int i = 0; i < 32; i++)
            x[i] = 0.1 * i - 0.7;
        double got = scaled(x, c.n, c.p), want = reference(x, c.n, c.p);
        if (fabs(got - want) > 1e-12 * (1 + fabs(want))) {
            printf("FAIL value n=%d p=%g: %.17g, C gives %.17g\n", c.n, c.p, got, want);
            bad++;
        }
        snprintf(name, sizeof name, "scaled n=%d p=%g", c.n, c.p);
        p.nin = 3 * c.n + 4, p.nout = 1, p.f = sc_w, p.fwd = sc_wfwd, p.rev = sc_wrev;
        gca_check_random(&p, 3, -1, 1);
    }
    return gc_summary() || bad;
}
