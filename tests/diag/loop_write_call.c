__attribute__((differentiable))
void fill(double *y, double v) { y[0] = v; }

__attribute__((differentiable))
void f(double *y, double x, int n) {
  for (int i = 0; i < n; i++)
    fill(y, x); // expect-error: cannot differentiate 'f': loop passes output 'y' to 'fill' before it is written whole
}

// Outside the block-per-iteration form, a view of an output written by a
// callee in a loop is a slice of an array with no length in C.
__attribute__((differentiable))
void fill_n(int d, const double *x, double *out) {
  for (int j = 0; j < d; j++)
    out[j] = x[j];
}

__attribute__((differentiable))
void g(int n, int d, const double *x, double *y) {
  for (int i = 0; i < n; i++)
    fill_n(d, x, &y[d * i]); // expect-error: cannot differentiate 'g': loop passes output 'y' to 'fill_n' before it is written whole
}

// The view must be at m*i + c, its blocks filling each stride, for an
// output.
__attribute__((differentiable))
void h(int n, const double *x, double *y) {
  for (int i = 0; i < n; i++)
    fill(&y[3 * i], x[i]); // expect-error: cannot differentiate 'h': loop passes output 'y' to 'fill' before it is written whole
}

__attribute__((differentiable))
void k(int n, const double *x, double *y) {
  for (int i = 0; i < n; i++) {
    fill(&y[2 * i], x[i]); // expect-error: cannot differentiate 'k': loop passes output 'y' to 'fill' before it is written whole
    fill(&y[2 * i + 1], y[2 * i]);
  }
}
