__attribute__((differentiable))
double f(const double *a, int n, int k) {
  double s = 0;
  for (int i = 0; i < n; i += k) // expect-error: cannot differentiate 'f': loop step 'i += k' is not supported; add a constant to the counter
    s += a[i];
  return s;
}
