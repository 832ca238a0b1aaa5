__attribute__((differentiable))
void fill(double *y, double v) { y[0] = v; }

__attribute__((differentiable))
void f(double *y, double x, int n) {
  for (int i = 0; i < n; i++)
    fill(y, x); // expect-error: cannot differentiate 'f': loop passes output 'y' to 'fill' before it is written whole
}

// A block per iteration through a view needs the callee's output length as
// a constant.
__attribute__((differentiable))
void fill_n(int d, const double *x, double *out) {
  for (int j = 0; j < d; j++)
    out[j] = x[j];
}

__attribute__((differentiable))
void g(int n, int d, const double *x, double *y) {
  for (int i = 0; i < n; i++)
    fill_n(d, x, &y[d * i]); // expect-error: cannot differentiate 'g': loop writes array 'y' through a call to 'fill_n'; not supported yet ('fill_n' must write its output 'out' at constant indices only, so that the block it writes has a known length)
}

// The view must be at m*i + c, its blocks filling each stride.
__attribute__((differentiable))
void h(int n, const double *x, double *y) {
  for (int i = 0; i < n; i++)
    fill(&y[3 * i], x[i]); // expect-error: cannot differentiate 'h': loop writes array 'y' through a call to 'fill' at '&y[3 * i]'; supported only as a block per iteration
}

__attribute__((differentiable))
void k(int n, const double *x, double *y) {
  for (int i = 0; i < n; i++) {
    fill(&y[2 * i], x[i]); // expect-error: cannot differentiate 'k': loop writes array 'y' through a call to 'fill' at '&y[2 * i]'; supported only as a block per iteration
    fill(&y[2 * i + 1], y[2 * i]);
  }
}
