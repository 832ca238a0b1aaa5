/* b.c: an optimiser's view: calls a.c's derivatives through the generated
 * header, with no prototype written by hand. */
#include <math.h>
#include <stdio.h>

#include "a_chad.h"

double rosen(double x, double y); /* the primal is the user's own to declare */

int main(void) {
  double gx = 0, gy = 0, dr = 0;
  double f = rosen_rev(-1.2, &gx, 1.0, &gy, 1.0);
  double f2 = rosen_fwd(-1.2, 1.0, 1.0, 0.0, &dr);
  /* d/dx = -2(1-x) - 400x(y-x^2), d/dy = 200(y-x^2) at (-1.2, 1) */
  double wantx = -2 * 2.2 - 400 * -1.2 * (1 - 1.44), wanty = 200 * (1 - 1.44);
  float v[3] = {3, 0, 4}, vb[3] = {0, 0, 0};
  float nv = norm2_rev(v, vb, 3, 1.0f);
  int ok = f == rosen(-1.2, 1.0) && f2 == f && fabs(gx - wantx) < 1e-12 &&
           fabs(gy - wanty) < 1e-12 && dr == gx && nv == 5.0f &&
           fabsf(vb[0] - 0.6f) < 1e-6f && vb[1] == 0 && fabsf(vb[2] - 0.8f) < 1e-6f;
  printf("b.c: gradient (%g, %g): %s\n", gx, gy, ok ? "1 passed, 0 failed" : "0 passed, 1 failed");
  return !ok;
}
