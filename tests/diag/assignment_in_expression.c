/* Assignments inside expressions are accepted (tests/e2e/side_effects.c);
   what stays out is located. */
__attribute__((differentiable))
double f(double x, int k) {
  double y = 0;
  double z = k > 0 && (y = x) > 1 ? 1 : 2; // expect-error: cannot differentiate 'f': assignment 'y = x' in an operand that C evaluates only under a condition (of '&&', '||' or '?:') is not supported
  return z + y;
}

__attribute__((differentiable))
double g(const double *a, int n) {
  double y[4];
  int i = 0;
  double s = (y[i++] = a[0]) * 2; // expect-error: cannot differentiate 'g': assignment to an array element inside an expression ('y[i++] = a[0]') is not supported yet; write it as a statement of its own
  return s + y[0] + n;
}

__attribute__((differentiable))
double h(const double *a, int n) {
  double s = 0;
  for (int i = 0; (s += a[i]) < n; i++) // expect-error: cannot differentiate 'h': loop condition '(s += a[i]) < n' does not test the counter 'i'
    ;
  return s;
}
