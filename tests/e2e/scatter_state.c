/* scatter_state.c: an array a loop carries, then written at indices that
 * are not the loop's counter (a scatter), then read (DESIGN 8.61). Until
 * the fifth session of 2026-11-29 f_rev lost every cotangent through such
 * an array: x_b came out 0. prefix_add: a running product written in
 * place (a loop carrying t), then t[n-1-i] += a x[i]; fused: a loop of
 * numbers and a loop filling t from x[1], which loop fusion joins (gen
 * seed 238167), then t[n-1-i] += a; after_while: a do-while loop through
 * t before them, whose reverse reads t again from the undo log, which the
 * scatter must leave alone. Checked against finite differences,
 * by forward / reverse duality and for accumulation, also under ASan. */
#include <math.h>
#include <stdlib.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
double prefix_add(const double *x, int n, double a) {
    double *t = malloc(n * sizeof *t);
    for (int i = 0; i < n; i++)
        t[i] = x[i];
    for (int i = 1; i < n; i++)
        t[i] = t[i - 1] * x[i];
    for (int i = 0; i < n; i++)
        t[n - 1 - i] += a * x[i];
    double s = 0;
    for (int j = 0; j < n; j++)
        s += t[j] * t[j];
    free(t);
    return s;
}

CHAD_DIFFERENTIABLE
double fused(const double *x, int n, double a) {
    double p = 0.5, q = 0.5;
    for (int i = 0; i < n; i++) {
        double u = p;
        p = 0.5 * q + 0.25 * x[0];
        q = q - 0.125 * u;
    }
    double *t = malloc(n * sizeof *t);
    for (int i = 0; i < n; i++)
        t[i] = x[1];
    for (int i = 0; i < n; i++)
        t[n - 1 - i] += a;
    double s = 0;
    for (int j = 0; j < n; j++)
        s += 0.5 * t[j] * t[j];
    free(t);
    return s + p * q;
}

/* a do-while loop through t (its reverse gives t back from the undo log
 * step by step and reads it), a running product, then a scatter: the
 * scatter must not add into the memory the log gives back (gen seed
 * 239222) */
CHAD_DIFFERENTIABLE
double after_while(const double *x, int n, double a) {
    double *t = malloc(n * sizeof *t);
    for (int i = 0; i < n; i++)
        t[i] = 0.5;
    int k = 0;
    do {
        t[(k + 2) % n] = 0.5 * t[k] + tanh(a * x[k] + t[(k + 1) % n]);
        k++;
    } while (k < n);
    for (int i = 1; i < n; i++)
        t[i] = 0.5 * t[i - 1] * x[i] + t[i];
    for (int i = 0; i < n; i++)
        t[(i * 3 + 1) % n] += tanh(a);
    double s = 0;
    for (int j = 0; j < n; j++)
        s += t[j] * t[j];
    free(t);
    return s;
}

GCA_WRAP_XNA(prefix_add)
GCA_WRAP_XNA(after_while)
GCA_WRAP_XNA(fused)

int main(void) {
    static const int sizes[] = {2, 3, 5, 8};
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        struct gca_n c = {sizes[s]};
        struct gca_problem p = {0};
        p.ctx = &c, p.prec = GC_DOUBLE, p.nin = c.n + 1, p.nout = 1;
        p.name = "a running product in place, then added into at n-1-i", p.f = prefix_add_w,
        p.fwd = prefix_add_wfwd, p.rev = prefix_add_wrev;
        gca_check_random(&p, 3, -1.5, 1.5);
        p.name = "a loop of numbers fused with a fill, then added into at n-1-i", p.f = fused_w,
        p.fwd = fused_wfwd, p.rev = fused_wrev;
        gca_check_random(&p, 3, -1.5, 1.5);
        p.name = "a do-while loop, a running product, then added into at 3i+1 mod n",
        p.f = after_while_w, p.fwd = after_while_wfwd, p.rev = after_while_wrev;
        gca_check_random(&p, 3, -1.5, 1.5);
    }
    return gc_summary();
}
