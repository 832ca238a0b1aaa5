__attribute__((differentiable))
double f(const double *a, int n, int k) {
  double s = 0;
  for (int i = 0; i < n; i += i + 1) // expect-error: cannot differentiate 'f': loop step 'i += i + 1' is not supported; add a constant or a loop-invariant integer to the counter
    s += a[i];
  return s;
}

__attribute__((differentiable))
double g(const double *a, int n, int k) {
  double s = 0;
  for (int i = 0; i < n; i += k) { // expect-error: cannot differentiate 'g': loop step 'k' changes inside the loop; not supported
    s += a[i];
    k++;
  }
  return s;
}

__attribute__((differentiable))
double h(const double *a, int n, int k) {
  double s = 0;
  for (int i = 0; i != n; i += k) // expect-error: cannot differentiate 'h': loop condition 'i != n' with a step other than 1 or -1
    s += a[i];
  return s;
}
