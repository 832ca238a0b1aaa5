/* nested_storing.c: a loop that stores its steps' residuals inside the
 * step of another storing loop, carrying arrays made in the outer step
 * (DESIGN 8.22, 8.23). The outer step's own updates save nothing (its
 * reverse reads residuals), but the inner loop's reverse reads the arrays
 * as each of its steps left them, which only the undo log gives back: the
 * inner loop's updates must save (gen seed 41823, where f_rev was wrong
 * by up to 1e-2 relative). Forms: a loop with a break in a branch (so it
 * stores rather than checkpoints), a loop with a break whose branch the
 * unswitching pass takes out, each around a loop calling callees that fill
 * and update local arrays; and double buffering through swapped pointers.
 * Checked against finite differences, by forward / reverse duality and for
 * accumulation. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
void blend(int n, const double *x, double *out) {
    for (int i = 0; i < n; i++)
        out[i] = 0.5 * x[i] + 0.25 * tanh(x[i]);
}

CHAD_DIFFERENTIABLE
void relax(int n, double *u, const double *k) {
    for (int i = 0; i < n; i++)
        u[i] = u[i] + 0.25 * k[i] * sin(u[i]);
}

/* the loop with a break inside a branch */
CHAD_DIFFERENTIABLE
double in_branch(const double *x, int n, double c) {
    double v = 0.0;
    if (n % 2 == 0) {
        v = x[0];
    } else {
        for (int j = 0; j < 3; j++) {
            double a[4], b[4];
            for (int i = 0; i < 4; i++) {
                a[i] = x[i % n] * x[(i + j) % n];
                b[i] = 0.0;
            }
            for (int s = 0; s < 2; s++) {
                blend(4, a, b);
                blend(4, b, a);
            }
            v += tanh(x[n - 1] + a[0] + a[3]);
            if (c > 0.9 * j)
                break;
        }
    }
    return tanh(v + x[n - 1]);
}

/* a branch inside the loop that unswitching takes out, double buffering */
CHAD_DIFFERENTIABLE
double unswitched(const double *x, int n, double c) {
    double v = 0.0;
    for (int j = 0; j < 3; j++) {
        double w;
        if (n % 2 == 1)
            w = 0.5;
        else
            w = x[n - 1];
        double a[4], b[4];
        for (int i = 0; i < 4; i++) {
            a[i] = x[i % n] * x[0];
            b[i] = 0.0;
        }
        double *p = a, *q = b;
        for (int s = 0; s < 2; s++) {
            blend(4, p, q);
            relax(4, q, p);
            double *t = p;
            p = q;
            q = t;
        }
        v += tanh(w + p[0] + p[3]);
        if (c > 0.9 * j)
            break;
    }
    return tanh(v + x[n - 1]);
}

GCA_WRAP_XNA(in_branch)
GCA_WRAP_XNA(unswitched)

int main(void) {
    static const int sizes[] = {2, 3, 4, 5};
    struct gca_n c;
    struct gca_problem p = {0};
    p.ctx = &c, p.prec = GC_DOUBLE, p.nout = 1;
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        c.n = sizes[k];
        p.nin = c.n + 1;
        p.name = "a storing loop with a break in a branch, around calls", p.f = in_branch_w,
        p.fwd = in_branch_wfwd, p.rev = in_branch_wrev;
        gca_check_random(&p, 4, -1.5, 1.5);
        p.name = "a loop unswitched on a branch, double buffering through calls",
        p.f = unswitched_w, p.fwd = unswitched_wfwd, p.rev = unswitched_wrev;
        gca_check_random(&p, 4, -1.5, 1.5);
    }
    return gc_summary();
}
