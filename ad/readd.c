/* readd.c: cotangents taken, zeroed and given back unchanged.
 *
 * Requires ANF with unique binders. Guarantees the same function, in ANF
 * with unique binders, without the pairs of effects that cancel: in one
 * block,
 *     x = index b i;  s = store b i 0;  ...;  a = accum b i x
 * where every binding between the store and the accumulation is pure
 * arithmetic on numbers or an accumulation (into any buffer), loses s and
 * a. Accumulations commute, so b[i] ends as x plus whatever the bindings
 * between added into it, as before (the sum rounded in another order).
 * The reverse of a read-modify-write `l[at] = l[at] - p * q` in a loop
 * makes this pattern: the update's reverse takes the element's cotangent
 * and zeroes it (DESIGN 8.13: the overwritten value is dropped), then the
 * reverse of the read `l[at]` adds it back. Two memory operations of each
 * step's few go, and the store no longer orders the accumulations after
 * it. */
#include "ad/ad.h"
#include "ad/util.h"

typedef struct Readd {
  Arena *a;
  VarMap uses; /* Var -> non-NULL when referenced anywhere */
} Readd;

static void note_use(Var *v, void *ctx) {
  Readd *s = ctx;
  varmap_put(&s->uses, v, v);
}

static Expr *readd_block(Readd *s, Expr *e);

static bool is_zero(const Expr *e) {
  return e->kind == E_CONST && (e->type->kind == TY_INT ? e->ival == 0 : e->fval == 0);
}

/* The binding after `from` that accumulates x into b at i, with only
 * bindings that commute with accumulations before it; -1 when there is
 * none. */
static int readded_at(const Bindings *b, int from, const Expr *buf, const Expr *i, const Var *x) {
  for (int k = from + 1; k < b->vars.len; k++) {
    Expr *r = b->rhss.items[k];
    if (r->kind == E_ACCUM && r->index == 0 && atom_eq(r->args[0], buf) &&
        atom_eq(r->args[1], i) && r->args[2]->kind == E_VAR && r->args[2]->var == x)
      return k;
    if (!commutes_with_accums(r))
      return -1;
  }
  return -1;
}

/* Marks the bindings of the cancelling pairs in b. */
static void find_pairs(Readd *s, const Bindings *b, bool *drop) {
  for (int k = 0; k + 1 < b->vars.len; k++) {
    Expr *rd = b->rhss.items[k], *st = b->rhss.items[k + 1];
    if (rd->kind != E_INDEX || rd->args[0]->kind != E_VAR || st->kind != E_ACCUM ||
        st->index != 1 || !atom_eq(st->args[0], rd->args[0]) ||
        !atom_eq(st->args[1], rd->args[1]) || !is_zero(st->args[2]))
      continue;
    int at = readded_at(b, k + 1, rd->args[0], rd->args[1], b->vars.items[k]);
    if (at < 0 || varmap_has(&s->uses, b->vars.items[k + 1]) ||
        varmap_has(&s->uses, b->vars.items[at]))
      continue;
    drop[k + 1] = drop[at] = true;
  }
}

static Expr *readd_block_of(void *ctx, Expr *block) { return readd_block(ctx, block); }

static Expr *readd_rhs(Readd *s, Expr *r) { return expr_map_blocks(s->a, r, readd_block_of, s); }

static Expr *readd_block(Readd *s, Expr *e) {
  Bindings b = {0};
  bindings_of(s->a, e, &b);
  bool changed = false;
  for (int k = 0; k < b.vars.len; k++) {
    Expr *n = readd_rhs(s, b.rhss.items[k]);
    changed = changed || n != b.rhss.items[k];
    b.rhss.items[k] = n;
  }
  Expr *result = readd_rhs(s, b.result);
  changed = changed || result != b.result;
  bool *drop = arena_alloc(s->a, sizeof(bool) * (size_t)(b.vars.len + 1));
  find_pairs(s, &b, drop);
  Bindings kept = {0};
  for (int k = 0; k < b.vars.len; k++) {
    if (drop[k]) {
      changed = true;
      continue;
    }
    bindings_push(s->a, &kept, b.vars.items[k], b.rhss.items[k]);
  }
  return changed ? bindings_build(s->a, &kept, result) : e;
}

Expr *readd_expr(Module *m, Expr *e) {
  Readd s = {.a = m->arena};
  expr_visit_vars(e, note_use, &s);
  Expr *r = readd_block(&s, e);
  varmap_free(&s.uses);
  return r;
}
