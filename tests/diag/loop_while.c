__attribute__((differentiable))
double f(double x) {
  while (x > 1) // expect-error: cannot differentiate 'f': loops are not supported yet
    x = x / 2;
  return x;
}
