__attribute__((differentiable))
double f(double x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) // expect-error: cannot differentiate 'f': loops are not supported yet
    s += x;
  return s;
}
