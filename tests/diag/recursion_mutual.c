/* The cycle is found when it closes, at g's call of f. */
__attribute__((differentiable)) double g(double x, int n);

__attribute__((differentiable))
double f(double x, int n) {
  if (n <= 0)
    return x;
  return g(x, n - 1) * x;
}

__attribute__((differentiable))
double g(double x, int n) {
  return f(x, n) + 1; // expect-error: cannot differentiate 'g': recursion ('g' calls 'f', which calls 'g')
}
