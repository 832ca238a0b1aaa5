/* When clang itself rejects the body, chad says nothing more (and does not
   crash on the broken AST). */
__attribute__((differentiable))
double f(double x) {
  return x * undeclared; // expect-error: use of undeclared identifier 'undeclared'
}
