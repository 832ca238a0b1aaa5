/* calls.c: end-to-end test of calls between annotated functions.  Callees
 * defined before the caller and after it (through a prototype carrying the
 * attribute, with and without the attribute repeated on the definition), a
 * chain of nested calls, one callee called several times (fan-out), calls
 * with expression and int arguments, and a call inside a condition.
 * Raw __attribute__((differentiable)) spelling. */
#include <math.h>
#include "gradcheck.h"

__attribute__((differentiable))
double sq(double x) { return x * x; }

/* Callee defined before; sq called twice. */
__attribute__((differentiable))
double before(double x, double y) { return sq(x) * y + sq(y); }

/* Callees defined after the caller. */
__attribute__((differentiable)) double later(double x, double y);
__attribute__((differentiable)) double later_plain(double x);

__attribute__((differentiable))
double calls_later(double x, double y) { return later(x, y) * later_plain(x + y); }

__attribute__((differentiable))
double later(double x, double y) { return sin(x) * y + x; }

/* The attribute comes from the prototype only. */
double later_plain(double x) { return x * x * x - x; }

/* A chain: chain3 -> chain2 -> chain1 -> sq. */
__attribute__((differentiable))
double chain1(double x) { return sq(x) + 1; }

__attribute__((differentiable))
double chain2(double x) { return chain1(x) * x; }

__attribute__((differentiable))
double chain3(double x, double y) { return chain2(chain1(x) * y) - chain1(y); }

/* Fan-out: results of the same callee used several times each. */
__attribute__((differentiable))
double fanout(double x) {
    double t = sq(x);
    return sq(t) + sq(x) * t + t;
}

/* Arguments that are expressions, and a callee of three arguments. */
__attribute__((differentiable))
double mix3(double a, double b, double c) { return a * b - c * a + b / c; }

__attribute__((differentiable))
double call_exprs(double x, double y) { return mix3(x * y, y - x, sq(x) + 2) + mix3(y, x, 3); }

/* Inactive int parameter passed through a call. */
__attribute__((differentiable))
double powi(double x, int n) {
    double r = 1;
    if (n >= 1) r *= x;
    if (n >= 2) r *= x;
    if (n >= 3) r *= x;
    return r;
}

__attribute__((differentiable))
double use_powi(double x, double y) { return powi(x, 3) + powi(y, 2) * powi(x, 1); }

/* A call inside a condition. */
__attribute__((differentiable))
double call_in_cond(double x) {
    if (sq(x) > 2)
        return sq(x) - 2;
    return 2 - sq(x) * x;
}

GC_WRAP1(sq)
GC_WRAP2(before)
GC_WRAP2(calls_later)
GC_WRAP2(later)
GC_WRAP1(later_plain)
GC_WRAP1(chain1)
GC_WRAP1(chain2)
GC_WRAP2(chain3)
GC_WRAP1(fanout)
GC_WRAP3(mix3)
GC_WRAP2(call_exprs)
GC_WRAP2(use_powi)
GC_WRAP1(call_in_cond)

int main(void) {
    GC_CHECK(sq, 1, 1.5, -0.5);
    GC_CHECK(before, 2, 1.5, -2.0, -0.25, 3.0, 0.5, 0.5);
    GC_CHECK(calls_later, 2, 1.5, -2.0, -0.25, 3.0, 0.5, 0.5);
    GC_CHECK(later, 2, 1.5, -2.0, -0.25, 3.0);
    GC_CHECK(later_plain, 1, 1.5, -0.25);
    GC_CHECK(chain1, 1, 1.5, -0.25);
    GC_CHECK(chain2, 1, 1.5, -0.25);
    GC_CHECK(chain3, 2, 1.5, -2.0, -0.25, 0.75, 0.5, 0.5);
    GC_CHECK(fanout, 1, 1.5, -0.25, 0.75);
    GC_CHECK(mix3, 3, 1.5, -2.0, 0.5, -0.25, 3.0, -1.5);
    GC_CHECK(call_exprs, 2, 1.5, -2.0, -0.25, 3.0, 0.5, 0.75);
    GC_CHECK(use_powi, 2, 1.5, -2.0, -0.25, 3.0);
    GC_CHECK(call_in_cond, 1, 1.5, -2.0, 0.5, -1.25);
    return gc_summary();
}
