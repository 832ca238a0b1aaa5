/* _Bool is one byte in memory: an array of it is not an int array. */
__attribute__((differentiable))
double f(const _Bool *mask, // expect-error: cannot differentiate 'f': parameter 'mask' has type 'const _Bool *'; only pointers to double, float or integers, or to rows of them of constant length ('double A[][3]'), are supported
         double x) {
  return mask[0] ? x : -x;
}
