/* Integer types other than int (and _Bool) are outside the subset. */
__attribute__((differentiable))
double f(double x) {
  long n = 3; // expect-error: cannot differentiate 'f': unsupported variable type 'long'
  return x * n;
}

__attribute__((differentiable))
unsigned g(double x) { // expect-error: cannot differentiate 'g': unsupported return type 'unsigned int'
  return x > 0;
}
