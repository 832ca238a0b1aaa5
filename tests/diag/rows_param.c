/* Parameters that take rows of constant length (`double A[][3]`) are
 * supported (tests/e2e/rows.c); rows of rows, rows of variable length,
 * rows on a CHAD_CUSTOM function and a rows parameter stepped are not. */
#include "../../include/chad.h"

CHAD_DIFFERENTIABLE
double cube(const double A[][3][3], // expect-error: cannot differentiate 'cube': parameter 'A' has type 'const double[][3][3]'; only pointers to double, float or integers, or to rows of them of constant length ('double A[][3]'), are supported
            int n) {
  return A[0][0][0] * n;
}

CHAD_DIFFERENTIABLE
double variable(int n, const double A[][n]) { // expect-error: cannot differentiate 'variable': parameter 'A' has type 'const double[][n]'; only pointers to double, float or integers, or to rows of them of constant length ('double A[][3]'), are supported
  return A[0][0];
}

CHAD_CUSTOM double custom(const double A[][2], int n);

CHAD_DIFFERENTIABLE
double calls_custom(const double A[][2]) {
  return custom(A, 1); // expect-error: cannot differentiate 'calls_custom': CHAD_CUSTOM function 'custom' takes rows ('const double A[][2]'); a custom function's arrays must be pointers ('double *') for now
}

CHAD_DIFFERENTIABLE
double stepped(const double A[][2], int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += A[0][0];
    A++; // expect-error: cannot differentiate 'stepped': assigning pointer 'A' after its declaration is supported only when it always points into the same array
  }
  return s;
}
