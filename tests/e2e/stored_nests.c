/* stored_nests.c: the outermost loop of a nest stores its steps (DESIGN
 * 8.42) when its reverse reads the arrays it carries as a step left them,
 * as LSTM's sequence loop does: each step makes a scratch vector y, which
 * the layer loop inside reads (through a pointer it moves on to the state)
 * and a later loop of the step overwrites, so the step keeps a copy of y's
 * first version where it is made. The state is an in-out array updated in
 * place by a callee through views; in `overwritten` the layer loop reads
 * y whole and single updates follow. Checked against finite differences,
 * forward/reverse duality and accumulation, with ASan/UBSan. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
void cell(int b, const double *w, double *h, const double *x) {
    double *t = malloc(b * sizeof *t); /* x read whole before h is written */
    for (int i = 0; i < b; i++)
        t[i] = w[i] * x[i];
    for (int i = 0; i < b; i++)
        h[i] = tanh(t[i] + h[i]);
    free(t);
}

CHAD_DIFFERENTIABLE
double sequence(int l, int c, int b, const double *w, double *state, const double *xs) {
    double *y = malloc(b * sizeof *y);
    double total = 0;
    for (int t = 0; t < c; t++) {
        for (int i = 0; i < b; i++)
            y[i] = xs[t * b + i] * w[i];
        const double *xp = y;
        for (int k = 0; k < l; k++) {
            cell(b, &w[k * b], &state[k * b], xp);
            xp = &state[k * b];
        }
        for (int i = 1; i < b; i++) /* in place: y's first version goes */
            y[i] += 0.25 * y[i - 1] * xp[i];
        for (int i = 0; i < b; i++)
            y[i] = 0.5 * y[i] + xp[i] * w[i] + 1;
        for (int i = 0; i < b; i++)
            total += y[i] * y[i];
    }
    free(y);
    return total;
}

/* y read whole by the layer loop, then updated in place: its memory no
 * longer holds the version the layers' reverse reads */
CHAD_DIFFERENTIABLE
double overwritten(int l, int c, int b, const double *w, double *state, const double *xs) {
    double *y = malloc(b * sizeof *y);
    double total = 0;
    for (int t = 0; t < c; t++) {
        for (int i = 0; i < b; i++)
            y[i] = xs[t * b + i] * w[i];
        for (int k = 0; k < l; k++)
            cell(b, &w[k * b], &state[k * b], y);
        y[0] *= 0.5 + state[0];
        y[b - 1] -= 0.25 * y[0];
        for (int i = 0; i < b; i++)
            total += y[i] * y[i];
    }
    free(y);
    return total;
}

enum { L = 2, C = 4, B = 3 };

/* x = (w L*B, state0 L*B, xs C*B); y = (total, state after); c: which
 * function, as its three forms */
struct fns {
    double (*f)(int, int, int, const double *, double *, const double *);
    double (*fwd)(int, int, int, const double *, const double *, double *, double *, const double *,
                  const double *, double *);
    double (*rev)(int, int, int, const double *, double *, double *, double *, const double *,
                  double *, double);
};
static void w(const double *x, double *y, void *c) {
    memcpy(y + 1, x + L * B, L * B * sizeof *y);
    y[0] = ((const struct fns *)c)->f(L, C, B, x, y + 1, x + 2 * L * B);
}
static void w_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    memcpy(y + 1, x + L * B, L * B * sizeof *y), memcpy(dy + 1, dx + L * B, L * B * sizeof *dy);
    y[0] = ((const struct fns *)c)->fwd(L, C, B, x, dx, y + 1, dy + 1, x + 2 * L * B, dx + 2 * L * B,
                                        &dy[0]);
}
static void w_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    double sb[L * B];
    memcpy(y + 1, x + L * B, L * B * sizeof *y), memcpy(sb, yb + 1, sizeof sb);
    y[0] = ((const struct fns *)c)->rev(L, C, B, x, xb, y + 1, sb, x + 2 * L * B, xb + 2 * L * B, yb[0]);
    for (int i = 0; i < L * B; i++)
        xb[L * B + i] += sb[i];
}

int main(void) {
    static const struct fns seq = {sequence, sequence_fwd, sequence_rev};
    static const struct fns over = {overwritten, overwritten_fwd, overwritten_rev};
    struct gca_problem p = {0};
    p.name = "sequence", p.nin = 2 * L * B + C * B, p.nout = 1 + L * B;
    p.f = w, p.fwd = w_fwd, p.rev = w_rev, p.ctx = (void *)&seq;
    gca_check_random(&p, 4, -1, 1);
    p.name = "overwritten", p.ctx = (void *)&over;
    gca_check_random(&p, 4, -1, 1);
    return gc_summary();
}
