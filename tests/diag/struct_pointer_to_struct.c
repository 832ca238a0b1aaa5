struct V {
  double x;
  struct V *next; // expect-error: cannot differentiate 'f': parameter 'v': field 'next' has type 'struct V *'; only pointers to double, float or integers are supported in structs
};

__attribute__((differentiable))
double f(struct V v) { return v.x; }

struct W { double x; };

__attribute__((differentiable))
double g(struct W v) {
  struct W *q = &v; // expect-error: cannot differentiate 'g': local pointer to a struct 'q' is not supported
  return q->x;
}
