__attribute__((differentiable))
double f(double x, int *idx) {
  idx[0] = 1; // expect-error: cannot differentiate 'f': writes to integer array parameter 'idx' are not supported
  return x;
}
