__attribute__((differentiable))
double f(double x) {
  if (x > 0)
    goto done; // expect-error: cannot differentiate 'f': goto is not supported
  x = -x;
done:
  return x;
}
