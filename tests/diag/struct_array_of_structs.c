struct V { double x; };
struct S {
  struct V v[2]; // expect-error: cannot differentiate 'f': parameter 's': field 'v' is an array of structs; not supported
};

__attribute__((differentiable))
double f(struct S s) { return s.v[0].x; }

__attribute__((differentiable))
double g(const struct V *p, int i) {
  return p[i].x; // expect-error: cannot differentiate 'g': array of structs ('p[i].x') is not supported
}
