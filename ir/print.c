/* print.c: the textual form of the IR, Knossos-style s-expressions.
 *
 * Requires nodes with the argument counts ir.h documents (a NULL child or
 * type prints as `<null>`, for debugging half-built terms). Guarantees
 * deterministic text that ir/parse.c reads back to the same term, with
 * constants bit-exact (NaN payloads excepted); time and output size linear
 * in the size of the term, and no recursion on the depth of the term: an
 * explicit work stack drives the layout, and only subterms short enough to
 * sit on one line (hence shallow) and types are printed recursively.
 *
 * Grammar (`;` starts a comment that runs to the end of the line):
 *
 *   module := func*
 *   func   := (def NAME type (param*) expr)        external linkage
 *           | (def-static NAME type (param*) expr) C `static` primal
 *           | (custom NAME type (param*))          CHAD_CUSTOM: no body,
 *           | (custom-static NAME type (param*))   derivatives by hand
 *   param  := (NAME type)                          scalar, or input array
 *           | (NAME type out)                      output array (C `double *y`)
 *   type   := f64 | f32 | int
 *           | (tuple type*)                         (tuple) is unit
 *           | (record NAME type*)                   nominal tuple (C struct)
 *           | (lin type type)                       linear map dom -o cod
 *           | (array type)                          elements f64, f32 or int
 *   expr   := NUMBER | NAME                         constant, variable
 *           | (let (NAME expr) expr)
 *           | (PRIM expr...)                        add, sin, to_f64, ...
 *           | (call NAME expr*)
 *           | (tuple expr*) | (record NAME expr*)
 *           | (get INDEX expr)                      0-based field
 *           | (if expr expr expr)
 *           | (zero type) | (plus expr expr)        tangent values
 *           | (lzero type) | (lone type) | (lscale expr)
 *           | (lcomp expr expr) | (lvcat expr*) | (lhcat expr*)
 *           | (lplus expr expr) | (ltrans expr) | (lapply expr expr)
 *           | (lcall NAME expr)                     linear maps
 *           | (index expr expr) | (len expr)        element, length
 *           | (build expr (NAME) expr)              (build n (i) BODY)
 *           | (sum expr (NAME) expr)                (sum n (i) BODY)
 *           | (fold expr expr (NAME NAME) expr)     (fold n S0 (i s) BODY)
 *           | (fold-save expr expr (NAME NAME) expr)
 *           | (scatter expr expr (NAME) expr)       (scatter BASE n (i) BODY)
 *           | (accum expr expr expr)                (accum buf i v), in place
 *           | (alloc type expr)                     fresh zeroed array of n elements
 *           | (update expr expr expr)               (update a i v): a with a[i] = v,
 *                                                   consuming a (in place in C)
 *   NUMBER := f64: 2.0 -1.5e-300 inf -inf nan   (always a '.' or an 'e')
 *           | f32: 1.5f 16777216.0f inff -inff nanf
 *           | int: 42 -7
 *   NAME   := [A-Za-z_$][A-Za-z0-9_$.]*   except inf, nan, inff, nanf
 *
 * Variables are resolved by lexical scope, so shadowing prints as written.
 * The binders of a loop (the index i, and the state s of fold and fold-save)
 * scope over its BODY only; their types are implied (i is int, s has S0's
 * type). A function has parameter classes (Func.classes) exactly when a
 * parameter is an array or is marked `out`.
 * Layout: a term that fits in the line and holds no `let` stays on one line.
 * A let chain puts each binding on its own line at one indentation and its
 * closing parentheses at the end of the chain, so line count and width stay
 * flat however long an ANF body is. A broken loop keeps its operands and
 * binders on the first line when they fit and puts its body on the next,
 * indented by two. Other broken terms align their operands
 * under the first; indentation saturates at MAX_INDENT columns so that deep
 * nesting cannot make the output quadratic. */
#include "ir.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
  LINE_WIDTH = 80,
  MIN_WIDTH = 30,   /* room granted to a term even far to the right */
  MAX_INDENT = 60,  /* continuation lines never start further right */
  MAX_ALIGNED_HEAD = 12, /* longer heads put operands on their own lines */
};

/* ------------------------------------------------------------ constants */

/* The first precision that reads back exactly gives the shortest text. */
static int format_float(char *buf, size_t size, double v, bool single) {
  const char *suffix = single ? "f" : "";
  if (isnan(v))
    return snprintf(buf, size, "nan%s", suffix);
  if (isinf(v))
    return snprintf(buf, size, "%sinf%s", v < 0 ? "-" : "", suffix);
  for (int prec = single ? 6 : 15; prec <= (single ? 9 : 17); prec++) {
    snprintf(buf, size, "%.*g", prec, v);
    if (single ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v)
      break;
  }
  /* The parser tells f64 from int by the '.' or the exponent. */
  const char *point = strpbrk(buf, ".e") ? "" : ".0";
  size_t len = strlen(buf);
  return (int)len + snprintf(buf + len, size - len, "%s%s", point, suffix);
}

int format_const(char *buf, size_t size, const Type *t, double f,
                 long long i) {
  if (!t)
    return snprintf(buf, size, "<null>");
  switch (t->kind) {
  case TY_F64:
    return format_float(buf, size, f, false);
  case TY_F32:
    return format_float(buf, size, f, true);
  default:
    if (t->ikind == IK_INT)
      return snprintf(buf, size, "%lld", i);
    /* other integer kinds carry their kind: "3:ulong" */
    if (intk_signed(t->ikind))
      return snprintf(buf, size, "%lld:%s", i, intk_ir_name(t->ikind));
    return snprintf(buf, size, "%llu:%s", (unsigned long long)i, intk_ir_name(t->ikind));
  }
}

/* ---------------------------------------------------------------- types */

void print_type(FILE *out, const Type *t) {
  if (!t) {
    fputs("<null>", out);
    return;
  }
  switch (t->kind) {
  case TY_F64:
    fputs("f64", out);
    return;
  case TY_F32:
    fputs("f32", out);
    return;
  case TY_INT:
    fputs(intk_ir_name(t->ikind), out);
    return;
  case TY_TUPLE:
    if (t->name)
      fprintf(out, "(record %s", t->name);
    else
      fputs("(tuple", out);
    for (int i = 0; i < t->n; i++) {
      fputc(' ', out);
      print_type(out, t->elems[i]);
    }
    fputc(')', out);
    return;
  case TY_LIN:
    fputs("(lin ", out);
    print_type(out, t->dom);
    fputc(' ', out);
    print_type(out, t->cod);
    fputc(')', out);
    return;
  case TY_ARRAY:
    fputs("(array ", out);
    print_type(out, t->elem);
    fputc(')', out);
    return;
  }
}

/* Width of the printed type, or more than `budget` when it is wider. */
static int type_width(const Type *t, int budget) {
  if (!t)
    return 6;
  switch (t->kind) {
  case TY_F64:
  case TY_F32:
    return 3;
  case TY_INT:
    return (int)strlen(intk_ir_name(t->ikind));
  case TY_TUPLE: {
    int w = t->name ? 9 + (int)strlen(t->name) : 6;
    for (int i = 0; i < t->n && w <= budget; i++)
      w += 1 + type_width(t->elems[i], budget - w);
    return w;
  }
  case TY_LIN: {
    int w = 7 + type_width(t->dom, budget - 7);
    return w > budget ? w : w + type_width(t->cod, budget - w);
  }
  case TY_ARRAY:
    return 8 + type_width(t->elem, budget - 8);
  }
  return 0;
}

/* ------------------------------------------------------- term structure */

static const char *keyword(const Expr *e) {
  static const char *const names[] = {
      [E_LET] = "let",      [E_CALL] = "call",     [E_GET] = "get",
      [E_IF] = "if",        [E_ZERO] = "zero",     [E_PLUS] = "plus",
      [E_LZERO] = "lzero",  [E_LONE] = "lone",     [E_LSCALE] = "lscale",
      [E_LCOMP] = "lcomp",  [E_LVCAT] = "lvcat",   [E_LHCAT] = "lhcat",
      [E_LPLUS] = "lplus",  [E_LTRANS] = "ltrans", [E_LAPPLY] = "lapply",
      [E_LCALL] = "lcall",  [E_INDEX] = "index",   [E_LEN] = "len",      [E_VIEW] = "view",
      [E_BUILD] = "build",  [E_SUM] = "sum",       [E_FOLD] = "fold",
      [E_FOLDSAVE] = "fold-save", [E_WHILE] = "while",
      [E_WHILESAVE] = "while-save", [E_SCATTER] = "scatter",
      [E_ACCUM] = "accum",  [E_ALLOC] = "alloc",   [E_TABLE] = "table",
      [E_UPDATE] = "update", [E_LOGSAVE] = "log-save", [E_LOGPOP] = "log-pop",
      [E_LOGMARK] = "log-mark", [E_LOGUNDO] = "log-undo",
      [E_LOGPUSH] = "log-push", [E_LOGTAKE] = "log-take",
      [E_LOGVIEW] = "log-view", [E_LOGFINAL] = "log-final",
  };
  if (e->kind == E_PRIM) {
    const PrimInfo *pi = prim_info(e->op);
    return pi ? pi->name : "<bad-prim>";
  }
  if (e->kind == E_TUPLE)
    return e->name ? "record" : "tuple";
  if (e->kind == E_ACCUM && e->index == 1)
    return "store";
  if (e->kind == E_SUM && e->nargs == 2)
    return "sum-from";
  if ((unsigned)e->kind >= sizeof names / sizeof *names || !names[e->kind])
    return "<bad-kind>";
  return names[e->kind];
}

static bool binds_state(const Expr *e) { return expr_binds_state(e); }

static const char *var_name(const Var *v) { return v ? v->name : "<null>"; }

/* Width of " (i)" or " (i s)", the binder list of a loop. */
static int binders_width(const Expr *e) {
  int w = 3 + (int)strlen(var_name(e->var));
  if (binds_state(e))
    w += 1 + (int)strlen(var_name(e->var2));
  return w;
}

/* The type written inside the form, for the forms that carry one. */
static bool has_type_operand(const Expr *e) {
  return e->kind == E_ZERO || e->kind == E_LZERO || e->kind == E_LONE ||
         e->kind == E_ALLOC || e->kind == E_TABLE || e->kind == E_LOGTAKE;
}

/* That type: a table shows its element type, which an empty table could
 * not otherwise tell (`(table f64 1.0 2.5)` has type (array f64)). */
static const Type *type_operand(const Expr *e) {
  if (e->kind == E_TABLE)
    return e->type && e->type->kind == TY_ARRAY ? e->type->elem : NULL;
  return e->type;
}

/* The name written inside the form, for the forms that carry one. */
static const char *name_operand(const Expr *e) {
  if (e->kind == E_CALL || e->kind == E_LCALL || e->kind == E_TUPLE)
    return e->name;
  return NULL;
}

static bool is_atom(const Expr *e) {
  return !e || e->kind == E_CONST || e->kind == E_VAR;
}

static int atom_text(char *buf, size_t size, const Expr *e) {
  if (!e)
    return snprintf(buf, size, "<null>");
  if (e->kind == E_VAR)
    return snprintf(buf, size, "%s", e->var ? e->var->name : "<null>");
  return format_const(buf, size, e->type, e->fval, e->ival);
}

/* Width of "(head" without the closing parenthesis, bounded like below. */
static int head_width(const Expr *e, int budget) {
  int w = 1 + (int)strlen(keyword(e));
  const char *name = name_operand(e);
  if (name)
    w += 1 + (int)strlen(name);
  if (e->kind == E_GET)
    w += 1 + snprintf(NULL, 0, "%d", e->index);
  if (has_type_operand(e))
    w += 1 + type_width(type_operand(e), budget - w - 1);
  return w;
}

/* Width of e on one line, or more than `budget` when it is wider or holds a
 * let (which never shares a line). The budget bounds the recursion depth. */
static int flat_width(const Expr *e, int budget) {
  if (budget < 0)
    return budget + 1;
  if (is_atom(e)) {
    char buf[64];
    return atom_text(buf, sizeof buf, e);
  }
  if (e->kind == E_LET)
    return budget + 1;
  int w = head_width(e, budget) + 1;
  for (int i = 0; i < e->nargs && w <= budget; i++)
    w += 1 + flat_width(e->args[i], budget - w - 1);
  if (expr_is_loop(e) && w <= budget) {
    w += binders_width(e);
    w += 1 + flat_width(e->body, budget - w - 1);
  }
  return w;
}

/* ------------------------------------------------------------- printing */

typedef enum WorkKind {
  W_EXPR,    /* lay out an expression starting at the current column */
  W_TEXT,    /* literal text */
  W_HEAD,    /* "(keyword operand" of a form */
  W_NEWLINE, /* newline and `indent` spaces */
  W_BINDERS, /* " (i)" or " (i s)" of a loop */
} WorkKind;

typedef struct Work {
  WorkKind kind;
  const Expr *e;
  const char *text;
  int indent;
} Work;

typedef struct Printer {
  FILE *out;
  int col;
  Work *stack;
  int len, cap;
} Printer;

static void push(Printer *p, WorkKind kind, const Expr *e, const char *text,
                 int indent) {
  if (p->len == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 64;
    p->stack = realloc(p->stack, sizeof(Work) * (size_t)p->cap);
    if (!p->stack) {
      fputs("chad: out of memory\n", stderr);
      abort();
    }
  }
  p->stack[p->len++] = (Work){kind, e, text, indent};
}

static void emit(Printer *p, const char *s) {
  fputs(s, p->out);
  p->col += (int)strlen(s);
}

static void emit_head(Printer *p, const Expr *e) {
  p->col += fprintf(p->out, "(%s", keyword(e));
  const char *name = name_operand(e);
  if (name)
    p->col += fprintf(p->out, " %s", name);
  if (e->kind == E_GET)
    p->col += fprintf(p->out, " %d", e->index);
  if (has_type_operand(e)) {
    emit(p, " ");
    p->col += type_width(type_operand(e), 1 << 30);
    print_type(p->out, type_operand(e));
  }
}

static void emit_binders(Printer *p, const Expr *e) {
  emit(p, " (");
  emit(p, var_name(e->var));
  if (binds_state(e)) {
    emit(p, " ");
    emit(p, var_name(e->var2));
  }
  emit(p, ")");
}

/* Only called on terms that fit on the line, so the recursion is shallow. */
static void emit_flat(Printer *p, const Expr *e) {
  if (is_atom(e)) {
    char buf[64];
    atom_text(buf, sizeof buf, e);
    emit(p, buf);
    return;
  }
  emit_head(p, e);
  for (int i = 0; i < e->nargs; i++) {
    emit(p, " ");
    emit_flat(p, e->args[i]);
  }
  if (expr_is_loop(e)) {
    emit_binders(p, e);
    emit(p, " ");
    emit_flat(p, e->body);
  }
  emit(p, ")");
}

/* Pushes the pieces of a broken term in reverse order of printing. */
static void lay_out(Printer *p, const Expr *e) {
  int width = LINE_WIDTH - p->col;
  if (width < MIN_WIDTH)
    width = MIN_WIDTH;
  if (is_atom(e) || (e->kind != E_LET && e->nargs == 0) ||
      flat_width(e, width) <= width) {
    emit_flat(p, e);
    return;
  }
  int indent = p->col < MAX_INDENT ? p->col : MAX_INDENT;
  if (e->kind == E_LET) {
    push(p, W_TEXT, NULL, ")", 0);
    push(p, W_EXPR, e->body, NULL, 0);
    push(p, W_NEWLINE, NULL, NULL, indent);
    push(p, W_TEXT, NULL, ")", 0);
    push(p, W_EXPR, e->args[0], NULL, 0);
    push(p, W_TEXT, NULL, " ", 0);
    push(p, W_TEXT, NULL, e->var ? e->var->name : "<null>", 0);
    push(p, W_TEXT, NULL, "(let (", 0);
    return;
  }
  int head = head_width(e, 1 << 30);
  bool aligned = head - 1 <= MAX_ALIGNED_HEAD;
  int operand_indent = aligned ? indent + head + 1 : indent + 2;
  push(p, W_TEXT, NULL, ")", 0);
  if (expr_is_loop(e)) {
    int body_indent = indent + 2 < MAX_INDENT ? indent + 2 : MAX_INDENT;
    push(p, W_EXPR, e->body, NULL, 0);
    push(p, W_NEWLINE, NULL, NULL, body_indent);
    push(p, W_BINDERS, e, NULL, 0);
    /* The operands and binders on the first line when they fit there. */
    int w = head;
    for (int i = 0; i < e->nargs && w <= width; i++)
      w += 1 + flat_width(e->args[i], width - w - 1);
    if (w + binders_width(e) <= width) {
      for (int i = e->nargs - 1; i >= 0; i--) {
        push(p, W_EXPR, e->args[i], NULL, 0);
        push(p, W_TEXT, NULL, " ", 0);
      }
      push(p, W_HEAD, e, NULL, 0);
      return;
    }
  }
  for (int i = e->nargs - 1; i >= 0; i--) {
    push(p, W_EXPR, e->args[i], NULL, 0);
    if (i > 0 || !aligned)
      push(p, W_NEWLINE, NULL, NULL, operand_indent);
  }
  if (aligned)
    push(p, W_TEXT, NULL, " ", 0);
  push(p, W_HEAD, e, NULL, 0);
}

static void run(Printer *p) {
  while (p->len > 0) {
    Work w = p->stack[--p->len];
    switch (w.kind) {
    case W_EXPR:
      lay_out(p, w.e);
      break;
    case W_TEXT:
      emit(p, w.text);
      break;
    case W_HEAD:
      emit_head(p, w.e);
      break;
    case W_NEWLINE:
      fprintf(p->out, "\n%*s", w.indent, "");
      p->col = w.indent;
      break;
    case W_BINDERS:
      emit_binders(p, w.e);
      break;
    }
  }
}

/* `indent` is the column at which the caller has left the cursor. */
static void print_expr_at(FILE *out, const Expr *e, int indent) {
  Printer p = {.out = out, .col = indent};
  push(&p, W_EXPR, e, NULL, 0);
  run(&p);
  free(p.stack);
}

void print_expr(FILE *out, const Expr *e, int indent) {
  print_expr_at(out, e, indent);
}

void print_func(FILE *out, const Func *f) {
  const char *form = f->is_custom ? (f->is_static ? "custom-static" : "custom")
                                  : (f->is_static ? "def-static" : "def");
  fprintf(out, "(%s %s ", form, f->name);
  print_type(out, f->ret);
  fputs(" (", out);
  for (int i = 0; i < f->nparams; i++) {
    const Var *v = f->params[i];
    fprintf(out, "%s(%s ", i ? " " : "", v ? v->name : "<null>");
    print_type(out, v ? v->type : NULL);
    if (f->classes && f->classes[i] == PARAM_OUT_ARRAY)
      fputs(" out", out);
    else if (f->classes && f->classes[i] == PARAM_INOUT_ARRAY)
      fputs(" inout", out);
    else if (f->classes && f->classes[i] == PARAM_INACTIVE && v && type_is_active(v->type))
      fputs(" inactive", out);
    fputc(')', out);
  }
  if (!f->body) { /* a custom function (or a malformed one): no body */
    fputs("))\n", out);
    return;
  }
  fputs(")\n  ", out);
  print_expr_at(out, f->body, 2);
  fputs(")\n", out);
}

void print_module(FILE *out, const Module *m) {
  for (int i = 0; i < m->funcs.len; i++) {
    if (i)
      fputc('\n', out);
    print_func(out, m->funcs.items[i]);
  }
}

/* --------------------------------------------------------- to a string */

static FILE *open_string(char **buf, size_t *len) {
  FILE *out = open_memstream(buf, len);
  if (!out) {
    fputs("chad: out of memory\n", stderr);
    abort();
  }
  return out;
}

char *func_to_string(const Func *f) {
  char *buf;
  size_t len;
  FILE *out = open_string(&buf, &len);
  print_func(out, f);
  fclose(out);
  return buf;
}

char *expr_to_string(const Expr *e) {
  char *buf;
  size_t len;
  FILE *out = open_string(&buf, &len);
  print_expr(out, e, 0);
  fclose(out);
  return buf;
}

char *type_to_string(const Type *t) {
  char *buf;
  size_t len;
  FILE *out = open_string(&buf, &len);
  print_type(out, t);
  fclose(out);
  return buf;
}
