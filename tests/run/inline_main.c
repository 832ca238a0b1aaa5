/* inline_main.c: the C that chad emits for tests/ad/inline.ir, compiled
 * and run (tests/run/run.sh). Callees that write output arrays or update
 * scratch are inlined into their callers (ad/inline.c); the callers'
 * gradients are checked against central differences of the emitted primal
 * and f_fwd against f_rev by duality. */
#include <math.h>
#include <stdio.h>
#include <string.h>

double mahal(const double *x, const double *mu, const double *l, int np, int d, double w);
double mahal_fwd(const double *x, const double *dx, const double *mu, const double *dmu,
                 const double *l, const double *dl, int np, int d, double w, double dw,
                 double *d_ret);
double mahal_rev(const double *x, double *x_b, const double *mu, double *mu_b, const double *l,
                 double *l_b, int np, int d, double w, double *w_b, double ret_b);
double use_scratch(const double *x, int n);
double use_scratch_fwd(const double *x, const double *dx, int n, double *d_ret);
double use_scratch_rev(const double *x, double *x_b, int n, double ret_b);

enum { NP = 4, D = 3, NX = NP * D, NL = D * (D - 1) / 2, NV = NX + D + NL + 1 };

static int failures;

static void expect_close(const char *what, int i, double got, double want, double tol) {
  if (!(fabs(got - want) <= tol * (1 + fabs(want)))) {
    printf("FAIL %s [%d]: got %.17g, want %.17g\n", what, i, got, want);
    failures++;
  }
}

/* mahal on one vector v = (x, mu, l, w). */
static double mahal_v(const double *v) { return mahal(v, v + NX, v + NX + D, NP, D, v[NV - 1]); }

static void check_mahal(void) {
  double v[NV], g[NV] = {0}, dv[NV];
  for (int i = 0; i < NV; i++) {
    v[i] = sin(1.3 * i + 0.4);
    dv[i] = cos(0.7 * i);
  }
  double wb = 0;
  double value = mahal_rev(v, g, v + NX, g + NX, v + NX + D, g + NX + D, NP, D, v[NV - 1], &wb, 1.0);
  g[NV - 1] = wb;
  expect_close("mahal_rev value", 0, value, mahal_v(v), 0);
  double dot = 0;
  for (int i = 0; i < NV; i++) {
    double keep = v[i], h = 1e-6 * (1 + fabs(keep));
    v[i] = keep + h;
    double up = mahal_v(v);
    v[i] = keep - h;
    double down = mahal_v(v);
    v[i] = keep;
    expect_close("mahal gradient", i, g[i], (up - down) / (2 * h), 1e-6);
    dot += g[i] * dv[i];
  }
  double t = 0;
  double fv = mahal_fwd(v, dv, v + NX, dv + NX, v + NX + D, dv + NX + D, NP, D, v[NV - 1],
                        dv[NV - 1], &t);
  expect_close("mahal_fwd value", 0, fv, value, 0);
  expect_close("mahal duality", 0, t, dot, 1e-12);
}

static void check_scratch(void) {
  double x[5] = {0.5, -1.5, 2.0, 0.25, -0.75}, g[5] = {0}, dx[5] = {0.3, -0.2, 0.9, 0.1, 0.6};
  double value = use_scratch_rev(x, g, 5, 1.0), dot = 0;
  expect_close("use_scratch_rev value", 0, value, use_scratch(x, 5), 0);
  for (int i = 0; i < 5; i++) {
    double keep = x[i], h = 1e-6 * (1 + fabs(keep));
    x[i] = keep + h;
    double up = use_scratch(x, 5);
    x[i] = keep - h;
    double down = use_scratch(x, 5);
    x[i] = keep;
    expect_close("use_scratch gradient", i, g[i], (up - down) / (2 * h), 1e-6);
    dot += g[i] * dx[i];
  }
  double t = 0;
  use_scratch_fwd(x, dx, 5, &t);
  expect_close("use_scratch duality", 0, t, dot, 1e-12);
}

int main(void) {
  check_mahal();
  check_scratch();
  if (failures)
    printf("%d failures\n", failures);
  return failures != 0;
}
