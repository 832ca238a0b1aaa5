/* Constant tables can be read (see tests/e2e/tables.c); a global array that
   is not const is state the derivative cannot see, and one whose values
   this translation unit does not know cannot be a table. */
double w[3] = {1, 2, 3};
extern const double v[3]; // expect-error: cannot differentiate 'g': table 'v' has no constant initializer in this translation unit; only tables whose values are known can be read
double m[2][2] = {{1, 2}, {3, 4}};

__attribute__((differentiable))
double f(double x, int i) {
  return w[i] * x; // expect-error: cannot differentiate 'f': reads of global array 'w', which is not a constant table (only const arrays with a constant initializer can be read)
}

__attribute__((differentiable))
double g(double x, int i) {
  return v[i] * x;
}

__attribute__((differentiable))
double h(double x, int i) {
  return m[i][0] * x; // expect-error: cannot differentiate 'h': reads of global array 'm', which is not a constant table (only const arrays with a constant initializer can be read)
}
