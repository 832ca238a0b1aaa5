/* A local struct's pointer field must point into an array from its
   declaration on, as any local pointer (DESIGN 8.28); the message names
   the field as written, not the variable the flattener made for it. */
typedef struct { double a; double *d; } P;

__attribute__((differentiable))
double f(const double *x) {
  P p = {x[0], 0}; // expect-error: cannot differentiate 'f': pointer 'p.d' must be initialised to point into an array
  return p.a * p.d[0];
}
