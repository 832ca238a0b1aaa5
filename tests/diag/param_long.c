__attribute__((differentiable))
double f(const double *a, long n) { // expect-error: cannot differentiate 'f': parameter 'n' has type 'long'; only 'int' integers are supported
  return a[0] * n;
}
