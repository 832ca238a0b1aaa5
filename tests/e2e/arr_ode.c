/* arr_ode.c: end-to-end test of an ODE integrated by explicit time stepping:
 * the harmonic oscillator x'' = -k x by explicit Euler, with two state
 * variables carried by the loop (a fold with a pair as state), reassigned
 * parameters as the state, and h and k read at every step. */
#include <math.h>
#include "chad.h"
#include "gradcheck.h"

CHAD_DIFFERENTIABLE
double ode(double x, double v, double h, double k, int steps) {
    for (int t = 0; t < steps; t++) {
        double a = x + h * v;
        double b = v - h * k * x;
        x = a;
        v = b;
    }
    return x + 0.5 * v;
}

/* A damped, nonlinear version with the state in locals: a pendulum with
 * friction, symplectic Euler (the new v is used for x). */
CHAD_DIFFERENTIABLE
double pendulum(double theta0, double omega0, double h, double damping, int steps) {
    double theta = theta0, omega = omega0;
    for (int t = 0; t < steps; t++) {
        omega = omega - h * (sin(theta) + damping * omega);
        theta = theta + h * omega;
    }
    return theta * theta + omega;
}

struct ctx { int steps; };
#define S(c) (((const struct ctx *)(c))->steps)

/* The step size is reassigned each step from a comparison (an int): its
 * tangent, carried by the loop, is zero after the first step and never
 * read. The generated code must not call it set but unused (fuzzing,
 * seed 3000 input 4139). */
CHAD_DIFFERENTIABLE
double snapped(double theta, double omega, double h, double damping, int steps) {
    for (int t = 0; t < steps; t++) {
        h = 0.01 * ((h > 0 && h < 1) || !h);
        omega = omega - h * (sin(theta) + damping * omega);
        theta = theta + h * omega;
    }
    return theta * theta + omega;
}

static void ode_w(const double *x, double *y, void *c) { y[0] = ode(x[0], x[1], x[2], x[3], S(c)); }
static void ode_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = ode_fwd(x[0], dx[0], x[1], dx[1], x[2], dx[2], x[3], dx[3], S(c), &dy[0]);
}
static void ode_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = ode_rev(x[0], &xb[0], x[1], &xb[1], x[2], &xb[2], x[3], &xb[3], S(c), yb[0]);
}
static void pend_w(const double *x, double *y, void *c) { y[0] = pendulum(x[0], x[1], x[2], x[3], S(c)); }
static void pend_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = pendulum_fwd(x[0], dx[0], x[1], dx[1], x[2], dx[2], x[3], dx[3], S(c), &dy[0]);
}
static void pend_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = pendulum_rev(x[0], &xb[0], x[1], &xb[1], x[2], &xb[2], x[3], &xb[3], S(c), yb[0]);
}

static void snap_w(const double *x, double *y, void *c) { y[0] = snapped(x[0], x[1], x[2], x[3], S(c)); }
static void snap_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {
    y[0] = snapped_fwd(x[0], dx[0], x[1], dx[1], x[2], dx[2], x[3], dx[3], S(c), &dy[0]);
}
static void snap_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {
    y[0] = snapped_rev(x[0], &xb[0], x[1], &xb[1], x[2], &xb[2], x[3], &xb[3], S(c), yb[0]);
}

int main(void) {
    static const int steps[] = {0, 1, 10, 200};
    /* (x, v, h, k) and (theta, omega, h, damping) */
    static const double pts[] = {1.0, 0.0, 0.01, 4.0, -0.5, 1.5, 0.05, 0.7, 0.3, -0.2, 0.002, 9.0};
    char name[64];
    unsigned k;
    for (k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        struct ctx c;
        struct gca_problem p = {0};
        c.steps = steps[k];
        p.name = name, p.ctx = &c, p.nin = 4, p.nout = 1;
        snprintf(name, sizeof name, "ode steps=%d", c.steps);
        p.f = ode_w, p.fwd = ode_wfwd, p.rev = ode_wrev;
        gca_check(&p, 3, pts);
        snprintf(name, sizeof name, "pendulum steps=%d", c.steps);
        p.f = pend_w, p.fwd = pend_wfwd, p.rev = pend_wrev;
        gca_check(&p, 3, pts);
        snprintf(name, sizeof name, "snapped steps=%d", c.steps);
        p.f = snap_w, p.fwd = snap_wfwd, p.rev = snap_wrev;
        gca_check(&p, 3, pts);
    }
    {   /* Exact: one step from (x, v) = (1, 0) with h = 0.5, k = 2 gives
         * x = 1, v = -1, result 0.5; d/dv0 = h + 0.5 = 1, d/dk = 0.5 * -h = -0.25. */
        double b[4] = {0, 0, 0, 0};
        double v = ode_rev(1, &b[0], 0, &b[1], 0.5, &b[2], 2, &b[3], 1, 1.0);
        gc_expect(v == 0.5 && b[0] == 1 - 0.5 * 0.5 * 2 && b[1] == 1 && b[3] == -0.25, "ode exact",
                  "wrong value or gradient after one step");
    }
    return gc_summary();
}
