struct V { double x; int n; };

__attribute__((differentiable))
struct V f(double a) { // expect-error: cannot differentiate 'f': the result's field 'n' is an integer; a returned struct may only hold floating scalars and arrays
  struct V r = {a, 1};
  return r;
}
