/* scalarize.c: a buffer that one loop alone touches, step i only at
 * element i, becomes a number per step (DESIGN 8.59).
 *
 * Requires: a derivative in ANF with unique binders, typed (after CSE and
 * DCE). Guarantees: the same values and effects (not in ANF), where for a
 * pair in one block
 *
 *   let x = alloc n in ... let l = <sum or fold over i> in ...
 *
 * such that x (numbers, zero at first) is mentioned nowhere but in l's
 * step, and there only as `index x i` and `accum x i v` (or `store`)
 * bindings at the top of the step, the allocation is gone and the step
 * keeps element i's value in a variable: each accumulation adds to it (in
 * the same order, so rounding is as before), each read reads it.
 *
 * Why: after the sweep's loops fused (fuse_sweep.c) the cotangents of
 * elementwise stages (`y_b[i]`, then the buffer of the array before y)
 * are written and read by one step each; as buffers they cost an
 * allocation, a zeroing and passes over n elements each. */
#include "ad/ad.h"
#include "ad/util.h"

typedef struct Scal {
  Arena *a;
  bool changed;
} Scal;

/* Is x a fresh buffer of numbers? */
static bool scalar_buffer(const Expr *rhs) {
  return rhs->kind == E_ALLOC && rhs->type && rhs->type->kind == TY_ARRAY &&
         (rhs->type->elem->kind == TY_F64 || rhs->type->elem->kind == TY_F32);
}

static bool loop_with_counter(const Expr *e) { return e->kind == E_SUM || e->kind == E_FOLD; }

static bool at(const Expr *e, const Var *x, const Var *counter) {
  return e->args[0]->kind == E_VAR && e->args[0]->var == x && e->args[1]->kind == E_VAR &&
         e->args[1]->var == counter;
}

/* loop's step with buffer x kept in a variable, or NULL when x appears
 * otherwise than as a top-level element access at the counter. */
static Expr *scalar_step(Scal *s, const Expr *loop, Var *x) {
  Arena *a = s->a;
  Type *elem = x->type->elem;
  Bindings b = {0}, out = {0};
  bindings_of(a, loop->body, &b);
  Expr *now = NULL; /* element i's value so far; NULL: zero */
  for (int k = 0; k < b.vars.len; k++) {
    Var *v = b.vars.items[k];
    Expr *r = b.rhss.items[k];
    if ((r->kind == E_INDEX || r->kind == E_ACCUM) && at(r, x, loop->var)) {
      if (r->kind == E_INDEX) {
        bindings_push(a, &out, v, now ? now : ex_const(a, elem, 0.0));
        continue;
      }
      Expr *value = r->args[2];
      if (r->index == 0 && now) {
        Var *sum = var_new(a, x->name, elem);
        Expr *add = ex_prim2(a, P_ADD, now, value);
        add->type = elem;
        bindings_push(a, &out, sum, add);
        value = ex_var(a, sum);
        value->type = elem;
      }
      now = value;
      Expr *unit = ex_tuple(a, 0, NULL);
      unit->type = ty_unit(a);
      bindings_push(a, &out, v, unit);
      continue;
    }
    if (expr_mentions(r, x))
      return NULL;
    bindings_push(a, &out, v, r);
  }
  if (expr_mentions(b.result, x))
    return NULL;
  return bindings_build(a, &out, b.result);
}

static Expr *scal_block(Scal *s, Expr *e);
static Expr *scal_block_of(void *ctx, Expr *block) { return scal_block(ctx, block); }

/* The loop of the block that alone mentions buffer k, in its step only,
 * or -1. */
static int only_user(const Bindings *b, int k) {
  Var *x = b->vars.items[k];
  int user = -1;
  for (int j = k + 1; j < b->vars.len; j++)
    if (expr_mentions(b->rhss.items[j], x)) {
      const Expr *loop = b->rhss.items[j];
      if (user >= 0 || !loop_with_counter(loop))
        return -1;
      for (int i = 0; i < loop->nargs; i++) /* its trip count or start */
        if (expr_mentions(loop->args[i], x))
          return -1;
      user = j;
    }
  if (expr_mentions(b->result, x))
    return -1;
  return user;
}

static Expr *scal_block(Scal *s, Expr *e) {
  Bindings b = {0};
  bindings_of(s->a, e, &b);
  bool changed = false;
  for (int k = 0; k < b.vars.len; k++) {
    Expr *r = b.rhss.items[k];
    Expr *n = expr_map_blocks(s->a, r, scal_block_of, s);
    if (n != r) {
      b.rhss.items[k] = n;
      changed = true;
    }
  }
  for (int k = 0; k < b.vars.len; k++) {
    if (!scalar_buffer(b.rhss.items[k]))
      continue;
    int user = only_user(&b, k);
    if (user < 0)
      continue;
    Expr *loop = b.rhss.items[user];
    Expr *step = scalar_step(s, loop, b.vars.items[k]);
    if (!step)
      continue;
    Expr *n = ex_clone_shallow(s->a, loop);
    n->body = step;
    b.rhss.items[user] = n;
    /* the buffer's binding goes: nothing mentions it now */
    for (int j = k + 1; j < b.vars.len; j++) {
      b.vars.items[j - 1] = b.vars.items[j];
      b.rhss.items[j - 1] = b.rhss.items[j];
    }
    b.vars.len--;
    b.rhss.len--;
    k--;
    changed = true;
  }
  Expr *result = expr_map_blocks(s->a, b.result, scal_block_of, s);
  changed = changed || result != b.result;
  if (changed)
    s->changed = true;
  return changed ? bindings_build(s->a, &b, result) : e;
}

Expr *scalarize_buffers(Module *m, Expr *body) {
  Scal s = {.a = m->arena};
  return scal_block(&s, body);
}
