/* adbench.h: what the problem drivers (gmm.c, ba.c, lstm.c here) share with
 * the harness (adbench.c): options, timing, gradient checks, the table and
 * the charts. */
#ifndef CHAD_ADBENCH_H
#define CHAD_ADBENCH_H
#include <stddef.h>

struct options {
    const char *data_dir; /* ADBench's data/ layout, or NULL: generated inputs */
    const char *c_dir;    /* ADBench's plain-C sources (the compile report only) */
    const char *out_dir;  /* where the charts go */
    int quick;            /* smoke test: tiny sizes, timings not judged */
    const char *require_chad; /* problems chad must compile ("gmm,ba") */
    const char *only;         /* the problems to run ("gmm,ba"), or NULL: all three */
};

/* The median over batches of the time of one call of fn(ctx); a batch
 * repeats the call until it takes at least the minimum batch time. */
double median_time(void (*fn)(void *), void *ctx);

/* median_time with subnormal numbers flushed to zero, as results and as
 * operands (x86's MXCSR FTZ and DAZ bits, restored after), or -1 where the
 * machine has no such mode.  Arithmetic on subnormals takes a microcode
 * path on many x86 cores, about a hundred times slower than on normal
 * numbers; this tells how much of a time they are. */
double median_time_flushed(void (*fn)(void *), void *ctx);

/* time(grad) / time(obj), measured in pairs: a batch of the objective,
 * then one of the derivative, seven times (three in --quick, or when one
 * derivative takes over a second); the median of the seven ratios of a
 * pair's two batches, and in *t_obj and *t_grad the median of each.
 * Both of a pair run within a few tens of milliseconds of each other, so
 * a change in the machine's load or clock between the objective's timing
 * and the derivative's, which a ratio of separately timed medians takes in
 * whole, moves one pair, not the median. */
double paired_ratio(void (*obj)(void *), void (*grad)(void *), void *ctx, double *t_obj, double *t_grad);
/* paired_ratio with subnormals flushed (as median_time_flushed), or -1 */
double paired_ratio_flushed(void (*obj)(void *), void (*grad)(void *), void *ctx, double *t_obj,
                            double *t_grad);

/* Largest rho(a_i, b_i) = |a_i - b_i| / max(1, |a_i| + |b_i|), ADBench's
 * measure, over n entries (idx: the entries to compare, or NULL for 0..n-1). */
double max_rho(const double *a, const double *b, const int *idx, int n);

/* Tolerances: a derivative against chad's (the brief: 1e-8), and any tool
 * against central differences (ADBench's own FD tolerance, 1e-4). */
#define TOL_EXACT 1e-8
#define TOL_FD 1e-4

/* One line of the table: a tool's time on one size of one problem.  t_grad
 * < 0: no time (the note says why).  estimated: extrapolated from a sample. */
struct row {
    const char *problem, *size, *tool;
    double x;              /* the size's position on the chart's axis */
    double t_obj, t_grad;  /* seconds */
    int estimated;
    char check[160];       /* "ok (...)", "WRONG (...)", or why there is no row */
    double ratio;          /* paired_ratio's, or 0: t_grad / t_obj */
};
void report(const struct row *r);
/* Say the outcome of comparing with a reference: fills r->check. */
void judge(struct row *r, double rho, double tol, const char *against);
extern int adbench_failures; /* rows that said WRONG */

/* Runs fn(ctx, out) in a forked child and copies its n results back to
 * out; 0 on success.  The ADOL-C rows run so: ADOL-C's store of locations
 * never shrinks, and every later replay allocates and sweeps the largest
 * store an earlier tape needed (BA's 15-input block cost 30 times more
 * after a GMM tape than alone), which a separate process per tape avoids,
 * as ADBench runs each tool in a process of its own.  fn times the
 * objective too, so the ratio is still measured within one process. */
int isolated(void (*fn)(void *ctx, double *out), void *ctx, double *out, int n);

/* Fixed-seed generator for inputs made up when there is no data folder. */
void rng_seed(unsigned long long s);
double rng_uniform(void);
double rng_normal(void);

/* 1 if path names a readable file */
int file_exists(const char *path);

void run_gmm(const struct options *o);
void run_ba(const struct options *o);
void run_lstm(const struct options *o);

/* hand_ba.c: a hand-written derivative of BA's reprojection error, in
 * ADBench's layout (cam 11, X 3, w 1, feat 2, err 2).  _row adds J^T seed
 * into cam_b, X_b, w_b with a forward and a reverse sweep; _block writes
 * the 2 x 15 block (columns cam, X, w) with one forward sweep. */
void hand_reproj_row(const double *cam, double *cam_b, const double *X, double *X_b, const double *w, double *w_b,
                     const double *feat, double *err, const double *seed);
void hand_reproj_block(const double *cam, const double *X, const double *w, const double *feat, double *err,
                       double *block);
/* hand_lstm.c: a hand-written reverse of ADBench's lstm_model, with the
 * signature and contract of chad's lstm_model_rev */
void hand_lstm_model_rev(int hsize, const double *weight, double *weight_b, const double *bias, double *bias_b,
                         double *hidden, double *hidden_b, double *cell, double *cell_b, const double *input,
                         double *input_b);
#endif
