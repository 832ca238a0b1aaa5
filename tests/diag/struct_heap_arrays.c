/* Arrays of structs from malloc and calloc: one array per field, each
 * allocated by the same call's share and freed where the array is.
 * Accepted: the null test, free, pointers walked through them. Refused:
 * realloc, an allocation of no whole number of structs, reassigning. */
#include <stdlib.h>
typedef struct { double w; int k; } It;

__attribute__((differentiable))
double accepted(const double *x, int n) {
  It *q = calloc((size_t)n, sizeof(It));
  if (!q || q == NULL)
    return 0;
  for (It *p = q; p < q + n; p++)
    p->w = x[p - q], p->k = 2;
  double s = q[n - 1].w * q[0].k;
  free(q);
  return s;
}

__attribute__((differentiable))
double grown(const double *x, int n) {
  It *q = malloc(n * sizeof *q);
  q = realloc(q, 2 * n * sizeof *q); // expect-error: cannot differentiate 'grown': array of structs 'q' from malloc is assigned ('q = realloc(q, 2 * n * sizeof *q)'); not supported
  q[0].w = x[0];
  double s = q[0].w;
  free(q);
  return s;
}

__attribute__((differentiable))
double from_realloc(const double *x, int n) {
  It *q = realloc(NULL, n * sizeof *q); // expect-error: cannot differentiate 'from_realloc': array of structs 'q' from realloc; not supported (malloc and calloc are)
  q[0].w = x[0];
  return q[0].w;
}

__attribute__((differentiable))
double short_of(const double *x, int n) {
  It *q = malloc(n * sizeof(double) + 4); // expect-error: cannot differentiate 'short_of': 'malloc(n * sizeof(double) + 4)' allocates no whole number of 'It'
  q[0].w = x[0];
  double s = q[0].w;
  free(q);
  return s;
}

__attribute__((differentiable))
double swapped(const double *x, int n) {
  It *q = malloc(n * sizeof *q);
  It *p = malloc(n * sizeof *p);
  q[0].w = x[0];
  It *t = q;
  q = p; // expect-error: cannot differentiate 'swapped': array of structs 'q' from malloc is assigned ('q = p'); not supported
  p = t;
  double s = p[0].w;
  free(q);
  free(p);
  return s;
}
