/* emit-dir writes the generated C to a file (here relative to the test's
   working directory), and diagnostics and debug info name that file. */
// diag-args: -fplugin-arg-chad-emit-dir=chad-emit -fplugin-arg-chad-dump=none
__attribute__((differentiable))
double f(double x) { return x * x * x; }
