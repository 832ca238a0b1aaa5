/* symbols.h: the functions the benchmark links from objects that may be
 * missing, all declared weak, so the program links and runs without them
 * and says which rows it skipped.
 *   adb_*:  ADBench's plain-C objectives, compiled without the plugin
 *           (missing without CHAD_ADBENCH_C);
 *   chad_*: chad's derivatives of those same sources (missing while chad
 *           cannot compile them: chad_*_status says why);
 *   port_*: chad's derivative of examples/gmm.c, the repository's port;
 *   adolc_* (adolc_api.h): the ADOL-C tapes (missing without libadolc-dev).
 * The *_rev signatures follow DESIGN.md section 1 for the sources as
 * written: every pointer to double is active (no CHAD_INACTIVE can be added
 * to ADBench's code), `double *err` is an output whose seed is a const
 * pointer, a struct with a double field is active and gets a pointer. */
#ifndef CHAD_ADBENCH_SYMBOLS_H
#define CHAD_ADBENCH_SYMBOLS_H
#include "adolc_api.h"

/* ADBench's Wishart (defs.h): same layout */
typedef struct {
    double gamma;
    int m;
} adb_wishart;

#define WEAK __attribute__((weak))

/* compile status of each ADBench source under chad: "" or the first error */
extern const char chad_gmm_status[], chad_ba_status[], chad_lstm_status[];
extern const int adbench_have_c; /* 1 when built with CHAD_ADBENCH_C */

WEAK void adb_gmm_objective(int d, int k, int n, const double *alphas, const double *means, const double *icf,
                            const double *x, adb_wishart w, double *err);
WEAK void chad_gmm_objective_rev(int d, int k, int n, const double *alphas, double *alphas_b, const double *means,
                                 double *means_b, const double *icf, double *icf_b, const double *x, double *x_b,
                                 adb_wishart w, adb_wishart *w_b, double *err, const double *err_b);

WEAK double port_gmm_objective(const double *alphas, const double *means, const double *icf, const double *x,
                               int d, int k, int n, double gamma, int m, double c);
WEAK double port_gmm_objective_rev(const double *alphas, double *alphas_b, const double *means, double *means_b,
                                   const double *icf, double *icf_b, const double *x, int d, int k, int n,
                                   double gamma, int m, double c, double ret_b);

WEAK void adb_ba_objective(int n, int m, int p, const double *cams, const double *X, const double *w,
                           const int *obs, const double *feats, double *reproj_err, double *w_err);
WEAK void adb_compute_reproj_error(const double *cam, const double *X, const double *w, const double *feat,
                                   double *err);
WEAK void adb_compute_zach_weight_error(const double *w, double *err);
WEAK void chad_compute_reproj_error_rev(const double *cam, double *cam_b, const double *X, double *X_b,
                                        const double *w, double *w_b, const double *feat, double *feat_b,
                                        double *err, const double *err_b);
WEAK void chad_ba_objective_rev(int n, int m, int p, const double *cams, double *cams_b, const double *X,
                                double *X_b, const double *w, double *w_b, const int *obs, const double *feats,
                                double *feats_b, double *reproj_err, const double *reproj_err_b, double *w_err,
                                const double *w_err_b);
WEAK void chad_compute_zach_weight_error_rev(const double *w, double *w_b, double *err, const double *err_b);

WEAK void adb_lstm_objective(int l, int c, int b, const double *main_params, const double *extra_params,
                             double *state, const double *sequence, double *loss);
WEAK void chad_lstm_objective_rev(int l, int c, int b, const double *main_params, double *main_params_b,
                                  const double *extra_params, double *extra_params_b, double *state,
                                  double *state_b, const double *sequence, double *sequence_b, double *loss,
                                  const double *loss_b);
WEAK void chad_lstm_model_rev(int hsize, const double *weight, double *weight_b, const double *bias, double *bias_b,
                              double *hidden, double *hidden_b, double *cell, double *cell_b, const double *input,
                              double *input_b);

#pragma weak adolc_gmm_ops
#pragma weak adolc_lstm_ops
#pragma weak adolc_gmm_tape
#pragma weak adolc_gmm_gradient
#pragma weak adolc_lstm_tape
#pragma weak adolc_lstm_gradient
#pragma weak adolc_ba_tape
#pragma weak adolc_ba_block
#pragma weak adolc_ba_weight
#endif
