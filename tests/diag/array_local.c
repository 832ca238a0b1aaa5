__attribute__((differentiable))
double f(double x) {
  double a[2]; // expect-error: cannot differentiate 'f': arrays are not supported yet
  a[0] = x;
  return a[0];
}
