/* The dump shows which reads a storing loop takes again from the memory
 * its loop leaves instead of storing them (DESIGN 8.31): Cholesky's
 * l[i*n + k], k < j, is never written after the read (its writes are to
 * columns j' >= j), so its inner loop stores nothing (l[j*n + k], the same
 * at every step of it, is read once before it, 8.32); the
 * element read at n - 1 - i is written later in the same sweep, so that
 * loop stores it. */
// diag-args: -fplugin-arg-chad-dump=logdet -fplugin-arg-chad-dump=mirrored -fplugin-arg-chad-dump=weighted
// expect-output: chad: logdet: the loop at line 22 stores 0 numbers per step (recompute cost 9), reads 1 again from memory no later write changes
// expect-output: chad: mirrored: the loop at line 39 stores 1 numbers per step (recompute cost 26)
// expect-output: chad: mirrored: the loop at line 38 stores 0 numbers per step (recompute cost 418), and saves nothing
// expect-output: chad: weighted: the loop at line 51 stores 1 numbers per step (recompute cost 25), reads 2 again from memory no later write changes
#include <math.h>
#include <stdlib.h>

__attribute__((differentiable))
double logdet(const double *a, int n) {
  double *l = malloc(n * n * sizeof *l);
  for (int i = 0; i < n * n; i++) l[i] = a[i];
  for (int j = 0; j < n; j++) {
    for (int k = 0; k < j; k++)
      for (int i = j; i < n; i++)
        l[i * n + j] -= l[i * n + k] * l[j * n + k];
    double d = sqrt(l[j * n + j]);
    l[j * n + j] = d;
    for (int i = j + 1; i < n; i++) l[i * n + j] /= d;
  }
  double s = 0;
  for (int j = 0; j < n; j++) s += 2 * log(l[j * n + j]);
  free(l);
  return s;
}

__attribute__((differentiable))
double mirrored(const double *x, int n) {
  double *w = malloc(n * sizeof *w);
  for (int i = 0; i < n; i++) w[i] = x[i];
  for (int t = 0; t < 3; t++)
    for (int i = 0; i < n; i++)
      w[i] = 0.5 * w[i] + sin(w[n - 1 - i]);
  double s = 0;
  for (int i = 0; i < n; i++) s += w[i] * w[i];
  free(w);
  return s;
}

/* Inputs (const arrays f never writes) are read again too (DESIGN 8.33). */
__attribute__((differentiable))
double weighted(const double *w, const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s = 0.5 * s + sin(w[i] * x[i]);
  return s;
}
