/* A call to a differentiable function that writes output arrays is not
   differentiated yet: a located error, not a wrong derivative. */
#define D __attribute__((differentiable))

D void square(const double *x, double *y) { y[0] = x[0] * x[0]; }

D double call_with_output(double a) {
  double in[1] = {a}, out[1];
  square(in, out); // expect-error: cannot differentiate 'call_with_output': call to 'square', which writes output arrays: not supported yet
  return out[0];
}
