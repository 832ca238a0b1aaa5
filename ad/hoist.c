/* hoist.c: an element every step of a loop reads and no step writes is
 * read once, before the loop (DESIGN 8.32).
 *
 * Requires: the source function in ANF with unique binders, type-checked
 * (before AD). Guarantees: the same values, in ANF once normalised again
 * (the caller does), where a fold whose step binds at its top level
 * `v = index A e`, e bound before the fold, A a version of the fold's state
 * (or of a field of it) that no write of the fold at any step can reach at
 * e (ad/final.c, invariant_read), instead binds before the fold
 *     h = if (gt n 0) (index A0 e) 0
 * (A0 the state's array before the loop; no read when no step runs, as in
 * the source) and v = h in the step; several such reads share one branch
 * that yields their tuple (8.72), and a read of the same element one
 * variable (8.70). So does an element the step reads at
 * such an e of an array from outside the fold that the fold only reads
 * (GMM's xcentered[i] in Qtimesx's inner loop), which LICM would move in
 * the primal but not in the reverse sweep, where its cotangent is added
 * into the same element at every step. LICM cannot do this: it moves no
 * read of an array the loop updates. Reverse mode gains most: v's
 * cotangent becomes a running sum of the reverse loop, added into the
 * array's once after it, instead of a store and a load of the same
 * element at every step, a chain through memory that no compiler breaks
 * (Cholesky's l[j*n + k] in its loop over i). */
#include "ad/ad.h"
#include "ad/final.h"
#include "ad/util.h"

typedef struct Hoist {
  Arena *a;
  Expr *body; /* the whole function: where ad/final.c finds definitions */
  int made;   /* names of the reads made before loops */
} Hoist;

static Expr *hoist_block(Hoist *s, Expr *e);

/* The array whose element the step reads, before the loop: the initial
 * state, or its field. */
static Expr *initial_array(Hoist *s, Expr *fold, int field, Bindings *before) {
  Expr *init = fold->args[1];
  if (field < 0)
    return init;
  if (init->kind == E_TUPLE)
    return init->args[field];
  Expr *get = ex_get(s->a, field, init);
  Var *v = var_new(s->a, arena_printf(s->a, "hoisted_arr_%d", s->made), get->type);
  bindings_push(s->a, before, v, get);
  return ex_var(s->a, v);
}

/* Atom e of the step, computed before the loop: the step's bindings it
 * is made of (integer arithmetic that cannot fail) copied to `before`,
 * once each (`copies`). NULL when e needs the counter or anything else
 * the step computes. */
static Expr *index_before(Hoist *s, Expr *fold, const Bindings *step, Expr *e, VarMap *copies,
                          Bindings *before, int depth) {
  if (e->kind != E_VAR)
    return e->kind == E_CONST ? e : NULL;
  if (e->var == fold->var || e->var == fold->var2 || depth > 32)
    return NULL;
  Expr *copy = varmap_get(copies, e->var);
  if (copy)
    return copy;
  int k = 0;
  while (k < step->vars.len && step->vars.items[k] != e->var)
    k++;
  if (k == step->vars.len)
    return e; /* bound before the loop */
  Expr *rhs = step->rhss.items[k];
  if (rhs->kind != E_PRIM || rhs->type->kind != TY_INT || !prim_may_hoist(rhs))
    return NULL;
  Expr **args = arena_alloc(s->a, sizeof(Expr *) * (size_t)rhs->nargs);
  for (int i = 0; i < rhs->nargs; i++)
    if (!(args[i] = index_before(s, fold, step, rhs->args[i], copies, before, depth + 1)))
      return NULL;
  Expr *r = ex_prim(s->a, rhs->op, rhs->nargs, args);
  r->type = rhs->type;
  Var *v = var_new(s->a, arena_printf(s->a, "hoisted_at_%d", s->made++), rhs->type);
  bindings_push(s->a, before, v, r);
  copy = ex_var(s->a, v);
  varmap_put(copies, e->var, copy);
  return copy;
}

/* Does e refer to v anywhere other than as the array of an element read
 * or a length? */
static bool used_otherwise(const Expr *e, const Var *v) {
  if (!e)
    return false;
  if (e->kind == E_VAR)
    return e->var == v;
  for (int i = 0; i < e->nargs; i++) {
    const Expr *a = e->args[i];
    if (i == 0 && (e->kind == E_INDEX || e->kind == E_LEN) && a->kind == E_VAR)
      continue;
    if (used_otherwise(a, v))
      return true;
  }
  return (e->kind == E_LET || expr_is_loop(e)) && used_otherwise(e->body, v);
}

/* Is the atom a an array from outside the fold that the fold only reads
 * elements and the length of (never carries, updates, views or passes
 * on), so that no step changes it? */
static bool from_outside(const Expr *fold, const Bindings *step, const Expr *a) {
  if (a->kind != E_VAR || a->var == fold->var2 || a->var->type->kind != TY_ARRAY)
    return false;
  for (int k = 0; k < step->vars.len; k++)
    if (step->vars.items[k] == a->var)
      return false;
  return !used_otherwise(fold->args[1], a->var) && !used_otherwise(fold->body, a->var);
}

/* A read moved before the fold: the element `at` of `arr`, to be bound to
 * the variable h. */
typedef struct Moved {
  Expr *arr, *at;
  Var *h;
} Moved;

/* The variable of an earlier read of the same element before this fold,
 * or NULL. The step may read one element many times (`a[0]` in each of a
 * thousand statements): each copy would be its own `if (n > 0)` before
 * the loop, which CSE cannot merge across branches, and a long run of
 * branches on one condition is what clang's jump threading takes
 * quadratic time over (fuzz seed s58, input 18: over 5 minutes at -O2). */
static Var *moved_before(const PtrVec *moved, const Expr *arr, const Expr *at, const Type *t) {
  for (int i = 0; i < moved->len; i++) {
    const Moved *m = moved->items[i];
    if (atom_eq(m->arr, arr) && atom_eq(m->at, at) && type_eq(m->h->type, t))
      return m->h;
  }
  return NULL;
}

/* Binds the moved reads before the fold, under one `if (n > 0)`: one
 * read is `h = if go (index A e) 0`; several are read in one branch that
 * yields their tuple, `t = if go (tuple ...) (tuple 0 ...)`, and
 * `h_i = get i t`. A branch per read made a run of a thousand branches on
 * one condition for a step reading a[0] to a[999], over which clang's
 * jump threading took 12 minutes at -O2 (DESIGN 8.70, 8.72). */
static void bind_moved(Hoist *s, const Expr *fold, const PtrVec *moved, int first,
                       Bindings *before) {
  int n = moved->len;
  Var *go = var_new(s->a, arena_printf(s->a, "hoisted_go_%d", first), ty_int());
  bindings_push(s->a, before, go,
                ex_prim2(s->a, P_GT, fold->args[0], ex_const_int(s->a, fold->args[0]->type, 0)));
  Expr **reads = arena_alloc(s->a, sizeof(Expr *) * (size_t)n);
  Expr **zeros = arena_alloc(s->a, sizeof(Expr *) * (size_t)n);
  for (int i = 0; i < n; i++) {
    const Moved *m = moved->items[i];
    reads[i] = ex_index(s->a, m->arr, m->at);
    reads[i]->type = m->h->type;
    zeros[i] = ex_const(s->a, m->h->type, 0);
  }
  if (n == 1) {
    Expr *read = ex_if(s->a, ex_var(s->a, go), reads[0], zeros[0]);
    read->type = reads[0]->type;
    bindings_push(s->a, before, ((Moved *)moved->items[0])->h, read);
    return;
  }
  Expr *all = ex_if(s->a, ex_var(s->a, go), ex_tuple(s->a, n, reads), ex_tuple(s->a, n, zeros));
  all->type = all->args[1]->type;
  Var *t = var_new(s->a, arena_printf(s->a, "hoisted_all_%d", first), all->type);
  bindings_push(s->a, before, t, all);
  for (int i = 0; i < n; i++)
    bindings_push(s->a, before, ((Moved *)moved->items[i])->h, ex_get(s->a, i, ex_var(s->a, t)));
}

/* The fold with its invariant reads taken out, their bindings appended
 * to `before`; the fold itself when there are none. */
static Expr *hoist_fold(Hoist *s, Expr *fold, Bindings *before) {
  Bindings step = {0};
  bindings_of(s->a, fold->body, &step);
  bool cheap_check = false;
  for (int k = 0; k < step.vars.len && !cheap_check; k++) {
    Expr *r = step.rhss.items[k];
    cheap_check = r->kind == E_INDEX && r->type->kind != TY_INT;
  }
  if (!cheap_check)
    return fold;
  FinalReads *fr = final_reads_new(s->a, s->body, fold);
  VarMap copies = {0};
  PtrVec moved = {0};
  int first = s->made; /* names the branch after its first read */
  for (int k = 0; k < step.vars.len; k++) {
    Var *v = step.vars.items[k];
    Expr *r = step.rhss.items[k];
    int field;
    if (r->kind != E_INDEX || r->type->kind == TY_INT)
      continue;
    bool outer = from_outside(fold, &step, r->args[0]);
    if (!outer && !invariant_read(fr, v, &field))
      continue;
    Expr *at = index_before(s, fold, &step, r->args[1], &copies, before, 0);
    if (!at)
      continue;
    Expr *arr = outer ? r->args[0] : initial_array(s, fold, field, before);
    Var *h = moved_before(&moved, arr, at, r->type);
    if (!h) {
      if (moved.len == 0)
        first = s->made;
      h = var_new(s->a, arena_printf(s->a, "hoisted_%d", s->made++), r->type);
      Moved *m = arena_alloc(s->a, sizeof *m);
      *m = (Moved){arr, at, h};
      ptrvec_push(s->a, &moved, m);
    }
    step.rhss.items[k] = ex_var(s->a, h);
  }
  final_reads_free(fr);
  varmap_free(&copies);
  if (moved.len == 0)
    return fold;
  bind_moved(s, fold, &moved, first, before);
  Expr *c = ex_fold(s->a, fold->args[0], fold->args[1], fold->var, fold->var2,
                    bindings_build(s->a, &step, step.result));
  c->type = fold->type;
  c->loc = fold->loc;
  return c;
}

static Expr *hoist_block_of(void *ctx, Expr *block) { return hoist_block(ctx, block); }

/* The loops and branches inside r, each treated; r itself when nothing
 * changed. */
static Expr *hoist_rhs(Hoist *s, Expr *r) { return expr_map_blocks(s->a, r, hoist_block_of, s); }

static Expr *hoist_block(Hoist *s, Expr *e) {
  Bindings b = {0}, out = {0};
  bindings_of(s->a, e, &b);
  bool changed = false;
  for (int k = 0; k < b.vars.len; k++) {
    Expr *r = b.rhss.items[k];
    Expr *n = hoist_rhs(s, r);
    if (n->kind == E_FOLD)
      n = hoist_fold(s, n, &out);
    changed = changed || n != r;
    bindings_push(s->a, &out, b.vars.items[k], n);
  }
  Expr *result = hoist_rhs(s, b.result);
  changed = changed || result != b.result;
  return changed ? bindings_build(s->a, &out, result) : e;
}

Expr *hoist_reads(Module *m, Expr *body) {
  Hoist s = {.a = m->arena, .body = body};
  return hoist_block(&s, body);
}
