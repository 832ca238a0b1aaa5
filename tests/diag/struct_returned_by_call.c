struct V { double x; };

__attribute__((differentiable))
struct V g(double a) {
  struct V r = {a};
  return r;
}

__attribute__((differentiable))
double f(double a) {
  struct V r = g(a); // expect-error: cannot differentiate 'f': a struct returned by a call ('g(a)') is not supported yet
  return r.x;
}
