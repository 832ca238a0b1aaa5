/* 'continue' is accepted in 'for' loops (tests/e2e/jumps.c); a 'continue'
   of an inner loop that is flattened with its outer one is not. */
__attribute__((differentiable))
void f(const double *a, double *y, int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      if (a[j] < 0)
        continue; // expect-error: cannot differentiate 'f': 'continue' here is not supported yet (only in the body of a loop that is not nested in a loop flattened with it)
      y[i * n + j] = a[j];
    }
}
