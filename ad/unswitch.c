/* unswitch.c: loop unswitching of the array choices a loop does not change.
 *
 * Requires ANF with unique binders (a source function, before AD).
 * Guarantees the same function, not in ANF (the caller normalises again),
 * in which a fold whose body tests a condition that the fold cannot change
 * before updating or reading an array, a comparison of values bound
 * outside the fold, is `if c then F1 else F0`: two copies of the fold, each
 * with that condition known and its branches chosen. At most
 * UNSWITCH_CONDITIONS conditions per fold, and only folds of at most
 * UNSWITCH_NODES nodes, so code grows by a bounded factor.
 *
 * Why: a pointer swapped for double buffering (DESIGN 8.26) writes through
 * `if (p_in == 1) b[i] = v; else a[i] = v;` and reads through such choices
 * at every element. Each choice inside the loop is a branch that reverse
 * mode must reverse per step (a residual stored, an undo-log entry, two
 * cotangent paths); chosen once outside, the loop is an ordinary loop
 * over one array (DESIGN 8.29). */
#include "ad/ad.h"
#include "ad/util.h"

enum {
  UNSWITCH_CONDITIONS = 2, /* copies per fold: at most 2^this */
  UNSWITCH_NODES = 4000,   /* the largest fold body copied */
};

typedef struct Unswitch {
  Arena *a;
  VarMap inside; /* Var -> Var: bound inside the fold at hand */
  VarMap rhs_of; /* Var -> Expr*: right-hand sides of lets inside it */
  bool changed;
} Unswitch;

static Expr *unswitch_block(Unswitch *s, Expr *e);

/* Records every variable e binds, and the right-hand side of each let. */
static void note_binders(Unswitch *s, Expr *e) {
  for (; e->kind == E_LET; e = e->body) {
    varmap_put(&s->inside, e->var, e->var);
    varmap_put(&s->rhs_of, e->var, e->args[0]);
    note_binders(s, e->args[0]);
  }
  for (int i = 0; i < e->nargs; i++)
    note_binders(s, e->args[i]);
  if (expr_is_loop(e)) {
    varmap_put(&s->inside, e->var, e->var);
    if (e->var2)
      varmap_put(&s->inside, e->var2, e->var2);
    note_binders(s, e->body);
  }
}

/* A comparison or logical operation whose result is exactly 0 or 1. */
static bool is_test(const Expr *rhs) {
  if (rhs->kind != E_PRIM)
    return false;
  PrimClass c = prim_info(rhs->op)->cls;
  return c == PC_CMP || c == PC_LOGIC;
}

enum { INVARIANT_DEPTH = 4 }; /* operations computed before the loop, per operand */

/* Can this operation run before the loop (prim_may_hoist), or is it an
 * integer division or remainder by a constant that cannot fail (`k % 2`)? */
static bool may_run_before(const Expr *rhs) {
  if (rhs->kind == E_PRIM && (rhs->op == P_DIV || rhs->op == P_MOD) && rhs->type &&
      rhs->type->kind == TY_INT)
    return rhs->args[1]->kind == E_CONST && rhs->args[1]->ival != 0 && rhs->args[1]->ival != -1;
  return prim_may_hoist(rhs);
}

/* Is atom x the same in every step: a constant, a variable bound outside
 * the fold, or one bound inside it by safe operations on such atoms? */
static bool invariant_atom(Unswitch *s, const Expr *x, int depth) {
  if (x->kind != E_VAR || !varmap_has(&s->inside, x->var))
    return expr_is_atom(x);
  const Expr *rhs = varmap_get(&s->rhs_of, x->var);
  if (!rhs || depth >= INVARIANT_DEPTH || !may_run_before(rhs))
    return false;
  for (int i = 0; i < rhs->nargs; i++)
    if (!invariant_atom(s, rhs->args[i], depth + 1))
      return false;
  return true;
}

/* Is the test rhs computed from values the fold does not change? */
static bool invariant_test(Unswitch *s, const Expr *rhs) {
  if (!is_test(rhs))
    return false;
  for (int i = 0; i < rhs->nargs; i++)
    if (!invariant_atom(s, rhs->args[i], 0))
      return false;
  return true;
}

/* Do two invariant atoms hold the same value (the same atom, or the same
 * operation on such atoms)? */
static bool same_value(Unswitch *s, const Expr *x, const Expr *y, int depth) {
  if (atom_eq(x, y))
    return true;
  if (x->kind != E_VAR || y->kind != E_VAR || depth >= INVARIANT_DEPTH)
    return false;
  const Expr *rx = varmap_get(&s->rhs_of, x->var), *ry = varmap_get(&s->rhs_of, y->var);
  if (!rx || !ry || rx->kind != E_PRIM || ry->kind != E_PRIM || rx->op != ry->op ||
      rx->nargs != ry->nargs || !type_eq(rx->type, ry->type))
    return false;
  for (int i = 0; i < rx->nargs; i++)
    if (!same_value(s, rx->args[i], ry->args[i], depth + 1))
      return false;
  return true;
}

static bool same_test(Unswitch *s, const Expr *x, const Expr *y) {
  if (x->op != y->op || x->nargs != y->nargs)
    return false;
  for (int i = 0; i < x->nargs; i++)
    if (!same_value(s, x->args[i], y->args[i], 0))
      return false;
  return true;
}

/* The invariant atom x as an expression of values bound outside the fold,
 * to compute before it. */
static Expr *outside_value(Unswitch *s, Expr *x) {
  if (x->kind != E_VAR || !varmap_has(&s->inside, x->var))
    return x;
  Expr *n = ex_clone_shallow(s->a, varmap_get(&s->rhs_of, x->var));
  for (int i = 0; i < n->nargs; i++)
    n->args[i] = outside_value(s, n->args[i]);
  return n;
}

/* Does this branch touch memory: an update, or a read of an array? */
static bool touches_arrays(const Expr *e) {
  return expr_contains(e, E_UPDATE) || expr_contains(e, E_INDEX);
}

/* The first invariant test in e that an `if` choosing between branches
 * that touch arrays decides; updates first, since a choice of writes costs
 * the reverse sweep most. */
static const Expr *find_test(Unswitch *s, Expr *e, bool want_update) {
  for (; e->kind == E_LET; e = e->body) {
    Expr *rhs = e->args[0];
    if (rhs->kind == E_IF && rhs->args[0]->kind == E_VAR) {
      const Expr *t = varmap_get(&s->rhs_of, rhs->args[0]->var);
      bool wanted = want_update ? expr_contains(rhs->args[1], E_UPDATE) ||
                                      expr_contains(rhs->args[2], E_UPDATE)
                                : touches_arrays(rhs->args[1]) || touches_arrays(rhs->args[2]);
      if (t && wanted && invariant_test(s, t))
        return t;
    }
    const Expr *found = find_test(s, rhs, want_update);
    if (found)
      return found;
  }
  for (int i = 0; i < e->nargs; i++) {
    const Expr *found = find_test(s, e->args[i], want_update);
    if (found)
      return found;
  }
  return expr_is_loop(e) ? find_test(s, e->body, want_update) : NULL;
}

/* Variables bound inside e to the test `t`, mapped to its value. */
static void bind_known(Unswitch *s, Expr *e, const Expr *t, Expr *value, VarMap *known) {
  for (; e->kind == E_LET; e = e->body) {
    if (e->args[0]->kind == E_PRIM && same_test(s, e->args[0], t))
      varmap_put(known, e->var, value);
    bind_known(s, e->args[0], t, value, known);
  }
  for (int i = 0; i < e->nargs; i++)
    bind_known(s, e->args[i], t, value, known);
  if (expr_is_loop(e))
    bind_known(s, e->body, t, value, known);
}

/* e with every `if` on a constant replaced by the branch it takes. */
static Expr *choose_branches(Arena *a, Expr *e) {
  if (e->kind == E_LET)
    return ex_let(a, e->var, choose_branches(a, e->args[0]), choose_branches(a, e->body));
  if (e->kind == E_IF && e->args[0]->kind == E_CONST)
    return choose_branches(a, e->args[0]->ival ? e->args[1] : e->args[2]);
  if (!e->nargs && !expr_is_loop(e))
    return e;
  Expr *n = ex_clone_shallow(a, e);
  for (int i = 0; i < e->nargs; i++)
    n->args[i] = choose_branches(a, e->args[i]);
  if (expr_is_loop(e))
    n->body = choose_branches(a, e->body);
  return n;
}

/* The fold with the test t known to be `value`. */
static Expr *specialise(Unswitch *s, Expr *fold, const Expr *t, long long value) {
  VarMap known = {0};
  bind_known(s, fold->body, t, ex_int(s->a, value), &known);
  Expr *n = ex_clone_shallow(s->a, fold);
  n->body = choose_branches(s->a, expr_subst(s->a, fold->body, &known));
  varmap_free(&known);
  return n;
}

/* `if t then fold[t=1] else fold[t=0]`, each copy unswitched again on
 * its next test, `depth` tests deep; the fold itself when no test
 * qualifies. */
static Expr *unswitch_fold(Unswitch *s, Expr *fold, int depth) {
  if (depth >= UNSWITCH_CONDITIONS || expr_count_nodes(fold->body, UNSWITCH_NODES) >= UNSWITCH_NODES)
    return fold;
  VarMap saved_inside = s->inside, saved_rhs = s->rhs_of;
  s->inside = (VarMap){0};
  s->rhs_of = (VarMap){0};
  varmap_put(&s->inside, fold->var, fold->var);
  varmap_put(&s->inside, fold->var2, fold->var2);
  note_binders(s, fold->body);
  const Expr *t = find_test(s, fold->body, true);
  if (!t)
    t = find_test(s, fold->body, false);
  Expr *out = fold;
  if (t) {
    Expr *yes = specialise(s, fold, t, 1), *no = specialise(s, fold, t, 0);
    Expr *test = ex_clone_shallow(s->a, t);
    for (int i = 0; i < test->nargs; i++)
      test->args[i] = outside_value(s, test->args[i]);
    varmap_free(&s->inside);
    varmap_free(&s->rhs_of);
    s->inside = saved_inside;
    s->rhs_of = saved_rhs;
    s->changed = true;
    out = ex_if(s->a, test, unswitch_fold(s, yes, depth + 1), unswitch_fold(s, no, depth + 1));
    out->loc = fold->loc;
    return out;
  }
  varmap_free(&s->inside);
  varmap_free(&s->rhs_of);
  s->inside = saved_inside;
  s->rhs_of = saved_rhs;
  return out;
}

static Expr *unswitch_rhs(Unswitch *s, Expr *rhs) {
  if (rhs->kind == E_IF) {
    Expr *n = ex_clone_shallow(s->a, rhs);
    n->args[1] = unswitch_block(s, rhs->args[1]);
    n->args[2] = unswitch_block(s, rhs->args[2]);
    return n;
  }
  if (!expr_is_loop(rhs))
    return rhs;
  Expr *n = ex_clone_shallow(s->a, rhs);
  n->body = unswitch_block(s, rhs->body); /* inner loops first */
  return n->kind == E_FOLD ? unswitch_fold(s, n, 0) : n;
}

static Expr *unswitch_block(Unswitch *s, Expr *e) {
  Bindings in, out = {0};
  bindings_of(s->a, e, &in);
  for (int i = 0; i < in.vars.len; i++)
    bindings_push(s->a, &out, in.vars.items[i], unswitch_rhs(s, in.rhss.items[i]));
  return bindings_build(s->a, &out, in.result);
}

Expr *unswitch_expr(Module *m, Expr *e) {
  Unswitch s = {.a = m->arena};
  Expr *r = unswitch_block(&s, e);
  return s.changed ? r : e;
}
