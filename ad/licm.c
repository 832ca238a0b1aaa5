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
 * level.
 *
 * Before AD (licm_primal_expr) a floating value moved out of a loop that
 * may run no step is also guarded when its derivative can be infinite at a
 * finite argument (sqrt, cbrt, log, division, ...): it is computed under
 * `if (gt n 0)` and is 0 otherwise (values using it need no guard: their
 * derivatives are bounded, or they are guarded themselves). Unguarded, the reverse sweep would
 * multiply that derivative, say cbrt'(0), by the value's cotangent, zero
 * when no step ran, and 0 * inf is NaN where the source's derivative is 0
 * (a placeholder of ad/hoist.c, or a genuine sqrt(0) the loop never
 * reaches). Inside a loop over n, or the branch of `if (gt n 0)`, a loop
 * over n runs, and needs no guard. */
#include "ad/ad.h"
#include "ad/util.h"

typedef struct Licm {
  Arena *a;
  VarMap inside; /* Var -> non-NULL when bound inside the loop at hand */
  bool hit;
  bool guard;    /* before AD: guard values with possibly infinite derivatives */
  VarMap guards; /* Var -> its guard `if`, for the guards made here */
  PtrVec runs;   /* trip counts (atoms) known positive where we are */
  int made;      /* guards made, for their names */
} Licm;

static Expr *licm_block(Licm *s, Expr *e);

static bool movable(const Licm *s, Var *x, const Expr *rhs) {
  if (varmap_has(&s->guards, x))
    return true; /* a guard made at an inner loop: pure, and guarded */
  if (rhs->kind == E_GET && rhs->args[0]->kind == E_VAR &&
      varmap_has(&s->guards, rhs->args[0]->var))
    return true; /* a value out of such a guard: moves with it */
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

/* Can the derivative of a floating rhs be infinite, or NaN, at finite
 * arguments? Everything but the operations whose partial derivatives are
 * bounded wherever they are finite. */
static bool may_blow_up(const Expr *rhs) {
  if (rhs->kind != E_PRIM || !type_is_float(rhs->type))
    return false;
  bool constant = true; /* then no derivative is taken */
  for (int i = 0; i < rhs->nargs && constant; i++)
    constant = rhs->args[i]->kind == E_CONST;
  if (constant)
    return false;
  switch (rhs->op) {
  case P_ADD:
  case P_SUB:
  case P_MUL:
  case P_NEG:
  case P_SIN:
  case P_COS:
  case P_ATAN:
  case P_TANH:
  case P_FABS:
  case P_FMIN:
  case P_FMAX:
  case P_ERF:
  case P_ERFC:
  case P_ASINH:
  case P_FLOOR:
  case P_CEIL:
  case P_ROUND:
  case P_TRUNC:
  case P_RINT:
  case P_NEARBYINT:
  case P_FMA:
  case P_COPYSIGN:
  case P_FDIM:
  case P_TO_F64:
  case P_TO_F32:
    return false;
  default:
    return true;
  }
}

/* The atom saying how often `loop` steps: a count, or a while loop's first
 * go. */
static Expr *trip(const Expr *loop) {
  return loop->kind == E_SCATTER ? loop->args[1] : loop->args[0];
}

/* Does the loop surely run a step here? */
static bool surely_runs(const Licm *s, const Expr *loop) {
  Expr *n = trip(loop);
  if (n->kind == E_CONST && n->type->kind == TY_INT)
    return n->ival > 0;
  for (int i = 0; i < s->runs.len; i++)
    if (atom_eq(s->runs.items[i], n))
      return true;
  return false;
}

static void note_guarded(Var *v, void *ctx) {
  Licm *s = ctx;
  if (varmap_has(&s->inside, v)) /* here: the group being guarded */
    s->hit = true;
}

/* Does the moved binding x = rhs go under a guard: a value whose
 * derivative may be unbounded, or an inner loop's guard, or a value out of
 * one? */
static bool needs_guard(const Licm *s, Var *x, const Expr *rhs) {
  return may_blow_up(rhs) || varmap_has(&s->guards, x) ||
         (rhs->kind == E_GET && rhs->args[0]->kind == E_VAR &&
          varmap_has(&s->guards, rhs->args[0]->var));
}

/* Appends to `out` the guard of `group`, `if (go) {group} else {zeros}`,
 * then the group's values projected out of it under their old names. An
 * inner loop's guard (a tuple) is not given out: only its projections
 * were used, and they are in the group too. */
static void flush_guard(Licm *s, Expr *go, Bindings *group, Bindings *out) {
  int k = group->vars.len;
  if (k == 0)
    return;
  VarMap fresh = {0};
  Bindings then = {0};
  Expr **values = arena_alloc(s->a, sizeof(Expr *) * (size_t)k);
  Expr **zeros = arena_alloc(s->a, sizeof(Expr *) * (size_t)k);
  Var **given = arena_alloc(s->a, sizeof(Var *) * (size_t)k);
  int n_given = 0;
  for (int i = 0; i < k; i++) {
    Var *x = group->vars.items[i];
    /* a name of its own: CSE and DCE run before names are made unique
     * again, and tell variables apart by name */
    Var *y = var_new(s->a, arena_printf(s->a, "%s_in_guard_%d", x->name, s->made), x->type);
    bindings_push(s->a, &then, y, expr_subst(s->a, group->rhss.items[i], &fresh));
    varmap_put(&fresh, x, ex_var(s->a, y));
    if (x->type->kind == TY_TUPLE)
      continue;
    values[n_given] = ex_var(s->a, y);
    zeros[n_given] = ex_const(s->a, x->type, 0);
    given[n_given++] = x;
  }
  varmap_free(&fresh);
  /* in ANF, as the passes that follow before normalisation (CSE) expect:
   * each branch binds its tuple and yields the variable */
  Expr *tuple = ex_tuple(s->a, n_given, values);
  Var *tv = var_new(s->a, arena_printf(s->a, "guarded_values_%d", s->made), tuple->type);
  bindings_push(s->a, &then, tv, tuple);
  Var *zv = var_new(s->a, arena_printf(s->a, "guarded_zeros_%d", s->made), tuple->type);
  Bindings otherwise = {0};
  bindings_push(s->a, &otherwise, zv, ex_tuple(s->a, n_given, zeros));
  Expr *guard = ex_if(s->a, go, bindings_build(s->a, &then, ex_var(s->a, tv)),
                      bindings_build(s->a, &otherwise, ex_var(s->a, zv)));
  Var *gv = var_new(s->a, arena_printf(s->a, "guarded_%d", s->made++), tuple->type);
  bindings_push(s->a, out, gv, guard);
  varmap_put(&s->guards, gv, guard);
  for (int i = 0; i < n_given; i++)
    bindings_push(s->a, out, given[i], ex_get(s->a, i, ex_var(s->a, gv)));
  *group = (Bindings){0};
}

/* Appends to `out` the bindings `moved` out of `loop`, in order, those
 * that need_guard under `if (gt n 0)` unless the loop surely runs: runs of
 * them share a guard, closed when a value moved unguarded uses one of
 * them (it then reads the projection, 0 when no step runs: its derivative
 * is bounded, so that 0 does no harm). */
static void place_moved(Licm *s, Expr *loop, Bindings *moved, Bindings *out) {
  bool guard = s->guard && !surely_runs(s, loop);
  Expr *go = NULL;
  Bindings group = {0};
  VarMap saved = s->inside;
  s->inside = (VarMap){0};
  for (int i = 0; i < moved->vars.len; i++) {
    Var *x = moved->vars.items[i];
    Expr *rhs = moved->rhss.items[i];
    if (guard && needs_guard(s, x, rhs)) {
      if (!go) {
        Expr *n = trip(loop);
        go = n;
        if (loop->kind != E_WHILE && loop->kind != E_WHILESAVE) {
          Var *g = var_new(s->a, "runs", ty_int());
          bindings_push(s->a, out, g, ex_prim2(s->a, P_GT, n, ex_const_int(s->a, n->type, 0)));
          go = ex_var(s->a, g);
        }
      }
      varmap_put(&s->inside, x, x);
      bindings_push(s->a, &group, x, rhs);
      continue;
    }
    s->hit = false;
    expr_visit_vars(rhs, note_guarded, s);
    if (s->hit) {
      flush_guard(s, go, &group, out);
      varmap_free(&s->inside);
      s->inside = (VarMap){0};
    }
    bindings_push(s->a, out, x, rhs);
  }
  flush_guard(s, go, &group, out);
  varmap_free(&s->inside);
  s->inside = saved;
}

/* Splits the (already processed) body of a loop into the bindings that
 * move before it (`out`) and the rest, returned as the new body. */
static Expr *hoist(Licm *s, Expr *loop, Bindings *out) {
  VarMap saved = s->inside;
  s->inside = (VarMap){0};
  varmap_put(&s->inside, loop->var, loop->var);
  if (loop->var2)
    varmap_put(&s->inside, loop->var2, loop->var2);
  Bindings b, keep = {0}, moved = {0};
  bindings_of(s->a, loop->body, &b);
  for (int i = 0; i < b.vars.len; i++) {
    Var *x = b.vars.items[i];
    Expr *rhs = b.rhss.items[i];
    s->hit = false;
    expr_visit_vars(rhs, note_inside, s);
    if (!s->hit && movable(s, x, rhs)) {
      bindings_push(s->a, &moved, x, rhs);
    } else {
      varmap_put(&s->inside, x, x);
      bindings_push(s->a, &keep, x, rhs);
    }
  }
  varmap_free(&s->inside);
  s->inside = saved;
  place_moved(s, loop, &moved, out);
  return bindings_build(s->a, &keep, b.result);
}

/* A block where the atom n (when not NULL) is known positive. */
static Expr *licm_block_where(Licm *s, Expr *e, Expr *n) {
  if (!n)
    return licm_block(s, e);
  ptrvec_push(s->a, &s->runs, n);
  Expr *r = licm_block(s, e);
  s->runs.len--;
  return r;
}

/* The count n when c is a variable bound to `gt n 0` in `in` (a guard or
 * a trip-count test), else NULL. */
static Expr *positive_when(const Bindings *in, int upto, const Expr *c) {
  if (c->kind != E_VAR)
    return NULL;
  for (int i = upto - 1; i >= 0; i--) {
    if (in->vars.items[i] != c->var)
      continue;
    const Expr *r = in->rhss.items[i];
    bool zero = r->kind == E_PRIM && r->op == P_GT && r->args[1]->kind == E_CONST &&
                r->args[1]->type->kind == TY_INT && r->args[1]->ival == 0;
    return zero ? r->args[0] : NULL;
  }
  return NULL;
}

static Expr *licm_block(Licm *s, Expr *e) {
  Bindings in, out = {0};
  bindings_of(s->a, e, &in);
  for (int i = 0; i < in.vars.len; i++) {
    Var *x = in.vars.items[i];
    Expr *rhs = in.rhss.items[i];
    if (rhs->kind == E_IF) {
      Expr *n = ex_clone_shallow(s->a, rhs);
      n->args[1] = licm_block_where(s, rhs->args[1], positive_when(&in, i, rhs->args[0]));
      n->args[2] = licm_block(s, rhs->args[2]);
      rhs = n;
    } else if (expr_is_loop(rhs)) {
      Expr *n = ex_clone_shallow(s->a, rhs);
      bool counted = n->kind != E_WHILE && n->kind != E_WHILESAVE;
      n->body = licm_block_where(s, rhs->body, counted ? trip(rhs) : NULL);
      n->body = hoist(s, n, &out);
      rhs = n;
    }
    bindings_push(s->a, &out, x, rhs);
  }
  return bindings_build(s->a, &out, in.result);
}

static Expr *licm_run(Module *m, Expr *e, bool guard) {
  Licm s = {.a = m->arena, .guard = guard};
  Expr *r = licm_block(&s, e);
  varmap_free(&s.guards);
  return r;
}

Expr *licm_expr(Module *m, Expr *e) { return licm_run(m, e, false); }

Expr *licm_primal_expr(Module *m, Expr *e) { return licm_run(m, e, true); }
