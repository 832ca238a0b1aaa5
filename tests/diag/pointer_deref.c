/* '*p' reads p[0] and '*y = v' writes an output's y[0]; writes through a
   local pointer are not supported yet. */
__attribute__((differentiable))
void f(double *y, double x) {
  *y = x;
  double *p = y + 1;
  *p = x * x; // expect-error: cannot differentiate 'f': writes through pointer 'p' are not supported yet (write the array it points into)
}
