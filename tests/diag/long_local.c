/* Integer types other than int (and _Bool) are outside the subset. */
__attribute__((differentiable))
double f(double x) {
  long n = 3; // expect-error: cannot differentiate 'f': variable 'n' has type 'long'; only 'int' integers are supported
  return x * n;
}

__attribute__((differentiable))
unsigned g(double x) { // expect-error: cannot differentiate 'g': return type 'unsigned int' is not supported; only 'int' integers are supported
  return x > 0;
}
