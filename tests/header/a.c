/* a.c: the differentiable functions; compiled with
 * -fplugin-arg-chad-header=a_chad.h, which declares their f_fwd/f_rev for
 * b.c and caller.cpp. */
#include <math.h>

#include "chad.h"

CHAD_DIFFERENTIABLE
static double sq(double x) { return x * x; }

/* The Rosenbrock function: static sq's derivatives stay out of the header. */
CHAD_DIFFERENTIABLE
double rosen(double x, double y) { return sq(1 - x) + 100 * sq(y - x * x); }

/* An array input, an int and a float result. */
CHAD_DIFFERENTIABLE
float norm2(const float *v, int n) {
  float s = 0;
  for (int i = 0; i < n; i++)
    s += v[i] * v[i];
  return sqrtf(s);
}
