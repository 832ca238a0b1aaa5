__attribute__((differentiable))
double f(const double *a) {
  const double *p = a; // expect-error: cannot differentiate 'f': local pointer variable 'p' is not supported yet
  return p[0];
}
