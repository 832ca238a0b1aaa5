/* A pointer into an array passed as a callee's output array is not
   supported yet (calls that write arrays through views). */
__attribute__((differentiable))
void half(const double *x, double *out) { out[0] = 0.5 * x[0]; }

__attribute__((differentiable))
void f(const double *x, double *y) {
  y[0] = x[0];
  half(x, &y[1]); // expect-error: cannot differentiate 'f': a pointer into an array ('&y[1]') passed as output array of 'half'; not supported yet
}
