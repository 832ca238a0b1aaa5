__attribute__((differentiable))
double f(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    if (a[i] < 0)
      continue; // expect-error: cannot differentiate 'f': 'continue' is not supported yet
    s += a[i];
  }
  return s;
}
