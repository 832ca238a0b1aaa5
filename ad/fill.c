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
 * The same for a fold whose state is units (a reverse loop run in order)
 * when its step sets x's element at the counter or at `last - counter`
 * (last = m - 1: a loop walking its range backwards), and may besides
 * read another buffer y at an element only that step touches and then
 * store into y there (`dropped` cotangents): x is built before the fold
 * from what the steps read, and the fold keeps its stores (DESIGN 8.79).
 * The reverse of an inlined callee's slice stored back into its caller's
 * array is such a fold: it moves the slice's cotangents out of the
 * caller's buffer (ADBench's lstm_predict).
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

/* The right-hand side bound to v in the step's bindings b, or NULL. */
static const Expr *step_def(const Bindings *b, const Var *v) {
  for (int k = 0; k < b->vars.len; k++)
    if (b->vars.items[k] == v)
      return b->rhss.items[k];
  return NULL;
}

/* Is the atom `last` the loop's count less one? */
static bool is_last_index(const Fill *s, const Expr *loop, const Expr *last) {
  const Expr *d = last->kind == E_VAR ? varmap_get(&s->defs, last->var) : NULL;
  return d && d->kind == E_PRIM && d->op == P_SUB && d->nargs == 2 &&
         d->args[1]->kind == E_CONST && d->args[1]->ival == 1 &&
         same_length(s, d->args[0], loop->args[0]);
}

/* Is the atom `at` the element of x the step owns: the counter, or a
 * variable the step binds to `last - counter`? *backward tells which. */
static bool owned_index(const Fill *s, const Bindings *b, const Expr *loop, const Expr *at,
                        bool *backward) {
  if (at->kind != E_VAR)
    return false;
  *backward = false;
  if (at->var == loop->var)
    return true;
  const Expr *d = step_def(b, at->var);
  *backward = true;
  return d && d->kind == E_PRIM && d->op == P_SUB && d->nargs == 2 &&
         d->args[1]->kind == E_VAR && d->args[1]->var == loop->var &&
         is_last_index(s, loop, d->args[0]);
}

/* Do different steps give the atom `at` different values: the counter,
 * or an integer the step makes from one such by adding or subtracting a
 * value that is the same in every step (bound outside it)? */
static bool distinct_per_step(const Bindings *b, const Expr *loop, const Expr *at, int depth) {
  if (at->kind != E_VAR || depth > 8)
    return false;
  if (at->var == loop->var)
    return true;
  const Expr *d = step_def(b, at->var);
  if (!d || d->kind != E_PRIM || d->nargs != 2 || (d->op != P_ADD && d->op != P_SUB))
    return false;
  for (int k = 0; k < 2; k++) {
    const Expr *other = d->args[1 - k];
    /* a - c and c - a alike: both are one-to-one in a */
    bool invariant = other->kind == E_CONST ||
                     (other->kind == E_VAR && other->var != loop->var && !step_def(b, other->var));
    if (invariant && distinct_per_step(b, loop, d->args[k], depth + 1))
      return true;
  }
  return false;
}

/* Is every use of buffer y in the step's bindings a read at `at` before
 * one store (`accum` index 1) into y at `at`? Then each step reads what
 * y held before the loop when `at` differs from step to step. */
static bool read_then_dropped(const Bindings *b, const Var *y, const Expr *at) {
  bool stored = false;
  for (int k = 0; k < b->vars.len; k++) {
    const Expr *r = b->rhss.items[k];
    if (!expr_mentions(r, y))
      continue;
    if (r->kind == E_INDEX && r->args[0]->kind == E_VAR && r->args[0]->var == y && !stored &&
        atom_eq(r->args[1], at))
      continue;
    if (r->kind == E_ACCUM && r->index == 1 && r->args[0]->kind == E_VAR &&
        r->args[0]->var == y && !stored && atom_eq(r->args[1], at) &&
        !expr_mentions(r->args[2], y)) {
      stored = true;
      continue;
    }
    return false;
  }
  return true;
}

/* The array a view is of, through views bound anywhere in the function. */
static const Var *root_of(const Fill *s, const Bindings *b, const Expr *arr) {
  const Var *v = arr->kind == E_VAR ? arr->var : NULL;
  for (int depth = 0; v && depth < 64; depth++) {
    const Expr *d = step_def(b, v);
    if (!d)
      d = varmap_get(&s->defs, v);
    if (!d || d->kind != E_VIEW || d->args[0]->kind != E_VAR)
      break;
    v = d->args[0]->var;
  }
  return v;
}

/* Does the step read memory it stores into other than where read_then_
 * dropped allows: an element of (a view of) a buffer it stores into, read
 * through another name? Then reading before the loop could differ. */
static bool reads_stored_memory(const Fill *s, const Bindings *b) {
  for (int k = 0; k < b->vars.len; k++) {
    const Expr *st = b->rhss.items[k];
    if (st->kind != E_ACCUM || st->index != 1)
      continue;
    const Var *stored = root_of(s, b, st->args[0]);
    for (int i = 0; i < b->vars.len; i++) {
      const Expr *r = b->rhss.items[i];
      if ((r->kind == E_INDEX || r->kind == E_VIEW) && !atom_eq(r->args[0], st->args[0]) &&
          root_of(s, b, r->args[0]) == stored)
        return true;
    }
  }
  return false;
}

/* Is t the unit type, or a tuple of such? */
static bool unit_like(const Type *t) {
  if (!t || t->kind != TY_TUPLE)
    return false;
  for (int k = 0; k < t->n; k++)
    if (!unit_like(t->elems[k]))
      return false;
  return true;
}

/* What a loop that fills buffer x does: the element x[q] as a build's
 * body over q, and for a fold, the step without its accumulation. */
typedef struct Filling {
  Var *q;          /* the build's variable */
  Expr *element;   /* the build's body */
  Expr *remaining; /* E_FOLD: the step that stays; NULL for a sum */
} Filling;

/* Copies the pure bindings of the step b, but the one at `skip`, into out
 * with fresh variables; subst maps the counter (and a backward loop's
 * owned index) to their atoms, and old variables to their copies. What a
 * fold's state or a store gives cannot be had outside the loop: such
 * bindings, and those that depend on them, are left out and noted in
 * `left`. */
static void copy_step(Fill *s, const Bindings *b, int skip, const Expr *loop, VarMap *subst,
                      VarMap *left, Bindings *out) {
  if (loop->var2)
    varmap_put(left, loop->var2, loop->var2);
  for (int k = 0; k < b->vars.len; k++) {
    Var *v = b->vars.items[k];
    Expr *r = b->rhss.items[k];
    if (varmap_has(subst, v))
      continue; /* the owned index, given */
    if (k == skip || !pure_binding(r) || expr_mentions_any(r, left)) {
      varmap_put(left, v, v);
      continue;
    }
    Var *copy = var_new(s->a, v->name, v->type);
    bindings_push(s->a, out, copy, expr_subst(s->a, r, subst));
    varmap_put(subst, v, ex_var(s->a, copy));
  }
}

/* For a backward step (the owned index `owned` = last - counter) seen from
 * a loop over `at`, which names the owned element: binds the step's
 * counter to last - at in out, and maps the counter and the owned index in
 * subst. */
static void walk_forward(Fill *s, const Bindings *b, const Expr *loop, Var *owned, Expr *at,
                         VarMap *subst, Bindings *out) {
  const Expr *last = step_def(b, owned)->args[0];
  Var *c = var_new(s->a, loop->var->name, loop->var->type);
  Expr *sub = ex_prim2(s->a, P_SUB, (Expr *)last, at);
  sub->type = loop->var->type;
  bindings_push(s->a, out, c, sub);
  varmap_put(subst, loop->var, ex_var(s->a, c));
  varmap_put(subst, owned, at);
}

/* How `loop` fills buffer x, or false when its step is not pure bindings
 * (and, in a fold, read-then-dropped buffers) and one accumulation or
 * store into x at the element the step owns. */
static bool filling_of(Fill *s, const Expr *loop, const Var *x, Filling *out) {
  bool fold = loop->kind == E_FOLD;
  if (fold && (!unit_like(loop->type) || !unit_like(loop->args[1]->type)))
    return false;
  Bindings b = {0};
  bindings_of(s->a, loop->body, &b);
  int set = -1;
  bool backward = false;
  for (int k = 0; k < b.vars.len; k++) {
    Expr *r = b.rhss.items[k];
    if (r->kind == E_ACCUM && r->args[0]->kind == E_VAR && r->args[0]->var == x) {
      if (set >= 0 || !owned_index(s, &b, loop, r->args[1], &backward) ||
          (backward && !fold) || expr_mentions(r->args[2], x))
        return false;
      set = k;
      continue;
    }
    if (expr_mentions(r, x) || (set >= 0 && expr_mentions(r, b.vars.items[set])))
      return false;
    if (pure_binding(r))
      continue;
    /* a fold's store into another buffer, after the step read it there */
    if (!fold || r->kind != E_ACCUM || r->index != 1 || r->args[0]->kind != E_VAR ||
        !distinct_per_step(&b, loop, r->args[1], 0) ||
        !read_then_dropped(&b, r->args[0]->var, r->args[1]))
      return false;
  }
  if (set < 0 || (fold ? !unit_like(b.result->type) : !is_unit(&b, b.result)) ||
      reads_stored_memory(s, &b))
    return false;
  Expr *set_rhs = b.rhss.items[set];
  Var *owned = backward ? set_rhs->args[1]->var : NULL;
  /* the build: element q is what step q (backward: step last - q) sets */
  out->q = var_new(s->a, loop->var->name, loop->var->type);
  Bindings elem = {0};
  VarMap subst = {0}, left = {0};
  if (backward)
    walk_forward(s, &b, loop, owned, ex_var(s->a, out->q), &subst, &elem);
  else
    varmap_put(&subst, loop->var, ex_var(s->a, out->q));
  copy_step(s, &b, set, loop, &subst, &left, &elem);
  bool made = !expr_mentions_any(set_rhs->args[2], &left);
  out->element = bindings_build(s->a, &elem, expr_subst(s->a, set_rhs->args[2], &subst));
  varmap_free(&subst);
  varmap_free(&left);
  if (!made)
    return false;
  out->remaining = NULL;
  if (!fold)
    return true;
  /* the fold keeps its stores. They touch only the elements each step
   * owns, so the steps run in any order: a backward loop runs forwards,
   * where the C compiler sees a memset in stores of zeros */
  Expr *unit = ex_tuple(s->a, 0, NULL);
  unit->type = set_rhs->type;
  b.rhss.items[set] = unit;
  Bindings rest = {0};
  VarMap rename = {0};
  if (backward)
    walk_forward(s, &b, loop, owned, ex_var(s->a, loop->var), &rename, &rest);
  for (int k = 0; k < b.vars.len; k++)
    if (b.vars.items[k] != owned)
      bindings_push(s->a, &rest, b.vars.items[k], expr_subst(s->a, b.rhss.items[k], &rename));
  out->remaining = ex_clone_shallow(s->a, loop);
  out->remaining->body = bindings_build(s->a, &rest, expr_subst(s->a, b.result, &rename));
  varmap_free(&rename);
  return true;
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

/* Binding k, a buffer, built by the loop at binding j when it fills it. */
static bool fill_pair(Fill *s, Bindings *b, int k) {
  Expr *alloc = b->rhss.items[k];
  Var *x = b->vars.items[k];
  int j = first_user(b, k);
  if (j < 0)
    return false;
  Expr *loop = b->rhss.items[j];
  if (!((loop->kind == E_SUM && loop->nargs == 1) || loop->kind == E_FOLD) ||
      expr_mentions(loop->args[0], x) || (loop->kind == E_FOLD && expr_mentions(loop->args[1], x)) ||
      !same_length(s, alloc->args[0], loop->args[0]))
    return false;
  Filling how;
  if (!filling_of(s, loop, x, &how))
    return false;
  Expr *build = ex_build(s->a, loop->args[0], how.q, how.element);
  build->type = alloc->type;
  Expr *rest = how.remaining;
  if (!rest) {
    rest = ex_tuple(s->a, 0, NULL);
    rest->type = loop->type;
  }
  /* x is bound right before the loop (nothing between mentions it), and
   * the loop's variable to what is left of it: its stores, or the unit */
  for (int i = k; i < j - 1; i++) {
    b->vars.items[i] = b->vars.items[i + 1];
    b->rhss.items[i] = b->rhss.items[i + 1];
  }
  b->vars.items[j - 1] = x;
  b->rhss.items[j - 1] = build;
  b->rhss.items[j] = rest;
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
