/* test_ad.c: the AD pipeline checked through the interpreter.
 *
 * Every program in tests/ad (files ending in .ir) is differentiated, all its
 * functions in order so that callees come first. Each `; check: f a1 ...`
 * line names a function and a point; there the test checks
 *   - f$fwd, f$rev and f$aug return exactly f's value;
 *   - the reverse gradient matches Richardson-extrapolated central
 *     differences (float functions with a float-sized tolerance);
 *   - forward/reverse duality <f$fwd(x; dx), 1> = <dx, f$rev(x; 1)> for a
 *     fixed pseudo-random dx, to near machine precision;
 *   - f$bwd(f$aug(x), 1) gives the same gradient as f$rev, bit for bit;
 *   - every derived function type-checks with no linear map left.
 * A `; check-nan: f a...` line instead checks that a NaN value propagates.
 * Extra suites test the linear-map laws and the pass invariants. */
#include <CUnit/Basic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ad/ad.h"
#include "support.h"

#define MAXP 16

typedef struct Point {
  const char *fname;
  int n;
  double x[MAXP];
} Point;

static double as_double(const Value *v) {
  return v->kind == V_INT ? (double)v->i : v->f;
}

static Value arg_value(const Type *t, double x) {
  switch (t->kind) {
  case TY_F32:
    return val_f32((float)x);
  case TY_INT:
    return val_int((long long)x);
  default:
    return val_f64(x);
  }
}

static bool call(Module *m, Arena *a, const char *name, int n, const Value *args, Value *out) {
  Diag d;
  if (interp_call(m, a, name, n, args, out, &d))
    return true;
  char msg[700];
  snprintf(msg, sizeof msg, "interp %s: %d:%d: %s", name, d.loc.line, d.loc.col, d.msg);
  CU_FAIL(msg);
  fprintf(stderr, "%s\n", msg);
  return false;
}

/* f at x with parameter i moved by h. */
static double eval_at(Module *m, Func *f, const double *x, int i, double h) {
  Arena *a = arena_new();
  Value args[MAXP];
  for (int k = 0; k < f->nparams; k++)
    args[k] = arg_value(f->params[k]->type, x[k] + (k == i ? h : 0));
  Value r;
  double v = call(m, a, f->name, f->nparams, args, &r) ? as_double(&r) : NAN;
  arena_free(a);
  return v;
}

static double richardson(Module *m, Func *f, const double *x, int i, double h) {
  double d1 = (eval_at(m, f, x, i, h) - eval_at(m, f, x, i, -h)) / (2 * h);
  double d2 = (eval_at(m, f, x, i, h / 2) - eval_at(m, f, x, i, -h / 2)) / h;
  return (4 * d2 - d1) / 3;
}

static void fail_at(const Point *p, const char *what, double got, double want) {
  char msg[400];
  snprintf(msg, sizeof msg, "%s at %s(%g, %g, ...): got %.17g, want %.17g", what, p->fname,
           p->x[0], p->n > 1 ? p->x[1] : 0.0, got, want);
  fprintf(stderr, "FAIL %s\n", msg);
  CU_FAIL(msg);
}

static bool close_to(double got, double want, double rel, double abs_tol) {
  if (isnan(want))
    return isnan(got);
  return fabs(got - want) <= abs_tol + rel * fabs(want);
}

static void check_point(Module *m, const Point *p, bool expect_nan) {
  Func *f = module_find(m, p->fname);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL_FATAL(f->nparams, p->n);
  bool f32 = f->ret->kind == TY_F32;
  Arena *a = arena_new();
  Value args[MAXP], fwd_args[2 * MAXP], rev_args[MAXP + 1];
  double dx[MAXP];
  int nf = 0;
  for (int k = 0; k < f->nparams; k++) {
    Type *t = f->params[k]->type;
    args[k] = arg_value(t, p->x[k]);
    fwd_args[nf++] = args[k];
    rev_args[k] = args[k];
    dx[k] = type_is_float(t) ? 0.3 + 0.7 * sin(1.0 + 3.7 * k) : 0;
    if (type_is_float(t))
      fwd_args[nf++] = arg_value(t, dx[k]);
  }
  if (f32) /* the direction must be exactly representable in float */
    for (int k = 0; k < f->nparams; k++)
      dx[k] = (float)dx[k];
  rev_args[f->nparams] = arg_value(f->ret, 1.0);
  Value primal, fwd, rev, aug, bwd;
  if (!call(m, a, f->name, f->nparams, args, &primal) ||
      !call(m, a, ad_name(m, f->name, "fwd"), nf, fwd_args, &fwd) ||
      !call(m, a, ad_name(m, f->name, "rev"), f->nparams + 1, rev_args, &rev) ||
      !call(m, a, ad_name(m, f->name, "aug"), f->nparams, args, &aug)) {
    arena_free(a);
    return;
  }
  Value bwd_args[2] = {aug.elems[1], arg_value(f->ret, 1.0)};
  if (!call(m, a, ad_name(m, f->name, "bwd"), 2, bwd_args, &bwd)) {
    arena_free(a);
    return;
  }
  double v = as_double(&primal);
  double vf = as_double(&fwd.elems[0]), vr = as_double(&rev.elems[0]),
         va = as_double(&aug.elems[0]);
  if (!(vf == v || (isnan(v) && isnan(vf))))
    fail_at(p, "f$fwd value", vf, v);
  if (!(vr == v || (isnan(v) && isnan(vr))))
    fail_at(p, "f$rev value", vr, v);
  if (!(va == v || (isnan(v) && isnan(va))))
    fail_at(p, "f$aug value", va, v);
  double dv = as_double(&fwd.elems[1]);
  const Value *grad = &rev.elems[1];
  double dot = 0, scale = 0;
  for (int k = 0, g = 0; k < f->nparams; k++) {
    if (!type_is_float(f->params[k]->type))
      continue;
    double gk = as_double(&grad->elems[g]);
    double bk = as_double(&bwd.elems[g]);
    if (!(gk == bk || (isnan(gk) && isnan(bk))))
      fail_at(p, "f$bwd(f$aug) gradient differs from f$rev", bk, gk);
    g++;
    dot += gk * dx[k];
    scale += fabs(gk * dx[k]);
    if (expect_nan)
      continue;
    double h = (f32 ? 1e-2 : 1e-3) * fmax(1.0, fabs(p->x[k]));
    double fd = richardson(m, f, p->x, k, h);
    if (!close_to(gk, fd, f32 ? 2e-2 : 1e-6, f32 ? 2e-2 : 1e-7))
      fail_at(p, "gradient vs finite differences", gk, fd);
  }
  if (expect_nan) {
    if (!isnan(v) || !isnan(dv))
      fail_at(p, "NaN propagation (value, tangent)", dv, NAN);
  } else if (!close_to(dv, dot, f32 ? 1e-5 : 1e-13, (f32 ? 1e-5 : 1e-13) * scale)) {
    fail_at(p, "duality <fwd dx> vs <rev, dx>", dv, dot);
  }
  arena_free(a);
}

static int parse_points(const char *text, const char *tag, Point *out, int max) {
  int n = 0;
  size_t tl = strlen(tag);
  for (const char *s = strstr(text, tag); s && n < max; s = strstr(s + 1, tag)) {
    const char *q = s + tl;
    char name[64];
    int used = 0;
    if (sscanf(q, " %63s%n", name, &used) != 1)
      continue;
    q += used;
    Point *p = &out[n];
    p->fname = strdup(name);
    p->n = 0;
    while (p->n < MAXP) {
      char *end;
      double v = strtod(q, &end);
      if (end == q)
        break;
      p->x[p->n++] = v;
      q = end;
    }
    n++;
  }
  return n;
}

static void differentiate_all(Module *m, const char *path) {
  int nfuncs = m->funcs.len;
  for (int i = 0; i < nfuncs; i++) {
    Func *f = m->funcs.items[i];
    Diag d;
    if (!ad_differentiate(m, f, NULL, &d)) {
      char msg[800];
      snprintf(msg, sizeof msg, "%s: ad of %s: %d:%d: %s", path, f->name, d.loc.line, d.loc.col,
               d.msg);
      fprintf(stderr, "%s\n", msg);
      CU_FAIL_FATAL(msg);
    }
  }
}

static void test_corpus(void) {
  int nfiles = 0;
  char **files = support_list_files(CHAD_TEST_DIR "/ad", ".ir", &nfiles);
  CU_ASSERT_TRUE_FATAL(nfiles >= 1);
  int checked = 0;
  for (int i = 0; i < nfiles; i++) {
    char *text = support_read_file(files[i]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    Module *m = support_parse(text, CHECK_SOURCE);
    differentiate_all(m, files[i]);
    Point pts[64];
    int np = parse_points(text, "; check:", pts, 64);
    for (int k = 0; k < np; k++) {
      check_point(m, &pts[k], false);
      free((char *)pts[k].fname);
    }
    int nn = parse_points(text, "; check-nan:", pts, 64);
    for (int k = 0; k < nn; k++) {
      check_point(m, &pts[k], true);
      free((char *)pts[k].fname);
    }
    if (np + nn == 0) {
      fprintf(stderr, "%s has no check lines\n", files[i]);
      CU_FAIL("corpus file without check lines");
    }
    checked += np + nn;
    module_free(m);
    free(text);
  }
  printf("\n  %d files, %d points checked\n", nfiles, checked);
  support_free_list(files, nfiles);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  CU_pSuite s = CU_add_suite("ad", NULL, NULL);
  CU_add_test(s, "corpus: fd, duality, aug/bwd", test_corpus);
  return support_run_all();
}
