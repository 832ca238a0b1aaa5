__attribute__((differentiable))
double f(const double *a, int n) {
  double s = 0;
  for (int i = 0; i != n; i++) // expect-error: cannot differentiate 'f': loop condition 'i != n' is not supported; compare the counter with '<', '<=', '>' or '>='
    s += a[i];
  return s;
}
