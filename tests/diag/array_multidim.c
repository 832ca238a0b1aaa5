__attribute__((differentiable))
double f(double x) {
  double m[2][2]; // expect-error: cannot differentiate 'f': multi-dimensional arrays are not supported yet
  m[0][0] = x;
  return m[0][0];
}
