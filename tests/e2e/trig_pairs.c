/* trig_pairs.c: sin(a) and cos(a) of one operand in one block are written
 * as one chad__sincos call (DESIGN 8.60), which glibc's sincos answers with
 * the bits its sin and cos give: f_fwd and f_rev must still return exactly
 * f's value (gradcheck's first check). rotate: both in the primal, cos
 * first; wave: sin alone, whose derivative cos(x[i]) pairs with it in each
 * step of the loop; branch: the pair inside one side of an if; spin: float;
 * shifted: sin(a) and cos(b), each paired with its own derivative. Checked
 * against finite differences, by forward / reverse duality and for
 * accumulation, also under ASan; trig_pairs_counted.c counts the calls. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
double rotate(double t, double x, double y) {
    double c = cos(t), s = sin(t);
    return (c * x - s * y) * (s * x + c * y);
}

CHAD_DIFFERENTIABLE
double wave(const double *x, int n, double a) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += sin(a * x[i]) * x[i];
    return s;
}

CHAD_DIFFERENTIABLE
double branch(double x, double y) {
    if (x > 0)
        return sin(x * y) * x + cos(x * y);
    return x * y;
}

CHAD_DIFFERENTIABLE
float spin(float t, float r) {
    return r * cosf(t) + sinf(t) * sinf(t * r);
}

CHAD_DIFFERENTIABLE
double shifted(double a, double b) {
    return sin(a) * cos(b);
}

GC_WRAP3(rotate)
GC_WRAP2(branch)
GC_WRAPF2(spin)
GC_WRAP2(shifted)
GCA_WRAP_XNA(wave)

int main(void) {
    GC_CHECK(rotate, 3, 0.3, 1.5, -0.7, -2.0, 0.25, 3.0, 1e-9, 2.0, 1.0);
    GC_CHECK(branch, 2, 0.7, 1.3, -0.5, 2.0, 2.5, -0.4);
    GC_CHECKF(spin, 2, 0.5f, 1.5f, -1.25f, 0.75f);
    GC_CHECK(shifted, 2, 0.4, -1.1, 2.0, 0.3);
    static const int sizes[] = {1, 2, 5, 9};
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        struct gca_n c = {sizes[s]};
        struct gca_problem p = {0};
        p.ctx = &c, p.prec = GC_DOUBLE, p.nin = c.n + 1, p.nout = 1;
        p.name = "sin alone in a loop, its derivative cos beside it", p.f = wave_w,
        p.fwd = wave_wfwd, p.rev = wave_wrev;
        gca_check_random(&p, 3, -2.0, 2.0);
    }
#ifdef TRIG_PAIRS_COUNTED
    trig_pairs_counts();
#endif
    return gc_summary();
}
