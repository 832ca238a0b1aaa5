/* arr_pairs.c: end-to-end test of a double loop over pairs i < j: the inner
 * loop's lower bound depends on the outer index.  A Coulomb-like energy
 * (1/|x_i - x_j|, through fabs) plus a spring term (x_i - x_j)^2; each x_i
 * receives adjoint contributions from both loop positions. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
double pair_energy(const double *x, int n) {
    double e = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double d = x[i] - x[j];
            e += 1 / fabs(d) + 0.1 * d * d;
        }
    return e;
}

/* Points in the plane: x = (px[0], py[0], px[1], ...); the sum of all
 * pairwise distances (a double loop reading two elements per point). */
CHAD_DIFFERENTIABLE
double pair_dist(const double *p, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double dx = p[2 * i] - p[2 * j], dy = p[2 * i + 1] - p[2 * j + 1];
            s += sqrt(dx * dx + dy * dy);
        }
    return s;
}

struct ctx { int n; };
#define N(c) (((const struct ctx *)(c))->n)

static void pe_w(const double *x, double *y, void *c) { y[0] = pair_energy(x, N(c)); }
static void pe_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = pair_energy_fwd(x, dx, N(c), &dy[0]);
}
static void pe_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = pair_energy_rev(x, xb, N(c), yb[0]);
}
static void pd_w(const double *x, double *y, void *c) { y[0] = pair_dist(x, N(c)); }
static void pd_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = pair_dist_fwd(x, dx, N(c), &dy[0]);
}
static void pd_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = pair_dist_rev(x, xb, N(c), yb[0]);
}

int main(void) {
    static const int sizes[] = {2, 3, 9};
    char name[64];
    unsigned k;
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        struct ctx c;
        struct gca_problem p = {0};
        double pts[3 * 2 * 9];
        int i, q;
        c.n = sizes[k];
        p.name = name, p.ctx = &c, p.nout = 1;
        /* Well separated, in shuffled order: x_i near 2 * ((5 i) mod n). */
        gca_random(pts, 3 * c.n, -0.4, 0.4);
        for (q = 0; q < 3; q++)
            for (i = 0; i < c.n; i++)
                pts[q * c.n + i] += 2.0 * ((5 * i + q) % c.n);
        snprintf(name, sizeof name, "pair_energy n=%d", c.n);
        p.nin = c.n, p.f = pe_w, p.fwd = pe_wfwd, p.rev = pe_wrev;
        gca_check(&p, 3, pts);
        snprintf(name, sizeof name, "pair_dist n=%d", c.n);
        p.nin = 2 * c.n, p.f = pd_w, p.fwd = pd_wfwd, p.rev = pd_wrev;
        gca_random(pts, 3 * 2 * c.n, -2, 2);
        gca_check(&p, 3, pts);
    }
    return gc_summary();
}
