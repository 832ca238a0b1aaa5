__attribute__((differentiable))
void f(const double *x, double *y, int n) {
  y[0] = 0;
  for (int i = 0; i < n; i++)
    y[i + 1] = x[i]; // expect-error: cannot differentiate 'f': loop writes 'y[i + 1]' at an index other than its counter 'i'
}
