/* Scratch memory (tests/e2e/scratch_memory.c) that stays refused: sizes
   that are not a count of elements, allocations where lowering cannot see
   them, memset to a value other than 0, frees and writes it cannot follow,
   and uses after free. (A memcpy under a condition is differentiated:
   e2e/branch_one_side.c.) */
#include <stdlib.h>
#include <string.h>

__attribute__((differentiable))
double bytes(double x, int n) {
  double *t = malloc(n * 4); // expect-error: cannot differentiate 'bytes': size 'n * 4' of 't' is not a whole number of 'double' elements (write it as a count times 'sizeof(double)')
  t[0] = x;
  return t[0];
}

__attribute__((differentiable))
double other_type(double x, int n) {
  double *t = calloc(n, sizeof(float *)); // expect-error: cannot differentiate 'other_type': 'sizeof(float *)' in the size of 't' does not match its element type 'double'
  t[0] = x;
  return t[0];
}

__attribute__((differentiable))
double dropped(double x) {
  (void)malloc(8); // expect-error: cannot differentiate 'dropped': call to 'malloc' is supported only as the initialiser of a local pointer to numbers ('double *t = malloc(...);')
  return x;
}

__attribute__((differentiable))
double assigned(double x, int n) {
  double *t = malloc(n * sizeof *t);
  free(t);
  t = malloc(n * sizeof *t); // expect-error: cannot differentiate 'assigned': assigning pointer 't' after its declaration is supported only when it always points into the same array
  t[0] = x;
  return t[0];
}

__attribute__((differentiable))
double ones(double x, int n) {
  double *t = malloc(n * sizeof *t);
  memset(t, 1, n * sizeof *t); // expect-error: cannot differentiate 'ones': memset of 't' to '1': only 0 is supported
  return t[0] * x;
}

__attribute__((differentiable))
double frees_param(const double *x) {
  free((void *)x); // expect-error: cannot differentiate 'frees_param': free of '(void *)x', which is not a pointer this function allocated with malloc, calloc or realloc
  return x[0];
}

__attribute__((differentiable))
double after_free(double x, int n) {
  double *t = malloc(n * sizeof *t);
  t[0] = x;
  free(t);
  return t[0]; // expect-error: cannot differentiate 'after_free': 't' is used after freeing it
}

__attribute__((differentiable))
double maybe_freed(double x, int n) {
  double *t = malloc(n * sizeof *t);
  t[0] = x;
  if (x > 0)
    free(t); // expect-error: cannot differentiate 'maybe_freed': free of 't' in a branch that goes on after its 'if' is not supported
  return x;
}

__attribute__((differentiable))
double loop_memset(const double *x, int n) {
  double *t = calloc(n, sizeof *t);
  double s = 0;
  for (int i = 0; i < n; i++) {
    memset(t, 0, n * sizeof *t); // expect-error: cannot differentiate 'loop_memset': loop writes array 't' through 'memset'; not supported yet
    s += x[i];
  }
  free(t);
  return s;
}

__attribute__((differentiable))
double loop_free(const double *x, int n) {
  double *t = calloc(n, sizeof *t);
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += x[i];
    if (i == n - 1)
      free(t); // expect-error: cannot differentiate 'loop_free': loop frees 't', which is allocated outside it; free it after the loop
  }
  return s;
}

__attribute__((differentiable))
double realloc_other(double x, int n) {
  double *t = malloc(n * sizeof *t);
  t[0] = x;
  double *u = realloc(t, 2 * n * sizeof *t); // expect-error: cannot differentiate 'realloc_other': realloc into another pointer ('u') is not supported; reallocate in place, 'p = realloc(p, ...)'
  return u[0];
}

__attribute__((differentiable))
double unwritten(double x, int n) {
  double *t = malloc(n * sizeof *t);
  double y = t[1] * x; // expect-error: cannot differentiate 'unwritten': reads array 't' before writing it
  free(t);
  return y;
}

__attribute__((differentiable))
double mixed_copy(const int *idx, double x, int n) {
  double *t = malloc(n * sizeof *t);
  memcpy(t, idx, n * sizeof *t); // expect-error: cannot differentiate 'mixed_copy': 'memcpy' from 'idx' into 't', whose elements have another type
  return t[0] * x;
}

__attribute__((differentiable))
double untyped(double x) {
  void *p = malloc(8); // expect-error: cannot differentiate 'untyped': local pointer variable 'p' of type 'void *' is not supported (only pointers to numbers)
  free(p);
  return x;
}

__attribute__((differentiable))
double in_expression(double x, int n) {
  double *t = malloc(n * sizeof *t);
  t[0] = x;
  double *u = memcpy(malloc(8), t, 8); // expect-error: cannot differentiate 'in_expression': pointer 'u' must be initialised to point into an array
  return u[0];
}
