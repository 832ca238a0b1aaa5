__attribute__((differentiable))
double f(double x) {
  static double calls = 0; // expect-error: cannot differentiate 'f': static local variables are not supported
  calls += 1;
  return x * calls;
}
