__attribute__((differentiable))
double f(double x, int k) {
  switch (k) { // expect-error: cannot differentiate 'f': switch statements are not supported
  case 0:
    return x;
  default:
    return 2 * x;
  }
}
