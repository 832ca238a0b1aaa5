/* dump=NAME prints the stages of NAME only. */
// diag-args: -fplugin-arg-chad-dump=g
// expect-output: == g: lowered IR ==
__attribute__((differentiable))
double f(double x) { return x + 1; }

__attribute__((differentiable))
double g(double x) { return x * 3; }
