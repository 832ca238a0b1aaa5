// ADOL-C on ADBench's LSTM objective, the C source itself taped through
// adolc_shim.h's macro trick (`double` -> `adouble`), not a transcription.
// The initial state and the sequence are constants on the tape, so every
// replay starts from the file's state (ADBench resets it inside the timed
// loop for the objective; the tape does that by construction).
#include "adolc_shim.h"
#define lstm_objective adolc_lstm_objective
#include CHAD_ADBENCH_C_LSTM
#undef lstm_objective
#include "adolc_end.h"
#include "adolc_api.h"

extern "C" double adolc_lstm_ops(int l, int c, int b) { return (double)c * b * (30.0 * l + 20); }

extern "C" void adolc_lstm_tape(short tag, int l, int c, int b, const double *params, const double *state,
                                const double *seq) {
    int np = 8 * l * b + 3 * b;
    adouble *p = new adouble[np], *s = new adouble[2 * l * b], *q = new adouble[(size_t)c * b], loss;
    double f;
    adb_trace_on(tag, adolc_lstm_ops(l, c, b));
    for (int i = 0; i < np; i++)
        p[i] <<= params[i];
    for (int i = 0; i < 2 * l * b; i++)
        s[i] = state[i];
    for (size_t i = 0; i < (size_t)c * b; i++)
        q[i] = seq[i];
    adolc_lstm_objective(l, c, b, p, p + 8 * l * b, s, q, &loss);
    loss >>= f;
    trace_off();
    delete[] p;
    delete[] s;
    delete[] q;
}

extern "C" void adolc_lstm_gradient(short tag, int np, const double *params, double *grad) {
    gradient(tag, np, params, grad);
}
