/* A callee whose array parameter is in-out (read before it is overwritten,
   DESIGN 1): a whole array passed to it is updated (e2e/calls_output.c);
   a pointer into an array is not supported yet. */
__attribute__((differentiable))
void bump(double *p, double a) {
  p[0] += a;
}

__attribute__((differentiable))
double f(double x) {
  double t[2] = {1, 2};
  bump(&t[1], x); // expect-error: cannot differentiate 'f': call to 'bump', whose parameter 'p' is in-out (read before it is overwritten), with '&t[1]', which is not a whole array; not supported yet
  return t[0] * t[1];
}
