/* 'while' loops are accepted (tests/e2e/while_loops.c) when only scalars
   change in them; a while loop that writes an array is not yet. */
__attribute__((differentiable))
void f(const double *a, double *y, int n) {
  int i = 0;
  while (i < n) {
    y[i] = a[i] * 2; // expect-error: cannot differentiate 'f': a 'while' or 'do' loop writes array 'y'; not supported yet (only scalars may change in such loops)
    i++;
  }
}
