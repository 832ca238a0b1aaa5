/* A struct a call returns may initialise or be assigned to a struct, be
 * returned, or be dropped (tests/e2e/struct_calls.c); used as a value in
 * an expression, or returned by a function chad cannot see, it is refused. */
struct V { double x; };

__attribute__((differentiable))
struct V g(double a) {
  struct V r = {a};
  return r;
}

__attribute__((differentiable))
double norm(struct V v) { return v.x * v.x; }

struct V ext(double a);

__attribute__((differentiable))
double f(double a) {
  return g(a).x; // expect-error: cannot differentiate 'f': field access 'g(a).x' is not supported (only fields of struct parameters and locals)
}

__attribute__((differentiable))
double h(double a) {
  return norm(g(a)); // expect-error: cannot differentiate 'h': struct argument 'g(a)' of 'norm' is not supported (pass a struct variable, a field of one, or its address)
}

__attribute__((differentiable))
double k(double a) {
  struct V r = ext(a); // expect-error: cannot differentiate 'k': a struct returned by a call of 'ext', which is not differentiable, is not supported
  return r.x;
}
