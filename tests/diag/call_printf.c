/* A call with side effects cannot be differentiated. */
#include <stdio.h>

__attribute__((differentiable))
double f(double x) {
  printf("%g\n", x); // expect-error: chad: cannot differentiate 'f': call to 'printf' which is not differentiable
  return x * x;
}
