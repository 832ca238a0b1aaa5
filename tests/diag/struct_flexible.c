struct S {
  int n;
  double a[]; // expect-error: cannot differentiate 'f': parameter 's': field 'a' is a flexible array member; not supported
};

__attribute__((differentiable))
double f(const struct S *s) { return s->a[0]; }
