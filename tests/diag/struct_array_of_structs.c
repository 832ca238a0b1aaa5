#include <stdlib.h>
struct V { double x; };
struct S {
  struct V v[2]; // expect-error: cannot differentiate 'f': parameter 's': field 'v' is an array of structs; not supported
};

__attribute__((differentiable))
double f(struct S s) { return s.v[0].x; }

/* arrays of structs are read only */
__attribute__((differentiable))
void g(struct V *p, int i) { // expect-error: cannot differentiate 'g': field 'x' of 'p', an array of structs, is written; arrays of structs may only be read
  p[i].x *= 2;
}

struct M { int n; double *data; };

__attribute__((differentiable))
double h(const struct M *m, int i) { // expect-error: cannot differentiate 'h': parameter 'm' is an array of structs with pointer field 'data'; not supported (only floating, integer and fixed-size array fields)
  return m[i].data[0];
}

/* a local array of structs */
__attribute__((differentiable))
double k(double a) {
  struct V vs[2] = {{a}, {a}}; // expect-error: cannot differentiate 'k': array of structs 'vs' is not supported
  return vs[1].x;
}
