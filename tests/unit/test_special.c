/* test_special.c: chad_digamma (ir/special.inc), which the derivatives of
 * lgamma and tgamma call, against values known to more digits than double:
 *   - a table computed with mpmath at 40 digits (tests/unit/digamma_ref.py
 *     prints it), over (0, 1e300] and negative non-integers;
 *   - closed forms evaluated in long double: digamma(n) = -gamma + H(n-1),
 *     digamma(n + 1/2) = -gamma - 2 ln 2 + sum_k<=n 2/(2k - 1);
 *   - the recurrence and reflection formulas, which tie every other point
 *     to those;
 *   - NaN at the poles, +inf at +inf.
 * Relative error below 1e-14 for double, except next to the zeros of
 * digamma, where the absolute error (about 1e-16 times the size of the
 * terms that cancel there) is what is bounded: x0 = 1.4616... itself is
 * exact to 1e-16 relative, as it is computed by a series at x0. */
#include <CUnit/Basic.h>
#include <math.h>

#include "support.h"
#include "ir/special.inc"

static const long double euler_gamma = 0.577215664901532860606512090082402431L;
static const long double ln2 = 0.693147180559945309417232121458176568L;

typedef struct Ref {
  double x;
  double psi; /* digamma(x) rounded from 21 digits */
} Ref;

/* mpmath.digamma at mp.dps = 40 */
static const Ref refs[] = {
    {1e-300, -9.99999999999999974941e+299},
    {1e-08, -100000000.57721564636},
    {0.001, -1000.57557193181027965},
    {0.1, -10.4237549404110762321},
    {0.5, -1.96351002602142347944},
    {0.9, -0.754926949947051349197},
    {0.96, -0.645008350320004327127},
    {1.0, -0.577215664901532860607},
    {1.2, -0.28903989659218835183},
    {1.4, -0.0613845445851162368006},
    {1.4616321449683622, -9.24126552172942751679e-17},
    {1.5, 0.036489973978576520559},
    {1.9, 0.356184161164059658121},
    {1.97, 0.403252208813771288276},
    {2.0, 0.422784335098467139393},
    {2.5, 0.703156640645243187226},
    {3.7, 1.16715353936151144095},
    {5.0, 1.50611766843180047273},
    {7.25, 1.91045352688373602838},
    {9.99, 2.25070037283120112198},
    {10.0, 2.25175258906672110765},
    {10.5, 2.30300103429768637527},
    {30.0, 3.38443813268552487656},
    {100.0, 4.6001618527380874002},
    {100000.0, 11.5129204649618950868},
    {10000000000.0, 23.0258509298904568402},
    {1000000000000000.0, 34.5387763949106847603},
    {1e+300, 690.775527898213705258},
    {-1e-08, 99999999.4227843165569},
    {-0.25, 2.91413912021352783037},
    {-0.5, 0.036489973978576520559},
    {-0.9, -9.31264382929996796374},
    {-1.25, 3.71413912021352783037},
    {-1.5, 0.703156640645243187226},
    {-2.75, -1.95905526497799700982},
    {-3.3, 3.62035346059212578573},
    {-10.1, 12.0300522485483092596},
    {-20.75, -0.085143521734187153786},
    {-1000.25, 10.0500976930667058755},
    {-123456.875, 4.13917564202923334348},
};

static double rel_err(long double got, long double want) {
  return (double)fabsl((got - want) / want);
}

#define EXPECT_CLOSE(got, want, tol, x)                                                  \
  do {                                                                                   \
    double e_ = rel_err((got), (want));                                                  \
    if (!(e_ < (tol)))                                                                   \
      fprintf(stderr, "digamma(%.17g) = %.17g, want %.21Lg: relative error %.3g\n", (x), \
              (double)(got), (long double)(want), e_);                                   \
    CU_ASSERT(e_ < (tol));                                                               \
  } while (0)

static void test_reference_table(void) {
  for (size_t i = 0; i < sizeof refs / sizeof *refs; i++) {
    double x = refs[i].x;
    EXPECT_CLOSE(chad_digamma(x), refs[i].psi, 1e-14, x);
    /* the float form: the double value rounded once, where float has x */
    if ((double)(float)x == x && fabs(x) < 1e38)
      EXPECT_CLOSE(chad_digammaf((float)x), (float)refs[i].psi, 1e-7, x);
  }
}

/* digamma(n) = -gamma + H(n-1), digamma(n + 1/2) = -gamma - 2 ln 2 +
 * sum_{k=1..n} 2/(2k-1), for n up to 200, in long double. */
static void test_closed_forms(void) {
  long double h = 0, odd = 0;
  for (int n = 1; n <= 200; n++) {
    EXPECT_CLOSE(chad_digamma(n), -euler_gamma + h, 1e-14, (double)n);
    long double half = -euler_gamma - 2 * ln2 + odd;
    EXPECT_CLOSE(chad_digamma(n - 0.5), half, 1e-14, n - 0.5);
    h += 1.0L / n;
    odd += 2.0L / (2 * n - 1);
  }
}

/* digamma(x + 1) = digamma(x) + 1/x and digamma(1 - x) - digamma(x) =
 * pi cot(pi x), each side in long double from the double values: the
 * error allowed is relative to the largest term. */
static void test_functional_equations(void) {
  const long double pi = 3.14159265358979323846264338327950288L;
  for (int i = 1; i < 4000; i++) {
    double x = i * 0.0123456789 - 24.5; /* steps through poles' neighbours */
    if (x == floor(x))
      continue;
    long double a = chad_digamma(x + 1), b = chad_digamma(x), r = 1.0L / x;
    long double scale = fmaxl(fabsl(a), fmaxl(fabsl(b), fabsl(r)));
    /* x + 1 is rounded: allow for it through digamma's slope */
    long double slope = fabsl(chad_digamma(x + 1.001) - a) / 0.001L;
    double err = (double)(fabsl(a - (b + r)) / (scale + slope * fabs(x) * 1e-16L));
    CU_ASSERT(err < 1e-14 * 8);
    long double c = chad_digamma(1 - x);
    long double cot = cosl(pi * x) / sinl(pi * x);
    scale = fmaxl(fabsl(c), fmaxl(fabsl(b), fabsl(pi * cot)));
    slope = fabsl(chad_digamma(1 - x + 0.001) - c) / 0.001L;
    err = (double)(fabsl(c - b - pi * cot) / (scale + slope * fabs(x) * 1e-16L));
    if (!(err < 1e-14 * 8))
      fprintf(stderr, "reflection at %.17g: %.3g\n", x, err);
    CU_ASSERT(err < 1e-14 * 8);
  }
}

static void test_special_values(void) {
  CU_ASSERT(isnan(chad_digamma(0.0)));
  CU_ASSERT(isnan(chad_digamma(-1.0)));
  CU_ASSERT(isnan(chad_digamma(-37.0)));
  CU_ASSERT(isnan(chad_digamma(-1e300)));
  CU_ASSERT(isnan(chad_digamma(-INFINITY)));
  CU_ASSERT(isnan(chad_digamma(NAN)));
  CU_ASSERT(chad_digamma(INFINITY) == INFINITY);
  CU_ASSERT(isnan(chad_digammaf(-2.0f)));
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  CU_pSuite s = CU_add_suite("digamma", NULL, NULL);
  CU_add_test(s, "against mpmath", test_reference_table);
  CU_add_test(s, "closed forms", test_closed_forms);
  CU_add_test(s, "recurrence and reflection", test_functional_equations);
  CU_add_test(s, "poles and infinities", test_special_values);
  return support_run_all();
}
