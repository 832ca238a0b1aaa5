/* pointer_aliases.c: end-to-end test of local pointers that point into one
 * array (DESIGN.md 8.5): written through (`double *forget = &gates[0]`,
 * ADBench's lstm_model), reassigned in a loop (`ygold = &seq[t + b]`,
 * `input = ygold`, ADBench's lstm_objective), stepped (`p++`, `p += 2`),
 * and pointers into pointers. Each is an offset into its array, so reads
 * and writes through it are those of the array, as in C. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "chad.h"
#include "gradcheck.h"

/* lstm_model's shape: parts of a malloc'd buffer named by pointers,
 * written through them, read back, and the state updated in place. */
CHAD_DIFFERENTIABLE
void gates_model(int h, const double *w, double *hidden, double *cell, const double *in) {
    double *gates = malloc(3 * h * sizeof(double));
    double *forget = &gates[0];
    double *ingate = gates + h;
    double *change = &(gates[2 * h]);
    for (int i = 0; i < h; i++) {
        forget[i] = 1 / (1 + exp(-in[i] * w[i]));
        ingate[i] = 1 / (1 + exp(-hidden[i] * w[h + i]));
        change[i] = tanh(hidden[i] * w[2 * h + i]);
    }
    for (int i = 0; i < h; i++)
        cell[i] = cell[i] * forget[i] + ingate[i] * change[i];
    for (int i = 0; i < h; i++)
        hidden[i] = tanh(cell[i]) * *(change + i);
    free(gates);
}

/* lstm_objective's walk: pointers declared without a value, reassigned in
 * the loop, one copied from the other. */
CHAD_DIFFERENTIABLE
double walk(int c, int b, const double *seq, const double *w) {
    double total = 0;
    const double *input = &seq[0];
    const double *ygold;
    for (int t = 0; t <= (c - 1) * b - 1; t += b) {
        ygold = &(seq[t + b]);
        for (int i = 0; i < b; i++)
            total += ygold[i] * sin(input[i] * w[i]);
        input = ygold;
    }
    return total;
}

/* Stepped pointers, a pointer into a pointer, writes through both into a
 * local array, and a pointer passed to a callee. */
CHAD_DIFFERENTIABLE
double dot3(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

CHAD_DIFFERENTIABLE
double stepped(int n, const double *x) {
    double buf[12];
    double *p = buf;
    for (int i = 0; i < 12; i++) {
        *p = x[i % n] * (i + 1);
        p++;
    }
    double *q = p - 6;
    double *r = q + 1;
    r[0] += q[0] * q[2];
    q -= 3;
    q[1] = cos(r[1]);
    const double *xs = x;
    double s = 0;
    for (int i = 0; i + 2 < n; i += 3) {
        s += dot3(xs, buf + i % 9);
        xs += 3;
    }
    return s + buf[4] + buf[7] * buf[3];
}

/* A pointer only read through that moves from one array into another
 * (ADBench's lstm_predict: `xp = x2;` then `xp = &s[i];`), read directly
 * and passed to a callee's input. */
CHAD_DIFFERENTIABLE
double dot2(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1]; }

CHAD_DIFFERENTIABLE
double switching(int n, const double *a, const double *b) {
    const double *p = b;
    double s = 0;
    for (int i = 0; i + 1 < n; i++) {
        s += p[0] * sin(a[i]) + dot2(p, a + i);
        p = &a[i];
    }
    return s + p[1];
}

/* memcpy and memset through a pointer into scratch. */
CHAD_DIFFERENTIABLE
double cleared(int n, const double *x) {
    double *t = calloc(n + 2, sizeof *t);
    double *p = t + 1;
    memcpy(p, x, n * sizeof *p);
    memset(p, 0, sizeof *p);
    double s = 0;
    for (int i = 0; i < n + 2; i++)
        s += t[i] * t[i] * (i + 1);
    free(t);
    return s;
}

/* pointers copied one into another and back (`q = p; ... p = q;`, as
 * structs with pointer fields copied back and forth make them): one
 * root enters the cycle, so both are aliases of it (found by tests/gen:
 * seed 1007202, refused before); written through, then read */
CHAD_DIFFERENTIABLE
double cycled(int n, const double *x) {
    double *t = malloc(n * sizeof *t);
    double *p, *q;
    p = t;
    for (int i = 0; i < n; i++)
        p[i] = x[i] * x[i];
    q = p;
    q[0] += sin(x[n - 1]);
    p = q;
    double s = 0;
    for (int i = 0; i < n; i++)
        s += p[i] * q[(i + 1) % n];
    free(t);
    return s;
}

struct ctx { int n, b; };
#define C(c) ((const struct ctx *)(c))

/* x = (w 3h, hidden h, cell h, in h), y = (hidden, cell) after */
static void gm_w(const double *x, double *y, void *c) {
    int h = C(c)->n;
    for (int i = 0; i < 2 * h; i++) y[i] = x[3 * h + i];
    gates_model(h, x, y, y + h, x + 5 * h);
}
static void gm_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int h = C(c)->n;
    for (int i = 0; i < 2 * h; i++) y[i] = x[3 * h + i], dy[i] = dx[3 * h + i];
    gates_model_fwd(h, x, dx, y, dy, y + h, dy + h, x + 5 * h, dx + 5 * h);
}
static void gm_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int h = C(c)->n;
    double sb[32];
    for (int i = 0; i < 2 * h; i++) y[i] = x[3 * h + i], sb[i] = yb[i];
    gates_model_rev(h, x, xb, y, sb, y + h, sb + h, x + 5 * h, xb + 5 * h);
    for (int i = 0; i < 2 * h; i++) xb[3 * h + i] += sb[i];
}
/* x = (seq c*b, w b) */
static void wk_w(const double *x, double *y, void *c) {
    y[0] = walk(C(c)->n, C(c)->b, x, x + C(c)->n * C(c)->b);
}
static void wk_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int o = C(c)->n * C(c)->b;
    y[0] = walk_fwd(C(c)->n, C(c)->b, x, dx, x + o, dx + o, &dy[0]);
}
static void wk_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int o = C(c)->n * C(c)->b;
    y[0] = walk_rev(C(c)->n, C(c)->b, x, xb, x + o, xb + o, yb[0]);
}
static void st_w(const double *x, double *y, void *c) { y[0] = stepped(C(c)->n, x); }
static void st_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = stepped_fwd(C(c)->n, x, dx, &dy[0]);
}
static void st_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = stepped_rev(C(c)->n, x, xb, yb[0]);
}

static void cl_w(const double *x, double *y, void *c) { y[0] = cleared(C(c)->n, x); }
static void cl_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = cleared_fwd(C(c)->n, x, dx, &dy[0]);
}
static void cl_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = cleared_rev(C(c)->n, x, xb, yb[0]);
}

static void cy_w(const double *x, double *y, void *c) { y[0] = cycled(C(c)->n, x); }
static void cy_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = cycled_fwd(C(c)->n, x, dx, &dy[0]);
}
static void cy_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = cycled_rev(C(c)->n, x, xb, yb[0]);
}

/* x = (a n, b 2) */
static void sw_w(const double *x, double *y, void *c) { y[0] = switching(C(c)->n, x, x + C(c)->n); }
static void sw_fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    int n = C(c)->n;
    y[0] = switching_fwd(n, x, dx, x + n, dx + n, &dy[0]);
}
static void sw_rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    int n = C(c)->n;
    y[0] = switching_rev(n, x, xb, x + n, xb + n, yb[0]);
}

int main(void) {
    char name[64];
    struct ctx c = {0, 0};
    struct gca_problem p = {0};
    p.name = name, p.ctx = &c;
    for (int n = 1; n <= 5; n += 2) {
        c.n = n;
        snprintf(name, sizeof name, "gates_model h=%d", n);
        p.nin = 6 * n, p.nout = 2 * n, p.f = gm_w, p.fwd = gm_fwd, p.rev = gm_rev;
        gca_check_random(&p, 3, -1, 1);
        c.n = n + 1;
        snprintf(name, sizeof name, "switching n=%d", c.n);
        p.nin = c.n + 2, p.nout = 1, p.f = sw_w, p.fwd = sw_fwd, p.rev = sw_rev;
        gca_check_random(&p, 3, -1, 1);
        c.n = n;
        snprintf(name, sizeof name, "cleared n=%d", n);
        p.nin = n, p.nout = 1, p.f = cl_w, p.fwd = cl_fwd, p.rev = cl_rev;
        gca_check_random(&p, 3, -1, 1);
        snprintf(name, sizeof name, "cycled n=%d", n);
        p.nin = n, p.nout = 1, p.f = cy_w, p.fwd = cy_fwd, p.rev = cy_rev;
        gca_check_random(&p, 3, -1, 1);
        snprintf(name, sizeof name, "stepped n=%d", n + 3);
        c.n = n + 3;
        p.nin = c.n, p.nout = 1, p.f = st_w, p.fwd = st_fwd, p.rev = st_rev;
        gca_check_random(&p, 3, -1, 1);
        for (int b = 1; b <= 3; b++) {
            c.n = n + 1, c.b = b;
            snprintf(name, sizeof name, "walk c=%d b=%d", c.n, b);
            p.nin = c.n * b + b, p.nout = 1, p.f = wk_w, p.fwd = wk_fwd, p.rev = wk_rev;
            gca_check_random(&p, 3, -1, 1);
        }
    }
    return gc_summary();
}
