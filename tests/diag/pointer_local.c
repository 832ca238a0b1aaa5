__attribute__((differentiable))
double f(double x) {
  double y = x;
  return *&y; // expect-error: cannot differentiate 'f': pointers are not supported yet
}
