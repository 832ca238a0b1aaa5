__attribute__((differentiable))
double f(double x, int k) {
  return x * (k << 1); // expect-error: cannot differentiate 'f': operator '<<' is not supported
}
