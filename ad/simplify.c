/* simplify.c: local rewrites after linear-map elimination, and the final
 * materialisation of structural zeros and tangent additions.
 *
 * simplify_expr requires ANF with unique binders and guarantees ANF with
 * unique binders, where: copies and atoms are propagated (let x = y is gone);
 * projections of known tuples are resolved; `plus` with a structural zero
 * disappears and `plus` of known tuples is split per field; operations that
 * are linear in a structurally zero operand give a structural zero (mul,
 * div of a zero, neg, conversions, and the backpropagator call g$bwd with a
 * zero cotangent); a tuple of zeros is a zero; the length of an array
 * whose length is known (build, alloc, scatter, update, table, and a field
 * of a fold's result that every step gives back updated: DESIGN 8.79) is
 * that length.
 * `update` stays an ordinary binding: only atoms are propagated, so no read
 * of an array moves past the update that consumes it. Only *structural* zeros are
 * folded: a numeric 0.0 is never assumed to annihilate (0 * inf is NaN).
 *
 * materialize_expr turns the remaining structural zeros into constants and
 * `plus` into `add` per scalar field; its output may need re-normalising.
 * materialize_cotangents does the same for a reverse derivative, whose
 * zeros of float type become -0: x + -0 is x for every x, so the C
 * compiler drops the additions of a zero that +0 would keep (DESIGN 8.66). */
#include <string.h>

#include "ad/ad.h"
#include "ad/util.h"

typedef struct Simp {
  Module *m;
  Arena *a;
  VarMap subst;  /* Var -> atom replacing it */
  VarMap tuples; /* Var -> E_TUPLE right-hand side bound to it */
  VarMap negs;   /* Var bound to (neg y) -> the atom y */
  VarMap lengths; /* array Var -> atom of its length, when known */
  VarMap field_lengths; /* Var of a fold's result -> Expr *[fields]: the
                         * length of each array field the steps keep */
  NameSet *names;
} Simp;

static Expr *simp_block(Simp *s, Expr *e);

static Expr *resolve(Simp *s, Expr *atom) {
  while (atom->kind == E_VAR) {
    Expr *to = varmap_get(&s->subst, atom->var);
    if (!to)
      break;
    atom = to;
  }
  return atom;
}

static bool is_zero(const Expr *e) { return e->kind == E_ZERO; }

static bool is_const_num(const Expr *e, double v) {
  if (e->kind != E_CONST || !e->type)
    return false;
  return e->type->kind == TY_INT ? e->ival == (long long)v : e->fval == v;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

static Expr *known_tuple(Simp *s, Expr *atom) {
  return atom->kind == E_VAR ? varmap_get(&s->tuples, atom->var) : NULL;
}

/* The length of an array atom when its producer says it (an atom). */
static Expr *known_length(Simp *s, Expr *atom) {
  Expr *n = atom->kind == E_VAR ? varmap_get(&s->lengths, atom->var) : NULL;
  return n ? resolve(s, n) : NULL;
}

/* A structural zero if the operation is linear in a zero operand. */
static bool prim_gives_zero(const Expr *rhs) {
  switch (rhs->op) {
  case P_MUL:
    return is_zero(rhs->args[0]) || is_zero(rhs->args[1]);
  case P_DIV:
    return is_zero(rhs->args[0]);
  case P_NEG:
  case P_TO_F64:
  case P_TO_F32:
    return is_zero(rhs->args[0]) && type_is_float(rhs->type);
  case P_ADD:
  case P_SUB:
    return is_zero(rhs->args[0]) && is_zero(rhs->args[1]);
  default:
    return false;
  }
}

static void bind_new(Simp *s, Bindings *out, Var *x, Expr *rhs);

/* plus of two known tuples: one plus per field. */
static Expr *split_plus(Simp *s, Bindings *out, Expr *tx, Expr *ty, Type *t) {
  Expr **fields = arena_alloc(s->a, sizeof(Expr *) * (size_t)(tx->nargs ? tx->nargs : 1));
  for (int i = 0; i < tx->nargs; i++) {
    Var *v = var_new(s->a, "p", t->elems[i]);
    bind_new(s, out, v, ex_plus(s->a, tx->args[i], ty->args[i]));
    fields[i] = resolve(s, ex_var(s->a, v));
  }
  Expr *tup = ex_tuple(s->a, tx->nargs, fields);
  tup->type = t;
  return tup;
}

/* Rewrites one right-hand side whose operands are already resolved.
 * Returns an atom when the binding disappears. */
static Expr *rewrite(Simp *s, Bindings *out, Expr *rhs) {
  switch (rhs->kind) {
  case E_GET: {
    Expr *t = rhs->args[0];
    if (is_zero(t))
      return ex_zero(s->a, t->type->elems[rhs->index]);
    Expr *tup = known_tuple(s, t);
    return tup ? resolve(s, tup->args[rhs->index]) : rhs;
  }
  case E_PLUS: {
    Expr *x = rhs->args[0], *y = rhs->args[1];
    if (is_zero(x))
      return y;
    if (is_zero(y))
      return x;
    Expr *tx = known_tuple(s, x), *ty = known_tuple(s, y);
    if (tx && ty)
      return split_plus(s, out, tx, ty, rhs->type ? rhs->type : x->type);
    return rhs;
  }
  case E_PRIM: {
    if (prim_gives_zero(rhs))
      return ex_zero(s->a, rhs->type);
    /* exact identities: int x+0, x-0, x*1, x/1, and float x*1 and x/1
     * (IEEE x*1 and x/1 are x, even for NaN and -0; x+0.0 is not, as
     * -0+0 is +0). Lowering divides a loop's span by its step, 1 or 1.0
     * in most loops. */
    if (rhs->nargs == 2 && rhs->type) {
      Expr *a0 = rhs->args[0], *a1 = rhs->args[1];
      bool is_int = rhs->type->kind == TY_INT;
      if (is_int && (rhs->op == P_ADD || rhs->op == P_SUB) && is_const_num(a1, 0))
        return a0;
      if (is_int && rhs->op == P_ADD && is_const_num(a0, 0))
        return a1;
      if (rhs->op == P_MUL && is_const_num(a1, 1))
        return a0;
      if (rhs->op == P_MUL && is_const_num(a0, 1))
        return a1;
      if (rhs->op == P_DIV && is_const_num(a1, 1))
        return a0;
    }
    /* a variable compared with itself: CSE makes `m > 0` of an inlined
     * call's constant m `t > t` */
    Expr *self = fold_self_comparison(s->a, rhs);
    if (self)
      return self;
    /* -(-y) = y exactly in IEEE arithmetic (negation only flips the sign) */
    Expr *inner = rhs->op == P_NEG && rhs->args[0]->kind == E_VAR
                      ? varmap_get(&s->negs, rhs->args[0]->var) : NULL;
    return inner ? inner : rhs;
  }
  case E_CALL: /* g$bwd is linear in its last operand, the cotangent */
    if (ends_with(rhs->name, "$bwd") && rhs->nargs > 0 && is_zero(rhs->args[rhs->nargs - 1]) &&
        rhs->type)
      return ex_zero(s->a, rhs->type);
    return rhs;
  case E_LEN: {
    Expr *n = known_length(s, rhs->args[0]);
    return n ? n : rhs;
  }
  case E_TUPLE: {
    bool all_zero = rhs->nargs > 0 && !rhs->name;
    for (int i = 0; i < rhs->nargs; i++)
      all_zero = all_zero && is_zero(rhs->args[i]);
    return all_zero && rhs->type ? ex_zero(s->a, rhs->type) : rhs;
  }
  default:
    return rhs;
  }
}

static Expr *resolve_operands(Simp *s, Expr *rhs) {
  if (expr_is_atom(rhs))
    return resolve(s, rhs);
  Expr *n = ex_clone_shallow(s->a, rhs);
  if (rhs->kind == E_IF) {
    n->args[0] = resolve(s, rhs->args[0]);
    n->args[1] = simp_block(s, rhs->args[1]);
    n->args[2] = simp_block(s, rhs->args[2]);
    return n;
  }
  for (int i = 0; i < rhs->nargs; i++)
    n->args[i] = resolve(s, rhs->args[i]);
  if (expr_is_loop(rhs))
    n->body = simp_block(s, rhs->body);
  return n;
}

/* Is field k of a fold's result a version of field k of its state: does
 * the step (its bindings rhs_of, its result tuple r) give back, through
 * updates, scatters and copies, the array it took from its state? Then
 * every step keeps that field's length. */
static bool step_keeps_field(const Expr *fold, const VarMap *rhs_of, const Expr *r, int k) {
  if (!r || r->kind != E_TUPLE || k >= r->nargs)
    return false;
  const Expr *v = r->args[k];
  for (int steps = 0; v->kind == E_VAR && steps <= rhs_of->len; steps++) {
    const Expr *d = varmap_get(rhs_of, v->var);
    if (!d)
      return false;
    if (d->kind == E_GET && d->args[0]->kind == E_VAR && d->args[0]->var == fold->var2)
      return d->index == k;
    if (d->kind == E_UPDATE || d->kind == E_SCATTER)
      v = d->args[0];
    else if (d->kind == E_VAR)
      v = d;
    else
      return false;
  }
  return false;
}

/* The lengths of the array fields of a fold's result that its steps keep
 * (a loop updating an array in place, an inlined callee's slice), or NULL
 * when there are none. The step is read once, and only when some array
 * field starts with a known length. */
static Expr **fold_field_lengths(Simp *s, const Expr *fold) {
  const Expr *init = fold->args[1];
  const Expr *t = init->kind == E_TUPLE ? init : known_tuple(s, (Expr *)init);
  if (!t || !fold->type || fold->type->kind != TY_TUPLE)
    return NULL;
  Expr **lens = NULL;
  for (int k = 0; k < t->nargs; k++) {
    Expr *len = t->args[k]->type && t->args[k]->type->kind == TY_ARRAY
                    ? known_length(s, t->args[k]) : NULL;
    if (!len)
      continue;
    if (!lens) {
      lens = arena_alloc(s->a, sizeof(Expr *) * (size_t)t->nargs);
      memset(lens, 0, sizeof(Expr *) * (size_t)t->nargs);
    }
    lens[k] = len;
  }
  if (!lens)
    return NULL;
  VarMap rhs_of = {0};
  const Expr *r = fold->body;
  for (; r->kind == E_LET; r = r->body)
    varmap_put(&rhs_of, r->var, r->args[0]);
  if (r->kind == E_VAR && varmap_get(&rhs_of, r->var))
    r = varmap_get(&rhs_of, r->var);
  bool any = false;
  for (int k = 0; k < t->nargs; k++) {
    if (lens[k] && !step_keeps_field(fold, &rhs_of, r, k))
      lens[k] = NULL;
    any = any || lens[k];
  }
  varmap_free(&rhs_of);
  return any ? lens : NULL;
}

/* Records the lengths that a producer of arrays makes known. */
static void note_lengths(Simp *s, Var *x, Expr *r) {
  Expr *len = NULL;
  if (r->kind == E_FOLD) {
    Expr **lens = fold_field_lengths(s, r);
    if (lens)
      varmap_put(&s->field_lengths, x, lens);
    return;
  }
  if (r->kind == E_GET && r->args[0]->kind == E_VAR) {
    Expr **lens = varmap_get(&s->field_lengths, r->args[0]->var);
    len = lens ? lens[r->index] : NULL;
  }
  if ((r->kind == E_BUILD || r->kind == E_ALLOC) && expr_is_atom(r->args[0]))
    len = r->args[0];
  else if ((r->kind == E_SCATTER || r->kind == E_UPDATE) && r->args[0]->kind == E_VAR)
    len = varmap_get(&s->lengths, r->args[0]->var);
  else if (r->kind == E_TABLE) /* its elements are its operands */
    len = ex_int(s->a, r->nargs);
  if (len && x->type && x->type->kind == TY_ARRAY)
    varmap_put(&s->lengths, x, len);
}

static void bind_new(Simp *s, Bindings *out, Var *x, Expr *rhs) {
  rhs = resolve_operands(s, rhs);
  Expr *r = rewrite(s, out, rhs);
  if (expr_is_atom(r)) {
    varmap_put(&s->subst, x, r);
    return;
  }
  if (r->kind == E_TUPLE)
    varmap_put(&s->tuples, x, r);
  if (r->kind == E_PRIM && r->op == P_NEG)
    varmap_put(&s->negs, x, r->args[0]);
  note_lengths(s, x, r);
  bindings_push(s->a, out, x, r);
}

static Expr *simp_block(Simp *s, Expr *e) {
  Bindings in, out = {0};
  bindings_of(s->a, e, &in);
  for (int i = 0; i < in.vars.len; i++)
    bind_new(s, &out, in.vars.items[i], in.rhss.items[i]);
  return bindings_build(s->a, &out, resolve(s, in.result));
}

Expr *simplify_expr(Module *m, Expr *e) {
  Simp s = {.m = m, .a = m->arena};
  Expr *r = simp_block(&s, e);
  varmap_free(&s.subst);
  varmap_free(&s.tuples);
  varmap_free(&s.negs);
  varmap_free(&s.lengths);
  varmap_free(&s.field_lengths);
  return r;
}

/* ------------------------------------------------------ materialisation */

/* zero: the number a structural zero of a float type becomes, +0 for
 * tangents and -0 for cotangents (DESIGN 8.66). */
typedef struct Mat {
  Module *m;
  double zero;
} Mat;

static Expr *mat(Mat *s, Expr *e);

static Expr *zero_value(Mat *s, Type *t) {
  Arena *a = s->m->arena;
  if (t->kind != TY_TUPLE)
    return type_is_float(t) ? ex_const(a, t, s->zero) : ex_const(a, t, 0);
  if (t->name) /* a residual record: a default no one reads (see emit) */
    return ex_zero(a, t);
  Expr **elems = arena_alloc(a, sizeof(Expr *) * (size_t)(t->n ? t->n : 1));
  for (int i = 0; i < t->n; i++)
    elems[i] = zero_value(s, t->elems[i]);
  Expr *tup = ex_tuple(a, t->n, elems);
  tup->type = t;
  return tup;
}

static Expr *plus_value(Arena *a, Expr *x, Expr *y, Type *t) {
  if (t->kind != TY_TUPLE)
    return ex_prim2(a, P_ADD, x, y);
  Expr **elems = arena_alloc(a, sizeof(Expr *) * (size_t)(t->n ? t->n : 1));
  for (int i = 0; i < t->n; i++)
    elems[i] = plus_value(a, ex_get(a, i, x), ex_get(a, i, y), t->elems[i]);
  Expr *tup = ex_tuple(a, t->n, elems);
  tup->type = t;
  return tup;
}

static Expr *mat_node(Mat *s, Expr *e) {
  Arena *a = s->m->arena;
  if (e->kind == E_ZERO)
    return zero_value(s, e->type);
  Expr *n = ex_clone_shallow(a, e);
  for (int i = 0; i < e->nargs; i++)
    n->args[i] = mat(s, e->args[i]);
  if (expr_is_loop(e))
    n->body = mat(s, e->body);
  if (e->kind == E_PLUS)
    return plus_value(a, n->args[0], n->args[1], e->type ? e->type : n->args[0]->type);
  return n;
}

static Expr *mat(Mat *s, Expr *e) {
  if (e->kind != E_LET)
    return mat_node(s, e);
  Bindings b;
  bindings_of(s->m->arena, e, &b);
  for (int i = 0; i < b.rhss.len; i++)
    b.rhss.items[i] = mat(s, b.rhss.items[i]);
  return bindings_build(s->m->arena, &b, mat(s, b.result));
}

Expr *materialize_expr(Module *m, Expr *e) { return mat(&(Mat){m, 0.0}, e); }

Expr *materialize_cotangents(Module *m, Expr *e) { return mat(&(Mat){m, -0.0}, e); }
