/* steporder.c: reverse loops whose steps are independent run forwards.
 *
 * Requires ANF with unique binders, after linear-map elimination (no
 * linear maps). Guarantees the same function, in ANF with unique binders,
 * where a fold
 *     (fold n init (j rst) ... (let (k (sub last j)) ...) ...)
 * with `last` bound to (sub n 1), visits step k = j instead of n-1-j when
 * no step depends on another: then the steps may run in any order.
 *
 * Reverse mode makes such folds (ad/rev.c finish_reverse_fold): step k of
 * a primal loop is reversed at j = n-1-k. The C compiler vectorises a loop
 * that walks its arrays backwards with shuffles that reverse each vector,
 * and prefetches it less well; GMM's Qtimesx reverse loop is a third of
 * f_rev at d = 20. Steps are independent when
 *   - each field of the state is a unit (a cotangent kept in buffers) or a
 *     running sum `next_i = (add (get i rst) v)` whose order is free
 *     (Expr.free_order: the contributions to a scalar outside the loop),
 *     the sum read nowhere else and v computed without the state;
 *   - j is used only to compute k;
 *   - a step's effects are accumulations into cotangent buffers (which
 *     commute with each other), and it reads no array, by any view, that
 *     a step accumulates into: no step sees another's contributions;
 *   - no step touches the undo log, stores, updates or allocates, or calls
 *     a function that adds into buffers.
 * Sums then add the same terms in another order, which rounds differently
 * only as DESIGN 8.49 already allows. */
#include "ad/ad.h"
#include "ad/util.h"

typedef struct StepOrder {
  Arena *a;
  VarMap rhs_of; /* Var -> its right-hand side, anywhere in the function */
  VarMap fresh;  /* Var -> non-NULL for a parameter or an alloc: an array
                    no other variable of the function aliases but through
                    its views */
  VarMap uses;   /* Var -> use count (as (void *)(long)) within one body */
} StepOrder;

static Expr *order_block(StepOrder *s, Expr *e);

static Expr *note_block(void *ctx, Expr *block);

static void note_bindings(StepOrder *s, Expr *e) {
  Bindings b = {0};
  bindings_of(s->a, e, &b);
  for (int i = 0; i < b.vars.len; i++) {
    Expr *rhs = b.rhss.items[i];
    varmap_put(&s->rhs_of, b.vars.items[i], rhs);
    if (rhs->kind == E_ALLOC)
      varmap_put(&s->fresh, b.vars.items[i], rhs);
    expr_map_blocks(s->a, rhs, note_block, s);
  }
}

static Expr *note_block(void *ctx, Expr *block) {
  note_bindings(ctx, block);
  return block;
}

/* The array a variable names: through views, the array they view. NULL
 * when that array might be reached under another name too (an array out
 * of a tuple, a call's result). */
static Var *root_of(const StepOrder *s, Var *v) {
  for (;;) {
    if (varmap_has(&s->fresh, v))
      return v;
    Expr *rhs = varmap_get(&s->rhs_of, v);
    if (!rhs)
      return NULL;
    if (rhs->kind == E_VIEW && rhs->args[0]->kind == E_VAR)
      v = rhs->args[0]->var;
    else if (rhs->kind == E_VAR)
      v = rhs->var;
    else
      return NULL;
  }
}

/* What the steps of a loop read and accumulate into. */
typedef struct Effects {
  PtrVec read;    /* root Var*s of arrays read */
  PtrVec written; /* root Var*s of arrays accumulated into */
  bool unknown;   /* an effect or an array this pass cannot follow */
} Effects;

static void note_array(const StepOrder *s, Effects *fx, PtrVec *into, const Expr *atom) {
  Var *root = atom->kind == E_VAR ? root_of(s, atom->var) : NULL;
  if (!root)
    fx->unknown = true;
  else
    ptrvec_push(s->a, into, root);
}

static void effects_of(const StepOrder *s, Expr *e, Effects *fx);

static Expr *effects_block(void *ctx, Expr *block) {
  void **pair = ctx;
  effects_of(pair[0], block, pair[1]);
  return block;
}

static void effects_of_rhs(const StepOrder *s, Expr *rhs, Effects *fx) {
  switch (rhs->kind) {
  case E_INDEX:
    note_array(s, fx, &fx->read, rhs->args[0]);
    return;
  case E_ACCUM:
    if (rhs->index) /* a store: the last step's value wins */
      fx->unknown = true;
    else
      note_array(s, fx, &fx->written, rhs->args[0]);
    return;
  case E_CALL:
    if (call_adds_into_buffers(rhs)) {
      fx->unknown = true;
      return;
    }
    for (int i = 0; i < rhs->nargs; i++)
      if (rhs->args[i]->type && type_holds_array(rhs->args[i]->type))
        note_array(s, fx, &fx->read, rhs->args[i]);
    return;
  case E_CONST:
  case E_VAR:
  case E_PRIM:
  case E_TUPLE:
  case E_GET:
  case E_ZERO:
  case E_PLUS:
  case E_LEN:
  case E_VIEW:
  case E_TABLE:
  case E_IF:
  case E_SUM:
  case E_BUILD:
  case E_FOLD:
  case E_WHILE: {
    void *pair[2] = {(void *)s, fx};
    expr_map_blocks(s->a, rhs, effects_block, pair);
    return;
  }
  default: /* the undo log, stores, updates, allocations, tapes */
    fx->unknown = true;
    return;
  }
}

static void effects_of(const StepOrder *s, Expr *e, Effects *fx) {
  Bindings b = {0};
  bindings_of(s->a, e, &b);
  for (int i = 0; i < b.vars.len && !fx->unknown; i++)
    effects_of_rhs(s, b.rhss.items[i], fx);
  if (!expr_is_atom(b.result))
    effects_of_rhs(s, b.result, fx);
}

static void count_use(Var *v, void *ctx) {
  StepOrder *s = ctx;
  varmap_put(&s->uses, v, (void *)((long)varmap_get(&s->uses, v) + 1));
}

static long uses(const StepOrder *s, const Var *v) { return (long)varmap_get(&s->uses, v); }

static const Expr *bound_in(const Bindings *b, const Expr *atom) {
  if (atom->kind != E_VAR)
    return NULL;
  for (int i = 0; i < b->vars.len; i++)
    if (b->vars.items[i] == atom->var)
      return b->rhss.items[i];
  return NULL;
}

/* Is field i of the step's next state `next` a running sum in free order
 * of field i of the state, read nowhere else? */
static bool free_running_sum(const StepOrder *s, const Bindings *b, Var *rst, int i,
                             const Expr *next) {
  const Expr *add = bound_in(b, next);
  if (!add || add->kind != E_PRIM || add->op != P_ADD || !add->free_order || uses(s, next->var) != 1)
    return false;
  for (int side = 0; side < 2; side++) {
    const Expr *get = bound_in(b, add->args[side]);
    if (get && get->kind == E_GET && get->index == i && get->args[0]->kind == E_VAR &&
        get->args[0]->var == rst && uses(s, add->args[side]->var) == 1)
      return true;
  }
  return false;
}

/* May the steps of fold `loop` run in any order? Then the binding of its
 * reversed counter is returned (its index in `b`), else -1. */
static int reversed_counter(StepOrder *s, const Expr *loop, const Bindings *b) {
  Var *j = loop->var, *rst = loop->var2;
  int at = -1;
  for (int i = 0; i < b->vars.len && at < 0; i++) {
    const Expr *r = b->rhss.items[i];
    if (r->kind == E_PRIM && r->op == P_SUB && r->args[1]->kind == E_VAR && r->args[1]->var == j &&
        r->args[0]->kind == E_VAR) {
      const Expr *last = varmap_get(&s->rhs_of, r->args[0]->var);
      if (last && last->kind == E_PRIM && last->op == P_SUB && atom_eq(last->args[0], loop->args[0]) &&
          last->args[1]->kind == E_CONST && last->args[1]->ival == 1)
        at = i;
    }
  }
  if (at < 0)
    return -1;
  varmap_free(&s->uses);
  s->uses = (VarMap){0};
  expr_visit_vars(loop->body, count_use, s);
  if (uses(s, j) != 1)
    return -1;
  const Expr *next = bound_in(b, b->result);
  Type *st = rst->type;
  if (!next || next->kind != E_TUPLE || !st || st->kind != TY_TUPLE || next->nargs != st->n)
    return -1;
  long rst_uses = 0;
  for (int i = 0; i < st->n; i++) {
    if (type_is_unit(st->elems[i]))
      continue;
    if (!free_running_sum(s, b, rst, i, next->args[i]))
      return -1;
    rst_uses++;
  }
  /* units aside, the state is read only by the running sums */
  for (int i = 0; i < b->vars.len; i++) {
    const Expr *r = b->rhss.items[i];
    if (r->kind == E_GET && r->args[0]->kind == E_VAR && r->args[0]->var == rst &&
        type_is_unit(r->type))
      rst_uses++;
  }
  if (uses(s, rst) != rst_uses)
    return -1;
  Effects fx = {0};
  effects_of(s, loop->body, &fx);
  if (fx.unknown)
    return -1;
  for (int w = 0; w < fx.written.len; w++)
    for (int r = 0; r < fx.read.len; r++)
      if (fx.written.items[w] == fx.read.items[r])
        return -1;
  return at;
}

static Expr *order_block_of(void *ctx, Expr *block) { return order_block(ctx, block); }

static Expr *order_fold(StepOrder *s, Expr *loop) {
  Expr *inner = expr_map_blocks(s->a, loop, order_block_of, s);
  Bindings b = {0};
  bindings_of(s->a, inner->body, &b);
  int at = reversed_counter(s, inner, &b);
  if (at < 0)
    return inner;
  b.rhss.items[at] = ex_var(s->a, inner->var);
  Expr *c = arena_alloc(s->a, sizeof *c);
  *c = *inner;
  c->body = bindings_build(s->a, &b, b.result);
  return c;
}

static Expr *order_block(StepOrder *s, Expr *e) {
  Bindings b = {0};
  bindings_of(s->a, e, &b);
  bool changed = false;
  for (int k = 0; k < b.vars.len; k++) {
    Expr *r = b.rhss.items[k];
    Expr *n = r->kind == E_FOLD ? order_fold(s, r) : expr_map_blocks(s->a, r, order_block_of, s);
    changed = changed || n != r;
    b.rhss.items[k] = n;
  }
  return changed ? bindings_build(s->a, &b, b.result) : e;
}

Expr *order_reverse_steps(Module *m, const Func *f, Expr *body) {
  StepOrder s = {.a = m->arena};
  for (int i = 0; i < f->nparams; i++)
    varmap_put(&s.fresh, f->params[i], f->params[i]);
  note_bindings(&s, body);
  Expr *r = order_block(&s, body);
  varmap_free(&s.rhs_of);
  varmap_free(&s.fresh);
  varmap_free(&s.uses);
  return r;
}
