__attribute__((differentiable(1))) // expect-error: 'differentiable' attribute takes no arguments
double f(double x) { return x; }
