/* fuse_sweep.c: consecutive loops of a derivative over one range, whose
 * steps touch each shared array only at the counter, run as one loop
 * (DESIGN 8.59).
 *
 * Requires: a derivative after CSE and DCE (optimise in driver.c): ANF,
 * unique binders, typed; cotangent buffers written by `accum` effects.
 * Guarantees: the same values and effects (not in ANF: the caller
 * normalises again), where one pair
 *
 *   let a = L1 in <cheap pure lets> let b = L2 in ...
 *
 * of loops over the same trip count atom became one loop whose step runs
 * L1's step i and then L2's step i. Each of L1, L2 is a sum of effects
 * (its steps yield the empty tuple: the reverse loops of builds, the
 * seeding and adding of cotangent buffers) or a fold, at most one of
 * them a fold; their steps hold no loop, call, update, scatter or term of
 * the undo log. The lets between that do not depend on L1 move before
 * the fused loop; those that do stay after it, and L2 must not read them,
 * nor read memory they write or write memory they read (8.73).
 * The caller runs the pass again until it fuses nothing.
 *
 * Why: loop fusion before AD (fuse.c) joins primal loops; the reverse
 * sweep still ran one loop per cotangent array: seeding a buffer from
 * the seed, adding another into it, the reverse of each build. Over
 * arrays of n elements each loop is a pass over memory, and the sweep of
 * three elementwise loops made six passes where the hand-written
 * gradient makes one.
 *
 * When: an array (through views, its base) that one step writes (accum,
 * store) and the other step reads or writes must be the same variable,
 * and both steps must touch it only at their counter: element i is then
 * touched by step i of L1 and step i of L2 alone, in the same order as
 * before. Any other index, or two views of one base, keeps the loops
 * apart. Arrays one step alone touches are free. As in fuse.c, steps that
 * both call <math.h> functions stay apart (measured slower). */
#include <stdlib.h>

#include "ad/ad.h"
#include "ad/util.h"

typedef struct Sweep {
  Arena *a;
  VarMap defs; /* Var -> its right-hand side, anywhere in the function */
  FILE *dump;
  const char *fname;
} Sweep;

/* One element access of a step. */
typedef struct Touch {
  const Var *array, *base;
  bool at_counter, writes;
  struct Touch *next;
} Touch;

typedef struct Step {
  const Var *counter;
  Touch *touches;
  bool refused; /* a term the step must not hold */
} Step;

static bool is_unit(const Type *t) { return t && t->kind == TY_TUPLE && t->n == 0; }

/* A sum whose steps yield nothing: it is there for its effects. */
static bool effect_sum(const Expr *e) {
  return e->kind == E_SUM && e->nargs == 1 && is_unit(e->type);
}

static bool sweep_loop(const Expr *e) {
  return effect_sum(e) || (e->kind == E_FOLD && e->var2 && !type_holds_array(e->var2->type));
}

/* The variable whose memory v names: through views and copies of names. */
static const Var *base_of(const Sweep *s, const Var *v) {
  for (int guard = 0; guard < 64; guard++) {
    const Expr *r = varmap_get(&s->defs, v);
    if (!r || (r->kind != E_VIEW && r->kind != E_VAR) ||
        (r->kind == E_VIEW && r->args[0]->kind != E_VAR))
      return v;
    v = r->kind == E_VIEW ? r->args[0]->var : r->var;
  }
  return v;
}

static void touch(Sweep *s, Step *st, const Expr *array, const Expr *at, bool writes) {
  if (array->kind != E_VAR) {
    st->refused = true;
    return;
  }
  Touch *t = calloc(1, sizeof *t);
  if (!t) {
    st->refused = true;
    return;
  }
  t->array = array->var;
  t->base = base_of(s, array->var);
  t->at_counter = at->kind == E_VAR && at->var == st->counter;
  t->writes = writes;
  t->next = st->touches;
  st->touches = t;
}

/* Records every element access of e, and refuses the terms a fused step
 * must not hold. */
static void analyse(Sweep *s, Step *st, const Expr *e) {
  if (!e || st->refused)
    return;
  if (expr_is_log(e) || expr_is_loop(e) || e->kind == E_UPDATE || e->kind == E_CALL ||
      e->kind == E_LCALL || e->kind == E_ALLOC) {
    st->refused = true;
    return;
  }
  if (e->kind == E_INDEX)
    touch(s, st, e->args[0], e->args[1], false);
  else if (e->kind == E_ACCUM)
    touch(s, st, e->args[0], e->args[1], true);
  for (int i = 0; i < e->nargs; i++)
    analyse(s, st, e->args[i]);
  if (e->kind == E_LET)
    analyse(s, st, e->body);
}

static void free_step(Step *st) {
  while (st->touches) {
    Touch *t = st->touches->next;
    free(st->touches);
    st->touches = t;
  }
}

/* May the other step's accesses meet writer's writes in a changed order? */
static bool meets(const Step *writer, const Step *other) {
  for (const Touch *w = writer->touches; w; w = w->next) {
    if (!w->writes)
      continue;
    for (const Touch *o = other->touches; o; o = o->next)
      if (o->base == w->base && (o->array != w->array || !o->at_counter || !w->at_counter))
        return true;
  }
  return false;
}

/* Records the memory a binding between the loops names: an element read
 * (`index A e`) reads A; any other mention of an array (an addition into
 * it, a call or a log term given it) may write it. */
static void note_memory(Sweep *s, Step *st, const Expr *e) {
  if (!e)
    return;
  if (e->kind == E_VAR && type_holds_array(e->type)) {
    touch(s, st, e, e, true);
    return;
  }
  for (int i = 0; i < e->nargs; i++) {
    const Expr *a = e->args[i];
    if (i == 0 && e->kind == E_INDEX && a->kind == E_VAR)
      touch(s, st, a, e->args[1], false);
    else
      note_memory(s, st, a);
  }
  if (e->kind == E_LET || expr_is_loop(e))
    note_memory(s, st, e->body);
}

/* May a binding that ran between the loops, and after fusion runs after
 * the second loop's steps (it depends on the first loop), see memory the
 * second step changes, or change memory that step reads? Gen seed 246550:
 * the cotangent of `v5 = t4[2]`, added into t4's buffer after the first
 * reverse loop, came after the build's reverse loop that read the buffer,
 * and was lost. */
static bool crosses(Sweep *s, const Expr *between, const Expr *l2) {
  Step b = {.counter = l2->var}, m = {0};
  analyse(s, &b, l2->body);
  note_memory(s, &m, between);
  bool crossed = b.refused || m.refused;
  for (const Touch *t = m.touches; t && !crossed; t = t->next)
    for (const Touch *o = b.touches; o && !crossed; o = o->next)
      crossed = o->base == t->base && (t->writes || o->writes);
  free_step(&b);
  free_step(&m);
  return crossed;
}

static bool fusable(Sweep *s, const Expr *l1, const Expr *l2) {
  if (!atom_eq(l1->args[0], l2->args[0]) || !type_eq(l1->var->type, l2->var->type) ||
      (l1->kind == E_FOLD && l2->kind == E_FOLD) ||
      (expr_any(l1->body, expr_is_math_call) && expr_any(l2->body, expr_is_math_call)))
    return false;
  Step a = {.counter = l1->var}, b = {.counter = l2->var};
  analyse(s, &a, l1->body);
  analyse(s, &b, l2->body);
  bool ok = !a.refused && !b.refused && !meets(&a, &b) && !meets(&b, &a);
  free_step(&a);
  free_step(&b);
  return ok;
}

static Expr *typed(Expr *e, Type *t) {
  e->type = t;
  return e;
}

/* Appends the bindings of step `body` (its counter renamed to `counter`)
 * to `out`; returns the step's result. */
static Expr *append_step(Sweep *s, Bindings *out, const Expr *loop, Var *counter) {
  Expr *body = loop->body;
  if (loop->var != counter) {
    VarMap subst = {0};
    varmap_put(&subst, loop->var, typed(ex_var(s->a, counter), counter->type));
    body = expr_subst(s->a, body, &subst);
    varmap_free(&subst);
  }
  Bindings b = {0};
  bindings_of(s->a, body, &b);
  for (int k = 0; k < b.vars.len; k++)
    bindings_push(s->a, out, b.vars.items[k], b.rhss.items[k]);
  return b.result;
}

/* The loop running l1's step i, then l2's. */
static Expr *fused_loop(Sweep *s, const Expr *l1, const Expr *l2) {
  Arena *a = s->a;
  const Expr *fold = l1->kind == E_FOLD ? l1 : l2->kind == E_FOLD ? l2 : NULL;
  Var *counter = fold ? fold->var : l1->var;
  Bindings body = {0};
  Expr *r1 = append_step(s, &body, l1, counter);
  if (l1->kind == E_FOLD) { /* its result outlives l2's step */
    Var *kept = var_new(a, "after_first", r1->type);
    bindings_push(a, &body, kept, r1);
    r1 = typed(ex_var(a, kept), kept->type);
  }
  Expr *r2 = append_step(s, &body, l2, counter);
  Expr *result = l1->kind == E_FOLD ? r1 : r2;
  Expr *loop = fold ? ex_fold(a, fold->args[0], fold->args[1], counter, fold->var2,
                              bindings_build(a, &body, result))
                    : ex_sum(a, l1->args[0], counter, bindings_build(a, &body, result));
  loop->type = fold ? fold->type : l1->type;
  loop->loc = l1->loc;
  return loop;
}

/* Tries the loop at bindings index `first` with the next loop of the
 * block; on success rewrites `b` and returns true. */
static bool try_pair(Sweep *s, Bindings *b, int first) {
  Var *v1 = b->vars.items[first];
  Expr *l1 = b->rhss.items[first];
  VarMap after = {0}; /* v1 and the bindings that depend on it */
  varmap_put(&after, v1, v1);
  int second = -1;
  for (int k = first + 1; k < b->vars.len; k++) {
    Var *v = b->vars.items[k];
    Expr *r = b->rhss.items[k];
    if (sweep_loop(r)) {
      second = k;
      break;
    }
    if (expr_mentions_any(r, &after))
      varmap_put(&after, v, v); /* stays after the loops */
    else if (!movable_binding(r, false)) /* a read after the first loop's */
      break;                               /* effects stays there */
  }
  bool ok = second >= 0;
  Expr *l2 = ok ? b->rhss.items[second] : NULL;
  for (int k = 0; ok && k < after.cap; k++) {
    const Var *x = after.keys[k];
    ok = !x || !expr_mentions(l2, x);
  }
  for (int k = first + 1; ok && k < second; k++)
    ok = !varmap_has(&after, b->vars.items[k]) || !crosses(s, b->rhss.items[k], l2);
  ok = ok && fusable(s, l1, l2);
  if (!ok) {
    varmap_free(&after);
    return false;
  }
  Expr *loop = fused_loop(s, l1, l2);
  if (s->dump && l1->loc.line > 0 && l2->loc.line > 0)
    fprintf(s->dump, "chad: %s: two loops of the sweep (of the loops at lines %d and %d) run as one loop\n",
            s->fname, l1->loc.line, l2->loc.line);
  else if (s->dump)
    fprintf(s->dump, "chad: %s: two loops of the sweep run as one loop\n", s->fname);
  Arena *a = s->a;
  Var *v2 = b->vars.items[second];
  Bindings out = {0};
  for (int k = 0; k < first; k++)
    bindings_push(a, &out, b->vars.items[k], b->rhss.items[k]);
  for (int k = first + 1; k < second; k++)
    if (!varmap_has(&after, b->vars.items[k]))
      bindings_push(a, &out, b->vars.items[k], b->rhss.items[k]);
  /* the fold's result is the fused loop's; a sum of effects yields () */
  Var *fold_var = l1->kind == E_FOLD ? v1 : l2->kind == E_FOLD ? v2 : v1;
  bindings_push(a, &out, fold_var, loop);
  Var *vs[2] = {v1, v2};
  for (int j = 0; j < 2; j++)
    if (vs[j] != fold_var)
      bindings_push(a, &out, vs[j], typed(ex_tuple(a, 0, NULL), ty_unit(a)));
  for (int k = first + 1; k < second; k++)
    if (varmap_has(&after, b->vars.items[k]))
      bindings_push(a, &out, b->vars.items[k], b->rhss.items[k]);
  for (int k = second + 1; k < b->vars.len; k++)
    bindings_push(a, &out, b->vars.items[k], b->rhss.items[k]);
  out.result = b->result;
  *b = out;
  varmap_free(&after);
  return true;
}

static bool try_pair_of(void *ctx, Bindings *b, int first) { return try_pair(ctx, b, first); }

Expr *fuse_sweeps(Module *m, Expr *body, FILE *dump, const char *fname) {
  Sweep s = {.a = m->arena, .dump = dump, .fname = fname};
  collect_let_defs(&s.defs, body);
  Expr *r = rewrite_first_pair(s.a, body, sweep_loop, try_pair_of, &s);
  varmap_free(&s.defs);
  return r;
}
