/* control.c: end-to-end test of control flow.  Comparisons in if, && || !,
 * if/else (nested, assigning several variables), ?:, early return, and
 * conditions whose operands are otherwise unused (their shadows then have
 * nothing to do, which must not make the generated code warn).  Uses the
 * raw __attribute__((differentiable)) spelling. */
#include "gradcheck.h"

/* Every comparison operator; the test points have x < y and x > y. */
__attribute__((differentiable))
double compare(double x, double y) {
    double r = 1;
    if (x < y) r = r + x * y;
    if (x <= y) r = r + x;
    if (x > y) r = r - y * y;
    if (x >= y) r = r + 2 * y;
    if (x == y) r = r + 100;
    if (x != y) r = r * x;
    return r;
}

/* Comparisons as values: (x < y) is an int 0 or 1. */
__attribute__((differentiable))
double compare_values(double x, double y) {
    return (x < y) * x + (x >= y) * y + (x != y) * x * y;
}

__attribute__((differentiable))
double logic(double x, double y) {
    if (x > 0 && y > 0)
        return x * y;
    if (x < 0 || y < -1) {
        if (!(x < y))
            return x - y * y;
        return y * x * x;
    }
    return x + y;
}

/* ! on a comparison, used as an int in arithmetic. */
__attribute__((differentiable))
double logic_values(double x, double y) {
    int b = !(x > y);
    int both = x > 0 && y > 0;
    int either = x > 2 || y > 2;
    return x * b + y * !b + both * x * y - either * y;
}

/* Nested if/else assigning several variables in every branch. */
__attribute__((differentiable))
double nested(double x, double y) {
    double a = 0, b = 0, c = 0;
    if (x > 0) {
        if (y > 0) {
            a = x * y;
            b = x + y;
        } else {
            a = x - y;
            b = x * x;
        }
        c = a * b;
    } else if (y > x) {
        a = y;
        b = -x;
        c = a + b * y;
    } else {
        a = 1;
        c = x * y;
    }
    return a * b + c * x;
}

/* if without else, updating a variable that flows on. */
__attribute__((differentiable))
double clamp_sq(double x, double lo, double hi) {
    double t = x;
    if (t < lo)
        t = lo;
    if (t > hi)
        t = hi;
    return t * t + x;
}

__attribute__((differentiable))
double ternary(double x, double y) {
    double t = x > y ? x * x : y * y;
    double s = y > 1 ? (x > 0 ? 1.0 : 2.0) : y;
    return (x < 0 ? -x : x) * t + s * y;
}

/* |x| through ?: with int arms: the arms have zero derivative. */
__attribute__((differentiable))
double abs_cond(double x) { return x * (x > 0 ? 1 : -1); }

/* y only decides the sign: its adjoint is structurally zero. */
__attribute__((differentiable))
double sign_mul(double x, double y) {
    if (y > 0)
        return x * x;
    return -x * x;
}

/* Early returns at several depths, with code in between. */
__attribute__((differentiable))
double early(double x, double y) {
    double t;
    if (x < -1)
        return -x * y;
    t = x * y;
    if (t > 2) {
        if (y > 3)
            return t * t;
        t = t - 2;
    } else if (t < -2) {
        return t + y;
    }
    return t + x;
}

/* A piecewise cubic (smoothstep) by else-if chain. */
__attribute__((differentiable))
double smoothstep(double x) {
    if (x <= 0)
        return 0;
    else if (x >= 1)
        return 1;
    else
        return x * x * (3 - 2 * x);
}

/* A piecewise model: every case keeps values for the reverse sweep (exp,
 * a product, a quotient), conditions on a derived value, and a chain of
 * ?: nested in then-position. The cases share residual slots. */
__attribute__((differentiable))
double piecewise(double x, double y) {
    double t = x * y, r;
    if (t < -1.0) r = exp(t) * y;
    else if (t < -0.25) r = log(1.5 + t) * x;
    else if (t < 0.25) r = sin(x) * cos(y) / (1.0 + t * t);
    else if (t < 1.0) r = sqrt(t) * exp(-x);
    else if (x > 2.0) r = atan(t) * x * x;
    else r = t * t * t;
    double u = y > 0 ? x > 0 ? r * exp(y) : r / (1.0 + y) : r * x;
    return u + r;
}

GC_WRAP2(compare)
GC_WRAP2(compare_values)
GC_WRAP2(logic)
GC_WRAP2(logic_values)
GC_WRAP2(nested)
GC_WRAP3(clamp_sq)
GC_WRAP2(ternary)
GC_WRAP1(abs_cond)
GC_WRAP2(sign_mul)
GC_WRAP2(early)
GC_WRAP1(smoothstep)
GC_WRAP2(piecewise)

int main(void) {
    GC_CHECK(compare, 2, 0.5, 1.5, 1.5, 0.5, -2.0, -1.0, 3.0, -4.0);
    GC_CHECK(compare_values, 2, 0.5, 1.5, 1.5, 0.5, -2.0, -1.0, 3.0, -4.0);
    /* every branch of logic: both positive, x<0 with x>=y and x<y,
       y<-1 with x>=y, and the fall-through. */
    GC_CHECK(logic, 2, 0.5, 1.5, -0.5, -2.0, -0.5, 0.75, 2.0, -3.0, 2.0, -0.5);
    GC_CHECK(logic_values, 2, 0.5, 1.5, 1.5, 0.5, -2.0, -1.0, 3.0, -4.0, 2.5, 1.0);
    GC_CHECK(nested, 2, 0.5, 1.5, 1.5, -0.5, -2.0, -1.0, -2.0, -3.0);
    GC_CHECK(clamp_sq, 3, 0.5, -1.0, 1.0, -3.0, -1.0, 1.0, 2.5, -1.0, 1.0);
    GC_CHECK(ternary, 2, 0.5, 1.5, 1.5, 0.5, -2.0, -1.0, 3.0, 4.0, -0.5, 2.0);
    GC_CHECK(abs_cond, 1, 0.5, -1.5, 3.0);
    GC_CHECK(sign_mul, 2, 0.5, 1.5, 1.5, -0.5);
    /* every exit of early */
    GC_CHECK(early, 2, -2.0, 1.5, 1.5, 2.5, 1.0, 4.0, 1.5, -2.0, 0.5, 0.5);
    GC_CHECK(smoothstep, 1, -0.5, 0.25, 0.5, 0.875, 1.5);
    GC_CHECK(piecewise, 2, -1.5, 1.5, 1.2, -0.5, 0.3, 0.4, -0.7, -0.6, 1.1, 0.6, 2.5, 1.0, 0.9, 1.9,
             -2.0, -0.4, 0.6, -0.7);
    return gc_summary();
}
