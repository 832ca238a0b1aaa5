/* Scratch memory accepted without any diagnostic, under -Werror: every
   spelling of a size gives the count n (the lowered IR shows each one as
   the length of its array: (if (gt n 0) n 0), a length being at least 0),
   a count times a constant, a constant size, the null tests after an
   allocation, VLAs, memset, memcpy, memmove and free. */
// diag-args: -std=c11 -Wall -Wextra -pedantic -Werror -fplugin-arg-chad-dump=sizes
// expect-output: (alloc (array f64) n_elems)
// expect-output: (if (gt n1 0) n1 0)
// expect-output: (if (gt n2 0) n2 0)
// expect-output: (if (gt n3 0) n3 0)
// expect-output: (if (gt n4 0) n4 0)
// expect-output: (if (gt n5 0) n5 0)
// expect-output: (if (gt n6 0) n6 0)
// expect-output: (mul 2 n7)
// expect-output: (alloc (array f64) 3)
#include <stdlib.h>
#include <string.h>

#define D __attribute__((differentiable))

D double sizes(double x, int n1, int n2, int n3, int n4, int n5, int n6, int n7) {
  double *a = calloc(n1 * sizeof(double), 1);
  double *b = calloc(sizeof(double) * n2, 1);
  double *c = calloc(n3 * sizeof *c, 1);
  double *d = calloc(sizeof(d[0]) * n4, 1);
  double *e = calloc((size_t)n5 * sizeof(double), 1);
  double *f = calloc(n6, sizeof *f);
  double *g = calloc(2 * n7, sizeof *g);
  double *h = calloc(3 * sizeof(double), 1);
  if (!a || b == NULL || NULL == c || !d || !e || !f || !g || !h)
    return 0;
  double s = a[n1 - 1] + b[n2 - 1] + c[n3 - 1] + d[n4 - 1] + e[n5 - 1] + f[n6 - 1] +
             g[2 * n7 - 1] + h[2];
  free(a), free(b), free(c), free(d);
  free(e);
  free(f);
  free(g);
  free(h);
  return s * x;
}

D double forms(const double *x, int n) {
  double v[n];
  float *w = (float *)malloc((unsigned)n * sizeof(float));
  int *k = malloc(sizeof(int) * (size_t)n);
  if (w != NULL && k)
    for (int i = 0; i < n; i++) {
      v[i] = x[i];
      w[i] = (float)x[i];
      k[i] = n - 1 - i;
    }
  double *t = malloc(2 * n * sizeof *t);
  memset(t, 0, 2 * n * sizeof *t);
  memcpy(t, v, n * sizeof(double));
  memmove(t + 1, t, (n - 1) * sizeof(double));
  (void)memcpy(&t[n], x, sizeof(double) * n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += t[k[i]] * w[i] + t[n + i];
  free(k);
  free(w);
  free(t);
  return s;
}
