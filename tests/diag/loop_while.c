__attribute__((differentiable))
double f(double x) {
  while (x > 1) // expect-error: cannot differentiate 'f': 'while' loops are not supported yet
    x /= 2;
  return x;
}
