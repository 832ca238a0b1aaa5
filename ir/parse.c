/* parse.c: reads the textual form of ir/print.c (grammar there).
 *
 * Requires NUL-terminated text. Guarantees: on success every function of the
 * text is added to the module, every node carries the location of its first
 * token, and each variable reference is the Var* bound by the innermost
 * enclosing let, loop binder or parameter of that name; loop indices have
 * type int (the checker types the rest). Func.classes is set when a
 * parameter is an array or is marked `out`. On failure nothing is added and
 * `err` holds the first error with its line and column.
 *
 * Two phases, both without recursion on the depth of terms (ANF bodies nest
 * 10^5 lets deep): a reader turns the text into s-expressions with an explicit
 * stack of open lists, then a converter turns those into terms with an
 * explicit stack of pending forms. Calls are not resolved here (they may name
 * functions defined later); the checker resolves them. */
#include "ir.h"
#include "irmap.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_TYPE_DEPTH = 256 }; /* types are converted recursively */

/* Kept small: a long program has millions of them. */
typedef struct Sexp Sexp;
struct Sexp {
  const char *atom; /* NULL for a list */
  Sexp **items;
  int n;
  int line, col;
};

typedef struct Parser {
  Module *m;
  Arena *tmp;  /* s-expressions: freed when parsing ends */
  Diag *err;
  const char *file;
  IrMap scope; /* name -> innermost Var* bound under that name */
  IrMap form_by_name;
  struct Form *prim_forms; /* P_COUNT of them */
} Parser;

static bool fail(Parser *p, Loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail(Parser *p, Loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char msg[sizeof p->err->msg];
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  diag_set(p->err, loc, "%s", msg);
  return false;
}

/* --------------------------------------------------------------- reader */

typedef struct Cursor {
  const char *s;
  int line, col;
} Cursor;

static void advance(Cursor *c) {
  if (*c->s == '\n') {
    c->line++;
    c->col = 1;
  } else {
    c->col++;
  }
  c->s++;
}

static void skip_space_and_comments(Cursor *c) {
  for (;;) {
    if (*c->s == ';')
      while (*c->s && *c->s != '\n')
        advance(c);
    else if (*c->s == ' ' || *c->s == '\t' || *c->s == '\n' || *c->s == '\r' ||
             *c->s == '\f' || *c->s == '\v')
      advance(c);
    else
      return;
  }
}

static bool ends_atom(char ch) {
  return !ch || strchr(" \t\n\r\f\v();", ch);
}

/* The reader's state: the items read and not yet gathered into their list,
 * and for each open list, where its items start. */
typedef struct ReadStack {
  Sexp **items;
  int nitems, cap_items;
  int *starts;
  int nstarts, cap_starts;
} ReadStack;

static void *grow_array(void *items, int *cap, size_t elem) {
  *cap = *cap ? 2 * *cap : 64;
  items = realloc(items, elem * (size_t)*cap);
  if (!items) {
    fputs("chad: out of memory\n", stderr);
    abort();
  }
  return items;
}

static void push_item(ReadStack *st, Sexp *s) {
  if (st->nitems == st->cap_items)
    st->items = grow_array(st->items, &st->cap_items, sizeof(Sexp *));
  st->items[st->nitems++] = s;
}

static void open_list(ReadStack *st) {
  if (st->nstarts == st->cap_starts)
    st->starts = grow_array(st->starts, &st->cap_starts, sizeof(int));
  st->starts[st->nstarts++] = st->nitems;
}

/* Moves the items of the innermost open list into it, exactly sized. */
static void close_list(Parser *p, ReadStack *st) {
  int start = st->starts[--st->nstarts];
  Sexp *list = st->items[start - 1];
  list->n = st->nitems - start;
  list->items = arena_alloc(p->tmp, sizeof(Sexp *) * (size_t)(list->n + 1));
  memcpy(list->items, st->items + start, sizeof(Sexp *) * (size_t)list->n);
  st->nitems = start;
}

static Sexp *new_sexp(Parser *p, const Cursor *c) {
  Sexp *s = arena_alloc(p->tmp, sizeof *s);
  s->line = c->line;
  s->col = c->col;
  return s;
}

static Loc loc_of(const Parser *p, const Sexp *s) {
  return (Loc){p->file, s->line, s->col};
}

/* Reads every top-level s-expression of the text into `out` (malloc'd). */
static bool read_all(Parser *p, const char *text, Sexp ***out, int *n) {
  Cursor c = {text, 1, 1};
  ReadStack st = {0};
  bool ok = true;
  for (;;) {
    skip_space_and_comments(&c);
    if (!*c.s) {
      if (st.nstarts) {
        Sexp *open = st.items[st.starts[st.nstarts - 1] - 1];
        ok = fail(p, (Loc){p->file, c.line, c.col},
                  "expected ')' before end of input (to close '(' at %d:%d)",
                  open->line, open->col);
      }
      break;
    }
    if (*c.s == ')') {
      if (!st.nstarts) {
        ok = fail(p, (Loc){p->file, c.line, c.col}, "unexpected ')'");
        break;
      }
      advance(&c);
      close_list(p, &st);
      continue;
    }
    Sexp *s = new_sexp(p, &c);
    push_item(&st, s);
    if (*c.s == '(') {
      advance(&c);
      open_list(&st);
      continue;
    }
    const char *start = c.s;
    while (!ends_atom(*c.s))
      advance(&c);
    size_t len = (size_t)(c.s - start);
    char *atom = arena_alloc(p->tmp, len + 1);
    memcpy(atom, start, len);
    s->atom = atom;
  }
  free(st.starts);
  *out = st.items;
  *n = ok ? st.nitems : 0;
  return ok;
}

/* ---------------------------------------------------------------- atoms */

static bool is_list(const Sexp *s) { return s->atom == NULL; }

static bool is_reserved(const char *name) {
  return !strcmp(name, "inf") || !strcmp(name, "nan") ||
         !strcmp(name, "inff") || !strcmp(name, "nanf");
}

static bool is_name(const char *s) {
  if (!(*s == '_' || *s == '$' || (*s >= 'a' && *s <= 'z') ||
        (*s >= 'A' && *s <= 'Z')))
    return false;
  for (s++; *s; s++)
    if (!(*s == '_' || *s == '$' || *s == '.' || (*s >= 'a' && *s <= 'z') ||
          (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
      return false;
  return true;
}

static bool looks_numeric(const char *s) {
  if (*s == '-' || *s == '+')
    s++;
  if (*s == '.')
    s++;
  return *s >= '0' && *s <= '9';
}

/* strtod and strtof also accept hex, "infinity" and the like: the text of a
 * number is restricted to what the printer writes. */
static bool decimal_chars(const char *s, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (!strchr("0123456789+-.eE", s[i]))
      return false;
  return len > 0;
}

static Expr *special_float(Parser *p, const char *s) {
  static const struct {
    const char *text;
    bool single;
    double value;
  } specials[] = {
      {"inf", false, INFINITY},  {"-inf", false, -INFINITY},
      {"nan", false, NAN},       {"inff", true, INFINITY},
      {"-inff", true, -INFINITY}, {"nanf", true, NAN},
  };
  for (size_t i = 0; i < sizeof specials / sizeof *specials; i++)
    if (!strcmp(s, specials[i].text))
      return specials[i].single ? ex_f32(p->m->arena, (float)specials[i].value)
                                : ex_f64(p->m->arena, specials[i].value);
  return NULL;
}

/* "3:ulong": an integer constant of another kind than int. */
static Expr *parse_kinded_int(Parser *p, const Sexp *s, const char *colon) {
  char digits[64];
  size_t len = (size_t)(colon - s->atom);
  IntKind k;
  bool digits_only = len > 0 && len < sizeof digits;
  for (size_t i = 0; digits_only && i < len; i++)
    digits_only = (s->atom[i] >= '0' && s->atom[i] <= '9') || (i == 0 && s->atom[i] == '-');
  if (!digits_only || !intk_from_ir_name(colon + 1, &k)) {
    fail(p, loc_of(p, s), "malformed number '%s'", s->atom);
    return NULL;
  }
  memcpy(digits, s->atom, len);
  digits[len] = '\0';
  char *end;
  errno = 0;
  long long v = intk_signed(k) || digits[0] == '-'
                    ? strtoll(digits, &end, 10)
                    : (long long)strtoull(digits, &end, 10);
  if (*end || errno == ERANGE || intk_wrap(k, v) != v) {
    fail(p, loc_of(p, s), "number '%s' out of range", s->atom);
    return NULL;
  }
  Expr *e = ex_int(p->m->arena, v);
  e->type = ty_intk(k);
  return e;
}

static Expr *parse_number(Parser *p, const Sexp *s) {
  const char *text = s->atom;
  size_t len = strlen(text);
  char *end;
  errno = 0;
  const char *colon = strchr(text, ':');
  if (colon)
    return parse_kinded_int(p, s, colon);
  if (text[len - 1] == 'f') {
    char digits[128];
    if (len > sizeof digits || !decimal_chars(text, len - 1))
      goto malformed;
    memcpy(digits, text, len - 1);
    digits[len - 1] = '\0';
    float v = strtof(digits, &end);
    if (*end)
      goto malformed;
    if (isinf(v))
      goto range;
    return ex_f32(p->m->arena, v);
  }
  if (!decimal_chars(text, len))
    goto malformed;
  if (strpbrk(text, ".eE")) {
    double v = strtod(text, &end);
    if (*end)
      goto malformed;
    if (isinf(v))
      goto range;
    return ex_f64(p->m->arena, v);
  }
  long long v = strtoll(text, &end, 10);
  if (*end)
    goto malformed;
  if (errno == ERANGE)
    goto range;
  return ex_int(p->m->arena, v);
malformed:
  fail(p, loc_of(p, s), "malformed number '%s'", text);
  return NULL;
range:
  fail(p, loc_of(p, s), "number '%s' out of range", text);
  return NULL;
}

/* A constant or a reference to the variable in scope under that name. */
static Expr *convert_atom(Parser *p, const Sexp *s) {
  Expr *e = special_float(p, s->atom);
  if (!e && looks_numeric(s->atom))
    e = parse_number(p, s);
  else if (!e && is_name(s->atom)) {
    Var *v = irmap_get(&p->scope, s->atom);
    if (!v) {
      fail(p, loc_of(p, s), "unknown variable '%s'", s->atom);
      return NULL;
    }
    e = ex_var(p->m->arena, v);
  } else if (!e) {
    fail(p, loc_of(p, s), "unexpected '%s'", s->atom);
    return NULL;
  }
  if (e)
    e->loc = loc_of(p, s);
  return e;
}

/* A name of a function, record or variable operand. */
static const char *expect_name(Parser *p, const Sexp *s, const char *what) {
  if (is_list(s) || !is_name(s->atom)) {
    fail(p, loc_of(p, s), "expected %s", what);
    return NULL;
  }
  return s->atom;
}

static const char *expect_binder(Parser *p, const Sexp *s, const char *what) {
  const char *name = expect_name(p, s, what);
  if (name && is_reserved(name)) {
    fail(p, loc_of(p, s), "'%s' is a constant, not a variable name", name);
    return NULL;
  }
  return name;
}

static bool is_atom_text(const Sexp *s, const char *text) {
  return s->atom && !strcmp(s->atom, text);
}

/* ---------------------------------------------------------------- types */

static Type *convert_type_at(Parser *p, const Sexp *s, int depth) {
  if (depth > MAX_TYPE_DEPTH) {
    fail(p, loc_of(p, s), "type nested too deeply");
    return NULL;
  }
  if (!is_list(s)) {
    if (!strcmp(s->atom, "f64"))
      return ty_f64();
    if (!strcmp(s->atom, "f32"))
      return ty_f32();
    IntKind k;
    if (intk_from_ir_name(s->atom, &k))
      return ty_intk(k);
    fail(p, loc_of(p, s), "unknown type '%s'", s->atom);
    return NULL;
  }
  if (s->n == 0 || is_list(s->items[0])) {
    fail(p, loc_of(p, s), "expected a type");
    return NULL;
  }
  const char *head = s->items[0]->atom;
  if (!strcmp(head, "lin")) {
    if (s->n != 3) {
      fail(p, loc_of(p, s), "'lin' takes a domain and a codomain type");
      return NULL;
    }
    Type *dom = convert_type_at(p, s->items[1], depth + 1);
    Type *cod = dom ? convert_type_at(p, s->items[2], depth + 1) : NULL;
    return cod ? ty_lin(p->m->arena, dom, cod) : NULL;
  }
  if (!strcmp(head, "array")) {
    if (s->n != 2) {
      fail(p, loc_of(p, s), "'array' takes an element type");
      return NULL;
    }
    Type *elem = convert_type_at(p, s->items[1], depth + 1);
    if (elem && elem->kind != TY_F64 && elem->kind != TY_F32 && elem->kind != TY_INT) {
      fail(p, loc_of(p, s->items[1]), "array elements must be f64, f32 or int");
      return NULL;
    }
    return elem ? ty_array(p->m->arena, elem) : NULL;
  }
  bool record = !strcmp(head, "record");
  if (!record && strcmp(head, "tuple")) {
    fail(p, loc_of(p, s), "unknown type constructor '%s'", head);
    return NULL;
  }
  const char *name = NULL;
  int first = record ? 2 : 1;
  if (record && s->n < 2) {
    fail(p, loc_of(p, s), "expected a record name");
    return NULL;
  }
  if (record && !(name = expect_name(p, s->items[1], "a record name")))
    return NULL;
  int n = s->n - first;
  Type **elems = arena_alloc(p->tmp, sizeof(Type *) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++)
    if (!(elems[i] = convert_type_at(p, s->items[first + i], depth + 1)))
      return NULL;
  return ty_record(p->m->arena, name, n, elems);
}

static Type *convert_type(Parser *p, const Sexp *s) {
  return convert_type_at(p, s, 0);
}

/* ---------------------------------------------------------------- forms */

typedef enum Operand {
  OP_NONE,
  OP_NAME,  /* call, record, lcall */
  OP_INDEX, /* get */
  OP_TYPE,  /* zero, lzero, lone, alloc; table (its element type) */
  OP_LOOP,  /* loops: nexprs operands, a binder list, a body */
} Operand;

typedef struct Form {
  const char *name;
  ExprKind kind;
  Operand operand;
  int nexprs; /* number of expression operands (before a loop's binders);
                 -1 for any */
  Prim op;    /* E_PRIM */
  const char *shape; /* OP_LOOP: the form as a message shows it */
} Form;

static const Form forms[] = {
    {"let", E_LET, OP_NONE, 2, P_COUNT, NULL},
    {"if", E_IF, OP_NONE, 3, P_COUNT, NULL},
    {"call", E_CALL, OP_NAME, -1, P_COUNT, NULL},
    {"tuple", E_TUPLE, OP_NONE, -1, P_COUNT, NULL},
    {"record", E_TUPLE, OP_NAME, -1, P_COUNT, NULL},
    {"get", E_GET, OP_INDEX, 1, P_COUNT, NULL},
    {"zero", E_ZERO, OP_TYPE, 0, P_COUNT, NULL},
    {"plus", E_PLUS, OP_NONE, 2, P_COUNT, NULL},
    {"lzero", E_LZERO, OP_TYPE, 0, P_COUNT, NULL},
    {"lone", E_LONE, OP_TYPE, 0, P_COUNT, NULL},
    {"lscale", E_LSCALE, OP_NONE, 1, P_COUNT, NULL},
    {"lcomp", E_LCOMP, OP_NONE, 2, P_COUNT, NULL},
    {"lvcat", E_LVCAT, OP_NONE, -1, P_COUNT, NULL},
    {"lhcat", E_LHCAT, OP_NONE, -1, P_COUNT, NULL},
    {"lplus", E_LPLUS, OP_NONE, 2, P_COUNT, NULL},
    {"ltrans", E_LTRANS, OP_NONE, 1, P_COUNT, NULL},
    {"lapply", E_LAPPLY, OP_NONE, 2, P_COUNT, NULL},
    {"lcall", E_LCALL, OP_NAME, -1, P_COUNT, NULL},
    {"index", E_INDEX, OP_NONE, 2, P_COUNT, NULL},
    {"len", E_LEN, OP_NONE, 1, P_COUNT, NULL},
    {"view", E_VIEW, OP_NONE, 2, P_COUNT, NULL},
    {"accum", E_ACCUM, OP_NONE, 3, P_COUNT, NULL},
    {"store", E_ACCUM, OP_NONE, 3, P_COUNT, NULL},
    {"alloc", E_ALLOC, OP_TYPE, 1, P_COUNT, NULL},
    {"update", E_UPDATE, OP_NONE, 3, P_COUNT, NULL},
    {"log-save", E_LOGSAVE, OP_NONE, 2, P_COUNT, NULL},
    {"log-pop", E_LOGPOP, OP_NONE, 0, P_COUNT, NULL},
    {"log-mark", E_LOGMARK, OP_NONE, 1, P_COUNT, NULL},
    {"log-undo", E_LOGUNDO, OP_NONE, 2, P_COUNT, NULL},
    {"log-push", E_LOGPUSH, OP_NONE, 1, P_COUNT, NULL},
    {"log-take", E_LOGTAKE, OP_TYPE, 0, P_COUNT, NULL},
    {"log-view", E_LOGVIEW, OP_NONE, 1, P_COUNT, NULL},
    {"log-final", E_LOGFINAL, OP_NONE, 0, P_COUNT, NULL},
    {"table", E_TABLE, OP_TYPE, -1, P_COUNT, NULL},
    {"build", E_BUILD, OP_LOOP, 1, P_COUNT, "(build N (I) BODY)"},
    {"sum", E_SUM, OP_LOOP, 1, P_COUNT, "(sum N (I) BODY)"},
    {"sum-from", E_SUM, OP_LOOP, 2, P_COUNT, "(sum-from N S0 (I) BODY)"},
    {"fold", E_FOLD, OP_LOOP, 2, P_COUNT, "(fold N S0 (I S) BODY)"},
    {"fold-save", E_FOLDSAVE, OP_LOOP, 2, P_COUNT, "(fold-save N S0 (I S) BODY)"},
    {"while", E_WHILE, OP_LOOP, 2, P_COUNT, "(while GO S0 (I S) BODY)"},
    {"while-save", E_WHILESAVE, OP_LOOP, 2, P_COUNT, "(while-save GO S0 (I S) BODY)"},
    {"scatter", E_SCATTER, OP_LOOP, 2, P_COUNT, "(scatter BASE N (I) BODY)"},
};

/* A form being converted: its operands are converted one by one onto the
 * result stack, and the node is built when the last one is done. */
typedef struct Pending {
  const Sexp *s;
  const Form *form; /* NULL until the form is started */
  int done;         /* expression operands converted so far */
  int index;        /* OP_INDEX operand */
  const char *name; /* OP_NAME operand */
  Type *type;       /* OP_TYPE operand */
  /* let and loops: the variables bound for the body once the operands
   * before it are done, and what their names meant before */
  int nbound;
  Var *bound[2];
  Var *shadowed[2];
} Pending;

typedef struct Converter {
  Parser *p;
  Pending *pending;
  int npending, cap_pending;
  Expr **results;
  int nresults, cap_results;
} Converter;

static void push_result(Converter *c, Expr *e) {
  if (c->nresults == c->cap_results)
    c->results = grow_array(c->results, &c->cap_results, sizeof(Expr *));
  c->results[c->nresults++] = e;
}

/* The forms and primitives by name, and the forms of the primitives. */
static void init_forms(Parser *p) {
  p->form_by_name.string_keys = true;
  for (size_t i = 0; i < sizeof forms / sizeof *forms; i++)
    irmap_put(&p->form_by_name, forms[i].name, (void *)&forms[i]);
  for (int op = 0; op < P_COUNT; op++) {
    const PrimInfo *pi = prim_info((Prim)op);
    p->prim_forms[op] = (Form){pi->name, E_PRIM, OP_NONE, pi->arity, (Prim)op, NULL};
    irmap_put(&p->form_by_name, pi->name, &p->prim_forms[op]);
  }
}

static bool lookup_form(Parser *p, const Sexp *s, Pending *out) {
  if (s->n == 0)
    return fail(p, loc_of(p, s), "expected an expression, got '()'");
  const Sexp *head = s->items[0];
  if (is_list(head))
    return fail(p, loc_of(p, head), "expected an operator name");
  out->form = irmap_get(&p->form_by_name, head->atom);
  if (!out->form)
    return fail(p, loc_of(p, head), "unknown primitive '%s'", head->atom);
  return true;
}

static int first_expr_item(const Form *f) {
  return f->operand == OP_NONE || f->operand == OP_LOOP ? 1 : 2;
}

static int loop_binders(const Form *f) {
  return f->kind == E_FOLD || f->kind == E_FOLDSAVE || f->kind == E_WHILE ||
                 f->kind == E_WHILESAVE
             ? 2
             : 1;
}

/* (build N (I) BODY) and the like: the binder list is a list of distinct
 * names. */
static bool check_loop_shape(Parser *p, const Form *form, const Sexp *s) {
  int want = 1 + form->nexprs + 2;
  if (s->n > want)
    return fail(p, loc_of(p, s->items[want]), "expected ')' after the body of '%s'",
                form->name);
  if (s->n < want)
    return fail(p, loc_of(p, s), "expected '%s'", form->shape);
  const Sexp *b = s->items[1 + form->nexprs];
  int nb = loop_binders(form);
  if (!is_list(b) || b->n != nb)
    return fail(p, loc_of(p, b), "expected a binder list '%s' in '%s'",
                nb == 1 ? "(i)" : "(i s)", form->shape);
  for (int i = 0; i < nb; i++) {
    if (!expect_binder(p, b->items[i], "a loop variable name"))
      return false;
    if (i == 1 && !strcmp(b->items[0]->atom, b->items[1]->atom))
      return fail(p, loc_of(p, b->items[1]), "loop variable '%s' bound twice",
                  b->items[1]->atom);
  }
  return true;
}

static bool check_let_shape(Parser *p, const Sexp *s) {
  if (s->n < 3)
    return fail(p, loc_of(p, s), "'let' takes a binding and a body");
  if (s->n > 3)
    return fail(p, loc_of(p, s->items[3]), "expected ')' after the body of 'let'");
  const Sexp *b = s->items[1];
  if (!is_list(b) || b->n != 2)
    return fail(p, loc_of(p, b), "expected a binding '(name expr)'");
  return expect_binder(p, b->items[0], "a variable name") != NULL;
}

/* Reads the operand that is not an expression (name, index or type). */
static bool read_operand(Parser *p, Pending *f) {
  const Sexp *o = f->s->items[1];
  switch (f->form->operand) {
  case OP_NONE:
    return true;
  case OP_NAME:
    f->name = expect_name(p, o, f->form->kind == E_TUPLE ? "a record name"
                                                        : "a function name");
    return f->name != NULL;
  case OP_INDEX: {
    char *end = NULL;
    long index = is_list(o) || !(o->atom[0] >= '0' && o->atom[0] <= '9')
                     ? -1
                     : strtol(o->atom, &end, 10);
    if (index < 0 || index > 1 << 30 || *end)
      return fail(p, loc_of(p, o), "expected a field index");
    f->index = (int)index;
    return true;
  }
  case OP_TYPE:
    f->type = convert_type(p, o);
    return f->type != NULL;
  case OP_LOOP:
    return true;
  }
  return true;
}

/* Checks the number of operands and reads the one that is not an
 * expression. */
static bool start_form(Converter *c, Pending *f) {
  Parser *p = c->p;
  const Sexp *s = f->s;
  if (f->form->kind == E_LET)
    return check_let_shape(p, s);
  if (f->form->operand == OP_LOOP)
    return check_loop_shape(p, f->form, s);
  int first = first_expr_item(f->form);
  if (s->n < first)
    return fail(p, loc_of(p, s), "'%s' needs %s", f->form->name,
                f->form->operand == OP_TYPE    ? "a type"
                : f->form->operand == OP_INDEX ? "a field index"
                                              : "a name");
  int nexprs = s->n - first;
  const char *plural = f->form->nexprs == 1 ? "" : "s";
  if (f->form->nexprs >= 0 && nexprs > f->form->nexprs)
    return fail(p, loc_of(p, s->items[first + f->form->nexprs]),
                "expected ')': '%s' takes %d operand%s, got %d", f->form->name,
                f->form->nexprs, plural, nexprs);
  if (f->form->nexprs >= 0 && nexprs < f->form->nexprs)
    return fail(p, loc_of(p, s), "'%s' takes %d operand%s, got %d", f->form->name,
                f->form->nexprs, plural, nexprs);
  return read_operand(p, f);
}

/* All expression operands are on the result stack: builds the node. */
static Expr *build_form(Converter *c, Pending *f) {
  Arena *a = c->p->m->arena;
  int n = f->s->n - first_expr_item(f->form);
  Expr **kids = n ? c->results + c->nresults - n : NULL;
  c->nresults -= n;
  switch (f->form->kind) {
  case E_PRIM:
    return ex_prim(a, f->form->op, n, kids);
  case E_CALL:
    return ex_call(a, f->name, n, kids);
  case E_LCALL: { /* residual, then the callee's array cotangent buffers */
    if (n < 1) /* the checker reports the missing residual */
      return ex_lcall(a, f->name, ex_tuple(a, 0, NULL));
    Expr *e = ex_lcall(a, f->name, kids[0]);
    if (n > 1) {
      Expr *full = ex_lin(a, E_LCALL, n, kids);
      full->name = e->name;
      return full;
    }
    return e;
  }
  case E_TUPLE:
    return ex_record(a, f->name, n, kids);
  case E_GET:
    return ex_get(a, f->index, kids[0]);
  case E_IF:
    return ex_if(a, kids[0], kids[1], kids[2]);
  case E_ZERO:
    return ex_zero(a, f->type);
  case E_LZERO:
  case E_LONE:
    return ex_lin_typed(a, f->form->kind, f->type);
  case E_PLUS:
    return ex_plus(a, kids[0], kids[1]);
  case E_INDEX:
    return ex_index(a, kids[0], kids[1]);
  case E_LEN:
    return ex_len(a, kids[0]);
  case E_VIEW:
    return ex_view(a, kids[0], kids[1]);
  case E_ACCUM:
    return strcmp(f->form->name, "store") == 0 ? ex_store(a, kids[0], kids[1], kids[2])
                                                : ex_accum(a, kids[0], kids[1], kids[2]);
  case E_ALLOC:
    return ex_alloc(a, f->type, kids[0]);
  case E_UPDATE:
    return ex_update(a, kids[0], kids[1], kids[2]);
  case E_LOGSAVE:
    return ex_logsave(a, kids[0], kids[1]);
  case E_LOGPOP:
    return ex_logpop(a);
  case E_LOGPUSH:
    return ex_logpush(a, kids[0]);
  case E_LOGTAKE:
    return ex_logtake(a, f->type);
  case E_LOGVIEW:
    return ex_logview(a, kids[0]);
  case E_LOGFINAL:
    return ex_logfinal(a);
  case E_LOGMARK: /* the checker tells a mark that is not an int constant */
  case E_LOGUNDO: {
    Expr *e = ex_lin(a, f->form->kind, n, kids);
    e->type = f->form->kind == E_LOGMARK ? ty_unit(a) : kids[1]->type;
    return e;
  }
  case E_TABLE: /* the checker tells a non-constant element */
    return ex_table(a, f->type, n, kids);
  default:
    return ex_lin(a, f->form->kind, n, kids);
  }
}

static void push_pending(Converter *c, const Sexp *s) {
  if (c->npending == c->cap_pending)
    c->pending = grow_array(c->pending, &c->cap_pending, sizeof(Pending));
  c->pending[c->npending++] = (Pending){.s = s};
}

static void bind_name(Parser *p, Pending *f, const char *name, Type *type) {
  Var *v = var_new(p->m->arena, name, type);
  f->bound[f->nbound] = v;
  f->shadowed[f->nbound++] = irmap_get(&p->scope, name);
  irmap_put(&p->scope, name, v);
}

/* Restores what the names bound by f meant before, innermost first. */
static void unbind_names(Parser *p, Pending *f) {
  for (int i = f->nbound - 1; i >= 0; i--)
    irmap_put(&p->scope, f->bound[i]->name, f->shadowed[i]);
}

/* The let's rhs is on the result stack: bind its name for the body. */
static void bind_let(Converter *c, Pending *f) {
  bind_name(c->p, f, f->s->items[1]->items[0]->atom, NULL);
}

static Expr *finish_let(Converter *c, Pending *f) {
  unbind_names(c->p, f);
  Expr *body = c->results[--c->nresults];
  Expr *rhs = c->results[--c->nresults];
  return ex_let(c->p->m->arena, f->bound[0], rhs, body);
}

/* The operands of a loop are on the result stack: bind i (and s). */
static void bind_loop(Converter *c, Pending *f) {
  const Sexp *b = f->s->items[1 + f->form->nexprs];
  bind_name(c->p, f, b->items[0]->atom, ty_int());
  if (b->n > 1)
    bind_name(c->p, f, b->items[1]->atom, NULL);
}

static Expr *finish_loop(Converter *c, Pending *f) {
  unbind_names(c->p, f);
  Arena *a = c->p->m->arena;
  Expr *body = c->results[--c->nresults];
  int n = f->form->nexprs;
  Expr **k = c->results + c->nresults - n;
  c->nresults -= n;
  Var *i = f->bound[0], *s = f->bound[1];
  switch (f->form->kind) {
  case E_BUILD:
    return ex_build(a, k[0], i, body);
  case E_SUM:
    return n == 2 ? ex_sum_from(a, k[0], k[1], i, body) : ex_sum(a, k[0], i, body);
  case E_FOLD:
    return ex_fold(a, k[0], k[1], i, s, body);
  case E_FOLDSAVE:
    return ex_foldsave(a, k[0], k[1], i, s, body);
  case E_WHILE:
    return ex_while(a, k[0], k[1], i, s, body);
  case E_WHILESAVE:
    return ex_whilesave(a, k[0], k[1], i, s, body);
  default:
    return ex_scatter(a, k[0], k[1], i, body);
  }
}

/* One step on the topmost pending form: start it, convert its next operand,
 * or build it. */
static bool step(Converter *c) {
  Pending *f = &c->pending[c->npending - 1];
  const Sexp *s = f->s;
  if (!is_list(s)) {
    Expr *e = convert_atom(c->p, s);
    if (!e)
      return false;
    c->npending--;
    push_result(c, e);
    return true;
  }
  if (f->done == 0 && !f->form &&
      (!lookup_form(c->p, s, f) || !start_form(c, f)))
    return false;
  const Sexp *next = NULL;
  if (f->form->kind == E_LET) {
    if (f->done == 1)
      bind_let(c, f);
    if (f->done < 2)
      next = f->done == 0 ? s->items[1]->items[1] : s->items[2];
  } else if (f->form->operand == OP_LOOP) {
    if (f->done == f->form->nexprs)
      bind_loop(c, f);
    if (f->done <= f->form->nexprs)
      next = s->items[f->done < f->form->nexprs ? 1 + f->done : 2 + f->form->nexprs];
  } else if (first_expr_item(f->form) + f->done < s->n) {
    next = s->items[first_expr_item(f->form) + f->done];
  }
  if (next) {
    f->done++;
    push_pending(c, next); /* may move f */
    return true;
  }
  Expr *e = f->form->kind == E_LET        ? finish_let(c, f)
            : f->form->operand == OP_LOOP ? finish_loop(c, f)
                                          : build_form(c, f);
  e->loc = loc_of(c->p, s);
  c->npending--;
  push_result(c, e);
  return true;
}

static Expr *convert_expr(Parser *p, const Sexp *s) {
  Converter c = {.p = p};
  push_pending(&c, s);
  bool ok = true;
  while (ok && c.npending > 0)
    ok = step(&c);
  /* On failure, undo the bindings of the lets and loops still open. */
  for (int i = c.npending - 1; i >= 0; i--)
    unbind_names(p, &c.pending[i]);
  Expr *e = ok ? c.results[0] : NULL;
  free(c.pending);
  free(c.results);
  return e;
}

/* ------------------------------------------------------------ functions */

/* Fills `outs` (s->n of them) with each parameter's marker: 0 none, 1
 * out, 2 inactive, 3 inout. */
static bool convert_params(Parser *p, const Sexp *s, PtrVec *params, int *outs) {
  if (!is_list(s))
    return fail(p, loc_of(p, s), "expected a parameter list");
  for (int i = 0; i < s->n; i++) {
    const Sexp *ps = s->items[i];
    if (!is_list(ps) || ps->n < 2 || ps->n > 3)
      return fail(p, loc_of(p, ps), "expected a parameter '(name type)'");
    if (ps->n == 3 && !is_atom_text(ps->items[2], "out") &&
        !is_atom_text(ps->items[2], "inout") && !is_atom_text(ps->items[2], "inactive"))
      return fail(p, loc_of(p, ps->items[2]), "expected 'out', 'inout', 'inactive' or ')' "
                                              "after the parameter type");
    outs[i] = ps->n < 3                                ? 0
              : is_atom_text(ps->items[2], "out")   ? 1
              : is_atom_text(ps->items[2], "inout") ? 3
                                                    : 2;
    const char *name = expect_binder(p, ps->items[0], "a parameter name");
    if (!name)
      return false;
    for (int j = 0; j < params->len; j++)
      if (!strcmp(((Var *)params->items[j])->name, name))
        return fail(p, loc_of(p, ps), "duplicate parameter '%s'", name);
    Type *t = convert_type(p, ps->items[1]);
    if (!t)
      return false;
    ptrvec_push(p->tmp, params, var_new(p->m->arena, name, t));
  }
  return true;
}

/* Parameter classes when a parameter is an array or marked out (an out
 * scalar is the checker's to reject), else none. */
static void set_classes(Parser *p, Func *f, const int *outs) {
  bool any = false;
  for (int i = 0; i < f->nparams; i++)
    any = any || outs[i] || f->params[i]->type->kind == TY_ARRAY;
  if (!any)
    return;
  f->classes = arena_alloc(p->m->arena, sizeof(ParamClass) * (size_t)f->nparams);
  for (int i = 0; i < f->nparams; i++) {
    Type *t = f->params[i]->type;
    f->classes[i] = outs[i] == 1              ? PARAM_OUT_ARRAY
                    : outs[i] == 3            ? PARAM_INOUT_ARRAY
                    : outs[i] == 2            ? PARAM_INACTIVE
                    : t->kind == TY_ARRAY     ? PARAM_IN_ARRAY
                    : type_is_active(t)       ? PARAM_ACTIVE_SCALAR
                                              : PARAM_INACTIVE;
  }
}

static bool convert_func(Parser *p, const Sexp *s) {
  bool head = is_list(s) && s->n > 0;
  bool custom = head && (is_atom_text(s->items[0], "custom") ||
                         is_atom_text(s->items[0], "custom-static"));
  bool is_static = head && (is_atom_text(s->items[0], "def-static") ||
                            is_atom_text(s->items[0], "custom-static"));
  if (!head || !(custom || is_static || is_atom_text(s->items[0], "def")))
    return fail(p, loc_of(p, s), "expected a function definition '(def ...)'");
  int want = custom ? 4 : 5; /* a custom function has no body */
  if (s->n != want)
    return fail(p, s->n > want ? loc_of(p, s->items[want]) : loc_of(p, s),
                custom ? "expected '(custom NAME TYPE (PARAMS...))'"
                       : "expected '(def NAME TYPE (PARAMS...) BODY)'");
  const char *name = expect_name(p, s->items[1], "a function name");
  if (!name)
    return false;
  if (module_find(p->m, name))
    return fail(p, loc_of(p, s->items[1]), "function '%s' is already defined", name);
  Type *ret = convert_type(p, s->items[2]);
  PtrVec params = {0};
  const Sexp *ps = s->items[3];
  int *outs = arena_alloc(p->tmp, sizeof(int) * (size_t)(ps->n + 1));
  if (!ret || !convert_params(p, ps, &params, outs))
    return false;
  Var **shadowed = arena_alloc(p->tmp, sizeof(Var *) * (size_t)(params.len + 1));
  for (int i = 0; i < params.len; i++) {
    Var *v = params.items[i];
    shadowed[i] = irmap_get(&p->scope, v->name);
    irmap_put(&p->scope, v->name, v);
  }
  Expr *body = custom ? NULL : convert_expr(p, s->items[4]);
  for (int i = params.len - 1; i >= 0; i--)
    irmap_put(&p->scope, ((Var *)params.items[i])->name, shadowed[i]);
  if (!body && !custom)
    return false;
  Func *f = module_add(p->m, name, params.len, (Var **)params.items, ret, body);
  f->loc = loc_of(p, s);
  f->is_static = is_static;
  f->is_custom = custom;
  set_classes(p, f, outs);
  return true;
}

bool parse_module(Module *m, const char *text, const char *file, Diag *err) {
  Parser p = {.m = m, .tmp = arena_new(), .err = err,
              .file = file ? arena_strdup(m->arena, file) : NULL,
              .scope = {.string_keys = true}};
  p.prim_forms = arena_alloc(p.tmp, sizeof(Form) * P_COUNT);
  init_forms(&p);
  int nfuncs = m->funcs.len;
  Sexp **top;
  int ntop;
  bool ok = read_all(&p, text, &top, &ntop);
  for (int i = 0; ok && i < ntop; i++)
    ok = convert_func(&p, top[i]);
  free(top);
  if (!ok)
    module_truncate(m, nfuncs); /* all or nothing */
  irmap_free(&p.scope);
  irmap_free(&p.form_by_name);
  arena_free(p.tmp);
  return ok;
}
