/* <math.h> functions without a derivative rule are rejected by name;
   long double forms are not float forms. */
#include <math.h>

__attribute__((differentiable))
double f(double x) {
  return lgamma(x); // expect-error: cannot differentiate 'f': call to 'lgamma' which is not differentiable
}

__attribute__((differentiable))
double g(double x) {
  return (double)sinl(x); // expect-error: cannot differentiate 'g': call to 'sinl' which is not differentiable
}
