/* arith.c: end-to-end test of arithmetic.  + - * / and unary minus, every
 * literal form, const locals, reassignment of locals and parameters, and
 * compound assignment.  Uses the portable CHAD_DIFFERENTIABLE from chad.h. */
#include "chad.h"
#include "gradcheck.h"

/* x appears twice: its two contributions must be added, not overwritten. */
CHAD_DIFFERENTIABLE
double add(double x, double y) { return x + y + x; }

CHAD_DIFFERENTIABLE
double sub(double x, double y) { return x - y - (y - x) - 4; }

CHAD_DIFFERENTIABLE
double mul(double x, double y) { return x * y * x; }

/* Division by a variable in both positions; 1 / x mixes int and double. */
CHAD_DIFFERENTIABLE
double quot(double x, double y) { return x / y + 1 / x - y / (x * y + 5); }

CHAD_DIFFERENTIABLE
double neg(double x, double y) { return -x * -y + -(x - y) - -x; }

/* Every literal form: int, double, exponent, float suffix, trailing and
 * leading dot.  (7 / 2) is integer division, so the factor is 3, not 3.5. */
CHAD_DIFFERENTIABLE
double literals(double x, double y) {
    return 2 * x + 0.5 * y + 1.5f * x + 1e-1 * y + 2.5E+1 * x * y + 3. * y + .25 * x * x +
           (7 / 2) * y + 10;
}

CHAD_DIFFERENTIABLE
double const_locals(double x, double y) {
    const double c = 3.0;
    const double k = c * x;
    const int two = 2;
    return k * k + c / y + two * x * y;
}

/* A local reassigned from itself, several times. */
CHAD_DIFFERENTIABLE
double reassign(double x, double y) {
    double t = x;
    t = t * y;
    t = t + x;
    t = -t;
    t = t * t - x;
    return t;
}

/* Parameters are ordinary variables and may be reassigned too. */
CHAD_DIFFERENTIABLE
double reassign_params(double x, double y) {
    x = x * 2;
    y = y - x;
    x = x * y;
    return x + y;
}

CHAD_DIFFERENTIABLE
double compound(double x, double y) {
    double a = x;
    a += y;
    a -= 0.5 * x;
    a *= y;
    a /= x + 2.0;
    a += a;
    a *= a;
    return a;
}

/* Horner's scheme: one variable, many uses, long dependency chain. */
CHAD_DIFFERENTIABLE
double horner(double x) {
    double p = 0.25;
    p = p * x - 1.5;
    p = p * x + 2;
    p = p * x - 0.125;
    p = p * x + 3;
    return p * x;
}

/* Precedence and grouping are the lowering's job, not the user's. */
CHAD_DIFFERENTIABLE
double precedence(double x, double y, double z) {
    return x - y * z / (x + 4) + x * (y - z) * -z - x / y / z;
}

GC_WRAP2(add)
GC_WRAP2(sub)
GC_WRAP2(mul)
GC_WRAP2(quot)
GC_WRAP2(neg)
GC_WRAP2(literals)
GC_WRAP2(const_locals)
GC_WRAP2(reassign)
GC_WRAP2(reassign_params)
GC_WRAP2(compound)
GC_WRAP1(horner)
GC_WRAP3(precedence)

int main(void) {
    GC_CHECK(add, 2, 1.5, -2.0, -0.25, 3.0, 100.0, 1e-3);
    GC_CHECK(sub, 2, 1.5, -2.0, -0.25, 3.0, 100.0, 1e-3);
    GC_CHECK(mul, 2, 1.5, -2.0, -0.25, 3.0, 7.0, 1e-3);
    GC_CHECK(quot, 2, 1.5, -2.0, -0.25, 3.0, 7.0, 0.5);
    GC_CHECK(neg, 2, 1.5, -2.0, -0.25, 3.0, 7.0, 0.5);
    GC_CHECK(literals, 2, 1.5, -2.0, -0.25, 3.0, 7.0, 0.5);
    GC_CHECK(const_locals, 2, 1.5, -2.0, -0.25, 3.0, 7.0, 0.5);
    GC_CHECK(reassign, 2, 1.5, -2.0, -0.25, 3.0, 7.0, 0.5);
    GC_CHECK(reassign_params, 2, 1.5, -2.0, -0.25, 3.0, 7.0, 0.5);
    GC_CHECK(compound, 2, 1.5, -2.0, -0.25, 3.0, 7.0, 0.5);
    GC_CHECK(horner, 1, 1.5, -2.0, -0.25, 0.0, 3.0);
    GC_CHECK(precedence, 3, 1.5, -2.0, 0.75, -0.25, 3.0, -1.25, 7.0, 0.5, 2.0);
    return gc_summary();
}
