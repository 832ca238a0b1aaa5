/* struct_call_values.c: end-to-end test of structs that calls return used
 * inside expressions, as small-vector C code writes them: a field of the
 * result (`sub(b, a).y`, `make(..).p.z`, `make(..).w[1]`, an integer field),
 * and a result passed on whole (`dot(cross(sub(a, b), a), b)`), in a loop
 * body, an if's condition and branches, an initialisation and a return.
 * chad runs each such call into a temporary just before its statement
 * (lowering/structs.cpp, hoistCall). */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

typedef struct { double x, y, z; } vec3;
typedef struct { vec3 p; double w[2]; int k; } body;

CHAD_DIFFERENTIABLE vec3 sub(vec3 a, vec3 b) {
    vec3 r = {a.x - b.x, a.y - b.y, a.z - b.z};
    return r;
}
CHAD_DIFFERENTIABLE vec3 cross(vec3 a, vec3 b) {
    vec3 r = {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
    return r;
}
CHAD_DIFFERENTIABLE double dot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
CHAD_DIFFERENTIABLE vec3 scale(double s, vec3 a) {
    vec3 r = {s * a.x, s * a.y, s * a.z};
    return r;
}
CHAD_DIFFERENTIABLE body make(double a, double b) {
    body r = {{a, b, a * b}, {sin(a), cos(b)}, 3};
    return r;
}

/* A triple product per window of x, and fields of results. */
CHAD_DIFFERENTIABLE double windows(const double *x, int n) {
    double s = 0;
    for (int i = 0; i + 2 < n; i++) {
        vec3 a = {x[i], x[i + 1], x[i + 2]}, b = {x[i + 1], 2 * x[i], x[i + 2] * x[i]};
        s += dot(cross(sub(a, b), a), b) + sub(b, a).y * make(x[i], x[i + 1]).p.z;
        s += make(x[i], 1.0).w[1] * make(x[i + 1], x[i]).k;
    }
    return s;
}

/* Results in an if's condition and branches, an initialisation, nested
 * calls and the return. */
CHAD_DIFFERENTIABLE double branches(const double *x) {
    vec3 a = {x[0], x[1], x[2]};
    double y = dot(scale(x[3], a), a);
    if (dot(sub(a, scale(0.5, a)), a) > 1.0)
        y = 2 * cross(a, scale(y, a)).x + sub(a, a).z;
    else
        y -= make(x[1], y).p.z;
    return y + dot(scale(y, sub(a, scale(x[3], a))), a);
}

static double w_f(const double *x, void *c) { return windows(x, *(int *)c); }
static double w_fwd(const double *x, const double *dx, double *dr, void *c) {
    return windows_fwd(x, dx, *(int *)c, dr);
}
static double w_rev(const double *x, double *xb, double rb, void *c) {
    return windows_rev(x, xb, *(int *)c, rb);
}
static double b_f(const double *x, void *c) { (void)c; return branches(x); }
static double b_fwd(const double *x, const double *dx, double *dr, void *c) {
    (void)c;
    return branches_fwd(x, dx, dr);
}
static double b_rev(const double *x, double *xb, double rb, void *c) {
    (void)c;
    return branches_rev(x, xb, rb);
}

int main(void) {
    int n3 = 3, n5 = 5;
    gc_check("windows n=3", 3, w_f, w_fwd, w_rev, &n3, 0, 6,
             (double[]){0.3, -0.7, 1.1, 1.5, 0.2, -0.9});
    gc_check("windows n=5", 5, w_f, w_fwd, w_rev, &n5, 0, 5, (double[]){0.3, -0.7, 1.1, 0.4, 2.0});
    /* both branches: the condition is |a|^2 / 2 > 1 */
    gc_check("branches", 4, b_f, b_fwd, b_rev, NULL, 0, 8,
             (double[]){0.3, -0.7, 0.2, 0.4, 1.5, 0.9, -1.2, 0.7});
    return gc_summary();
}
