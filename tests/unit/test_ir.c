/* test_ir.c: the printer, parser, checker and interpreter of ir/.
 *
 * Requires CHAD_TEST_DIR (the tests folder) with the corpora tests/ir/NAME.ir,
 * whose optional line "; mode: source|ad|final" gives the checking mode (ad
 * by default), and tests/ir/bad/NAME.ir, whose first line is
 * "; error: LINE:COL: MESSAGE" (MESSAGE a substring of the expected one) and
 * whose optional mode line defaults to source. */
#include "support.h"

#include <CUnit/Basic.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ir/special.inc" /* chad_digamma, to compare with */

#ifndef CHAD_TEST_DIR
#define CHAD_TEST_DIR "tests"
#endif

/* An assertion with a message built at run time (CUnit copies it). */
static void expect(bool cond, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void expect(bool cond, int line, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (!cond)
    fprintf(stderr, "\n  FAILED: %s\n", msg);
  CU_assertImplementation(cond ? CU_TRUE : CU_FALSE, (unsigned)line, msg,
                          __FILE__, "", CU_FALSE);
}
#define EXPECT(cond, ...) expect((cond), __LINE__, __VA_ARGS__)

static char *module_text(const Module *m) {
  char *buf;
  size_t len;
  FILE *out = open_memstream(&buf, &len);
  print_module(out, m);
  fclose(out);
  return buf;
}

static CheckMode mode_of(const char *text, CheckMode fallback) {
  const char *s = strstr(text, "; mode: ");
  if (!s)
    return fallback;
  s += strlen("; mode: ");
  return !strncmp(s, "source", 6) ? CHECK_SOURCE
         : !strncmp(s, "final", 5) ? CHECK_FINAL
                                   : CHECK_AD;
}

/* Parses and checks, failing the test with the message on an error. */
static Module *parse_text(const char *text, const char *file, CheckMode mode) {
  Module *m = module_new();
  Diag d = {0};
  bool parsed = parse_module(m, text, file, &d);
  EXPECT(parsed, "%s: parse error %d:%d: %s", file, d.loc.line, d.loc.col, d.msg);
  bool checked = parsed && check_module(m, mode, &d);
  EXPECT(!parsed || checked, "%s: type error %d:%d: %s", file, d.loc.line,
         d.loc.col, d.msg);
  if (!checked) {
    module_free(m);
    return NULL;
  }
  return m;
}

/* ------------------------------------------------ structural equality */

/* Are two terms the same up to the identity of their variables? `pairs`
 * holds the binders seen so far, matched. Recursive: for small terms only. */
typedef struct VarPairs {
  const Var *a[4096], *b[4096];
  int n;
} VarPairs;

static bool same_number(const Type *t, double x, double y) {
  if (t && t->kind == TY_F32)
    return (isnan(x) && isnan(y)) ||
           (!isnan(x) && memcmp(&(float){(float)x}, &(float){(float)y}, 4) == 0);
  return (isnan(x) && isnan(y)) || (!isnan(x) && memcmp(&x, &y, 8) == 0);
}

static bool same_var(const VarPairs *p, const Var *a, const Var *b) {
  for (int i = p->n - 1; i >= 0; i--)
    if (p->a[i] == a)
      return p->b[i] == b;
  return false;
}

static bool same_expr(VarPairs *p, const Expr *x, const Expr *y) {
  if (x->kind != y->kind || x->nargs != y->nargs || x->index != y->index ||
      x->op != y->op || (!x->name) != (!y->name) ||
      (x->name && strcmp(x->name, y->name)))
    return false;
  if (x->kind == E_CONST &&
      (!type_eq(x->type, y->type) || x->ival != y->ival ||
       !same_number(x->type, x->fval, y->fval)))
    return false;
  if ((x->kind == E_ZERO || x->kind == E_LZERO || x->kind == E_LONE ||
       x->kind == E_ALLOC) &&
      !type_eq(x->type, y->type))
    return false;
  if (x->kind == E_VAR && !same_var(p, x->var, y->var))
    return false;
  for (int i = 0; i < x->nargs; i++)
    if (!same_expr(p, x->args[i], y->args[i]))
      return false;
  if (x->kind == E_LET || expr_is_loop(x)) {
    int nb = expr_binds_state(x) ? 2 : 1;
    const Var *xs[2] = {x->var, x->var2}, *ys[2] = {y->var, y->var2};
    for (int i = 0; i < nb; i++) {
      if (!xs[i] || !ys[i] || strcmp(xs[i]->name, ys[i]->name) || p->n == 4096)
        return false;
      p->a[p->n] = xs[i];
      p->b[p->n++] = ys[i];
    }
    bool same = same_expr(p, x->body, y->body);
    p->n -= nb;
    return same;
  }
  return true;
}

static bool same_func(const Func *f, const Func *g) {
  static VarPairs pairs;
  if (strcmp(f->name, g->name) || f->nparams != g->nparams ||
      f->is_static != g->is_static || !type_eq(f->ret, g->ret))
    return false;
  pairs.n = 0;
  if (!f->classes != !g->classes)
    return false;
  for (int i = 0; i < f->nparams; i++) {
    if (strcmp(f->params[i]->name, g->params[i]->name) ||
        !type_eq(f->params[i]->type, g->params[i]->type) ||
        func_param_class(f, i) != func_param_class(g, i))
      return false;
    pairs.a[pairs.n] = f->params[i];
    pairs.b[pairs.n++] = g->params[i];
  }
  return same_expr(&pairs, f->body, g->body);
}

/* ------------------------------------------------------- round trips */

static void test_corpus_round_trip(void) {
  int n;
  char **files = support_list_files(CHAD_TEST_DIR "/ir", ".ir", &n);
  EXPECT(n >= 15, "corpus tests/ir has %d programs, expected at least 15", n);
  for (int i = 0; i < n; i++) {
    char *text = support_read_file(files[i]);
    EXPECT(text != NULL, "cannot read %s", files[i]);
    if (!text)
      continue;
    Module *m1 = parse_text(text, files[i], mode_of(text, CHECK_AD));
    char *p1 = m1 ? module_text(m1) : NULL;
    Module *m2 = p1 ? parse_text(p1, files[i], mode_of(text, CHECK_AD)) : NULL;
    char *p2 = m2 ? module_text(m2) : NULL;
    if (p2) {
      EXPECT(!strcmp(p1, p2), "%s: printing is not a fixpoint:\n%s\n---\n%s",
             files[i], p1, p2);
      EXPECT(m1->funcs.len == m2->funcs.len, "%s: functions lost", files[i]);
      for (int j = 0; j < m1->funcs.len && j < m2->funcs.len; j++)
        EXPECT(same_func(m1->funcs.items[j], m2->funcs.items[j]),
               "%s: function %d differs after a round trip", files[i], j);
    }
    free(p1);
    free(p2);
    module_free(m1);
    module_free(m2);
    free(text);
  }
  support_free_list(files, n);
}

/* Every primitive appears in the corpus. */
static void test_corpus_covers_primitives(void) {
  int n;
  char **files = support_list_files(CHAD_TEST_DIR "/ir", ".ir", &n);
  bool seen[P_COUNT] = {0};
  for (int i = 0; i < n; i++) {
    char *text = support_read_file(files[i]);
    for (int p = 0; text && p < P_COUNT; p++) {
      char pattern[32];
      snprintf(pattern, sizeof pattern, "(%s ", prim_info((Prim)p)->name);
      seen[p] = seen[p] || strstr(text, pattern);
    }
    free(text);
  }
  for (int p = 0; p < P_COUNT; p++)
    EXPECT(seen[p], "primitive '%s' missing from the corpus", prim_info((Prim)p)->name);
  support_free_list(files, n);
}

/* Every form of the IR and the `out` marker appear in the corpus. */
static void test_corpus_covers_forms(void) {
  static const char *const forms[] = {
      "(let ",   "(call ",  "(tuple ",   "(record ",     "(get ",    "(if ",
      "(zero ",  "(plus ",  "(lzero ",   "(lone ",       "(lscale ", "(lcomp ",
      "(lvcat ", "(lhcat ", "(lplus ",   "(ltrans ",     "(lapply ", "(lcall ",
      "(index ", "(len ",   "(build ",   "(sum ",        "(fold ",   "(fold-save ",
      "(scatter ", "(accum ", "(alloc ", "(array ",      " out)",    "(def-static ",
      "(table ",   "(while ", "(while-save ", "(update ", "(view ",
      "(log-save ", "(log-pop)", "(log-mark ", "(log-undo ", "(store ",
  };
  enum { NFORMS = sizeof forms / sizeof *forms };
  int n;
  char **files = support_list_files(CHAD_TEST_DIR "/ir", ".ir", &n);
  bool seen[NFORMS] = {0};
  for (int i = 0; i < n; i++) {
    char *text = support_read_file(files[i]);
    for (int f = 0; text && f < NFORMS; f++)
      seen[f] = seen[f] || strstr(text, forms[f]);
    free(text);
  }
  for (int f = 0; f < NFORMS; f++)
    EXPECT(seen[f], "'%s' missing from the corpus", forms[f]);
  support_free_list(files, n);
}

static void test_bad_corpus(void) {
  int n;
  char **files = support_list_files(CHAD_TEST_DIR "/ir/bad", ".ir", &n);
  EXPECT(n >= 12, "corpus tests/ir/bad has %d programs, expected at least 12", n);
  for (int i = 0; i < n; i++) {
    char *text = support_read_file(files[i]);
    int line = 0, col = 0;
    char want[512] = "";
    bool header = text && sscanf(text, "; error: %d:%d: %511[^\n]", &line, &col,
                                 want) == 3;
    EXPECT(header, "%s: first line is not '; error: LINE:COL: MESSAGE'", files[i]);
    if (!header) {
      free(text);
      continue;
    }
    Module *m = module_new();
    Diag d = {0};
    bool ok = parse_module(m, text, files[i], &d) &&
              check_module(m, mode_of(text, CHECK_SOURCE), &d);
    EXPECT(!ok, "%s: accepted, expected '%s'", files[i], want);
    if (!ok) {
      EXPECT(d.loc.line == line && d.loc.col == col && strstr(d.msg, want),
             "%s: got %d:%d: %s; expected %d:%d: %s", files[i], d.loc.line,
             d.loc.col, d.msg, line, col, want);
      EXPECT(d.loc.file && !strcmp(d.loc.file, files[i]),
             "%s: the error does not name the file", files[i]);
    }
    module_free(m);
    free(text);
  }
  support_free_list(files, n);
}

/* ----------------------------------------------------------- printer */

/* Lines of `text` longer than `width`. */
static int wide_lines(const char *text, int width) {
  int n = 0;
  for (const char *line = text; *line;) {
    const char *end = strchr(line, '\n');
    if (!end)
      end = line + strlen(line);
    n += end - line > width;
    line = *end ? end + 1 : end;
  }
  return n;
}

static void expect_prints(const char *text, const char *want) {
  Module *m = parse_text(text, "<print>", CHECK_AD);
  if (!m)
    return;
  char *got = module_text(m);
  EXPECT(!strcmp(got, want), "printed\n%s\nexpected\n%s", got, want);
  free(got);
  module_free(m);
}

/* Terms too wide for a line are broken so that every line fits. */
static void test_print_width(void) {
  char *text = support_read_file(CHAD_TEST_DIR "/ir/layout.ir");
  Module *m = text ? parse_text(text, "layout.ir", CHECK_SOURCE) : NULL;
  char *got = m ? module_text(m) : NULL;
  EXPECT(got && wide_lines(got, 80) == 0, "lines wider than 80 columns:\n%s",
         got ? got : "");
  EXPECT(got && wide_lines(text, 80) > 0, "layout.ir has no wide line to break");
  free(got);
  module_free(m);
  free(text);
}

static void test_print_exact(void) {
  expect_prints("(def   f f64((x f64))(let(y(mul x x))(let(z (add y 1.0))z)))",
                "(def f f64 ((x f64))\n"
                "  (let (y (mul x x))\n"
                "  (let (z (add y 1.0))\n"
                "  z)))\n");
  /* a CHAD_CUSTOM function: a signature without a body */
  expect_prints("(custom  k f64 ((a (array f64)) (x f64 inactive)  (n int)))",
                "(custom k f64 ((a (array f64)) (x f64 inactive) (n int)))\n");
  expect_prints("(custom-static k f32 ((x f32)))", "(custom-static k f32 ((x f32)))\n");
  expect_prints("(def-static g (tuple f64 int) ((x f64)) (tuple (if (lt x 0.0) (neg x) x) 3))",
                "(def-static g (tuple f64 int) ((x f64))\n"
                "  (tuple (if (lt x 0.0) (neg x) x) 3))\n");
  expect_prints(
      "(def h f64 ((a_long_name f64) (b_long_name f64))"
      " (add (mul a_long_name b_long_name) (let (t (sub (sin a_long_name) (cos b_long_name))) (mul t (exp t)))))",
      "(def h f64 ((a_long_name f64) (b_long_name f64))\n"
      "  (add (mul a_long_name b_long_name)\n"
      "       (let (t (sub (sin a_long_name) (cos b_long_name)))\n"
      "       (mul t (exp t)))))\n");
  /* Loops: flat when they fit; else operands and binders on the first line
   * when they fit there, the body on the next, indented by two. */
  expect_prints("(def s (array f64) ((a (array f64)) (ix (array int)))"
                " (scatter a (len ix) (i) (tuple (index ix i) 1.0)))",
                "(def s (array f64) ((a (array f64)) (ix (array int)))\n"
                "  (scatter a (len ix) (i) (tuple (index ix i) 1.0)))\n");
  expect_prints(
      "(def h f64 ((a (array f64)) (n int)) (sum n (i) (sum n (j) (sum n (k)"
      " (mul (index a (add (mul i n) j)) (add (index a k) (index a (add (mul k n) (mul j 2)))))))))",
      "(def h f64 ((a (array f64)) (n int))\n"
      "  (sum n (i)\n"
      "    (sum n (j)\n"
      "      (sum n (k)\n"
      "        (mul (index a (add (mul i n) j))\n"
      "             (add (index a k) (index a (add (mul k n) (mul j 2)))))))))\n");
  expect_prints(
      "(def g (tuple f64 f64 f64) ((long_array_name (array f64)) (first_part_of_state f64) (y f64))"
      " (fold (len long_array_name) (tuple first_part_of_state y first_part_of_state) (i s)"
      " (let (t (get 0 s)) (tuple (add t (index long_array_name i)) (get 1 s) t))))",
      "(def g (tuple f64 f64 f64) ((long_array_name (array f64)) (first_part_of_state f64) (y f64))\n"
      "  (fold (len long_array_name)\n"
      "        (tuple first_part_of_state y first_part_of_state) (i s)\n"
      "    (let (t (get 0 s))\n"
      "    (tuple (add t (index long_array_name i)) (get 1 s) t))))\n");
}

static void test_print_constants(void) {
  static const struct {
    double v;
    int kind; /* 0 f64, 1 f32, 2 int */
    const char *text;
  } cases[] = {
      {1.0, 0, "1.0"},       {0.1, 0, "0.1"},         {-0.0, 0, "-0.0"},
      {1e300, 0, "1e+300"},  {INFINITY, 0, "inf"},    {-INFINITY, 0, "-inf"},
      {NAN, 0, "nan"},       {1.5, 1, "1.5f"},        {16777216.0, 1, "16777216.0f"},
      {0.1, 1, "0.1f"},      {INFINITY, 1, "inff"},   {-INFINITY, 1, "-inff"},
      {NAN, 1, "nanf"},      {3, 2, "3"},             {-7, 2, "-7"},
      {1.0 / 3.0, 0, "0.3333333333333333"},
  };
  Arena *a = arena_new();
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    Expr *e = cases[i].kind == 0   ? ex_f64(a, cases[i].v)
              : cases[i].kind == 1 ? ex_f32(a, (float)cases[i].v)
                                   : ex_int(a, (long long)cases[i].v);
    char *s = expr_to_string(e);
    EXPECT(!strcmp(s, cases[i].text), "constant printed '%s', expected '%s'", s,
           cases[i].text);
    free(s);
  }
  arena_free(a);
}

/* Prints a constant and parses it back as the body of a function. */
static bool round_trips(Arena *a, Expr *e) {
  char *s = expr_to_string(e);
  char *text = arena_printf(a, "(def k %s () %s)",
                            e->type->kind == TY_F32 ? "f32" : "f64", s);
  free(s);
  Module *m = module_new();
  Diag d;
  bool ok = parse_module(m, text, NULL, &d);
  Expr *back = ok ? ((Func *)m->funcs.items[0])->body : NULL;
  ok = ok && back->kind == E_CONST && type_eq(back->type, e->type) &&
       same_number(e->type, e->fval, back->fval);
  EXPECT(ok, "constant %s does not round-trip", text);
  module_free(m);
  return ok;
}

static uint64_t next_random(uint64_t *state) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

static void test_constants_bit_exact(void) {
  Arena *a = arena_new();
  static const double f64s[] = {0.0, -0.0, DBL_MIN, -DBL_MAX, DBL_MAX,
                                DBL_TRUE_MIN, 5e-324, 0.1, 1.0 / 3.0, 1e23,
                                9007199254740993.0, 123456789012345678.0};
  for (size_t i = 0; i < sizeof f64s / sizeof *f64s; i++)
    round_trips(a, ex_f64(a, f64s[i]));
  static const float f32s[] = {0.0f, -0.0f, FLT_MIN, FLT_MAX, -FLT_MAX,
                               FLT_TRUE_MIN, 0.1f, 1.0f / 3.0f, 16777217.0f};
  for (size_t i = 0; i < sizeof f32s / sizeof *f32s; i++)
    round_trips(a, ex_f32(a, f32s[i]));
  uint64_t state = 88172645463325252ull;
  int failures = 0;
  for (int i = 0; i < 20000 && failures < 5; i++) {
    uint64_t bits = next_random(&state);
    double d;
    memcpy(&d, &bits, 8);
    uint32_t bits32 = (uint32_t)(bits >> 32);
    float f;
    memcpy(&f, &bits32, 4);
    if (!isnan(d) && !round_trips(a, ex_f64(a, d)))
      failures++;
    if (!isnan(f) && !round_trips(a, ex_f32(a, f)))
      failures++;
  }
  arena_free(a);
}

/* ------------------------------------------------------------ checker */

static void test_check_sets_types(void) {
  Module *m = parse_text("(def f f64 ((x f64) (n int))"
                         "  (let (a (to_f64 n)) (let (p (tuple a n)) (get 0 p))))",
                         "<t>", CHECK_SOURCE);
  if (!m)
    return;
  Func *f = m->funcs.items[0];
  Expr *let_a = f->body, *let_p = let_a->body;
  CU_ASSERT(type_eq(let_a->var->type, ty_f64()));
  CU_ASSERT(let_p->var->type->kind == TY_TUPLE && let_p->var->type->n == 2);
  CU_ASSERT(type_eq(let_p->body->type, ty_f64()));
  CU_ASSERT(type_eq(let_p->body->args[0]->type, let_p->var->type));
  CU_ASSERT(type_eq(f->body->type, ty_f64()));
  module_free(m);
}

static void test_check_lcall_type(void) {
  char *text = support_read_file(CHAD_TEST_DIR "/ir/lcall.ir");
  Module *m = text ? parse_text(text, "lcall.ir", CHECK_AD) : NULL;
  free(text);
  if (!m)
    return;
  Func *user = module_find(m, "user");
  Expr *lcall = user->body->body->args[0];
  CU_ASSERT_EQUAL(lcall->kind, E_LCALL);
  char *t = type_to_string(lcall->type);
  EXPECT(!strcmp(t, "(lin f64 (tuple f64))"), "lcall has type %s", t);
  free(t);
  module_free(m);
}

/* Scoping errors the parser cannot produce: terms built with the API. */
static void test_check_scope(void) {
  Module *m = module_new();
  Arena *a = m->arena;
  Var *x = var_new(a, "x", ty_f64());
  Var *y = var_new(a, "y", NULL);
  Var *t = var_new(a, "t", NULL);
  /* let y = (let t = x * x in t) in y + t: t escapes its let */
  Expr *inner = ex_let(a, t, ex_prim2(a, P_MUL, ex_var(a, x), ex_var(a, x)),
                       ex_var(a, t));
  Expr *use = ex_prim2(a, P_ADD, ex_var(a, y), ex_var(a, t));
  use->args[1]->loc = (Loc){"built", 7, 3};
  Func *f = module_add(m, "f", 1, &x, ty_f64(), ex_let(a, y, inner, use));
  Diag d = {0};
  CU_ASSERT_FALSE(check_func(m, f, CHECK_SOURCE, &d));
  EXPECT(strstr(d.msg, "in 'f': variable 't' used out of its scope") &&
             d.loc.line == 7 && d.loc.col == 3,
         "got %d:%d: %s", d.loc.line, d.loc.col, d.msg);
  /* A parameter of another function. */
  Var *z = var_new(a, "z", ty_f64());
  Func *g = module_add(m, "g", 1, &z, ty_f64(), ex_var(a, x));
  g->loc = (Loc){"built", 9, 1};
  CU_ASSERT_FALSE(check_func(m, g, CHECK_SOURCE, &d));
  EXPECT(strstr(d.msg, "variable 'x' used out of its scope") && d.loc.line == 9,
         "got %d:%d: %s", d.loc.line, d.loc.col, d.msg);
  module_free(m);
}

static Func *find(Module *m, const char *name) {
  Func *f = m ? module_find(m, name) : NULL;
  EXPECT(f != NULL, "no function '%s'", name);
  return f;
}

static void expect_type(const Type *t, const char *want, int line) {
  char *got = type_to_string(t);
  expect(!strcmp(got, want), line, "type %s, expected %s", got, want);
  free(got);
}
#define EXPECT_TYPE(t, want) expect_type((t), (want), __LINE__)

static void test_check_loops(void) {
  char *text = support_read_file(CHAD_TEST_DIR "/ir/folds.ir");
  Module *m = text ? parse_text(text, "folds.ir", CHECK_SOURCE) : NULL;
  free(text);
  Func *f = find(m, "oscillator");
  if (f) {
    Expr *fold = f->body;
    CU_ASSERT_EQUAL(fold->kind, E_FOLD);
    EXPECT_TYPE(fold->var->type, "int");
    EXPECT_TYPE(fold->var2->type, "(tuple f64 f64)");
    EXPECT_TYPE(fold->type, "(tuple f64 f64)");
    EXPECT_TYPE(fold->body->var->type, "f64"); /* x = (get 0 s) */
  }
  if ((f = find(m, "saved")))
    EXPECT_TYPE(f->body->type, "(tuple (tuple f64 int) (array f64))");
  module_free(m);

  text = support_read_file(CHAD_TEST_DIR "/ir/arrays.ir");
  m = text ? parse_text(text, "arrays.ir", CHECK_SOURCE) : NULL;
  free(text);
  if ((f = find(m, "polar"))) {
    EXPECT_TYPE(f->body->type, "(tuple (array f64) (array f64))");
    EXPECT_TYPE(f->body->body->type, "(tuple f64 f64)");
  }
  if ((f = find(m, "moments")))
    EXPECT_TYPE(f->body->type, "(tuple f64 f64 int)");
  if ((f = find(m, "dot"))) {
    EXPECT_TYPE(f->body->args[0]->type, "int"); /* (len a) */
    EXPECT_TYPE(f->body->body->args[0]->type, "f64"); /* (index a i) */
    CU_ASSERT_PTR_NOT_NULL(f->classes);
  }
  if ((f = find(m, "iota"))) {
    CU_ASSERT_PTR_NULL(f->classes); /* no array parameter */
    CU_ASSERT_EQUAL(func_param_class(f, 0), PARAM_INACTIVE);
  }
  module_free(m);
}

static void test_check_classes(void) {
  char *text = support_read_file(CHAD_TEST_DIR "/ir/outputs.ir");
  Module *m = text ? parse_text(text, "outputs.ir", CHECK_SOURCE) : NULL;
  free(text);
  Func *f = find(m, "powers");
  if (f) {
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->classes);
    CU_ASSERT_EQUAL(f->classes[0], PARAM_IN_ARRAY);
    CU_ASSERT_EQUAL(f->classes[1], PARAM_OUT_ARRAY);
    CU_ASSERT_EQUAL(f->classes[2], PARAM_INACTIVE);
    CU_ASSERT_EQUAL(f->classes[3], PARAM_OUT_ARRAY);
    CU_ASSERT_EQUAL(func_num_outputs(f), 2);
  }
  if ((f = find(m, "classes"))) {
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->classes);
    CU_ASSERT_EQUAL(f->classes[0], PARAM_IN_ARRAY);
    CU_ASSERT_EQUAL(f->classes[1], PARAM_INACTIVE);
    CU_ASSERT_EQUAL(f->classes[2], PARAM_ACTIVE_SCALAR);
    CU_ASSERT_EQUAL(f->classes[3], PARAM_IN_ARRAY);
    CU_ASSERT_EQUAL(func_num_outputs(f), 0);
  }
  /* Classes that contradict the types, made through the API. */
  if ((f = find(m, "classes"))) {
    f->classes[1] = PARAM_IN_ARRAY;
    Diag d = {0};
    CU_ASSERT_FALSE(check_func(m, f, CHECK_SOURCE, &d));
    EXPECT(strstr(d.msg, "parameter 'n' of type int has the class of an array") != NULL,
           "got %s", d.msg);
    f->classes[1] = PARAM_INACTIVE;
    f->classes[0] = PARAM_ACTIVE_SCALAR;
    CU_ASSERT_FALSE(check_func(m, f, CHECK_SOURCE, &d));
    EXPECT(strstr(d.msg, "has the class of a scalar") != NULL, "got %s", d.msg);
  }
  module_free(m);
}

/* Loop binders scope over the body only: terms built with the API. */
static void test_check_loop_scope(void) {
  Module *m = module_new();
  Arena *a = m->arena;
  Var *n = var_new(a, "n", ty_int());
  Var *i = var_new(a, "i", NULL), *y = var_new(a, "y", NULL);
  /* let y = (sum n (i) i) in y + i */
  Expr *use = ex_prim2(a, P_ADD, ex_var(a, y), ex_var(a, i));
  use->args[1]->loc = (Loc){"built", 4, 5};
  Expr *body = ex_let(a, y, ex_sum(a, ex_var(a, n), i, ex_var(a, i)), use);
  Func *f = module_add(m, "f", 1, &n, ty_int(), body);
  Diag d = {0};
  CU_ASSERT_FALSE(check_func(m, f, CHECK_SOURCE, &d));
  EXPECT(strstr(d.msg, "variable 'i' used out of its scope") && d.loc.line == 4 &&
             d.loc.col == 5,
         "got %d:%d: %s", d.loc.line, d.loc.col, d.msg);
  /* The state of a fold in its own count. */
  Var *j = var_new(a, "j", NULL), *s = var_new(a, "s", NULL);
  Expr *fold = ex_fold(a, ex_var(a, s), ex_int(a, 0), j, s, ex_var(a, s));
  Func *g = module_add(m, "g", 1, &n, ty_int(), fold);
  CU_ASSERT_FALSE(check_func(m, g, CHECK_SOURCE, &d));
  EXPECT(strstr(d.msg, "variable 's' used out of its scope") != NULL, "got %s", d.msg);
  /* One variable as both binders. */
  Expr *twice = ex_fold(a, ex_var(a, n), ex_int(a, 0), j, j, ex_var(a, j));
  Func *h = module_add(m, "h", 1, &n, ty_int(), twice);
  CU_ASSERT_FALSE(check_func(m, h, CHECK_SOURCE, &d));
  EXPECT(strstr(d.msg, "malformed 'fold'") != NULL, "got %s", d.msg);
  /* Well scoped: the index of the fold, and i again in a second loop. */
  Expr *ok = ex_fold(a, ex_var(a, n), ex_int(a, 0), j, s,
                     ex_prim2(a, P_ADD, ex_var(a, s),
                              ex_sum(a, ex_var(a, j), i, ex_var(a, i))));
  Func *k = module_add(m, "k", 1, &n, ty_int(), ok);
  CU_ASSERT_TRUE(check_func(m, k, CHECK_SOURCE, &d));
  module_free(m);
}

static void test_check_modes(void) {
  char *text = support_read_file(CHAD_TEST_DIR "/ir/tangents.ir");
  Module *m = module_new();
  Diag d;
  CU_ASSERT_TRUE(text && parse_module(m, text, "tangents.ir", &d));
  CU_ASSERT_TRUE(check_module(m, CHECK_AD, &d));
  CU_ASSERT_TRUE(check_module(m, CHECK_FINAL, &d));
  CU_ASSERT_FALSE(check_module(m, CHECK_SOURCE, &d));
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "tangent-only construct"));
  module_free(m);
  free(text);

  text = support_read_file(CHAD_TEST_DIR "/ir/accum.ir");
  m = module_new();
  CU_ASSERT_TRUE(text && parse_module(m, text, "accum.ir", &d));
  CU_ASSERT_TRUE(check_module(m, CHECK_AD, &d));
  CU_ASSERT_TRUE(check_module(m, CHECK_FINAL, &d));
  CU_ASSERT_FALSE(check_module(m, CHECK_SOURCE, &d));
  /* alloc is C's calloc, a source construct; accum is derivative-only */
  CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "derivative-only construct 'accum'"));
  module_free(m);
  free(text);
}

/* --------------------------------------------------------- interpreter */

typedef struct Run {
  Module *m;
  Arena *a;
  Value result;
  Diag err;
  bool ok;
} Run;

static Run run(const char *text, CheckMode mode, const char *fname, int nargs,
               ...) {
  Run r = {.m = parse_text(text, fname, mode), .a = arena_new()};
  Value args[16];
  va_list ap;
  va_start(ap, nargs);
  for (int i = 0; i < nargs; i++)
    args[i] = va_arg(ap, Value);
  va_end(ap);
  if (r.m)
    r.ok = interp_call(r.m, r.a, fname, nargs, args, &r.result, &r.err);
  return r;
}

static void done(Run *r) {
  module_free(r->m);
  arena_free(r->a);
}

static void expect_value(Run r, Value want, int line) {
  char *got_s = NULL, *want_s = NULL;
  size_t n;
  FILE *out = open_memstream(&got_s, &n);
  if (r.ok)
    print_value(out, &r.result);
  else
    fprintf(out, "error %d:%d: %s", r.err.loc.line, r.err.loc.col, r.err.msg);
  fclose(out);
  out = open_memstream(&want_s, &n);
  print_value(out, &want);
  fclose(out);
  expect(r.ok && val_eq(&r.result, &want), line, "got %s, expected %s", got_s,
         want_s);
  free(got_s);
  free(want_s);
  done(&r);
}
#define EXPECT_VALUE(run, want) expect_value((run), (want), __LINE__)

static void expect_error(Run r, int line, int col, const char *msg, int at) {
  expect(!r.ok && strstr(r.err.msg, msg) &&
             (!line || (r.err.loc.line == line && r.err.loc.col == col)),
         at, "expected error %d:%d: %s, got %s %d:%d: %s", line, col, msg,
         r.ok ? "success" : "error", r.err.loc.line, r.err.loc.col, r.err.msg);
  done(&r);
}
#define EXPECT_ERROR(run, line, col, msg) expect_error((run), line, col, msg, __LINE__)

static char *corpus(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/ir/%s", CHAD_TEST_DIR, name);
  char *text = support_read_file(path);
  EXPECT(text != NULL, "cannot read %s", path);
  return text ? text : calloc(1, 1);
}

static double poly(double x) {
  double t0 = 2.0 * x, t1 = t0 + -3.0, t2 = t1 * x, t3 = t2 + 0.5, t4 = t3 * x;
  return t4 - 7.25;
}

/* An integer leaf as a fold-save tape holds it (E_FOLDSAVE). */
static double int_bits(long long v) {
  double d;
  memcpy(&d, &v, sizeof d);
  return d;
}

static void test_interp_corpus(void) {
  char *text = corpus("poly.ir");
  EXPECT_VALUE(run(text, CHECK_SOURCE, "poly", 1, val_f64(1.3)), val_f64(poly(1.3)));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "poly_sum", 2, val_f64(0.7), val_f64(-2.0)),
               val_f64(poly(0.7) + poly(-2.0 / 3.0)));
  free(text);

  text = corpus("ifs.ir");
  EXPECT_VALUE(run(text, CHECK_SOURCE, "relu", 1, val_f64(-2.0)), val_f64(0.0));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "relu", 1, val_f64(2.5)), val_f64(2.5));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "sign", 1, val_f64(-0.5)), val_int(-1));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "sign", 1, val_f64(0.0)), val_int(0));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "piecewise", 2, val_f64(2.0), val_int(0)),
               val_f64(1.0 / 5.0));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "piecewise", 2, val_f64(2.0), val_int(1)),
               val_f64(-sin(2.0) * 2.0));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "piecewise", 2, val_f64(20.0), val_int(1)),
               val_f64(cos(20.0) * 1.0));
  free(text);

  text = corpus("calls.ir");
  EXPECT_VALUE(run(text, CHECK_SOURCE, "first", 2, val_f64(1.0), val_int(0)), val_f64(42.0));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "first", 2, val_f64(1.5), val_int(5)), val_f64(3.0));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "fact", 1, val_int(10)), val_int(3628800));
  /* 13! overflows int: the interpreter wraps as the hardware does */
  EXPECT_VALUE(run(text, CHECK_SOURCE, "fact", 1, val_int(13)), val_int(1932053504));
  free(text);

  text = corpus("tables.ir");
  EXPECT_VALUE(run(text, CHECK_SOURCE, "table_poly", 2, val_f64(2.0), val_int(1)),
               val_f64(-0.5 * 2.0 + 0.25));
  {
    double x[3] = {0.5, -1.0, 2.0};
    Value xs[3] = {val_f64(x[0]), val_f64(x[1]), val_f64(x[2])};
    Arena *ar = arena_new();
    double want = 0;
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 3; j++)
        want += (i * 3 + j + 1) * x[j];
    EXPECT_VALUE(run(text, CHECK_SOURCE, "table_rows", 1, val_array(ar, 3, xs)), val_f64(want));
    arena_free(ar);
  }
  EXPECT_VALUE(run(text, CHECK_SOURCE, "table_kinds", 1, val_int(1)), val_int(-1));
  free(text);

  text = corpus("int_kinds.ir");
  {
    unsigned a = 4000000000u, b = 7u;
    EXPECT_VALUE(run(text, CHECK_SOURCE, "u32_wrap", 2, val_int(a), val_int(b)),
                 val_int((long long)(unsigned)(a * b - (a + 4294967295u))));
    unsigned long ua = 18446744073709551000ul, ub = 1000ul;
    EXPECT_VALUE(run(text, CHECK_SOURCE, "udiv", 3, val_int((long long)ua), val_int((long long)ub),
                     val_int(-1)),
                 val_int((long long)(ua / ub + ua % ub + ((unsigned long)-1 > ua))));
    long long xs[] = {-1, 300, -129, 70000, 4294967297LL, 0, -9223372036854775807LL};
    for (int i = 0; i < 7; i++) {
      long long x = xs[i];
      /* the IR's long long addition wraps: so does this one */
      unsigned long long sum = (unsigned long long)(long long)(char)x +
                               (unsigned long long)(long long)(signed char)x +
                               (unsigned long long)(unsigned char)x +
                               (unsigned long long)(long long)(short)x +
                               (unsigned long long)(unsigned short)x + (unsigned long long)(_Bool)x +
                               (unsigned long long)(long)x + (unsigned long long)x;
      long long want = (long long)sum;
      EXPECT_VALUE(run(text, CHECK_SOURCE, "narrow", 1, val_int(x)), val_int(want));
    }
    long as[] = {-300, 12345, -1};
    unsigned long bs[] = {~0ul, 77ul, 1ul << 63};
    for (int i = 0; i < 3; i++)
      for (int k = 0; k < 8; k += 3) {
        long A = as[i];
        unsigned long B = bs[i];
        long x = A & 255, y = (A ^ -1L) | ~0L, z = A >> k, w = (long)(B >> k), v = x << (unsigned char)k;
        unsigned long sum = (unsigned long)x + (unsigned long)y +
                            ((unsigned long)z + (unsigned long)w + (unsigned long)v);
        EXPECT_VALUE(run(text, CHECK_SOURCE, "bits", 3, val_int(A), val_int((long long)B), val_int(k)),
                     val_int((long long)sum));
      }
    {
      double d = -2.5;
      long long bits;
      memcpy(&bits, &d, sizeof bits);
      EXPECT_VALUE(run(text, CHECK_SOURCE, "double_bits", 1, val_f64(d)), val_int(bits));
    }
    unsigned long long u = 18446744073709551557ull;
    long long sv = -123456789123LL;
    double d = 3e9;
    EXPECT_VALUE(run(text, CHECK_SOURCE, "to_float", 3, val_int((long long)u), val_int(sv), val_f64(d)),
                 val_f64((double)u + (double)(float)sv +
                         (double)((unsigned long long)d + (unsigned long long)(unsigned)d)));
  }
  free(text);

  text = corpus("shadow.ir");
  EXPECT_VALUE(run(text, CHECK_SOURCE, "shadow", 2, val_f64(1.0), val_f64(2.0)),
               val_f64(-27.0));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "shadow_types", 1, val_f64(2.9)), val_int(6));
  free(text);

  text = corpus("tuples.ir");
  Arena *a = arena_new();
  Value inner[2] = {val_f64(9.0), val_f64(3.0)};
  Value outer[3] = {val_tuple(a, 2, inner), val_tuple(a, 0, NULL), val_int(3)};
  EXPECT_VALUE(run(text, CHECK_SOURCE, "nest", 1, val_f64(3.0)), val_tuple(a, 3, outer));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "unit", 0), val_tuple(a, 0, NULL));
  free(text);

  text = corpus("tangents.ir");
  Value x[2] = {val_f64(1.0), val_f32(2.0f)}, y[2] = {val_f64(0.5), val_f32(0.25f)};
  Value sum[2] = {val_f64(1.5), val_f32(2.25f)};
  EXPECT_VALUE(run(text, CHECK_AD, "tplus", 2, val_tuple(a, 2, x), val_tuple(a, 2, y)),
               val_tuple(a, 2, sum));
  Value z32[2] = {val_f32(0.0f), val_f64(0.0)};
  Value zero[3] = {val_f64(0.0), val_tuple(a, 2, z32), val_tuple(a, 0, NULL)};
  EXPECT_VALUE(run(text, CHECK_AD, "tzero", 0), val_tuple(a, 3, zero));
  free(text);

  text = corpus("int_arith.ir");
  for (int i = -3; i <= 3; i++) {
    int va = 17 * i + 5, vb = 3 - 11 * i;
    int s = va + vb, d = va - vb, p = s * d, q = p / 7, r = p % 7, n = -q;
    int c = (va < vb) && ((va <= vb) || !(va > vb));
    int vb_again = vb;
    int c2 = (va >= 0) && ((vb == vb_again) && (va != INT32_MIN));
    EXPECT_VALUE(run(text, CHECK_SOURCE, "int_ops", 2, val_int(va), val_int(vb)),
                 val_int(n + r + c + c2));
  }
  free(text);

  text = corpus("casts.ir");
  {
    double xv = -2.7;
    int n = 5;
    float s = 3.9f;
    float fa = (float)xv;
    double b = fa, c = (double)(n + ((int)xv + (int)s));
    float dd = (float)n;
    EXPECT_VALUE(run(text, CHECK_SOURCE, "casts", 3, val_f64(xv), val_int(n), val_f32(s)),
                 val_f64(b + c + (double)(dd + s)));
  }
  free(text);
  arena_free(a);
}

static void test_interp_f32(void) {
  const char *text =
      "(def big f32 () (add 16777216.0f 1.0f))\n"
      "(def big64 f64 () (add 16777216.0 1.0))\n"
      "(def third f32 ((x f32)) (div x 3.0f))\n"
      "(def chain f32 ((x f32)) (let (a (mul x 0.1f)) (let (b (mul a 0.1f)) (sub b x))))\n"
      "(def conv f32 ((x f64)) (to_f32 x))\n";
  EXPECT_VALUE(run(text, CHECK_SOURCE, "big", 0), val_f32(16777216.0f));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "big64", 0), val_f64(16777217.0));
  volatile float one = 1.0f, x = 0.7f;
  EXPECT_VALUE(run(text, CHECK_SOURCE, "third", 1, val_f32(1.0f)), val_f32(one / 3.0f));
  float a = x * 0.1f, b = a * 0.1f;
  EXPECT_VALUE(run(text, CHECK_SOURCE, "chain", 1, val_f32(0.7f)), val_f32(b - x));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "conv", 1, val_f64(0.1)), val_f32(0.1f));
}

typedef struct MathCase {
  Prim op;
  double (*f64)(double);
  float (*f32)(float);
  double (*f64_2)(double, double);
  float (*f32_2)(float, float);
} MathCase;

static void test_interp_math(void) {
  static const MathCase cases[] = {
      {P_SQRT, sqrt, sqrtf, 0, 0},     {P_EXP, exp, expf, 0, 0},
      {P_LOG, log, logf, 0, 0},        {P_LOG1P, log1p, log1pf, 0, 0},
      {P_EXPM1, expm1, expm1f, 0, 0},  {P_POW, 0, 0, pow, powf},
      {P_SIN, sin, sinf, 0, 0},        {P_COS, cos, cosf, 0, 0},
      {P_TAN, tan, tanf, 0, 0},        {P_ASIN, asin, asinf, 0, 0},
      {P_ACOS, acos, acosf, 0, 0},     {P_ATAN, atan, atanf, 0, 0},
      {P_ATAN2, 0, 0, atan2, atan2f},  {P_SINH, sinh, sinhf, 0, 0},
      {P_COSH, cosh, coshf, 0, 0},     {P_TANH, tanh, tanhf, 0, 0},
      {P_FABS, fabs, fabsf, 0, 0},     {P_FMIN, 0, 0, fmin, fminf},
      {P_FMAX, 0, 0, fmax, fmaxf},     {P_HYPOT, 0, 0, hypot, hypotf},
      {P_ERF, erf, erff, 0, 0},        {P_CBRT, cbrt, cbrtf, 0, 0},
      {P_FLOOR, floor, floorf, 0, 0},  {P_CEIL, ceil, ceilf, 0, 0},
      {P_ROUND, round, roundf, 0, 0},  {P_LGAMMA, lgamma, lgammaf, 0, 0},
      {P_TGAMMA, tgamma, tgammaf, 0, 0}, {P_EXP2, exp2, exp2f, 0, 0},
      {P_LOG2, log2, log2f, 0, 0},     {P_LOG10, log10, log10f, 0, 0},
      {P_FMOD, 0, 0, fmod, fmodf},     {P_REMAINDER, 0, 0, remainder, remainderf},
      {P_COPYSIGN, 0, 0, copysign, copysignf}, {P_FDIM, 0, 0, fdim, fdimf},
      {P_TRUNC, trunc, truncf, 0, 0},  {P_RINT, rint, rintf, 0, 0},
      {P_NEARBYINT, nearbyint, nearbyintf, 0, 0}, {P_ERFC, erfc, erfcf, 0, 0},
      {P_ASINH, asinh, asinhf, 0, 0},  {P_ACOSH, acosh, acoshf, 0, 0},
      {P_ATANH, atanh, atanhf, 0, 0},
  };
  int covered = 0; /* fma and digamma: test_interp_math_more */
  for (int p = 0; p < P_COUNT; p++)
    covered += prim_info((Prim)p)->cls == PC_MATH && prim_info((Prim)p)->arity < 3 &&
               !prim_info((Prim)p)->helper;
  CU_ASSERT_EQUAL(covered, (int)(sizeof cases / sizeof *cases));
  static const double points[] = {0.3, 0.75, -0.45, 2.5};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const MathCase *c = &cases[i];
    const char *name = prim_info(c->op)->name;
    char text[256];
    snprintf(text, sizeof text,
             "(def m f64 ((x f64) (y f64)) (%s x%s))\n"
             "(def m32 f32 ((x f32) (y f32)) (%s x%s))\n",
             name, c->f64 ? "" : " y", name, c->f64 ? "" : " y");
    for (size_t j = 0; j < sizeof points / sizeof *points; j++) {
      double x = points[j], y = points[(j + 1) % 4];
      if (c->op == P_LOG || c->op == P_SQRT)
        x = fabs(x);
      double want = c->f64 ? c->f64(x) : c->f64_2(x, y);
      float want32 = c->f32 ? c->f32((float)x) : c->f32_2((float)x, (float)y);
      if (isnan(want))
        continue;
      EXPECT_VALUE(run(text, CHECK_SOURCE, "m", 2, val_f64(x), val_f64(y)), val_f64(want));
      EXPECT_VALUE(run(text, CHECK_SOURCE, "m32", 2, val_f32((float)x), val_f32((float)y)),
                   val_f32(want32));
    }
  }
}

/* fma, the int-operand primitives, and digamma (derivative-only, so run
 * in CHECK_AD mode), against the C library and ir/special.inc. */
static void test_interp_math_more(void) {
  const char *text =
      "(def fma3 f64 ((x f64) (y f64) (z f64)) (fma x y z))\n"
      "(def fma3f f32 ((x f32) (y f32) (z f32)) (fma x y z))\n"
      "(def ld f64 ((x f64) (n int)) (ldexp x n))\n"
      "(def sc f32 ((x f32) (n int)) (scalbn x n))\n"
      "(def pw f64 ((x f64) (n int)) (powi x n))\n"
      "(def pwf f32 ((x f32) (n int)) (powi x n))\n"
      "(def dg f64 ((x f64)) (digamma x))\n"
      "(def dgf f32 ((x f32)) (digamma x))\n";
  /* 0.1 * 10 - 1 is 2^-54 computed exactly, 0 if rounded twice */
  EXPECT_VALUE(run(text, CHECK_AD, "fma3", 3, val_f64(0.1), val_f64(10.0), val_f64(-1.0)),
               val_f64(fma(0.1, 10.0, -1.0)));
  EXPECT_VALUE(run(text, CHECK_AD, "fma3f", 3, val_f32(0.1f), val_f32(10.0f), val_f32(-1.0f)),
               val_f32(fmaf(0.1f, 10.0f, -1.0f)));
  EXPECT_VALUE(run(text, CHECK_AD, "ld", 2, val_f64(0.75), val_int(-3)), val_f64(0.09375));
  EXPECT_VALUE(run(text, CHECK_AD, "sc", 2, val_f32(-1.5f), val_int(4)), val_f32(-24.0f));
  EXPECT_VALUE(run(text, CHECK_AD, "pw", 2, val_f64(-2.0), val_int(3)), val_f64(-8.0));
  EXPECT_VALUE(run(text, CHECK_AD, "pw", 2, val_f64(0.0), val_int(0)), val_f64(1.0));
  EXPECT_VALUE(run(text, CHECK_AD, "pwf", 2, val_f32(1.1f), val_int(-2)),
               val_f32(powf(1.1f, -2.0f)));
  EXPECT_VALUE(run(text, CHECK_AD, "dg", 1, val_f64(1.0)), val_f64(chad_digamma(1.0)));
  EXPECT_VALUE(run(text, CHECK_AD, "dgf", 1, val_f32(2.5f)), val_f32(chad_digammaf(2.5f)));
}

static void test_interp_errors(void) {
  const char *text = "(def d int ((n int))\n"
                     "  (let (k (sub n 1))\n"
                     "  (div 10 (mul k 2))))\n"
                     "(def loop f64 ((x f64)) (call loop x))\n"
                     "(def down int ((n int)) (if (le n 0) 0 (add 1 (call down (sub n 1)))))\n"
                     "(def trunc int ((x f64)) (to_int x))\n"
                     "(def fdiv f64 ((x f64)) (div x 0.0))\n";
  EXPECT_VALUE(run(text, CHECK_SOURCE, "d", 1, val_int(3)), val_int(2));
  EXPECT_ERROR(run(text, CHECK_SOURCE, "d", 1, val_int(1)), 3, 3,
               "in 'd': division by zero");
  EXPECT_ERROR(run(text, CHECK_SOURCE, "loop", 1, val_f64(1.0)), 4, 25,
               "call depth exceeds 10000");
  EXPECT_VALUE(run(text, CHECK_SOURCE, "down", 1, val_int(9999)), val_int(9999));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "trunc", 1, val_f64(-2.9)), val_int(-2));
  EXPECT_ERROR(run(text, CHECK_SOURCE, "trunc", 1, val_f64(3e9)), 6, 26,
               "out of the range of int");
  EXPECT_ERROR(run(text, CHECK_SOURCE, "trunc", 1, val_f64(NAN)), 6, 26,
               "out of the range of int");
  EXPECT_VALUE(run(text, CHECK_SOURCE, "fdiv", 1, val_f64(1.0)), val_f64(INFINITY));
  EXPECT_ERROR(run(text, CHECK_SOURCE, "trunc", 1, val_int(3)), 0, 0,
               "argument 1 of 'trunc' has the wrong type");
  EXPECT_ERROR(run(text, CHECK_SOURCE, "trunc", 0), 0, 0, "'trunc' takes 1 arguments, got 0");
  EXPECT_ERROR(run(text, CHECK_SOURCE, "nothere", 0), 0, 0, "unknown function 'nothere'");

  char *lin = corpus("linmaps.ir");
  EXPECT_ERROR(run(lin, CHECK_AD, "lin_all", 4, val_f64(1), val_f64(2), val_f64(3),
                   val_f64(4)),
               4, 12, "linear map reached the interpreter");
  free(lin);
}

/* -------------------------------------------------- arrays and loops */

static Value f64s(Arena *a, int n, const double *x) {
  Value v = val_array(a, n, NULL);
  for (int i = 0; i < n; i++)
    v.elems[i] = val_f64(x[i]);
  return v;
}

static Value f32s(Arena *a, int n, const float *x) {
  Value v = val_array(a, n, NULL);
  for (int i = 0; i < n; i++)
    v.elems[i] = val_f32(x[i]);
  return v;
}

static Value ints(Arena *a, int n, const int *x) {
  Value v = val_array(a, n, NULL);
  for (int i = 0; i < n; i++)
    v.elems[i] = val_int(x[i]);
  return v;
}

static Value pair(Arena *a, Value x, Value y) {
  return val_tuple(a, 2, (Value[]){x, y});
}

static void test_interp_arrays(void) {
  Arena *a = arena_new();
  char *text = corpus("arrays.ir");
  double x[4] = {1.5, -2.0, 0.25, 3.0}, y[4] = {2.0, 0.5, -4.0, 1.0};
  Value vx = f64s(a, 4, x), vy = f64s(a, 4, y);
  double dot = 0.0;
  for (int i = 0; i < 4; i++)
    dot += x[i] * y[i];
  EXPECT_VALUE(run(text, CHECK_SOURCE, "dot", 2, vx, vy), val_f64(dot));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "dot", 2, val_array(a, 0, NULL), vy), val_f64(0.0));
  double xx = 0.0;
  for (int i = 0; i < 4; i++)
    xx += x[i] * x[i];
  EXPECT_VALUE(run(text, CHECK_SOURCE, "norm2", 1, vx), val_f64(sqrt(xx)));

  double m = x[0], e[4], z = 0.0, sm[4];
  for (int i = 0; i < 4; i++)
    m = fmax(m, x[i]);
  for (int i = 0; i < 4; i++)
    z += e[i] = exp(x[i] - m);
  for (int i = 0; i < 4; i++)
    sm[i] = e[i] / z;
  EXPECT_VALUE(run(text, CHECK_SOURCE, "softmax", 1, vx), f64s(a, 4, sm));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "count_positive", 1, vx), val_int(3));

  float xf[3] = {0.1f, 16777216.0f, 1.0f};
  volatile float tf = 0.0f;
  for (int i = 0; i < 3; i++)
    tf += xf[i];
  EXPECT_VALUE(run(text, CHECK_SOURCE, "total32", 1, f32s(a, 3, xf)), val_f32(tf));
  float hf[3] = {0.05f, 8388608.0f, 0.5f};
  EXPECT_VALUE(run(text, CHECK_SOURCE, "halves", 1, f32s(a, 3, xf)), f32s(a, 3, hf));

  double s1 = 0.0, s2 = 0.0;
  for (int i = 0; i < 4; i++) {
    s1 += x[i];
    s2 += x[i] * x[i];
  }
  EXPECT_VALUE(run(text, CHECK_SOURCE, "moments", 1, vx),
               val_tuple(a, 3, (Value[]){val_f64(s1), val_f64(s2), val_int(4)}));
  double px[4], py[4];
  for (int i = 0; i < 4; i++) {
    px[i] = x[i] * cos(y[i]);
    py[i] = x[i] * sin(y[i]);
  }
  EXPECT_VALUE(run(text, CHECK_SOURCE, "polar", 2, vx, vy),
               pair(a, f64s(a, 4, px), f64s(a, 4, py)));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "polar", 2, val_array(a, 0, NULL), vy),
               pair(a, val_array(a, 0, NULL), val_array(a, 0, NULL)));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "iota", 1, val_int(5)),
               ints(a, 5, (int[]){0, 1, 2, 3, 4}));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "iota", 1, val_int(-3)), val_array(a, 0, NULL));
  free(text);

  text = corpus("matvec.ir");
  double mat[6] = {1, 2, 3, 4, 5, 6}, v3[3] = {0.5, -1, 2}, mv[2];
  for (int i = 0; i < 2; i++) {
    mv[i] = 0.0;
    for (int j = 0; j < 3; j++)
      mv[i] += mat[i * 3 + j] * v3[j];
  }
  EXPECT_VALUE(run(text, CHECK_SOURCE, "matvec", 4, f64s(a, 6, mat), f64s(a, 3, v3),
                   val_int(2), val_int(3)),
               f64s(a, 2, mv));
  double sq[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9.5};
  EXPECT_VALUE(run(text, CHECK_SOURCE, "trace", 2, f64s(a, 9, sq), val_int(3)),
               val_f64(1 + 5 + 9.5));
  double q = 0.0;
  for (int i = 0; i < 3; i++) {
    double inner = 0.0;
    for (int j = 0; j < 3; j++)
      inner += sq[i * 3 + j] * v3[j];
    q += v3[i] * inner;
  }
  EXPECT_VALUE(run(text, CHECK_SOURCE, "quad", 2, f64s(a, 9, sq), f64s(a, 3, v3)),
               val_f64(q));
  /* sum over i < 4 of sum over i' < i of i' = 0 + 0 + 1 + 3 */
  EXPECT_VALUE(run(text, CHECK_SOURCE, "shadowed_loops", 1, val_int(4)), val_f64(4.0));
  free(text);
  arena_free(a);
}

static void test_interp_folds(void) {
  Arena *a = arena_new();
  char *text = corpus("folds.ir");
  double x[4] = {1.5, -2.0, 0.25, 3.0};
  EXPECT_VALUE(run(text, CHECK_SOURCE, "product", 1, f64s(a, 4, x)),
               val_f64(1.5 * -2.0 * 0.25 * 3.0));
  double withzero[3] = {2.0, 0.0, -5.0};
  EXPECT_VALUE(run(text, CHECK_SOURCE, "product", 1, f64s(a, 3, withzero)), val_f64(-0.0));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "product", 1, val_array(a, 0, NULL)), val_f64(1.0));
  double c[4] = {1.0, -3.0, 0.5, 2.0}; /* 1 - 3x + 0.5x^2 + 2x^3 */
  double hx = 1.7, h = ((2.0 * hx + 0.5) * hx - 3.0) * hx + 1.0;
  EXPECT_VALUE(run(text, CHECK_SOURCE, "horner", 2, f64s(a, 4, c), val_f64(hx)),
               val_f64(((((0.0 * hx + 2.0) * hx) + 0.5) * hx - 3.0) * hx + 1.0));
  EXPECT(fabs(h - (1 - 3 * hx + 0.5 * hx * hx + 2 * hx * hx * hx)) < 1e-12, "horner");

  double px = 1.0, pv = 0.0, step = 0.01;
  for (int i = 0; i < 1000; i++) {
    double nx = px + step * pv, nv = pv - step * px;
    px = nx;
    pv = nv;
  }
  EXPECT_VALUE(run(text, CHECK_SOURCE, "oscillator", 4, val_f64(1.0), val_f64(0.0),
                   val_f64(step), val_int(1000)),
               pair(a, val_f64(px), val_f64(pv)));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "oscillator", 4, val_f64(1.0), val_f64(0.0),
                   val_f64(step), val_int(0)),
               pair(a, val_f64(1.0), val_f64(0.0)));
  /* 4 steps: 0+0+1+2+3, 1*2^4, 0+0+1+2+3 */
  EXPECT_VALUE(run(text, CHECK_SOURCE, "mixed_state", 1, val_int(4)),
               pair(a, val_int(6), pair(a, val_f32(16.0f), val_f64(6.0))));
  Value carried = f64s(a, 4, x);
  Run r = run(text, CHECK_SOURCE, "carry", 1, carried);
  EXPECT(r.ok && r.result.kind == V_TUPLE && r.result.elems[0].elems == carried.elems,
         "the array passed through a fold is the argument itself");
  EXPECT_VALUE(r, pair(a, carried, val_f64(1.5 - 2.0 + 0.25 + 3.0)));

  /* fold-save: the state before each step at [i*L, i*L+L): floating
   * leaves as f64, integer leaves as the bits of their long long value */
  double tape[8] = {3.0, int_bits(0), 6.0, int_bits(0), 12.0, int_bits(1), 24.0, int_bits(3)};
  EXPECT_VALUE(run(text, CHECK_SOURCE, "saved", 2, val_f64(3.0), val_int(4)),
               pair(a, pair(a, val_f64(48.0), val_int(6)), f64s(a, 8, tape)));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "saved", 2, val_f64(3.0), val_int(0)),
               pair(a, pair(a, val_f64(3.0), val_int(0)), val_array(a, 0, NULL)));
  double tape3[9] = {(double)0.1f, 0.5, int_bits(7), (double)(0.1f * 3.0f), 1.5, int_bits(6),
                     (double)(0.1f * 3.0f * 3.0f), 2.5, int_bits(5)};
  EXPECT_VALUE(run(text, CHECK_SOURCE, "saved_nested", 2, val_f32(0.1f), val_int(3)),
               pair(a, pair(a, val_f32(0.1f * 3.0f * 3.0f * 3.0f),
                            pair(a, val_f64(3.5), val_int(4))),
                    f64s(a, 9, tape3)));
  double st[3] = {0.5, sin(0.5), sin(sin(0.5))};
  EXPECT_VALUE(run(text, CHECK_SOURCE, "saved_scalar", 2, val_f64(0.5), val_int(3)),
               pair(a, val_f64(sin(st[2])), f64s(a, 3, st)));
  free(text);
  arena_free(a);
}

/* update is a copy in the oracle: the consumed version is never changed,
 * so a program that broke linearity would differ from the compiled C. */
static void test_interp_update(void) {
  Arena *a = arena_new();
  char *text = corpus("update.ir");
  EXPECT_VALUE(run(text, CHECK_SOURCE, "fill", 1, val_f64(1.5)), val_f64(1.5 + 3.0 + 4.5));
  double x[3] = {1, 2, 3};
  Value vx = f64s(a, 3, x);
  EXPECT_VALUE(run(text, CHECK_SOURCE, "axpy_once", 3, vx, f64s(a, 3, (double[]){0, 0, 0}),
                   val_int(1)),
               pair(a, val_tuple(a, 0, NULL), f64s(a, 3, (double[]){1, 6, 3})));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "branchy", 2, val_f64(2.0), val_int(1)), val_f64(2.0));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "branchy", 2, val_f64(2.0), val_int(0)), val_f64(-2.0));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "prefix", 1, vx), f64s(a, 3, (double[]){1, 3, 6}));
  EXPECT(vx.elems[0].f == 1 && vx.elems[1].f == 2 && vx.elems[2].f == 3,
         "update changed an array it consumed");
  /* buffers a, b swapped each step: b0 = 0+x at step 0 (into b), ... */
  EXPECT_VALUE(run(text, CHECK_SOURCE, "swap2", 1, val_f64(0.5)), val_f64(1.0));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "local", 1, vx), val_f64(14.0));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "counts", 1, val_int(7)), val_int(7));
  EXPECT_ERROR(run(text, CHECK_SOURCE, "axpy_once", 3, vx, f64s(a, 3, (double[]){0, 0, 0}),
                   val_int(3)),
               16, 13, "index 3 out of range for array of length 3");
  free(text);
  arena_free(a);
}

/* The undo log writes old values back into the arrays' memory, and its
 * discipline is checked: a pop that meets a mark, an undo without its
 * mark, or a log left non-empty at return is an error. */
static void test_interp_undo_log(void) {
  char *text = corpus("undo_log.ir");
  EXPECT_VALUE(run(text, CHECK_AD, "undo_steps", 1, val_f64(2.0)), val_f64(6.0 + 123.0));
  EXPECT_VALUE(run(text, CHECK_AD, "store_then_add", 1, val_f64(0.25)), val_f64(0.75));
  free(text);
  EXPECT_ERROR(run("(def f f64 ((x f64)) (let (m (log-mark 1)) (let (p (log-pop)) x)))",
                   CHECK_AD, "f", 1, val_f64(1.0)),
               1, 52, "'log-pop' with no saved element on top of the log");
  EXPECT_ERROR(run("(def f f64 ((x f64)) (let (m (log-mark 1)) (let (a (alloc (array f64) 1)) "
                   "(let (b (log-undo 2 a)) x))))",
                   CHECK_AD, "f", 1, val_f64(1.0)),
               1, 83, "'log-undo' to mark 2 met mark 1");
  EXPECT_ERROR(run("(def f f64 ((x f64)) (let (m (log-mark 1)) x))", CHECK_AD, "f", 1, val_f64(1.0)),
               0, 0, "returns with 1 entries left in its undo log");
}

static void test_interp_scatter_accum(void) {
  Arena *a = arena_new();
  char *text = corpus("scatter.ir");
  double base[4] = {10, 20, 30, 40}, w[5] = {1, 2, 4, 8, 16};
  int idx[5] = {3, 0, 3, 1, 3};
  Value vbase = f64s(a, 4, base);
  double hist[4] = {12, 28, 30, 61}; /* 40 + 1 + 4 + 16 */
  EXPECT_VALUE(run(text, CHECK_SOURCE, "histogram", 3, vbase, ints(a, 5, idx),
                   f64s(a, 5, w)),
               f64s(a, 4, hist));
  EXPECT(vbase.elems[0].f == 10 && vbase.elems[3].f == 40, "scatter changed its base");
  EXPECT_VALUE(run(text, CHECK_SOURCE, "counts", 4, vbase, ints(a, 4, (int[]){0, 0, 0, 0}),
                   ints(a, 5, idx), f64s(a, 5, w)),
               pair(a, f64s(a, 4, hist), ints(a, 4, (int[]){1, 1, 0, 3})));
  double once[2] = {1, 2}, three[2] = {4, 2};
  EXPECT_VALUE(run(text, CHECK_SOURCE, "both", 1, f64s(a, 2, once)),
               pair(a, f64s(a, 2, three), f64s(a, 2, once)));
  idx[2] = 4;
  EXPECT_ERROR(run(text, CHECK_SOURCE, "histogram", 3, vbase, ints(a, 5, idx),
                   f64s(a, 5, w)),
               4, 31, "index 4 out of range for array of length 4");
  idx[2] = -1;
  EXPECT_ERROR(run(text, CHECK_SOURCE, "histogram", 3, vbase, ints(a, 5, idx),
                   f64s(a, 5, w)),
               4, 31, "index -1 out of range for array of length 4");
  free(text);

  text = corpus("accum.ir");
  double sp[3] = {0, 5.5, 0.5};
  EXPECT_VALUE(run(text, CHECK_AD, "spread", 3, val_int(3), ints(a, 3, (int[]){1, 2, 1}),
                   f64s(a, 3, (double[]){1.5, 0.5, 4.0})),
               f64s(a, 3, sp));
  /* accum adds in place: seen through the alias and by the caller */
  Value buf = f64s(a, 3, (double[]){1, 2, 3});
  EXPECT_VALUE(run(text, CHECK_AD, "alias", 1, buf), val_f64(4.75 + 4.75));
  EXPECT(buf.elems[1].f == 4.75 && buf.elems[0].f == 1, "caller's array: %g",
         buf.elems[1].f);
  float halfs[3] = {0.5f, 0.5f, 0.5f};
  EXPECT_VALUE(run(text, CHECK_AD, "alias32", 1, val_int(3)), f32s(a, 3, halfs));
  EXPECT_ERROR(run(text, CHECK_AD, "alias", 1, f64s(a, 1, (double[]){1})), 11, 11,
               "in 'alias': index 1 out of range for array of length 1");
  EXPECT_ERROR(run(text, CHECK_AD, "placeholder", 1, val_f64(1.0)), 22, 12,
               "zero array without a length");
  free(text);

  text = corpus("outputs.ir");
  EXPECT_VALUE(run(text, CHECK_SOURCE, "scale", 3, f64s(a, 2, (double[]){1, -2}),
                   val_f64(3.0), val_array(a, 2, NULL)),
               pair(a, val_tuple(a, 0, NULL), f64s(a, 2, (double[]){3, -6})));
  EXPECT_VALUE(run(text, CHECK_SOURCE, "powers", 4, f64s(a, 2, (double[]){1.5, -2}),
                   val_array(a, 2, NULL), val_int(3), ints(a, 3, (int[]){0, 0, 0})),
               val_tuple(a, 3, (Value[]){val_f64(2.25 + 4), f64s(a, 2, (double[]){2.25, 4}),
                                         ints(a, 3, (int[]){1, 1, 0})}));
  free(text);
  arena_free(a);
}

static void test_interp_array_errors(void) {
  Arena *a = arena_new();
  const char *text = "(def at f64 ((x (array f64)) (i int))\n"
                     "  (let (n (len x))\n"
                     "  (index x (add i n))))\n"
                     "(def in_loop f64 ((x (array f64)))\n"
                     "  (sum 5 (i) (index x i)))\n"
                     "(def in_callee f64 ((x (array f64)))\n"
                     "  (fold 3 0.0 (i s) (add s (call at x i))))\n";
  Value x = f64s(a, 3, (double[]){1, 2, 3});
  EXPECT_VALUE(run(text, CHECK_SOURCE, "at", 2, x, val_int(-1)), val_f64(3));
  EXPECT_ERROR(run(text, CHECK_SOURCE, "at", 2, x, val_int(0)), 3, 3,
               "in 'at': index 3 out of range for array of length 3");
  EXPECT_ERROR(run(text, CHECK_SOURCE, "at", 2, x, val_int(-4)), 3, 3,
               "index -1 out of range for array of length 3");
  EXPECT_ERROR(run(text, CHECK_SOURCE, "in_loop", 1, x), 5, 14,
               "in 'in_loop': index 3 out of range for array of length 3");
  EXPECT_ERROR(run(text, CHECK_SOURCE, "in_callee", 1, x), 3, 3,
               "in 'at': index 3 out of range");
  /* Arguments of the wrong kind are refused at the call. */
  EXPECT_ERROR(run(text, CHECK_SOURCE, "at", 2, ints(a, 2, (int[]){1, 2}), val_int(0)),
               0, 0, "argument 1 of 'at' has the wrong type");
  EXPECT_ERROR(run(text, CHECK_SOURCE, "at", 2, val_f64(1), val_int(0)), 0, 0,
               "argument 1 of 'at' has the wrong type");
  arena_free(a);
}

/* --------------------------------------------------------------- scale */

enum { BIG = 100000 };

static char *long_let_chain(void) {
  size_t cap = (size_t)BIG * 64 + 256, len = 0;
  char *s = malloc(cap);
  len += (size_t)sprintf(s + len, "(def chain f64 ((x f64))\n  (let (v0 (add x 1.0))\n");
  for (int i = 1; i < BIG; i++)
    len += (size_t)sprintf(s + len, "  (let (v%d (%s v%d x))\n", i,
                           i % 3 == 0 ? "sub" : i % 3 == 1 ? "mul" : "add", i - 1);
  len += (size_t)sprintf(s + len, "  v%d", BIG - 1);
  memset(s + len, ')', BIG + 1);
  s[len + BIG + 1] = '\n';
  s[len + BIG + 2] = '\0';
  return s;
}

static double chain_value(double x) {
  double v = x + 1.0;
  for (int i = 1; i < BIG; i++)
    v = i % 3 == 0 ? v - x : i % 3 == 1 ? v * x : v + x;
  return v;
}

static char *deep_nesting(void) {
  size_t cap = (size_t)BIG * 16 + 256, len = 0;
  char *s = malloc(cap);
  len += (size_t)sprintf(s + len, "(def deep f64 ((x f64)) ");
  for (int i = 0; i < BIG; i++)
    len += (size_t)sprintf(s + len, "(add ");
  len += (size_t)sprintf(s + len, "x");
  for (int i = 0; i < BIG; i++)
    len += (size_t)sprintf(s + len, " 1.0)");
  sprintf(s + len, ")\n");
  return s;
}

static void scale_case(char *text, const char *fname, double x, double want) {
  clock_t start = clock();
  Module *m = parse_text(text, fname, CHECK_SOURCE);
  if (!m)
    return;
  char *p1 = module_text(m);
  EXPECT(strlen(p1) < 100 * (size_t)BIG, "%s prints to %zu bytes", fname, strlen(p1));
  Module *m2 = parse_text(p1, fname, CHECK_SOURCE);
  char *p2 = m2 ? module_text(m2) : NULL;
  EXPECT(p2 && !strcmp(p1, p2), "%s: printing is not a fixpoint", fname);
  Arena *a = arena_new();
  Value arg = val_f64(x), result;
  Diag d;
  bool ok = interp_call(m, a, fname, 1, &arg, &result, &d);
  EXPECT(ok && result.kind == V_F64 && result.f == want, "%s: got %g (%s), want %g",
         fname, result.f, ok ? "ok" : d.msg, want);
  double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
  EXPECT(seconds < 20, "%s took %.1f s", fname, seconds);
  arena_free(a);
  free(p1);
  free(p2);
  module_free(m);
  module_free(m2);
}

static void test_scale_long_let_chain(void) {
  char *text = long_let_chain();
  scale_case(text, "chain", 1.0000001, chain_value(1.0000001));
  free(text);
}

static void test_scale_deep_nesting(void) {
  char *text = deep_nesting();
  double want = 0.5;
  for (int i = 0; i < BIG; i++)
    want += 1.0;
  scale_case(text, "deep", 0.5, want);
  free(text);
}

/* Resident memory in KiB, or -1 where /proc is missing. */
static long resident_kib(void) {
  FILE *in = fopen("/proc/self/statm", "r");
  long size, resident;
  bool ok = in && fscanf(in, "%ld %ld", &size, &resident) == 2;
  if (in)
    fclose(in);
  return ok ? resident * (sysconf(_SC_PAGESIZE) / 1024) : -1;
}

/* Runs fname, checking the result, the time, and that memory did not grow
 * by more than `max_growth_kib` while the result arena was still alive. */
static void loop_case(const char *text, const char *fname, int nargs, const Value *args,
                      Value want, long max_growth_kib) {
  Module *m = parse_text(text, fname, CHECK_SOURCE);
  if (!m)
    return;
  clock_t start = clock();
  long before = resident_kib();
  Arena *a = arena_new();
  Value result;
  Diag d;
  bool ok = interp_call(m, a, fname, nargs, args, &result, &d);
  long growth = resident_kib() - before;
  double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
  EXPECT(ok && val_eq(&result, &want), "%s: %s", fname, ok ? "wrong value" : d.msg);
  EXPECT(before < 0 || growth <= max_growth_kib, "%s: memory grew by %ld KiB", fname,
         growth);
  EXPECT(seconds < 30, "%s took %.1f s", fname, seconds);
  arena_free(a);
  module_free(m);
}

enum { HUGE_LOOP = 10000000, LONG_LOOP = 1000000 };

static void test_scale_loops(void) {
  /* 10^7 iterations, scalar state */
  double total = 0.0;
  for (int i = 0; i < HUGE_LOOP; i++)
    total += (double)i * 0.5;
  loop_case("(def s f64 ((n int)) (sum n (i) (let (x (to_f64 i)) (mul x 0.5))))", "s", 1,
            (Value[]){val_int(HUGE_LOOP)}, val_f64(total), 16 * 1024);

  /* tuple states: no memory per iteration */
  double acc = 0.0, prod = 1.0;
  for (int i = 0; i < LONG_LOOP; i++) {
    acc += (double)i;
    prod *= 1.0000001;
  }
  Arena *a = arena_new();
  Value want = pair(a, val_f64(acc), pair(a, val_f64(prod), val_int(LONG_LOOP)));
  loop_case("(def f (tuple f64 (tuple f64 int)) ((n int))\n"
            "  (fold n (tuple 0.0 (tuple 1.0 0)) (i s)\n"
            "    (let (x (to_f64 i))\n"
            "    (tuple (add (get 0 s) x)\n"
            "           (tuple (mul (get 0 (get 1 s)) 1.0000001) (add (get 1 (get 1 s)) 1))))))",
            "f", 1, (Value[]){val_int(LONG_LOOP)}, want, 16 * 1024);
  loop_case("(def t (tuple f64 int) ((n int))\n"
            "  (sum n (i) (let (x (to_f64 i)) (tuple x 1))))",
            "t", 1, (Value[]){val_int(LONG_LOOP)}, pair(a, val_f64(acc), val_int(LONG_LOOP)),
            16 * 1024);

  /* an array state rebuilt by every iteration: 4 KiB each without reuse */
  loop_case("(def fa f64 ((n int) (m int))\n"
            "  (get 1 (fold n (tuple (build m (j) 0.0) 0.0) (i s)\n"
            "    (let (a (build m (j) (add (index (get 0 s) j) 1.0)))\n"
            "    (tuple a (index a 0))))))",
            "fa", 2, (Value[]){val_int(50000), val_int(100)}, val_f64(50000.0), 32 * 1024);

  /* a body that is a long let chain */
  enum { LETS = 20000, ROUNDS = 50 };
  size_t cap = (size_t)LETS * 48 + 256, len = 0;
  char *text = malloc(cap);
  len += (size_t)sprintf(text + len, "(def lc f64 ((n int) (x f64)) (sum n (i)\n"
                                     "  (let (v0 (add x (to_f64 i)))\n");
  for (int k = 1; k < LETS; k++)
    len += (size_t)sprintf(text + len, "  (let (v%d (%s v%d x))\n", k,
                           k % 2 ? "mul" : "sub", k - 1);
  len += (size_t)sprintf(text + len, "  v%d", LETS - 1);
  memset(text + len, ')', LETS + 2);
  text[len + LETS + 2] = '\0';
  double x = 0.999, sum = 0.0;
  for (int i = 0; i < ROUNDS; i++) {
    double v = x + (double)i;
    for (int k = 1; k < LETS; k++)
      v = k % 2 ? v * x : v - x;
    sum += v;
  }
  loop_case(text, "lc", 2, (Value[]){val_int(ROUNDS), val_f64(x)}, val_f64(sum), 64 * 1024);
  free(text);
  arena_free(a);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS)
    return 1;
  CU_pSuite text = CU_add_suite("ir text", NULL, NULL);
  CU_add_test(text, "corpus round trip", test_corpus_round_trip);
  CU_add_test(text, "corpus covers every primitive", test_corpus_covers_primitives);
  CU_add_test(text, "corpus covers every form", test_corpus_covers_forms);
  CU_add_test(text, "bad corpus errors", test_bad_corpus);
  CU_add_test(text, "printer layout", test_print_exact);
  CU_add_test(text, "printer width", test_print_width);
  CU_add_test(text, "printed constants", test_print_constants);
  CU_add_test(text, "constants bit exact", test_constants_bit_exact);
  CU_pSuite check = CU_add_suite("ir check", NULL, NULL);
  CU_add_test(check, "types are set", test_check_sets_types);
  CU_add_test(check, "lcall type", test_check_lcall_type);
  CU_add_test(check, "scoping", test_check_scope);
  CU_add_test(check, "modes", test_check_modes);
  CU_add_test(check, "loops", test_check_loops);
  CU_add_test(check, "loop scoping", test_check_loop_scope);
  CU_add_test(check, "parameter classes", test_check_classes);
  CU_pSuite interp = CU_add_suite("ir interp", NULL, NULL);
  CU_add_test(interp, "corpus programs", test_interp_corpus);
  CU_add_test(interp, "f32 rounding", test_interp_f32);
  CU_add_test(interp, "math functions", test_interp_math);
  CU_add_test(interp, "math functions with int or three operands", test_interp_math_more);
  CU_add_test(interp, "run-time errors", test_interp_errors);
  CU_add_test(interp, "arrays", test_interp_arrays);
  CU_add_test(interp, "folds", test_interp_folds);
  CU_add_test(interp, "scatter and accum", test_interp_scatter_accum);
  CU_add_test(interp, "update stores in place, copies a parameter; alloc zeroes",
              test_interp_update);
  CU_add_test(interp, "undo log", test_interp_undo_log);
  CU_add_test(interp, "array errors", test_interp_array_errors);
  CU_pSuite scale = CU_add_suite("ir scale", NULL, NULL);
  CU_add_test(scale, "100000 nested lets", test_scale_long_let_chain);
  CU_add_test(scale, "100000 nested operations", test_scale_deep_nesting);
  CU_add_test(scale, "long loops", test_scale_loops);
  return support_run_all();
}
