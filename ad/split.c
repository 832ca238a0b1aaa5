/* split.c: split an optimised f$rev into f$aug and f$bwd.
 *
 * Requires: f$rev in ANF with unique binders, type-checked, no linear maps,
 * its result a variable bound to the tuple (result, cotangents). Guarantees:
 *   f$aug(params)                  -> (result, f$tape record)  primal half
 *   f$bwd(tape, ret_b, buffers...) -> cotangents               adjoint half
 * with f$rev = f$bwd . f$aug. A top-level binding belongs to the adjoint
 * half when it depends on the seed or on a cotangent buffer, or allocates
 * or fills one; everything else is primal work, and the primal values the
 * adjoint half reads are the fields of the tape. This is CHAD's
 * defunctionalised backpropagator: callers run g$aug in their primal sweep
 * and g$bwd in their reverse sweep, so nested calls cost one run of each
 * callee in each sweep.
 *
 * The tape holds scalars, callee tapes and the caller's own array
 * pointers, never an array this function allocated: those are recomputed
 * in the adjoint half instead (one more primal loop), so every function
 * frees exactly what it allocates and no pointer outlives its array. */
#include "ad/ad.h"
#include "ad/transform.h"

typedef struct Split {
  Arena *a;
  VarMap adjoint;  /* Var -> non-NULL when it belongs to the adjoint half */
  VarMap primal;   /* Var bound in the primal half, or a parameter of f */
  VarMap params;   /* parameters of f */
  VarMap unsafe;   /* primal Var holding (or pointing into) a local array */
  VarMap moved;    /* primal Var recomputed in the adjoint half */
  VarMap in_tape;
  PtrVec tape;     /* Var* read by the adjoint half, defined by the primal */
  bool hit;
} Split;

static void note_hit(Var *v, void *ctx) {
  Split *s = ctx;
  if (varmap_has(&s->adjoint, v))
    s->hit = true;
}

static void note_unsafe(Var *v, void *ctx) {
  Split *s = ctx;
  if (varmap_has(&s->unsafe, v))
    s->hit = true;
}

static void note_tape(Var *v, void *ctx) {
  Split *s = ctx;
  if (varmap_has(&s->primal, v) && !varmap_has(&s->moved, v) && !varmap_has(&s->in_tape, v)) {
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

static bool is_adjoint(Split *s, Expr *rhs) {
  if (rhs->kind == E_ALLOC || rhs->kind == E_ACCUM)
    return true;
  s->hit = false;
  expr_visit_vars(rhs, note_hit, s);
  return s->hit;
}

/* A callee's tape record, or a tuple holding one (g$aug's (result, tape)
 * pair, which the tape is projected from). */
static bool type_holds_record(const Type *t) {
  if (t->kind != TY_TUPLE)
    return false;
  if (t->name)
    return true;
  for (int i = 0; i < t->n; i++)
    if (type_holds_record(t->elems[i]))
      return true;
  return false;
}

/* Marks the primal bindings that the adjoint half must recompute: those
 * whose value is (or contains, or depends through a callee tape on) an
 * array allocated here, when the adjoint half reads them. */
static void plan_recompute(Split *s, const Bindings *primal, const Bindings *adjoint, Expr *cts) {
  for (int i = 0; i < primal->vars.len; i++) {
    Var *x = primal->vars.items[i];
    s->hit = false;
    expr_visit_vars(primal->rhss.items[i], note_unsafe, s);
    /* records are left out of type_holds_array: a callee's tape holds only
     * pointers its caller passed, unsafe exactly when the call read an
     * unsafe value. The call's pair must carry that to the tape projected
     * from it: otherwise the tape kept the address of an array this
     * function made, dead (a stack array's frame gone) when bwd reads it
     * (gen seed 222444). */
    if (type_holds_array(x->type) || (type_holds_record(x->type) && s->hit))
      varmap_put(&s->unsafe, x, x);
  }
  /* The unsafe values the adjoint half reads move there, and with them
   * every unsafe value their recomputation reads. */
  PtrVec work = {0};
  for (int i = 0; i < adjoint->rhss.len; i++) {
    s->tape.len = 0;
    varmap_free(&s->in_tape);
    expr_visit_vars(adjoint->rhss.items[i], note_tape, s);
    for (int k = 0; k < s->tape.len; k++)
      if (varmap_has(&s->unsafe, s->tape.items[k]))
        ptrvec_push(s->a, &work, s->tape.items[k]);
  }
  s->tape.len = 0;
  varmap_free(&s->in_tape);
  expr_visit_vars(cts, note_tape, s);
  for (int k = 0; k < s->tape.len; k++)
    if (varmap_has(&s->unsafe, s->tape.items[k]))
      ptrvec_push(s->a, &work, s->tape.items[k]);
  s->tape.len = 0;
  varmap_free(&s->in_tape);
  while (work.len) {
    Var *v = work.items[--work.len];
    if (varmap_has(&s->moved, v))
      continue;
    varmap_put(&s->moved, v, v);
    Expr *rhs = find_rhs(primal, ex_var(s->a, v));
    if (!rhs)
      continue;
    /* everything the recomputation reads that is itself unsafe moves too */
    VarMap saved = s->in_tape;
    PtrVec saved_tape = s->tape;
    s->in_tape = (VarMap){0};
    s->tape = (PtrVec){0};
    expr_visit_vars(rhs, note_tape, s);
    for (int k = 0; k < s->tape.len; k++)
      if (varmap_has(&s->unsafe, s->tape.items[k]))
        ptrvec_push(s->a, &work, s->tape.items[k]);
    varmap_free(&s->in_tape);
    s->in_tape = saved;
    s->tape = saved_tape;
  }
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
  if (type_is_unit(cts->type)) /* no scalar cotangents: nothing to carry */
    cts = ex_tuple(m->arena, 0, NULL);
  for (int i = 0; i < f->nparams; i++) {
    varmap_put(&s.primal, f->params[i], f->params[i]);
    varmap_put(&s.params, f->params[i], f->params[i]);
  }
  PtrVec adjoint_params = {0};
  for (int i = 0; i < rev->nparams; i++)
    if (!varmap_has(&s.params, rev->params[i])) {
      varmap_put(&s.adjoint, rev->params[i], rev->params[i]);
      ptrvec_push(s.a, &adjoint_params, rev->params[i]);
    }
  Bindings primal = {0}, adjoint = {0};
  for (int i = 0; i < b.vars.len; i++) {
    Var *x = b.vars.items[i];
    Expr *rhs = b.rhss.items[i];
    if (x == b.result->var)
      continue; /* the pair itself is rebuilt by each half */
    if (is_adjoint(&s, rhs)) {
      varmap_put(&s.adjoint, x, x);
      bindings_push(s.a, &adjoint, x, rhs);
    } else {
      varmap_put(&s.primal, x, x);
      bindings_push(s.a, &primal, x, rhs);
    }
  }
  plan_recompute(&s, &primal, &adjoint, cts);
  Bindings recompute = {0};
  for (int i = 0; i < primal.vars.len; i++)
    if (varmap_has(&s.moved, primal.vars.items[i]))
      bindings_push(s.a, &recompute, primal.vars.items[i], primal.rhss.items[i]);
  for (int i = 0; i < recompute.rhss.len; i++)
    expr_visit_vars(recompute.rhss.items[i], note_tape, &s);
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
  Func *aug = module_add(m, ad_name(m, f->name, "aug"), f->nparams, f->params, aug_type,
                         dce_expr(m, bindings_build(s.a, &primal, ex_var(s.a, result))));

  Var *tape_param = var_new(s.a, "tape", tape_type);
  Bindings bwd_body = {0};
  for (int i = 0; i < s.tape.len; i++)
    bindings_push(s.a, &bwd_body, s.tape.items[i], ex_get(s.a, i, ex_var(s.a, tape_param)));
  for (int i = 0; i < recompute.vars.len; i++)
    bindings_push(s.a, &bwd_body, recompute.vars.items[i], recompute.rhss.items[i]);
  for (int i = 0; i < adjoint.vars.len; i++)
    bindings_push(s.a, &bwd_body, adjoint.vars.items[i], adjoint.rhss.items[i]);
  PtrVec bwd_params = {0};
  ptrvec_push(s.a, &bwd_params, tape_param);
  /* the seed first, then the buffers, as lcall passes them */
  Var *seed = NULL;
  for (int i = 0; i < adjoint_params.len; i++) {
    Var *p = adjoint_params.items[i];
    if (p->type->kind != TY_ARRAY)
      seed = p;
  }
  if (seed)
    ptrvec_push(s.a, &bwd_params, seed);
  for (int i = 0; i < adjoint_params.len; i++)
    if (adjoint_params.items[i] != seed)
      ptrvec_push(s.a, &bwd_params, adjoint_params.items[i]);
  Type *cts_type = rev->ret->elems[1];
  Func *bwd = module_add(m, ad_name(m, f->name, "bwd"), bwd_params.len, (Var **)bwd_params.items,
                         cts_type, bindings_build(s.a, &bwd_body, cts));
  aug->is_static = bwd->is_static = f->is_static;
  aug->is_generated = bwd->is_generated = true;
  aug->loc = bwd->loc = f->loc;
  aug->classes = f->classes;
  varmap_free(&s.adjoint);
  varmap_free(&s.primal);
  varmap_free(&s.params);
  varmap_free(&s.unsafe);
  varmap_free(&s.moved);
  varmap_free(&s.in_tape);
  return true;
}
