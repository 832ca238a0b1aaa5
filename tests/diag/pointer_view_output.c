/* A view of an output passed as a callee's output array: an output has no
   length in C (only its written prefix), so a slice of it cannot be stored
   back; local arrays, scratch and in-out parameters can (e2e/view_calls.c). */
__attribute__((differentiable))
void half(const double *x, double *out) { out[0] = 0.5 * x[0]; }

__attribute__((differentiable))
void f(const double *x, double *y) {
  y[0] = x[0];
  half(x, &y[1]); // expect-error: cannot differentiate 'f': a view '&y[1]' of 'y' passed to parameter 'out' of 'half', which writes it, before 'y' is written whole
}
