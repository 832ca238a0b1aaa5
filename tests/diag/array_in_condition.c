__attribute__((differentiable))
double f(const double *a, double x) {
  if (a) // expect-error: cannot differentiate 'f': use of array 'a' other than indexing it or passing it to a differentiable function is not supported yet
    return x;
  return 0;
}
