/* licm.c: loop-invariant code motion.
 *
 * Requires ANF with unique binders. Guarantees ANF with unique binders in
 * which no top-level binding of a loop body depends only on values from
 * outside the loop: such bindings are computed once, just before the loop.
 * Derivative loops need this most: a reverse loop recomputes a body whose
 * partial derivatives often involve only loop-invariant factors and the
 * (invariant) cotangent of a sum. Only operations that cannot fail are
 * moved, since a loop may run zero times: operations that cannot fail
 * (prim_may_hoist: no integer division), and constant tables; never array reads, calls, loops, effects,
 * allocations or updates (an alloc hoisted out of a loop would be one array
 * shared, and updated, by every iteration) (nor tuples and
 * projections, which cost nothing). Inner loops are treated first, so values move out level by
 * level. */
#include "ad/ad.h"
#include "ad/util.h"

typedef struct Licm {
  Arena *a;
  VarMap inside; /* Var -> non-NULL when bound inside the loop at hand */
  bool hit;
} Licm;

static Expr *licm_block(Licm *s, Expr *e);

static bool movable(const Expr *rhs) {
  switch (rhs->kind) {
  case E_PRIM:
    return prim_may_hoist(rhs);
  case E_TABLE:
    return true; /* a constant: made once, never fails */
  case E_IF:
    return expr_is_select(rhs); /* `(if t n 0)`: a trip count */
  default:
    return false; /* tuples and projections cost nothing to leave in place,
                     and a body's result tuple must stay (dce narrows it) */
  }
}

static void note_inside(Var *v, void *ctx) {
  Licm *s = ctx;
  if (varmap_has(&s->inside, v))
    s->hit = true;
}

/* Splits the (already processed) body of a loop into the bindings that
 * move before it (`out`) and the rest, returned as the new body. */
static Expr *hoist(Licm *s, Expr *loop, Bindings *out) {
  VarMap saved = s->inside;
  s->inside = (VarMap){0};
  varmap_put(&s->inside, loop->var, loop->var);
  if (loop->var2)
    varmap_put(&s->inside, loop->var2, loop->var2);
  Bindings b, keep = {0};
  bindings_of(s->a, loop->body, &b);
  for (int i = 0; i < b.vars.len; i++) {
    Var *x = b.vars.items[i];
    Expr *rhs = b.rhss.items[i];
    s->hit = false;
    expr_visit_vars(rhs, note_inside, s);
    if (!s->hit && movable(rhs)) {
      bindings_push(s->a, out, x, rhs);
    } else {
      varmap_put(&s->inside, x, x);
      bindings_push(s->a, &keep, x, rhs);
    }
  }
  varmap_free(&s->inside);
  s->inside = saved;
  return bindings_build(s->a, &keep, b.result);
}

static Expr *licm_block(Licm *s, Expr *e) {
  Bindings in, out = {0};
  bindings_of(s->a, e, &in);
  for (int i = 0; i < in.vars.len; i++) {
    Var *x = in.vars.items[i];
    Expr *rhs = in.rhss.items[i];
    if (rhs->kind == E_IF) {
      Expr *n = ex_clone_shallow(s->a, rhs);
      n->args[1] = licm_block(s, rhs->args[1]);
      n->args[2] = licm_block(s, rhs->args[2]);
      rhs = n;
    } else if (expr_is_loop(rhs)) {
      Expr *n = ex_clone_shallow(s->a, rhs);
      n->body = licm_block(s, rhs->body);
      n->body = hoist(s, n, &out);
      rhs = n;
    }
    bindings_push(s->a, &out, x, rhs);
  }
  return bindings_build(s->a, &out, in.result);
}

Expr *licm_expr(Module *m, Expr *e) {
  Licm s = {.a = m->arena};
  return licm_block(&s, e);
}
