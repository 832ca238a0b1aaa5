/* Swapped pointers given to a callee that writes one of them are a choice
   of calls, one per array each pointer can point into (DESIGN 8.26). Only
   pointers that are never assigned but by swaps `t = a; a = b; b = t;`
   are known to point into different arrays; here `nxt = cur` may make
   them alias, and the call where both name 'b' is refused. */
#include <stdlib.h>

__attribute__((differentiable))
static void scale(int n, const double *u, double *v) {
  for (int i = 0; i < n; i++)
    v[i] = u[i] * 0.9;
}

__attribute__((differentiable))
double not_only_swapped(const double *x, int n, int steps) {
  double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    a[i] = x[i];
  double *cur = a, *nxt = b;
  for (int t = 0; t < steps; t++) {
    scale(n, cur, nxt); // expect-error: cannot differentiate 'not_only_swapped': 'b' is passed to 'scale' at the view 'nxt', which it writes, and also read through parameter 'u', which 'scale' reads after writing; aliasing is not supported
    double *tmp = cur;
    cur = nxt;
    nxt = tmp;
    if (steps > 3)
      nxt = cur;
  }
  double s = cur[0];
  free(a);
  free(b);
  return s;
}

/* `p = q; q = r; r = p;` has the shape of a swap through a temporary, but
   p is one of the buffers' pointers: afterwards p and r name the same
   buffer, so no combination may be left out (this once gave f_fwd 1.6
   where f gives 3.04). */
__attribute__((differentiable))
static void accumulate(int n, const double *u, double *v) {
  for (int i = 0; i < n; i++)
    v[i] = u[i] * 0.9 + v[i];
}

__attribute__((differentiable))
double not_a_swap(const double *x, int n, int steps) {
  double a[4], b[4], c[4];
  for (int i = 0; i < n; i++) {
    a[i] = x[i];
    b[i] = 2 * x[i];
    c[i] = 0;
  }
  double *p = a, *q = b, *r = c;
  for (int t = 0; t < steps; t++) {
    accumulate(n, p, r); // expect-error: cannot differentiate 'not_a_swap': call to 'accumulate', whose parameter 'v' is in-out (read before it is overwritten), with 'r', which is not a whole array; not supported yet
    p = q;
    q = r;
    r = p;
  }
  return r[0] + p[1];
}
