__attribute__((differentiable))
double f(double **p, // expect-error: cannot differentiate 'f': parameter 'p' has type 'double **'; only pointers to double, float or integers are supported
         double x) {
  return x;
}
