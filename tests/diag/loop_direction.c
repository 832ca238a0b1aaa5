__attribute__((differentiable))
double f(const double *a, int n) {
  double s = 0;
  for (int i = n; i > 0; i++) // expect-error: cannot differentiate 'f': loop condition 'i > 0' does not agree with the step 'i++'
    s += a[i];
  return s;
}
