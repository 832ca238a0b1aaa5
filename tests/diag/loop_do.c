__attribute__((differentiable))
double f(double x) {
  if (x > 0) {
    do { // expect-error: cannot differentiate 'f': loops are not supported yet
      x = x - 1;
    } while (x > 0);
  }
  return x;
}
