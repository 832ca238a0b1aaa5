/* static.c: end-to-end test of linkage.  f_fwd and f_rev of a static f are
 * static too, so an unused one would be an unused-function error under
 * -Wall -Werror unless the plugin marks it accordingly; this file compiles
 * only if none of them warns.  Also: a static callee of an external caller,
 * a static inline function, and an external callee of a static caller. */
#include "chad.h"
#include "gradcheck.h"

/* Only the primal is used (from main): its f_fwd and f_rev are not. */
CHAD_DIFFERENTIABLE
static double only_primal(double x) { return x * x + 1; }

/* Used only by annotated callers, so only through its derivatives
 * (and the callers' primals). */
CHAD_DIFFERENTIABLE
static double helper(double x, double y) { return x * y - y; }

CHAD_DIFFERENTIABLE
double uses_helper(double x, double y) { return helper(x, y) * helper(y, x); }

CHAD_DIFFERENTIABLE
static inline double inl(double x) { return 3 * x * x - x; }

CHAD_DIFFERENTIABLE
double external(double x) { return x / (1 + x * x); }

CHAD_DIFFERENTIABLE
static double static_caller(double x, double y) { return external(x * y) + inl(y); }

/* Checked directly: the derivatives of a static function work as well. */
CHAD_DIFFERENTIABLE
static double checked_static(double x, double y) { return (x - y) * (x + 2 * y); }

GC_WRAP2(uses_helper)
GC_WRAP1(inl)
GC_WRAP2(static_caller)
GC_WRAP2(checked_static)

int main(void) {
    gc_expect(only_primal(2.0) == 5.0, "only_primal", "primal of a static function");
    GC_CHECK(uses_helper, 2, 1.5, -2.0, -0.25, 3.0);
    GC_CHECK(inl, 1, 1.5, -0.25);
    GC_CHECK(static_caller, 2, 1.5, -2.0, -0.25, 3.0);
    GC_CHECK(checked_static, 2, 1.5, -2.0, -0.25, 3.0);
    return gc_summary();
}
