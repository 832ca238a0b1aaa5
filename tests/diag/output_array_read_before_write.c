__attribute__((differentiable))
void f(const double *x, double *y, int n) {
  for (int i = 0; i < n; i++)
    y[i] += x[i]; // expect-error: cannot differentiate 'f': accumulates into 'y' before writing it
}
