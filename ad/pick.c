/* pick.c: a loop that keeps the last value a condition picked carries the
 * index of that pick instead of the value (DESIGN 8.52).
 *
 * Requires: the source function in ANF with unique binders, type-checked
 * (before AD). Guarantees: the same values, in ANF once normalised again
 * (the caller does), where a fold `fold n s0 (k s) step` with a
 * floating-point state s (or the lowering's `(tuple s)`), an int counter k
 * and a step without effects that ends in `r = if c then e else s` (or
 * `if c then s else e`), e and the step's values it reads not depending
 * on s, becomes
 *     ks = fold n -1 (k p) (let s = if (lt p 0) s0 e[k := p] in
 *                            ...the step's bindings...
 *                            if c then k else p)
 *     v  = if (lt ks 0) s0 e[k := ks]
 * C's running maximum (`if (m < x[i]) m = x[i];`, ADBench's arr_max), and
 * any running minimum or last match, has this shape. The value the loop
 * carries is e at the last step that picked, or s0: computing e again at
 * that step gives the same bits (e and what it reads run there as in the
 * source, so nothing new can fail). The loop now carries an integer, so
 * it has no derivative: reverse mode stores no branch per step and runs no
 * reverse loop, only e's reverse at the one step that counts, and forward
 * mode carries no tangent through the loop. In exchange each step reads e
 * at the picked step again, so e and what it reads must be cheap: element
 * reads, C's operators, casts and selects (no <math.h> function), at most
 * MAX_PICK_COST bindings. */
#include "ad/ad.h"
#include "ad/util.h"

enum { MAX_PICK_COST = 8 };

typedef struct Pick {
  Arena *a;
} Pick;

static Expr *pick_block(Pick *s, Expr *e);
static Expr *pick_block_of(void *ctx, Expr *block) { return pick_block(ctx, block); }

static bool has_effects(const Expr *e) {
  if (e->kind == E_ACCUM || e->kind == E_UPDATE || e->kind == E_ALLOC || expr_is_log(e))
    return true;
  for (int i = 0; i < e->nargs; i++)
    if (has_effects(e->args[i]))
      return true;
  return e->body && has_effects(e->body);
}

/* Can the step's binding `rhs` be computed again at the picked step, at
 * every step: cheap, and nothing but values (no nested block). */
static bool cheap(const Expr *rhs) {
  switch (rhs->kind) {
  case E_CONST:
  case E_VAR:
  case E_INDEX:
  case E_GET:
  case E_LEN:
    return true;
  case E_PRIM: /* C's operators and casts, not <math.h>'s functions */
    for (int i = 0; i < rhs->nargs; i++)
      if (!expr_is_atom(rhs->args[i]))
        return false;
    return prim_info(rhs->op)->infix || prim_info(rhs->op)->cls == PC_CAST;
  case E_IF:
    return expr_is_select(rhs);
  default:
    return false;
  }
}

typedef struct Refs {
  VarMap *set;
} Refs;
static void add_ref(Var *v, void *ctx) { varmap_put(((Refs *)ctx)->set, v, v); }
static void refs_into(Expr *e, VarMap *set) {
  Refs r = {set};
  expr_visit_vars(e, add_ref, &r);
}


/* e with its step bindings (closure[0..n), in step order) copied under
 * fresh names, the counter read as `at`. */
static Expr *pick_value_at(Pick *s, Var *counter, Expr *at, Expr **cvars, Expr **crhss, int n,
                           const Bindings *e) {
  VarMap subst = {0};
  varmap_put(&subst, counter, at);
  Bindings out = {0};
  for (int i = 0; i < n + e->vars.len; i++) {
    Var *v = i < n ? cvars[i]->var : e->vars.items[i - n];
    Expr *rhs = i < n ? crhss[i] : e->rhss.items[i - n];
    Var *fresh = var_new(s->a, v->name, v->type);
    bindings_push(s->a, &out, fresh, expr_subst(s->a, rhs, &subst));
    varmap_put(&subst, v, ex_var(s->a, fresh));
  }
  Expr *r = bindings_build(s->a, &out, expr_subst(s->a, e->result, &subst));
  varmap_free(&subst);
  return r;
}

/* (if (lt p 0) s0 e[k := p]) for the int atom p; s0 the initial value */
static Expr *picked(Pick *s, Expr *fold, Expr *s0, Expr *p, Expr **cvars, Expr **crhss, int n,
                    const Bindings *e) {
  Expr *none = ex_prim2(s->a, P_LT, p, ex_const_int(s->a, ty_int(), 0));
  none->type = ty_int();
  Expr *r = ex_if(s->a, none, s0, pick_value_at(s, fold->var, p, cvars, crhss, n, e));
  r->type = s0->type;
  return r;
}

/* The value the state holds in the step: the state itself when it is a
 * number, its one field (the lowering's `(tuple m)`) read by the step's
 * binding *at, else NULL. The state must be read nowhere else. */
static Var *state_value(const Bindings *step, Var *st, int *at) {
  *at = -1;
  if (type_is_float(st->type))
    return st;
  if (st->type->kind != TY_TUPLE || st->type->name || st->type->n != 1 ||
      !type_is_float(st->type->elems[0]))
    return NULL;
  VarMap state = {0};
  varmap_put(&state, st, st);
  bool elsewhere = false;
  for (int i = 0; i < step->vars.len; i++) {
    Expr *r = step->rhss.items[i];
    if (r->kind == E_GET && r->args[0]->kind == E_VAR && r->args[0]->var == st && *at < 0)
      *at = i;
    else if (expr_mentions_any(r, &state))
      elsewhere = true;
  }
  elsewhere = elsewhere || expr_mentions_any(step->result, &state);
  varmap_free(&state);
  if (elsewhere)
    *at = -1;
  return *at >= 0 ? step->vars.items[*at] : NULL;
}

/* The step's binding of the state's next value, `if c then e else v` or
 * `if c then v else e` (v the state's value), as the last binding or the
 * one the last binding, `(tuple r)`, packs: its index, else -1. */
static int choice_of(const Bindings *step, Var *st) {
  int last = step->vars.len - 1;
  if (last < 0 || step->result->kind != E_VAR || step->result->var != step->vars.items[last])
    return -1;
  if (type_is_float(st->type))
    return last;
  Expr *pack = step->rhss.items[last];
  if (last < 1 || pack->kind != E_TUPLE || pack->nargs != 1 || pack->args[0]->kind != E_VAR ||
      pack->args[0]->var != step->vars.items[last - 1])
    return -1;
  return last - 1;
}

/* The fold's rewriting when it has the shape above, else NULL; `ks` gets
 * the new fold's variable, the result is v's new right-hand side. */
static Expr *pick_fold(Pick *s, Expr *fold, Var **ks, Expr **new_fold) {
  Var *st = fold->var2;
  if (!type_eq(fold->var->type, ty_int()) || has_effects(fold->body))
    return NULL;
  Bindings step = {0};
  bindings_of(s->a, fold->body, &step);
  int read_at;
  Var *sv = state_value(&step, st, &read_at);
  int at = sv ? choice_of(&step, st) : -1;
  if (at < 0 || at < read_at)
    return NULL;
  Expr *choice = step.rhss.items[at];
  if (choice->kind != E_IF)
    return NULL;
  int kept = -1; /* the branch that keeps the state */
  for (int b = 1; b <= 2; b++)
    if (choice->args[b]->kind == E_VAR && choice->args[b]->var == sv)
      kept = kept < 0 ? b : -1;
  if (kept < 0)
    return NULL;
  Expr *pick = choice->args[3 - kept];
  Bindings e = {0};
  bindings_of(s->a, pick, &e);
  /* what depends on the state, in the step */
  VarMap tainted = {0};
  varmap_put(&tainted, st, st);
  varmap_put(&tainted, sv, sv);
  for (int i = 0; i < at; i++)
    if (expr_mentions_any(step.rhss.items[i], &tainted))
      varmap_put(&tainted, step.vars.items[i], step.vars.items[i]);
  /* e's own bindings, then the step's bindings e reads, in step order */
  VarMap need = {0};
  bool ok = e.vars.len <= MAX_PICK_COST && !expr_mentions_any(pick, &tainted);
  for (int i = 0; ok && i < e.vars.len; i++)
    ok = cheap(e.rhss.items[i]);
  refs_into(pick, &need);
  Expr **cvars = arena_alloc(s->a, sizeof(Expr *) * (size_t)(at + 1));
  Expr **crhss = arena_alloc(s->a, sizeof(Expr *) * (size_t)(at + 1));
  int n = 0;
  for (int i = at - 1; ok && i >= 0; i--) {
    Var *v = step.vars.items[i];
    if (!varmap_has(&need, v))
      continue;
    ok = cheap(step.rhss.items[i]) && !varmap_has(&tainted, v) &&
         n + 1 + e.vars.len <= MAX_PICK_COST;
    refs_into(step.rhss.items[i], &need);
    cvars[n] = ex_var(s->a, v);
    crhss[n++] = step.rhss.items[i];
  }
  varmap_free(&tainted);
  varmap_free(&need);
  if (!ok)
    return NULL;
  for (int i = 0; i < n / 2; i++) { /* into step order */
    Expr *t = cvars[i], *r = crhss[i];
    cvars[i] = cvars[n - 1 - i], crhss[i] = crhss[n - 1 - i];
    cvars[n - 1 - i] = t, crhss[n - 1 - i] = r;
  }
  Expr *s0 = fold->args[1];
  if (sv != st) {
    s0 = ex_get(s->a, 0, s0);
    s0->type = sv->type;
  }
  /* the new step: the state's value as the value picked so far, the
   * step's bindings before the choice, and the pick's index */
  Var *p = var_new(s->a, "pick", ty_int());
  Bindings nstep = {0};
  bindings_push(s->a, &nstep, sv, picked(s, fold, s0, ex_var(s->a, p), cvars, crhss, n, &e));
  for (int i = 0; i < at; i++)
    if (i != read_at)
      bindings_push(s->a, &nstep, step.vars.items[i], step.rhss.items[i]);
  Expr *now = ex_var(s->a, fold->var), *before = ex_var(s->a, p);
  Expr *index = ex_if(s->a, choice->args[0], kept == 2 ? now : before, kept == 2 ? before : now);
  index->type = ty_int();
  Var *r = var_new(s->a, "picked_at", ty_int());
  bindings_push(s->a, &nstep, r, index);
  *new_fold = ex_fold(s->a, fold->args[0], ex_const_int(s->a, ty_int(), -1), fold->var, p,
                      bindings_build(s->a, &nstep, ex_var(s->a, r)));
  (*new_fold)->type = ty_int();
  (*new_fold)->loc = fold->loc;
  *ks = var_new(s->a, "last_pick", ty_int());
  Expr *value = picked(s, fold, s0, ex_var(s->a, *ks), cvars, crhss, n, &e);
  if (sv == st)
    return value;
  Expr *packed = ex_tuple(s->a, 1, &value);
  packed->type = st->type;
  return packed;
}

static Expr *pick_block(Pick *s, Expr *e) {
  Bindings b = {0}, out = {0};
  bindings_of(s->a, e, &b);
  bool changed = false;
  for (int k = 0; k < b.vars.len; k++) {
    Expr *r = b.rhss.items[k];
    Expr *n = expr_map_blocks(s->a, r, pick_block_of, s);
    Var *ks;
    Expr *nf;
    Expr *value = n->kind == E_FOLD ? pick_fold(s, n, &ks, &nf) : NULL;
    if (value) {
      bindings_push(s->a, &out, ks, nf);
      n = value;
    }
    changed = changed || n != r;
    bindings_push(s->a, &out, b.vars.items[k], n);
  }
  Expr *result = expr_map_blocks(s->a, b.result, pick_block_of, s);
  changed = changed || result != b.result;
  return changed ? bindings_build(s->a, &out, result) : e;
}

Expr *pick_last_expr(Module *m, Expr *body) {
  Pick s = {.a = m->arena};
  return pick_block(&s, body);
}
