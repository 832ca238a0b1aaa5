/* split.c: split an optimised f$rev into f$aug and f$bwd.
 *
 * Requires: f$rev in ANF with unique binders, type-checked, no linear maps,
 * its result a variable bound to the tuple (ret, cotangents). Guarantees:
 *   f$aug(params)      -> (ret, f$tape record)   the primal half
 *   f$bwd(tape, ret_b) -> cotangents             the adjoint half
 * with f$rev = f$bwd . f$aug. A top-level binding belongs to the adjoint
 * half exactly when it depends on the seed ret_b; everything else is primal
 * work, and the primal values (or parameters) that the adjoint half reads
 * are the fields of the tape. This is the defunctionalised backpropagator of
 * CHAD: callers run g$aug in their primal sweep and g$bwd in their reverse
 * sweep, so nested calls cost one run of each callee in each sweep. */
#include "ad/ad.h"
#include "ad/transform.h"

typedef struct Split {
  Arena *a;
  VarMap adjoint;  /* Var -> non-NULL when it depends on the seed */
  VarMap primal;   /* Var bound in the primal half or a parameter */
  VarMap in_tape;
  PtrVec tape;     /* Var* read by the adjoint half, defined by the primal */
  bool hit;
} Split;

static void note_adjoint(Var *v, void *ctx) {
  Split *s = ctx;
  if (varmap_has(&s->adjoint, v))
    s->hit = true;
}

static void note_tape(Var *v, void *ctx) {
  Split *s = ctx;
  if (varmap_has(&s->primal, v) && !varmap_has(&s->in_tape, v)) {
    varmap_put(&s->in_tape, v, v);
    ptrvec_push(s->a, &s->tape, v);
  }
}

static Expr *find_rhs(const Bindings *b, const Expr *atom) {
  if (atom->kind != E_VAR)
    return NULL;
  for (int i = b->vars.len - 1; i >= 0; i--)
    if (b->vars.items[i] == atom->var)
      return b->rhss.items[i];
  return NULL;
}

bool ad_split(Module *m, Func *f, Func *rev, Diag *err) {
  Split s = {.a = m->arena};
  Bindings b;
  bindings_of(s.a, rev->body, &b);
  Expr *pair = find_rhs(&b, b.result);
  if (!pair || pair->kind != E_TUPLE || pair->nargs != 2) {
    diag_set(err, f->loc, "internal error: reverse derivative of '%s' has no result pair", f->name);
    return false;
  }
  Expr *ret = pair->args[0], *cts = pair->args[1];
  bool has_seed = rev->nparams > f->nparams;
  if (has_seed)
    varmap_put(&s.adjoint, rev->params[rev->nparams - 1], rev->params[0]);
  for (int i = 0; i < f->nparams; i++)
    varmap_put(&s.primal, rev->params[i], rev->params[i]);
  Bindings primal = {0}, adjoint = {0};
  for (int i = 0; i < b.vars.len; i++) {
    Var *x = b.vars.items[i];
    Expr *rhs = b.rhss.items[i];
    if (x == b.result->var)
      continue; /* the pair itself is rebuilt by each half */
    s.hit = false;
    expr_visit_vars(rhs, note_adjoint, &s);
    if (s.hit) {
      varmap_put(&s.adjoint, x, x);
      bindings_push(s.a, &adjoint, x, rhs);
    } else {
      varmap_put(&s.primal, x, x);
      bindings_push(s.a, &primal, x, rhs);
    }
  }
  for (int i = 0; i < adjoint.rhss.len; i++)
    expr_visit_vars(adjoint.rhss.items[i], note_tape, &s);
  expr_visit_vars(cts, note_tape, &s);

  const char *tape_name = ad_name(m, f->name, "tape");
  Type **ftypes = arena_alloc(s.a, sizeof(Type *) * (size_t)(s.tape.len + 1));
  Expr **fields = arena_alloc(s.a, sizeof(Expr *) * (size_t)(s.tape.len + 1));
  for (int i = 0; i < s.tape.len; i++) {
    Var *v = s.tape.items[i];
    ftypes[i] = v->type;
    fields[i] = ex_var(s.a, v);
  }
  Type *tape_type = ty_record(s.a, tape_name, s.tape.len, ftypes);
  Expr *record = ex_record(s.a, tape_name, s.tape.len, fields);
  record->type = tape_type;
  Var *rec = var_new(s.a, "tape", tape_type);
  bindings_push(s.a, &primal, rec, record);
  Type *aug_type = ty_tuple2(s.a, f->ret, tape_type);
  Var *result = var_new(s.a, "result", aug_type);
  bindings_push(s.a, &primal, result, ex_tuple(s.a, 2, (Expr *[]){ret, ex_var(s.a, rec)}));
  Func *aug = module_add(m, ad_name(m, f->name, "aug"), f->nparams, rev->params, aug_type,
                         bindings_build(s.a, &primal, ex_var(s.a, result)));

  Var *tape_param = var_new(s.a, "tape", tape_type);
  Bindings bwd_body = {0};
  for (int i = 0; i < s.tape.len; i++)
    bindings_push(s.a, &bwd_body, s.tape.items[i], ex_get(s.a, i, ex_var(s.a, tape_param)));
  for (int i = 0; i < adjoint.vars.len; i++)
    bindings_push(s.a, &bwd_body, adjoint.vars.items[i], adjoint.rhss.items[i]);
  Var *bwd_params[2] = {tape_param, has_seed ? rev->params[rev->nparams - 1] : NULL};
  Type *cts_type = rev->ret->elems[1];
  Func *bwd = module_add(m, ad_name(m, f->name, "bwd"), has_seed ? 2 : 1, bwd_params,
                         cts_type, bindings_build(s.a, &bwd_body, cts));
  aug->is_static = bwd->is_static = f->is_static;
  aug->is_generated = bwd->is_generated = true;
  aug->loc = bwd->loc = f->loc;
  varmap_free(&s.adjoint);
  varmap_free(&s.primal);
  varmap_free(&s.in_tape);
  return true;
}
