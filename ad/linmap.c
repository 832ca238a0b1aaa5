/* linmap.c: the linear maps of the Knossos notes (Figures 3-5) and their
 * elimination by application.
 *
 * Requires: an expression whose linear maps occur only as the first operand
 * of `lapply` (as ad/fwd.c and ad/rev.c produce them), or as sub-terms of
 * such maps. Guarantees: no linear map is left; every `lapply` is replaced
 * by first-order code built from the application laws of Figure 4 (apply is
 * pushed through compose, vcat, hcat, plus; `0`, `1` and `scale k` become a
 * structural zero, the argument itself, and a multiplication). Transposes
 * are pushed to the leaves by the laws of Figure 5 first, and maps are
 * simplified by the properties of Figure 4 (zero and one elimination, scale
 * folding, hcat-after-vcat) before being applied. Applying any map to a
 * structural zero gives a structural zero (every linear map passes through
 * the origin), which is what keeps untouched cotangents free.
 *
 * The output may be out of A-normal form; the driver re-normalises. */
#include "ad/ad.h"
#include "ad/util.h"

typedef struct Lin {
  Module *m;
  Arena *a;
  bool failed;
  VarMap maps; /* let-bound linear map -> its (eliminated-inside) term */
} Lin;

static Expr *elim(Lin *s, Expr *e);

static Type *lin_dom(Expr *m) { return m->type ? m->type->dom : NULL; }
static Type *lin_cod(Expr *m) { return m->type ? m->type->cod : NULL; }

static Expr *mk_map(Lin *s, ExprKind k, int n, Expr **args, Type *dom, Type *cod) {
  Expr *e = ex_lin(s->a, k, n, args);
  e->type = ty_lin(s->a, dom, cod);
  return e;
}

static Expr *mk_zero_map(Lin *s, Type *dom, Type *cod) {
  return ex_lin_typed(s->a, E_LZERO, ty_lin(s->a, dom, cod));
}

static bool is_const(const Expr *e, double v) {
  return e->kind == E_CONST && type_is_float(e->type) && e->fval == v;
}

/* ----------------------------------------------------- Figure 5: transpose */

static Expr *transpose(Lin *s, Expr *m) {
  Type *dom = lin_dom(m), *cod = lin_cod(m);
  switch (m->kind) {
  case E_LZERO:
    return mk_zero_map(s, cod, dom);
  case E_LONE:
  case E_LSCALE:
    return m; /* 1^T = 1, S(k)^T = S(k) */
  case E_LTRANS:
    return m->args[0]; /* (m^T)^T = m */
  case E_LCOMP: /* (m1 . m2)^T = m2^T . m1^T */
    return mk_map(s, E_LCOMP, 2,
                  (Expr *[]){transpose(s, m->args[1]), transpose(s, m->args[0])}, cod, dom);
  case E_LPLUS:
    return mk_map(s, E_LPLUS, 2,
                  (Expr *[]){transpose(s, m->args[0]), transpose(s, m->args[1])}, cod, dom);
  case E_LVCAT:   /* (m1 x m2)^T = m1^T |><| m2^T */
  case E_LHCAT: { /* (m1 |><| m2)^T = m1^T x m2^T */
    Expr **parts = arena_alloc(s->a, sizeof(Expr *) * (size_t)(m->nargs ? m->nargs : 1));
    for (int i = 0; i < m->nargs; i++)
      parts[i] = transpose(s, m->args[i]);
    return mk_map(s, m->kind == E_LVCAT ? E_LHCAT : E_LVCAT, m->nargs, parts, cod, dom);
  }
  default: {
    /* lcall is already a backpropagator; its transpose (a forward call)
     * is not needed by the transformations, so it stays symbolic and an
     * attempt to apply it fails loudly. */
    Expr *t = ex_lin(s->a, E_LTRANS, 1, &m);
    t->type = ty_lin(s->a, cod, dom);
    return t;
  }
  }
}

/* ---------------------------------------------- Figure 4: map properties */

static Expr *simplify_map(Lin *s, Expr *m);

static Expr *compose(Lin *s, Expr *m1, Expr *m2) {
  Type *dom = lin_dom(m2), *cod = lin_cod(m1);
  if (m1->kind == E_LZERO || m2->kind == E_LZERO)
    return mk_zero_map(s, dom, cod); /* 0 . m = m . 0 = 0 */
  if (m1->kind == E_LONE)
    return m2; /* 1 . m = m */
  if (m2->kind == E_LONE)
    return m1; /* m . 1 = m */
  if (m1->kind == E_LSCALE && m2->kind == E_LSCALE) /* S(k1) . S(k2) = S(k1 k2) */
    return mk_map(s, E_LSCALE, 1,
                  (Expr *[]){ex_prim2(s->a, P_MUL, m1->args[0], m2->args[0])}, dom, cod);
  if (m1->kind == E_LHCAT && m2->kind == E_LVCAT && m1->nargs == m2->nargs) {
    /* (m1 |><| m2) . (n1 x n2) = m1 . n1 (+) m2 . n2 */
    Expr *sum = NULL;
    for (int i = 0; i < m1->nargs; i++) {
      Expr *part = compose(s, m1->args[i], m2->args[i]);
      sum = sum ? simplify_map(s, mk_map(s, E_LPLUS, 2, (Expr *[]){sum, part}, dom, cod)) : part;
    }
    return sum ? sum : mk_zero_map(s, dom, cod);
  }
  if (m2->kind == E_LHCAT) { /* m . (n1 |><| n2) = (m . n1) |><| (m . n2) */
    Expr **parts = arena_alloc(s->a, sizeof(Expr *) * (size_t)(m2->nargs ? m2->nargs : 1));
    for (int i = 0; i < m2->nargs; i++)
      parts[i] = compose(s, m1, m2->args[i]);
    return mk_map(s, E_LHCAT, m2->nargs, parts, dom, cod);
  }
  return mk_map(s, E_LCOMP, 2, (Expr *[]){m1, m2}, dom, cod);
}

static Expr *plus_maps(Lin *s, Expr *m1, Expr *m2) {
  if (m1->kind == E_LZERO)
    return m2; /* 0 (+) m = m */
  if (m2->kind == E_LZERO)
    return m1; /* m (+) 0 = m */
  if (m1->kind == E_LSCALE && m2->kind == E_LSCALE) /* S(k1) (+) S(k2) = S(k1 + k2) */
    return mk_map(s, E_LSCALE, 1,
                  (Expr *[]){ex_prim2(s->a, P_ADD, m1->args[0], m2->args[0])},
                  lin_dom(m1), lin_cod(m1));
  return mk_map(s, E_LPLUS, 2, (Expr *[]){m1, m2}, lin_dom(m1), lin_cod(m1));
}

/* Bottom-up application of the properties; transposes pushed to leaves. */
static Expr *simplify_map(Lin *s, Expr *m) {
  switch (m->kind) {
  case E_LTRANS:
    return simplify_map(s, transpose(s, simplify_map(s, m->args[0])));
  case E_LCOMP:
    return compose(s, simplify_map(s, m->args[0]), simplify_map(s, m->args[1]));
  case E_LPLUS:
    return plus_maps(s, simplify_map(s, m->args[0]), simplify_map(s, m->args[1]));
  case E_LVCAT:
  case E_LHCAT: {
    Expr *n = ex_clone_shallow(s->a, m);
    for (int i = 0; i < m->nargs; i++)
      n->args[i] = simplify_map(s, m->args[i]);
    return n;
  }
  case E_LSCALE: {
    Expr *n = ex_clone_shallow(s->a, m);
    n->args[0] = elim(s, m->args[0]); /* the factor is ordinary code */
    return n;
  }
  case E_LCALL: {
    Expr *n = ex_clone_shallow(s->a, m);
    for (int i = 0; i < m->nargs; i++)
      n->args[i] = elim(s, m->args[i]);
    return n;
  }
  default:
    return m;
  }
}

/* ------------------------------------------- Figure 4: semantics of apply */

static Expr *zero_of(Lin *s, Type *t) { return ex_zero(s->a, t); }

/* Tangent addition with the unit laws on structural zeros. */
static Expr *plus(Lin *s, Expr *x, Expr *y) {
  if (x->kind == E_ZERO)
    return y;
  if (y->kind == E_ZERO)
    return x;
  return ex_plus(s->a, x, y);
}

static Expr *component(Lin *s, Expr *v, int i) {
  if (v->kind == E_TUPLE)
    return v->args[i];
  if (v->kind == E_ZERO)
    return zero_of(s, v->type->elems[i]);
  return ex_get(s->a, i, v);
}

static Expr *scale(Lin *s, Expr *k, Expr *v) {
  if (is_const(k, 1))
    return v;
  if (is_const(k, -1))
    return ex_prim1(s->a, P_NEG, v);
  return ex_prim2(s->a, P_MUL, k, v);
}

static Expr *apply(Lin *s, Expr *m, Expr *v) {
  Type *cod = lin_cod(m);
  if (v->kind == E_ZERO)
    return zero_of(s, cod); /* m . 0 = 0 */
  switch (m->kind) {
  case E_LZERO:
    return zero_of(s, cod);
  case E_LONE:
    return v;
  case E_LSCALE:
    return scale(s, m->args[0], v);
  case E_LCOMP: /* (m1 . m2) v = m1 (m2 v) */
    return apply(s, m->args[0], apply(s, m->args[1], v));
  case E_LVCAT: { /* (m1 x m2) v = (m1 v, m2 v) */
    Expr **parts = arena_alloc(s->a, sizeof(Expr *) * (size_t)(m->nargs ? m->nargs : 1));
    for (int i = 0; i < m->nargs; i++)
      parts[i] = apply(s, m->args[i], v);
    return ex_tuple(s->a, m->nargs, parts);
  }
  case E_LHCAT: { /* (m1 |><| m2) (v1, v2) = m1 v1 + m2 v2 */
    Expr *sum = NULL;
    for (int i = 0; i < m->nargs; i++) {
      Expr *part = apply(s, m->args[i], component(s, v, i));
      sum = sum ? plus(s, sum, part) : part;
    }
    return sum ? sum : zero_of(s, cod);
  }
  case E_LPLUS: /* (m1 (+) m2) v = m1 v + m2 v */
    return plus(s, apply(s, m->args[0], v), apply(s, m->args[1], v));
  case E_LCALL: { /* the callee's backpropagator: g$bwd(residual, v, buffers) */
    Func *bwd = module_find(s->m, ad_name(s->m, m->name, "bwd"));
    Expr **args = arena_alloc(s->a, sizeof(Expr *) * (size_t)(m->nargs + 1));
    args[0] = m->args[0];
    args[1] = v;
    for (int i = 1; i < m->nargs; i++)
      args[i + 1] = m->args[i];
    Expr *call = ex_call(s->a, ad_name(s->m, m->name, "bwd"), m->nargs + 1, args);
    call->type = bwd ? bwd->ret : cod;
    call->loc = m->loc;
    return call;
  }
  default:
    s->failed = true; /* e.g. a transposed lcall: never produced by AD */
    return ex_lin(s->a, E_LAPPLY, 2, (Expr *[]){m, v});
  }
}

/* ---------------------------------------------------------------- walk */

/* The map term with let-bound map variables replaced by their terms. */
static Expr *inline_maps(Lin *s, Expr *m) {
  if (m->kind == E_VAR) {
    Expr *t = varmap_get(&s->maps, m->var);
    return t ? inline_maps(s, t) : m;
  }
  if (m->type && m->type->kind != TY_LIN)
    return m;
  Expr *n = NULL;
  for (int i = 0; i < m->nargs; i++) {
    Expr *arg = inline_maps(s, m->args[i]);
    if (arg != m->args[i]) {
      if (!n)
        n = ex_clone_shallow(s->a, m);
      n->args[i] = arg;
    }
  }
  return n ? n : m;
}

static Expr *elim_node(Lin *s, Expr *e) {
  if (e->kind == E_LAPPLY) {
    Expr *v = elim(s, e->args[1]);
    return apply(s, simplify_map(s, inline_maps(s, e->args[0])), v);
  }
  Expr *n = NULL;
  for (int i = 0; i < e->nargs; i++) {
    Expr *arg = elim(s, e->args[i]);
    if (arg != e->args[i]) {
      if (!n)
        n = ex_clone_shallow(s->a, e);
      n->args[i] = arg;
    }
  }
  if (expr_is_loop(e)) {
    Expr *body = elim(s, e->body);
    if (body != e->body) {
      if (!n)
        n = ex_clone_shallow(s->a, e);
      n->body = body;
    }
  }
  return n ? n : e;
}

/* A let-bound linear map is inlined at each use (the Knossos notes'
 * recipe): a map is a term to specialise per argument, never a value. */
static Expr *elim(Lin *s, Expr *e) {
  if (e->kind == E_VAR && e->type && e->type->kind == TY_LIN) {
    Expr *m = varmap_get(&s->maps, e->var);
    return m ? m : e;
  }
  if (e->kind != E_LET)
    return elim_node(s, e);
  Bindings b, out = {0};
  bindings_of(s->a, e, &b);
  for (int i = 0; i < b.rhss.len; i++) {
    Var *x = b.vars.items[i];
    Expr *rhs = elim(s, b.rhss.items[i]);
    if (x->type && x->type->kind == TY_LIN) {
      varmap_put(&s->maps, x, rhs);
      continue;
    }
    bindings_push(s->a, &out, x, rhs);
  }
  return bindings_build(s->a, &out, elim(s, b.result));
}

Expr *linmap_eliminate(Module *m, Expr *e) {
  Lin s = {.m = m, .a = m->arena};
  Expr *r = elim(&s, e);
  varmap_free(&s.maps);
  return r; /* a failure leaves an lapply behind: CHECK_FINAL reports it */
}

/* For tests: the map term after the Figure 4 and 5 laws, unapplied. */
Expr *linmap_simplify(Module *m, Expr *map) {
  Lin s = {.m = m, .a = m->arena};
  return simplify_map(&s, map);
}
