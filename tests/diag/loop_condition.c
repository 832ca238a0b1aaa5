__attribute__((differentiable))
double f(const double *a, int n) {
  double s = 0;
  for (int i = 0; i == n; i++) // expect-error: cannot differentiate 'f': loop condition 'i == n' is not supported; compare the counter with '<', '<=', '>', '>=' or '!='
    s += a[i];
  return s;
}

__attribute__((differentiable))
double g(const double *a, int n) {
  double s = 0;
  for (int i = 0; i != n; i += 2) // expect-error: cannot differentiate 'g': loop condition 'i != n' with a step other than 1 or -1, or a multiple of the counter, is not supported; compare with '<' or '>'
    s += a[i];
  return s;
}

__attribute__((differentiable))
double h(const double *a, int n) {
  double s = 0;
  for (int i = 0; i * i < n; i++) // expect-error: cannot differentiate 'h': loop condition 'i * i < n' does not test the counter 'i'
    s += a[i];
  return s;
}

__attribute__((differentiable))
double k(const double *a, unsigned n) {
  double s = 0;
  for (unsigned i = 0; 2 * i - 1 < n; i++) // expect-error: cannot differentiate 'k': loop condition subtracts from the counter in unsigned arithmetic, which may wrap around below zero; not supported (compare 'i < n + 1' instead)
    s += a[i];
  return s;
}

/* `&&`: one part bounds the counter, the others are tested as a break */
__attribute__((differentiable))
double m(const double *a, int n) {
  double s = 0;
  int k = 0;
  for (int i = 0; i < n && k++ < 3; i++) // expect-error: cannot differentiate 'm': loop condition 'i < n && k++ < 3': its part 'k++ < 3' has side effects; not supported
    s += a[i];
  return s;
}

__attribute__((differentiable))
double q(const double *a, int n) {
  double s = 0;
  for (int i = 0; s < 3 && a[i] > 0; i++) // expect-error: cannot differentiate 'q': loop condition 's < 3 && a[i] > 0' is not supported; one of its '&&' parts must compare the counter with '<', '<=', '>', '>=' or '!='
    s += a[i] + n;
  return s;
}
