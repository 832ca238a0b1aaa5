/* Each if may return and may fall through, so the code after it is copied
   into both paths: 2^40 copies. Lowering stops with an error instead of
   exhausting memory. */
__attribute__((differentiable))
double f(double x, double y) { // expect-error: cannot differentiate 'f': too many paths through early returns
  if (x > 0) { if (y > 0) return x; x = x * y; }
  if (x > 1) { if (y > 1) return x; x = x * y; }
  if (x > 2) { if (y > 2) return x; x = x * y; }
  if (x > 3) { if (y > 3) return x; x = x * y; }
  if (x > 4) { if (y > 4) return x; x = x * y; }
  if (x > 5) { if (y > 5) return x; x = x * y; }
  if (x > 6) { if (y > 6) return x; x = x * y; }
  if (x > 7) { if (y > 7) return x; x = x * y; }
  if (x > 8) { if (y > 8) return x; x = x * y; }
  if (x > 9) { if (y > 9) return x; x = x * y; }
  if (x > 10) { if (y > 10) return x; x = x * y; }
  if (x > 11) { if (y > 11) return x; x = x * y; }
  if (x > 12) { if (y > 12) return x; x = x * y; }
  if (x > 13) { if (y > 13) return x; x = x * y; }
  if (x > 14) { if (y > 14) return x; x = x * y; }
  if (x > 15) { if (y > 15) return x; x = x * y; }
  if (x > 16) { if (y > 16) return x; x = x * y; }
  if (x > 17) { if (y > 17) return x; x = x * y; }
  if (x > 18) { if (y > 18) return x; x = x * y; }
  if (x > 19) { if (y > 19) return x; x = x * y; }
  if (x > 20) { if (y > 20) return x; x = x * y; }
  if (x > 21) { if (y > 21) return x; x = x * y; }
  if (x > 22) { if (y > 22) return x; x = x * y; }
  if (x > 23) { if (y > 23) return x; x = x * y; }
  if (x > 24) { if (y > 24) return x; x = x * y; }
  if (x > 25) { if (y > 25) return x; x = x * y; }
  if (x > 26) { if (y > 26) return x; x = x * y; }
  if (x > 27) { if (y > 27) return x; x = x * y; }
  if (x > 28) { if (y > 28) return x; x = x * y; }
  if (x > 29) { if (y > 29) return x; x = x * y; }
  if (x > 30) { if (y > 30) return x; x = x * y; }
  if (x > 31) { if (y > 31) return x; x = x * y; }
  if (x > 32) { if (y > 32) return x; x = x * y; }
  if (x > 33) { if (y > 33) return x; x = x * y; }
  if (x > 34) { if (y > 34) return x; x = x * y; }
  if (x > 35) { if (y > 35) return x; x = x * y; }
  if (x > 36) { if (y > 36) return x; x = x * y; }
  if (x > 37) { if (y > 37) return x; x = x * y; }
  if (x > 38) { if (y > 38) return x; x = x * y; }
  if (x > 39) { if (y > 39) return x; x = x * y; }
  return x;
}
