/* A running sum written out at each step: y needs the state of every
   iteration, which a build cannot see. */
__attribute__((differentiable))
void f(const double *x, double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += x[i]; // expect-error: cannot differentiate 'f': array 'y' is written from 's', which the loop carries from one iteration to the next; not supported yet
    y[i] = s;
  }
}
