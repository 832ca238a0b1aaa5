/* Accepted placements of the attribute. The derivatives are declared right
   after each function, so the code below can call them, and they compile
   cleanly under strict flags. */
// diag-args: -std=c99 -Wall -Wextra -pedantic -Werror
#include <math.h>

__attribute__((differentiable)) double prefix(double x) { return x * x; }

double __attribute__((differentiable)) after_type(double x) { return sin(x); }

double proto(double x, double y) __attribute__((differentiable));
double proto(double x, double y) { return x * y; }

static __attribute__((differentiable)) float single(float x) { return x * 2.0f; }

double use(void) {
  double d = 0, xb = 0, yb = 0;
  float fd = 0;
  double v = prefix_fwd(1.0, 1.0, &d);
  v += after_type_rev(0.5, &xb, 1.0);
  v += proto_rev(2.0, &xb, 3.0, &yb, 1.0);
  v += single_fwd(1.0f, 1.0f, &fd) + single(1.0f);
  return v + d + xb + yb + fd;
}
