/* Mutable globals are state the derivative cannot see; constant ones are
   fine (see accept_subset.c). */
double scale = 2.0;

__attribute__((differentiable))
double f(double x) {
  return scale * x; // expect-error: cannot differentiate 'f': reads of global variable 'scale'
}
