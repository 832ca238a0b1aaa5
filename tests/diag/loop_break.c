/* 'break' is accepted in 'for' loops (tests/e2e/jumps.c), also when the
   loop writes arrays (tests/e2e/updates_loops.c); what stays out: an output
   first written by such a loop, whose length no trip count gives. Its
   counter read after it is accepted (tests/e2e/loop_conjunctions.c). */
__attribute__((differentiable))
double f(const double *a, double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    if (a[i] < 0)
      break;
    y[i] = a[i]; // expect-error: cannot differentiate 'f': loop writes output 'y' at 'i' before it is written from index 0 up; not supported (write the whole output first, or in order 'y[i] = ...' at the loop counter)
  }
  return s;
}
