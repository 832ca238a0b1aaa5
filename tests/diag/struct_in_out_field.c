struct V { double x; };

/* A field written through a pointer after it is read is in-out, which
 * reverse mode does not take yet (DESIGN 8.7). */
__attribute__((differentiable))
void f(struct V *p, double a) { // expect-error: cannot differentiate 'f': in-out array field 'p_x' (read before it is overwritten) cannot be differentiated in reverse mode yet
  p->x += a;
}
