/* g_rev missing, for a custom function on arrays with an inactive
   parameter and unnamed parameters: the expected declaration follows the
   contract (the array's adjoint is writable, the inactive one has none). */
#include "../../include/chad.h"

CHAD_CUSTOM float wsum(const float *, CHAD_INACTIVE const float *, int);
float wsum_fwd(const float *a, const float *da, const float *w, int n, float *d_ret);

CHAD_DIFFERENTIABLE
float f(const float *a, const float *w, int n) {
  return wsum(a, w, n); // expect-error: cannot differentiate 'f': call to CHAD_CUSTOM function 'wsum', whose reverse derivative 'wsum_rev' is not declared before the call: declare 'float wsum_rev(const float *p1, float *p1_b, const float *p2, int p3, float ret_b)'
}
