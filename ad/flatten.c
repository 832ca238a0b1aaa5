/* flatten.c: flat results for `if`.
 *
 * Requires ANF with unique binders, types set. Guarantees ANF with unique
 * binders in which every `if` whose result is a tuple returns a flat tuple
 * of leaves (scalars and records); the original nested value is rebuilt
 * after the `if` from projections. Lowering joins the variables a branch
 * assigns into a tuple, and forward mode pairs that tuple with its tangent,
 * so nested results are common; once flat, simplify_expr resolves the
 * projections to the leaves and dce_expr drops the leaves nobody reads
 * (which C compilers would otherwise report as set but never used). */
#include "ad/ad.h"
#include "ad/util.h"

typedef struct Flat {
  Arena *a;
} Flat;

static bool is_leaf(const Type *t) { return t->kind != TY_TUPLE || t->name; }

static bool is_flat(const Type *t) {
  if (is_leaf(t))
    return true;
  for (int i = 0; i < t->n; i++)
    if (!is_leaf(t->elems[i]))
      return false;
  return true;
}

static void leaf_types(Arena *a, Type *t, PtrVec *out) {
  if (is_leaf(t)) {
    ptrvec_push(a, out, t);
    return;
  }
  for (int i = 0; i < t->n; i++)
    leaf_types(a, t->elems[i], out);
}

static Expr *bind(Flat *s, Bindings *out, const char *name, Expr *rhs, Type *t) {
  rhs->type = t;
  Var *v = var_new(s->a, name, t);
  bindings_push(s->a, out, v, rhs);
  return ex_var(s->a, v);
}

/* Atoms for the leaves of `atom` (of type t), projected in `out`. */
static void leaf_atoms(Flat *s, Bindings *out, Expr *atom, Type *t, PtrVec *leaves) {
  if (is_leaf(t)) {
    ptrvec_push(s->a, leaves, atom);
    return;
  }
  for (int i = 0; i < t->n; i++) {
    Expr *part = atom->kind == E_ZERO ? ex_zero(s->a, t->elems[i])
                                      : bind(s, out, "l", ex_get(s->a, i, atom), t->elems[i]);
    leaf_atoms(s, out, part, t->elems[i], leaves);
  }
}

/* Rebuilds a value of type t from leaves of `flat` starting at *next. */
static Expr *rebuild(Flat *s, Bindings *out, Expr *flat, Type *t, int *next) {
  if (is_leaf(t))
    return bind(s, out, "l", ex_get(s->a, (*next)++, flat), t);
  Expr **parts = arena_alloc(s->a, sizeof(Expr *) * (size_t)(t->n ? t->n : 1));
  for (int i = 0; i < t->n; i++)
    parts[i] = rebuild(s, out, flat, t->elems[i], next);
  return bind(s, out, "t", ex_tuple(s->a, t->n, parts), t);
}

static Expr *flatten_block(Flat *s, Expr *e);

static Expr *flat_branch(Flat *s, Expr *branch, Type *t, Type *flat_type) {
  Bindings b;
  bindings_of(s->a, flatten_block(s, branch), &b);
  PtrVec leaves = {0};
  leaf_atoms(s, &b, b.result, t, &leaves);
  Expr *tup = bind(s, &b, "r", ex_tuple(s->a, leaves.len, (Expr **)leaves.items), flat_type);
  return bindings_build(s->a, &b, tup);
}

static Expr *flatten_block(Flat *s, Expr *e) {
  Bindings in, out = {0};
  bindings_of(s->a, e, &in);
  for (int i = 0; i < in.vars.len; i++) {
    Var *x = in.vars.items[i];
    Expr *rhs = in.rhss.items[i];
    if (expr_is_loop(rhs)) {
      Expr *n = ex_clone_shallow(s->a, rhs);
      n->body = flatten_block(s, rhs->body);
      bindings_push(s->a, &out, x, n);
      continue;
    }
    if (rhs->kind != E_IF) {
      bindings_push(s->a, &out, x, rhs);
      continue;
    }
    Expr *n = ex_clone_shallow(s->a, rhs);
    if (is_flat(rhs->type)) {
      n->args[1] = flatten_block(s, rhs->args[1]);
      n->args[2] = flatten_block(s, rhs->args[2]);
      bindings_push(s->a, &out, x, n);
      continue;
    }
    PtrVec lt = {0};
    leaf_types(s->a, rhs->type, &lt);
    Type *flat_type = ty_tuple(s->a, lt.len, (Type **)lt.items);
    n->args[1] = flat_branch(s, rhs->args[1], rhs->type, flat_type);
    n->args[2] = flat_branch(s, rhs->args[2], rhs->type, flat_type);
    Expr *flat = bind(s, &out, x->name, n, flat_type);
    int next = 0;
    Expr *value = rebuild(s, &out, flat, rhs->type, &next);
    bindings_push(s->a, &out, x, value);
  }
  return bindings_build(s->a, &out, in.result);
}

Expr *flatten_ifs(Module *m, Expr *e) {
  Flat s = {.a = m->arena};
  return flatten_block(&s, e);
}
