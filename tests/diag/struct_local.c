struct point { double x, y; };

__attribute__((differentiable))
double f(double x) {
  struct point p = {x, x}; // expect-error: cannot differentiate 'f': struct types are not supported
  return p.x;
}
