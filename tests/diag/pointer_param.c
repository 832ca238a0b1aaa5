__attribute__((differentiable))
double f(double *p, // expect-error: cannot differentiate 'f': pointers are not supported yet
         double x) {
  return x;
}
