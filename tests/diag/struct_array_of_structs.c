#include <stdlib.h>
struct V { double x; };
struct S {
  struct V v[2]; // expect-error: cannot differentiate 'f': parameter 's': field 'v' is an array of structs; not supported
};

__attribute__((differentiable))
double f(struct S s) { return s.v[0].x; }

/* of an array of structs, only floating fields may be written */
struct W { double x; int n; };
__attribute__((differentiable))
void g(struct W *p, int i) { // expect-error: cannot differentiate 'g': integer field 'n' of 'p', an array of structs, is written; only its floating fields may be written
  p[i].x *= 2;
  p[i].n = 3;
}

struct M { int n; double *data; };

__attribute__((differentiable))
double h(const struct M *m, int i) { // expect-error: cannot differentiate 'h': parameter 'm' is an array of structs with pointer field 'data'; not supported (only floating, integer and fixed-size array fields)
  return m[i].data[0];
}

/* a local array of structs: one local array per field (of constant or
 * variable length), so of one dimension, and never passed whole to a
 * callee that indexes it (that callee reads the structs' layout) */
__attribute__((differentiable))
double k(double a, int n) {
  struct V vs[2][n];
  vs[0][1].x = a; // expect-error: cannot differentiate 'k': array of structs ('vs[0][1].x') is not supported
  return vs[0][1].x;
}

__attribute__((differentiable))
double sum_v(const struct V *p, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += p[i].x;
  return s;
}

__attribute__((differentiable))
double pass_whole(double a) {
  struct V vs[2];
  vs[0].x = a;
  vs[1].x = a * a;
  return sum_v(vs, 2); // expect-error: cannot differentiate 'pass_whole': 'sum_v' indexes its parameter 'p' as an array of structs, and 'vs' is a local array of structs, which chad keeps as one array per field; not supported
}

/* va_list is an array of a builtin struct whose fields have no place in
   the source: the error is at the variable (the fuzzer found it unlocated) */
#include <stdarg.h>
__attribute__((differentiable))
double v(double x, ...) {
  va_list ap; // expect-error: cannot differentiate 'v': local 'ap' of type 'va_list' is not supported
  va_start(ap, x);
  va_end(ap);
  return x;
}
