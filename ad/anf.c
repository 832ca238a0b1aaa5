/* anf.c: A-normal form with unique binders.
 *
 * Requires: a well-scoped expression (types may be missing on new nodes; they
 * are recomputed by the checker later). Guarantees: every operand of every
 * operation is an atom (variable, constant, structural zero); the body of a
 * function is a let chain ending in an atom; `if` branches are such chains;
 * every binder is a fresh Var whose name is unique within the function, so
 * later passes can key on Var identity and the emitter can use the names as
 * C identifiers. Nested lets in right-hand sides are floated out (safe
 * because binders are unique). */
#include "ad/ad.h"
#include "ad/util.h"

typedef struct Anf {
  Module *m;
  Arena *a;
  VarMap rename; /* old binder -> new Var */
  NameSet names;
  int tmp_counter;
} Anf;

static Expr *anf_block(Anf *s, Expr *e);
static Expr *anf_rhs(Anf *s, Expr *e, Bindings *out);

static Var *fresh_var(Anf *s, const char *base, Type *t) {
  return var_new(s->a, nameset_fresh(&s->names, s->a, base), t);
}

static Expr *rename_atom(Anf *s, Expr *e) {
  if (e->kind != E_VAR)
    return e;
  Var *to = varmap_get(&s->rename, e->var);
  if (!to)
    return e; /* free variable (parameter of the enclosing function) */
  Expr *r = ex_var(s->a, to);
  r->loc = e->loc;
  return r;
}

/* Binds a non-atomic expression to a temporary and returns the variable. */
static Expr *anf_atom(Anf *s, Expr *e, Bindings *out) {
  if (expr_is_atom(e))
    return rename_atom(s, e);
  Expr *rhs = anf_rhs(s, e, out);
  if (expr_is_atom(rhs))
    return rhs;
  Var *t = fresh_var(s, "t", rhs->type ? rhs->type : e->type);
  bindings_push(s->a, out, t, rhs);
  Expr *v = ex_var(s->a, t);
  v->loc = e->loc;
  return v;
}

/* Floats the bindings of a let chain into `out`; returns its result. */
static Expr *anf_float_lets(Anf *s, Expr *e, Bindings *out) {
  while (e->kind == E_LET) {
    Expr *rhs = anf_rhs(s, e->args[0], out);
    Var *v = fresh_var(s, e->var->name, e->var->type ? e->var->type : rhs->type);
    varmap_put(&s->rename, e->var, v);
    bindings_push(s->a, out, v, rhs);
    e = e->body;
  }
  return e;
}

static Expr *anf_rhs(Anf *s, Expr *e, Bindings *out) {
  if (e->kind == E_LET)
    return anf_rhs(s, anf_float_lets(s, e, out), out);
  if (expr_is_atom(e))
    return rename_atom(s, e);
  Expr *n = ex_clone_shallow(s->a, e);
  if (expr_is_loop(e)) {
    for (int i = 0; i < e->nargs; i++)
      n->args[i] = anf_atom(s, e->args[i], out);
    n->var = fresh_var(s, e->var->name, ty_int());
    varmap_put(&s->rename, e->var, n->var);
    if (e->var2) {
      n->var2 = fresh_var(s, e->var2->name, e->var2->type ? e->var2->type : e->args[1]->type);
      varmap_put(&s->rename, e->var2, n->var2);
    }
    n->body = anf_block(s, e->body);
    return n;
  }
  if (e->kind == E_IF) {
    n->args[0] = anf_atom(s, e->args[0], out);
    n->args[1] = anf_block(s, e->args[1]);
    n->args[2] = anf_block(s, e->args[2]);
    return n;
  }
  for (int i = 0; i < e->nargs; i++)
    n->args[i] = anf_atom(s, e->args[i], out);
  return n;
}

static Expr *anf_block(Anf *s, Expr *e) {
  Bindings b = {0};
  Expr *last = anf_float_lets(s, e, &b);
  Expr *res = anf_atom(s, last, &b);
  return bindings_build(s->a, &b, res);
}

static void anf_init(Anf *s, Module *m) {
  *s = (Anf){.m = m, .a = m->arena};
}

static void anf_done(Anf *s) {
  varmap_free(&s->rename);
  nameset_free(&s->names);
}

Expr *anf_expr(Module *m, Expr *e) {
  Anf s;
  anf_init(&s, m);
  Expr *r = anf_block(&s, e);
  anf_done(&s);
  return r;
}

/* The body e of f (or of a function with f's parameters) in ANF, with
 * binder names distinct from the parameters'. */
Expr *anf_body(Module *m, const Func *f, Expr *e) {
  Anf s;
  anf_init(&s, m);
  for (int i = 0; i < f->nparams; i++)
    nameset_reserve(&s.names, f->params[i]->name);
  Expr *r = anf_block(&s, e);
  anf_done(&s);
  return r;
}

/* Parameters keep their names (they are the C parameter names). */
Func *anf_func(Module *m, Func *f) {
  Anf s;
  anf_init(&s, m);
  for (int i = 0; i < f->nparams; i++)
    nameset_reserve(&s.names, f->params[i]->name);
  Expr *body = anf_block(&s, f->body);
  anf_done(&s);
  Func *g = arena_alloc(m->arena, sizeof *g);
  *g = *f;
  g->body = body;
  return g;
}
