__attribute__((differentiable))
double f(double x) {
  double y;
  double z = (y = x) * 2; // expect-error: cannot differentiate 'f': assignment inside an expression is not supported
  return z + y;
}

__attribute__((differentiable))
int g(int i) {
  return i++ + 1; // expect-error: cannot differentiate 'g': '++' inside an expression is not supported
}
