__attribute__((differentiable))
double f(double x) {
  do { // expect-error: cannot differentiate 'f': 'do' loops are not supported yet
    x /= 2;
  } while (x > 1);
  return x;
}
