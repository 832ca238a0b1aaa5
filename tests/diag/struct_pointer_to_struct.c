#include <stdlib.h>
struct V {
  double x;
  struct V *next; // expect-error: cannot differentiate 'f': parameter 'v': field 'next' has type 'struct V *'; only pointers to double, float or integers are supported in structs
};

__attribute__((differentiable))
double f(struct V v) { return v.x; }

struct W { double x; };

/* a local pointer to a struct names one struct for good */
__attribute__((differentiable))
double g(struct W v, struct W u) {
  struct W *q = &v;
  q = &u; // expect-error: cannot differentiate 'g': local pointer to a struct 'q' is reassigned or its address taken; a pointer to a struct must keep the address it is initialised with
  return q->x;
}

__attribute__((differentiable))
double h(struct W v) {
  struct W *q; // expect-error: cannot differentiate 'h': local pointer to a struct 'q' is declared without an initialiser; initialise it with the struct's address where it is declared
  q = &v;
  return q->x;
}

struct W *some_w(void);

/* (`struct W *q = malloc(...)` is an array of structs from the heap:
 * struct_heap_arrays.c) */
__attribute__((differentiable))
double k(double a) {
  struct W *q = some_w(); // expect-error: cannot differentiate 'k': local pointer to a struct 'q' is initialised with 'some_w()'; only the address of a struct variable or of a struct field, or another such pointer, is supported
  q->x = a;
  return q->x;
}

__attribute__((differentiable))
double m(const struct W *w, int i, int j) {
  const struct W *p = &w[i];
  return p->x * (w + j)->x;
}

struct P2 { double a, b; };

__attribute__((differentiable))
double n(const struct P2 *w, int i) {
  struct P2 c = w[i++]; // expect-error: cannot differentiate 'n': struct 'w[i++]' of an array of structs is copied or passed whole at an index with side effects; not supported
  return c.a * w[i].b;
}

/* a pointer into an array of structs moves within that array only */
__attribute__((differentiable))
double q2(const struct W *a, const struct W *b, int n) {
  const struct W *p = &a[0];
  p = &b[1]; // expect-error: cannot differentiate 'q2': '&b[1]' is not a struct of the same array of structs; not supported
  return p->x + a[n].x + b[n].x;
}

__attribute__((differentiable))
double q3(const struct W *a, int n) {
  double s = 0;
  for (const struct W *p = a + n - 1; p >= a; p--)
    s += p->x * a[0].x;
  return s;
}
