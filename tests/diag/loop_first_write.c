__attribute__((differentiable))
void f(const double *x, double *y, int n) {
  for (int i = 1; i < n; i++)
    y[i] = x[i]; // expect-error: cannot differentiate 'f': 'y' is first written by a loop from index '1' up, not from 0
  y[0] = 0;
}
