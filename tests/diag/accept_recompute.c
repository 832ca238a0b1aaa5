/* -fplugin-arg-chad-recompute: loops never store residuals; each reverse
 * step recomputes its step from the state saved per iteration (fold-save),
 * and the dump shows no storing decision (DESIGN 8.22). */
// diag-args: -fplugin-arg-chad-recompute -fplugin-arg-chad-dump=nest
// expect-output: (fold-save
#include <math.h>

__attribute__((differentiable))
double nest(const double *x, int n, double w) {
  double a = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      a = a * w + sin(x[i] * x[j]);
  return a;
}
