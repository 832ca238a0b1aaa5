__attribute__((differentiable))
double f(double x) {
start: // expect-error: cannot differentiate 'f': labels are not supported
  return x;
}
