__attribute__((differentiable))
double f(double x, ...) { // expect-error: cannot differentiate 'f': variadic functions are not supported
  return x;
}
