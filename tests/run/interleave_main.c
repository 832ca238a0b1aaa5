/* interleave_main.c: the C that chad emits for tests/ad/interleave.ir,
 * compiled and run (tests/run/run.sh). Arrays a loop writes a block per
 * step are written where they end up, and an output's cotangent is read at
 * m*i + c (DESIGN 8.62): each function's value is checked against plain C
 * written the way a person would, f_fwd's tangent against central
 * differences of the emitted primal, and f_rev against f_fwd by duality;
 * the values of f_fwd and f_rev must be f's exactly. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#define N 4
#define MAX_IO 16

void blocks2(const double *x, double w, int n, double *y);
void blocks2_fwd(const double *x, const double *dx, double w, double dw, int n, double *y, double *dy);
void blocks2_rev(const double *x, double *x_b, double w, double *w_b, int n, double *y, const double *y_b);
double blocks3(const double *x, double w, int n);
double blocks3_fwd(const double *x, const double *dx, double w, double dw, int n, double *d_ret);
double blocks3_rev(const double *x, double *x_b, double w, double *w_b, int n, double ret_b);
double nested(const double *x, double w, int n);
double nested_fwd(const double *x, const double *dx, double w, double dw, int n, double *d_ret);
double nested_rev(const double *x, double *x_b, double w, double *w_b, int n, double ret_b);
double two_outputs(const double *x, int n, double *y);
double two_outputs_fwd(const double *x, const double *dx, int n, double *y, double *dy, double *d_ret);
double two_outputs_rev(const double *x, double *x_b, int n, double *y, const double *y_b, double ret_b);
void swapped(const double *x, int n, double *y);
void swapped_fwd(const double *x, const double *dx, int n, double *y, double *dy);
void swapped_rev(const double *x, double *x_b, int n, double *y, const double *y_b);
double not_blocks(const double *x, int n, double *y);
double not_blocks_fwd(const double *x, const double *dx, int n, double *y, double *dy, double *d_ret);
double not_blocks_rev(const double *x, double *x_b, int n, double *y, const double *y_b, double ret_b);

static int failures;

static void expect_close(const char *what, double got, double want, double tol) {
  if (!(fabs(got - want) <= tol * (1 + fabs(want)))) {
    printf("FAIL %s: got %.17g, want %.17g\n", what, got, want);
    failures++;
  }
}

/* Every function as a map of in[0..nin) (x, then w when it takes one) to
 * out[0..nout) (its output array, then its value when it has one). */
typedef struct Fn {
  const char *name;
  int nin, nout;
  void (*f)(const double *in, double *out);
  void (*fwd)(const double *in, const double *din, double *out, double *dout);
  void (*rev)(const double *in, double *in_b, const double *out_b, double *out);
  void (*ref)(const double *in, double *out);
} Fn;

static void f_blocks2(const double *in, double *out) { blocks2(in, in[N], N, out); }
static void fwd_blocks2(const double *in, const double *din, double *out, double *dout) {
  blocks2_fwd(in, din, in[N], din[N], N, out, dout);
}
static void rev_blocks2(const double *in, double *in_b, const double *out_b, double *out) {
  blocks2_rev(in, in_b, in[N], in_b + N, N, out, out_b);
}
static void ref_blocks2(const double *in, double *out) {
  for (int i = 0; i < N; i++) {
    out[2 * i] = in[i] * in[N];
    out[2 * i + 1] = sin(in[i]);
  }
}

static void f_blocks3(const double *in, double *out) { out[0] = blocks3(in, in[N], N); }
static void fwd_blocks3(const double *in, const double *din, double *out, double *dout) {
  out[0] = blocks3_fwd(in, din, in[N], din[N], N, dout);
}
static void rev_blocks3(const double *in, double *in_b, const double *out_b, double *out) {
  out[0] = blocks3_rev(in, in_b, in[N], in_b + N, N, out_b[0]);
}
static void ref_blocks3(const double *in, double *out) {
  double y[3 * N], s = 0;
  for (int i = 0; i < N; i++) {
    y[3 * i] = in[i] * in[N];
    y[3 * i + 1] = exp(in[i]);
    y[3 * i + 2] = in[i] * in[i];
  }
  for (int k = 0; k < 3 * N; k++)
    s += y[k] * (k + 1);
  out[0] = s;
}

static void f_nested(const double *in, double *out) { out[0] = nested(in, in[N], N); }
static void fwd_nested(const double *in, const double *din, double *out, double *dout) {
  out[0] = nested_fwd(in, din, in[N], din[N], N, dout);
}
static void rev_nested(const double *in, double *in_b, const double *out_b, double *out) {
  out[0] = nested_rev(in, in_b, in[N], in_b + N, N, out_b[0]);
}
static void ref_nested(const double *in, double *out) {
  double s = 0;
  for (int j = 0; j < N; j++) {
    double y[2 * N];
    for (int i = 0; i < N; i++) {
      y[2 * i] = in[i] * in[j];
      y[2 * i + 1] = in[N] * in[i];
    }
    s += y[2 * j + 1] * y[2 * j];
  }
  out[0] = s;
}

static void f_two(const double *in, double *out) { out[2 * N] = two_outputs(in, N, out); }
static void fwd_two(const double *in, const double *din, double *out, double *dout) {
  out[2 * N] = two_outputs_fwd(in, din, N, out, dout, dout + 2 * N);
}
static void rev_two(const double *in, double *in_b, const double *out_b, double *out) {
  out[2 * N] = two_outputs_rev(in, in_b, N, out, out_b, out_b[2 * N]);
}
static void ref_two(const double *in, double *out) {
  double s = 0;
  for (int i = 0; i < N; i++) {
    out[2 * i] = cos(in[i]);
    out[2 * i + 1] = in[i] * in[i];
  }
  for (int k = 0; k < 2 * N; k++)
    s += out[k];
  out[2 * N] = s;
}

static void f_swapped(const double *in, double *out) { swapped(in, N, out); }
static void fwd_swapped(const double *in, const double *din, double *out, double *dout) {
  swapped_fwd(in, din, N, out, dout);
}
static void rev_swapped(const double *in, double *in_b, const double *out_b, double *out) {
  swapped_rev(in, in_b, N, out, out_b);
}
static void ref_swapped(const double *in, double *out) {
  for (int i = 0; i < N; i++) {
    out[2 * i] = tanh(in[i]);
    out[2 * i + 1] = 3.0 * in[i];
  }
}

static void f_not_blocks(const double *in, double *out) { out[2 * N] = not_blocks(in, N, out); }
static void fwd_not_blocks(const double *in, const double *din, double *out, double *dout) {
  out[2 * N] = not_blocks_fwd(in, din, N, out, dout, dout + 2 * N);
}
static void rev_not_blocks(const double *in, double *in_b, const double *out_b, double *out) {
  out[2 * N] = not_blocks_rev(in, in_b, N, out, out_b, out_b[2 * N]);
}
static void ref_not_blocks(const double *in, double *out) {
  double s = 0;
  for (int i = 0; i < N; i++) {
    out[2 * i] = in[i] * in[i];
    out[2 * i + 1] = sin(in[i]);
    s += in[i] * in[i];
  }
  out[2 * N] = s;
}

static void check(const Fn *fn) {
  double in[MAX_IO] = {0.3, -0.7, 1.1, 0.45, 0.5}, din[MAX_IO], out_b[MAX_IO];
  double out[MAX_IO], want[MAX_IO], fout[MAX_IO], dout[MAX_IO], in_b[MAX_IO];
  double up[MAX_IO], down[MAX_IO], moved[MAX_IO];
  char what[128];
  for (int i = 0; i < fn->nin; i++)
    din[i] = 0.25 + 0.125 * i * (i % 2 ? -1 : 1);
  for (int k = 0; k < fn->nout; k++)
    out_b[k] = 1.0 - 0.3 * k;
  fn->f(in, fout);
  fn->ref(in, want);
  for (int k = 0; k < fn->nout; k++) {
    snprintf(what, sizeof what, "%s value %d", fn->name, k);
    expect_close(what, fout[k], want[k], 1e-13);
  }
  /* f_fwd: f's values exactly, the tangent by central differences */
  fn->fwd(in, din, out, dout);
  double h = 1e-6;
  for (int i = 0; i < fn->nin; i++)
    moved[i] = in[i] + h * din[i];
  fn->f(moved, up);
  for (int i = 0; i < fn->nin; i++)
    moved[i] = in[i] - h * din[i];
  fn->f(moved, down);
  for (int k = 0; k < fn->nout; k++) {
    snprintf(what, sizeof what, "%s fwd value %d", fn->name, k);
    expect_close(what, out[k], fout[k], 0);
    snprintf(what, sizeof what, "%s tangent %d", fn->name, k);
    expect_close(what, dout[k], (up[k] - down[k]) / (2 * h), 1e-7);
  }
  /* f_rev: f's values exactly, <din, in_b> = <dout, out_b> */
  memset(in_b, 0, sizeof in_b);
  memset(out, 0, sizeof out);
  fn->rev(in, in_b, out_b, out);
  double lhs = 0, rhs = 0;
  for (int k = 0; k < fn->nout; k++) {
    snprintf(what, sizeof what, "%s rev value %d", fn->name, k);
    expect_close(what, out[k], fout[k], 0);
    rhs += dout[k] * out_b[k];
  }
  for (int i = 0; i < fn->nin; i++)
    lhs += din[i] * in_b[i];
  snprintf(what, sizeof what, "%s duality", fn->name);
  expect_close(what, lhs, rhs, 1e-12);
}

int main(void) {
  const Fn fns[] = {
      {"blocks2", N + 1, 2 * N, f_blocks2, fwd_blocks2, rev_blocks2, ref_blocks2},
      {"blocks3", N + 1, 1, f_blocks3, fwd_blocks3, rev_blocks3, ref_blocks3},
      {"nested", N + 1, 1, f_nested, fwd_nested, rev_nested, ref_nested},
      {"two_outputs", N, 2 * N + 1, f_two, fwd_two, rev_two, ref_two},
      {"swapped", N, 2 * N, f_swapped, fwd_swapped, rev_swapped, ref_swapped},
      {"not_blocks", N, 2 * N + 1, f_not_blocks, fwd_not_blocks, rev_not_blocks, ref_not_blocks},
  };
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
    check(&fns[i]);
  if (failures) {
    printf("%d failures\n", failures);
    return 1;
  }
  printf("interleave: values, tangents and duality agree\n");
  return 0;
}
