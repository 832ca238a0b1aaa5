union U { double a; int b; };

__attribute__((differentiable))
double f(union U u) { // expect-error: cannot differentiate 'f': parameter 'u': union 'U' is not supported
  return u.a;
}
