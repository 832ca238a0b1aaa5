__attribute__((differentiable))
double g(const double *a) { return a[0]; }
