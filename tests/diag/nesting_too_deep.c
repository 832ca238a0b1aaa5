/* An else-if chain of 1,100 cases nests its branches 1,100 deep. chad
   stops at 1,000 levels with a located error (the cost of derivative code
   grows with the depth, and clang's parser overflows its stack a few
   thousand levels down); 991 levels are accepted (ok below). */
#define C1(k) else if (x < k) r = x * k;
#define C10(k) C1(k##0) C1(k##1) C1(k##2) C1(k##3) C1(k##4) C1(k##5) C1(k##6) C1(k##7) C1(k##8) C1(k##9)
#define C100(k) C10(k##0) C10(k##1) C10(k##2) C10(k##3) C10(k##4) C10(k##5) C10(k##6) C10(k##7) C10(k##8) C10(k##9)

__attribute__((differentiable))
double ok(double x) {
  double r = 0;
  if (x < 0) r = -x;
  C100(1) C100(2) C100(3) C100(4) C100(5) C100(6) C100(7) C100(8) C100(9)
  C10(10) C10(11) C10(12) C10(13) C10(14) C10(15) C10(16) C10(17) C10(18)
  else r = x;
  return r;
}

__attribute__((differentiable))
double deep(double x) {
  double r = 0;
  if (x < 0) r = -x;
  C100(1) C100(2) C100(3) C100(4) C100(5) C100(6) C100(7) C100(8) C100(9)
  C100(10) C100(11) // expect-error: cannot differentiate 'deep': branches and loops nest more than 1000 levels deep here
  else r = x;
  return r;
}
