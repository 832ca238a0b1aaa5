/* <math.h> functions without a derivative rule are rejected by name;
   long double forms are not float forms. */
#include <math.h>

__attribute__((differentiable))
double f(double x) {
  return nextafter(x, 1.0); // expect-error: cannot differentiate 'f': call to 'nextafter' which is not differentiable
}

__attribute__((differentiable))
double g(double x) {
  return (double)sinl(x); // expect-error: cannot differentiate 'g': call to 'sinl' which is not differentiable
}
