/* fill.c: a cotangent buffer whose first use sets every element, built
 * with those elements (DESIGN 8.77).
 *
 * Requires: a reverse derivative in ANF with unique binders, typed (after
 * CSE and DCE). Guarantees: the same values and effects, in ANF with
 * unique binders, where for a pair in one block
 *
 *   let x = alloc n in ... let l = sum m (i) <step> in ...
 *
 * such that x is a buffer of cotangents (E_ALLOC's `cotangents`), l is the
 * first binding after it to mention x, m is n (the same atom, or lengths
 * of one array), and l's step is pure bindings that do not mention x and
 * one `accum x i v` (or `store x i v`) at the counter, the pair is
 *
 *   ... let x = build m (i) <step's bindings; v> in let l = () in ...
 *
 * The buffer held zeros, whose sign nothing depends on (8.66), so the sum
 * left v in each element exactly as the build does.
 *
 * Why: the reverse sweep starts an output array's cotangent buffer from
 * the caller's seed, `x_b[i] += y_b[i]` into a buffer just zeroed: a
 * zeroing pass and an accumulating pass the C compiler vectorises with
 * run-time overlap checks, where a copy is one pass it turns into memcpy
 * (ADBench's lstm_predict_rev: 283 bytes of its code, and a pass over
 * the array, for every call). */
#include "ad/ad.h"
#include "ad/util.h"

typedef struct Fill {
  Arena *a;
  VarMap defs; /* Var -> its right-hand side, across the function */
} Fill;

/* Is rhs a fresh buffer of cotangents of floating type? */
static bool cotangent_buffer(const Expr *rhs) {
  return rhs->kind == E_ALLOC && rhs->cotangents && rhs->type && rhs->type->kind == TY_ARRAY &&
         type_is_float(rhs->type->elem);
}

/* Do the atoms n and m give one length: the same atom, or the lengths of
 * one array? */
static bool same_length(const Fill *s, const Expr *n, const Expr *m) {
  if (atom_eq(n, m))
    return true;
  if (n->kind != E_VAR || m->kind != E_VAR)
    return false;
  const Expr *dn = varmap_get(&s->defs, n->var), *dm = varmap_get(&s->defs, m->var);
  return dn && dm && dn->kind == E_LEN && dm->kind == E_LEN && atom_eq(dn->args[0], dm->args[0]);
}

/* A step binding that may run in a build's body: pure and loop-free. */
static bool pure_binding(const Expr *r) {
  switch (r->kind) {
  case E_CONST:
  case E_VAR:
  case E_PRIM:
  case E_GET:
  case E_TUPLE:
  case E_INDEX:
  case E_LEN:
  case E_VIEW:
    return true;
  default:
    return expr_is_select(r);
  }
}

/* Is the atom e the unit value, or a variable the step bound to it? */
static bool is_unit(const Bindings *b, const Expr *e) {
  if (e->kind == E_TUPLE)
    return e->nargs == 0;
  if (e->kind != E_VAR)
    return false;
  for (int k = 0; k < b->vars.len; k++)
    if (b->vars.items[k] == e->var) {
      const Expr *r = b->rhss.items[k];
      return r->kind == E_TUPLE && r->nargs == 0;
    }
  return false;
}

/* The body of a build giving the element the sum `loop` sets in buffer x,
 * or NULL when its step is not pure bindings and one accumulation or
 * store into x at the counter. */
static Expr *element_of(Fill *s, const Expr *loop, const Var *x) {
  Bindings b = {0}, out = {0};
  bindings_of(s->a, loop->body, &b);
  Expr *value = NULL;
  Var *set = NULL;
  for (int k = 0; k < b.vars.len; k++) {
    Expr *r = b.rhss.items[k];
    if (r->kind == E_ACCUM && r->args[0]->kind == E_VAR && r->args[0]->var == x) {
      if (value || r->args[1]->kind != E_VAR || r->args[1]->var != loop->var ||
          expr_mentions(r->args[2], x))
        return NULL;
      value = r->args[2];
      set = b.vars.items[k];
      continue;
    }
    if (!pure_binding(r) || expr_mentions(r, x) || (set && expr_mentions(r, set)))
      return NULL;
    bindings_push(s->a, &out, b.vars.items[k], r);
  }
  if (!value || !is_unit(&b, b.result))
    return NULL;
  return bindings_build(s->a, &out, value);
}

/* The binding after k that first mentions b's variable k, or -1. */
static int first_user(const Bindings *b, int k) {
  for (int j = k + 1; j < b->vars.len; j++)
    if (expr_mentions(b->rhss.items[j], b->vars.items[k]))
      return j;
  return -1;
}

static Expr *fill_block(Fill *s, Expr *e);
static Expr *fill_block_of(void *ctx, Expr *block) { return fill_block(ctx, block); }

/* Binding k, a buffer, built by the sum at binding j when it fills it. */
static bool fill_pair(Fill *s, Bindings *b, int k) {
  Expr *alloc = b->rhss.items[k];
  Var *x = b->vars.items[k];
  int j = first_user(b, k);
  if (j < 0)
    return false;
  Expr *loop = b->rhss.items[j];
  if (loop->kind != E_SUM || loop->nargs != 1 || expr_mentions(loop->args[0], x) ||
      !same_length(s, alloc->args[0], loop->args[0]))
    return false;
  Expr *element = element_of(s, loop, x);
  if (!element)
    return false;
  Expr *build = ex_build(s->a, loop->args[0], loop->var, element);
  build->type = alloc->type;
  Expr *unit = ex_tuple(s->a, 0, NULL);
  unit->type = loop->type;
  /* x is bound where the sum was (nothing between mentions it), and the
   * sum's variable to its value, the unit */
  for (int i = k; i < j - 1; i++) {
    b->vars.items[i] = b->vars.items[i + 1];
    b->rhss.items[i] = b->rhss.items[i + 1];
  }
  b->vars.items[j - 1] = x;
  b->rhss.items[j - 1] = build;
  b->rhss.items[j] = unit;
  return true;
}

static Expr *fill_block(Fill *s, Expr *e) {
  Bindings b = {0};
  bindings_of(s->a, e, &b);
  bool changed = false;
  for (int k = 0; k < b.vars.len; k++) {
    Expr *r = b.rhss.items[k];
    Expr *n = expr_map_blocks(s->a, r, fill_block_of, s);
    if (n != r) {
      b.rhss.items[k] = n;
      changed = true;
    }
  }
  for (int k = 0; k < b.vars.len; k++)
    if (cotangent_buffer(b.rhss.items[k]) && fill_pair(s, &b, k)) {
      changed = true;
      k--; /* binding k is now the one after the buffer */
    }
  Expr *result = expr_map_blocks(s->a, b.result, fill_block_of, s);
  changed = changed || result != b.result;
  return changed ? bindings_build(s->a, &b, result) : e;
}

Expr *fill_buffers(Module *m, Expr *body) {
  Fill s = {.a = m->arena};
  collect_let_defs(&s.defs, body);
  Expr *r = fill_block(&s, body);
  varmap_free(&s.defs);
  return r;
}
