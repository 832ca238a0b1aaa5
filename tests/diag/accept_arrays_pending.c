/* Arrays and loops whose lowering is complete but whose derivatives the
   core does not yet produce cleanly: this test fails until it does.
     - fold and sum bodies with `if` or an int accumulator: the emitted
       aug/bwd pair has an unused 'tape' parameter (-Wunused-parameter);
     - a call to a function that writes output arrays: ad/ rejects it
       ("arrays computed by this construct cannot be differentiated yet"). */
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

D void square(const double *x, double *y) { y[0] = x[0] * x[0]; }

D double call_with_output(double a) {
  double in[1] = {a}, out[1];
  square(in, out);
  return out[0];
}
