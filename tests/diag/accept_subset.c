/* Every construct of the supported subset, accepted without any diagnostic
   (the end-to-end tests check the numbers). */
// diag-args: -std=c11 -Wall -Wextra -pedantic -Werror
#include <math.h>
#include <stdbool.h>

static const double kScale = 0.5;
static const int kTimes = 3;
enum mode { MODE_PLAIN, MODE_SQUARE }; /* enumerators are ints */
typedef double real;

__attribute__((differentiable))
double arithmetic(double x, double y, int n) {
  const double a = x * y - x / y + -x + (+y);
  double b = a;
  b += x;
  b -= y;
  b *= 2;
  b /= 3;
  int m = n % 4 + kTimes;
  m++;
  --m;
  real r = b * kScale + m + 'a' + (int)sizeof(double) + 2L;
  return r;
}

__attribute__((differentiable))
double casts(double x, float f, int i, bool flag) {
  float g = (float)x + f;      /* FloatingCast */
  double d = g;                /* FloatingCast, implicit */
  int k = (int)x + i;          /* FloatingToIntegral */
  bool nonzero = x;            /* FloatingToBoolean */
  bool any = i;                /* IntegralToBoolean */
  int mode = MODE_SQUARE;
  double scaled = k * 1.5;     /* IntegralToFloating */
  if (mode == MODE_SQUARE && flag)
    scaled = scaled * scaled;
  return d + scaled + nonzero + any + sqrtf(f * f + 1.0f);
}

__attribute__((differentiable))
double control(double x, double y) {
  double a = 0, b = 1, c;
  if (x > y) {
    a = x;
    if (y > 0)
      b = y;
    else
      b = -y;
  } else if (x < -1) {
    a = y;
  } else {
    c = x;
    a = c * c;
  }
  if (!(x > 0) || y != 0)
    b = b + 1;
  if (x > 10)
    return a;
  if (y > 10) {
    if (x > 5)
      return b;
    a = a + 1;
  }
  return x > 0 && y > 0 ? a * b : a - b;
}

__attribute__((differentiable))
double maths(double x, double y) {
  double s = sqrt(x * x + 1) + exp(x) + log(x * x + 1) + log1p(x * x) +
             expm1(x) + pow(x * x + 1, y) + sin(x) + cos(x) + tan(x);
  double t = asin(x / 10) + acos(x / 10) + atan(x) + atan2(y, x) + sinh(x) +
             cosh(x) + tanh(x) + fabs(x) + fmin(x, y) + fmax(x, y);
  double u = hypot(x, y) + erf(x) + cbrt(x) + floor(x) + ceil(x) + round(x);
  float v = sinf((float)x) + expf((float)y) + powf((float)x, 2.0f);
  return s + t + u + v;
}

__attribute__((differentiable))
int sign(double x) { return x > 0 ? 1 : x < 0 ? -1 : 0; }

__attribute__((differentiable))
float statements(float x) {
  float y = x, z = x;
  y = y * 2, z = z * 3;
  (void)sign(x);
  ;
  {
    float w = y * z;
    y = w;
  }
  return y + (float)sign(x);
}
