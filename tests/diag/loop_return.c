__attribute__((differentiable))
double f(const double *a, int n) {
  for (int i = 0; i < n; i++)
    if (a[i] < 0)
      return a[i]; // expect-error: cannot differentiate 'f': 'return' inside a loop is not supported yet
  return 0;
}
