/* greeks.c: the price of a European call option and all its sensitivities
 * ("Greeks") from ONE call of the reverse derivative.
 *
 * bs_call is the Black-Scholes formula, written as plain C with erf for the
 * normal CDF.  chad generates bs_call_rev; one call with seed 1 returns the
 * price and adds d price / d input into one adjoint per input: delta (spot),
 * d/dstrike, rho (rate), vega (volatility) and d/dt, which is minus theta
 * (t is the time to expiry; theta is the value's decay as time passes).
 * Each is printed next to a central finite difference (which costs two more
 * pricings per input) and the program fails if they disagree.
 *
 * Build: clang -fplugin=build/libchad.so -Iinclude greeks.c -lm */
#include <math.h>
#include <stdio.h>
#include "chad.h"

/* Standard normal cumulative distribution function. */
CHAD_DIFFERENTIABLE
double norm_cdf(double x) { return 0.5 * (1 + erf(x / sqrt(2.0))); }

/* Black-Scholes price of a call: spot S, strike K, risk-free rate r,
 * volatility sigma, time to expiry t (years). */
CHAD_DIFFERENTIABLE
double bs_call(double spot, double strike, double rate, double vol, double t) {
    double sd = vol * sqrt(t);
    double d1 = (log(spot / strike) + (rate + 0.5 * vol * vol) * t) / sd;
    double d2 = d1 - sd;
    return spot * norm_cdf(d1) - strike * exp(-rate * t) * norm_cdf(d2);
}

/* Central difference of bs_call in input i, for comparison. */
static double fd(const double *in, int i) {
    double p[5], h, up, down;
    int k;
    for (k = 0; k < 5; k++)
        p[k] = in[k];
    h = 1e-5 * fabs(in[i]);
    p[i] = in[i] + h;
    up = bs_call(p[0], p[1], p[2], p[3], p[4]);
    p[i] = in[i] - h;
    down = bs_call(p[0], p[1], p[2], p[3], p[4]);
    return (up - down) / (2 * h);
}

int main(void) {
    static const char *names[5] = {"delta  dV/dS", "dV/dK", "rho    dV/dr", "vega   dV/dsigma",
                                   "theta  -dV/dt"};
    static const double sign[5] = {1, 1, 1, 1, -1};
    const double in[5] = {100.0, 95.0, 0.03, 0.25, 0.75}; /* S, K, r, sigma, t */
    double g[5] = {0, 0, 0, 0, 0}; /* adjoints accumulate: start from zero */
    double price;
    int i, bad = 0;

    price = bs_call_rev(in[0], &g[0], in[1], &g[1], in[2], &g[2], in[3], &g[3], in[4], &g[4], 1.0);

    printf("Black-Scholes call: S=%g K=%g r=%g sigma=%g t=%g\n", in[0], in[1], in[2], in[3], in[4]);
    printf("price %.10f (bs_call gives %.10f)\n\n", price, bs_call(in[0], in[1], in[2], in[3], in[4]));
    printf("%-20s %18s %18s %10s\n", "sensitivity", "bs_call_rev", "finite diff.", "rel. diff");
    for (i = 0; i < 5; i++) {
        double f = fd(in, i), rel = fabs(g[i] - f) / fmax(fabs(f), 1e-12);
        printf("%-20s %18.10f %18.10f %10.2e\n", names[i], sign[i] * g[i], sign[i] * f, rel);
        if (!(rel < 1e-6))
            bad = 1;
    }
    /* Closed form of delta, as a check independent of finite differences. */
    {
        double sd = in[3] * sqrt(in[4]);
        double d1 = (log(in[0] / in[1]) + (in[2] + 0.5 * in[3] * in[3]) * in[4]) / sd;
        printf("\nclosed form: delta = N(d1) = %.10f\n", norm_cdf(d1));
        if (!(fabs(g[0] - norm_cdf(d1)) < 1e-12))
            bad = 1;
    }
    if (!(price == bs_call(in[0], in[1], in[2], in[3], in[4])))
        bad = 1;
    printf("%s\n", bad ? "MISMATCH" : "all sensitivities agree");
    return bad;
}
