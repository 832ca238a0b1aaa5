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
#include "ad/transform.h"
#include "support.h"

#define MAXP 16
#define MAXA 64

/* A point: per parameter a scalar, an input array, or the length of an
 * output array. */
typedef struct Arg {
  double x;      /* scalar value */
  int n;         /* array length (input or output) */
  double a[MAXA];
  bool array;
} Arg;

typedef struct Point {
  const char *fname;
  int n;
  Arg args[MAXP];
} Point;

static double as_double(const Value *v) {
  return v->kind == V_INT ? (double)v->i : v->f;
}

static Value scalar_value(const Type *t, double x) {
  switch (t->kind) {
  case TY_F32:
    return val_f32((float)x);
  case TY_INT:
    return val_int((long long)x);
  default:
    return val_f64(x);
  }
}

static Value array_value(Arena *a, const Type *t, int n, const double *xs) {
  Value elems[MAXA];
  for (int i = 0; i < n; i++)
    elems[i] = scalar_value(t->elem, xs ? xs[i] : 0);
  return val_array(a, n, elems);
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

/* The differentiable inputs of f at a point, flattened: active scalars
 * and the elements of active input arrays. */
typedef struct Flat {
  int n;
  double x[MAXP * MAXA];
  int param[MAXP * MAXA], elem[MAXP * MAXA];
} Flat;

static void flatten_inputs(Func *f, const Point *p, Flat *fl) {
  fl->n = 0;
  for (int i = 0; i < f->nparams; i++) {
    ParamClass cls = func_param_class(f, i);
    if (cls == PARAM_ACTIVE_SCALAR) {
      fl->param[fl->n] = i, fl->elem[fl->n] = -1, fl->x[fl->n++] = p->args[i].x;
    } else if (cls == PARAM_IN_ARRAY && type_is_active(f->params[i]->type)) {
      for (int k = 0; k < p->args[i].n; k++)
        fl->param[fl->n] = i, fl->elem[fl->n] = k, fl->x[fl->n++] = p->args[i].a[k];
    }
  }
}

static void unflatten(Func *f, const Point *p, const double *x, Point *out) {
  *out = *p;
  Flat fl;
  flatten_inputs(f, p, &fl);
  for (int j = 0; j < fl.n; j++) {
    Arg *a = &out->args[fl.param[j]];
    if (fl.elem[j] < 0)
      a->x = x[j];
    else
      a->a[fl.elem[j]] = x[j];
  }
}

static void primal_args(Arena *ar, Func *f, const Point *p, Value *args) {
  for (int i = 0; i < f->nparams; i++) {
    Type *t = f->params[i]->type;
    args[i] = t->kind == TY_ARRAY ? array_value(ar, t, p->args[i].n,
                                                func_param_class(f, i) == PARAM_IN_ARRAY ? p->args[i].a : NULL)
                                  : scalar_value(t, p->args[i].x);
  }
}

/* The outputs of f flattened: the result if active, then the output
 * arrays' elements. */
static int flatten_outputs(Func *f, const Value *r, double *o) {
  int k = 0;
  if (!func_num_outputs(f)) {
    if (type_is_float(f->ret))
      o[k++] = as_double(r);
    return k;
  }
  if (type_is_float(f->ret->elems[0]))
    o[k++] = as_double(&r->elems[0]);
  for (int j = 1; j < r->n; j++)
    if (type_is_float(f->ret->elems[j]->elem))
      for (int i = 0; i < r->elems[j].n; i++)
        o[k++] = as_double(&r->elems[j].elems[i]);
  return k;
}

/* <seed, f(x)> for the fixed output weights: a scalar function for FD. */
static double weighted(Module *m, Func *f, const Point *p, const double *w) {
  Arena *a = arena_new();
  Value args[MAXP], r;
  primal_args(a, f, p, args);
  double o[MAXP * MAXA], v = NAN;
  if (call(m, a, f->name, f->nparams, args, &r)) {
    int no = flatten_outputs(f, &r, o);
    v = 0;
    for (int i = 0; i < no; i++)
      v += w[i] * o[i];
  }
  arena_free(a);
  return v;
}

static double richardson(Module *m, Func *f, const Point *p, const double *w, int j, double h) {
  Flat fl;
  flatten_inputs(f, p, &fl);
  double x[MAXP * MAXA];
  Point q;
  double d[4], steps[4] = {h, -h, h / 2, -h / 2};
  for (int s = 0; s < 4; s++) {
    for (int i = 0; i < fl.n; i++)
      x[i] = fl.x[i];
    x[j] += steps[s];
    unflatten(f, p, x, &q);
    d[s] = weighted(m, f, &q, w);
  }
  double d1 = (d[0] - d[1]) / (2 * h), d2 = (d[2] - d[3]) / h;
  return (4 * d2 - d1) / 3;
}

static void fail_at(const Point *p, const char *what, double got, double want) {
  char msg[400];
  snprintf(msg, sizeof msg, "%s at %s(%g, ...): got %.17g, want %.17g", what, p->fname,
           p->args[0].array ? p->args[0].a[0] : p->args[0].x, got, want);
  fprintf(stderr, "FAIL %s\n", msg);
  CU_FAIL(msg);
}

static bool close_to(double got, double want, double rel, double abs_tol) {
  if (isnan(want))
    return isnan(got);
  return fabs(got - want) <= abs_tol + rel * fabs(want);
}

static bool same(double x, double y) { return x == y || (isnan(x) && isnan(y)); }

/* The halves' gradient against f$rev's: the same but for the order of
 * additions. A sum in a loop's step that f$rev stores (DESIGN 8.55) is
 * reversed there as a fold, its steps' contributions added last step
 * first, and as a sum in the halves (which cannot store), first step
 * first. */
static bool same_but_order(double x, double y) {
  return same(x, y) || fabs(x - y) <= 1e-14 * fmax(fabs(x), fabs(y));
}


static void check_point(Module *m, const Point *p, bool expect_nan) {
  Func *f = module_find(m, p->fname);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_EQUAL_FATAL(f->nparams, p->n);
  Type *rt = func_num_outputs(f) ? f->ret->elems[0] : f->ret;
  bool f32 = rt->kind == TY_F32;
  for (int i = 0; i < f->nparams; i++)
    f32 = f32 || (f->params[i]->type->kind == TY_ARRAY && f->params[i]->type->elem->kind == TY_F32);
  Arena *a = arena_new();
  Flat fl;
  flatten_inputs(f, p, &fl);
  double dx[MAXP * MAXA], w[MAXP * MAXA];
  for (int j = 0; j < fl.n; j++) {
    dx[j] = 0.3 + 0.7 * sin(1.0 + 3.7 * j);
    if (f32)
      dx[j] = (float)dx[j];
  }
  for (int j = 0; j < MAXP * MAXA; j++)
    w[j] = f32 ? (float)(0.5 + 0.5 * cos(0.3 + 1.9 * j)) : 0.5 + 0.5 * cos(0.3 + 1.9 * j);
  /* primal */
  Value args[MAXP], primal;
  primal_args(a, f, p, args);
  if (!call(m, a, f->name, f->nparams, args, &primal)) {
    arena_free(a);
    return;
  }
  double o[MAXP * MAXA];
  int no = flatten_outputs(f, &primal, o);
  /* forward: arguments interleaved with tangents */
  Value fargs[2 * MAXP], fwd;
  int nf = 0, j = 0;
  for (int i = 0; i < f->nparams; i++) {
    Type *t = f->params[i]->type;
    ParamClass cls = func_param_class(f, i);
    fargs[nf++] = args[i];
    if (!type_is_active(t))
      continue;
    if (cls == PARAM_ACTIVE_SCALAR) {
      fargs[nf++] = scalar_value(t, dx[j++]);
    } else if (cls == PARAM_IN_ARRAY) {
      fargs[nf++] = array_value(a, t, p->args[i].n, &dx[j]);
      j += p->args[i].n;
    } else {
      fargs[nf++] = array_value(a, t, p->args[i].n, NULL);
    }
  }
  if (!call(m, a, ad_name(m, f->name, "fwd"), nf, fargs, &fwd)) {
    arena_free(a);
    return;
  }
  bool active_result = type_is_active(f->ret);
  double fo[MAXP * MAXA], dout[MAXP * MAXA];
  int nfo = flatten_outputs(f, active_result ? &fwd.elems[0] : &fwd, fo);
  for (int k = 0; k < nfo && k < no; k++)
    if (!same(fo[k], o[k]))
      fail_at(p, "f$fwd value", fo[k], o[k]);
  double jdx = 0; /* <w, J dx> from the tangent */
  if (active_result) {
    const Value *tan = &fwd.elems[1];
    int k = 0;
    if (!func_num_outputs(f)) {
      dout[k++] = as_double(tan);
    } else {
      int tk = 0;
      if (type_is_float(f->ret->elems[0]))
        dout[k++] = as_double(&tan->elems[tk++]);
      for (int q = 1; q < f->ret->n; q++)
        if (type_is_float(f->ret->elems[q]->elem)) {
          for (int i = 0; i < tan->elems[tk].n; i++)
            dout[k++] = as_double(&tan->elems[tk].elems[i]);
          tk++;
        }
    }
    for (int i = 0; i < k; i++)
      jdx += w[i] * dout[i];
  }
  /* reverse: arguments with buffers and seeds */
  Value rargs[2 * MAXP + 1], rev, *bufs[MAXP] = {0};
  int nr = 0, wo = type_is_float(rt) ? 1 : 0;
  for (int i = 0; i < f->nparams; i++) {
    Type *t = f->params[i]->type;
    ParamClass cls = func_param_class(f, i);
    rargs[nr++] = args[i];
    if (cls == PARAM_IN_ARRAY && type_is_active(t)) {
      rargs[nr] = array_value(a, t, p->args[i].n, NULL);
      bufs[i] = &rargs[nr++];
    } else if (cls == PARAM_OUT_ARRAY && type_is_active(t)) {
      rargs[nr++] = array_value(a, t, p->args[i].n, &w[wo]);
      wo += p->args[i].n;
    }
  }
  if (type_is_active(rt))
    rargs[nr++] = scalar_value(rt, w[0]);
  if (!call(m, a, ad_name(m, f->name, "rev"), nr, rargs, &rev)) {
    arena_free(a);
    return;
  }
  double ro[MAXP * MAXA];
  int nro = flatten_outputs(f, &rev.elems[0], ro);
  for (int k = 0; k < nro && k < no; k++)
    if (!same(ro[k], o[k]))
      fail_at(p, "f$rev value", ro[k], o[k]);
  double grad[MAXP * MAXA];
  for (int q = 0, sc = 0; q < fl.n; q++) {
    int i = fl.param[q];
    grad[q] = fl.elem[q] < 0 ? as_double(&rev.elems[1].elems[sc++])
                             : as_double(&bufs[i]->elems[fl.elem[q]]);
  }
  double dot = 0, scale = 0;
  for (int q = 0; q < fl.n; q++) {
    dot += grad[q] * dx[q];
    scale += fabs(grad[q] * dx[q]);
  }
  if (expect_nan) {
    if (!isnan(o[0]) || !isnan(jdx))
      fail_at(p, "NaN propagation (value, tangent)", jdx, NAN);
    arena_free(a);
    return;
  }
  if (!close_to(jdx, dot, f32 ? 1e-5 : 1e-12, (f32 ? 1e-5 : 1e-12) * scale))
    fail_at(p, "duality <w, J dx> vs <J^T w, dx>", jdx, dot);
  for (int q = 0; q < fl.n; q++) {
    /* a step relative to the coordinate: parameters like a time step of
     * 0.01 need a step far below their own size */
    double h = (f32 ? 1e-2 : 1e-3) * fmax(f32 ? 1.0 : 1e-2, fabs(fl.x[q]));
    double fd = richardson(m, f, p, w, q, h);
    if (!close_to(grad[q], fd, f32 ? 2e-2 : 1e-6, f32 ? 2e-2 : 1e-7))
      fail_at(p, "gradient vs finite differences", grad[q], fd);
  }
  /* the two halves agree with the fused reverse derivative */
  Func *aug = module_find(m, ad_name(m, f->name, "aug"));
  if (aug && type_is_active(rt)) {
    Value augv, bwd;
    Value bargs[MAXP + 2];
    int nb = 0;
    if (call(m, a, aug->name, f->nparams, args, &augv)) {
      bargs[nb++] = augv.elems[1];
      bargs[nb++] = scalar_value(rt, w[0]);
      Value *bufs2[MAXP] = {0};
      for (int i = 0; i < f->nparams; i++)
        if (bufs[i]) {
          bargs[nb] = array_value(a, f->params[i]->type, p->args[i].n, NULL);
          bufs2[i] = &bargs[nb++];
        }
      if (!same(as_double(&augv.elems[0]), o[0]))
        fail_at(p, "f$aug value", as_double(&augv.elems[0]), o[0]);
      if (call(m, a, ad_name(m, f->name, "bwd"), nb, bargs, &bwd))
        for (int q = 0, sc = 0; q < fl.n; q++) {
          int i = fl.param[q];
          double g = fl.elem[q] < 0 ? as_double(&bwd.elems[sc++])
                                    : as_double(&bufs2[i]->elems[fl.elem[q]]);
          if (!same_but_order(g, grad[q]))
            fail_at(p, "f$bwd(f$aug) gradient differs from f$rev", g, grad[q]);
        }
    }
  }
  arena_free(a);
}

/* `; check: f 1.5 [1 2 3] #4 2` — scalars, input arrays, output lengths. */
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
    memset(p, 0, sizeof *p);
    p->fname = strdup(name);
    while (p->n < MAXP) {
      while (*q == ' ' || *q == '\t')
        q++;
      Arg *arg = &p->args[p->n];
      if (*q == '[') {
        q++;
        arg->array = true;
        for (;;) {
          char *end;
          double v = strtod(q, &end);
          if (end == q)
            break;
          arg->a[arg->n++] = v;
          q = end;
        }
        while (*q == ' ')
          q++;
        if (*q == ']')
          q++;
      } else if (*q == '#') {
        arg->array = true;
        arg->n = (int)strtol(q + 1, (char **)&q, 10);
      } else {
        char *end;
        double v = strtod(q, &end);
        if (end == q)
          break;
        arg->x = v;
        q = end;
      }
      p->n++;
    }
    n++;
  }
  return n;
}

static void differentiate_all_with(Module *m, const char *path, const AdOptions *opt) {
  int nfuncs = m->funcs.len;
  for (int i = 0; i < nfuncs; i++) {
    Func *f = m->funcs.items[i];
    Diag d;
    if (!ad_differentiate(m, f, opt, &d)) {
      char msg[800];
      snprintf(msg, sizeof msg, "%s: ad of %s: %d:%d: %s", path, f->name, d.loc.line, d.loc.col,
               d.msg);
      fprintf(stderr, "%s\n", msg);
      CU_FAIL_FATAL(msg);
    }
  }
}

static void differentiate_all(Module *m, const char *path) {
  differentiate_all_with(m, path, NULL);
}

/* Every corpus function, its loops storing residuals where the cost model
 * says so (the default) or never (`recompute`): both must agree with
 * finite differences and duality. */
static void run_corpus(const AdOptions *opt) {
  int nfiles = 0;
  char **files = support_list_files(CHAD_TEST_DIR "/ad", ".ir", &nfiles);
  CU_ASSERT_TRUE_FATAL(nfiles >= 1);
  int checked = 0;
  for (int i = 0; i < nfiles; i++) {
    char *text = support_read_file(files[i]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    Module *m = support_parse(text, CHECK_SOURCE);
    differentiate_all_with(m, files[i], opt);
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

static void test_corpus(void) { run_corpus(NULL); }

static void test_corpus_recompute(void) {
  AdOptions opt = {.recompute = true};
  run_corpus(&opt);
}

/* ------------------------------------------------- linear-map laws */

/* Two 2x2 linear maps on (f64, f64), and scalar ones, written with the
 * operators of Figure 3; `a` and `b` are parameters, so the factors are
 * run-time values. */
#define MAP_A "(lvcat (lhcat (lscale a) (lscale b)) (lhcat (lone (lin f64 f64)) (lzero (lin f64 f64))))"
#define MAP_B "(lvcat (lhcat (lscale 2.0) (lzero (lin f64 f64))) (lhcat (lscale a) (lone (lin f64 f64))))"

/* The matrix of a map (f64, f64) -o (f64, f64) given as IR text, obtained
 * by applying it (after elimination) to the basis vectors. */
static void matrix_of(const char *map, double a, double b, double out[2][2]) {
  char text[2048];
  snprintf(text, sizeof text,
           "(def t (tuple f64 f64) ((a f64) (b f64) (v0 f64) (v1 f64))\n"
           "  (lapply %s (tuple v0 v1)))\n",
           map);
  Module *m = support_parse(text, CHECK_AD);
  Func *f = m->funcs.items[0];
  f->body = anf_expr(m, linmap_eliminate(m, f->body));
  Diag d;
  if (!check_func(m, f, CHECK_FINAL, &d)) {
    fprintf(stderr, "%s: %s\n", map, d.msg);
    CU_FAIL_FATAL("linear map left after elimination");
  }
  for (int j = 0; j < 2; j++) {
    Arena *ar = arena_new();
    Value args[4] = {val_f64(a), val_f64(b), val_f64(j == 0), val_f64(j == 1)};
    Value r;
    CU_ASSERT_TRUE_FATAL(call(m, ar, "t", 4, args, &r));
    out[0][j] = r.elems[0].f;
    out[1][j] = r.elems[1].f;
    arena_free(ar);
  }
  module_free(m);
}

static void assert_matrix(const char *what, double got[2][2], double want[2][2]) {
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      if (fabs(got[i][j] - want[i][j]) > 1e-15) {
        fprintf(stderr, "%s: [%d][%d] got %g want %g\n", what, i, j, got[i][j], want[i][j]);
        CU_FAIL(what);
      }
}

static void test_linmap_semantics(void) {
  double a = 0.75, b = -1.5, A[2][2], B[2][2], M[2][2];
  matrix_of(MAP_A, a, b, A);
  double wantA[2][2] = {{a, b}, {1, 0}};
  assert_matrix("vcat/hcat/scale/one/zero", A, wantA);
  matrix_of(MAP_B, a, b, B);
  double AB[2][2], ApB[2][2], At[2][2], ABt[2][2];
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      AB[i][j] = A[i][0] * B[0][j] + A[i][1] * B[1][j];
      ApB[i][j] = A[i][j] + B[i][j];
      At[i][j] = A[j][i];
    }
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      ABt[i][j] = AB[j][i];
  matrix_of("(lcomp " MAP_A " " MAP_B ")", a, b, M);
  assert_matrix("composition is the matrix product", M, AB);
  matrix_of("(lplus " MAP_A " " MAP_B ")", a, b, M);
  assert_matrix("plus is the matrix sum", M, ApB);
  matrix_of("(ltrans " MAP_A ")", a, b, M);
  assert_matrix("transpose", M, At);
  matrix_of("(ltrans (lcomp " MAP_A " " MAP_B "))", a, b, M);
  assert_matrix("(m1 . m2)^T = m2^T . m1^T", M, ABt);
  matrix_of("(ltrans (ltrans " MAP_A "))", a, b, M);
  assert_matrix("(m^T)^T = m", M, A);
  matrix_of("(lcomp (lone (lin (tuple f64 f64) (tuple f64 f64))) (lcomp " MAP_A
            " (lone (lin (tuple f64 f64) (tuple f64 f64)))))", a, b, M);
  assert_matrix("1 . m = m . 1 = m", M, A);
  matrix_of("(lplus (lzero (lin (tuple f64 f64) (tuple f64 f64))) " MAP_A ")", a, b, M);
  assert_matrix("0 (+) m = m", M, A);
}

/* Figure 4's properties, checked as rewrites of the map term. */
static void test_linmap_laws(void) {
  struct {
    const char *in, *out, *dom, *cod;
  } laws[] = {
      {"(lcomp (lscale a) (lscale b))", "(lscale (mul a b))", "f64", "f64"},
      {"(lplus (lscale a) (lscale b))", "(lscale (add a b))", "f64", "f64"},
      {"(lcomp (lzero (lin f64 f64)) (lscale a))", "(lzero (lin f64 f64))", "f64", "f64"},
      {"(lcomp (lscale a) (lone (lin f64 f64)))", "(lscale a)", "f64", "f64"},
      {"(lplus (lscale a) (lzero (lin f64 f64)))", "(lscale a)", "f64", "f64"},
      {"(ltrans (lhcat (lscale a) (lscale b)))", "(lvcat (lscale a) (lscale b))", "f64", "(tuple f64 f64)"},
      {"(ltrans (lvcat (lscale a) (lone (lin f64 f64))))",
       "(lhcat (lscale a) (lone (lin f64 f64)))", "(tuple f64 f64)", "f64"},
      {"(lcomp (lhcat (lscale a) (lscale b)) (lvcat (lscale b) (lscale a)))",
       "(lscale (add (mul a b) (mul b a)))", "f64", "f64"},
  };
  for (size_t i = 0; i < sizeof laws / sizeof laws[0]; i++) {
    char text[1024];
    snprintf(text, sizeof text, "(def t %s ((a f64) (b f64) (v %s)) (lapply %s v))\n",
             laws[i].cod, laws[i].dom, laws[i].in);
    Module *m = support_parse(text, CHECK_AD);
    Func *f = m->funcs.items[0];
    Expr *simplified = linmap_simplify(m, f->body->args[0]);
    char *got = expr_to_string(simplified);
    if (strcmp(got, laws[i].out) != 0) {
      fprintf(stderr, "law %s: got %s, want %s\n", laws[i].in, got, laws[i].out);
      CU_FAIL("linear-map law");
    }
    free(got);
    module_free(m);
  }
}

/* ----------------------------------------------------------- code size */

#include "emit/emit.h"

/* Straight-line programs of n statements in which every variable is used
 * several times: the emitted C must grow linearly (CHAD Corollary 7.2). */
static char *chain_program(int n, bool dag) {
  size_t cap = (size_t)n * 160 + 256;
  char *text = malloc(cap);
  size_t len = (size_t)snprintf(text, cap, "(def f f64 ((x f64) (y f64))\n");
  for (int i = 0; i < n; i++) {
    if (dag) /* a_i = a_{i-1} * a_{i-2} + sin(a_{i-1}), fan-out 3 */
      len += (size_t)snprintf(text + len, cap - len,
                              "(let (a%d (add (mul %s %s) (sin %s)))\n", i,
                              i ? "p1" : "x", i > 1 ? "p2" : "y", i ? "p1" : "x");
    else /* x = x*x + x */
      len += (size_t)snprintf(text + len, cap - len, "(let (x (add (mul x x) x))\n");
    if (dag)
      len += (size_t)snprintf(text + len, cap - len, "(let (p2 %s) (let (p1 a%d)\n",
                              i ? "p1" : "y", i);
  }
  len += (size_t)snprintf(text + len, cap - len, dag ? "(mul p1 y)" : "(mul x y)");
  for (int i = 0; i < n * (dag ? 3 : 1) + 1; i++)
    text[len++] = ')';
  text[len] = '\0';
  return text;
}

static size_t emitted_size(int n, bool dag) {
  char *text = chain_program(n, dag);
  Module *m = support_parse(text, CHECK_SOURCE);
  Func *f = m->funcs.items[0];
  Diag d;
  CU_ASSERT_TRUE_FATAL(ad_differentiate(m, f, NULL, &d));
  char *c = emit_definitions(m, f, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);
  size_t size = strlen(c);
  free(c);
  module_free(m);
  free(text);
  return size;
}

static void test_code_size(void) {
  for (int dag = 0; dag < 2; dag++) {
    size_t s10 = emitted_size(10, dag), s100 = emitted_size(100, dag),
           s1000 = emitted_size(1000, dag);
    printf("\n  %s: emitted C bytes for N = 10, 100, 1000: %zu %zu %zu",
           dag ? "DAG with fan-out" : "x = x*x + x", s10, s100, s1000);
    /* Linear growth: each tenfold N grows the text at most ~10x (plus the
     * fixed per-function overhead), far from the 100x of quadratic swell. */
    CU_ASSERT(s1000 < 12 * s100);
    CU_ASSERT(s100 < 12 * s10);
    CU_ASSERT(s1000 > 8 * s100);
  }
  printf("\n");
}

/* ------------------------------------------------ nested branches */

/* An else-if chain of `depth` cases, case k: x < k/8 -> sin(x / k), whose
 * reverse needs residuals computed from x only (the condition, x / k and
 * cos(x / k), which the primal does not use): the reverse branches compute
 * those again, so the tape of f$aug holds a fixed number of fields at
 * every depth instead of every level's residuals. With `shared`, case k is
 * sin(x) * (x / k): sin(x) is a value the primal needs too, so it is
 * carried out, but the cases share one slot (only one case runs). */
static int chain_tape_fields(int depth, bool shared) {
  size_t cap = 256 + (size_t)depth * 160, len = 0;
  char *text = malloc(cap);
  len += (size_t)snprintf(text + len, cap - len, "(def f f64 ((x f64))\n  ");
  for (int k = 1; k <= depth; k++)
    len += (size_t)snprintf(text + len, cap - len,
                            shared ? "(if (lt x (div %d.0 8.0)) (mul (sin x) (div x %d.0)) "
                                   : "(if (lt x (div %d.0 8.0)) (sin (div x %d.0)) ",
                            k, k);
  len += (size_t)snprintf(text + len, cap - len, "(exp x)");
  for (int k = 1; k <= depth; k++)
    len += (size_t)snprintf(text + len, cap - len, ")");
  snprintf(text + len, cap - len, ")\n");
  Module *m = support_parse(text, CHECK_SOURCE);
  differentiate_all(m, "else-if chain");
  Func *aug = module_find(m, "f$aug");
  CU_ASSERT_PTR_NOT_NULL_FATAL(aug);
  int fields = aug->ret->elems[1]->n;
  for (int k = -3; k <= depth + 3; k += 7) { /* halfway between two k/8 */
    Point p = {.fname = "f", .n = 1, .args = {{.x = (k + 0.5) / 8.0}}};
    check_point(m, &p, false);
  }
  module_free(m);
  free(text);
  return fields;
}

static void test_else_if_tape(void) {
  int t4 = chain_tape_fields(4, false), t40 = chain_tape_fields(40, false),
      t400 = chain_tape_fields(400, false);
  printf("\n  tape fields of an else-if chain of 4, 40, 400 cases: %d %d %d", t4, t40, t400);
  /* x, the first condition, exp(x) of the last case; from depth 8 on
   * also 1.0/8.0, which CSE shares between the first condition and the
   * derivative of x / 8 */
  CU_ASSERT(t4 == 3 && t40 == 4);
  CU_ASSERT(t400 == t40);
  int s4 = chain_tape_fields(4, true), s40 = chain_tape_fields(40, true),
      s400 = chain_tape_fields(400, true);
  printf("\n  ... with a residual the primal shares: %d %d %d\n", s4, s40, s400);
  CU_ASSERT(s40 <= s4 + 1); /* + 1.0/8.0, as above */
  CU_ASSERT(s400 == s40);
}

/* ------------------------------------------------------------ tables */

/* Counts the nodes of kind k in e. */
static int count_kind(const Expr *e, ExprKind k) {
  int n = 0;
  for (; e; e = e->kind == E_LET || expr_is_loop(e) ? e->body : NULL) {
    n += e->kind == k;
    for (int i = 0; i < e->nargs; i++)
      n += count_kind(e->args[i], k);
  }
  return n;
}

/* A constant table is a constant: f$fwd makes no tangent array for it
 * (no build of zeros), f$rev no cotangent buffer (no alloc) and adds
 * nothing into one; each derivative keeps the table itself once. */
static void test_tables_cost_nothing(void) {
  const char *text =
      "(def f f64 ((x (array f64)) (s f64))\n"
      "  (let (A (table f64 1.0 2.0 3.0 4.0 5.0 6.0))\n"
      "  (sum 2 (i) (sum 3 (j) (mul (mul (index A (add (mul i 3) j)) s) (index x j))))))\n";
  Module *m = support_parse(text, CHECK_SOURCE);
  differentiate_all(m, "tables");
  const char *names[] = {"f$fwd", "f$rev"};
  for (int k = 0; k < 2; k++) {
    Func *g = module_find(m, names[k]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    int tables = count_kind(g->body, E_TABLE), builds = count_kind(g->body, E_BUILD),
        allocs = count_kind(g->body, E_ALLOC);
    if (tables != 1 || builds || allocs)
      fprintf(stderr, "%s: %d tables, %d builds, %d allocs\n", names[k], tables, builds, allocs);
    CU_ASSERT(tables == 1 && builds == 0 && allocs == 0);
  }
  /* the only accumulation goes to x's adjoint, in the loop that reads x */
  CU_ASSERT(count_kind(module_find(m, "f$rev")->body, E_ACCUM) == 1);
  module_free(m);
}

/* ------------------------------------------------------ call chains */

typedef struct CallCount {
  const char *name;
  int n;
} CallCount;

static void count_calls(Expr *e, CallCount *c) {
  for (; e->kind == E_LET; e = e->body)
    count_calls(e->args[0], c);
  if (e->kind == E_CALL)
    for (CallCount *k = c + 1; k->name; k++)
      if (strcmp(e->name, k->name) == 0)
        k->n++;
  for (int i = 0; i < e->nargs; i++)
    count_calls(e->args[i], c);
  if (e->body)
    count_calls(e->body, c);
}

static int count_prim(const Expr *e, Prim op) {
  int n = 0;
  for (; e->kind == E_LET; e = e->body)
    n += count_prim(e->args[0], op);
  if (e->kind == E_PRIM && e->op == op)
    n++;
  for (int i = 0; i < e->nargs; i++)
    n += count_prim(e->args[i], op);
  if (expr_is_loop(e))
    n += count_prim(e->body, op);
  return n;
}

/* A nest of three folds with sin innermost (DESIGN 8.22): when loops
 * may store, the outermost loop's steps are checkpoints and the loops
 * inside them store, so f$rev runs sin twice (its primal sweep, and once
 * per outer step in the reverse sweep) at any depth; when they recompute,
 * once per level (the primal sweep and each outer level's reverse step
 * recompute the step; the innermost reverse step needs only cos, so DCE
 * drops its sin). The halves for callers recompute (they cannot share a log)
 * and f_rev agrees with finite differences either way. */
static void test_store_nest(void) {
  const char *text =
      "(def nest f64 ((x (array f64)) (n int) (w f64))\n"
      "  (fold n 0.0 (i a)\n"
      "    (fold n a (j b)\n"
      "      (fold n b (k c)\n"
      "        (add (mul c w) (sin (mul (index x k) (add (index x i) (index x j)))))))))\n";
  for (int recompute = 0; recompute <= 1; recompute++) {
    Module *m = support_parse(text, CHECK_SOURCE);
    AdOptions opt = {.recompute = recompute};
    differentiate_all_with(m, "nest", &opt);
    Func *rev = module_find(m, "nest$rev");
    CU_ASSERT_PTR_NOT_NULL_FATAL(rev);
    int sins = count_prim(rev->body, P_SIN);
    if (sins != (recompute ? 3 : 2)) {
      fprintf(stderr, "nest$rev (recompute %d) has %d sin, want %d\n", recompute, sins,
              recompute ? 3 : 2);
      CU_FAIL("store-or-recompute: runs of the innermost body");
    }
    CU_ASSERT_EQUAL(count_kind(rev->body, E_LOGPUSH) > 0, !recompute);
    Func *aug = module_find(m, "nest$aug"), *bwd = module_find(m, "nest$bwd");
    CU_ASSERT_PTR_NOT_NULL_FATAL(aug);
    CU_ASSERT_PTR_NOT_NULL_FATAL(bwd);
    CU_ASSERT_EQUAL(count_kind(aug->body, E_LOGPUSH) + count_kind(bwd->body, E_LOGTAKE), 0);
    Point p = {.fname = "nest", .n = 3,
               .args = {{.array = true, .n = 3, .a = {0.3, -0.7, 1.1}}, {.x = 3}, {.x = 0.9}}};
    check_point(m, &p, false);
    module_free(m);
  }
}

/* DESIGN 8.35: a sum whose cotangent is known before it runs each step's
 * reverse in the primal sweep: f$rev calls sin once per step, not twice
 * (once more in the reverse sweep), and an output array's one element
 * makes its seed that cotangent. Recomputing, and in the halves (whose
 * primal half cannot know the seed), the sum is reversed as before. A
 * square of the sum has a cotangent that depends on it: reversed as
 * before too. */
static void test_eager_sum(void) {
  const char *text =
      "(def es f64 ((x (array f64)) (n int) (w f64))\n"
      "  (let (s (sum n (i) (let (e (index x i)) (mul e (sin (mul w e))))))\n"
      "  (let (t (mul s 2.0))\n"
      "  (sub t w))))\n"
      "(def sq f64 ((x (array f64)) (n int) (w f64))\n"
      "  (let (s (sum n (i) (let (e (index x i)) (mul e (sin (mul w e))))))\n"
      "  (mul s s)))\n";
  for (int recompute = 0; recompute <= 1; recompute++) {
    Module *m = support_parse(text, CHECK_SOURCE);
    AdOptions opt = {.recompute = recompute};
    differentiate_all_with(m, "eager", &opt);
    Func *rev = module_find(m, "es$rev"), *sq = module_find(m, "sq$rev");
    Func *aug = module_find(m, "es$aug"), *bwd = module_find(m, "es$bwd");
    CU_ASSERT_PTR_NOT_NULL_FATAL(rev);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sq);
    CU_ASSERT_PTR_NOT_NULL_FATAL(aug);
    CU_ASSERT_PTR_NOT_NULL_FATAL(bwd);
    int sins = count_prim(rev->body, P_SIN);
    if (sins != (recompute ? 2 : 1)) {
      fprintf(stderr, "es$rev (recompute %d) has %d sin, want %d\n", recompute, sins,
              recompute ? 2 : 1);
      CU_FAIL("a sum with a cotangent known before it: runs of its body");
    }
    CU_ASSERT_EQUAL(count_kind(rev->body, E_SUM), recompute ? 2 : 0);
    CU_ASSERT_EQUAL(count_prim(sq->body, P_SIN), 2);
    CU_ASSERT_EQUAL(count_prim(aug->body, P_SIN) + count_prim(bwd->body, P_SIN), 2);
    for (int k = 0; k < 2; k++) {
      Point p = {.fname = k ? "sq" : "es", .n = 3,
                 .args = {{.array = true, .n = 3, .a = {0.3, -0.7, 1.1}}, {.x = 3}, {.x = 0.9}}};
      check_point(m, &p, false);
    }
    module_free(m);
  }
}

/* DESIGN 8.55: in a loop's step, a sum whose body calls exp stores its
 * steps instead of running exp again in its reverse: nested$rev runs exp
 * once (recomputing: in the step, again in its reverse, and in the sum's
 * reverse). At f's top level (lse) the sum is
 * reversed as before, exp twice, with no undo log; lse's halves run exp
 * again, so lse is marked, and a caller that calls it in a loop inlines
 * it and stores: outer$rev calls neither lse$aug nor lse$bwd and runs exp
 * once. A call outside loops (once), and a callee whose sum has no math
 * call (sq), keep the halves. Values against finite differences and
 * duality, both modes. */
static void test_sum_store(void) {
  const char *text =
      "(def lse f64 ((x (array f64)) (n int))\n"
      "  (log (sum n (i) (exp (index x i)))))\n"
      "(def sq f64 ((x (array f64)) (n int))\n"
      "  (let (s (sum n (i) (mul (index x i) (index x i)))) (mul s s)))\n"
      "(def nested f64 ((x (array f64)) (n int))\n"
      "  (sum n (j) (log (sum n (i) (exp (mul (index x i) (index x j)))))))\n"
      "(def outer f64 ((x (array f64)) (n int))\n"
      "  (sum n (j) (mul (mul (call lse x n) (call sq x n)) (index x j))))\n"
      "(def once f64 ((x (array f64)) (n int))\n"
      "  (mul (call lse x n) (index x 0)))\n";
  for (int recompute = 0; recompute <= 1; recompute++) {
    Module *m = support_parse(text, CHECK_SOURCE);
    AdOptions opt = {.recompute = recompute};
    differentiate_all_with(m, "sumstore", &opt);
    Func *lse = module_find(m, "lse$rev"), *outer = module_find(m, "outer$rev");
    Func *nested = module_find(m, "nested$rev"), *bwd = module_find(m, "lse$bwd");
    CU_ASSERT_PTR_NOT_NULL_FATAL(lse);
    CU_ASSERT_PTR_NOT_NULL_FATAL(outer);
    CU_ASSERT_PTR_NOT_NULL_FATAL(nested);
    CU_ASSERT_PTR_NOT_NULL_FATAL(bwd);
    int exps = count_prim(nested->body, P_EXP);
    if (exps != (recompute ? 3 : 1)) {
      fprintf(stderr, "nested$rev (recompute %d) has %d exp, want %d\n", recompute, exps,
              recompute ? 3 : 1);
      CU_FAIL("a costly sum in a loop's step: runs of its body");
    }
    CU_ASSERT_EQUAL(count_kind(nested->body, E_LOGPUSH) > 0, !recompute);
    CU_ASSERT_EQUAL(count_prim(lse->body, P_EXP), 2);
    CU_ASSERT_EQUAL(count_kind(lse->body, E_LOGPUSH), 0);
    CU_ASSERT_EQUAL(count_prim(bwd->body, P_EXP), 1); /* the halves recompute */
    CU_ASSERT_EQUAL(module_find(m, "lse")->halves_recompute, !recompute);
    CU_ASSERT_FALSE(module_find(m, "sq")->halves_recompute);
    CallCount calls[] = {{NULL, 0}, {"lse$aug", 0}, {"sq$aug", 0}, {NULL, 0}};
    count_calls(outer->body, calls);
    CU_ASSERT_EQUAL(calls[1].n, recompute ? 1 : 0);
    CU_ASSERT_EQUAL(calls[2].n, 1);
    exps = count_prim(outer->body, P_EXP);
    if (exps != (recompute ? 0 : 1)) {
      fprintf(stderr, "outer$rev (recompute %d) has %d exp, want %d\n", recompute, exps,
              recompute ? 0 : 1);
      CU_FAIL("a callee with a costly sum, inlined in a loop: runs of its exp");
    }
    /* called once, outside any loop: its halves are called */
    CallCount once[] = {{NULL, 0}, {"lse$aug", 0}, {NULL, 0}};
    count_calls(module_find(m, "once$rev")->body, once);
    CU_ASSERT_EQUAL(once[1].n, 1);
    const char *names[] = {"lse", "nested", "outer", "once"};
    for (int k = 0; k < 4; k++) {
      Point p = {.fname = names[k], .n = 2,
                 .args = {{.array = true, .n = 3, .a = {0.3, -0.7, 1.1}}, {.x = 3}}};
      check_point(m, &p, false);
    }
    module_free(m);
  }
}

/* DESIGN 8.18: a branch that makes a small array (ADBench's rotation,
 * w = rot / theta) exports its elements instead of recomputing the
 * branch in the reverse sweep, and the partials cos th of sin th and
 * -sin th of cos th read the values the branch computed: f$rev calls
 * sqrt, sin and cos once each. */
static void test_branch_small_array(void) {
  const char *text =
      "(def rot f64 ((x (array f64)) (s f64))\n"
      "  (let (q (add (mul (index x 0) (index x 0)) 1.0))\n"
      "  (let (r (if (gt s 0.0)\n"
      "             (let (th (sqrt q))\n"
      "             (let (c (cos th))\n"
      "             (let (sn (sin th))\n"
      "             (let (w (build 3 (i) (mul (index x i) sn)))\n"
      "             (add (mul (index w 0) c) (mul (index w 2) (index w 1)))))))\n"
      "             (mul q s)))\n"
      "  (mul r r))))\n";
  Module *m = support_parse(text, CHECK_SOURCE);
  differentiate_all(m, "rot");
  Func *rev = module_find(m, "rot$rev");
  CU_ASSERT_PTR_NOT_NULL_FATAL(rev);
  int calls[3] = {count_prim(rev->body, P_SQRT), count_prim(rev->body, P_SIN),
                  count_prim(rev->body, P_COS)};
  if (calls[0] != 1 || calls[1] != 1 || calls[2] != 1) {
    fprintf(stderr, "rot$rev calls sqrt %d, sin %d, cos %d times, want 1 each\n", calls[0],
            calls[1], calls[2]);
    CU_FAIL("a branch's small array recomputed with the branch");
  }
  for (double sgn = -1; sgn <= 1; sgn += 2) {
    Point p = {.fname = "rot", .n = 2,
               .args = {{.array = true, .n = 3, .a = {0.3, -0.7, 1.1}}, {.x = 0.9 * sgn}}};
    check_point(m, &p, false);
  }
  module_free(m);
}

/* DESIGN 8.65: the partials of quotients by one number share one 1/z in
 * the reverse sweep, and those of sqrt and of 1/theta reuse the primal's
 * 1/theta (BA's projection and Rodrigues' rotation in small): the primal's
 * three divisions and the reverse sweep's 1/z, against eight before. */
static void test_one_division(void) {
  const char *text =
      "(def proj f64 ((x (array f64)))\n"
      "  (let (z (index x 2))\n"
      "  (let (p0 (div (index x 0) z))\n"
      "  (let (p1 (div (index x 1) z))\n"
      "  (let (th (sqrt (add (mul p0 p0) (mul p1 p1))))\n"
      "  (let (ti (div 1.0 th))\n"
      "  (add (mul ti p0) (mul th p1))))))))\n";
  Module *m = support_parse(text, CHECK_SOURCE);
  differentiate_all(m, "proj");
  Func *rev = module_find(m, "proj$rev");
  CU_ASSERT_PTR_NOT_NULL_FATAL(rev);
  int divisions = count_prim(rev->body, P_DIV);
  if (divisions != 4) {
    fprintf(stderr, "proj$rev divides %d times, want 4\n", divisions);
    CU_FAIL("a divisor's reciprocal computed more than once");
  }
  Point p = {.fname = "proj", .n = 1, .args = {{.array = true, .n = 3, .a = {0.3, -0.7, 1.9}}}};
  check_point(m, &p, false);
  module_free(m);
}

/* DESIGN 8.23: a loop nest of f's primal sweep carrying an array f made
 * (a relaxation over steps) saves nothing in the undo log when no reverse
 * code after it reads that array's memory; when a sum before the nest
 * read it (the sum's reverse reads it again), the nest saves. Both agree
 * with finite differences and duality. The emitted C takes the memory of
 * the arrays a loop body makes from one slot per site, not malloc. */
static void test_tbr(void) {
  const char *text =
      "(def relax f64 ((x (array f64)) (n int))\n"
      "  (let (w (build n (i) (mul (index x i) (index x i))))\n"
      "  (let (pre (sum n (i) (sin (index w i))))\n"
      "  (let (s (fold 3 (tuple w) (t st)\n"
      "           (tuple (fold (sub n 1) (get 0 st) (k u)\n"
      "             (update u (add k 1)\n"
      "               (add (mul (index u (add k 1)) (cos (index u k))) USE))))))\n"
      "  (let (v (get 0 s))\n"
      "  (add (index v (sub n 1)) (mul pre (index v 0))))))))\n";
  for (int reads = 0; reads <= 1; reads++) {
    char src[1024];
    const char *use = reads ? "pre" : "0.5";
    const char *at = strstr(text, "USE");
    snprintf(src, sizeof src, "%.*s%s%s", (int)(at - text), text, use, at + 3);
    if (!reads) { /* no sum before the nest reads w */
      char *p = strstr(src, "(sin (index w i))");
      memcpy(p, "(sin (index x i))", strlen("(sin (index x i))"));
    }
    Module *m = support_parse(src, CHECK_SOURCE);
    differentiate_all_with(m, "relax", NULL);
    Func *rev = module_find(m, "relax$rev");
    CU_ASSERT_PTR_NOT_NULL_FATAL(rev);
    int saves = count_kind(rev->body, E_LOGSAVE);
    if ((saves > 0) != reads) {
      fprintf(stderr, "relax$rev (sum reads w: %d) has %d saves\n", reads, saves);
      CU_FAIL("to be recorded: a nest saves exactly when a reverse after it reads its memory");
    }
    CU_ASSERT(count_kind(rev->body, E_LOGPUSH) > 0);
    Point p = {.fname = "relax", .n = 2,
               .args = {{.array = true, .n = 4, .a = {0.3, -0.7, 1.1, 0.4}}, {.x = 4}}};
    check_point(m, &p, false);
    module_free(m);
  }
  /* an earlier loop that read the in-out parameter stored its elements:
   * its reverse reads none of p's memory, so the loop updating p in place
   * saves nothing (the lowering of lstm_model's gate and hidden loops) */
  const char *inout =
      "(def lm (tuple (tuple) (array f64)) ((p (array f64) inout) (n int))\n"
      "  (let (g0 (alloc (array f64) n))\n"
      "  (let (g (fold n g0 (i a) (update a i (sin (mul (index p i) (index p i))))))\n"
      "  (let (q (fold n p (i b) (update b i (mul (index b i) (cos (index g i))))))\n"
      "    (tuple (tuple) q)))))\n";
  Module *mi = support_parse(inout, CHECK_SOURCE);
  differentiate_all_with(mi, "lm", NULL);
  Func *lm = module_find(mi, "lm$rev");
  CU_ASSERT_PTR_NOT_NULL_FATAL(lm);
  CU_ASSERT_EQUAL(count_kind(lm->body, E_LOGSAVE), 0); /* values: e2e/tbr.c's gates */
  module_free(mi);
  const char *made =
      "(def made f64 ((x (array f64)) (n int))\n"
      "  (fold n 0.0 (i acc)\n"
      "    (let (t (build n (j) (sin (mul (index x j) (index x i)))))\n"
      "    (add acc (sum n (j) (mul (index t j) (index t (sub (sub n 1) j))))))))\n";
  Module *m = support_parse(made, CHECK_SOURCE);
  differentiate_all_with(m, "made", NULL);
  Diag d;
  char *c = emit_definitions(m, module_find(m, "made"), &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);
  bool slot = strstr(c, "chad__slot_get(&") || strstr(c, "chad__slot_block(&");
  if (!slot)
    fprintf(stderr, "%s\n", c);
  CU_ASSERT(slot);
  free(c);
  module_free(m);
}

/* The number of times needle occurs in the text from `from`. */
static int occurrences(const char *from, const char *needle) {
  int n = 0;
  for (const char *p = strstr(from, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

/* DESIGN 8.54: an allocation site in a loop body whose length the loops
 * around it cannot change takes its slot's block once, before the
 * outermost of them (guarded: a count of 0 when a loop runs no step), and
 * at the site is only zeroed when asked; a length read from the loop's
 * counter, or a site under a condition, takes it at the site. Values: every
 * e2e test of arrays made in loop bodies (scratch.c, private_scratch.c,
 * stored_nests.c), under AddressSanitizer. */
static void test_slot_hoist(void) {
  const char *text =
      "(def made f64 ((x (array f64)) (n int) (m int))\n"
      "  (fold n 0.0 (i acc)\n"
      "    (add acc (sum n (k)\n"
      "      (let (t (build m (j) (sin (mul (index x j) (index x i)))))\n"
      "        (sum m (j) (mul (index t j) (index t (sub (sub m 1) j)))))))))\n"
      "(def grows f64 ((x (array f64)) (n int))\n"
      "  (fold n 0.0 (i acc)\n"
      "    (let (t (build (add i 1) (j) (sin (mul (index x j) (index x i)))))\n"
      "    (add acc (sum (add i 1) (j) (mul (index t j) (index t j)))))))\n"
      "(def maybe f64 ((x (array f64)) (n int))\n"
      "  (fold n 0.0 (i acc)\n"
      "    (if (gt (index x i) 0.0)\n"
      "      (let (t (build n (j) (sin (mul (index x j) (index x i)))))\n"
      "        (add acc (sum n (j) (mul (index t j) (index t j)))))\n"
      "      acc)))\n";
  Module *m = support_parse(text, CHECK_SOURCE);
  differentiate_all_with(m, "slot hoist", NULL);
  Diag d;
  const char *names[] = {"made", "grows", "maybe"};
  for (int f = 0; f < 3; f++) {
    char *c = emit_definitions(m, module_find(m, names[f]), &d);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    char sig[64];
    snprintf(sig, sizeof sig, "double %s_rev(", names[f]);
    const char *body = strstr(c, sig);
    CU_ASSERT_PTR_NOT_NULL_FATAL(body);
    /* a block taken before the loops comes from the out-of-line
     * chad__slot_block (DESIGN 8.76), one taken at the site from the
     * inlined chad__slot_get */
    int gets = occurrences(body, "chad__slot_get(&");
    int hoisted = occurrences(body, "_block = chad__slot_block(&");
    bool ok = f == 0 ? gets == 0 && hoisted > 0 && strstr(body, "(n) > 0 && (n) > 0 ? (m) : 0")
                     : gets > 0 && hoisted == 0;
    if (!ok)
      fprintf(stderr, "%s: %d slot gets, %d taken before a loop\n%s\n", names[f], gets, hoisted, body);
    CU_ASSERT(ok);
    free(c);
  }
  Point p = {.fname = "made", .n = 3,
             .args = {{.array = true, .n = 3, .a = {0.3, -0.7, 1.1}}, {.x = 3}, {.x = 3}}};
  check_point(m, &p, false);
  module_free(m);
}

/* DESIGN 8.53: the undo log of straight-line code lives in local
 * variables (a save is the element's address and old value, a pop a
 * store); a log operation in a loop keeps the log (and one that saves
 * nothing records and puts back no final values, 8.67). The values are checked
 * by the e2e tests (inout.c's read_first and bump, updates.c): f_rev's
 * final in-out values equal f's, its gradients finite differences'. */
static void test_log_in_locals(void) {
  const char *text =
      "(def bump (tuple (tuple) (array f64)) ((p (array f64) inout) (x f64))\n"
      "  (let (v (mul (index p 0) x))\n"
      "  (let (p1 (update p 0 v))\n"
      "  (let (p2 (update p1 1 (mul (index p1 0) (index p1 1))))\n"
      "    (tuple (tuple) p2)))))\n"
      "(def bumps (tuple (tuple) (array f64)) ((p (array f64) inout) (x f64) (n int))\n"
      "  (let (q (fold n p (i a) (update a i (mul (index a i) x))))\n"
      "    (tuple (tuple) q)))\n";
  Module *m = support_parse(text, CHECK_SOURCE);
  differentiate_all_with(m, "log in locals", NULL);
  Diag d;
  char *straight = emit_definitions(m, module_find(m, "bump"), &d);
  char *looped = emit_definitions(m, module_find(m, "bumps"), &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(straight);
  CU_ASSERT_PTR_NOT_NULL_FATAL(looped);
  const char *body = strstr(straight, "void bump_rev(");
  CU_ASSERT_PTR_NOT_NULL_FATAL(body);
  body = strstr(body, "{");
  CU_ASSERT_PTR_NOT_NULL_FATAL(body);
  bool locals = strstr(body, "= &p[0];") && strstr(body, "= &p[1];") &&
                strstr(body, "chad__final_1 = *") && !strstr(body, "chad__log_") &&
                !strstr(body, "chad__log ");
  if (!locals)
    fprintf(stderr, "%s\n", body);
  CU_ASSERT(locals);
  body = strstr(looped, "void bumps_rev(");
  CU_ASSERT_PTR_NOT_NULL_FATAL(body);
  CU_ASSERT(strstr(body, "chad__log chad__undo = {0};") != NULL);
  /* DESIGN 8.67: its steps keep the old values as residuals and save
   * nothing, so p's final values are never restored: no redo */
  CU_ASSERT(strstr(body, "chad__log_final(&") == NULL);
  CU_ASSERT(strstr(body, "chad__log_redo(&") == NULL);
  free(straight);
  free(looped);
  module_free(m);
}

/* DESIGN 8.49: a reverse loop's sum of the contributions to a scalar
 * outside it (x_i's cotangent over the inner loop of tri) may be
 * reassociated, so the emitter writes it with chad__free_add; a primal
 * sum (both of tri's, sq's) keeps C's order, so f_rev's value and its
 * branches round as f's. Both agree with finite differences and
 * duality. */
static void test_free_order(void) {
  const char *text =
      "(def tri f64 ((x (array f64)) (l (array f64)) (n int))\n"
      "  (sum n (i) (let (xi (index x i))\n"
      "    (sum n (j) (mul (mul xi (index l j)) (mul (index x j) (index x j)))))))\n"
      "(def sq f64 ((x (array f64)) (n int))\n"
      "  (sum n (i) (mul (index x i) (index x i))))\n";
  Module *m = support_parse(text, CHECK_SOURCE);
  differentiate_all_with(m, "free order", NULL);
  Diag d;
  char *tri = emit_definitions(m, module_find(m, "tri"), &d);
  char *sq = emit_definitions(m, module_find(m, "sq"), &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(tri);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sq);
  const char *body = strstr(tri, "double tri_rev(const double *x, double *x_b, const double *l, "
                                 "double *l_b, int n, double ret_b) {");
  CU_ASSERT_PTR_NOT_NULL_FATAL(body);
  int free_adds = 0, plus_eq = 0;
  for (const char *p = strstr(body, "= chad__free_add("); p; p = strstr(p + 1, "= chad__free_add("))
    free_adds++;
  for (const char *p = strstr(body, " += "); p; p = strstr(p + 1, " += "))
    plus_eq++;
  if (free_adds != 1 || !strstr(body, "t_6_1 += t_5;")) {
    fprintf(stderr, "%s\n", body);
    CU_FAIL("the reverse reduction, and it alone, is written with chad__free_add");
  }
  CU_ASSERT(plus_eq >= 3); /* the primal sum and the two array cotangents */
  CU_ASSERT(!strstr(sq, "= chad__free_add(")); /* its runtime defines it, nothing calls it */
  free(tri);
  free(sq);
  Point p = {.fname = "tri", .n = 3,
             .args = {{.array = true, .n = 3, .a = {0.3, -0.7, 1.1}},
                      {.array = true, .n = 3, .a = {0.5, 0.2, -0.4}}, {.x = 3}}};
  check_point(m, &p, false);
  Point q = {.fname = "sq", .n = 2, .args = {{.array = true, .n = 3, .a = {0.3, -0.7, 1.1}}, {.x = 3}}};
  check_point(m, &q, false);
  module_free(m);
}

/* Pushes of an int (a length, a count) in e. */
static int count_int_pushes(const Expr *e) {
  int n = 0;
  for (; e; e = e->kind == E_LET || expr_is_loop(e) ? e->body : NULL) {
    n += e->kind == E_LOGPUSH && e->args[0]->type->kind == TY_INT;
    for (int i = 0; i < e->nargs; i++)
      n += count_int_pushes(e->args[i]);
  }
  return n;
}

/* DESIGN 8.50: the array each step of `made`'s inner loop makes (t, n
 * numbers) is a residual pushed by its elements; its length n is known outside the
 * loop, so it is not pushed, and the reverse step, which pushes nothing,
 * reads t where the log holds it (log-view) instead of copying it out.
 * Of f32 the log holds doubles: a copy, as before. Both agree with
 * finite differences and duality. */
static void test_log_view(void) {
  const char *text =
      "(def made T ((x (array T)) (n int))\n"
      "  (sum n (i)\n"
      "    (fold n ZERO (k acc)\n"
      "      (let (t (build n (j) (sin (mul (index x j) (index x k)))))\n"
      "      (add (mul acc (index x i))\n"
      "           (sum n (j) (mul (index t j) (index t (sub (sub n 1) j)))))))))\n";
  for (int f32 = 0; f32 <= 1; f32++) {
    char src[1024];
    snprintf(src, sizeof src, "%s", text);
    for (char *p = strstr(src, "T"); p; p = strstr(p, "T"))
      memmove(p + 3, p + 1, strlen(p + 1) + 1), memcpy(p, f32 ? "f32" : "f64", 3);
    char *z = strstr(src, "ZERO");
    memcpy(z, f32 ? "0.0f" : "0.0 ", 4);
    Module *m = support_parse(src, CHECK_SOURCE);
    differentiate_all_with(m, "log view", NULL);
    Func *rev = module_find(m, "made$rev");
    CU_ASSERT_PTR_NOT_NULL_FATAL(rev);
    int views = count_kind(rev->body, E_LOGVIEW), lengths = count_int_pushes(rev->body);
    if (views != !f32 || lengths != 0) {
      fprintf(stderr, "made$rev (f32: %d): %d log-views, %d pushed ints\n", f32, views, lengths);
      CU_FAIL("t is read in the log (f64 only), and its length is not pushed");
    }
    if (!f32) {
      Diag d;
      char *c = emit_definitions(m, module_find(m, "made"), &d);
      CU_ASSERT_PTR_NOT_NULL_FATAL(c);
      CU_ASSERT(strstr(c, "(double *)chad__log_release(") != NULL);
      free(c);
    }
    Point p = {.fname = "made", .n = 2,
               .args = {{.array = true, .n = 4, .a = {0.3, -0.7, 1.1, 0.4}}, {.x = 4}}};
    check_point(m, &p, false);
    module_free(m);
  }
}

/* DESIGN 8.56: an array a storing step makes and then carries through a
 * fold that updates it (GMM's Qtimesx, a tuple state; or the array
 * alone), read through a view from element 0, has the length it was made
 * with: the step pushes no length, neither for the residual nor for the
 * cotangent buffer of the array the fold gives back. Values against finite
 * differences and duality. */
static void test_carried_length(void) {
  const char *text =
      "(def pair f64 ((x (array f64)) (n int))\n"
      "  (sum n (i)\n"
      "    (fold n 0.0 (k acc)\n"
      "      (let (t (build n (j) (sin (mul (index x j) (index x k)))))\n"
      "      (let (u (fold (sub n 1) (tuple 0 t) (j st)\n"
      "                (let (c (get 0 st)) (let (v (get 1 st))\n"
      "                (tuple (add c 1) (update v (add j 1)\n"
      "                  (add (index v (add j 1)) (mul (index v j) (index x i)))))))))\n"
      "      (let (w (view (get 1 u) 0))\n"
      "      (add (mul acc (index x i)) (sum n (j) (mul (index w j) (index w j))))))))))\n"
      "(def alone f64 ((x (array f64)) (n int))\n"
      "  (sum n (i)\n"
      "    (fold n 0.0 (k acc)\n"
      "      (let (t (build n (j) (sin (mul (index x j) (index x k)))))\n"
      "      (let (u (fold (sub n 1) t (j v)\n"
      "                (update v (add j 1) (add (index v (add j 1)) (mul (index v j) (index x i))))))\n"
      "      (let (w (view u 0))\n"
      "      (add (mul acc (index x i)) (sum n (j) (mul (index w j) (index w j))))))))))\n";
  Module *m = support_parse(text, CHECK_SOURCE);
  differentiate_all_with(m, "carried length", NULL);
  const char *names[] = {"pair", "alone"};
  for (int k = 0; k < 2; k++) {
    Func *rev = module_find(m, ad_name(m, names[k], "rev"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(rev);
    int stores = count_kind(rev->body, E_LOGPUSH), lengths = count_int_pushes(rev->body);
    if (stores == 0 || lengths != 0) {
      fprintf(stderr, "%s$rev: %d pushes, %d pushed ints\n", names[k], stores, lengths);
      CU_FAIL("a carried array's length is known: not pushed");
    }
    Point p = {.fname = names[k], .n = 2,
               .args = {{.array = true, .n = 4, .a = {0.3, -0.7, 1.1, 0.4}}, {.x = 4}}};
    check_point(m, &p, false);
  }
  module_free(m);
}

/* Folds, anywhere in e, that visit their steps last first: a binding of
 * their body's top level subtracts the counter from something other than
 * the trip count (n - 1, bound before the loop; qx's primal computes
 * n - i). */
static int count_reversed_folds(const Expr *e) {
  int n = 0;
  for (; e; e = e->kind == E_LET || expr_is_loop(e) ? e->body : NULL) {
    if (e->kind == E_FOLD)
      for (const Expr *b = e->body; b && b->kind == E_LET; b = b->body) {
        const Expr *r = b->args[0];
        if (r->kind == E_PRIM && r->op == P_SUB && r->args[1]->kind == E_VAR &&
            r->args[1]->var == e->var && !atom_eq(r->args[0], e->args[0])) {
          n++;
          break;
        }
      }
    for (int i = 0; i < e->nargs; i++)
      n += count_reversed_folds(e->args[i]);
  }
  return n;
}

/* ad/steporder.c: a reverse loop whose steps are independent runs
 * forwards. qx is GMM's Qtimesx: the inner loop's reverse reads the
 * cotangent of o2[j], adds into L's buffer and sums x[i]'s contribution;
 * it runs forwards, the outer loop's (which takes its residuals from the
 * log by the counter) backwards. recur's reverse reads the cotangent of
 * o2[k+1] and adds into that of o2[k], in the same buffer: run forwards,
 * its derivative would be wrong, so it stays backwards. Both agree with
 * finite differences and duality. */
static void test_step_order(void) {
  const char *text =
      "(def qx f64 ((L (array f64)) (x (array f64)) (n int))\n"
      "  (let (out (build n (i) (mul (index x i) 2.0)))\n"
      "  (let (res (fold n out (i o)\n"
      "              (fold (sub (sub n i) 1) o (k o2)\n"
      "                (let (j (add (add i k) 1))\n"
      "                (update o2 j (add (index o2 j)\n"
      "                                  (mul (index L (add (mul i n) j)) (index x i))))))))\n"
      "  (sum n (i) (let (e (index res i)) (mul e e))))))\n"
      "(def recur f64 ((x (array f64)) (n int))\n"
      "  (let (o (build n (i) (sin (index x i))))\n"
      "  (let (r (fold (sub n 1) o (k o2)\n"
      "            (update o2 (add k 1) (add (index o2 (add k 1)) (mul 0.5 (index o2 k))))))\n"
      "  (sum n (i) (let (e (index r i)) (mul e e))))))\n";
  Module *m = support_parse(text, CHECK_SOURCE);
  differentiate_all(m, "step order");
  Func *qx = module_find(m, "qx$rev"), *recur = module_find(m, "recur$rev");
  CU_ASSERT_PTR_NOT_NULL_FATAL(qx);
  CU_ASSERT_PTR_NOT_NULL_FATAL(recur);
  int folds_qx = count_kind(qx->body, E_FOLD), reversed_qx = count_reversed_folds(qx->body);
  int reversed_recur = count_reversed_folds(recur->body);
  if (reversed_qx != 1 || folds_qx < 3 || reversed_recur != 1) {
    fprintf(stderr, "qx$rev: %d of %d folds reversed; recur$rev: %d\n", reversed_qx, folds_qx,
            reversed_recur);
    CU_FAIL("qx's inner reverse loop runs forwards, its outer one and recur's backwards");
  }
  double L[16] = {0.3, -0.7, 1.1, 0.4, 0.9, -0.2, 0.5, 1.3, -0.6, 0.8, 0.1, -1.2, 0.7, 0.2, -0.4, 0.6};
  Point p = {.fname = "qx", .n = 3, .args = {{.array = true, .n = 16}, {.array = true, .n = 4, .a = {0.5, -0.3, 0.9, 0.2}}, {.x = 4}}};
  memcpy(p.args[0].a, L, sizeof L);
  check_point(m, &p, false);
  Point q = {.fname = "recur", .n = 2, .args = {{.array = true, .n = 4, .a = {0.3, -0.7, 1.1, 0.4}}, {.x = 4}}};
  check_point(m, &q, false);
  module_free(m);
}

/* Folds in e whose state is a number (a value carried from step to step,
 * which reverse mode runs backwards). */
static int count_number_folds(const Expr *e) {
  int n = 0;
  for (; e; e = e->kind == E_LET || expr_is_loop(e) ? e->body : NULL) {
    n += e->kind == E_FOLD && type_is_float(e->var2->type);
    for (int i = 0; i < e->nargs; i++)
      n += count_number_folds(e->args[i]);
  }
  return n;
}

/* DESIGN 8.52: a loop keeping the last value a condition picked (a running
 * maximum or minimum, the picked value computed from the step's reads)
 * carries the pick's index; its derivatives carry nothing through the
 * loop. Not when the picked value reads the state (a running mean of the
 * picks), calls a <math.h> function, or the step has an effect. */
static void test_pick_last(void) {
  const char *text =
      "(def amax f64 ((x (array f64)) (n int))\n"
      "  (fold (sub n 1) (index x 0) (k m)\n"
      "    (let (t (index x (add k 1))) (if (lt m t) t m))))\n"
      "(def amin f64 ((x (array f64)) (w (array f64)) (n int))\n"
      "  (let (m (fold n 1000.0 (k m)\n"
      "    (let (v (mul (index x k) (index w (sub (sub n 1) k)))) (if (gt v m) m v))))\n"
      "  (mul m m)))\n"
      "(def amean f64 ((x (array f64)) (n int))\n"
      "  (fold (sub n 1) (index x 0) (k m)\n"
      "    (let (t (index x (add k 1))) (if (lt m t) (mul 0.5 (add m t)) m))))\n"
      "(def aexp f64 ((x (array f64)) (n int))\n"
      "  (fold n 0.0 (k m)\n"
      "    (let (t (index x k)) (if (lt m t) (exp t) m))))\n";
  Module *m = support_parse(text, CHECK_SOURCE);
  differentiate_all(m, "picks");
  const char *picked[] = {"amax$rev", "amin$rev", "amax$fwd", "amin$fwd"};
  const char *kept[] = {"amean$rev", "aexp$rev"};
  for (int i = 0; i < 4; i++) {
    Func *g = module_find(m, picked[i]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    if (count_number_folds(g->body) != 0 || count_kind(g->body, E_LOGPUSH) != 0) {
      fprintf(stderr, "%s: %d folds of a number, %d pushes\n", picked[i], count_number_folds(g->body),
              count_kind(g->body, E_LOGPUSH));
      CU_FAIL("a running pick carries its index: no number through the loop, nothing stored");
    }
  }
  for (int i = 0; i < 2; i++) {
    Func *g = module_find(m, kept[i]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT(count_number_folds(g->body) >= 1);
  }
  Point a = {.fname = "amax", .n = 2, .args = {{.array = true, .n = 5, .a = {0.3, -0.7, 1.1, 0.4, 0.9}}, {.x = 5}}};
  check_point(m, &a, false);
  Point a1 = {.fname = "amax", .n = 2, .args = {{.array = true, .n = 4, .a = {1.3, -0.7, 1.1, 0.4}}, {.x = 4}}};
  check_point(m, &a1, false); /* the first element stays the maximum */
  Point a2 = {.fname = "amax", .n = 2, .args = {{.array = true, .n = 1, .a = {0.6}}, {.x = 1}}};
  check_point(m, &a2, false); /* no step */
  Point b = {.fname = "amin", .n = 3, .args = {{.array = true, .n = 4, .a = {0.3, -0.7, 1.1, 0.4}},
                                              {.array = true, .n = 4, .a = {0.5, 1.2, -0.8, 0.6}}, {.x = 4}}};
  check_point(m, &b, false);
  Point c = {.fname = "amean", .n = 2, .args = {{.array = true, .n = 4, .a = {0.3, 0.7, 0.45, 1.4}}, {.x = 4}}};
  check_point(m, &c, false);
  Point d = {.fname = "aexp", .n = 2, .args = {{.array = true, .n = 4, .a = {0.3, 0.7, -0.5, 1.4}}, {.x = 4}}};
  check_point(m, &d, false);
  module_free(m);
}

/* A record type (a callee's tape) that holds an array's address. */
static bool record_holds_array(const Type *t, bool in_record) {
  if (t->kind == TY_ARRAY)
    return in_record;
  if (t->kind != TY_TUPLE)
    return false;
  for (int i = 0; i < t->n; i++)
    if (record_holds_array(t->elems[i], in_record || t->name))
      return true;
  return false;
}

/* The aug/bwd split: h passes g an array it made (w), and g's tape keeps
 * that array's address. h$aug's tape must not keep g's tape, whose
 * pointer dies with h$aug's frame (gen seed 222444: a stack array, read
 * by h$bwd after h$aug returned); h$bwd makes w and calls g$aug again. */
static void test_split_local_array(void) {
  const char *text =
      "(def g f64 ((x (array f64))) (sum 2 (j) (sin (index x j))))\n"
      "(def h f64 ((a f64) (y (array f64)))\n"
      "  (let (w (build 2 (k) (mul a (index y k)))) (call g w)))\n"
      "(def top f64 ((a f64) (y (array f64))) (let (p (call h a y)) (mul p p)))\n";
  Module *m = support_parse(text, CHECK_SOURCE);
  differentiate_all_with(m, "split", NULL);
  Func *aug = module_find(m, "h$aug"), *bwd = module_find(m, "h$bwd");
  CU_ASSERT_PTR_NOT_NULL_FATAL(aug);
  CU_ASSERT_PTR_NOT_NULL_FATAL(bwd);
  Type *tape = aug->ret->elems[1];
  bool dangling = false;
  for (int i = 0; i < tape->n; i++) /* h's own fields may be its parameters' addresses */
    dangling = dangling || (tape->elems[i]->kind == TY_TUPLE && record_holds_array(tape->elems[i], false));
  CU_ASSERT_FALSE(dangling);
  CallCount c[3] = {{NULL, 0}, {"g$aug", 0}, {NULL, 0}};
  count_calls(bwd->body, c);
  CU_ASSERT_EQUAL(c[1].n, 1);
  Point p = {.fname = "top", .n = 2, .args = {{.x = 0.7}, {.array = true, .n = 2, .a = {0.3, -1.1}}}};
  check_point(m, &p, false);
  module_free(m);
}

/* Loops inside ifs inside loops, 60 levels deep (the fuzzer's
 * loop_in_if_deep): the store-or-recompute policy looks at each level a
 * bounded number of times. Its cost estimate once walked both branches of
 * every if three times (3^depth: this never finished); now the whole
 * function differentiates, and agrees with finite differences (one trip
 * per loop: 60 levels of two trips would run 2^60 steps). */
static size_t deep_level(char *out, size_t len, size_t cap, int k, int depth, const char *state) {
  if (k == depth)
    return len + (size_t)snprintf(out + len, cap - len, "%s", state);
  len += (size_t)snprintf(out + len, cap - len,
                          "(if (gt (index a 0) %d.0) (fold n %s (i%d s%d) "
                          "(let (t%d (add s%d (mul (index a i%d) %d.0))) ",
                          -k, state, k, k, k, k, k, k);
  char next[16];
  snprintf(next, sizeof next, "t%d", k);
  len = deep_level(out, len, cap, k + 1, depth, next);
  return len + (size_t)snprintf(out + len, cap - len, ")) %s)\n", state);
}

static void test_store_deep_nest(void) {
  enum { DEPTH = 60 };
  static char text[1 << 16];
  size_t len = (size_t)snprintf(text, sizeof text, "(def deep f64 ((a (array f64)) (n int))\n");
  len = deep_level(text, len, sizeof text, 0, DEPTH, "0.0");
  snprintf(text + len, sizeof text - len, ")\n");
  Module *m = support_parse(text, CHECK_SOURCE);
  differentiate_all(m, "deep nest");
  Point p = {.fname = "deep", .n = 2, .args = {{.array = true, .n = 2, .a = {0.4, -0.3}}, {.x = 1}}};
  check_point(m, &p, false);
  module_free(m);
}

/* f1 -> f2 -> ... -> fk, one call each: the reverse derivative of f1 must
 * run each callee's primal half once and its adjoint half once (O(k)
 * callee runs), never its primal or its whole reverse derivative again. */
static void test_call_chain(void) {
  enum { K = 12 };
  char text[8192];
  size_t len = 0;
  len += (size_t)snprintf(text + len, sizeof text - len, "(def f%d f64 ((x f64)) (sin x))\n", K);
  for (int i = K - 1; i >= 1; i--)
    len += (size_t)snprintf(text + len, sizeof text - len,
                            "(def f%d f64 ((x f64)) (mul x (call f%d (mul x x))))\n", i, i + 1);
  Module *m = support_parse(text, CHECK_SOURCE);
  differentiate_all(m, "call chain");
  for (int i = 1; i < K; i++) {
    char callee[32], aug[40], bwd[40], rev[40], fwd[40];
    snprintf(callee, sizeof callee, "f%d", i + 1);
    snprintf(aug, sizeof aug, "f%d$aug", i + 1);
    snprintf(bwd, sizeof bwd, "f%d$bwd", i + 1);
    snprintf(rev, sizeof rev, "f%d$rev", i + 1);
    snprintf(fwd, sizeof fwd, "f%d$fwd", i + 1);
    const char *derived[] = {"rev", "aug", "bwd", "fwd"};
    int want[4][5] = {/* callee aug bwd rev fwd */
                      {0, 1, 1, 0, 0},
                      {0, 1, 0, 0, 0},
                      {0, 0, 1, 0, 0},
                      {0, 0, 0, 0, 1}};
    for (int d = 0; d < 4; d++) {
      char name[40];
      snprintf(name, sizeof name, "f%d$%s", i, derived[d]);
      Func *g = module_find(m, name);
      CU_ASSERT_PTR_NOT_NULL_FATAL(g);
      CallCount c[7] = {{NULL, 0}, {callee, 0}, {aug, 0}, {bwd, 0}, {rev, 0}, {fwd, 0}, {NULL, 0}};
      count_calls(g->body, c);
      for (int k = 0; k < 5; k++)
        if (c[k + 1].n != want[d][k]) {
          fprintf(stderr, "%s calls %s %d times, want %d\n", name, c[k + 1].name, c[k + 1].n,
                  want[d][k]);
          CU_FAIL("call structure of a derivative");
        }
    }
  }
  Point p = {.fname = "f1", .n = 1, .args = {{.x = 0.8}}};
  check_point(m, &p, false);
  module_free(m);
}

/* ---------------------------------------------------- custom functions */

/* A CHAD_CUSTOM callee g (no body): f$fwd calls g$fwd (the user's g_fwd),
 * f$rev calls g for the value and g$rev (g_rev) in the reverse sweep with
 * the buffer of the active array and none for the inactive one; f$aug
 * calls g alone, f$bwd g$rev alone; the emitted C calls g_fwd and g_rev
 * with the scalars' adjoints in locals. */
static void test_custom_calls(void) {
  const char *text =
      "(custom g f64 ((a (array f64)) (w (array f64) inactive) (x f64) (n int)))\n"
      "(def f f64 ((a (array f64)) (w (array f64) inactive) (x f64))\n"
      "  (mul x (call g a w (sin x) 3)))\n";
  Module *m = support_parse(text, CHECK_SOURCE);
  Func *f = module_find(m, "f");
  Diag d;
  CU_ASSERT_TRUE_FATAL(ad_differentiate(m, f, NULL, &d));
  Func *gfwd = module_find(m, "g$fwd"), *grev = module_find(m, "g$rev");
  CU_ASSERT_TRUE_FATAL(gfwd && grev && gfwd->is_custom && grev->is_custom);
  /* (a da w x dx n) and (a a_b w x n ret_b) */
  CU_ASSERT(gfwd->nparams == 6 && grev->nparams == 6 && !gfwd->body && !grev->body);
  CU_ASSERT(grev->params[1]->type->kind == TY_ARRAY && grev->params[5]->type->kind == TY_F64);
  const char *names[] = {"f$fwd", "f$rev", "f$aug", "f$bwd"};
  int want[4][3] = {/* g g$fwd g$rev */ {0, 1, 0}, {1, 0, 1}, {1, 0, 0}, {0, 0, 1}};
  for (int k = 0; k < 4; k++) {
    CallCount c[5] = {{NULL, 0}, {"g", 0}, {"g$fwd", 0}, {"g$rev", 0}, {NULL, 0}};
    Func *h = module_find(m, names[k]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    CU_ASSERT(check_func(m, h, CHECK_FINAL, &d));
    count_calls(h->body, c);
    for (int j = 0; j < 3; j++)
      if (c[j + 1].n != want[k][j]) {
        fprintf(stderr, "%s calls %s %d times, want %d\n", names[k], c[j + 1].name, c[j + 1].n,
                want[k][j]);
        CU_FAIL("call structure of a derivative with a custom callee");
      }
  }
  char *c = emit_definitions(m, f, &d);
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);
  CU_ASSERT(strstr(c, "= g_fwd(a, da, w, ") != NULL);
  CU_ASSERT(strstr(c, "(void)g_rev(a, a_b, w, ") != NULL);
  free(c);
  module_free(m);
}


/* ------------------------------------------ partials at special points */

/* The tangent f$fwd gives at the arguments (tangents interleaved). */
static double tangent_at(Module *m, const char *name, int n, const Value *args) {
  Arena *a = arena_new();
  Value r;
  double t = NAN;
  if (call(m, a, ad_name(m, name, "fwd"), n, args, &r))
    t = as_double(&r.elems[1]);
  arena_free(a);
  return t;
}

/* Exact partials where finite differences cannot look: the quotient of
 * fmod and remainder right at a jump (fmod(1, 0.1) takes 9 times 0.1,
 * though 1/0.1 rounds to 10), pow(x, n) at 0 and below, ldexp, copysign of
 * -0; and an inactive argument costs nothing (lgamma of an int, no call of
 * digamma). */
/* Forward mode alone on the in-place programs of tests/ir/update.ir (the
 * tangent of an update is an update of the tangent array): f$fwd's
 * tangent against central differences of f, in the interpreter. */
static double run_scalar(Module *m, const char *name, int n, const Value *args, int field) {
  Arena *a = arena_new();
  Value r;
  double v = NAN;
  if (call(m, a, name, n, args, &r))
    v = field < 0 ? r.f : r.elems[field].f;
  arena_free(a);
  return v;
}

static void test_forward_updates(void) {
  char *text = support_read_file(CHAD_TEST_DIR "/ir/update.ir");
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  Module *m = support_parse(text, CHECK_SOURCE);
  static const char *const names[] = {"fill", "branchy", "swap2"};
  for (int k = 0; k < 3; k++) {
    Func *f = module_find(m, names[k]);
    Func *fa = anf_func(m, f);
    NameSet ns = {0};
    Func *g = ad_forward(m, fa, &ns);
    nameset_free(&ns);
    g->body = anf_body(m, g, linmap_eliminate(m, g->body));
    Diag d;
    bool ok = check_func(m, g, CHECK_AD, &d);
    if (!ok)
      fprintf(stderr, "%s: %s\n", names[k], d.msg);
    CU_ASSERT_TRUE_FATAL(ok);
    for (int c = 0; c < 2; c++) {
      double x = 0.7, h = 1e-4;
      Value args[2] = {val_f64(x), val_int(c)}, fargs[3] = {val_f64(x), val_f64(1.0), val_int(c)};
      Value xp[2] = {val_f64(x + h), val_int(c)}, xm[2] = {val_f64(x - h), val_int(c)};
      int n = f->nparams;
      double want = (run_scalar(m, names[k], n, xp, -1) - run_scalar(m, names[k], n, xm, -1)) /
                    (2 * h);
      double value = run_scalar(m, g->name, n + 1, fargs, 0);
      double tangent = run_scalar(m, g->name, n + 1, fargs, 1);
      CU_ASSERT_EQUAL(value, run_scalar(m, names[k], n, args, -1));
      CU_ASSERT_DOUBLE_EQUAL(tangent, want, 1e-6);
    }
  }
  module_free(m);
  free(text);
}

/* What reverse mode does not support yet is refused with a message, never
 * a wrong derivative: an array chosen by a condition, a loop whose steps
 * swap the arrays it carries (DESIGN 8.13), and a returned array. */
static void test_reverse_update_limits(void) {
  char *text = support_read_file(CHAD_TEST_DIR "/ir/update.ir");
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  static const char *const cases[][2] = {
      {"choose", "chosen under a condition"},
      {"swap2", "swap"},
  };
  for (int k = 0; k < 2; k++) {
    Module *m = support_parse(text, CHECK_SOURCE);
    Diag d = {0};
    bool ok = ad_differentiate(m, module_find(m, cases[k][0]), NULL, &d);
    CU_ASSERT_FALSE(ok);
    if (!ok && !strstr(d.msg, cases[k][1]))
      fprintf(stderr, "%s: unexpected message: %s\n", cases[k][0], d.msg);
    CU_ASSERT_TRUE(!ok && strstr(d.msg, cases[k][1]) && d.loc.line > 0);
    module_free(m);
  }
  free(text);
  /* An IR function returning an array (C cannot: lowering makes it an
   * output parameter): no buffer would take its seed, which f$rev would
   * drop; refused. The same array through an output parameter is fine. */
  Module *m = support_parse("(def fresh (array f64) ((x (array f64)) (n int))\n"
                            "  (build n (i) (sin (index x i))))\n",
                            CHECK_SOURCE);
  Diag d = {0};
  bool ok = ad_differentiate(m, module_find(m, "fresh"), NULL, &d);
  CU_ASSERT_TRUE(!ok && strstr(d.msg, "returns an array") && d.loc.line == 1);
  module_free(m);
}

static void test_special_partials(void) {
  const char *text =
      "(def q_fmod f64 ((a f64) (b f64)) (fmod a b))\n"
      "(def q_rem f64 ((a f64) (b f64)) (remainder a b))\n"
      "(def q_powi f64 ((x f64) (n int)) (powi x n))\n"
      "(def q_pow f64 ((x f64) (y f64)) (pow x y))\n"
      "(def q_powif f32 ((x f32) (n int)) (powi x n))\n"
      "(def q_ldexp f64 ((x f64) (n int)) (ldexp x n))\n"
      "(def q_copysign f64 ((a f64) (b f64)) (copysign a b))\n"
      "(def q_lgamma f64 ((x f64)) (lgamma x))\n"
      "(def q_lgamma_int f64 ((x f64) (n int)) (mul x (lgamma (to_f64 n))))\n";
  Module *m = support_parse(text, CHECK_SOURCE);
  differentiate_all(m, "special partials");
  Value d0 = val_f64(0.0), d1 = val_f64(1.0);
  CU_ASSERT_EQUAL(tangent_at(m, "q_fmod", 4, (Value[]){val_f64(1.0), d0, val_f64(0.1), d1}), -9.0);
  CU_ASSERT_EQUAL(tangent_at(m, "q_fmod", 4, (Value[]){val_f64(-7.5), d0, val_f64(2.0), d1}), 3.0);
  CU_ASSERT_EQUAL(tangent_at(m, "q_rem", 4, (Value[]){val_f64(1.0), d0, val_f64(0.1), d1}), -10.0);
  CU_ASSERT_EQUAL(tangent_at(m, "q_rem", 4, (Value[]){val_f64(7.5), d0, val_f64(2.0), d1}), -4.0);
  CU_ASSERT_EQUAL(tangent_at(m, "q_powi", 3, (Value[]){val_f64(0.0), d1, val_int(0)}), 0.0);
  CU_ASSERT_EQUAL(tangent_at(m, "q_powi", 3, (Value[]){val_f64(0.0), d1, val_int(1)}), 1.0);
  CU_ASSERT_EQUAL(tangent_at(m, "q_powi", 3, (Value[]){val_f64(0.0), d1, val_int(2)}), 0.0);
  CU_ASSERT_EQUAL(tangent_at(m, "q_powi", 3, (Value[]){val_f64(-2.0), d1, val_int(3)}), 12.0);
  CU_ASSERT_EQUAL(tangent_at(m, "q_powi", 3, (Value[]){val_f64(-2.0), d1, val_int(-2)}), 0.25);
  CU_ASSERT_EQUAL(tangent_at(m, "q_powif", 3, (Value[]){val_f32(-2.0f), val_f32(1.0f), val_int(3)}),
                  12.0);
  /* a general exponent: neither partial NaN at x = 0 when y's tangent is 0
   * (but for y = 0: 0^y jumps there, d/dy is -inf) */
  CU_ASSERT_EQUAL(tangent_at(m, "q_pow", 4, (Value[]){val_f64(0.0), d1, val_f64(2.0), d0}), 0.0);
  CU_ASSERT_EQUAL(tangent_at(m, "q_pow", 4, (Value[]){val_f64(0.0), d1, val_f64(1.0), d0}), 1.0);
  CU_ASSERT_EQUAL(tangent_at(m, "q_pow", 4, (Value[]){val_f64(0.0), d0, val_f64(2.0), d1}), 0.0);
  CU_ASSERT_EQUAL(tangent_at(m, "q_ldexp", 3, (Value[]){val_f64(0.3), d1, val_int(-3)}), 0.125);
  CU_ASSERT_EQUAL(tangent_at(m, "q_copysign", 4, (Value[]){val_f64(1.5), d1, val_f64(-0.0), d0}),
                  -1.0);
  CU_ASSERT_EQUAL(tangent_at(m, "q_copysign", 4, (Value[]){val_f64(-1.5), d1, val_f64(-2.0), d1}),
                  1.0);
  Diag d;
  char *with = emit_definitions(m, module_find(m, "q_lgamma"), &d);
  char *without = emit_definitions(m, module_find(m, "q_lgamma_int"), &d);
  CU_ASSERT_PTR_NOT_NULL(with && strstr(with, "chad_digamma(x)"));
  CU_ASSERT_PTR_NULL(without ? strstr(without, "digamma") : "emit failed");
  free(with);
  free(without);
  module_free(m);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  CU_pSuite s = CU_add_suite("ad", NULL, NULL);
  CU_add_test(s, "corpus: fd, duality, aug/bwd", test_corpus);
  CU_add_test(s, "corpus, loops recomputing: fd, duality", test_corpus_recompute);
  CU_add_test(s, "store-or-recompute in a nest of three loops", test_store_nest);
  CU_add_test(s, "a sum reversed in the primal sweep", test_eager_sum);
  CU_add_test(s, "sums that store, and small callees whose halves cannot", test_sum_store);
  CU_add_test(s, "store-or-recompute: loops in ifs, 60 deep", test_store_deep_nest);
  CU_add_test(s, "to be recorded: a nest saves only what a later reverse reads", test_tbr);
  CU_add_test(s, "a branch's small array: exported, not recomputed", test_branch_small_array);
  CU_add_test(s, "quotients by one number: one reciprocal", test_one_division);
  CU_add_test(s, "reverse reductions: order free, primal sums in C's", test_free_order);
  CU_add_test(s, "the undo log of straight-line code in locals", test_log_in_locals);
  CU_add_test(s, "slots whose length no step changes taken before the loop", test_slot_hoist);
  CU_add_test(s, "aug/bwd: no tape keeps an array the function made", test_split_local_array);
  CU_add_test(s, "stored loops: array residuals read in the log, lengths known", test_log_view);
  CU_add_test(s, "stored loops: lengths of arrays folds carry, known", test_carried_length);
  CU_add_test(s, "reverse loops of independent steps run forwards", test_step_order);
  CU_add_test(s, "a running pick carries its index", test_pick_last);
  CU_add_test(s, "exact partials at special points", test_special_partials);
  CU_add_test(s, "forward mode through in-place updates", test_forward_updates);
  CU_add_test(s, "reverse mode refuses updates it cannot do yet", test_reverse_update_limits);
  CU_pSuite l = CU_add_suite("linear maps", NULL, NULL);
  CU_add_test(l, "semantics of apply against matrix algebra", test_linmap_semantics);
  CU_add_test(l, "Figure 4-5 laws as rewrites", test_linmap_laws);
  CU_add_test(s, "call chain: O(k) callee runs", test_call_chain);
  CU_add_test(s, "custom callee: g_fwd, g and g_rev", test_custom_calls);
  CU_add_test(s, "else-if chain: tape independent of depth", test_else_if_tape);
  CU_add_test(s, "tables: no tangent, no cotangent", test_tables_cost_nothing);
  CU_pSuite z = CU_add_suite("code size", NULL, NULL);
  CU_add_test(z, "emitted C grows linearly with the program", test_code_size);
  return support_run_all();
}
