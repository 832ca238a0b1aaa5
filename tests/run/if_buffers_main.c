/* if_buffers_main.c: the C that chad emits for tests/ad/if_buffers.ir,
 * compiled and run (tests/run/run.sh). Arrays an if yields from its
 * branches' frames go through a buffer declared before the if (DESIGN
 * 8.43): each function's value is checked against plain C written the way
 * a person would, its gradient against central differences of the emitted
 * primal, and f_fwd against f_rev by duality, on both branches. */
#include <math.h>
#include <stdio.h>

double same_len(double x, int c);
double same_len_fwd(double x, double dx, int c, double *d_ret);
double same_len_rev(double x, double *x_b, int c, double ret_b);
double two_lens(double x, int c);
double two_lens_fwd(double x, double dx, int c, double *d_ret);
double two_lens_rev(double x, double *x_b, int c, double ret_b);
double mixed(const double *y, int n, int c);
double mixed_fwd(const double *y, const double *dy, int n, int c, double *d_ret);
double mixed_rev(const double *y, double *y_b, int n, int c, double ret_b);

static int failures;

static void expect_close(const char *what, double got, double want, double tol) {
  if (!(fabs(got - want) <= tol * (1 + fabs(want)))) {
    printf("FAIL %s: got %.17g, want %.17g\n", what, got, want);
    failures++;
  }
}

static double ref_same_len(double x, int c) {
  double a[3], s = 0;
  for (int k = 0; k < 3; k++)
    a[k] = c > 0 ? x * (x + k) : sin(x + k);
  for (int i = 0; i < 3; i++)
    s += a[i] * a[0];
  return s;
}

static double ref_two_lens(double x, int c) {
  double a[4], s = 0;
  int n = c > 0 ? 3 : 4;
  for (int k = 0; k < n; k++)
    a[k] = c > 0 ? exp(x * k) : x * (x * k);
  for (int i = 0; i < n; i++)
    s += a[i] * a[i];
  return s;
}

static double ref_mixed(const double *y, int n, int c) {
  double a[8], s = 0;
  int m = c > 0 ? 2 : n;
  for (int k = 0; k < m; k++)
    a[k] = c > 0 ? y[k] * y[k + 1] : cos(y[k]);
  for (int i = 0; i < m; i++)
    s += a[i] * y[0];
  return s;
}

typedef double (*Scalar)(double, int);
typedef double (*ScalarFwd)(double, double, int, double *);
typedef double (*ScalarRev)(double, double *, int, double);

static void check_scalar(const char *name, Scalar f, ScalarFwd fwd, ScalarRev rev, Scalar ref,
                         double x, int c) {
  char what[64];
  double want = ref(x, c), d = 0, g = 0.25; /* g: f_rev adds into it */
  snprintf(what, sizeof what, "%s(%g, %d) value", name, x, c);
  expect_close(what, f(x, c), want, 1e-14);
  expect_close(what, fwd(x, 1.0, c, &d), want, 1e-14);
  expect_close(what, rev(x, &g, c, 1.0), want, 1e-14);
  double h = 1e-6, fd = (f(x + h, c) - f(x - h, c)) / (2 * h);
  snprintf(what, sizeof what, "%s(%g, %d) gradient", name, x, c);
  expect_close(what, g - 0.25, fd, 1e-7);
  snprintf(what, sizeof what, "%s(%g, %d) duality", name, x, c);
  expect_close(what, d, g - 0.25, 1e-13);
}

static void check_mixed(int c) {
  double y[4] = {0.5, -1.5, 0.25, 2}, dy[4] = {0.3, -0.7, 1.1, 0.2}, yb[4] = {0}, d = 0;
  char what[64];
  double want = ref_mixed(y, 4, c);
  snprintf(what, sizeof what, "mixed(c = %d) value", c);
  expect_close(what, mixed(y, 4, c), want, 1e-14);
  expect_close(what, mixed_fwd(y, dy, 4, c, &d), want, 1e-14);
  expect_close(what, mixed_rev(y, yb, 4, c, 1.0), want, 1e-14);
  double dot = 0;
  for (int i = 0; i < 4; i++) {
    double h = 1e-6, yp[4], ym[4];
    for (int j = 0; j < 4; j++)
      yp[j] = ym[j] = y[j];
    yp[i] += h;
    ym[i] -= h;
    snprintf(what, sizeof what, "mixed(c = %d) gradient[%d]", c, i);
    expect_close(what, yb[i], (mixed(yp, 4, c) - mixed(ym, 4, c)) / (2 * h), 1e-7);
    dot += yb[i] * dy[i];
  }
  snprintf(what, sizeof what, "mixed(c = %d) duality", c);
  expect_close(what, d, dot, 1e-13);
}

int main(void) {
  for (int c = 0; c < 2; c++) {
    check_scalar("same_len", same_len, same_len_fwd, same_len_rev, ref_same_len, 0.7, c);
    check_scalar("two_lens", two_lens, two_lens_fwd, two_lens_rev, ref_two_lens, -0.4, c);
    check_scalar("two_lens", two_lens, two_lens_fwd, two_lens_rev, ref_two_lens, 0.3, c);
    check_mixed(c);
  }
  if (failures) {
    printf("%d failures\n", failures);
    return 1;
  }
  printf("if_buffers: values, gradients and duality of 3 functions on both branches ok\n");
  return 0;
}
