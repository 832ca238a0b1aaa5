__attribute__((differentiable))
double f(const double *a, int n) {
  double s = 0;
  for (long i = 0; i < n; i++) // expect-error: cannot differentiate 'f': loop counter 'i' has type 'long'; only 'int' counters are supported
    s += a[i];
  return s;
}
