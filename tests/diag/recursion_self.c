__attribute__((differentiable))
double f(double x, int n) {
  if (n <= 0)
    return x;
  return x * f(x, n - 1); // expect-error: cannot differentiate 'f': recursion ('f' calls itself)
}
