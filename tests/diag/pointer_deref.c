__attribute__((differentiable))
double f(const double *p, double x) {
  return *p * x; // expect-error: cannot differentiate 'f': pointer dereference '*p' is not supported yet
}
