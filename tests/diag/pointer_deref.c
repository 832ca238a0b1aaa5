/* '*p' reads p[0] and '*y = v' writes an output's y[0]; a local pointer
   that points into one array and then into another is not supported yet. */
__attribute__((differentiable))
void f(double *y, double *z, double x) {
  *y = x;
  *z = x;
  double *p = y;
  if (x > 0)
    p = z; // expect-error: cannot differentiate 'f': assigning pointer 'p' after its declaration is supported only when it always points into the same array
  *p = x * x;
}
