/* A struct a call returns may initialise or be assigned to a struct, be
 * returned, be dropped (tests/e2e/struct_calls.c), or be used inside an
 * expression, `g(a).x` or `norm(g(a))` (tests/e2e/struct_call_values.c):
 * the call then runs into a temporary just before its statement. Where C
 * may skip the call or run it again (a branch of ?:, the right of && or
 * ||, a loop's test) that would change what runs: refused, as is a struct
 * returned by a function chad cannot see. */
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
  return a > 0 ? g(a).x : 0; // expect-error: cannot differentiate 'f': struct returned by 'g(a)' inside an operand C may skip or repeat (a branch of ?:, the right of &&, || or a comma, a loop's test or step) is not supported; assign it to a local first
}

__attribute__((differentiable))
double h(double a) {
  return a > 0 && norm(g(a)) > 1 ? 1.0 : a; // expect-error: cannot differentiate 'h': struct returned by 'g(a)' inside an operand C may skip or repeat (a branch of ?:, the right of &&, || or a comma, a loop's test or step) is not supported; assign it to a local first
}

__attribute__((differentiable))
double w(double a) {
  while (g(a).x < 10) // expect-error: cannot differentiate 'w': struct returned by 'g(a)' inside an operand C may skip or repeat (a branch of ?:, the right of &&, || or a comma, a loop's test or step) is not supported; assign it to a local first
    a *= 2;
  return a;
}

__attribute__((differentiable))
double k(double a) {
  struct V r = ext(a); // expect-error: cannot differentiate 'k': a struct returned by a call of 'ext', which is not differentiable, is not supported
  return r.x;
}

__attribute__((differentiable))
double e(double a) {
  return norm(ext(a)); // expect-error: cannot differentiate 'e': a struct returned by a call of 'ext', which is not differentiable, is not supported
}
