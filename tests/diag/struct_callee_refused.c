#define CHAD_DIFFERENTIABLE __attribute__((differentiable))
typedef struct { double x; int tag; } Pt;

/* A callee chad refuses for how it passes a struct's field, and a caller
 * of it: both get the callee's located error. The caller's once crashed
 * the plugin (fuzz seed s41, input 930): the failed signature stayed
 * behind without its flat function, and the call was built to it. */
CHAD_DIFFERENTIABLE
static double bump(Pt *p) { // expect-error: cannot differentiate 'bump': integer field 'tag' of 'p' is written through a pointer; not supported // expect-error: cannot differentiate 'caller': integer field 'tag' of 'p' is written through a pointer; not supported
  p->tag = 1;
  return p->x * p->x;
}

CHAD_DIFFERENTIABLE
double caller(double a) {
  Pt q = {a, 0};
  return bump(&q) + a;
}
