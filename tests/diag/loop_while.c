/* 'while' loops are accepted (tests/e2e/while_loops.c), also when they
   write arrays carried whole (tests/e2e/updates_loops.c); not an output
   first written by such a loop, whose length no trip count gives. */
__attribute__((differentiable))
void f(const double *a, double *y, int n) {
  int i = 0;
  while (i < n) {
    y[i] = a[i] * 2; // expect-error: cannot differentiate 'f': loop writes output 'y' at 'i' before it is written from index 0 up; not supported (write the whole output first, or in order 'y[i] = ...' at the loop counter)
    i++;
  }
}
