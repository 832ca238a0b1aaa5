/* user.c: a program built through find_package(chad). */
#include <math.h>
#include <stdio.h>

#include "chad.h"

CHAD_DIFFERENTIABLE
double f(double x, double y) { return x * exp(y) + sin(x * y); }

int main(void) {
  double xb = 0, yb = 0;
  double v = f_rev(0.5, &xb, 1.5, &yb, 1.0);
  double wantx = exp(1.5) + 1.5 * cos(0.75), wanty = 0.5 * exp(1.5) + 0.5 * cos(0.75);
  int ok = v == f(0.5, 1.5) && fabs(xb - wantx) < 1e-14 && fabs(yb - wanty) < 1e-14;
  printf("%s\n", ok ? "1 passed, 0 failed" : "0 passed, 1 failed");
  return !ok;
}
