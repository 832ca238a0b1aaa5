/* Scratch that one branch writes and the other passes on is differentiated
   (e2e/branch_one_side.c), also through a nested if that yields one array.
   A nested if that yields two, each written in one of its branches, inside
   a branch whose sibling writes one of them, is not yet in reverse mode. */
#include <stdlib.h>

__attribute__((differentiable))
double nested_pair(const double *x, int n) {
  double *t = malloc(n * sizeof *t);
  double *u = malloc(n * sizeof *u);
  for (int i = 0; i < n; i++) {
    t[i] = x[i];
    u[i] = x[i];
  }
  if (x[0] > 0) { // expect-error: cannot differentiate 'nested_pair': an array made or chosen under a condition cannot be differentiated in reverse mode yet
    if (x[1 % n] > 0)
      t[0] = 3;
    else
      u[0] = t[0];
  } else {
    t[n - 1] = t[0] * t[0];
  }
  double r = t[0] * t[n - 1] * u[0];
  free(t);
  free(u);
  return r;
}
