/* Loops whose bodies branch: a fold with an if (max tracking), a sum and an
   int count under conditions. They compile cleanly, derivatives included. */
// diag-args: -std=c11 -Wall -Wextra -pedantic -Werror

#define D __attribute__((differentiable))

D double maxabs(const double *x, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) {
    double v = x[i] > 0 ? x[i] : -x[i];
    if (v > m)
      m = v;
  }
  return m;
}

D double mean_positive(const double *x, int n) {
  int c = 0;
  double s = 0;
  for (int i = 0; i < n; i++) {
    if (x[i] > 0)
      c++;
    s += x[i] > 0 ? x[i] : 0;
  }
  return s / c;
}

