struct V { double x; };

/* A field written through a pointer is an output: reading it first (in-out)
 * is not supported yet. */
__attribute__((differentiable))
void f(struct V *p, double a) {
  p->x += a; // expect-error: cannot differentiate 'f': reads output 'p_x[0]' before writing it
}
