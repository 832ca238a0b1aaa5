/* Every path must return; clang's own warning comes at the same place. */
__attribute__((differentiable))
double f(double x) {
  if (x > 0)
    return x;
} // expect-error: cannot differentiate 'f': missing return // expect-warning: non-void function does not return a value in all control paths
