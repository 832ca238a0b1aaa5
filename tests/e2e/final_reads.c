/* final_reads.c: storing loops whose reverse reads elements again from
 * the memory the loop leaves, when no later write of the loop can change
 * them (DESIGN 8.31), and loops that look alike where a later write does,
 * which must store what they read; reads every step makes of one element
 * no step writes, hoisted before the loop (DESIGN 8.32), and one that a
 * step writes. Each against finite differences,
 * duality and accumulation. Wrong offsets or bounds in the dependence
 * test would make the traps' gradients wrong. */
#include <math.h>
#include <stdlib.h>
#include "chad.h"
#include "gradcheck.h"

/* Forward substitution in place, L unit lower triangular from x: b[k],
 * k < i, is final once step k is over (reread). */
CHAD_DIFFERENTIABLE
double forward_subst(const double *x, int n) {
    double *b = malloc(n * sizeof *b);
    for (int i = 0; i < n; i++)
        b[i] = x[n * n + i];
    for (int i = 0; i < n; i++)
        for (int k = 0; k < i; k++)
            b[i] -= 0.3 * x[i * n + k] * sin(b[k]);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += b[i] * b[i];
    free(b);
    return s;
}

/* Trap: w[n - 1 - i] is written later in the same sweep (i' = n - 1 - i)
 * and in later sweeps. */
CHAD_DIFFERENTIABLE
double mirrored(const double *x, int n) {
    double *w = malloc(n * sizeof *w);
    for (int i = 0; i < n; i++)
        w[i] = x[i];
    for (int t = 0; t < 3; t++)
        for (int i = 0; i < n; i++)
            w[i] = 0.5 * w[i] + sin(w[n - 1 - i]);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += w[i] * w[i];
    free(w);
    return s;
}

/* Trap for the row-major split: column n - j + r of row r is, for
 * r >= j, column r - j of row r + 1, which step (n - 1 - r + j, r + 1)
 * writes later; split without checking 0 <= column < n, the columns
 * (n - j + r against n - 1 - j', j' >= j) would never meet. */
CHAD_DIFFERENTIABLE
double wrapped(const double *x, int n) {
    double *l = malloc((n * n + 2 * n) * sizeof *l);
    for (int i = 0; i < n * n + 2 * n; i++)
        l[i] = x[i];
    for (int j = 0; j < n; j++)
        for (int r = 0; r < n; r++)
            l[r * n + n - 1 - j] = 0.5 * l[r * n + n - 1 - j] + sin(l[r * n + n - j + r]);
    double s = 0;
    for (int i = 0; i < n * n + 2 * n; i++)
        s += l[i] * l[i];
    free(l);
    return s;
}

/* Trap for offsets: v[2i + 1], written through the view v = w + 1, is
 * w[2i + 2], read just before; without the view's offset the write would
 * be to odd elements and the read of even ones. */
CHAD_DIFFERENTIABLE
double odd_view(const double *x, int n) {
    double *w = malloc((2 * n + 3) * sizeof *w);
    for (int i = 0; i < 2 * n + 3; i++)
        w[i] = x[i];
    for (int t = 0; t < 3; t++) {
        double *v = w + 1;
        for (int i = 0; i < n; i++)
            v[2 * i + 1] = 0.5 * v[2 * i + 1] + sin(w[2 * i + 2]);
    }
    double s = 0;
    for (int i = 0; i < 2 * n + 3; i++)
        s += w[i] * w[i];
    free(w);
    return s;
}

/* Upper half read, lower half written: the reads are final (reread). */
CHAD_DIFFERENTIABLE
double halves(const double *x, int n) {
    double *w = malloc(2 * n * sizeof *w);
    for (int i = 0; i < 2 * n; i++)
        w[i] = x[i];
    for (int t = 0; t < 3; t++)
        for (int i = 0; i < n; i++)
            w[i] = 0.5 * w[i] + cos(w[n + i] * w[i]);
    double s = 0;
    for (int i = 0; i < 2 * n; i++)
        s += w[i] * w[i];
    free(w);
    return s;
}

/* Read once before the loop (DESIGN 8.32): w[0] is the same at every
 * step, none writes it. */
CHAD_DIFFERENTIABLE
double first_fixed(const double *x, int n) {
    double *w = malloc(n * sizeof *w);
    for (int i = 0; i < n; i++)
        w[i] = x[i];
    for (int t = 0; t < 2; t++)
        for (int i = 1; i < n; i++)
            w[i] = 0.5 * w[i] + sin(w[0] * w[i]);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += w[i] * w[i];
    free(w);
    return s;
}

/* Trap: w[k] is the same element at every step, but step k writes it, so
 * the steps after it read another value. */
CHAD_DIFFERENTIABLE
double pivot(const double *x, int n) {
    double *w = malloc(n * sizeof *w);
    for (int i = 0; i < n; i++)
        w[i] = x[i];
    int k = n / 2;
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < n; i++)
            w[i] = 0.5 * w[i] + sin(w[k] * w[i]);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += w[i] * w[i];
    free(w);
    return s;
}

struct ctx { int n; };
#define CN(c) (((const struct ctx *)(c))->n)

#define SCALAR_WRAPPERS(fn, pre)                                                              \
    static void pre##_w(const double *x, double *y, void *c) { y[0] = fn(x, CN(c)); }         \
    static void pre##_fwd(const double *x, const double *dx, double *y, double *dy, void *c) { \
        y[0] = fn##_fwd(x, dx, CN(c), &dy[0]);                                                \
    }                                                                                         \
    static void pre##_rev(const double *x, double *xb, double *y, const double *yb, void *c) { \
        y[0] = fn##_rev(x, xb, CN(c), yb[0]);                                                 \
    }
SCALAR_WRAPPERS(forward_subst, fs)
SCALAR_WRAPPERS(mirrored, mi)
SCALAR_WRAPPERS(wrapped, wr)
SCALAR_WRAPPERS(odd_view, ov)
SCALAR_WRAPPERS(halves, ha)
SCALAR_WRAPPERS(first_fixed, ff)
SCALAR_WRAPPERS(pivot, pv)

int main(void) {
    char name[64];
    struct ctx c = {0};
    struct gca_problem p = {0};
    p.name = name, p.ctx = &c;
    static const int sizes[] = {1, 3, 6};
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = c.n = sizes[k];
        p.nout = 1;
        snprintf(name, sizeof name, "forward_subst n=%d", n);
        p.nin = n * n + n, p.f = fs_w, p.fwd = fs_fwd, p.rev = fs_rev;
        gca_check_random(&p, 4, -1, 1);
        snprintf(name, sizeof name, "mirrored n=%d", n);
        p.nin = n, p.f = mi_w, p.fwd = mi_fwd, p.rev = mi_rev;
        gca_check_random(&p, 4, -1, 1);
        snprintf(name, sizeof name, "wrapped n=%d", n);
        p.nin = n * n + 2 * n, p.f = wr_w, p.fwd = wr_fwd, p.rev = wr_rev;
        gca_check_random(&p, 4, -1, 1);
        snprintf(name, sizeof name, "odd_view n=%d", n);
        p.nin = 2 * n + 3, p.f = ov_w, p.fwd = ov_fwd, p.rev = ov_rev;
        gca_check_random(&p, 4, -1, 1);
        snprintf(name, sizeof name, "halves n=%d", n);
        p.nin = 2 * n, p.f = ha_w, p.fwd = ha_fwd, p.rev = ha_rev;
        gca_check_random(&p, 4, -1, 1);
        snprintf(name, sizeof name, "first_fixed n=%d", n);
        p.nin = n, p.f = ff_w, p.fwd = ff_fwd, p.rev = ff_rev;
        gca_check_random(&p, 4, -1, 1);
        snprintf(name, sizeof name, "pivot n=%d", n);
        p.nin = n, p.f = pv_w, p.fwd = pv_fwd, p.rev = pv_rev;
        gca_check_random(&p, 4, -1, 1);
    }
    return gc_summary();
}
