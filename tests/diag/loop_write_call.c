__attribute__((differentiable))
void fill(double *y, double v) { y[0] = v; }

__attribute__((differentiable))
void f(double *y, double x, int n) {
  for (int i = 0; i < n; i++)
    fill(y, x); // expect-error: cannot differentiate 'f': loop writes array 'y' through a call to 'fill'; not supported yet
}
