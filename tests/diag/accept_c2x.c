/* The C2x spelling. */
// diag-args: -std=c2x -Wall -Wextra -pedantic -Werror
[[chad::differentiable]] double f(double x, double y) { return x / y; }

double use(void) {
  double d = 0;
  return f_fwd(1.0, 1.0, 2.0, 0.0, &d) + d;
}
