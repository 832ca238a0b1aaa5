/* merge.c: two accumulations into one element, made one.
 *
 * Requires ANF with unique binders. Guarantees the same function, in ANF
 * with unique binders, where in one block
 *     a1 = accum b i x;  ...;  a2 = accum b i y
 * with neither a1 nor a2 referenced, and every binding between them pure
 * arithmetic on numbers or an accumulation (into any buffer, at any
 * index), becomes
 *     ...;  m = add x y;  a2 = accum b i m
 * Nothing between reads b or stores into it, so b[i] ends as before (the
 * sum rounded in another order, as readd.c's). A stencil's reverse adds the
 * cotangent of a step's output into the same input element twice, once
 * through u[i] and once through the -2 u[i] of the Laplacian: one
 * load-add-store of memory per element goes. */
#include "ad/ad.h"
#include "ad/util.h"

typedef struct Merge {
  Arena *a;
  VarMap uses; /* Var -> non-NULL when referenced anywhere */
  int made;    /* merged sums named so far */
} Merge;

static void note_use(Var *v, void *ctx) {
  Merge *s = ctx;
  varmap_put(&s->uses, v, v);
}

static Expr *merge_block(Merge *s, Expr *e);

/* An unreferenced accumulation (not a store) of a number. */
static bool plain_accum(const Merge *s, const Bindings *b, int k) {
  const Expr *r = b->rhss.items[k];
  return r->kind == E_ACCUM && r->index == 0 && r->args[0]->kind == E_VAR &&
         (r->args[2]->type->kind == TY_F64 || r->args[2]->type->kind == TY_F32) &&
         !varmap_has(&s->uses, b->vars.items[k]);
}

/* The next binding after k that accumulates into the same element as k,
 * with only bindings that commute with accumulations before it; -1 when
 * there is none. */
static int merged_into(const Merge *s, const Bindings *b, int k) {
  const Expr *first = b->rhss.items[k];
  for (int at = k + 1; at < b->vars.len; at++) {
    const Expr *r = b->rhss.items[at];
    if (plain_accum(s, b, at) && atom_eq(r->args[0], first->args[0]) &&
        atom_eq(r->args[1], first->args[1]) && type_eq(r->args[2]->type, first->args[2]->type))
      return at;
    if (!commutes_with_accums(r))
      return -1;
  }
  return -1;
}

static Expr *merge_block_of(void *ctx, Expr *block) { return merge_block(ctx, block); }

/* The sum that accumulation k now adds, bound just before it. */
typedef struct Sum {
  Var *var; /* NULL: none */
  Expr *rhs;
} Sum;

/* Moves each mergeable accumulation's value into its partner, from the
 * first binding on, so that chains of three or more end in one. A partner
 * takes from one accumulation only: the nearest earlier one into its
 * element. */
static bool merge_bindings(Merge *s, Bindings *b, bool *drop, Sum *sums) {
  bool changed = false;
  for (int k = 0; k < b->vars.len; k++) {
    if (!plain_accum(s, b, k))
      continue;
    int at = merged_into(s, b, k);
    if (at < 0)
      continue;
    Expr *first = b->rhss.items[k], *second = b->rhss.items[at];
    Type *t = first->args[2]->type;
    sums[at].var = var_new(s->a, arena_printf(s->a, "merged_%d", s->made++), t);
    sums[at].rhs = ex_prim2(s->a, P_ADD, first->args[2], second->args[2]);
    b->rhss.items[at] = ex_accum(s->a, second->args[0], second->args[1], ex_var(s->a, sums[at].var));
    drop[k] = changed = true;
  }
  return changed;
}

static Expr *merge_block(Merge *s, Expr *e) {
  Bindings b = {0};
  bindings_of(s->a, e, &b);
  bool changed = false;
  for (int k = 0; k < b.vars.len; k++) {
    Expr *n = expr_map_blocks(s->a, b.rhss.items[k], merge_block_of, s);
    changed = changed || n != b.rhss.items[k];
    b.rhss.items[k] = n;
  }
  Expr *result = expr_map_blocks(s->a, b.result, merge_block_of, s);
  changed = changed || result != b.result;
  bool *drop = arena_alloc(s->a, sizeof(bool) * (size_t)(b.vars.len + 1));
  Sum *sums = arena_alloc(s->a, sizeof(Sum) * (size_t)(b.vars.len + 1));
  if (!merge_bindings(s, &b, drop, sums))
    return changed ? bindings_build(s->a, &b, result) : e;
  Bindings kept = {0};
  for (int k = 0; k < b.vars.len; k++) {
    if (sums[k].var) /* kept even when k is dropped: the next sum adds it */
      bindings_push(s->a, &kept, sums[k].var, sums[k].rhs);
    if (drop[k])
      continue;
    bindings_push(s->a, &kept, b.vars.items[k], b.rhss.items[k]);
  }
  return bindings_build(s->a, &kept, result);
}

Expr *merge_accums(Module *m, Expr *e) {
  Merge s = {.a = m->arena};
  expr_visit_vars(e, note_use, &s);
  Expr *r = merge_block(&s, e);
  varmap_free(&s.uses);
  return r;
}
