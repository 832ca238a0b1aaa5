/* A callee whose array parameter is in-out (read before it is overwritten,
   DESIGN 1): a whole array passed to it is updated (e2e/calls_output.c), and
   a view of one at the slice the callee's code bounds (e2e/view_calls.c).
   A callee that indexes the parameter where its code gives no bound, or
   two views that may overlap, are refused. */
__attribute__((differentiable))
void bump(double *p, double a) {
  p[0] += a;
}

__attribute__((differentiable))
void scatter(double *p, const int *idx, double a) {
  p[idx[0]] += a;
}

__attribute__((differentiable))
void swap_add(double *p, double *q) {
  p[0] += q[0];
  q[0] += p[0];
}

__attribute__((differentiable))
double f(double x, const int *idx, int k) {
  double t[4] = {1, 2, 3, 4};
  bump(&t[1], x);
  scatter(&t[1], idx, x); // expect-error: cannot differentiate 'f': call to 'scatter' writes its parameter 'p' at the view '&t[1]', but which of its elements 'scatter' touches is not bounded by its parameters
  return t[0] * t[1];
}

__attribute__((differentiable))
double g(double x, int k) {
  double t[4] = {1, 2, 3, x};
  swap_add(&t[0], &t[k]); // expect-error: cannot differentiate 'g': '&t[0]' and '&t[k]', passed to 'swap_add', which writes them, may overlap
  return t[0] * t[1];
}

/* the element before the view: u[j - 1] from j = 0 reads t[0] */
__attribute__((differentiable))
void back(int n, double *u) {
  for (int j = 0; j < n; j++)
    u[j] += 0.5 * u[j - 1];
}

__attribute__((differentiable))
double h(double x) {
  double t[4] = {1, 2, x, 4};
  back(2, &t[1]); // expect-error: cannot differentiate 'h': call to 'back' writes its parameter 'u' at the view '&t[1]', but which of its elements 'back' touches is not bounded by its parameters (index 'u' at constants, at 'k * i + c' of the counter of a loop 'for (i = c0; i < n; i++)' whose bound is a parameter, never below 0, or at 'k * m + c' of a parameter m given a constant or a local array); not supported
  return t[0] * t[1];
}

/* the element at a parameter, v[m - 1]: the element before an interior
 * view when m is 0, so only a constant m (or the start of a local array)
 * bounds it */
__attribute__((differentiable))
void last_up(int m, double *v, double a) { v[m - 1] *= a; }

__attribute__((differentiable))
double k(double x, int m) {
  double t[4] = {1, 2, x, 4};
  last_up(2, &t[1], x);
  last_up(m, t, x);
  last_up(m, &t[1], x); // expect-error: cannot differentiate 'k': call to 'last_up' writes its parameter 'v' at the view '&t[1]', but which of its elements 'last_up' touches is not bounded by its parameters (index 'v' at constants, at 'k * i + c' of the counter of a loop 'for (i = c0; i < n; i++)' whose bound is a parameter, never below 0, or at 'k * m + c' of a parameter m given a constant or a local array); not supported
  return t[0] * t[1];
}
