/* check.c: the type checker.
 *
 * Requires parameters with declared types and callees in the module.
 * Guarantees on success: every node of the body has its `type` set, every
 * let-bound Var has the type of its right-hand side, every variable is used
 * inside the scope of its binder, and the body has the declared result type.
 * `(zero T)` is the structural zero of a tangent type T, and also the default
 * value of any T without linear maps (the filler of unused residual slots).
 * The mode decides which constructs may appear:
 *   CHECK_SOURCE  no tangent-only construct (zero, plus, linear maps), no
 *                 accum and no linear-map type anywhere;
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
 * Arrays and loops (a "number" is f64, f32 or int; n is always int; the
 * binders i : int and s scope over the body only):
 *   (index a i)           a : (array T), i : int give T
 *   (len a)               a : (array T) gives int
 *   (build n (i) b)       b : T gives (array T); b : (tuple T...) gives
 *                         (tuple (array T)...); T numbers
 *   (sum n (i) b)         b : a number or a tuple of numbers; gives b's type
 *   (fold n s0 (i s) b)   s : S the type of s0, b : S; gives S
 *   (fold-save n s0 (i s) b)  as fold, S with only numbers as leaves; gives
 *                         (tuple S (array f64))
 *   (scatter base n (i) b)  base : (array T) and b : (tuple int T), or
 *                         base : (tuple (array T)...) and
 *                         b : (tuple int (tuple T...)); gives base's type
 *   (accum buf i v)       buf : (array T) with T f64 or f32, i : int, v : T
 *                         give (tuple); not in CHECK_SOURCE
 *   (alloc A n)           A = (array T) with T a number, n : int give A
 *                         (zeroed; also in CHECK_SOURCE: C's calloc)
 *   (update a i v)        a : (array T), i : int, v : T give (array T);
 *                         consumes a (below)
 * Array elements are numbers; `plus` is not defined on arrays. A function
 * with parameter classes has arrays exactly at its PARAM_IN_ARRAY and
 * PARAM_OUT_ARRAY and PARAM_INOUT_ARRAY parameters, and with k > 0 output
 * (or in-out) parameters of types Y1..Yk it returns (tuple R Y1 ... Yk), R a number or (tuple).
 *
 * Linearity (DESIGN 8.1), checked after typing in functions that contain
 * an `update`: `(update a i v)` consumes the array a, and nothing evaluated
 * after it may refer to that array, under its name or any name that
 * aliases it (a let copy, a tuple holding it, a projection of one). Every
 * array version therefore has one live name and the emitter stores in
 * place. Precisely:
 *   - aliases are tracked per array leaf of a value: `let`, `get`, `tuple`
 *     and `if` (either branch) propagate them; alloc, build, scatter, call,
 *     table and update results are fresh arrays;
 *   - operands are evaluated left to right, and a value computed earlier in
 *     the same enclosing term (a tuple's first field, an index's array) is
 *     still held, so the update may not consume it either;
 *   - each branch of an `if` may consume; after the `if` an array either
 *     branch consumed is consumed;
 *   - a loop body may consume only arrays made inside it (and a fold's
 *     state): an array from outside would be consumed again by the next
 *     iteration. A fold whose body consumes its state consumes its initial
 *     state, from the first step on: its body may not read that array (the
 *     state is its memory, updated in place), nor return an array from
 *     outside the loop as the next state;
 *   - `len` of a consumed array is allowed: updates keep the length, and
 *     the length of an array is not read from its elements;
 * Errors are located at the offending reference (or update) and name the
 * update that consumed the array.
 *
 * The typing walk is an explicit post-order stack, so neither long let
 * chains nor deep nesting recurse; the linearity walk iterates on let
 * chains and recurses only into nested terms. */
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
  bool has_update; /* the body holds an update: linearity is checked */
  bool has_log;    /* the body holds undo-log terms: a reverse sweep, whose
                      restores make memory hold older versions again, so
                      that array names are read after updates (DESIGN 8.13) */
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
  return t && (t->kind == TY_LIN || (t->kind == TY_TUPLE && t->has_lin));
}

static bool is_lin_kind(ExprKind k) { return k >= E_LZERO && k <= E_LCALL; }

static bool is_array(const Type *t) { return t && t->kind == TY_ARRAY; }

static bool type_holds_only_arrays(const Type *t) {
  if (is_array(t))
    return true;
  if (!t || t->kind != TY_TUPLE || t->name)
    return false;
  for (int i = 0; i < t->n; i++)
    if (!type_holds_only_arrays(t->elems[i]))
      return false;
  return true;
}

/* A number or a (plain or named) tuple of numbers. */
static bool is_flat_numeric(const Type *t) {
  if (is_numeric(t))
    return true;
  if (!t || t->kind != TY_TUPLE)
    return false;
  for (int i = 0; i < t->n; i++)
    if (!is_numeric(t->elems[i]))
      return false;
  return true;
}

/* Numbers at every leaf, tuples nested to any depth. */
/* The state of a fold-save or while-save: numbers, saved per step, and
 * arrays of numbers, which the undo log restores instead (DESIGN 8.13). */
static bool has_numeric_leaves(const Type *t) {
  if (is_numeric(t) || (is_array(t) && is_numeric(t->elem)))
    return true;
  if (!t || t->kind != TY_TUPLE)
    return false;
  for (int i = 0; i < t->n; i++)
    if (!has_numeric_leaves(t->elems[i]))
      return false;
  return true;
}

/* Array element types are numbers (types written in the program, and those
 * built through the API, are checked with this). */
static bool well_formed(const Type *t) {
  if (!t)
    return false;
  switch (t->kind) {
  case TY_ARRAY:
    return is_numeric(t->elem);
  case TY_TUPLE:
    for (int i = 0; i < t->n; i++)
      if (!well_formed(t->elems[i]))
        return false;
    return true;
  case TY_LIN:
    return well_formed(t->dom) && well_formed(t->cod);
  default:
    return true;
  }
}

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
  if (e->kind == E_LCALL) /* the residual, then one buffer per active array */
    return e->nargs >= 1 ? e->nargs : 1;
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
  case E_LCALL: /* not reached: handled above */
  case E_LEN:
  case E_ALLOC:
  case E_BUILD:
    return 1;
  case E_SUM: /* with or without an initial value */
    return e->nargs == 2 ? 2 : 1;
  case E_PLUS:
  case E_LCOMP:
  case E_LPLUS:
  case E_LAPPLY:
  case E_INDEX:
  case E_VIEW:
  case E_FOLD:
  case E_FOLDSAVE:
  case E_WHILE:
  case E_WHILESAVE:
  case E_SCATTER:
    return 2;
  case E_IF:
  case E_ACCUM:
  case E_UPDATE:
    return 3;
  case E_LOGPOP:
    return 0;
  case E_LOGMARK:
    return 1;
  case E_LOGSAVE:
  case E_LOGUNDO:
    return 2;
  case E_LOGPUSH:
  case E_LOGVIEW:
    return 1;
  case E_LOGTAKE:
  case E_LOGFINAL:
    return 0;
  case E_PRIM:
    return prim_info(e->op) ? prim_info(e->op)->arity : -1;
  case E_CALL:
  case E_TUPLE:
  case E_LVCAT:
  case E_LHCAT:
  case E_TABLE: /* its elements */
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
      [E_LAPPLY] = "lapply",  [E_LCALL] = "lcall",   [E_INDEX] = "index",   [E_VIEW] = "view",
      [E_LEN] = "len",        [E_BUILD] = "build",   [E_SUM] = "sum",
      [E_FOLD] = "fold",      [E_FOLDSAVE] = "fold-save",
      [E_WHILE] = "while",    [E_WHILESAVE] = "while-save",
      [E_SCATTER] = "scatter", [E_ACCUM] = "accum", [E_ALLOC] = "alloc",
      [E_TABLE] = "table",    [E_UPDATE] = "update", [E_LOGSAVE] = "log-save",
      [E_LOGPOP] = "log-pop", [E_LOGMARK] = "log-mark", [E_LOGUNDO] = "log-undo",
      [E_LOGPUSH] = "log-push", [E_LOGTAKE] = "log-take",
      [E_LOGVIEW] = "log-view", [E_LOGFINAL] = "log-final",
  };
  if (e->kind == E_PRIM && prim_info(e->op))
    return prim_info(e->op)->name;
  return (unsigned)e->kind <= E_LOGFINAL ? names[e->kind] : "?";
}

static bool binds_state(const Expr *e) { return expr_binds_state(e); }

/* Checked before the children: the walk relies on the shape, the mode
 * forbids whole constructs. */
static bool check_shape(Checker *c, const Expr *e) {
  if ((unsigned)e->kind > E_LOGFINAL)
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
  if (expr_is_loop(e) &&
      (!e->var || !e->body || (binds_state(e) && (!e->var2 || e->var2 == e->var))))
    return fail(c, e, "malformed '%s' (binders or body missing)", kind_name(e));
  bool tangent_only = e->kind == E_ZERO || e->kind == E_PLUS || is_lin_kind(e->kind);
  if (c->mode == CHECK_SOURCE && tangent_only)
    return fail(c, e, "tangent-only construct '%s' in source program",
                kind_name(e));
  if (c->mode == CHECK_SOURCE && (e->kind == E_ACCUM || expr_is_log(e)))
    return fail(c, e, "derivative-only construct '%s' in source program",
                kind_name(e));
  if ((e->kind == E_ZERO || e->kind == E_LZERO || e->kind == E_LONE ||
       e->kind == E_ALLOC) && e->type &&
      !well_formed(e->type))
    return fail(c, e, "type %s has an array of non-numbers", tname(e->type));
  return true;
}

/* ---------------------------------------------------------- primitives */

/* ldexp(a, n) and C's pow(a, n): a float value scaled or raised by an int. */
static bool check_math_int(Checker *c, Expr *e) {
  const PrimInfo *pi = prim_info(e->op);
  Type *t = e->args[0]->type, *n = e->args[1]->type;
  if (!type_is_float(t) || !type_eq(n, ty_int()))
    return fail(c, e, "'%s' needs an f64 or f32 operand and an int one, got %s and %s",
                pi->name, tname(t), tname(n));
  e->type = t;
  return true;
}

static bool check_prim(Checker *c, Expr *e) {
  const PrimInfo *pi = prim_info(e->op);
  Type *t = e->args[0]->type;
  if (pi->helper && c->mode == CHECK_SOURCE)
    return fail(c, e, "'%s' is only for derivatives, not in a source program",
                pi->name);
  if (pi->cls == PC_MATH_INT)
    return check_math_int(c, e);
  if (pi->cls == PC_SHIFT) {
    for (int i = 0; i < e->nargs; i++)
      if (e->args[i]->type->kind != TY_INT)
        return fail(c, e, "'%s' needs integer operands, got %s", pi->name,
                    tname(e->args[i]->type));
    e->type = t;
    return true;
  }
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
  case PC_BITS:
    if (t->kind != TY_INT)
      return fail(c, e, "'%s' needs integer operands, got %s", pi->name, tname(t));
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
  case PC_MATH_INT: /* handled before the operand types are compared */
    return check_math_int(c, e);
  case PC_CAST:
    if (e->op == P_BITS_LLONG && t->kind != TY_F64)
      return fail(c, e, "'bits_llong' needs an f64 operand, got %s", tname(t));
    if (!is_numeric(t))
      return fail(c, e, "'%s' needs a numeric operand, got %s", pi->name,
                  tname(t));
    e->type = prim_cast_type(e->op);
    return true;
  case PC_SHIFT:
    return true; /* checked above */
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

/* A binder of e takes type t for the scope it opens. */
static bool bind_typed(Checker *c, Expr *e, Var *v, Type *t) {
  if (binders_in_scope(c, v) > 0 && !type_eq(v->type, t))
    return fail(c, e, "'%s' rebound with type %s inside its scope at type %s",
                v->name, tname(t), tname(v->type));
  v->type = t;
  bind(c, v);
  return true;
}

/* The rhs is checked: the variable takes its type, for the body. */
static bool bind_let(Checker *c, Expr *e) {
  return bind_typed(c, e, e->var, e->args[0]->type);
}

/* The operands of a loop are checked: i and s take their types. */
static bool bind_loop(Checker *c, Expr *e) {
  if (!bind_typed(c, e, e->var, ty_int()))
    return false;
  return !binds_state(e) || bind_typed(c, e, e->var2, e->args[1]->type);
}

static void unbind_loop(Checker *c, Expr *e) {
  if (binds_state(e))
    unbind(c, e->var2);
  unbind(c, e->var);
}

/* ------------------------------------------------------ arrays, loops */

/* Indices, lengths and loop counts are C ints: lowering converts others. */
static bool expect_int(Checker *c, const Expr *operand, const char *what) {
  if (!type_eq(operand->type, ty_int()))
    return fail(c, operand, "%s has type %s, expected int", what,
                tname(operand->type));
  return true;
}

static bool check_index(Checker *c, Expr *e) {
  Type *t = e->args[0]->type;
  if (!is_array(t))
    return fail(c, e, "'%s' of a value of type %s, which is not an array",
                kind_name(e), tname(t));
  if (e->kind == E_LEN) {
    e->type = ty_int();
    return true;
  }
  if (!expect_int(c, e->args[1], e->kind == E_VIEW ? "view offset" : "array index"))
    return false;
  e->type = e->kind == E_VIEW ? t : t->elem;
  return true;
}

static bool check_accum(Checker *c, Expr *e) {
  Type *buf = e->args[0]->type, *v = e->args[2]->type;
  if (!is_array(buf) || !type_is_float(buf->elem))
    return fail(c, e, "'accum' into a value of type %s; expected an array of "
                "f64 or f32", tname(buf));
  if (!expect_int(c, e->args[1], "array index"))
    return false;
  if (!type_eq(v, buf->elem))
    return fail(c, e->args[2], "'accum' of a value of type %s into %s",
                tname(v), tname(buf));
  e->type = ty_unit(c->m->arena);
  return true;
}

static bool check_alloc(Checker *c, Expr *e) {
  if (!is_array(e->type) || !is_numeric(e->type->elem))
    return fail(c, e, "'alloc' of %s; expected an array of numbers",
                tname(e->type));
  return expect_int(c, e->args[0], "array length");
}

static bool check_update(Checker *c, Expr *e) {
  Type *t = e->args[0]->type;
  if (!is_array(t))
    return fail(c, e, "'update' of a value of type %s, which is not an array", tname(t));
  if (!expect_int(c, e->args[1], "array index"))
    return false;
  if (!type_eq(e->args[2]->type, t->elem))
    return fail(c, e->args[2], "'update' stores a value of type %s into %s",
                tname(e->args[2]->type), tname(t));
  e->type = t;
  c->has_update = true;
  return true;
}

/* The undo log's terms: saves name an element of an array, marks are int
 * constants, an undo returns the arrays it is given. */
static bool check_log(Checker *c, Expr *e) {
  c->has_log = true;
  if (e->kind == E_LOGSAVE) {
    if (!is_array(e->args[0]->type))
      return fail(c, e, "'log-save' of a value of type %s, which is not an array",
                  tname(e->args[0]->type));
    if (!expect_int(c, e->args[1], "array index"))
      return false;
  }
  if ((e->kind == E_LOGMARK || e->kind == E_LOGUNDO) &&
      (e->args[0]->kind != E_CONST || !type_eq(e->args[0]->type, ty_int())))
    return fail(c, e, "'%s' needs an int constant mark", kind_name(e));
  if (e->kind == E_LOGPUSH && !is_numeric(e->args[0]->type) && !is_array(e->args[0]->type))
    return fail(c, e, "'log-push' of a value of type %s, which is not a number or an array",
                tname(e->args[0]->type));
  if (e->kind == E_LOGVIEW && !type_eq(e->args[0]->type, ty_int()))
    return fail(c, e, "'log-view' needs an int count");
  if (e->kind == E_LOGVIEW) {
    e->type = ty_array(c->m->arena, ty_f64());
  } else if (e->kind == E_LOGTAKE) {
    if (!e->type || (!is_numeric(e->type) && !is_array(e->type)))
      return fail(c, e, "'log-take' of a type that is not a number or an array");
  } else if (e->kind == E_LOGUNDO) {
    if (!type_holds_only_arrays(e->args[1]->type))
      return fail(c, e, "'log-undo' of a value of type %s, which is not an array "
                        "or a tuple of arrays", tname(e->args[1]->type));
    e->type = e->args[1]->type;
  } else {
    e->type = ty_unit(c->m->arena);
  }
  return true;
}

/* A table is an array of numbers whose elements are constants of its
 * element type: nothing else may hide in it, since every pass treats it
 * as a constant (no operand to substitute, differentiate or schedule). */
static bool check_table(Checker *c, Expr *e) {
  if (!is_array(e->type) || !is_numeric(e->type->elem))
    return fail(c, e, "'table' of %s; expected an array of numbers", tname(e->type));
  for (int i = 0; i < e->nargs; i++) {
    const Expr *x = e->args[i];
    if (x->kind != E_CONST || !type_eq(x->type, e->type->elem))
      return fail(c, x, "element %d of a 'table' of %s is not a constant of that type", i,
                  tname(e->type->elem));
  }
  return true;
}

/* What scatter adds at an index into `base`: T for (array T), (tuple T...)
 * for (tuple (array T)...); NULL for another type. */
static Type *scatter_value_type(Checker *c, Type *base) {
  if (is_array(base))
    return base->elem;
  if (base->kind != TY_TUPLE)
    return NULL;
  Type **elems = arena_alloc(c->m->arena, sizeof(Type *) * (size_t)(base->n + 1));
  for (int i = 0; i < base->n; i++) {
    if (!is_array(base->elems[i]))
      return NULL;
    elems[i] = base->elems[i]->elem;
  }
  return ty_tuple(c->m->arena, base->n, elems);
}

static bool check_scatter(Checker *c, Expr *e) {
  Type *base = e->args[0]->type, *body = e->body->type;
  Type *v = scatter_value_type(c, base);
  if (!v)
    return fail(c, e->args[0], "'scatter' base has type %s; expected an array "
                "or a tuple of arrays", tname(base));
  Type *want = ty_tuple2(c->m->arena, ty_int(), v);
  if (!type_eq(body, want))
    return fail(c, e->body, "'scatter' body has type %s; expected %s (an index "
                "and the value added there)", tname(body), tname(want));
  e->type = base;
  return true;
}

/* The body is typed and the binders are out of scope. */
static bool check_loop(Checker *c, Expr *e) {
  Arena *a = c->m->arena;
  int count = e->kind == E_SCATTER ? 1 : 0;
  bool is_while = e->kind == E_WHILE || e->kind == E_WHILESAVE;
  if (!expect_int(c, e->args[count], is_while ? "while's first condition" : "loop count"))
    return false;
  Type *body = e->body->type;
  switch (e->kind) {
  case E_BUILD:
    if (!is_flat_numeric(body))
      return fail(c, e->body, "'build' body has type %s; expected a number or "
                  "a tuple of numbers", tname(body));
    if (body->kind != TY_TUPLE) {
      e->type = ty_array(a, body);
    } else {
      Type **ts = arena_alloc(a, sizeof(Type *) * (size_t)(body->n + 1));
      for (int i = 0; i < body->n; i++)
        ts[i] = ty_array(a, body->elems[i]);
      e->type = ty_tuple(a, body->n, ts);
    }
    return true;
  case E_SUM:
    if (!is_flat_numeric(body))
      return fail(c, e->body, "'sum' body has type %s; expected a number or a "
                  "tuple of numbers", tname(body));
    if (e->nargs == 2 && !type_eq(e->args[1]->type, body))
      return fail(c, e->args[1], "'sum-from' starts from %s, but its body has type %s",
                  tname(e->args[1]->type), tname(body));
    e->type = body;
    return true;
  case E_FOLD:
  case E_FOLDSAVE: {
    Type *s = e->args[1]->type;
    if (e->kind == E_FOLDSAVE && !has_numeric_leaves(s))
      return fail(c, e->args[1], "'fold-save' state has type %s; expected "
                  "numbers, arrays or tuples of them", tname(s));
    if (!type_eq(body, s))
      return fail(c, e->body, "'%s' body has type %s, but the state has type %s",
                  kind_name(e), tname(body), tname(s));
    e->type = e->kind == E_FOLD ? s : ty_tuple2(a, s, ty_array(a, ty_f64()));
    return true;
  }
  case E_WHILE:
  case E_WHILESAVE: {
    Type *s = e->args[1]->type;
    if (e->kind == E_WHILESAVE && !has_numeric_leaves(s))
      return fail(c, e->args[1], "'while-save' state has type %s; expected "
                  "numbers, arrays or tuples of them", tname(s));
    Type *want = ty_tuple2(a, ty_int(), s);
    if (!type_eq(body, want))
      return fail(c, e->body, "'%s' body has type %s; expected %s (whether to go "
                  "on, and the next state)", kind_name(e), tname(body), tname(want));
    e->type = e->kind == E_WHILE
                  ? s
                  : ty_tuple(a, 3, (Type *[]){s, ty_array(a, ty_f64()), ty_int()});
    return true;
  }
  default:
    return check_scatter(c, e);
  }
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
  int n = 0, buffers = 1;
  /* Scalar cotangents are the map's value; those of active array
   * parameters are added into the buffers that follow the residual. */
  for (int i = 0; i < callee->nparams; i++) {
    Type *pt = callee->params[i]->type;
    if (!func_param_active(callee, i))
      continue;
    if (pt->kind != TY_ARRAY) {
      dps[n++] = type_tangent(a, pt);
      continue;
    }
    if (buffers >= e->nargs || !type_eq(e->args[buffers]->type, pt)) {
      fail(c, e, "'lcall %s' needs a cotangent buffer of type %s for parameter '%s'",
           callee->name, tname(pt), callee->params[i]->name);
      return NULL;
    }
    buffers++;
  }
  if (buffers != e->nargs) {
    fail(c, e, "'lcall %s' has %d operands, expected %d", callee->name, e->nargs, buffers);
    return NULL;
  }
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
  case E_INDEX:
  case E_LEN:
  case E_VIEW:
    ok = check_index(c, e);
    break;
  case E_ACCUM:
    ok = check_accum(c, e);
    break;
  case E_ALLOC:
    ok = check_alloc(c, e);
    break;
  case E_UPDATE:
    ok = check_update(c, e);
    break;
  case E_LOGSAVE:
  case E_LOGPOP:
  case E_LOGMARK:
  case E_LOGUNDO:
  case E_LOGPUSH:
  case E_LOGTAKE:
  case E_LOGVIEW:
  case E_LOGFINAL:
    ok = check_log(c, e);
    break;
  case E_TABLE:
    ok = check_table(c, e);
    break;
  case E_BUILD:
  case E_SUM:
  case E_FOLD:
  case E_FOLDSAVE:
  case E_WHILE:
  case E_WHILESAVE:
  case E_SCATTER:
    unbind_loop(c, e);
    ok = check_loop(c, e);
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

/* The operands, then the body of a let or loop. */
static Expr *child(const Expr *e, int i) {
  return (e->kind == E_LET || expr_is_loop(e)) && i == e->nargs ? e->body
                                                               : e->args[i];
}

static int nchildren(const Expr *e) {
  return e->kind == E_LET || expr_is_loop(e) ? e->nargs + 1 : e->nargs;
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
      if (expr_is_loop(v->e) && v->next == v->e->nargs && !(ok = bind_loop(c, v->e)))
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


/* ----------------------------------------------------------- linearity */

/* One array (a leaf of some value): made at loop depth `depth`, consumed
 * by the update `by` (NULL while live). */
typedef struct Root {
  const char *name; /* the variable that first named it, for messages */
  int depth;
  const Expr *by;
  /* While the body of a fold whose initial state it is is checked: that
   * fold, and the first reference to the root in the body (NULL: none).
   * If the body updates its state, the state is this root's memory from
   * the first step on, so no reference in the body may read it. */
  const Expr *watch, *seen;
} Root;

/* What a value may alias: per array leaf (in type order), the roots. */
typedef struct Alias {
  int n;
  PtrVec *leaves;
} Alias;

typedef struct Lin {
  Checker *c;
  Arena *a;
  IrMap vars;    /* Var* -> Alias* */
  PtrVec log;    /* Root* in order of consumption (undone for if branches) */
  PtrVec held;   /* Alias*: values computed and still held by enclosing terms */
  int depth;     /* loop nesting */
} Lin;

static int array_leaves(const Type *t) {
  if (!t)
    return 0;
  if (t->kind == TY_ARRAY)
    return 1;
  int n = 0;
  if (t->kind == TY_TUPLE)
    for (int i = 0; i < t->n; i++)
      n += array_leaves(t->elems[i]);
  return n;
}

static Alias *alias_new(Lin *l, int n) {
  Alias *al = arena_alloc(l->a, sizeof *al);
  al->n = n;
  al->leaves = arena_alloc(l->a, sizeof(PtrVec) * (size_t)(n ? n : 1));
  return al;
}

static void add_root(Lin *l, PtrVec *leaf, Root *r) {
  for (int i = 0; i < leaf->len; i++)
    if (leaf->items[i] == r)
      return;
  ptrvec_push(l->a, leaf, r);
}

static void add_roots(Lin *l, PtrVec *dst, const PtrVec *src) {
  for (int i = 0; i < src->len; i++)
    add_root(l, dst, src->items[i]);
}

/* An alias of t's shape whose leaves are the union of `parts`' leaves (all
 * of the same shape, NULL entries skipped). */
static Alias *alias_union(Lin *l, int n, Alias *x, Alias *y) {
  Alias *al = alias_new(l, n);
  for (int k = 0; k < n; k++) {
    if (x && k < x->n)
      add_roots(l, &al->leaves[k], &x->leaves[k]);
    if (y && k < y->n)
      add_roots(l, &al->leaves[k], &y->leaves[k]);
  }
  return al;
}

/* Every leaf of al gets a new root named after v as well: a let-bound
 * value is an array of its own when its producer made a fresh one, and
 * names the same roots as its source otherwise. */
static Alias *alias_named(Lin *l, Alias *al, const Type *t, const char *name) {
  int n = array_leaves(t);
  Alias *r = alias_new(l, n);
  for (int k = 0; k < n; k++) {
    if (al && k < al->n)
      add_roots(l, &r->leaves[k], &al->leaves[k]);
    Root *root = arena_alloc(l->a, sizeof *root);
    root->name = name;
    root->depth = l->depth;
    add_root(l, &r->leaves[k], root);
  }
  return r;
}

/* The leaves of field `index` of a tuple of type t. */
static Alias *alias_field(Lin *l, Alias *al, const Type *t, int index) {
  if (!al || !t || t->kind != TY_TUPLE || index < 0 || index >= t->n)
    return NULL;
  int first = 0;
  for (int i = 0; i < index; i++)
    first += array_leaves(t->elems[i]);
  int n = array_leaves(t->elems[index]);
  Alias *r = alias_new(l, n);
  for (int k = 0; k < n && first + k < al->n; k++)
    add_roots(l, &r->leaves[k], &al->leaves[first + k]);
  return r;
}

static const Root *consumed_root(const Alias *al) {
  for (int k = 0; al && k < al->n; k++)
    for (int i = 0; i < al->leaves[k].len; i++) {
      const Root *r = al->leaves[k].items[i];
      if (r->by)
        return r;
    }
  return NULL;
}

static bool use_after_consume(Lin *l, const Expr *at, const char *name, const Root *r) {
  const char *what = r->by->kind == E_UPDATE ? "update" : kind_name(r->by);
  if (r->by->loc.line)
    return fail(l->c, at, "'%s' is used after the %s at %d:%d consumed %s'%s'", name, what,
                r->by->loc.line, r->by->loc.col, strcmp(name, r->name) ? "the array of " : "",
                r->name);
  return fail(l->c, at, "'%s' is used after an %s consumed %s'%s'", name, what,
              strcmp(name, r->name) ? "the array of " : "", r->name);
}

/* A reference to v (or, with field >= 0, to that field of v). */
static Alias *lin_var(Lin *l, const Expr *at, Var *v, int field, bool *ok) {
  Alias *al = irmap_get(&l->vars, v);
  if (field >= 0)
    al = alias_field(l, al, v->type, field);
  const Root *r = consumed_root(al);
  if (r)
    *ok = use_after_consume(l, at, v->name, r);
  for (int k = 0; al && k < al->n; k++)
    for (int i = 0; i < al->leaves[k].len; i++) {
      Root *w = al->leaves[k].items[i];
      if (w->watch && !w->seen)
        w->seen = at;
    }
  return al;
}

/* Marks al's roots consumed by the update (or fold) `by`. */
static bool consume(Lin *l, const Expr *by, const Alias *al) {
  for (int k = 0; al && k < al->n; k++)
    for (int i = 0; i < al->leaves[k].len; i++) {
      Root *r = al->leaves[k].items[i];
      if (r->depth < l->depth)
        return fail(l->c, by, "'%s' inside a loop consumes '%s', which is defined outside "
                    "it (the next iteration would write it again)", kind_name(by), r->name);
      for (int h = 0; h < l->held.len; h++) {
        const Alias *held = l->held.items[h];
        for (int hk = 0; hk < held->n; hk++)
          for (int hi = 0; hi < held->leaves[hk].len; hi++)
            if (held->leaves[hk].items[hi] == r)
              return fail(l->c, by, "'%s' consumes '%s' while an enclosing term still "
                          "holds its earlier value", kind_name(by), r->name);
      }
      if (!r->by) {
        r->by = by;
        ptrvec_push(l->a, &l->log, r);
      }
    }
  return true;
}

static Alias *lin_expr(Lin *l, Expr *e, bool *ok);

/* The operands of e in order, each held while the later ones run. */
static void lin_operands(Lin *l, Expr *e, Alias **vals, bool *ok) {
  int held = l->held.len;
  for (int i = 0; i < e->nargs && *ok; i++) {
    vals[i] = lin_expr(l, e->args[i], ok);
    if (vals[i])
      ptrvec_push(l->a, &l->held, vals[i]);
  }
  l->held.len = held;
}

static Alias *lin_if(Lin *l, Expr *e, bool *ok) {
  lin_expr(l, e->args[0], ok);
  int mark = l->log.len;
  Alias *t = *ok ? lin_expr(l, e->args[1], ok) : NULL;
  /* the else branch starts from the state before the then branch */
  int nthen = l->log.len - mark;
  Root **then_roots = arena_alloc(l->a, sizeof(Root *) * (size_t)(nthen ? nthen : 1));
  const Expr **then_by = arena_alloc(l->a, sizeof(Expr *) * (size_t)(nthen ? nthen : 1));
  for (int i = 0; i < nthen; i++) {
    then_roots[i] = l->log.items[mark + i];
    then_by[i] = then_roots[i]->by;
    then_roots[i]->by = NULL;
  }
  l->log.len = mark;
  Alias *f = *ok ? lin_expr(l, e->args[2], ok) : NULL;
  for (int i = 0; i < nthen; i++) /* consumed by either branch: consumed after */
    if (!then_roots[i]->by) {
      then_roots[i]->by = then_by[i];
      ptrvec_push(l->a, &l->log, then_roots[i]);
    }
  /* A branch that leaves an array alone yields it, the other yields the
   * version it made by consuming it: either way the result is the one live
   * version after the if, not a use of what a branch consumed (`if c then
   * (update a i v) else a`). */
  Alias *r = alias_union(l, array_leaves(e->type), t, f);
  for (int k = 0; r && k < r->n; k++) {
    PtrVec *leaf = &r->leaves[k];
    int kept = 0;
    for (int i = 0; i < leaf->len; i++)
      if (!((Root *)leaf->items[i])->by)
        leaf->items[kept++] = leaf->items[i];
    leaf->len = kept;
  }
  return r;
}

/* The roots of al made outside the current loop body. */
static Alias *outer_part(Lin *l, Alias *al) {
  if (!al)
    return NULL;
  Alias *r = alias_new(l, al->n);
  for (int k = 0; k < al->n; k++)
    for (int i = 0; i < al->leaves[k].len; i++)
      if (((Root *)al->leaves[k].items[i])->depth < l->depth)
        add_root(l, &r->leaves[k], al->leaves[k].items[i]);
  return r;
}

static bool any_consumed(const Alias *al) { return consumed_root(al) != NULL; }

static bool any_root(const Alias *al) {
  for (int k = 0; al && k < al->n; k++)
    if (al->leaves[k].len)
      return true;
  return false;
}

static Alias *lin_loop(Lin *l, Expr *e, bool *ok) {
  Alias *vals[2] = {0};
  lin_operands(l, e, vals, ok);
  if (!*ok)
    return NULL;
  l->depth++;
  void *old_i = irmap_get(&l->vars, e->var), *old_s = NULL;
  Alias *state = NULL;
  if (e->var2) {
    old_s = irmap_get(&l->vars, e->var2);
    state = alias_named(l, NULL, e->var2->type, e->var2->name);
    irmap_put(&l->vars, e->var2, state);
  }
  irmap_put(&l->vars, e->var, NULL);
  /* the initial state's roots, watched for references in the body */
  PtrVec watched = {0}, saved = {0};
  for (int k = 0; state && vals[1] && k < vals[1]->n; k++)
    for (int i = 0; i < vals[1]->leaves[k].len; i++) {
      Root *r = vals[1]->leaves[k].items[i];
      ptrvec_push(l->a, &watched, r);
      ptrvec_push(l->a, &saved, (void *)r->watch);
      ptrvec_push(l->a, &saved, (void *)r->seen);
      r->watch = e;
      r->seen = NULL;
    }
  Alias *body = lin_expr(l, e->body, ok);
  bool consumes_state = *ok && state && any_consumed(state);
  for (int i = 0; i < watched.len; i++) {
    Root *r = watched.items[i];
    if (consumes_state && r->seen && r->watch == e && *ok)
      *ok = fail(l->c, r->seen, "'%s' is the initial state of the %s at %d:%d, which updates "
                 "it in place: its body may not read it", r->name, kind_name(e), e->loc.line,
                 e->loc.col);
    r->watch = saved.items[2 * i];
    r->seen = saved.items[2 * i + 1];
  }
  Alias *escaping = outer_part(l, body);
  if (consumes_state && any_root(escaping))
    *ok = fail(l->c, e->body, "the body of this '%s' updates its state but returns an "
               "array from outside the loop as the next state", kind_name(e));
  l->depth--;
  irmap_put(&l->vars, e->var, old_i);
  if (e->var2)
    irmap_put(&l->vars, e->var2, old_s);
  if (!*ok || !state)
    return NULL; /* build, sum, scatter: fresh arrays or numbers */
  if (consumes_state) {
    *ok = consume(l, e, vals[1]);
    return NULL;
  }
  /* the result is the initial state or what the body returned from
   * outside; fold-save's trailing tape leaf is fresh */
  return alias_union(l, array_leaves(e->type), vals[1], escaping);
}

/* A let chain, iteratively; the bindings are undone at its end. */
static Alias *lin_let(Lin *l, Expr *e, bool *ok) {
  PtrVec vars = {0}, olds = {0};
  for (; e->kind == E_LET && *ok; e = e->body) {
    Alias *rhs = lin_expr(l, e->args[0], ok);
    ptrvec_push(l->a, &vars, e->var);
    ptrvec_push(l->a, &olds, irmap_get(&l->vars, e->var));
    irmap_put(&l->vars, e->var,
              array_leaves(e->var->type) ? alias_named(l, rhs, e->var->type, e->var->name)
                                         : NULL);
  }
  Alias *r = *ok ? lin_expr(l, e, ok) : NULL;
  for (int i = vars.len - 1; i >= 0; i--)
    irmap_put(&l->vars, vars.items[i], olds.items[i]);
  return r;
}

static Alias *lin_expr(Lin *l, Expr *e, bool *ok) {
  if (!*ok)
    return NULL;
  switch (e->kind) {
  case E_VAR:
    return lin_var(l, e, e->var, -1, ok);
  case E_GET:
    if (e->args[0]->kind == E_VAR) /* a projection uses only its field */
      return lin_var(l, e, e->args[0]->var, e->index, ok);
    return alias_field(l, lin_expr(l, e->args[0], ok), e->args[0]->type, e->index);
  case E_LET:
    return lin_let(l, e, ok);
  case E_LEN:
    if (e->args[0]->kind == E_VAR)
      return NULL; /* reads no element: every version has the same length */
    break;
  case E_IF:
    return lin_if(l, e, ok);
  case E_BUILD:
  case E_SUM:
  case E_FOLD:
  case E_FOLDSAVE:
  case E_WHILE:
  case E_WHILESAVE:
  case E_SCATTER:
    return lin_loop(l, e, ok);
  default:
    break;
  }
  Alias **vals = arena_alloc(l->a, sizeof(Alias *) * (size_t)(e->nargs ? e->nargs : 1));
  lin_operands(l, e, vals, ok);
  if (!*ok)
    return NULL;
  int n = array_leaves(e->type);
  switch (e->kind) {
  case E_UPDATE:
    *ok = consume(l, e, vals[0]);
    return NULL; /* a new version: named by its binder */
  case E_TUPLE: {
    Alias *al = alias_new(l, n);
    for (int i = 0, k = 0; i < e->nargs; i++)
      for (int j = 0; j < array_leaves(e->args[i]->type); j++, k++)
        if (vals[i] && j < vals[i]->n)
          add_roots(l, &al->leaves[k], &vals[i]->leaves[j]);
    return al;
  }
  case E_CALL:
  case E_ALLOC:
  case E_TABLE:
  case E_INDEX:
  case E_LEN:
  case E_ACCUM:
  case E_PRIM:
  case E_CONST:
  case E_ZERO:
    return NULL; /* numbers, or fresh arrays */
  default: {
    /* anything else that yields arrays may alias any of its operands */
    Alias *al = n ? alias_new(l, n) : NULL;
    for (int i = 0; al && i < e->nargs; i++)
      for (int k = 0; vals[i] && k < vals[i]->n; k++)
        for (int j = 0; j < n; j++)
          add_roots(l, &al->leaves[j], &vals[i]->leaves[k]);
    return al;
  }
  }
}

static bool check_linearity(Checker *c) {
  Arena *a = arena_new();
  Lin l = {.c = c, .a = a};
  for (int i = 0; i < c->f->nparams; i++) {
    Var *p = c->f->params[i];
    if (array_leaves(p->type))
      irmap_put(&l.vars, p, alias_named(&l, NULL, p->type, p->name));
  }
  bool ok = true;
  lin_expr(&l, c->f->body, &ok);
  irmap_free(&l.vars);
  arena_free(a);
  return ok;
}

/* ------------------------------------------------------------ functions */

/* Classes agree with the parameter types; outputs shape the result. */
static bool check_classes(Checker *c) {
  Func *f = c->f;
  int k = 0;
  for (int i = 0; i < f->nparams; i++) {
    Var *p = f->params[i];
    ParamClass pc = func_param_class(f, i);
    bool written = func_param_written(f, i);
    bool array_class = pc == PARAM_IN_ARRAY || written;
    if (written && !is_array(p->type))
      return fail(c, NULL, "output parameter '%s' has type %s; expected an array",
                  p->name, tname(p->type));
    if (f->classes && pc != PARAM_INACTIVE && array_class != is_array(p->type))
      return fail(c, NULL, "parameter '%s' of type %s has the class of %s",
                  p->name, tname(p->type), array_class ? "an array" : "a scalar");
    k += written;
  }
  if (k == 0)
    return true;
  Type *r = f->ret;
  bool ok = r->kind == TY_TUPLE && !r->name && r->n == k + 1 &&
            (is_numeric(r->elems[0]) || type_is_unit(r->elems[0]));
  for (int i = 0, j = 1; ok && i < f->nparams; i++)
    if (func_param_written(f, i))
      ok = type_eq(r->elems[j++], f->params[i]->type);
  if (ok)
    return true;
  char want[256] = "";
  size_t len = 0;
  for (int i = 0; i < f->nparams && len < sizeof want; i++)
    if (func_param_written(f, i))
      len += (size_t)snprintf(want + len, sizeof want - len, " %s",
                              tname(f->params[i]->type));
  return fail(c, NULL, "result type %s; with %d output array%s it must be "
              "(tuple R%s), R a number or (tuple)", tname(r), k, k == 1 ? "" : "s",
              want);
}

static bool check_signature(Checker *c) {
  Func *f = c->f;
  for (int i = 0; i < f->nparams; i++) {
    Var *p = f->params[i];
    if (!p || !p->type)
      return fail(c, NULL, "parameter %d has no type", i + 1);
    if (!well_formed(p->type))
      return fail(c, NULL, "parameter '%s' has type %s, an array of non-numbers",
                  p->name, tname(p->type));
    if (c->mode == CHECK_FINAL && contains_lin(p->type))
      return fail(c, NULL, "linear map left after elimination (parameter '%s')",
                  p->name);
    if (c->mode == CHECK_SOURCE && contains_lin(p->type))
      return fail(c, NULL, "linear map type in source program (parameter '%s')",
                  p->name);
  }
  if (!f->ret)
    return fail(c, NULL, "no result type");
  if (!well_formed(f->ret))
    return fail(c, NULL, "result type %s has an array of non-numbers", tname(f->ret));
  if (!check_classes(c))
    return false;
  if (c->mode != CHECK_AD && contains_lin(f->ret))
    return fail(c, NULL, c->mode == CHECK_FINAL
                             ? "linear map left after elimination (result type)"
                             : "linear map type in source program (result type)");
  if (!f->body && !f->is_custom)
    return fail(c, NULL, "no body");
  if (f->body && f->is_custom)
    return fail(c, NULL, "custom function with a body");
  return true;
}

bool check_func(Module *m, Func *f, CheckMode mode, Diag *err) {
  Checker c = {.m = m, .f = f, .mode = mode, .err = err};
  bool ok = check_signature(&c);
  for (int i = 0; ok && i < f->nparams; i++)
    bind(&c, f->params[i]);
  if (f->is_custom) { /* a signature only: the user wrote the rest */
    irmap_free(&c.scope);
    return ok;
  }
  ok = ok && check_expr(&c, f->body);
  ok = ok && (!c.has_update || c.has_log || check_linearity(&c));
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
