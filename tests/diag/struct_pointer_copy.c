/* A local struct's pointer field is a local pointer (DESIGN.md 8.28); a
   parameter's may only be read through, also when a whole struct is
   copied into it, and a pointer declared without a value takes its array
   only from an assignment that is a statement of its block (not one under
   a condition). */
#include <stdlib.h>
typedef struct { double s; double *data; } Vec;

__attribute__((differentiable))
void into_param(Vec *out, double *y) {
  Vec t = {1.0, y};
  y[0] = 2.0;
  *out = t; // expect-error: cannot differentiate 'into_param': assigning pointer field 'data' of 'out' is not supported; a pointer field of a parameter may only be read through
}

__attribute__((differentiable))
double late_branch(double x, int n) {
  double *t;
  if (n > 2)
    t = malloc(n * sizeof *t); // expect-error: cannot differentiate 'late_branch': assigning pointer 't' after its declaration is supported only when it always points into the same array
  else
    t = malloc(2 * sizeof *t);
  t[0] = x;
  double r = t[0] * x;
  free(t);
  return r;
}
