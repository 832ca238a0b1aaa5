/* Integer types beyond the standard ones stay outside the subset. */
__attribute__((differentiable))
double f(double x, __int128 n) { // expect-error: cannot differentiate 'f': parameter 'n' has type '__int128'; only the standard integer types are supported
  return x * (double)n;
}
