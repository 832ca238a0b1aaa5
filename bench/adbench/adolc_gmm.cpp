// ADOL-C on ADBench's GMM objective, the C source itself taped through
// adolc_shim.h's macro trick (`double` -> `adouble`), not a transcription.
// The tape is recorded once (not timed: ADBench counts taping as one-time
// preparation); each gradient replays it forwards and backwards.
#include "adolc_shim.h"
#define gmm_objective adolc_gmm_objective
#include CHAD_ADBENCH_C_GMM
#undef gmm_objective
#include "adolc_end.h"
#include "adolc_api.h"

extern "C" double adolc_gmm_ops(int d, int k, int n) {
    double t = d * (d + 1) / 2.0;
    return (double)n * k * (2 * t + 4.0 * d + 6) + 4.0 * k * t;
}

extern "C" void adolc_gmm_tape(short tag, int d, int k, int n, const double *params, const double *x,
                               double gamma, int m) {
    int np = k * (d + 1) * (d + 2) / 2;
    adouble *p = new adouble[np], *ax = new adouble[(size_t)n * d], err;
    double f;
    adb_trace_on(tag, adolc_gmm_ops(d, k, n));
    for (int i = 0; i < np; i++)
        p[i] <<= params[i];
    for (size_t i = 0; i < (size_t)n * d; i++)
        ax[i] = x[i]; // a constant: the points are not differentiated
    Wishart w;
    w.gamma = gamma;
    w.m = m;
    adolc_gmm_objective(d, k, n, p, p + k, p + k + k * d, ax, w, &err);
    err >>= f;
    trace_off();
    delete[] p;
    delete[] ax;
}

extern "C" void adolc_gmm_gradient(short tag, int np, const double *params, double *grad) {
    gradient(tag, np, params, grad);
}
