/* finance.c: end-to-end test on realistic functions: a Black-Scholes call
 * price (normal CDF through erf) with all five inputs active, a put price
 * calling it (put-call parity), and the Rosenbrock function in 2 and 4
 * dimensions. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

/* Standard normal CDF. */
CHAD_DIFFERENTIABLE
double norm_cdf(double x) { return 0.5 * (1 + erf(x / sqrt(2.0))); }

CHAD_DIFFERENTIABLE
double bs_call(double spot, double strike, double rate, double vol, double t) {
    const double sd = vol * sqrt(t);
    double d1 = (log(spot / strike) + (rate + 0.5 * vol * vol) * t) / sd;
    double d2 = d1 - sd;
    return spot * norm_cdf(d1) - strike * exp(-rate * t) * norm_cdf(d2);
}

CHAD_DIFFERENTIABLE
double bs_put(double spot, double strike, double rate, double vol, double t) {
    return bs_call(spot, strike, rate, vol, t) - spot + strike * exp(-rate * t);
}

CHAD_DIFFERENTIABLE
double rosenbrock(double x, double y) {
    double a = 1 - x;
    double b = y - x * x;
    return a * a + 100 * b * b;
}

CHAD_DIFFERENTIABLE
double rosenbrock4(double x0, double x1, double x2, double x3) {
    double s = 0, t;
    t = x1 - x0 * x0;
    s += 100 * t * t + (1 - x0) * (1 - x0);
    t = x2 - x1 * x1;
    s += 100 * t * t + (1 - x1) * (1 - x1);
    t = x3 - x2 * x2;
    s += 100 * t * t + (1 - x2) * (1 - x2);
    return s;
}

GC_WRAP1(norm_cdf)
GC_WRAP5(bs_call)
GC_WRAP5(bs_put)
GC_WRAP2(rosenbrock)
GC_WRAP4(rosenbrock4)

int main(void) {
    double g[5] = {0, 0, 0, 0, 0}, price;
    GC_CHECK(norm_cdf, 1, -2.0, 0.0, 0.7);
    /* at, in and out of the money; short and long maturities */
    GC_CHECK(bs_call, 5, 100.0, 100.0, 0.05, 0.2, 1.0, 120.0, 100.0, 0.01, 0.3, 0.25, 80.0, 100.0, 0.03,
             0.4, 2.0);
    GC_CHECK(bs_put, 5, 100.0, 100.0, 0.05, 0.2, 1.0, 120.0, 100.0, 0.01, 0.3, 0.25);
    GC_CHECK(rosenbrock, 2, -1.2, 1.0, 0.5, 0.5, 1.0, 1.0, 2.0, -1.0);
    GC_CHECK(rosenbrock4, 4, -1.2, 1.0, -1.2, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5, -0.5, 2.0, 0.25);

    /* Closed forms: delta = N(d1), and at the minimum the gradient is 0. */
    price = bs_call_rev(100, &g[0], 100, &g[1], 0.05, &g[2], 0.2, &g[3], 1, &g[4], 1.0);
    gc_expect(fabs(price - 10.450583572185565) < 1e-12, "bs_call", "price at the money");
    gc_expect(fabs(g[0] - norm_cdf(0.35)) < 1e-14, "bs_call", "delta == N(d1)");
    g[0] = g[1] = 0;
    rosenbrock_rev(1, &g[0], 1, &g[1], 1.0);
    gc_expect(g[0] == 0 && g[1] == 0, "rosenbrock", "gradient 0 at (1, 1)");
    return gc_summary();
}
