/* indvar.c: a counter a fold carries, read as a function of the fold's own
 * counter (DESIGN 8.36).
 *
 * Requires: the source function in ANF with unique binders, type-checked
 * (before AD). Guarantees: the same values, in ANF once normalised again
 * (the caller does), where a fold `fold n s0 (k s) body` whose state (or
 * field j of its tuple state) is an integer that every step reads as
 * `v = get j s` and advances by `add v c` at the top level of its step, c
 * a constant or a value bound outside the fold and of the counter's type,
 * instead binds `v = add s0_j (mul k c)`: the step's value of that
 * integer no longer depends on the state. C code keeps such counters
 * (Qtimesx's `Lparamsidx++` in a triangular nest); reverse mode then
 * computes them again from the counter in the reverse step (8.22's
 * integers computed again) instead of storing one per step, and an
 * element of an input read at them is read again (8.33) instead of
 * stored. The state keeps the counter for what follows the loop. */
#include "ad/ad.h"
#include "ad/util.h"

typedef struct Indvar {
  Arena *a;
  VarMap defs; /* Var -> its right-hand side, anywhere in the function */
} Indvar;

/* The initial value of field j of the fold's state (j < 0: the whole
 * state), as an atom bound before the fold; NULL when it is not one. */
static Expr *initial_field(Indvar *s, Expr *fold, int j) {
  Expr *init = fold->args[1];
  if (j < 0)
    return init;
  Expr *t = init->kind == E_VAR ? varmap_get(&s->defs, init->var) : init;
  return t && t->kind == E_TUPLE && j < t->nargs && expr_is_atom(t->args[j]) ? t->args[j] : NULL;
}

/* Is atom c usable in every step of the fold whose step binds `bound`: a
 * constant, or a variable neither the step nor the fold binds? */
static bool outside(const Expr *c, const Expr *fold, const VarMap *bound) {
  if (c->kind != E_VAR)
    return c->kind == E_CONST;
  return c->var != fold->var && c->var != fold->var2 && !varmap_has(bound, c->var);
}

/* The step's read of state field j (-1: the state itself), and the amount
 * the step adds to it, when the step advances it by a fixed amount. */
static bool advances(const Bindings *step, const Expr *fold, int j, const VarMap *bound,
                     int *read_at, Expr **by) {
  Var *st = fold->var2;
  Expr *res = step->result;
  Expr *next = NULL;
  if (j < 0) {
    next = res;
  } else {
    for (int i = 0; i < step->vars.len && !next; i++)
      if (res->kind == E_VAR && step->vars.items[i] == res->var) {
        Expr *t = step->rhss.items[i];
        next = t->kind == E_TUPLE && j < t->nargs ? t->args[j] : NULL;
      }
  }
  if (!next || next->kind != E_VAR)
    return false;
  int read = -1;
  Expr *step_by = NULL;
  for (int i = 0; i < step->vars.len; i++) {
    Var *v = step->vars.items[i];
    Expr *r = step->rhss.items[i];
    bool reads = j < 0 ? r->kind == E_VAR && r->var == st
                       : r->kind == E_GET && r->index == j && r->args[0]->kind == E_VAR &&
                             r->args[0]->var == st;
    if (reads) {
      if (read >= 0)
        return false; /* read twice: ANF keeps one */
      read = i;
    }
    if (v == next->var) {
      if (read < 0 || r->kind != E_PRIM || r->op != P_ADD)
        return false;
      Var *rv = step->vars.items[read];
      Expr *x = r->args[0], *y = r->args[1];
      if (x->kind == E_VAR && x->var == rv)
        step_by = y;
      else if (y->kind == E_VAR && y->var == rv)
        step_by = x;
    }
  }
  if (read < 0 || !step_by || !outside(step_by, fold, bound) || !type_eq(step_by->type, fold->var->type))
    return false;
  *read_at = read;
  *by = step_by;
  return true;
}

static Expr *indvar_block(Indvar *s, Expr *e);

static Expr *indvar_fold(Indvar *s, Expr *fold) {
  Type *st = fold->var2->type;
  Type *ct = fold->var->type;
  Bindings step = {0};
  bindings_of(s->a, fold->body, &step);
  VarMap bound = {0};
  for (int i = 0; i < step.vars.len; i++)
    varmap_put(&bound, step.vars.items[i], step.vars.items[i]);
  int fields = st->kind == TY_TUPLE ? st->n : 0;
  bool changed = false;
  for (int j = fields ? 0 : -1; j < fields; j++) {
    Type *t = j < 0 ? st : st->elems[j];
    if (!type_eq(t, ct))
      continue;
    int read;
    Expr *by;
    Expr *init = initial_field(s, fold, j);
    if (!init || !outside(init, fold, &bound) || !advances(&step, fold, j, &bound, &read, &by))
      continue;
    Expr *k = ex_var(s->a, fold->var);
    Expr *moved = by->kind == E_CONST && by->ival == 1 ? k : ex_prim2(s->a, P_MUL, k, by);
    moved->type = ct;
    Expr *value = ex_prim2(s->a, P_ADD, init, moved);
    value->type = ct;
    step.rhss.items[read] = value; /* not ANF: normalised again by the caller */
    changed = true;
  }
  varmap_free(&bound);
  if (!changed)
    return fold;
  Expr *c = ex_fold(s->a, fold->args[0], fold->args[1], fold->var, fold->var2,
                    bindings_build(s->a, &step, step.result));
  c->type = fold->type;
  c->loc = fold->loc;
  return c;
}

static Expr *indvar_block_of(void *ctx, Expr *block) { return indvar_block(ctx, block); }

static Expr *indvar_block(Indvar *s, Expr *e) {
  Bindings b = {0}, out = {0};
  bindings_of(s->a, e, &b);
  bool changed = false;
  for (int k = 0; k < b.vars.len; k++) {
    Expr *r = b.rhss.items[k];
    Expr *n = expr_map_blocks(s->a, r, indvar_block_of, s);
    if (n->kind == E_FOLD)
      n = indvar_fold(s, n);
    changed = changed || n != r;
    bindings_push(s->a, &out, b.vars.items[k], n);
  }
  Expr *result = expr_map_blocks(s->a, b.result, indvar_block_of, s);
  changed = changed || result != b.result;
  return changed ? bindings_build(s->a, &out, result) : e;
}

Expr *indvar_expr(Module *m, Expr *body) {
  Indvar s = {.a = m->arena};
  collect_let_defs(&s.defs, body);
  Expr *r = indvar_block(&s, body);
  varmap_free(&s.defs);
  return r;
}
