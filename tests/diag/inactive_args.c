/* A parameter the caller did not mark, passed (itself, an element or a
   view of it) to a callee's parameter marked CHAD_INACTIVE: the mark would
   drop its derivative through the call without a word, so it is refused.
   Marked data passed on to marked parameters is accepted (e2e/inactive.c). */
#define CHAD_INACTIVE __attribute__((annotate("chad_inactive")))

__attribute__((differentiable))
double scale(CHAD_INACTIVE const double *d, double x) { return d[0] * x; }

__attribute__((differentiable))
double whole(const double *a, double x) {
  return scale(a, x); // expect-error: cannot differentiate 'whole': 'a' is active but passed to parameter 'd' of 'scale', which is marked CHAD_INACTIVE: its derivative would be lost; mark 'a' CHAD_INACTIVE too, or drop the mark on 'd'
}

__attribute__((differentiable))
double view(const double *a, int n, double x) {
  const double *row = a + n;
  return scale(row, x); // expect-error: cannot differentiate 'view': 'a' is active but passed to parameter 'd' of 'scale'
}

__attribute__((differentiable))
double weight(CHAD_INACTIVE double c, double x) { return c * x; }

__attribute__((differentiable))
double element(const double *a, double x) {
  return weight(a[1], x); // expect-error: cannot differentiate 'element': 'a' is active but passed to parameter 'c' of 'weight'
}

struct pt { double w; int n; };

__attribute__((differentiable))
double by_struct(CHAD_INACTIVE struct pt p, double x) { return p.w * x; }

__attribute__((differentiable))
double pass_struct(struct pt q, double x) {
  return by_struct(q, x); // expect-error: cannot differentiate 'pass_struct': 'q_w' is active but passed to parameter 'p_w' of 'by_struct'
}

__attribute__((differentiable))
double marked(CHAD_INACTIVE const double *a, CHAD_INACTIVE double c, double x) {
  return scale(a, x) + weight(c, x) + weight(a[0], x);
}

/* a local copy of a marked struct shares its data: the pointer field,
   passed on to an unmarked parameter, would need an adjoint array the
   caller never gave */
struct vw { const double *p; int n; double s; };

__attribute__((differentiable))
double reads_view(const struct vw *v, double x) { return v->p[0] * v->s * x; }

__attribute__((differentiable))
double copied(CHAD_INACTIVE const struct vw *d, double x) {
  struct vw l = *d;
  l.s = x * x;
  return reads_view(&l, x); // expect-error: cannot differentiate 'copied': array 'd_p' is marked inactive but passed to 'reads_view', whose parameter 'v_p' is active
}
