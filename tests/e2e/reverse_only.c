/* reverse_only.c: -fplugin-arg-chad-reverse-only makes f_rev alone; the
 * marker chad-e2e: reverse-only makes the test harness pass the option.
 * f_fwd is not generated (the declarations of smooth_fwd, model_fwd and
 * score_fwd below would clash with it). Checked here: a loop over an array,
 * a callee used through its reverse halves, a struct by value and by
 * pointer (the struct wrappers), a struct result, an output array, and a
 * CHAD_CUSTOM function whose user wrote g_rev only (g_fwd is not needed,
 * so it is not declared). Every f_rev against finite differences, its
 * seed scaling and its accumulation (gradcheck.h; duality needs f_fwd). */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
double smooth(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += sin(x[i]) * x[(i + 1) % n];
    return s;
}

/* a custom function with its reverse derivative only */
CHAD_CUSTOM double softplus(double x);
double softplus_rev(double x, double *x_b, double ret_b);

typedef struct {
    double scale;
    double w[3];
    int n;
} Model;

/* struct by value, a callee (smooth's halves), the custom function */
CHAD_DIFFERENTIABLE
double model(Model m, const double *x) {
    double t = 0;
    for (int i = 0; i < m.n; i++)
        t += m.w[i] * x[i];
    return m.scale * softplus(t) + smooth(x, m.n);
}

/* struct by pointer, a struct result, an output array */
CHAD_DIFFERENTIABLE
Model score(const Model *m, const double *x, double *out) {
    Model r = *m;
    for (int i = 0; i < 3; i++) {
        r.w[i] = m->w[i] * x[i] + m->scale;
        out[i] = exp(-x[i] * r.w[i]);
    }
    r.scale = model(r, x);
    return r;
}

/* Declared here: compiling would fail if the plugin made them. */
double smooth_fwd(const double *x, const double *dx, int n, double *d_ret, int not_generated);
double model_fwd(int not_generated);
Model score_fwd(int not_generated);

/* softplus and its hand-written reverse derivative */
double softplus(double x) { return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)); }
double softplus_rev(double x, double *x_b, double ret_b) {
    *x_b += ret_b / (1 + exp(-x));
    return softplus(x);
}

static void smooth_w(const double *x, double *y, void *c) {
    (void)c;
    y[0] = smooth(x, 5);
}
static void smooth_wr(const double *x, double *x_b, double *y, const double *y_b, void *c) {
    (void)c;
    y[0] = smooth_rev(x, x_b, 5, y_b[0]);
}

/* x: scale, w[0..2], then the 3 data values */
static Model model_of(const double *x) {
    Model m = {x[0], {x[1], x[2], x[3]}, 3};
    return m;
}
static void model_w(const double *x, double *y, void *c) {
    (void)c;
    y[0] = model(model_of(x), x + 4);
}
static void model_wr(const double *x, double *x_b, double *y, const double *y_b, void *c) {
    Model m_b = {0, {0, 0, 0}, 0};
    (void)c;
    y[0] = model_rev(model_of(x), &m_b, x + 4, x_b + 4, y_b[0]);
    x_b[0] += m_b.scale;
    for (int i = 0; i < 3; i++)
        x_b[1 + i] += m_b.w[i];
}

/* outputs: the result's scale and w, then out[0..2] */
static void score_w(const double *x, double *y, void *c) {
    Model m = model_of(x);
    Model r = score(&m, x + 4, y + 4);
    (void)c;
    y[0] = r.scale;
    for (int i = 0; i < 3; i++)
        y[1 + i] = r.w[i];
}
static void score_wr(const double *x, double *x_b, double *y, const double *y_b, void *c) {
    Model m = model_of(x), m_b = {0, {0, 0, 0}, 0};
    Model seed = {y_b[0], {y_b[1], y_b[2], y_b[3]}, 0};
    (void)c;
    Model r = score_rev(&m, &m_b, x + 4, x_b + 4, y + 4, y_b + 4, seed);
    y[0] = r.scale;
    for (int i = 0; i < 3; i++)
        y[1 + i] = r.w[i];
    x_b[0] += m_b.scale;
    for (int i = 0; i < 3; i++)
        x_b[1 + i] += m_b.w[i];
}

int main(void) {
    struct gca_problem p = {0};
    p.name = "smooth (reverse only)", p.nin = 5, p.nout = 1;
    p.f = smooth_w, p.fwd = NULL, p.rev = smooth_wr;
    gca_check_random(&p, 3, -2, 2);
    p.name = "model (struct by value, a callee, a custom function; reverse only)";
    p.nin = 7, p.f = model_w, p.rev = model_wr;
    gca_check_random(&p, 3, -1.5, 1.5);
    p.name = "score (struct by pointer and result, an output array; reverse only)";
    p.nin = 7, p.nout = 7, p.f = score_w, p.rev = score_wr;
    gca_check_random(&p, 3, -1.5, 1.5);
    return gc_summary();
}
