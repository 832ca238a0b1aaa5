/* hand_lstm.c: a hand-written reverse of LSTM's cell, ADBench's
 * lstm_model (ADBENCH-SPEC.md section 3), with chad's contract for f_rev
 * (DESIGN.md section 1: the adjoints of weight, bias and input are added;
 * hidden and cell are in-out, their adjoint buffers hold the seeds of the
 * final values on entry and the adjoints of the initial ones on exit, and
 * hidden and cell end holding the final values).
 *
 * Written for this benchmark from the mathematics.  It is the yardstick
 * for the object code of chad's lstm_model_rev (compile_report.sh): the
 * three primal loops, then one reverse loop that does the work of all
 * three from one tape, where chad writes a reverse loop per primal loop.
 * lstm.c's rows check it against chad's lstm_model_rev. */
#include <math.h>
#include <stdlib.h>

#include "adbench.h"

static double logistic(double x) { return 1.0 / (1.0 + exp(-x)); }

void hand_lstm_model_rev(int hsize, const double *weight, double *weight_b, const double *bias, double *bias_b,
                         double *hidden, double *hidden_b, double *cell, double *cell_b, const double *input,
                         double *input_b) {
    size_t h = hsize > 0 ? (size_t)hsize : 0;
    double *tape = malloc(7 * (h ? h : 1) * sizeof(double));
    if (!tape)
        abort();
    /* the four gates, the initial hidden and cell, tanh of the final cell */
    double *forget = tape, *ingate = tape + h, *outgate = tape + 2 * h, *change = tape + 3 * h;
    double *hidden0 = tape + 4 * h, *cell0 = tape + 5 * h, *tanh_cell = tape + 6 * h;
    for (size_t i = 0; i < h; i++) {
        hidden0[i] = hidden[i], cell0[i] = cell[i];
        forget[i] = logistic(input[i] * weight[i] + bias[i]);
        ingate[i] = logistic(hidden[i] * weight[h + i] + bias[h + i]);
        outgate[i] = logistic(input[i] * weight[2 * h + i] + bias[2 * h + i]);
        change[i] = tanh(hidden[i] * weight[3 * h + i] + bias[3 * h + i]);
    }
    for (size_t i = 0; i < h; i++)
        cell[i] = cell[i] * forget[i] + ingate[i] * change[i];
    for (size_t i = 0; i < h; i++)
        tanh_cell[i] = tanh(cell[i]), hidden[i] = outgate[i] * tanh_cell[i];
    for (size_t i = 0; i < h; i++) {
        double hb = hidden_b[i];
        double cb = cell_b[i] + hb * outgate[i] * (1 - tanh_cell[i] * tanh_cell[i]);
        /* the gates' pre-activations */
        double zf = cb * cell0[i] * forget[i] * (1 - forget[i]);
        double zi = cb * change[i] * ingate[i] * (1 - ingate[i]);
        double zo = hb * tanh_cell[i] * outgate[i] * (1 - outgate[i]);
        double zc = cb * ingate[i] * (1 - change[i] * change[i]);
        cell_b[i] = cb * forget[i];
        bias_b[i] += zf, weight_b[i] += zf * input[i];
        bias_b[h + i] += zi, weight_b[h + i] += zi * hidden0[i];
        bias_b[2 * h + i] += zo, weight_b[2 * h + i] += zo * input[i];
        bias_b[3 * h + i] += zc, weight_b[3 * h + i] += zc * hidden0[i];
        input_b[i] += zf * weight[i] + zo * weight[2 * h + i];
        hidden_b[i] = zi * weight[h + i] + zc * weight[3 * h + i];
    }
    free(tape);
}
