/* struct_local_arrays.c: local arrays of structs as scratch (`Pt q[8]`),
 * which chad keeps as one local array per field (DESIGN 8.30): fields
 * written and read at run-time indices (`q[i].x = ...`, `q[i].w[k]`), a
 * struct copied whole into and out of the array (`q[j] = t`, `t = q[i]`),
 * local pointers into it walked and written through (`p->x *= a`), one
 * struct of it passed to a differentiable callee that reads it or updates
 * it (`&q[i]`, in loops), integer fields
 * as indices, structs copied in from a parameter's array of structs,
 * `sizeof` of the array and of one struct, and a struct type declared
 * with the array (`struct Acc { ... } acc[2];`), and arrays with
 * initializers (nested, designated, shorter than the array), and
 * variable-length arrays of structs (`Seg g[n]`, `Pt q[n + 1]`) and
 * arrays of structs from malloc and calloc (`Pt *q = malloc(n * sizeof
 * *q)`, freed) used the same ways. Checked against finite differences, by forward / reverse
 * duality and for accumulation. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include "chad.h"
#include "gradcheck.h"

typedef struct { double x, y; int tag; } Pt;
typedef struct { double w[3]; Pt c; } Seg;

CHAD_DIFFERENTIABLE
static double pt_norm(const Pt *p) { return p->x * p->x + sin(p->y) * (p->tag + 1); }

/* fields written and read at run-time indices, pointers into the array
 * walked and written through, one struct passed to a callee */
CHAD_DIFFERENTIABLE
double scratch(const double *x, int n, double a) {
    Pt q[8];
    for (int i = 0; i < n; i++) {
        q[i].x = x[i] * a;
        q[i].y = cos(x[i]) + a;
        q[i].tag = i % 3;
    }
    for (Pt *p = q; p < q + n; p++)
        p->x *= p->y;
    double s = 0;
    for (int i = 0; i < n; i++) {
        const Pt *p = &q[i];
        s += p->x * q[(i + 1) % n].y + pt_norm(&q[i]) * q[q[i].tag % n].x;
    }
    return s;
}

/* whole structs copied into and out of the array, nested struct and
 * fixed-array fields, a read-modify-write of a field */
CHAD_DIFFERENTIABLE
double copies(const double *x, int n, double a) {
    Seg g[6];
    for (int i = 0; i < n; i++) {
        Seg t;
        for (int k = 0; k < 3; k++)
            t.w[k] = x[i] * (k + 1) + a;
        t.c.x = exp(0.5 * x[i]);
        t.c.y = a * x[i];
        t.c.tag = i;
        g[i] = t;
    }
    for (int i = 1; i < n; i++) {
        g[i].c.x += g[i - 1].c.x * 0.5;
        g[i].w[i % 3] = g[i].w[(i + 1) % 3] * g[i - 1].c.y;
    }
    g[0] = g[n - 1];
    double s = 0;
    for (int i = 0; i < n; i++) {
        Seg t = g[i];
        s += t.w[0] * t.w[1] - t.w[2] + t.c.x * t.c.y * t.c.tag;
    }
    return s;
}

/* structs copied in from a parameter's array of structs, in reverse
 * order, then updated in place; sizeof of the array and of one struct */
CHAD_DIFFERENTIABLE
double gather(const Pt *p, int n, double a) {
    Pt q[5];
    int cap = (int)(sizeof q / sizeof q[0]);
    for (int i = 0; i < n && i < cap; i++)
        q[n - 1 - i] = p[i];
    for (int i = 1; i < n; i++)
        q[i].y = q[i].y * a + q[i - 1].x * q[i].tag;
    double s = 0;
    for (int i = 0; i < n; i++)
        s += q[i].x * tanh(q[i].y);
    return s;
}

/* a callee that reads and writes one struct of the array (&q[i]) */
CHAD_DIFFERENTIABLE
static void advance(Pt *p, double h) {
    p->x += h * p->y;
    p->y = p->y * (1 - h) + h * sin(p->x) * (p->tag + 1);
}

CHAD_DIFFERENTIABLE
double updated(const double *x, int n, double a) {
    Pt q[6];
    for (int i = 0; i < n; i++) {
        q[i].x = x[i];
        q[i].y = a;
        q[i].tag = i % 2;
    }
    for (int s = 0; s < 3; s++)
        for (int i = 0; i < n; i++)
            advance(&q[i], 0.25 * a);
    double r = 0;
    for (int i = 0; i < n; i++)
        r += q[i].x * q[i].y;
    return r;
}

/* the struct type declared in the array's declaration */
CHAD_DIFFERENTIABLE
double inline_type(const double *x, int n, double a) {
    struct Acc { double s; int count; } acc[2];
    for (int k = 0; k < 2; k++)
        acc[k].s = 0, acc[k].count = 0;
    for (int i = 0; i < n; i++) {
        struct Acc *p = &acc[x[i] > 0];
        p->s += x[i] * a;
        p->count++;
    }
    return acc[0].s * acc[1].s + acc[0].count - acc[1].count * a;
}

/* initializers: nested, designated, and shorter than the array (the rest
 * is zero, as C says) */
CHAD_DIFFERENTIABLE
double initialised(const double *x, int n, double a) {
    Seg g[3] = {{{x[0], a, 1.5}, {a * x[0], 2.0, 3}}, {.c = {.y = sin(a)}, .w[2] = x[n - 1]}};
    Pt q[4] = {{a, x[0], 1}, {.x = x[n - 1] * a}};
    double s = 0;
    for (int i = 0; i < 3; i++)
        s += g[i].w[0] * g[i].w[2] + g[i].c.x * g[i].c.tag - g[i].c.y * g[i].w[1];
    for (int i = 0; i < 4; i++)
        s += q[i].x * (q[i].y + q[i].tag) + (double)(q[i].tag == 0) * a;
    return s;
}

/* variable-length arrays of structs: fixed-array, nested and integer
 * fields, whole copies, a pointer into it, one struct passed to a callee */
CHAD_DIFFERENTIABLE
double variable(const double *x, int n, double a) {
    Seg g[n];
    Pt q[n + 1];
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++)
            g[i].w[k] = x[i] * (k + 1) - a;
        g[i].c.x = sin(x[i]);
        g[i].c.y = a * x[i];
        g[i].c.tag = i % 3;
        q[i] = g[i].c;
    }
    q[n] = q[0];
    for (int i = 0; i <= n; i++)
        advance(&q[i], 0.125 * a);
    Pt *last = &q[n];
    last->y *= a;
    double s = 0;
    for (int i = 0; i < n; i++)
        s += g[i].w[i % 3] * q[i + 1].y + q[i].x * g[n - 1 - i].c.tag + g[i].w[2] * g[i].c.x;
    return s + (double)(sizeof g / sizeof g[0]) * q[n].x;
}

/* arrays of structs from the heap: malloc and calloc, fixed-array and
 * integer fields, null tests, a pointer walked through one (and its
 * index, p - q), a callee updating one struct, whole copies between the
 * two, both freed */
CHAD_DIFFERENTIABLE
double heap(const double *x, int n, double a) {
    Pt *q = malloc((size_t)n * sizeof *q);
    Seg *g = calloc((size_t)n + 1, sizeof(Seg));
    if (!q || g == NULL)
        return 0;
    for (int i = 0; i < n; i++) {
        q[i].x = x[i] * a;
        q[i].y = exp(-x[i] * x[i]);
        q[i].tag = (i + 1) % 3;
        for (int k = 0; k < 3; k++)
            g[i + 1].w[k] = q[i].x * (k - 1);
        g[i].c = q[i];
    }
    for (Pt *p = q; p < q + n; p++)
        advance(p, 0.5 * a * x[p - q]);
    double s = g[n].w[2] + g[0].c.y;
    for (int i = 0; i < n; i++)
        s += q[i].x * g[i].c.y * q[i].tag + g[i + 1].w[0] * q[n - 1 - i].y;
    free(q);
    free(g);
    return s;
}

static void pack(Pt *p, const double *x, int n) {
    for (int i = 0; i < n; i++)
        p[i].x = x[2 * i], p[i].y = x[2 * i + 1], p[i].tag = i % 2;
}
static void gather_w(const double *x, double *y, void *c) {
    const struct gca_n *k = c;
    Pt p[5];
    pack(p, x, k->n);
    y[0] = gather(p, k->n, x[2 * k->n]);
}
static void gather_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    const struct gca_n *k = c;
    Pt p[5], dp[5];
    pack(p, x, k->n);
    pack(dp, dx, k->n);
    y[0] = gather_fwd(p, dp, k->n, x[2 * k->n], dx[2 * k->n], &dy[0]);
}
static void gather_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    const struct gca_n *k = c;
    Pt p[5], pb[5];
    pack(p, x, k->n);
    pack(pb, xb, k->n);
    y[0] = gather_rev(p, pb, k->n, x[2 * k->n], &xb[2 * k->n], yb[0]);
    for (int i = 0; i < k->n; i++) {
        xb[2 * i] = pb[i].x, xb[2 * i + 1] = pb[i].y;
        if (pb[i].tag != i % 2)
            gc_expect(0, "gather", "f_rev changed an integer field of the shadow");
    }
}

GCA_WRAP_XNA(scratch)
GCA_WRAP_XNA(copies)
GCA_WRAP_XNA(inline_type)
GCA_WRAP_XNA(updated)
GCA_WRAP_XNA(initialised)
GCA_WRAP_XNA(variable)
GCA_WRAP_XNA(heap)

int main(void) {
    static const int sizes[] = {1, 2, 5, 6};
    static const int gathered[] = {1, 2, 4, 5};
    struct gca_n c;
    struct gca_problem p = {0};
    p.ctx = &c, p.prec = GC_DOUBLE, p.nout = 1;
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        c.n = sizes[s];
        p.nin = c.n + 1;
        p.name = "a local array of structs as scratch", p.f = scratch_w, p.fwd = scratch_wfwd,
        p.rev = scratch_wrev;
        gca_check_random(&p, 3, -1.5, 1.5);
        p.name = "structs copied whole into and out of a local array", p.f = copies_w,
        p.fwd = copies_wfwd, p.rev = copies_wrev;
        gca_check_random(&p, 3, -1.5, 1.5);
        p.name = "a struct type declared with the array, a pointer into it", p.f = inline_type_w,
        p.fwd = inline_type_wfwd, p.rev = inline_type_wrev;
        gca_check_random(&p, 3, -1.5, 1.5);
        p.name = "one struct of the array updated by a callee, in loops", p.f = updated_w,
        p.fwd = updated_wfwd, p.rev = updated_wrev;
        gca_check_random(&p, 3, -1.5, 1.5);
        p.name = "local arrays of structs with initializers", p.f = initialised_w,
        p.fwd = initialised_wfwd, p.rev = initialised_wrev;
        gca_check_random(&p, 3, -1.5, 1.5);
        p.name = "variable-length arrays of structs", p.f = variable_w, p.fwd = variable_wfwd,
        p.rev = variable_wrev;
        gca_check_random(&p, 3, -1.5, 1.5);
        p.name = "arrays of structs from malloc and calloc", p.f = heap_w, p.fwd = heap_wfwd,
        p.rev = heap_wrev;
        gca_check_random(&p, 3, -1.5, 1.5);
        c.n = gathered[s];
        p.nin = 2 * c.n + 1;
        p.name = "structs gathered into a local array from a parameter's", p.f = gather_w,
        p.fwd = gather_wfwd, p.rev = gather_wrev;
        gca_check_random(&p, 3, -1.5, 1.5);
    }
    return gc_summary();
}
