/* 'do' loops are accepted (tests/e2e/while_loops.c) when only scalars
   change in them; a do loop nested in a for loop that writes the for
   loop's array at another index is not yet. */
__attribute__((differentiable))
void f(const double *a, double *y, int n) {
  for (int i = 0; i < n; i++) {
    int k = 0;
    do {
      y[k] += a[i]; // expect-error: cannot differentiate 'f': a 'while' or 'do' loop writes array 'y'; not supported yet (only scalars may change in such loops)
      k++;
    } while (k < i);
  }
}
