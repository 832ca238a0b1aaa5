/* 'do' loops are accepted (tests/e2e/while_loops.c), also nested in a for
   loop and writing its array at another index (tests/e2e/updates_loops.c).
   Here y is read first (`+=`): in-out, which reverse mode does not take
   yet (DESIGN 8.7). */
__attribute__((differentiable))
void f(const double *a, double *y, int n) { // expect-error: cannot differentiate 'f': in-out array parameter 'y' (read before it is overwritten) cannot be differentiated in reverse mode yet
  for (int i = 0; i < n; i++) {
    int k = 0;
    do {
      y[k] += a[i];
      k++;
    } while (k < i);
  }
}
