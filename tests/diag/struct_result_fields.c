/* the integer fields of a returned struct travel as doubles: at most 32 bits */
struct V { double x; long n; };

__attribute__((differentiable))
struct V f(double a) { // expect-error: cannot differentiate 'f': the result's field 'n' is a 64-bit integer; the integer fields of a returned struct may have at most 32 bits
  struct V v = {a, 1};
  return v;
}

struct P { double x; double *d; };

__attribute__((differentiable))
struct P g(double *a) { // expect-error: cannot differentiate 'g': the result's field 'd' is a pointer; a returned struct may only hold scalars, nested structs and fixed-size arrays
  struct P p = {a[0], a};
  return p;
}

struct I { int n; unsigned short m[2]; _Bool b; double x; };

__attribute__((differentiable))
struct I h(double a, int k) {
  struct I r = {k, {1, 2}, a > 0, a * a};
  return r;
}
