/* Calls to user functions need the attribute on the callee. */
double helper(double x) { return 2 * x; }

__attribute__((differentiable))
double f(double x) {
  return helper(x) + 1; // expect-error: cannot differentiate 'f': call to 'helper' which is not differentiable
}
