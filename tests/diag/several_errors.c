/* Each function gets its own error; one bad function does not hide the
   next one. */
__attribute__((differentiable))
double f(double x) {
  switch ((int)x) { // expect-error: cannot differentiate 'f': switch statements are not supported
  default:
    x /= 2;
  }
  return x;
}

__attribute__((differentiable))
double g(const double *x) {
  goto end; // expect-error: cannot differentiate 'g': goto is not supported
end:
  return x[0];
}

__attribute__((differentiable))
double h(double x) {
  return x * x;
}
