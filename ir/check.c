/* check.c: the type checker.
 *
 * Requires parameters with declared types and callees in the module.
 * Guarantees on success: every node of the body has its `type` set, every
 * let-bound Var has the type of its right-hand side, every variable is used
 * inside the scope of its binder, and the body has the declared result type.
 * `(zero T)` is the structural zero of a tangent type T, and also the default
 * value of any T without linear maps (the filler of unused residual slots).
 * The mode decides which constructs may appear:
 *   CHECK_SOURCE  no tangent-only construct (zero, plus, linear maps) and no
 *                 linear-map type anywhere;
 *   CHECK_AD      everything;
 *   CHECK_FINAL   no expression, parameter or result of a type containing a
 *                 linear map.
 * On failure `err` holds the first error, located at the innermost node
 * concerned (the function's location when the node has none), worded
 * "in 'f': ...".
 *
 * Typing of the linear-map terms (a map S -o T has type (lin S T)):
 *   (lzero L), (lone L)   L as written; lone needs L = (lin T T)
 *   (lscale k)            k : f64 or f32 gives (lin K K), K the type of k
 *   (lcomp m1 m2)         m2 : (lin A B), m1 : (lin B C) give (lin A C)
 *   (lvcat m...)          mi : (lin S Ti) give (lin S (tuple Ti...))
 *   (lhcat m...)          mi : (lin Si T) give (lin (tuple Si...) T)
 *   (lplus m1 m2)         both (lin S T) give (lin S T)
 *   (ltrans m)            m : (lin S T) gives (lin T S)
 *   (lapply m x)          m : (lin S T), x : S give T
 *   (lcall f r)           r : (record f$tape ...) gives
 *                         (lin dR (tuple dP...)): dR the tangent of f's result
 *                         ((tuple) if inactive), dP those of its active params
 *
 * The walk is an explicit post-order stack, so neither long let chains nor
 * deep nesting recurse. */
#include "ir.h"
#include "irmap.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct Checker {
  Module *m;
  Func *f;
  CheckMode mode;
  Diag *err;
  IrMap scope; /* Var* -> number of binders in scope, as a pointer */
} Checker;

static bool fail(Checker *c, const Expr *e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail(Checker *c, const Expr *e, const char *fmt, ...) {
  char msg[sizeof c->err->msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  Loc loc = e && e->loc.line ? e->loc : c->f->loc;
  diag_set(c->err, loc, "in '%s': %s", c->f->name, msg);
  return false;
}

/* Type names for messages: a few small rotating buffers, so that one
 * message can name several types. */
static const char *tname(const Type *t) {
  static char bufs[4][128];
  static unsigned next;
  char *buf = bufs[next++ % 4];
  char *s = type_to_string(t);
  size_t len = strlen(s);
  if (len >= sizeof bufs[0])
    snprintf(buf, sizeof bufs[0], "%.*s...", (int)sizeof bufs[0] - 4, s);
  else
    memcpy(buf, s, len + 1);
  free(s);
  return buf;
}

/* ---------------------------------------------------------------- types */

static bool is_numeric(const Type *t) {
  return t && (t->kind == TY_F64 || t->kind == TY_F32 || t->kind == TY_INT);
}

/* f64, f32, or a plain tuple of tangent types (unit included). */
static bool is_tangent_type(const Type *t) {
  if (!t)
    return false;
  if (type_is_float(t))
    return true;
  if (t->kind != TY_TUPLE || t->name)
    return false;
  for (int i = 0; i < t->n; i++)
    if (!is_tangent_type(t->elems[i]))
      return false;
  return true;
}

static bool contains_lin(const Type *t) {
  if (!t)
    return false;
  if (t->kind == TY_LIN)
    return true;
  for (int i = 0; t->kind == TY_TUPLE && i < t->n; i++)
    if (contains_lin(t->elems[i]))
      return true;
  return false;
}

static bool is_lin_kind(ExprKind k) { return k >= E_LZERO; }

/* ------------------------------------------------------------- scoping */

static intptr_t binders_in_scope(Checker *c, const Var *v) {
  return (intptr_t)irmap_get(&c->scope, v);
}

static void bind(Checker *c, Var *v) {
  irmap_put(&c->scope, v, (void *)(binders_in_scope(c, v) + 1));
}

static void unbind(Checker *c, Var *v) {
  irmap_put(&c->scope, v, (void *)(binders_in_scope(c, v) - 1));
}

/* -------------------------------------------------------- node shapes */

static int expected_nargs(const Expr *e) {
  switch (e->kind) {
  case E_CONST:
  case E_VAR:
  case E_ZERO:
  case E_LZERO:
  case E_LONE:
    return 0;
  case E_LET:
  case E_GET:
  case E_LSCALE:
  case E_LTRANS:
  case E_LCALL:
    return 1;
  case E_PLUS:
  case E_LCOMP:
  case E_LPLUS:
  case E_LAPPLY:
    return 2;
  case E_IF:
    return 3;
  case E_PRIM:
    return prim_info(e->op) ? prim_info(e->op)->arity : -1;
  case E_CALL:
  case E_TUPLE:
  case E_LVCAT:
  case E_LHCAT:
    return e->nargs; /* any */
  }
  return -1;
}

static const char *kind_name(const Expr *e) {
  static const char *const names[] = {
      [E_CONST] = "constant", [E_VAR] = "variable",  [E_LET] = "let",
      [E_PRIM] = "primitive", [E_CALL] = "call",     [E_TUPLE] = "tuple",
      [E_GET] = "get",        [E_IF] = "if",         [E_ZERO] = "zero",
      [E_PLUS] = "plus",      [E_LZERO] = "lzero",   [E_LONE] = "lone",
      [E_LSCALE] = "lscale",  [E_LCOMP] = "lcomp",   [E_LVCAT] = "lvcat",
      [E_LHCAT] = "lhcat",    [E_LPLUS] = "lplus",   [E_LTRANS] = "ltrans",
      [E_LAPPLY] = "lapply",  [E_LCALL] = "lcall",
  };
  if (e->kind == E_PRIM && prim_info(e->op))
    return prim_info(e->op)->name;
  return (unsigned)e->kind <= E_LCALL ? names[e->kind] : "?";
}

/* Checked before the children: the walk relies on the shape, the mode
 * forbids whole constructs. */
static bool check_shape(Checker *c, const Expr *e) {
  if ((unsigned)e->kind > E_LCALL)
    return fail(c, e, "malformed node of kind %d", (int)e->kind);
  int want = expected_nargs(e);
  if (e->kind == E_PRIM && want < 0)
    return fail(c, e, "unknown primitive number %d", (int)e->op);
  if (e->nargs != want)
    return fail(c, e, "'%s' takes %d operand%s, got %d", kind_name(e), want,
                want == 1 ? "" : "s", e->nargs);
  for (int i = 0; i < e->nargs; i++)
    if (!e->args[i])
      return fail(c, e, "'%s' has a missing operand", kind_name(e));
  if (e->kind == E_LET && (!e->var || !e->body))
    return fail(c, e, "malformed let");
  if (e->kind == E_VAR && !e->var)
    return fail(c, e, "variable node without a variable");
  bool tangent_only = e->kind == E_ZERO || e->kind == E_PLUS || is_lin_kind(e->kind);
  if (c->mode == CHECK_SOURCE && tangent_only)
    return fail(c, e, "tangent-only construct '%s' in source program",
                kind_name(e));
  return true;
}

/* ---------------------------------------------------------- primitives */

static bool check_prim(Checker *c, Expr *e) {
  const PrimInfo *pi = prim_info(e->op);
  Type *t = e->args[0]->type;
  for (int i = 1; i < e->nargs; i++)
    if (!type_eq(e->args[i]->type, t))
      return fail(c, e, "operands of '%s' have different types %s and %s",
                  pi->name, tname(t), tname(e->args[i]->type));
  switch (pi->cls) {
  case PC_ARITH:
    if (!is_numeric(t) || (e->op == P_MOD && t->kind != TY_INT))
      return fail(c, e, "'%s' needs %s operands, got %s", pi->name,
                  e->op == P_MOD ? "int" : "numeric", tname(t));
    e->type = t;
    return true;
  case PC_CMP:
    if (!is_numeric(t))
      return fail(c, e, "'%s' needs numeric operands, got %s", pi->name, tname(t));
    e->type = ty_int();
    return true;
  case PC_LOGIC:
    if (t->kind != TY_INT)
      return fail(c, e, "'%s' needs int operands, got %s", pi->name, tname(t));
    e->type = ty_int();
    return true;
  case PC_MATH:
    if (!type_is_float(t))
      return fail(c, e, "'%s' needs f64 or f32 operands, got %s", pi->name,
                  tname(t));
    e->type = t;
    return true;
  case PC_CAST:
    if (!is_numeric(t))
      return fail(c, e, "'%s' needs a numeric operand, got %s", pi->name,
                  tname(t));
    e->type = e->op == P_TO_F64 ? ty_f64() : e->op == P_TO_F32 ? ty_f32() : ty_int();
    return true;
  }
  return true;
}

/* ------------------------------------------------------- value forms */

static bool check_call(Checker *c, Expr *e) {
  Func *callee = e->name ? module_find(c->m, e->name) : NULL;
  if (!callee)
    return fail(c, e, "unknown function '%s'", e->name ? e->name : "<null>");
  if (e->nargs != callee->nparams)
    return fail(c, e, "'%s' takes %d argument%s, got %d", callee->name,
                callee->nparams, callee->nparams == 1 ? "" : "s", e->nargs);
  for (int i = 0; i < e->nargs; i++)
    if (!type_eq(e->args[i]->type, callee->params[i]->type))
      return fail(c, e->args[i], "argument %d of '%s' has type %s, expected %s",
                  i + 1, callee->name, tname(e->args[i]->type),
                  tname(callee->params[i]->type));
  if (!callee->ret)
    return fail(c, e, "'%s' has no result type", callee->name);
  e->type = callee->ret;
  return true;
}

static bool check_tuple(Checker *c, Expr *e) {
  Type **elems = arena_alloc(c->m->arena, sizeof(Type *) * (size_t)(e->nargs + 1));
  for (int i = 0; i < e->nargs; i++)
    elems[i] = e->args[i]->type;
  e->type = ty_record(c->m->arena, e->name, e->nargs, elems);
  return true;
}

static bool check_get(Checker *c, Expr *e) {
  Type *t = e->args[0]->type;
  if (t->kind != TY_TUPLE)
    return fail(c, e, "'get' of a value of type %s, which is not a tuple",
                tname(t));
  if (e->index < 0 || e->index >= t->n)
    return fail(c, e, "index %d out of range for %s", e->index, tname(t));
  e->type = t->elems[e->index];
  return true;
}

static bool check_if(Checker *c, Expr *e) {
  Type *cond = e->args[0]->type;
  if (cond->kind != TY_INT)
    return fail(c, e->args[0], "if condition has type %s, expected int",
                tname(cond));
  if (!type_eq(e->args[1]->type, e->args[2]->type))
    return fail(c, e, "if branches have different types %s and %s",
                tname(e->args[1]->type), tname(e->args[2]->type));
  e->type = e->args[1]->type;
  return true;
}

/* Besides the structural zero of a tangent type, `zero` is the default
 * value of any type: the reverse transformation fills the residual slots of
 * the branch not taken with it (ad/rev.c), and nothing ever reads them. A
 * linear map has no such value (lzero is the zero map). */
static bool check_zero(Checker *c, Expr *e) {
  if (!e->type)
    return fail(c, e, "zero without a type");
  if (contains_lin(e->type))
    return fail(c, e, "zero of %s, which is not a value type", tname(e->type));
  return true;
}

static bool check_plus(Checker *c, Expr *e) {
  Type *t = e->args[0]->type;
  if (!type_eq(t, e->args[1]->type))
    return fail(c, e, "operands of 'plus' have different types %s and %s",
                tname(t), tname(e->args[1]->type));
  if (!is_tangent_type(t))
    return fail(c, e, "'plus' of %s, which is not a tangent type", tname(t));
  e->type = t;
  return true;
}

static bool check_var(Checker *c, Expr *e) {
  if (binders_in_scope(c, e->var) <= 0)
    return fail(c, e, "variable '%s' used out of its scope", e->var->name);
  e->type = e->var->type;
  return true;
}

/* The rhs is checked: the variable takes its type, for the body. */
static bool bind_let(Checker *c, Expr *e) {
  Var *v = e->var;
  Type *t = e->args[0]->type;
  if (binders_in_scope(c, v) > 0 && !type_eq(v->type, t))
    return fail(c, e, "'%s' rebound with type %s inside its scope at type %s",
                v->name, tname(t), tname(v->type));
  v->type = t;
  bind(c, v);
  return true;
}

/* --------------------------------------------------------- linear maps */

static bool expect_lin(Checker *c, const Expr *e, const Expr *m) {
  if (m->type->kind != TY_LIN)
    return fail(c, e, "'%s' needs a linear map, got a value of type %s",
                kind_name(e), tname(m->type));
  return true;
}

/* The operands that must be maps: all but the factor of lscale, the
 * residual of lcall and the argument of lapply. */
static bool maps_where_needed(Checker *c, const Expr *e) {
  if (e->kind == E_LSCALE || e->kind == E_LCALL)
    return true;
  int nmaps = e->kind == E_LAPPLY ? 1 : e->nargs;
  for (int i = 0; i < nmaps; i++)
    if (!expect_lin(c, e, e->args[i]))
      return false;
  return true;
}

static Type *lcall_type(Checker *c, Expr *e) {
  Func *callee = e->name ? module_find(c->m, e->name) : NULL;
  if (!callee) {
    fail(c, e, "unknown function '%s'", e->name ? e->name : "<null>");
    return NULL;
  }
  Type *r = e->args[0]->type;
  char *tape = arena_printf(c->m->arena, "%s$tape", callee->name);
  if (r->kind != TY_TUPLE || !r->name || strcmp(r->name, tape)) {
    fail(c, e, "'lcall %s' needs a residual of type (record %s ...), got %s",
         callee->name, tape, tname(r));
    return NULL;
  }
  Arena *a = c->m->arena;
  Type **dps = arena_alloc(a, sizeof(Type *) * (size_t)(callee->nparams + 1));
  int n = 0;
  for (int i = 0; i < callee->nparams; i++)
    if (type_is_active(callee->params[i]->type))
      dps[n++] = type_tangent(a, callee->params[i]->type);
  Type *dret = type_is_active(callee->ret) ? type_tangent(a, callee->ret) : ty_unit(a);
  return ty_lin(a, dret, ty_tuple(a, n, dps));
}

/* (lvcat m...) when `vertical`, else (lhcat m...). */
static Type *cat_type(Checker *c, Expr *e, bool vertical) {
  if (e->nargs == 0) {
    fail(c, e, "'%s' needs at least one map", kind_name(e));
    return NULL;
  }
  Arena *a = c->m->arena;
  Type *shared = vertical ? e->args[0]->type->dom : e->args[0]->type->cod;
  Type **parts = arena_alloc(a, sizeof(Type *) * (size_t)e->nargs);
  for (int i = 0; i < e->nargs; i++) {
    Type *t = e->args[i]->type;
    if (!type_eq(vertical ? t->dom : t->cod, shared)) {
      fail(c, e->args[i], "'%s' of maps with different %s %s and %s",
           kind_name(e), vertical ? "domains" : "codomains", tname(shared),
           tname(vertical ? t->dom : t->cod));
      return NULL;
    }
    parts[i] = vertical ? t->cod : t->dom;
  }
  Type *tuple = ty_tuple(a, e->nargs, parts);
  return vertical ? ty_lin(a, shared, tuple) : ty_lin(a, tuple, shared);
}

static bool check_lscale(Checker *c, Expr *e) {
  Type *k = e->args[0]->type;
  if (!type_is_float(k))
    return fail(c, e, "'lscale' needs an f64 or f32 factor, got %s", tname(k));
  e->type = ty_lin(c->m->arena, k, k);
  return true;
}

static bool check_lin(Checker *c, Expr *e) {
  Arena *a = c->m->arena;
  if (!maps_where_needed(c, e))
    return false;
  Type *m0 = e->nargs ? e->args[0]->type : NULL;
  switch (e->kind) {
  case E_LZERO:
    if (!e->type || e->type->kind != TY_LIN)
      return fail(c, e, "'lzero' needs a (lin S T) type, got %s", tname(e->type));
    return true;
  case E_LONE:
    if (!e->type || e->type->kind != TY_LIN || !type_eq(e->type->dom, e->type->cod))
      return fail(c, e, "'lone' needs a (lin T T) type, got %s", tname(e->type));
    return true;
  case E_LCOMP: {
    Type *m1 = m0, *m2 = e->args[1]->type;
    if (!type_eq(m2->cod, m1->dom))
      return fail(c, e, "'lcomp' of incompatible maps: %s after %s", tname(m1),
                  tname(m2));
    e->type = ty_lin(a, m2->dom, m1->cod);
    return true;
  }
  case E_LVCAT:
  case E_LHCAT:
    e->type = cat_type(c, e, e->kind == E_LVCAT);
    return e->type != NULL;
  case E_LPLUS:
    if (!type_eq(m0, e->args[1]->type))
      return fail(c, e, "'lplus' of maps of different types %s and %s",
                  tname(m0), tname(e->args[1]->type));
    e->type = m0;
    return true;
  case E_LTRANS:
    e->type = ty_lin(a, m0->cod, m0->dom);
    return true;
  case E_LAPPLY:
    if (!type_eq(e->args[1]->type, m0->dom))
      return fail(c, e, "'lapply' of a map from %s to a value of type %s",
                  tname(m0->dom), tname(e->args[1]->type));
    e->type = m0->cod;
    return true;
  case E_LSCALE:
    return check_lscale(c, e);
  default:
    e->type = lcall_type(c, e);
    return e->type != NULL;
  }
}

/* ----------------------------------------------------------------- walk */

/* Types e, whose operands are typed. */
static bool finish(Checker *c, Expr *e) {
  bool ok = true;
  switch (e->kind) {
  case E_CONST:
    if (!is_numeric(e->type))
      ok = fail(c, e, "constant of type %s", tname(e->type));
    break;
  case E_VAR:
    ok = check_var(c, e);
    break;
  case E_LET:
    unbind(c, e->var);
    e->type = e->body->type;
    break;
  case E_PRIM:
    ok = check_prim(c, e);
    break;
  case E_CALL:
    ok = check_call(c, e);
    break;
  case E_TUPLE:
    ok = check_tuple(c, e);
    break;
  case E_GET:
    ok = check_get(c, e);
    break;
  case E_IF:
    ok = check_if(c, e);
    break;
  case E_ZERO:
    ok = check_zero(c, e);
    break;
  case E_PLUS:
    ok = check_plus(c, e);
    break;
  default:
    ok = check_lin(c, e);
    break;
  }
  if (ok && c->mode == CHECK_FINAL && contains_lin(e->type))
    ok = fail(c, e, "linear map left after elimination (%s of type %s)",
              kind_name(e), tname(e->type));
  if (ok && c->mode == CHECK_SOURCE && contains_lin(e->type))
    ok = fail(c, e, "linear map type %s in source program", tname(e->type));
  return ok;
}

static Expr *child(const Expr *e, int i) {
  return e->kind == E_LET && i == 1 ? e->body : e->args[i];
}

static int nchildren(const Expr *e) {
  return e->kind == E_LET ? 2 : e->nargs;
}

typedef struct Visit {
  Expr *e;
  int next; /* next child to visit */
} Visit;

static bool check_expr(Checker *c, Expr *root) {
  Visit *stack = NULL;
  int len = 0, cap = 0;
  bool ok = true;
  Expr *next = root;
  while (ok && (next || len > 0)) {
    if (next) {
      if (!(ok = check_shape(c, next)))
        break;
      if (len == cap) {
        cap = cap ? 2 * cap : 256;
        stack = realloc(stack, sizeof(Visit) * (size_t)cap);
        if (!stack) {
          fputs("chad: out of memory\n", stderr);
          abort();
        }
      }
      stack[len++] = (Visit){next, 0};
      next = NULL;
      continue;
    }
    Visit *v = &stack[len - 1];
    if (v->next < nchildren(v->e)) {
      if (v->e->kind == E_LET && v->next == 1 && !(ok = bind_let(c, v->e)))
        break;
      next = child(v->e, v->next++);
      continue;
    }
    ok = finish(c, v->e);
    len--;
  }
  free(stack); /* the scope dies with the checker */
  return ok;
}

/* ------------------------------------------------------------ functions */

static bool check_signature(Checker *c) {
  Func *f = c->f;
  for (int i = 0; i < f->nparams; i++) {
    Var *p = f->params[i];
    if (!p || !p->type)
      return fail(c, NULL, "parameter %d has no type", i + 1);
    if (c->mode == CHECK_FINAL && contains_lin(p->type))
      return fail(c, NULL, "linear map left after elimination (parameter '%s')",
                  p->name);
    if (c->mode == CHECK_SOURCE && contains_lin(p->type))
      return fail(c, NULL, "linear map type in source program (parameter '%s')",
                  p->name);
  }
  if (!f->ret)
    return fail(c, NULL, "no result type");
  if (c->mode != CHECK_AD && contains_lin(f->ret))
    return fail(c, NULL, c->mode == CHECK_FINAL
                             ? "linear map left after elimination (result type)"
                             : "linear map type in source program (result type)");
  if (!f->body)
    return fail(c, NULL, "no body");
  return true;
}

bool check_func(Module *m, Func *f, CheckMode mode, Diag *err) {
  Checker c = {.m = m, .f = f, .mode = mode, .err = err};
  bool ok = check_signature(&c);
  for (int i = 0; ok && i < f->nparams; i++)
    bind(&c, f->params[i]);
  ok = ok && check_expr(&c, f->body);
  if (ok && !type_eq(f->body->type, f->ret))
    ok = fail(&c, f->body, "body has type %s but '%s' returns %s",
              tname(f->body->type), f->name, tname(f->ret));
  irmap_free(&c.scope);
  return ok;
}

bool check_module(Module *m, CheckMode mode, Diag *err) {
  IrMap names = {.string_keys = true};
  bool ok = true;
  for (int i = 0; ok && i < m->funcs.len; i++) {
    Func *f = m->funcs.items[i];
    if (irmap_get(&names, f->name))
      ok = (diag_set(err, f->loc, "function '%s' is defined twice", f->name), false);
    irmap_put(&names, f->name, f);
    ok = ok && check_func(m, f, mode, err);
  }
  irmap_free(&names);
  return ok;
}
