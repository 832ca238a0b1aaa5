/* y[0] is read before y is written: y is in-out (DESIGN 1), which reverse
   mode does not take yet (8.7). */
__attribute__((differentiable))
void f(double x, double *y) { // expect-error: cannot differentiate 'f': in-out array parameter 'y' (read before it is overwritten) cannot be differentiated in reverse mode yet
  y[1] = y[0] * x;
  y[0] = x;
}
