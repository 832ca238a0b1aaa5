/* A function made by a macro, and one that ends the file without a
   newline after its closing brace. */
// diag-args: -std=c99 -Wall -Wextra -Werror
#define SQUARE_FN(name) \
  __attribute__((differentiable)) double name(double x) { return x * x; }

SQUARE_FN(sq)

double use(double x) {
  double d = 0;
  return sq_fwd(x, 1.0, &d) + d;
}

__attribute__((differentiable)) double last(double x) { return -x; }