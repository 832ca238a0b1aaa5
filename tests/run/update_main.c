/* update_main.c: the C that chad emits for tests/ad/update.ir, compiled
 * and run (tests/run/run.sh). In-place updates are stores into the same
 * memory and the reverse sweep restores what they overwrote: each
 * function's value is checked against a plain C reference written the way
 * a person would, its gradient against central differences of the emitted
 * primal, and f_fwd against f_rev by duality. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double fill(double x);
double fill_fwd(double x, double dx, double *d_ret);
double fill_rev(double x, double *x_b, double ret_b);
double overwrite(const double *x, int n);
double overwrite_fwd(const double *x, const double *dx, int n, double *d_ret);
double overwrite_rev(const double *x, double *x_b, int n, double ret_b);
double rmw(const double *x, int n, double w);
double rmw_fwd(const double *x, const double *dx, int n, double w, double dw, double *d_ret);
double rmw_rev(const double *x, double *x_b, int n, double w, double *w_b, double ret_b);
void axpy(const double *x, double *y, int n, int i);
void axpy_fwd(const double *x, const double *dx, double *y, double *dy, int n, int i);
void axpy_rev(const double *x, double *x_b, double *y, const double *y_b, int n, int i);
float fill32(float x);
float fill32_rev(float x, float *x_b, float ret_b);

static int failures;

static void expect_close(const char *what, double got, double want, double tol) {
  if (!(fabs(got - want) <= tol * (1 + fabs(want)))) {
    printf("FAIL %s: got %.17g, want %.17g\n", what, got, want);
    failures++;
  }
}

static double ref_fill(double x) {
  double a[3] = {x, 2 * sin(x), x * x}, s = 0;
  for (int i = 0; i < 3; i++)
    s += a[i] * a[i];
  return s;
}

static double ref_overwrite(const double *x, int n) {
  double a[8] = {0}, s1 = 0, s2 = 0;
  for (int i = 0; i < n; i++)
    a[i] = 2 * x[i];
  for (int i = 0; i < n; i++)
    s1 += a[i] * a[i];
  a[0] = s1 * x[1];
  for (int i = 0; i < n; i++)
    s2 += a[i] * sin(a[i]);
  return s2 + s1;
}

static double ref_rmw(const double *x, int n, double w) {
  double a[8] = {0}, s = 0;
  for (int i = 0; i < n; i++)
    a[i] = x[i];
  a[1] = a[1] + w * a[0];
  a[1] = a[1] * a[2];
  a[2] = exp(a[1]);
  for (int i = 0; i < n; i++)
    s += a[i] * (a[i] + 1.0);
  return s;
}

/* Gradient of f at x (n coordinates) by central differences. */
static void fd(double (*f)(const double *, void *), void *ctx, const double *x, int n, double *g) {
  double xs[8];
  for (int j = 0; j < n; j++) {
    for (int k = 0; k < n; k++)
      xs[k] = x[k];
    double h = 1e-6 * fmax(1.0, fabs(x[j]));
    xs[j] = x[j] + h;
    double fp = f(xs, ctx);
    xs[j] = x[j] - h;
    g[j] = (fp - f(xs, ctx)) / (2 * h);
  }
}

static double as_overwrite(const double *x, void *ctx) { return overwrite(x, *(int *)ctx); }
static double as_rmw(const double *v, void *ctx) { return rmw(v, *(int *)ctx, v[3]); }
static double as_fill(const double *x, void *ctx) { (void)ctx; return fill(x[0]); }
static double as_axpy(const double *x, void *ctx) {
  int i = *(int *)ctx;
  double y[3], w[3] = {0.3, -1.1, 0.7}, s = 0;
  axpy(x, y, 3, i);
  for (int k = 0; k < 3; k++)
    s += w[k] * y[k];
  return s;
}

int main(void) {
  /* fill */
  for (double x = -1.3; x < 2; x += 0.8) {
    double xb = 0, d, g;
    expect_close("fill value", fill(x), ref_fill(x), 1e-15);
    expect_close("fill_rev value", fill_rev(x, &xb, 1.0), ref_fill(x), 1e-15);
    expect_close("fill_fwd value", fill_fwd(x, 1.0, &d), ref_fill(x), 1e-15);
    fd(as_fill, NULL, &x, 1, &g);
    expect_close("fill gradient", xb, g, 1e-7);
    expect_close("fill duality", d, xb, 1e-13);
  }
  /* overwrite: the reverse of the first sum reads the restored array */
  {
    double x[4] = {0.3, -1.2, 0.8, 1.5}, xb[4] = {0}, g[4], dx[4] = {0.4, -0.2, 1.0, 0.3}, d;
    int n = 4;
    expect_close("overwrite value", overwrite(x, n), ref_overwrite(x, n), 1e-14);
    expect_close("overwrite_rev value", overwrite_rev(x, xb, n, 1.0), ref_overwrite(x, n), 1e-14);
    overwrite_fwd(x, dx, n, &d);
    fd(as_overwrite, &n, x, n, g);
    double dot = 0;
    for (int j = 0; j < n; j++) {
      expect_close("overwrite gradient", xb[j], g[j], 1e-6);
      dot += xb[j] * dx[j];
    }
    expect_close("overwrite duality", d, dot, 1e-12);
  }
  /* rmw: read-modify-write at one index, through a copy of the name */
  {
    double v[4] = {0.5, -0.25, 2.0, 1.5}, xb[3] = {0}, wb = 0, g[4], d;
    double dx[3] = {0.1, 0.7, -0.4}, dw = 0.9;
    int n = 3;
    expect_close("rmw value", rmw(v, n, v[3]), ref_rmw(v, n, v[3]), 1e-14);
    expect_close("rmw_rev value", rmw_rev(v, xb, n, v[3], &wb, 1.0), ref_rmw(v, n, v[3]), 1e-14);
    rmw_fwd(v, dx, n, v[3], dw, &d);
    fd(as_rmw, &n, v, 4, g);
    double dot = wb * dw;
    for (int j = 0; j < n; j++) {
      expect_close("rmw gradient", xb[j], g[j], 1e-6);
      dot += xb[j] * dx[j];
    }
    expect_close("rmw gradient w", wb, g[3], 1e-6);
    expect_close("rmw duality", d, dot, 1e-12);
  }
  /* axpy: an output array made by updates; f_rev still returns it */
  for (int i = 0; i < 3; i++) {
    double x[3] = {0.5, -1, 2}, y[3], y2[3], dy[3], xb[3] = {0}, g[3];
    double w[3] = {0.3, -1.1, 0.7}, dx[3] = {1, 0.5, -0.25};
    axpy(x, y, 3, i);
    double want[3] = {2 * x[0], 2 * x[1], 2 * x[2]};
    want[i] = want[i] + x[i] * want[0];
    axpy_rev(x, xb, y2, w, 3, i);
    axpy_fwd(x, dx, y, dy, 3, i);
    fd(as_axpy, &i, x, 3, g);
    double jdx = 0, dot = 0;
    for (int k = 0; k < 3; k++) {
      expect_close("axpy value", y[k], want[k], 1e-15);
      expect_close("axpy_rev output", y2[k], want[k], 1e-15);
      expect_close("axpy gradient", xb[k], g[k], 1e-7);
      jdx += w[k] * dy[k];
      dot += xb[k] * dx[k];
    }
    expect_close("axpy duality", jdx, dot, 1e-13);
  }
  /* f32 */
  {
    float x = 0.75f, xb = 0;
    float v = fill32_rev(x, &xb, 1.0f);
    expect_close("fill32 value", v, fill32(x), 0);
    expect_close("fill32 gradient", xb, 2 * x + cos(x * x) * 2 * x, 1e-5);
  }
  if (failures)
    return 1;
  puts("update: emitted C agrees with the references, finite differences and duality");
  return 0;
}
