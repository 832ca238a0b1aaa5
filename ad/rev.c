/* rev.c: reverse CHAD with cotangent accumulation.
 *
 * Requires: f in ANF with unique binders, type-checked; every function it
 * calls has f$aug and f$bwd already. Guarantees: f$rev(params, ret_b)
 * returns (ret, (p_b for each active parameter)). Its body is the primal
 * sweep followed by the reverse sweep:
 *
 *  - The reverse sweep visits the bindings backwards, once each. Uses of a
 *    variable only *record* cotangent contributions (a compile-time list per
 *    variable, so fan-out costs nothing); when the sweep reaches the binding,
 *    the contributions are summed once and the right-hand side's
 *    backpropagator runs once on the total. A variable without contributions
 *    has a structural zero cotangent and its backpropagator is skipped.
 *  - Contributions through a projection are kept per field, so a tuple's
 *    cotangent is assembled without one-hot tuples.
 *  - A primitive's backpropagator is the transpose of its local linear map
 *    (ad/deriv.c) applied to the cotangent; a call's is the callee's
 *    backpropagator `lcall g tape`, realised by g$bwd on the residual record
 *    that g$aug returned in the primal sweep.
 *  - An `if` keeps the CHAD structure: the primal `if` also returns the
 *    residuals its branch's reverse sweep needs (the defunctionalised
 *    backpropagator), and the reverse sweep has an `if` on the same
 *    condition whose branches return the contributions to outer variables.
 *
 * Linear maps are left in the output for linmap_eliminate. */
#include <string.h>

#include "ad/ad.h"
#include "ad/deriv.h"
#include "ad/transform.h"

typedef struct Contrib Contrib;
struct Contrib {
  int field; /* index among the active fields, or -1 for the whole value */
  Expr *ct;
  Contrib *next;
};

/* Contributions recorded in one block; a branch of an `if` opens a layer so
 * that what it adds to outer variables can be returned by the reverse if. */
typedef struct Layer Layer;
struct Layer {
  VarMap contribs; /* Var* -> Contrib* */
  PtrVec order;    /* Var* in order of first contribution: deterministic */
  Layer *parent;
};

typedef struct IfRev {
  Var *ct_var;     /* cotangent of the if's result, bound in the reverse sweep */
  Expr *cond;
  Bindings rev[2]; /* reverse sweep of each branch (residuals renamed) */
  PtrVec outer_vars[2]; /* Var*: outer variables a branch contributes to */
  PtrVec outer_vals[2]; /* Expr* atoms: the summed contributions */
} IfRev;

typedef struct Rev {
  Module *m;
  Arena *a;
  Layer *layer;
  VarMap call_tape; /* Var x bound by a call -> atom of the callee's tape */
  VarMap if_rev;    /* Var x bound by an if -> IfRev* */
  NameSet *names;   /* names in use: new variables get fresh ones */
} Rev;

static Expr *rev_block(Rev *s, Expr *e, Expr *ct, Bindings *primal, Bindings *reverse);

/* --------------------------------------------------------- contributions */

static void add_contrib(Rev *s, Expr *atom, int field, Expr *ct) {
  if (atom->kind != E_VAR || !type_is_active(atom->type) || !ct)
    return;
  if (ct->kind == E_ZERO)
    return;
  Var *v = atom->var;
  Contrib *c = arena_alloc(s->a, sizeof *c);
  c->field = field;
  c->ct = ct;
  c->next = varmap_get(&s->layer->contribs, v);
  if (!c->next)
    ptrvec_push(s->a, &s->layer->order, v);
  varmap_put(&s->layer->contribs, v, c);
}

static Contrib *take_contribs(Rev *s, Var *v) {
  Contrib *c = varmap_get(&s->layer->contribs, v);
  if (c)
    varmap_put(&s->layer->contribs, v, NULL);
  return c;
}

static Expr *plus_into(Rev *s, Expr *acc, Expr *x) {
  return acc ? ex_plus(s->a, acc, x) : x;
}

/* The total cotangent of v from its contributions (non-empty list). */
static Expr *sum_contribs(Rev *s, Var *v, Contrib *list) {
  Type *tt = type_tangent(s->a, v->type);
  Expr *whole = NULL;
  bool any_field = false;
  /* The list is newest first; sum oldest first for readable output. */
  PtrVec items = {0};
  for (Contrib *c = list; c; c = c->next)
    ptrvec_push(s->a, &items, c);
  for (int i = items.len - 1; i >= 0; i--) {
    Contrib *c = items.items[i];
    if (c->field < 0)
      whole = plus_into(s, whole, c->ct);
    else
      any_field = true;
  }
  if (!any_field)
    return whole;
  Expr **fields = arena_alloc(s->a, sizeof(Expr *) * (size_t)tt->n);
  for (int i = items.len - 1; i >= 0; i--) {
    Contrib *c = items.items[i];
    if (c->field >= 0)
      fields[c->field] = plus_into(s, fields[c->field], c->ct);
  }
  for (int k = 0; k < tt->n; k++)
    if (!fields[k])
      fields[k] = ex_zero(s->a, tt->elems[k]);
  Expr *tup = ex_tuple(s->a, tt->n, fields);
  return whole ? ex_plus(s->a, whole, tup) : tup;
}

static Expr *bind(Rev *s, Bindings *out, const char *name, Expr *rhs) {
  Var *v = var_new(s->a, nameset_fresh(s->names, s->a, name), rhs->type);
  bindings_push(s->a, out, v, rhs);
  return ex_var(s->a, v);
}

static const char *bname(Rev *s, Var *x) {
  return arena_printf(s->a, "%s_b", x->name);
}

/* Position of field i among the active fields of a tuple type. */
static int active_index(const Type *t, int i) {
  int k = 0;
  for (int j = 0; j < i; j++)
    k += type_is_active(t->elems[j]);
  return k;
}

/* ------------------------------------------------------------ primal sweep */

static void primal_call(Rev *s, Var *x, Expr *rhs, Bindings *primal) {
  Func *g = module_find(s->m, rhs->name);
  if (!g || !type_is_active(rhs->type)) {
    bindings_push(s->a, primal, x, rhs);
    return;
  }
  Expr *aug = ex_call(s->a, ad_name(s->m, g->name, "aug"), rhs->nargs, rhs->args);
  aug->loc = rhs->loc;
  Func *gaug = module_find(s->m, aug->name);
  aug->type = gaug ? gaug->ret : NULL;
  Expr *pair = bind(s, primal, arena_printf(s->a, "%s_aug", x->name), aug);
  bindings_push(s->a, primal, x, ex_get(s->a, 0, pair));
  Expr *tape = bind(s, primal, arena_printf(s->a, "%s_tape", g->name),
                    ex_get(s->a, 1, pair));
  varmap_put(&s->call_tape, x, tape);
}

typedef struct FreeCollect {
  Arena *a;
  const VarMap *bound; /* variables of interest */
  VarMap seen;
  PtrVec found;
} FreeCollect;

static void collect_bound_ref(Var *v, void *ctx) {
  FreeCollect *fc = ctx;
  if (varmap_has(fc->bound, v) && !varmap_has(&fc->seen, v)) {
    varmap_put(&fc->seen, v, v);
    ptrvec_push(fc->a, &fc->found, v);
  }
}

/* Variables bound by `primal` (at its top level) that `rev` or `vals`
 * mention: the residuals a branch's reverse sweep needs. */
static PtrVec branch_residuals(Rev *s, const Bindings *primal, const Bindings *rev,
                               const PtrVec *vals) {
  VarMap bound = {0};
  for (int i = 0; i < primal->vars.len; i++)
    varmap_put(&bound, primal->vars.items[i], primal->vars.items[i]);
  FreeCollect fc = {.a = s->a, .bound = &bound};
  for (int i = 0; i < rev->rhss.len; i++)
    expr_visit_vars(rev->rhss.items[i], collect_bound_ref, &fc);
  for (int i = 0; i < vals->len; i++)
    expr_visit_vars(vals->items[i], collect_bound_ref, &fc);
  varmap_free(&bound);
  varmap_free(&fc.seen);
  return fc.found;
}

/* The reverse sweep of one branch, generated now (with the if's cotangent
 * as a variable bound later) so that its residuals are known. */
static Expr *branch_rev(Rev *s, IfRev *info, int j, Expr *branch, Bindings *bprimal) {
  Layer layer = {.parent = s->layer};
  s->layer = &layer;
  Bindings *brev = &info->rev[j];
  *brev = (Bindings){0};
  Expr *r = rev_block(s, branch, ex_var(s->a, info->ct_var), bprimal, brev);
  s->layer = layer.parent;
  for (int i = 0; i < layer.order.len; i++) {
    Var *v = layer.order.items[i];
    Contrib *c = varmap_get(&layer.contribs, v);
    if (!c)
      continue;
    Expr *val = bind(s, brev, bname(s, v), sum_contribs(s, v, c));
    ptrvec_push(s->a, &info->outer_vars[j], v);
    ptrvec_push(s->a, &info->outer_vals[j], val);
  }
  varmap_free(&layer.contribs);
  return r;
}

static bool contains_var(const PtrVec *v, const Var *x) {
  for (int i = 0; i < v->len; i++)
    if (v->items[i] == x)
      return true;
  return false;
}

static void primal_if(Rev *s, Var *x, Expr *rhs, Bindings *primal) {
  if (!type_is_active(rhs->type)) {
    bindings_push(s->a, primal, x, rhs);
    return;
  }
  IfRev *info = arena_alloc(s->a, sizeof *info);
  info->cond = rhs->args[0];
  info->ct_var = var_new(s->a, nameset_fresh(s->names, s->a, bname(s, x)),
                         type_tangent(s->a, x->type));
  Bindings bprimal[2];
  memset(bprimal, 0, sizeof bprimal);
  Expr *result[2];
  PtrVec res[2];
  for (int j = 0; j < 2; j++) {
    result[j] = branch_rev(s, info, j, rhs->args[1 + j], &bprimal[j]);
    res[j] = branch_residuals(s, &bprimal[j], &info->rev[j], &info->outer_vals[j]);
  }
  /* Residual slots: branch 0's then branch 1's; the branch not taken fills
   * the other's slots with default values that are never read. */
  PtrVec all = {0};
  for (int j = 0; j < 2; j++)
    for (int i = 0; i < res[j].len; i++)
      ptrvec_push(s->a, &all, res[j].items[i]);
  Type **types = arena_alloc(s->a, sizeof(Type *) * (size_t)(all.len + 1));
  types[0] = rhs->type;
  Expr *branches[2];
  for (int j = 0; j < 2; j++) {
    Expr **elems = arena_alloc(s->a, sizeof(Expr *) * (size_t)(all.len + 1));
    elems[0] = result[j];
    for (int i = 0; i < all.len; i++) {
      Var *r = all.items[i];
      types[i + 1] = r->type;
      elems[i + 1] = contains_var(&res[j], r) ? ex_var(s->a, r) : ex_zero(s->a, r->type);
    }
    branches[j] = bindings_build(s->a, &bprimal[j], ex_tuple(s->a, all.len + 1, elems));
  }
  Expr *iff = ex_if(s->a, rhs->args[0], branches[0], branches[1]);
  iff->type = ty_tuple(s->a, all.len + 1, types);
  iff->loc = rhs->loc;
  Expr *pr = bind(s, primal, arena_printf(s->a, "%s_if", x->name), iff);
  bindings_push(s->a, primal, x, ex_get(s->a, 0, pr));
  VarMap rename = {0};
  for (int i = 0; i < all.len; i++) {
    Var *r = all.items[i];
    Expr *outer = bind(s, primal, r->name, ex_get(s->a, i + 1, pr));
    varmap_put(&rename, r, outer);
  }
  for (int j = 0; j < 2; j++) {
    for (int i = 0; i < info->rev[j].rhss.len; i++)
      info->rev[j].rhss.items[i] = expr_subst(s->a, info->rev[j].rhss.items[i], &rename);
    for (int i = 0; i < info->outer_vals[j].len; i++)
      info->outer_vals[j].items[i] = expr_subst(s->a, info->outer_vals[j].items[i], &rename);
  }
  varmap_free(&rename);
  varmap_put(&s->if_rev, x, info);
}

static void primal_binding(Rev *s, Var *x, Expr *rhs, Bindings *primal) {
  if (rhs->kind == E_CALL)
    primal_call(s, x, rhs, primal);
  else if (rhs->kind == E_IF)
    primal_if(s, x, rhs, primal);
  else
    bindings_push(s->a, primal, x, rhs);
}

/* ----------------------------------------------------------- reverse sweep */

static void backprop_prim(Rev *s, Var *x, Expr *rhs, Expr *ct, Bindings *out) {
  if (rhs->op == P_TO_F64 || rhs->op == P_TO_F32) {
    Expr *a = rhs->args[0];
    if (type_is_float(a->type))
      add_contrib(s, a, -1, ex_prim1(s->a, a->type->kind == TY_F32 ? P_TO_F32 : P_TO_F64, ct));
    return;
  }
  if (!deriv_is_smooth(rhs->op, rhs->type))
    return;
  bool active[2] = {false, false};
  int n = 0;
  for (int i = 0; i < rhs->nargs; i++) {
    active[i] = rhs->args[i]->kind == E_VAR && type_is_float(rhs->args[i]->type);
    n += active[i];
  }
  if (n == 0)
    return;
  /* x, the primal result, is in scope: partials such as exp's reuse it. */
  Expr *jac = deriv_jacobian(s->a, rhs->op, rhs->args, ex_var(s->a, x), active);
  Expr *tr = ex_lin(s->a, E_LTRANS, 1, &jac);
  tr->type = ty_lin(s->a, jac->type->cod, jac->type->dom);
  Expr *app = ex_lin(s->a, E_LAPPLY, 2, (Expr *[]){tr, ct});
  app->type = jac->type->dom;
  Expr *c = bind(s, out, "c", app);
  int k = 0;
  for (int i = 0; i < rhs->nargs; i++)
    if (active[i])
      add_contrib(s, rhs->args[i], -1, ex_get(s->a, k++, c));
}

static void backprop_call(Rev *s, Var *x, Expr *rhs, Expr *ct, Bindings *out) {
  Expr *tape = varmap_get(&s->call_tape, x);
  if (!tape)
    return; /* inactive result: no cotangent flows through the call */
  Func *g = module_find(s->m, rhs->name);
  Expr *bp = ex_lcall(s->a, g->name, tape);
  Expr *app = ex_lin(s->a, E_LAPPLY, 2, (Expr *[]){bp, ct});
  Expr *c = bind(s, out, arena_printf(s->a, "%s_b", g->name), app);
  int k = 0;
  for (int i = 0; i < g->nparams; i++)
    if (type_is_active(g->params[i]->type))
      add_contrib(s, rhs->args[i], -1, ex_get(s->a, k++, c));
}

static void backprop_if(Rev *s, Var *x, Expr *ct, Bindings *out) {
  IfRev *info = varmap_get(&s->if_rev, x);
  bindings_push(s->a, out, info->ct_var, ct);
  PtrVec all = {0};
  for (int j = 0; j < 2; j++)
    for (int i = 0; i < info->outer_vars[j].len; i++)
      if (!contains_var(&all, info->outer_vars[j].items[i]))
        ptrvec_push(s->a, &all, info->outer_vars[j].items[i]);
  if (!all.len)
    return;
  Type **types = arena_alloc(s->a, sizeof(Type *) * (size_t)all.len);
  Expr *branches[2];
  for (int j = 0; j < 2; j++) {
    Expr **elems = arena_alloc(s->a, sizeof(Expr *) * (size_t)all.len);
    for (int i = 0; i < all.len; i++) {
      Var *v = all.items[i];
      types[i] = type_tangent(s->a, v->type);
      elems[i] = ex_zero(s->a, types[i]);
      for (int k = 0; k < info->outer_vars[j].len; k++)
        if (info->outer_vars[j].items[k] == v)
          elems[i] = info->outer_vals[j].items[k];
    }
    branches[j] = bindings_build(s->a, &info->rev[j], ex_tuple(s->a, all.len, elems));
  }
  Expr *iff = ex_if(s->a, info->cond, branches[0], branches[1]);
  iff->type = ty_tuple(s->a, all.len, types);
  Expr *rc = bind(s, out, arena_printf(s->a, "%s_bif", x->name), iff);
  for (int i = 0; i < all.len; i++)
    add_contrib(s, ex_var(s->a, all.items[i]), -1, ex_get(s->a, i, rc));
}

static void backprop(Rev *s, Var *x, Expr *rhs, Expr *ct, Bindings *out) {
  switch (rhs->kind) {
  case E_VAR:
    add_contrib(s, rhs, -1, ct);
    return;
  case E_PRIM:
    backprop_prim(s, x, rhs, ct, out);
    return;
  case E_CALL:
    backprop_call(s, x, rhs, ct, out);
    return;
  case E_TUPLE:
    for (int i = 0, k = 0; i < rhs->nargs; i++)
      if (type_is_active(rhs->args[i]->type))
        add_contrib(s, rhs->args[i], -1, ex_get(s->a, k++, ct));
    return;
  case E_GET:
    add_contrib(s, rhs->args[0], active_index(rhs->args[0]->type, rhs->index), ct);
    return;
  case E_IF:
    backprop_if(s, x, ct, out);
    return;
  default:
    return; /* constants */
  }
}

/* Primal sweep of block e into `primal`, reverse sweep into `reverse`
 * (given the cotangent `ct` of e's result, NULL for none); returns e's
 * result atom. Contributions to variables bound outside e stay recorded in
 * the current layer. */
static Expr *rev_block(Rev *s, Expr *e, Expr *ct, Bindings *primal, Bindings *reverse) {
  Bindings b;
  bindings_of(s->a, e, &b);
  for (int i = 0; i < b.vars.len; i++)
    primal_binding(s, b.vars.items[i], b.rhss.items[i], primal);
  if (ct)
    add_contrib(s, b.result, -1, ct);
  for (int i = b.vars.len - 1; i >= 0; i--) {
    Var *x = b.vars.items[i];
    Contrib *c = take_contribs(s, x);
    if (!c)
      continue; /* structural zero: nothing flows back */
    Expr *total = sum_contribs(s, x, c);
    Expr *rhs = b.rhss.items[i];
    if (rhs->kind == E_IF) {
      backprop_if(s, x, total, reverse);
      continue;
    }
    Expr *ct_x = expr_is_atom(total) ? total : bind(s, reverse, bname(s, x), total);
    backprop(s, x, rhs, ct_x, reverse);
  }
  return b.result;
}

Func *ad_reverse(Module *m, Func *f, NameSet *param_names) {
  Rev s = {.m = m, .a = m->arena, .names = param_names};
  Layer top = {0};
  s.layer = &top;
  PtrVec params = {0};
  for (int i = 0; i < f->nparams; i++)
    ptrvec_push(s.a, &params, f->params[i]);
  Expr *seed = NULL;
  if (type_is_active(f->ret)) {
    Var *rb = var_new(s.a, nameset_fresh(param_names, s.a, "ret_b"),
                      type_tangent(s.a, f->ret));
    ptrvec_push(s.a, &params, rb);
    seed = ex_var(s.a, rb);
  }
  Bindings primal = {0}, reverse = {0};
  Expr *r = rev_block(&s, f->body, seed, &primal, &reverse);
  PtrVec cts = {0};
  PtrVec ct_types = {0};
  for (int i = 0; i < f->nparams; i++) {
    Var *p = f->params[i];
    if (!type_is_active(p->type))
      continue;
    Type *tt = type_tangent(s.a, p->type);
    Contrib *c = take_contribs(&s, p);
    Expr *ct = c ? sum_contribs(&s, p, c) : ex_zero(s.a, tt);
    if (!expr_is_atom(ct))
      ct = bind(&s, &reverse, nameset_fresh(param_names, s.a, bname(&s, p)), ct);
    ptrvec_push(s.a, &cts, ct);
    ptrvec_push(s.a, &ct_types, tt);
  }
  Expr *ct_tuple = ex_tuple(s.a, cts.len, (Expr **)cts.items);
  Expr *result = ex_tuple(s.a, 2, (Expr *[]){r, ct_tuple});
  for (int i = 0; i < reverse.vars.len; i++)
    bindings_push(s.a, &primal, reverse.vars.items[i], reverse.rhss.items[i]);
  Func *g = module_add(m, ad_name(m, f->name, "rev"), params.len, (Var **)params.items,
                       ty_tuple2(s.a, f->ret, ty_tuple(s.a, ct_types.len, (Type **)ct_types.items)),
                       bindings_build(s.a, &primal, result));
  g->is_static = f->is_static;
  g->is_generated = true;
  g->loc = f->loc;
  varmap_free(&top.contribs);
  varmap_free(&s.call_tape);
  varmap_free(&s.if_rev);
  return g;
}
