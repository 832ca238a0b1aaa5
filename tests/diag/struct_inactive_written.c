#define CHAD_DIFFERENTIABLE __attribute__((differentiable))
#define CHAD_INACTIVE __attribute__((annotate("chad_inactive")))
struct V { double x; double w[2]; };

/* a struct marked inactive is data: it may not be written */
CHAD_DIFFERENTIABLE
double f(CHAD_INACTIVE struct V *v, double a) { // expect-error: cannot differentiate 'f': field 'x' of 'v', a parameter marked inactive, is written; not supported
  v->x = a;
  return a * v->w[1];
}

CHAD_DIFFERENTIABLE
double g(CHAD_INACTIVE const struct V *v, CHAD_INACTIVE struct V u, double a) {
  return a * v->w[1] + u.x;
}
