__attribute__((differentiable))
void f(double x) { // expect-error: cannot differentiate 'f': function returns void and writes no output array
  (void)x;
}
