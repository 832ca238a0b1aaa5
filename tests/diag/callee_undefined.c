/* A callee declared differentiable must be defined in the same file. */
__attribute__((differentiable)) double g(double x);

__attribute__((differentiable))
double f(double x) {
  return 2 * g(x); // expect-error: cannot differentiate 'f': 'g' is declared differentiable but not defined in this translation unit
}
