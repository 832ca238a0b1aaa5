/* The dump shows the store-or-recompute decision of every loop of f_rev
 * (DESIGN 8.22): the outermost loop of a nest makes checkpoints and the
 * loop inside it stores its residuals; a cheap loop whose steps would store more than they cost
 * recomputes (accept_recompute.c: the option that turns storing off). */
// diag-args: -fplugin-arg-chad-dump=nest -fplugin-arg-chad-dump=cheap
// expect-output: chad: nest: the loop at line 14 recomputes its steps: it is the outermost loop of a nest
// expect-output: chad: nest: the loop at line 15 stores
// expect-output: chad: cheap: the loop at line 23 recomputes its steps: storing
#include <math.h>

__attribute__((differentiable))
double nest(const double *x, int n, double w) {
  double a = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      a = a * w + sin(x[i] * x[j]);
  return a;
}

__attribute__((differentiable))
double cheap(const double *x, int n) {
  double s = 1;
  for (int i = 0; i < n; i++)
    s = s * x[i];
  return s;
}
