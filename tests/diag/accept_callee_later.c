/* f and h call g before g is defined: their prototypes come right after
   them, their definitions right after g, in dependency order. */
// diag-args: -std=c99 -Wall -Wextra -pedantic -Werror
__attribute__((differentiable)) double g(double x, double y);

__attribute__((differentiable))
double f(double x) { return g(x, 2 * x) + x; }

__attribute__((differentiable))
double h(double x) { return f(x) * f(x); }

double early(double x) {
  double d = 0;
  return h_fwd(x, 1.0, &d) + d; /* only the prototype is known here */
}

__attribute__((differentiable))
double g(double x, double y) { return x * y - y; }

double late(double x) {
  double xb = 0;
  return h_rev(x, &xb, 1.0) + xb;
}
