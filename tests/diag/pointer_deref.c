/* '*p' reads p[0] and '*y = v' writes an output's y[0]; a local pointer
   that points into one output and then into another writes each under a
   condition, which reverse mode does not take for outputs yet. */
__attribute__((differentiable))
void f(double *y, double *z, double x) {
  *y = x;
  *z = x;
  double *p = y;
  if (x > 0)
    p = z;
  *p = x * x; // expect-error: cannot differentiate 'f': an array made or chosen under a condition cannot be differentiated in reverse mode yet
}
