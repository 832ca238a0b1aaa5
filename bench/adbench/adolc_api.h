/* adolc_api.h: the ADOL-C rows' entry points, callable from the C harness.
 * The tapes are in adolc_{gmm,ba,lstm}.cpp; `tag` names a tape. */
#ifndef CHAD_ADBENCH_ADOLC_API_H
#define CHAD_ADBENCH_ADOLC_API_H
#ifdef __cplusplus
extern "C" {
#endif
/* estimated number of taped operations (the benchmark skips tapes too large
 * for a shared machine's memory) */
double adolc_gmm_ops(int d, int k, int n);
double adolc_lstm_ops(int l, int c, int b);
void adolc_gmm_tape(short tag, int d, int k, int n, const double *params, const double *x, double gamma, int m);
void adolc_gmm_gradient(short tag, int np, const double *params, double *grad);
void adolc_lstm_tape(short tag, int l, int c, int b, const double *params, const double *state, const double *seq);
void adolc_lstm_gradient(short tag, int np, const double *params, double *grad);
void adolc_ba_tape(short tag, const double *cam, const double *X, double w, const double *feat);
void adolc_ba_block(short tag, const double *in, double *J);
double adolc_ba_weight(short tag, double w);
#ifdef __cplusplus
}
#endif
#endif
