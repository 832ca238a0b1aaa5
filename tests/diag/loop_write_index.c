__attribute__((differentiable))
void f(const double *x, double *y, int n) {
  y[0] = 0;
  for (int i = 0; i < n; i++)
    y[i + 1] = x[i]; // expect-error: cannot differentiate 'f': a loop updates output 'y' at 'i + 1', which may lie beyond the elements written before the loop; not supported (write the whole output first, or count up to the length it was written with)
}
