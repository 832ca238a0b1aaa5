/* Integer overflow and division by zero that are the input's undefined
   behaviour (only if executed) are not reported in the generated code:
   passing constants on makes them constant expressions there, which clang
   would otherwise warn about (fuzzing finding K8). Accepted without any
   diagnostic. */
// diag-args: -std=c11 -Wall -Wextra -pedantic -Werror

__attribute__((differentiable))
double f(double x) {
  int z = 0, w = 7;
  if (x > 100) { w = w / z; w = w % z; }
  int big = 2147483647;
  if (big + 1 > 5) x = x * 2;
  { int z_ = 2147483647; z_ = z_ + 1; x *= z_; }
  return x * w;
}
