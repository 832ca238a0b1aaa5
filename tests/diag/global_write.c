double g;

__attribute__((differentiable))
double f(double x) {
  g = x; // expect-error: cannot differentiate 'f': writes to global variable 'g'
  return x;
}
