__attribute__((differentiable))
double f(double **p, // expect-error: cannot differentiate 'f': parameter 'p' has type 'double **'; only pointers to double, float or integers, or to rows of them of constant length ('double A[][3]'), are supported
         double x) {
  return x;
}
