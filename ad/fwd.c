/* fwd.c: forward CHAD.
 *
 * Requires: f in ANF with unique binders, type-checked; every function it
 * calls has its f$fwd already, or is CHAD_CUSTOM (then g$fwd is the user's
 * g_fwd, declared here on first use). Guarantees: f$fwd(p1, dp1, ..., pn, dpn)
 * returns (ret, dret) when the result is active (else ret alone), computed
 * in dual-number shape: each binding is followed by its tangent, which is the
 * local linear map (ad/deriv.c) applied to the operands' tangents. Linear
 * maps are left in the output for linmap_eliminate. Inactive values (ints)
 * have no tangent; a float value computed only from constants has a
 * structural zero tangent, which costs nothing. */
#include "ad/ad.h"
#include "ad/deriv.h"
#include "ad/util.h"

typedef struct Fwd {
  Module *m;
  Arena *a;
  VarMap tangent; /* primal Var -> atom holding its tangent */
  NameSet *names; /* names in use: new variables get fresh ones */
  Expr *body;     /* the body being differentiated */
  VarMap zeros;   /* a constant table passed to a callee, or a view of it
                     -> an array of zeros, made once, for the callee's
                     tangent argument (its reads keep a structural zero) */
} Fwd;

static Expr *fwd_block(Fwd *s, Expr *e, Bindings *out);

/* The tangent of an atom: a variable, a structural zero, or NULL when the
 * atom is inactive (an int). */
static Expr *tangent_of(Fwd *s, Expr *atom) {
  Type *tt = type_tangent(s->a, atom->type);
  if (!tt)
    return NULL;
  if (atom->kind == E_VAR) {
    Expr *t = varmap_get(&s->tangent, atom->var);
    if (t)
      return t;
  }
  return ex_zero(s->a, tt);
}

static bool has_tangent(Fwd *s, Expr *atom) {
  Expr *t = tangent_of(s, atom);
  return t && t->kind != E_ZERO;
}

static Expr *bind(Fwd *s, Bindings *out, const char *name, Expr *rhs) {
  Var *v = var_new(s->a, nameset_fresh(s->names, s->a, name), rhs->type);
  bindings_push(s->a, out, v, rhs);
  return ex_var(s->a, v);
}

static void set_tangent(Fwd *s, Var *x, Expr *t) {
  if (t)
    varmap_put(&s->tangent, x, t);
}

static const char *dname(Fwd *s, Var *x) {
  return arena_printf(s->a, "d%s", x->name);
}

/* Binds the tangent of x; its type is x's tangent type. */
static void bind_tangent(Fwd *s, Bindings *out, Var *x, Expr *rhs) {
  if (!rhs->type)
    rhs->type = type_tangent(s->a, x->type);
  set_tangent(s, x, bind(s, out, dname(s, x), rhs));
}

static void fwd_prim(Fwd *s, Var *x, Expr *rhs, Bindings *out) {
  bindings_push(s->a, out, x, rhs);
  Type *t = rhs->type;
  if (rhs->op == P_TO_F64 || rhs->op == P_TO_F32) {
    if (type_is_float(rhs->args[0]->type) && has_tangent(s, rhs->args[0]))
      bind_tangent(s, out, x, ex_prim1(s->a, rhs->op, tangent_of(s, rhs->args[0])));
    return;
  }
  if (!deriv_is_smooth(rhs->op, t))
    return;
  bool active[3] = {false, false, false};
  Expr *dargs[3];
  int n = 0;
  for (int i = 0; i < rhs->nargs; i++) {
    active[i] = has_tangent(s, rhs->args[i]);
    if (active[i])
      dargs[n++] = tangent_of(s, rhs->args[i]);
  }
  if (n == 0)
    return; /* structural zero tangent */
  Expr *jac = deriv_jacobian(s->a, rhs->op, rhs->args, ex_var(s->a, x), active);
  Expr *dt = ex_tuple(s->a, n, dargs);
  Expr *app = ex_lin(s->a, E_LAPPLY, 2, (Expr *[]){jac, dt});
  app->type = t;
  bind_tangent(s, out, x, app);
}

static Expr *tangent_value(Fwd *s, Expr *atom);
static Expr *state_tangent(Fwd *s, Bindings *out, Expr *atom);

static void fwd_call(Fwd *s, Var *x, Expr *rhs, Bindings *out) {
  Func *g = module_find(s->m, rhs->name);
  if (!type_is_active(rhs->type) || !g) {
    bindings_push(s->a, out, x, rhs);
    return;
  }
  /* No argument varies: the result's tangent is a structural zero, and g
   * runs as it is. Calling g$fwd with zero tangents would multiply them by
   * g's partial derivatives, and 0 * inf is NaN in IEEE arithmetic (gen
   * seed 41058: g(3.0f) overflows inside, its caller saturates in tanh). */
  bool varies = false;
  for (int i = 0; i < rhs->nargs; i++)
    varies = varies || (func_param_active(g, i) &&
                        (func_param_written(g, i) || has_tangent(s, rhs->args[i])));
  if (!varies) {
    bindings_push(s->a, out, x, rhs);
    return;
  }
  if (g->is_custom) /* g$fwd is the user's g_fwd, called the same way */
    ad_declare_custom(s->m, g);
  PtrVec args = {0};
  for (int i = 0; i < rhs->nargs; i++) {
    ptrvec_push(s->a, &args, rhs->args[i]);
    /* an array a custom g writes gets a tangent array of its own, bound
     * before the call consumes both (its length is the primal's) */
    Expr *zeros = rhs->args[i]->kind == E_VAR ? varmap_get(&s->zeros, rhs->args[i]->var) : NULL;
    if (func_param_active(g, i))
      ptrvec_push(s->a, &args, func_param_written(g, i) ? state_tangent(s, out, rhs->args[i])
                               : zeros                   ? zeros
                                                         : tangent_value(s, rhs->args[i]));
  }
  Expr *call = ex_call(s->a, ad_name(s->m, g->name, "fwd"), args.len,
                       (Expr **)args.items);
  call->type = ty_tuple2(s->a, rhs->type, type_tangent(s->a, rhs->type));
  call->loc = rhs->loc;
  Expr *pair = bind(s, out, arena_printf(s->a, "%s_fwd", x->name), call);
  bindings_push(s->a, out, x, ex_get(s->a, 0, pair));
  Expr *dx = ex_get(s->a, 1, pair);
  dx->type = type_tangent(s->a, rhs->type);
  bind_tangent(s, out, x, dx);
}

static void fwd_tuple(Fwd *s, Var *x, Expr *rhs, Bindings *out) {
  PtrVec parts = {0};
  bool any = false;
  for (int i = 0; i < rhs->nargs; i++) {
    Expr *t = tangent_of(s, rhs->args[i]);
    any = any || (t && t->kind != E_ZERO);
  }
  for (int i = 0; i < rhs->nargs; i++) {
    /* a tuple with a tangent holds arrays of zeros, not structural zeros,
     * where its arrays do not vary: a loop may update them */
    Expr *t = any ? state_tangent(s, out, rhs->args[i]) : tangent_of(s, rhs->args[i]);
    if (t)
      ptrvec_push(s->a, &parts, t);
  }
  bindings_push(s->a, out, x, rhs);
  if (any)
    bind_tangent(s, out, x, ex_tuple(s->a, parts.len, (Expr **)parts.items));
}

static void fwd_get(Fwd *s, Var *x, Expr *rhs, Bindings *out) {
  bindings_push(s->a, out, x, rhs);
  Expr *tup = rhs->args[0];
  if (!type_is_active(rhs->type) || !has_tangent(s, tup))
    return;
  int k = active_index(tup->type, rhs->index);
  bind_tangent(s, out, x, ex_get(s->a, k, tangent_of(s, tup)));
}

/* Each branch returns (value, tangent); the tangent may be a structural
 * zero in one branch and not in the other: the zero is then materialised
 * by linmap_eliminate's clean-up (it must exist at run time). */
static void fwd_if(Fwd *s, Var *x, Expr *rhs, Bindings *out) {
  if (!type_is_active(rhs->type)) {
    bindings_push(s->a, out, x, rhs);
    return;
  }
  Expr *branches[2];
  for (int j = 0; j < 2; j++) {
    Bindings b = {0};
    Expr *r = fwd_block(s, rhs->args[1 + j], &b);
    /* an array that does not vary in this branch (made of constants)
     * gets an array of zeros: the other branch's tangent is an array */
    Expr *t = type_holds_array(r->type) ? state_tangent(s, &b, r) : tangent_of(s, r);
    Expr *pair = ex_tuple(s->a, 2, (Expr *[]){r, t});
    branches[j] = bindings_build(s->a, &b, pair);
  }
  Expr *iff = ex_if(s->a, rhs->args[0], branches[0], branches[1]);
  iff->type = ty_tuple2(s->a, rhs->type, type_tangent(s->a, rhs->type));
  iff->loc = rhs->loc;
  Expr *pair = bind(s, out, arena_printf(s->a, "%s_fwd", x->name), iff);
  bindings_push(s->a, out, x, ex_get(s->a, 0, pair));
  bind_tangent(s, out, x, ex_get(s->a, 1, pair));
}

/* ----------------------------------------------------- arrays and loops */

/* A tangent that must exist at run time: a structurally zero array
 * becomes an array of zeros as long as its primal. */
static Expr *tangent_value(Fwd *s, Expr *atom) {
  Expr *t = tangent_of(s, atom);
  if (!t || t->kind != E_ZERO || atom->type->kind != TY_ARRAY)
    return t;
  Var *k = var_new(s->a, "k", ty_int());
  return ex_build(s->a, ex_len(s->a, atom), k, ex_const(s->a, atom->type->elem, 0));
}

/* The tangent of a value that holds arrays, as a value: arrays of zeros
 * (as long as the primal's) where the tangent is a structural zero, which
 * a loop carrying the arrays may update. Bound in `out` (before any
 * update consumes the primal arrays, whose lengths it reads). */
static Expr *state_tangent(Fwd *s, Bindings *out, Expr *atom) {
  Expr *t = tangent_of(s, atom);
  if (!t || t->kind != E_ZERO || !type_holds_array(atom->type))
    return t;
  if (atom->type->kind == TY_ARRAY)
    return bind(s, out, "zeros", tangent_value(s, atom));
  Type *tt = type_tangent(s->a, atom->type);
  Expr **parts = arena_alloc(s->a, sizeof(Expr *) * (size_t)(tt->n ? tt->n : 1));
  for (int i = 0, k = 0; i < atom->type->n; i++) {
    Type *ft = atom->type->elems[i];
    if (!type_is_active(ft))
      continue;
    Expr *field = bind(s, out, "field", ex_get(s->a, i, atom));
    Expr *part = type_holds_array(ft) ? state_tangent(s, out, field) : ex_zero(s->a, tt->elems[k]);
    parts[k++] = part;
  }
  Expr *tup = ex_tuple(s->a, tt->n, parts);
  tup->type = tt;
  return bind(s, out, "zeros", tup);
}

static void fwd_index(Fwd *s, Var *x, Expr *rhs, Bindings *out) {
  bindings_push(s->a, out, x, rhs);
  Expr *arr = rhs->args[0];
  if (type_is_float(rhs->type) && has_tangent(s, arr))
    bind_tangent(s, out, x, ex_index(s->a, tangent_of(s, arr), rhs->args[1]));
}

/* update: the tangent array is unique too, and updated in the same place
 * (DESIGN 8.1): d(update a i v) = update da i dv. The primal consumes a
 * exactly when the tangent consumes da, so linearity carries over. */
static void fwd_update(Fwd *s, Var *x, Expr *rhs, Bindings *out) {
  Expr *arr = rhs->args[0], *v = rhs->args[2];
  if (!type_is_float(v->type) || (!has_tangent(s, arr) && !has_tangent(s, v))) {
    bindings_push(s->a, out, x, rhs);
    return; /* an int array, or nothing varies: the tangent stays zero */
  }
  Expr *dv = has_tangent(s, v) ? tangent_of(s, v) : ex_const(s->a, v->type, 0);
  /* zeros made before the primal update, which consumes `arr` (its length) */
  Expr *da = tangent_value(s, arr);
  if (!expr_is_atom(da))
    da = bind(s, out, dname(s, x), da);
  bindings_push(s->a, out, x, rhs);
  bind_tangent(s, out, x, ex_update(s->a, da, rhs->args[1], dv));
}

/* alloc: zeros, whose tangent is an array of zeros of its own (not a
 * structural zero), so that updates, tuples and fold states holding it
 * always have a tangent array to update; DCE drops it when unread. */
static void fwd_alloc(Fwd *s, Var *x, Expr *rhs, Bindings *out) {
  bindings_push(s->a, out, x, rhs);
  if (type_is_float(rhs->type->elem))
    bind_tangent(s, out, x, ex_alloc(s->a, rhs->type, rhs->args[0]));
}

/* The scalar leaves of a value of tuple-or-scalar type, as projections. */
static void leaves(Fwd *s, Expr *atom, Type *t, PtrVec *out) {
  if (t->kind != TY_TUPLE) {
    ptrvec_push(s->a, out, atom);
    return;
  }
  for (int i = 0; i < t->n; i++)
    leaves(s, atom->kind == E_ZERO ? ex_zero(s->a, t->elems[i]) : ex_get(s->a, i, atom),
           t->elems[i], out);
}

/* Body result for build and sum: the flat tuple (primal leaves, tangent
 * leaves), since those loop forms take tuples of scalars. */
static Expr *pair_leaves(Fwd *s, Expr *r, Expr *dr, int *nprimal) {
  PtrVec ls = {0};
  leaves(s, r, r->type, &ls);
  *nprimal = ls.len;
  leaves(s, dr, type_tangent(s->a, r->type), &ls);
  return ex_tuple(s->a, ls.len, (Expr **)ls.items);
}

/* Rebuilds (value, tangent) from the flat results of a build or sum. */
static void unpair(Fwd *s, Var *x, Expr *pair, int nprimal, int ntotal, Bindings *out) {
  Type *t = x->type;
  Expr *value;
  if (t->kind == TY_TUPLE) {
    Expr **parts = arena_alloc(s->a, sizeof(Expr *) * (size_t)(nprimal ? nprimal : 1));
    for (int i = 0; i < nprimal; i++)
      parts[i] = ex_get(s->a, i, pair);
    value = ex_tuple(s->a, nprimal, parts);
  } else {
    value = ex_get(s->a, 0, pair);
  }
  bindings_push(s->a, out, x, value);
  int nt = ntotal - nprimal;
  Expr *tan;
  Type *tt = type_tangent(s->a, t);
  if (tt->kind == TY_TUPLE) {
    Expr **parts = arena_alloc(s->a, sizeof(Expr *) * (size_t)(nt ? nt : 1));
    for (int i = 0; i < nt; i++)
      parts[i] = ex_get(s->a, nprimal + i, pair);
    tan = ex_tuple(s->a, nt, parts);
  } else {
    tan = ex_get(s->a, nprimal, pair);
  }
  tan->type = tt;
  bind_tangent(s, out, x, tan);
}

/* build and sum: one loop computes the values and their tangents. */
static void fwd_build_sum(Fwd *s, Var *x, Expr *rhs, Bindings *out) {
  Bindings b = {0};
  Expr *r = fwd_block(s, rhs->body, &b);
  Expr *init = rhs->kind == E_SUM && rhs->nargs == 2 ? rhs->args[1] : NULL;
  if (!has_tangent(s, r) && !(init && has_tangent(s, init))) {
    bindings_push(s->a, out, x, rhs); /* the loop computes no tangent */
    return;
  }
  int np;
  Expr *body = bindings_build(s->a, &b, pair_leaves(s, r, tangent_of(s, r), &np));
  Expr *loop;
  if (rhs->kind == E_BUILD) {
    loop = ex_build(s->a, rhs->args[0], rhs->var, body);
  } else if (init) { /* the value and its tangent start from init's */
    int ni;
    Expr *pinit = pair_leaves(s, init, tangent_of(s, init), &ni);
    loop = ex_sum_from(s->a, rhs->args[0], pinit, rhs->var, body);
  } else {
    loop = ex_sum(s->a, rhs->args[0], rhs->var, body);
  }
  loop->loc = rhs->loc;
  loop->type = NULL; /* the checker types the flat result */
  Var *p = var_new(s->a, nameset_fresh(s->names, s->a, arena_printf(s->a, "%s_fwd", x->name)), NULL);
  bindings_push(s->a, out, p, loop);
  int ntotal = np + (type_tangent(s->a, r->type)->kind == TY_TUPLE
                         ? type_tangent(s->a, r->type)->n : 1);
  unpair(s, x, ex_var(s->a, p), np, ntotal, out);
}

/* fold and while: the state and its tangent step together. A while's
 * step also yields whether to go on, which depends on the state alone, so
 * its body yields (go, (state, tangent)). */
static void fwd_state_loop(Fwd *s, Var *x, Expr *rhs, Bindings *out) {
  if (!type_is_active(rhs->type)) {
    bindings_push(s->a, out, x, rhs);
    return;
  }
  bool is_while = rhs->kind == E_WHILE;
  Type *st = rhs->args[1]->type, *dt = type_tangent(s->a, st);
  Type *pt = ty_tuple2(s->a, st, dt);
  Var *ps = var_new(s->a, nameset_fresh(s->names, s->a, "st"), pt);
  Bindings b = {0};
  bindings_push(s->a, &b, rhs->var2, ex_get(s->a, 0, ex_var(s->a, ps)));
  Expr *ds = bind(s, &b, dname(s, rhs->var2), ex_get(s->a, 1, ex_var(s->a, ps)));
  set_tangent(s, rhs->var2, ds);
  Expr *r = fwd_block(s, rhs->body, &b);
  Expr *go = NULL;
  if (is_while) {
    go = bind(s, &b, "go", ex_get(s->a, 0, r));
    Var *next = var_new(s->a, nameset_fresh(s->names, s->a, "next"), st);
    fwd_get(s, next, ex_get(s->a, 1, r), &b);
    r = ex_var(s->a, next);
  }
  Expr *res = ex_tuple(s->a, 2, (Expr *[]){r, tangent_of(s, r)});
  if (is_while)
    res = ex_tuple(s->a, 2, (Expr *[]){go, res});
  Expr *body = bindings_build(s->a, &b, res);
  Expr *init = ex_tuple(s->a, 2, (Expr *[]){rhs->args[1], state_tangent(s, out, rhs->args[1])});
  Expr *loop = is_while ? ex_while(s->a, rhs->args[0], init, rhs->var, ps, body)
                        : ex_fold(s->a, rhs->args[0], init, rhs->var, ps, body);
  loop->type = pt;
  loop->loc = rhs->loc;
  Expr *pair = bind(s, out, arena_printf(s->a, "%s_fwd", x->name), loop);
  bindings_push(s->a, out, x, ex_get(s->a, 0, pair));
  bind_tangent(s, out, x, ex_get(s->a, 1, pair));
}

/* scatter over (base, dbase) adding (v, dv): one loop for both. */
static void fwd_scatter(Fwd *s, Var *x, Expr *rhs, Bindings *out) {
  Bindings b = {0};
  Expr *r = fwd_block(s, rhs->body, &b); /* r is the pair (idx, v) */
  Expr *base = rhs->args[0];
  bool dv = has_tangent(s, r), db = has_tangent(s, base);
  if (!dv && !db) {
    bindings_push(s->a, out, x, rhs);
    return;
  }
  Expr *idx = ex_get(s->a, 0, r), *v = ex_get(s->a, 1, r);
  Expr *tv = tangent_of(s, r);
  Expr *dvv = tv->kind == E_ZERO ? ex_const(s->a, rhs->type->elem, 0) : ex_get(s->a, 0, tv);
  Expr *pair = ex_tuple(s->a, 2, (Expr *[]){v, dvv});
  Expr *body = bindings_build(s->a, &b, ex_tuple(s->a, 2, (Expr *[]){idx, pair}));
  Expr *bases = ex_tuple(s->a, 2, (Expr *[]){base, tangent_value(s, base)});
  Expr *loop = ex_scatter(s->a, bases, rhs->args[1], rhs->var, body);
  loop->type = ty_tuple2(s->a, rhs->type, rhs->type);
  loop->loc = rhs->loc;
  Expr *p = bind(s, out, arena_printf(s->a, "%s_fwd", x->name), loop);
  bindings_push(s->a, out, x, ex_get(s->a, 0, p));
  bind_tangent(s, out, x, ex_get(s->a, 1, p));
}

/* A view's tangent is the same view of the array's tangent. */
static void fwd_view(Fwd *s, Var *x, Expr *rhs, Bindings *out) {
  bindings_push(s->a, out, x, rhs);
  Expr *base = rhs->args[0];
  Expr *zeros = base->kind == E_VAR ? varmap_get(&s->zeros, base->var) : NULL;
  if (has_tangent(s, base))
    bind_tangent(s, out, x, ex_view(s->a, tangent_of(s, base), rhs->args[1]));
  else if (zeros)
    varmap_put(&s->zeros, x, bind(s, out, dname(s, x), ex_view(s->a, zeros, rhs->args[1])));
}

/* A constant table: a structural zero tangent, and an array of zeros as
 * long as the table for the callees it is passed to (whose f_fwd takes a
 * tangent array), made here once instead of at every call. */
static void fwd_table(Fwd *s, Var *x, Expr *rhs, Bindings *out) {
  bindings_push(s->a, out, x, rhs);
  if (type_is_float(rhs->type->elem) && expr_passes_array(s->body, x))
    varmap_put(&s->zeros, x,
               bind(s, out, dname(s, x), ex_alloc(s->a, rhs->type, ex_len(s->a, ex_var(s->a, x)))));
}

static void fwd_binding(Fwd *s, Var *x, Expr *rhs, Bindings *out) {
  switch (rhs->kind) {
  case E_VIEW:
    fwd_view(s, x, rhs, out);
    return;
  case E_INDEX:
    fwd_index(s, x, rhs, out);
    return;
  case E_UPDATE:
    fwd_update(s, x, rhs, out);
    return;
  case E_ALLOC:
    fwd_alloc(s, x, rhs, out);
    return;
  case E_BUILD:
  case E_SUM:
    fwd_build_sum(s, x, rhs, out);
    return;
  case E_FOLD:
  case E_WHILE:
    fwd_state_loop(s, x, rhs, out);
    return;
  case E_SCATTER:
    fwd_scatter(s, x, rhs, out);
    return;
  case E_VAR:
    bindings_push(s->a, out, x, rhs);
    if (has_tangent(s, rhs))
      set_tangent(s, x, tangent_of(s, rhs));
    return;
  case E_PRIM:
    fwd_prim(s, x, rhs, out);
    return;
  case E_CALL:
    fwd_call(s, x, rhs, out);
    return;
  case E_TUPLE:
    fwd_tuple(s, x, rhs, out);
    return;
  case E_GET:
    fwd_get(s, x, rhs, out);
    return;
  case E_IF:
    fwd_if(s, x, rhs, out);
    return;
  case E_TABLE:
    fwd_table(s, x, rhs, out);
    return;
  default: /* constants: zero tangent */
    bindings_push(s->a, out, x, rhs);
    return;
  }
}

/* Emits the bindings of block e and their tangents; returns e's result. */
static Expr *fwd_block(Fwd *s, Expr *e, Bindings *out) {
  Bindings b;
  bindings_of(s->a, e, &b);
  for (int i = 0; i < b.vars.len; i++)
    fwd_binding(s, b.vars.items[i], b.rhss.items[i], out);
  return b.result;
}

Func *ad_forward(Module *m, Func *f, NameSet *param_names) {
  Fwd s = {.m = m, .a = m->arena, .names = param_names, .body = f->body};
  PtrVec params = {0};
  for (int i = 0; i < f->nparams; i++) {
    Var *p = f->params[i];
    ptrvec_push(s.a, &params, p);
    if (func_param_active(f, i)) {
      const char *dn = nameset_fresh(param_names, s.a, arena_printf(s.a, "d%s", p->name));
      Var *dp = var_new(s.a, dn, type_tangent(s.a, p->type));
      ptrvec_push(s.a, &params, dp);
      set_tangent(&s, p, ex_var(s.a, dp));
    }
  }
  Bindings body = {0};
  Expr *r = fwd_block(&s, f->body, &body);
  Type *ret = f->ret;
  Expr *result = r;
  if (type_is_active(f->ret)) {
    /* arrays of zeros, not structural zeros, for outputs that do not vary */
    result = ex_tuple(s.a, 2, (Expr *[]){r, state_tangent(&s, &body, r)});
    ret = ty_tuple2(s.a, f->ret, type_tangent(s.a, f->ret));
  }
  Func *g = module_add(m, ad_name(m, f->name, "fwd"), params.len,
                       (Var **)params.items, ret, bindings_build(s.a, &body, result));
  g->is_static = f->is_static;
  g->is_generated = true;
  g->loc = f->loc;
  varmap_free(&s.tangent);
  varmap_free(&s.zeros);
  return g;
}
