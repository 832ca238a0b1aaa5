__attribute__((differentiable))
double f(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) { // expect-error: cannot differentiate 'f': loop bound 'n' changes inside the loop; not supported
    s += a[i];
    n = n - 1;
  }
  return s;
}
