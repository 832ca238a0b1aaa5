/* loop_update_main.c: the C that chad emits for tests/ad/loop_update.ir,
 * compiled and run (tests/run/run.sh). Loops and branches that update
 * arrays in place reverse through the undo log (DESIGN 8.13), which writes
 * old values back into the same memory: a missing or misplaced restore
 * shows here as a gradient that disagrees with central differences of the
 * emitted primal, or as f_fwd and f_rev that break duality. */
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef double (*prim_a)(const double *, int);
typedef double (*fwd_a)(const double *, const double *, int, double *);
typedef double (*rev_a)(const double *, double *, int, double);
typedef double (*prim_w)(const double *, int, double);
typedef double (*fwd_w)(const double *, const double *, int, double, double, double *);
typedef double (*rev_w)(const double *, double *, int, double, double *, double);

#define DECL_A(f)                                                                           \
  double f(const double *, int);                                                            \
  double f##_fwd(const double *, const double *, int, double *);                            \
  double f##_rev(const double *, double *, int, double);
#define DECL_W(f)                                                                           \
  double f(const double *, int, double);                                                    \
  double f##_fwd(const double *, const double *, int, double, double, double *);            \
  double f##_rev(const double *, double *, int, double, double *, double);
DECL_A(prefix)
DECL_A(tri)
DECL_A(local)
DECL_A(prefix_sum)
DECL_W(cond_upd)
DECL_W(w_arr)
DECL_A(carried_read)
DECL_A(until_done)

static int failures;

static void expect_close(const char *f, const char *what, double got, double want, double tol) {
  if (!(fabs(got - want) <= tol * (1 + fabs(want)))) {
    printf("FAIL %s %s: got %.17g, want %.17g\n", f, what, got, want);
    failures++;
  }
}

/* The point is x (n elements) and w; a NULL pw means f has no w. */
static double call(prim_a pa, prim_w pw, const double *x, int n, double w) {
  return pw ? pw(x, n, w) : pa(x, n);
}

static void check(const char *name, prim_a pa, fwd_a fa, rev_a ra, prim_w pw, fwd_w fw,
                  rev_w rw, const double *x0, int n, double w) {
  double x[16], xb[16], dx[16], keep[16];
  memcpy(x, x0, sizeof(double) * (size_t)n);
  memcpy(keep, x0, sizeof(double) * (size_t)n);
  for (int i = 0; i < n; i++) {
    xb[i] = 0.125 * i; /* f_rev adds into what is there */
    dx[i] = 0.3 + 0.7 * sin(1.0 + i);
  }
  double wb = 0.25, dw = -0.4, value = call(pa, pw, x, n, w);
  double rv = pw ? rw(x, xb, n, w, &wb, 1.0) : ra(x, xb, n, 1.0);
  expect_close(name, "f_rev value", rv, value, 0);
  for (int i = 0; i < n; i++)
    expect_close(name, "input untouched", x[i], keep[i], 0);
  double dot_rev = pw ? (wb - 0.25) * dw : 0;
  for (int i = 0; i < n; i++) {
    double h = 1e-6 * (1 + fabs(x[i]));
    x[i] = keep[i] + h;
    double up = call(pa, pw, x, n, w);
    x[i] = keep[i] - h;
    double down = call(pa, pw, x, n, w);
    x[i] = keep[i];
    char what[32];
    snprintf(what, sizeof what, "d/dx[%d]", i);
    expect_close(name, what, xb[i] - 0.125 * i, (up - down) / (2 * h), 1e-6);
    dot_rev += (xb[i] - 0.125 * i) * dx[i];
  }
  if (pw) {
    double h = 1e-6 * (1 + fabs(w));
    expect_close(name, "d/dw", wb - 0.25, (pw(x, n, w + h) - pw(x, n, w - h)) / (2 * h), 1e-6);
  }
  double tangent = 0;
  double fv = pw ? fw(x, dx, n, w, dw, &tangent) : fa(x, dx, n, &tangent);
  expect_close(name, "f_fwd value", fv, value, 0);
  expect_close(name, "duality", tangent, dot_rev, 1e-12);
}

#define CHECK_A(f, x, n) check(#f, f, f##_fwd, f##_rev, NULL, NULL, NULL, x, n, 0)
#define CHECK_W(f, x, n, w) check(#f, NULL, NULL, NULL, f, f##_fwd, f##_rev, x, n, w)

int main(void) {
  const double a[] = {0.5, -1.0, 2.0, 0.3, -0.7, 1.1, 0.2, -1.6, 0.9, 0.45};
  const double b[] = {0.3, 1.5, -2.0, 0.75, -0.1, 0.6, -1.2, 0.05};
  for (int n = 1; n <= 10; n += 3) {
    CHECK_A(prefix, a, n);
    CHECK_A(tri, a, n);
    CHECK_A(local, a, n);
    CHECK_A(prefix_sum, a, n);
    CHECK_W(cond_upd, a, n, 1.5);
    CHECK_W(w_arr, a, n, 0.7);
    CHECK_A(carried_read, a, n);
    CHECK_A(until_done, a, n);
  }
  CHECK_W(cond_upd, b, 8, -0.5);
  CHECK_A(tri, b, 8);
  if (failures)
    printf("%d failures\n", failures);
  return failures != 0;
}
