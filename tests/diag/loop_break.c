/* 'break' is accepted in 'for' loops (tests/e2e/jumps.c); what stays out. */
__attribute__((differentiable))
double f(const double *a, double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) { // expect-error: cannot differentiate 'f': a loop with 'break' or 'return' that writes arrays is not supported yet
    if (a[i] < 0)
      break;
    y[i] = a[i];
  }
  return s;
}

__attribute__((differentiable))
double g(const double *a, int n) {
  double s = 0;
  int i; // expect-error: cannot differentiate 'g': the counter 'i' of a loop with 'break' is read after the loop; not supported yet (count the iterations in a variable of its own)
  for (i = 0; i < n; i++) {
    if (a[i] < 0)
      break;
    s += a[i];
  }
  return s * i;
}
