__attribute__((differentiable))
double f(long double x) { // expect-error: cannot differentiate 'f': unsupported parameter type 'long double'
  return (double)x;
}
