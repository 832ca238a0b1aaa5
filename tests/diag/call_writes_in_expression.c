__attribute__((differentiable))
double fill(double *y, double v) {
  y[0] = v;
  return v;
}

__attribute__((differentiable))
double f(double x, double *y) {
  return 1 + fill(y, x); // expect-error: cannot differentiate 'f': call to 'fill', which writes output arrays, must be a statement of its own
}
