/* The attribute only applies to functions. */
__attribute__((differentiable)) double v = 1.0; // expect-warning: 'differentiable' attribute only applies to functions; ignored

typedef double unary(double) __attribute__((differentiable)); // expect-warning: 'differentiable' attribute only applies to functions; ignored

double f(double x __attribute__((differentiable))) { // expect-warning: 'differentiable' attribute only applies to functions; ignored
  return x + v;
}
