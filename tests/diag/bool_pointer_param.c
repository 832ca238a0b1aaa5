/* A `const _Bool *` parameter is read (e2e/bool_arrays.c); written, it is an
   integer array written, which chad does not take, as for `int *`. */
__attribute__((differentiable))
double f(_Bool *mask, double x) {
  mask[0] = x > 0; // expect-error: cannot differentiate 'f': writes to integer array parameter 'mask' are not supported
  return mask[0] ? x : -x;
}
