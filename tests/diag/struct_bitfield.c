struct S {
  double a;
  int b : 3; // expect-error: cannot differentiate 'f': parameter 's': bit-field 'b' is not supported
};

__attribute__((differentiable))
double f(struct S s) { return s.a * s.b; }
