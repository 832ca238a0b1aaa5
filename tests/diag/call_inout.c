/* A callee whose array parameter is in-out (read before it is overwritten,
   DESIGN 1): calls that pass it an array are not supported yet. */
__attribute__((differentiable))
void bump(double *p, double a) {
  p[0] += a;
}

__attribute__((differentiable))
double f(double x) {
  double t[2] = {1, 2};
  bump(t, x); // expect-error: cannot differentiate 'f': call to 'bump', whose parameter 'p' is in-out (read before it is overwritten); not supported yet
  return t[0] * t[1];
}
