/* Each function gets its own error; one bad function does not hide the
   next one. */
__attribute__((differentiable))
double f(double x) {
  while (x > 1) // expect-error: cannot differentiate 'f': 'while' loops are not supported yet
    x /= 2;
  return x;
}

__attribute__((differentiable))
double g(const double *x) {
  return *x; // expect-error: cannot differentiate 'g': pointer dereference '*x' is not supported yet
}

__attribute__((differentiable))
double h(double x) {
  return x * x;
}
