/* 'return' inside 'for' loops is accepted (tests/e2e/jumps.c), also when
   it writes arrays carried whole (tests/e2e/updates_loops.c); not an
   output first written by such a loop. */
__attribute__((differentiable))
void f(const double *a, double *y, int n) {
  for (int i = 0; i < n; i++) {
    if (a[i] < 0)
      return;
    y[i] = a[i]; // expect-error: cannot differentiate 'f': loop writes output 'y' at 'i' before it is written from index 0 up; not supported (write the whole output first, or in order 'y[i] = ...' at the loop counter)
  }
}
