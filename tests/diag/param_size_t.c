#include <stddef.h>
__attribute__((differentiable))
double f(const double *a, size_t n) { // expect-error: cannot differentiate 'f': parameter 'n' has type 'size_t' (aka 'unsigned long'); only 'int' integers are supported
  return a[0] * (double)n;
}
