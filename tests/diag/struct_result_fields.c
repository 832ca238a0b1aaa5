/* the integer fields of a returned struct travel as doubles, a 64-bit one
   as two (its high and low 32 bits); wider ones are refused */
struct V { double x; long n; __int128 w; }; // expect-error: cannot differentiate 'f': the result: field 'w' has type '__int128', which is not supported in a struct

__attribute__((differentiable))
struct V f(double a) {
  struct V v = {a, 1, 2};
  return v;
}

/* a pointer field of a returned struct is a view of one array parameter
   (tests/e2e/struct_views.c); anything else is refused */
struct P { double x; double *d; };

__attribute__((differentiable))
struct P g(double a) { // expect-error: cannot differentiate 'g': the result's pointer field 'd' must point into an array parameter of 'g' (a returned view), and 'g' has no parameter of type 'double *'
  struct P p = {a, 0};
  return p;
}

__attribute__((differentiable))
struct P two(double *a, double *b, int k) { // expect-error: cannot differentiate 'two': the result's pointer field 'd' may point into 'a', 'b'; a returned pointer field must point into one array parameter
  struct P p = {a[0], a + k};
  if (k > 2)
    p.d = b;
  return p;
}

__attribute__((differentiable))
struct P local(double *a) {
  double t[2] = {a[0], a[1]};
  struct P p = {t[0], t};
  return p; // expect-error: cannot differentiate 'local': the result's pointer field 'd' must point into array parameter 'a' (a returned view); here it points into 't'
}

struct I { int n; unsigned short m[2]; _Bool b; double x; };

__attribute__((differentiable))
struct I h(double a, int k) {
  struct I r = {k, {1, 2}, a > 0, a * a};
  return r;
}
