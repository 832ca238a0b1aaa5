struct S { double *w; };

__attribute__((differentiable))
double f(struct S *s, double *y) {
  y[0] = 1.0;
  s->w = y; // expect-error: cannot differentiate 'f': pointer field 'w' of 's' is assigned; a pointer field may only be read through
  return y[0];
}
