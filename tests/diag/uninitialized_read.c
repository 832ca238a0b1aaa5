__attribute__((differentiable))
double f(double x) {
  double t;
  return t + x; // expect-error: cannot differentiate 'f': 't' is read before it is assigned
}
