/* 'return' inside 'for' loops is accepted (tests/e2e/jumps.c); a loop that
   returns and writes an array is not yet. */
__attribute__((differentiable))
void f(const double *a, double *y, int n) {
  for (int i = 0; i < n; i++) { // expect-error: cannot differentiate 'f': a loop with 'break' or 'return' that writes arrays is not supported yet
    if (a[i] < 0)
      return;
    y[i] = a[i];
  }
}
