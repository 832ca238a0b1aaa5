/* The dump argument prints the pipeline stages. */
// diag-args: -fplugin-arg-chad-dump
// expect-output: == f: lowered IR ==
// expect-output: == f: emitted C ==
__attribute__((differentiable))
double f(double x, double y) {
  double t = x * y;
  if (t > 1)
    t = t * t;
  return t + y;
}
