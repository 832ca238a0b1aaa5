__attribute__((differentiable))
double f(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += a[i];
    i += 1; // expect-error: cannot differentiate 'f': the loop body modifies its counter 'i'
  }
  return s;
}
