/* test_gradcheck.c: the checker every end-to-end and random-program test
 * relies on (tests/e2e/gradcheck.h), on hand-written derivatives: right
 * ones pass, also for functions that turn within the first finite-
 * difference step (sin of a cube, in double and in float: the checker
 * retries at other steps), and wrong ones fail: off by 5 %, a dropped
 * term, a wrong sign in f_rev only (duality), a wrong value. */
#include <CUnit/Basic.h>
#include <math.h>

#include "support.h"
#include "gradcheck.h"

/* which mistake the derivatives make */
enum { RIGHT, SCALED, DROPPED, REV_SIGN, VALUE };
static int mistake;

/* y0 = sin((k x0)^3) + x0 x1, y1 = exp(x1 / 2): k = 4 puts a turn of the
 * sine inside the first float step near |x0| = 1.5 */
static double g0(const double *x) { return sin(pow(4 * x[0], 3)) + x[0] * x[1]; }
static double g1(const double *x) { return exp(x[1] / 2); }

static void jacobian(const double *x, double J[2][2]) {
    double u = 4 * x[0];
    J[0][0] = cos(u * u * u) * 3 * u * u * 4 + x[1];
    J[0][1] = mistake == DROPPED ? 0 : x[0];
    J[1][0] = 0;
    J[1][1] = exp(x[1] / 2) / 2;
    if (mistake == SCALED)
        J[0][0] *= 1.05;
}

static int is_float(void *c) { return *(const int *)c == GC_FLOAT; }
static double rnd(void *c, double v) { return is_float(c) ? (double)(float)v : v; }

static void f(const double *x, double *y, void *c) {
    y[0] = rnd(c, g0(x));
    y[1] = rnd(c, g1(x));
}
static void fwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    double J[2][2];
    f(x, y, c);
    if (mistake == VALUE)
        y[1] += 1e-9;
    jacobian(x, J);
    for (int i = 0; i < 2; i++)
        dy[i] = rnd(c, J[i][0] * dx[0] + J[i][1] * dx[1]);
}
static void rev(const double *x, double *xb, double *y, const double *yb, void *c) {
    double J[2][2];
    f(x, y, c);
    jacobian(x, J);
    if (mistake == REV_SIGN)
        J[1][1] = -J[1][1];
    for (int j = 0; j < 2; j++)
        xb[j] += rnd(c, J[0][j] * yb[0] + J[1][j] * yb[1]);
}

/* failures the checker reports for one mistake at a few points */
static int failures(int m, int prec) {
    static const double pts[] = {1.3, 0.7, -1.45, 0.2, 0.9, -1.1, 1.49, 1.2};
    struct gca_problem p = {0};
    p.name = "g", p.nin = 2, p.nout = 2, p.prec = prec;
    p.f = f, p.fwd = fwd, p.rev = rev, p.ctx = &prec;
    mistake = m;
    int before = gc_failed;
    gca_check(&p, 4, pts);
    return gc_failed - before;
}

static void test_right_passes(void) {
    CU_ASSERT_EQUAL(failures(RIGHT, GC_DOUBLE), 0);
    CU_ASSERT_EQUAL(failures(RIGHT, GC_FLOAT), 0);
}

static void test_wrong_fails(void) {
    for (int prec = GC_DOUBLE; prec <= GC_FLOAT; prec++) {
        CU_ASSERT(failures(SCALED, prec) > 0);
        CU_ASSERT(failures(DROPPED, prec) > 0);
        CU_ASSERT(failures(REV_SIGN, prec) > 0);
        CU_ASSERT(failures(VALUE, prec) > 0);
    }
}

int main(void) {
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("gradcheck", NULL, NULL);
    CU_add_test(s, "right derivatives pass, fast turns too", test_right_passes);
    CU_add_test(s, "wrong derivatives fail", test_wrong_fails);
    return support_run_all();
}
