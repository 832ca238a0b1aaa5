struct point { double x, y; };

__attribute__((differentiable))
double f(struct point p) { // expect-error: cannot differentiate 'f': struct types are not supported
  return p.x;
}
