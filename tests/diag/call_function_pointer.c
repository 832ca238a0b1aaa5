/* Indirect calls have no known callee. */
#include <math.h>

double (*const op)(double) = sin;

__attribute__((differentiable))
double f(double x) {
  return op(x); // expect-error: cannot differentiate 'f': calls through function pointers are not supported
}
