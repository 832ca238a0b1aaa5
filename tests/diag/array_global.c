static const double w[3] = {1, 2, 3};

__attribute__((differentiable))
double f(double x, int i) {
  return w[i] * x; // expect-error: cannot differentiate 'f': reads of global array 'w' are not supported
}
