/* the integer fields of a returned struct travel as doubles, a 64-bit one
   as two (its high and low 32 bits); wider ones are refused */
struct V { double x; long n; __int128 w; }; // expect-error: cannot differentiate 'f': the result: field 'w' has type '__int128', which is not supported in a struct

__attribute__((differentiable))
struct V f(double a) {
  struct V v = {a, 1, 2};
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
