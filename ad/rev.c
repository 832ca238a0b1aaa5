/* rev.c: reverse CHAD with cotangent accumulation.
 *
 * Requires: f in ANF with unique binders, type-checked; every function it
 * calls has f$aug and f$bwd already, or is CHAD_CUSTOM (ad/custom.c). Guarantees: f$rev(params, ret_b)
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
 *    that g$aug returned in the primal sweep. A CHAD_CUSTOM callee has no
 *    halves: the primal sweep calls g itself, and the reverse sweep calls
 *    the user's g_rev (g$rev, ad/custom.c) on the arguments, the caller's
 *    buffers of its active arrays and the cotangent; it returns the
 *    scalars' cotangents and adds into the buffers.
 *  - An `if` keeps the CHAD structure: the primal `if` also returns the
 *    residuals its branch's reverse sweep needs (the defunctionalised
 *    backpropagator), and the reverse sweep has an `if` on the same
 *    condition whose branches return the contributions to outer variables.
 *    The residuals are a sum type in effect: the two branches share slots.
 *    Residuals that primitives can compute again from values outside the
 *    if (conditions, cheap arithmetic, partials the primal does not use)
 *    are computed in the reverse branch instead, so that a nest of n ifs
 *    does not carry the residuals of every level through every level.
 *
 *  - An array update `x = update a i v` (DESIGN 8.2) saves the element it
 *    overwrites in the primal sweep (`old = a[i]`, always: the pruning of
 *    8.3 is a later pass); its reverse is, after the reverse of everything
 *    that follows it: the cotangent `v_b = x_b[i]`, then `x_b[i] = 0` (an
 *    update of the cotangent buffer, which a shares with x when a is an
 *    array made here, else x_b is added into a's buffer), then the restore
 *    `a' = update x i old`. From there on the reverse sweep names a's
 *    buffer and a itself by their new versions (a renaming applied to the
 *    reverse bindings that follow), so the memory holds, whenever the
 *    reverse of a term runs, the version its primal read, and linearity
 *    holds in f$rev. Output arrays made by updates are copied once at the
 *    end of the primal sweep, since the restores undo them. Updates are
 *    supported at the top level of f; inside a branch or a loop body (and
 *    folds carrying arrays, 8.4) they are refused with a message.
 *  - A sum whose cotangent can be computed before it (DESIGN 8.35) runs
 *    each step's reverse in the primal sweep, right after the step, for
 *    that cotangent; the reverse sweep only passes on what the steps added.
 *
 * Linear maps are left in the output for linmap_eliminate. */
#include <string.h>

#include "ad/ad.h"
#include "ad/deriv.h"
#include "ad/final.h"
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
  bool logs;       /* its primal pushes on the undo log: its reverse must
                      run, to take back what it pushed, cotangent or not */
} IfRev;

/* An array leaf of an if's result that one branch makes and the other
 * passes on from outside the if (scratch that only one branch writes,
 * which lowering rebuilds there): the result's cotangent is in the made
 * array's buffer, and the passing branch's reverse adds it into the
 * buffer of the array it passed on (DESIGN 8.13). */
typedef struct IfPass {
  int branch;   /* the branch that passes the array on */
  Expr *root;   /* the array it passes, as bound outside the if */
  Expr *h;      /* the buffer of the if's result leaf */
  Expr *val;    /* the leaf's value (its length is the root's) */
  Expr *target; /* the root's buffer, found once the block's are made */
} IfPass;

/* The reverse of a fold whose steps store their residuals (DESIGN 8.22):
 * generated with the primal, its residuals pushed at the end of each step
 * and taken back, newest first, at the start of the step's reverse. */
typedef struct StoreRev {
  Var *ct_var;     /* cotangent of a step's result, bound in the reverse step */
  PtrVec residuals; /* Var*: pushed in this order */
  PtrVec origins;  /* per residual: NULL, or (int *) per array leaf the
                      leaf of the loop's state it is a version of: the
                      reverse reads those arrays through the loop's result
                      (the undo log gives their memory back, 8.13) */
  Bindings rev;    /* a step's reverse sweep */
  PtrVec outer;    /* Var*: outer scalars a step contributes to */
  PtrVec vals;     /* Expr* atoms: the contributions, bound in rev */
  Expr *state_ct;  /* the cotangent of the state before the step */
  VarMap address;  /* residual arrays stored as their address, not a copy */
  PtrVec again;    /* Var*: integers the reverse step computes again from
                      the counter and values outside the loop ... */
  PtrVec again_rhs; /* ... by these right-hand sides, in this order */
  PtrVec recalls;  /* Var*: callee tapes the reverse step makes again ... */
  PtrVec recall_calls; /* ... by this f$aug call (its arguments stored) */
  PtrVec rereads;  /* Var*: elements of the arrays the loop carries that the
                      reverse step reads again from the memory the loop
                      left, which no later write changed (DESIGN 8.31) ... */
  PtrVec reread_rhs; /* ... by these `index` right-hand sides */
  VarMap kept;     /* residual array Var -> the copy of it the step takes where
                      it is bound, pushed in its place: a later update in the
                      step overwrites its memory (8.42) */
  PtrVec lengths;  /* Expr* per residual: for an array pushed by its
                      elements, an atom the reverse step reads as its length
                      (outer_length), so the length is not pushed; or NULL */
  bool views;      /* the reverse step pushes nothing: the f64 arrays pushed
                      by their elements are read in the log (log-view, 8.50) */
} StoreRev;

/* A sum whose steps' reverses ran in the primal sweep for the cotangent 1
 * (DESIGN 8.35): what each step added to the scalars and arrays outside
 * it, summed, which the sum's cotangent scales in the reverse sweep. */
typedef struct EagerSum {
  PtrVec outer;  /* Var*: scalars outside the sum the steps contribute to */
  PtrVec totals; /* Expr* atoms: their summed contributions */
  PtrVec arrays; /* Var*: arrays outside the sum whose buffers they add to */
  PtrVec gbufs;  /* Expr* atoms: the buffers those additions went to */
} EagerSum;

typedef struct Rev {
  Module *m;
  Arena *a;
  const Func *f;    /* the function being differentiated */
  Expr *body;       /* the body its reverse is made from */
  Layer *layer;
  VarMap call_tape; /* Var x bound by a call -> atom of the callee's tape */
  VarMap if_rev;    /* Var x bound by an if -> IfRev* */
  VarMap if_seeds;  /* Var x bound by an if -> PtrVec* of its array leaves'
                       output seeds (NULL where none) */
  VarMap if_pass;   /* Var x bound by an if -> PtrVec* of IfPass*: leaves
                       one branch makes and the other passes on */
  NameSet *names;   /* names in use: new variables get fresh ones */
  VarMap bufs;      /* array-valued Var -> its cotangent buffer: an atom, or
                       for a tuple of arrays a tuple of atoms (NULL where
                       the field is inactive) */
  VarMap fold_tape; /* Var bound by a fold or while -> atom of its saved states */
  VarMap while_count; /* Var bound by a while -> atom of its trip count */
  VarMap uses;      /* Var -> number of references in the function */
  int nesting;      /* > 0 inside a branch or a loop body */
  VarMap saved;     /* Var bound by an update -> atom of the element it overwrote */
  VarMap copy_of;   /* array Var bound to another (let y x) -> that one */
  PtrVec renames;   /* Rename*, in the order of the reverse bindings */
  VarMap logged;    /* Var bound by an update that saved into the undo log */
  VarMap own_bufs;  /* cotangent buffers this function allocated (not a
                       parameter's, which holds the caller's sums) */
  VarMap made_bufs; /* the buffers alloc_like made: never the caller's
                       memory, so a zero there may be -0 (DESIGN 8.66) */
  VarMap discard;   /* buffers of constant tables passed to callees, and
                       views of them: what is added there is never read */
  VarMap fold_mark; /* Var bound by a loop carrying arrays -> its mark + 1 */
  VarMap inout;     /* an in-out parameter and its versions made at the top
                       level: their updates save in the undo log, since the
                       result holds their final version past the restores */
  int marks;        /* undo-log marks handed out */
  VarMap stored;    /* Var bound by a fold whose steps store their residuals
                       (DESIGN 8.22) -> its StoreRev */
  VarMap unlogged;  /* Var bound by an update of an array made inside a
                       storing loop's step: non-NULL when it saves nothing */
  VarMap *older;    /* while a storing loop's step is generated: the updates
                       of memory older than the outermost storing loop, which
                       save in the undo log */
  VarMap *collecting; /* log_block adds the updates it logs here, if set */
  VarMap *origins;  /* logged_loop_body copies its origins here, if set */
  int store_depth;  /* > 0 while a storing loop's step is generated */
  PtrVec store_revs; /* StoreRev* made, whose maps ad_reverse frees */
  VarMap no_store;  /* Var bound by a fold whose step did not store: not
                       tried again when an enclosing step is made again
                       (else a nest that cannot store costs 2^depth) */
  bool may_store;   /* loops may store residuals (f$rev is not split) */
  bool tbr;         /* the outermost storing loop being made saves nothing
                       of the memory it carries (DESIGN 8.23) */
  bool tbr_conflict; /* ... but a step's reverse reads that memory */
  const Expr *tbr_loop; /* the loop for which tbr was set */
  const VarMap *tbr_origins; /* ... and the origins of its step's arrays
                       while that step's reverse is made (8.80) */
  FinalReads *final; /* ... and which of its reads no later write changes, */
  Var *final_result; /* ... read again from its result, this (an array) */
  VarMap defs;      /* Var -> its right-hand side anywhere in the body
                       (built on first use, by input_memory) */
  bool have_defs;
  bool outer_update; /* strip_inner_saves met an update of memory from
                        outside the block it walks */
  VarMap custom_in; /* Var bound by a call of a custom g that writes arrays
                       -> Expr*[nparams]: per written parameter, the copy of
                       the in-out array as the call read it, or the length
                       of the output (DESIGN 8.25) */
  VarMap eager;     /* Var bound by a sum whose reverse ran in the primal
                       sweep (DESIGN 8.35) -> its EagerSum */
  VarMap sum_fold;  /* Var bound by a sum whose steps store their
                       residuals -> the fold it runs as (DESIGN 8.55) */
  int eager_sums;   /* how many */
  int eager_depth;  /* > 0 while such a sum's step is generated */
  Expr *eager_body; /* ... and that step, while eager_depth is 1 */
  int loop_reverses; /* > 0 while a loop body's reverse is generated */
  Expr *ret_b;      /* the seed of f's return value, NULL when inactive */
  FILE *dump;       /* where the store-or-recompute decisions are shown */
  Diag *err;
  bool failed;
} Rev;

static void fail(Rev *s, Loc loc, const char *what) {
  if (!s->failed)
    diag_set(s->err, loc, "%s", what);
  s->failed = true;
}

/* From the reverse binding at index `at` on (exclusive), `from` is `to`:
 * an array restored by the reverse of an update, or a cotangent buffer
 * updated there. */
typedef struct Rename {
  int at;
  Var *from;
  Expr *to;
} Rename;

static Expr *rev_block(Rev *s, Expr *e, Expr *ct, Bindings *primal, Bindings *reverse);
static Expr *buf_of(Rev *s, Expr *atom);
static Expr *output_producer(Rev *s, const VarMap *rhs_of, Expr *y);
static void add_buffer(Rev *s, Bindings *out, Expr *ha, Expr *h, Expr *arr);
/* An in-out array parameter (DESIGN 1): f_rev leaves it holding f's final
 * values. */
static bool is_inout_param(const Rev *s, const Var *v) {
  for (int i = 0; i < s->f->nparams; i++)
    if (s->f->params[i] == v)
      return func_param_class(s->f, i) == PARAM_INOUT_ARRAY;
  return false;
}

/* A parameter the user marked inactive (CHAD_INACTIVE): it has no buffer. */
static bool is_inactive_param(const Rev *s, const Var *v) {
  for (int i = 0; i < s->f->nparams; i++)
    if (s->f->params[i] == v)
      return func_param_class(s->f, i) == PARAM_INACTIVE;
  return false;
}

/* --------------------------------------------------------- contributions */

static void add_contrib(Rev *s, Expr *atom, int field, Expr *ct) {
  if (atom->kind != E_VAR || !type_is_active(atom->type) || !ct)
    return;
  if (atom->type->kind == TY_ARRAY)
    return; /* arrays receive cotangents in their buffers (E_ACCUM) */
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

/* ------------------------------------------------------------ primal sweep */

/* Is rhs a call of a CHAD_CUSTOM g that writes arrays (DESIGN 8.25)? */
static Func *custom_writer(Rev *s, const Expr *rhs) {
  Func *g = rhs->kind == E_CALL ? module_find(s->m, rhs->name) : NULL;
  return g && g->is_custom && func_num_outputs(g) ? g : NULL;
}

/* The primal of a custom call that writes arrays: the arrays it writes
 * are fresh (lowering copies slices in and stores them back after), so it
 * saves nothing in the undo log; g_rev, in the reverse sweep, wants an
 * in-out array as the call read it: a copy, taken here. */
static void primal_custom_writer(Rev *s, Var *x, Func *g, Expr *rhs, Bindings *primal) {
  Expr **in = arena_alloc(s->a, sizeof(Expr *) * (size_t)g->nparams);
  for (int i = 0; i < g->nparams; i++) {
    if (!func_param_written(g, i) || !func_param_active(g, i))
      continue;
    Expr *arr = rhs->args[i];
    if (func_param_class(g, i) == PARAM_INOUT_ARRAY) {
      Var *j = var_new(s->a, nameset_fresh(s->names, s->a, "j"), ty_int());
      Expr *copy = ex_build(s->a, ex_len(s->a, arr), j, ex_index(s->a, arr, ex_var(s->a, j)));
      in[i] = bind(s, primal, arena_printf(s->a, "%s_in", g->name), copy);
    } else {
      in[i] = bind(s, primal, arena_printf(s->a, "%s_len", g->name), ex_len(s->a, arr));
    }
  }
  varmap_put(&s->custom_in, x, in);
  bindings_push(s->a, primal, x, rhs);
}

static void primal_call(Rev *s, Var *x, Expr *rhs, Bindings *primal) {
  Func *g = module_find(s->m, rhs->name);
  if (g && custom_writer(s, rhs)) {
    primal_custom_writer(s, x, g, rhs, primal);
    return;
  }
  /* a custom callee has no halves: the primal sweep wants its value, and
   * the reverse sweep calls g_rev (backprop_custom) */
  if (!g || !type_is_active(rhs->type) || g->is_custom) {
    bindings_push(s->a, primal, x, rhs);
    return;
  }
  Expr *aug = ex_call(s->a, ad_name(s->m, g->name, "aug"), rhs->nargs, rhs->args);
  aug->loc = rhs->loc;
  Func *gaug = module_find(s->m, aug->name);
  if (!gaug) {
    fail(s, rhs->loc, arena_printf(s->a, "call to '%s', which writes or updates arrays: "
                                   "not supported yet in reverse mode", g->name));
    return;
  }
  aug->type = gaug->ret;
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
  s->nesting++;
  Expr *r = rev_block(s, branch, ex_var(s->a, info->ct_var), bprimal, brev);
  s->nesting--;
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

/* An int computed by a comparison, logic or int arithmetic, a conversion
 * from another integer type (a view's `long` offset made an `int` index),
 * or float arithmetic that C cannot contract with a neighbour (so that
 * computing it again gives the same bits): cheaper to compute again than
 * to carry. */
static bool is_cheap(const Expr *rhs) {
  if (rhs->kind != E_PRIM || !rhs->type)
    return false;
  PrimClass c = prim_info(rhs->op)->cls;
  if (rhs->type->kind == TY_INT && c == PC_CAST)
    return rhs->args[0]->type && rhs->args[0]->type->kind == TY_INT;
  if (rhs->type->kind == TY_INT)
    return c == PC_CMP || c == PC_LOGIC || c == PC_ARITH || c == PC_BITS;
  return c == PC_ARITH && !rhs->contract;
}

static void note_ref(Var *v, void *ctx) { varmap_put(ctx, v, v); }

enum { RECOMPUTE_DEPTH = 8 };

/* Whether v, bound in branch b, can be computed again from values bound
 * outside the if: by cheap primitives, or by one the primal branch does
 * not use itself (a partial derivative such as cos x: the work moves from
 * the primal to the reverse branch rather than repeating). */
static bool can_recompute(const VarMap *bound, const VarMap *primal_refs, Var *v, int depth) {
  Expr *rhs = varmap_get(bound, v);
  if (!rhs || rhs->kind != E_PRIM || depth > RECOMPUTE_DEPTH)
    return false;
  if (!is_cheap(rhs) && varmap_has(primal_refs, v))
    return false;
  for (int i = 0; i < rhs->nargs; i++) {
    Expr *a = rhs->args[i];
    if (a->kind == E_VAR && varmap_has(bound, a->var) &&
        !can_recompute(bound, primal_refs, a->var, depth + 1))
      return false;
  }
  return true;
}

/* Binds in `again` v's computation again (after what it needs), to v
 * itself: the reverse branch is another scope (ANF renames it apart). */
static void recompute(Rev *s, const VarMap *bound, Var *v, Bindings *again, VarMap *done) {
  if (varmap_has(done, v))
    return;
  varmap_put(done, v, v);
  Expr *rhs = varmap_get(bound, v);
  for (int i = 0; i < rhs->nargs; i++)
    if (rhs->args[i]->kind == E_VAR && varmap_has(bound, rhs->args[i]->var))
      recompute(s, bound, rhs->args[i]->var, again, done);
  bindings_push(s->a, again, v, ex_clone_shallow(s->a, rhs));
}

/* Residuals of a branch that can be computed again from values bound
 * outside the if are, at the start of the reverse branch, instead of being
 * exported. Exported, each level of an else-if chain would pass on the
 * residuals of all the levels below it (the conditions of the nested ifs,
 * at least): code and tape quadratic in the depth. Returns the residuals
 * still to export. */
static PtrVec recompute_cheap_residuals(Rev *s, IfRev *info, int j, const Bindings *bprimal,
                                        Expr *result, PtrVec res) {
  Bindings again = {0};
  VarMap done = {0}, primal_refs = {0}, bound = {0};
  PtrVec kept = {0};
  for (int i = 0; i < bprimal->rhss.len; i++) {
    varmap_put(&bound, bprimal->vars.items[i], bprimal->rhss.items[i]);
    expr_visit_vars(bprimal->rhss.items[i], note_ref, &primal_refs);
  }
  expr_visit_vars(result, note_ref, &primal_refs);
  for (int i = 0; i < res.len; i++) {
    Var *r = res.items[i];
    if (can_recompute(&bound, &primal_refs, r, 0))
      recompute(s, &bound, r, &again, &done);
    else
      ptrvec_push(s->a, &kept, r);
  }
  if (again.vars.len) {
    Bindings *rev = &info->rev[j];
    for (int i = 0; i < rev->vars.len; i++)
      bindings_push(s->a, &again, rev->vars.items[i], rev->rhss.items[i]);
    *rev = again;
  }
  varmap_free(&done);
  varmap_free(&primal_refs);
  varmap_free(&bound);
  return kept;
}

static bool residuals_hold_arrays(const PtrVec *res) {
  for (int i = 0; i < res->len; i++)
    if (type_holds_array(((Var *)res->items[i])->type))
      return true;
  return false;
}

static bool contains_var(const PtrVec *v, const Var *x) {
  for (int i = 0; i < v->len; i++)
    if (v->items[i] == x)
      return true;
  return false;
}

/* Slots for the residuals of both branches: branch 0's residuals get one
 * each, and each of branch 1's takes the next of branch 0's slots of its
 * type, or a new one. A cursor per type keeps this linear in the number of
 * residuals (a long branch has thousands). */
typedef struct SlotCursor {
  Type *type;
  int next; /* first slot not yet examined for this type */
} SlotCursor;

static void assign_slots(Rev *s, const PtrVec res[2], int *slot_of[2], PtrVec *slot_types) {
  for (int j = 0; j < 2; j++)
    slot_of[j] = arena_alloc(s->a, sizeof(int) * (size_t)(res[j].len + 1));
  for (int i = 0; i < res[0].len; i++) {
    slot_of[0][i] = i;
    ptrvec_push(s->a, slot_types, ((Var *)res[0].items[i])->type);
  }
  int shared = res[0].len;
  SlotCursor *cursors = arena_alloc(s->a, sizeof(SlotCursor) * (size_t)(res[1].len + 1));
  int ncursors = 0;
  for (int i = 0; i < res[1].len; i++) {
    Type *t = ((Var *)res[1].items[i])->type;
    SlotCursor *c = NULL;
    for (int k = 0; k < ncursors && !c; k++)
      if (type_eq(cursors[k].type, t))
        c = &cursors[k];
    if (!c) {
      c = &cursors[ncursors++];
      *c = (SlotCursor){.type = t, .next = 0};
    }
    while (c->next < shared && !type_eq(slot_types->items[c->next], t))
      c->next++;
    if (c->next < shared) {
      slot_of[1][i] = c->next++;
    } else {
      slot_of[1][i] = slot_types->len;
      ptrvec_push(s->a, slot_types, t);
    }
  }
}

/* Does a block's primal push anything on the undo log? */
static bool bindings_log(const Bindings *b) {
  for (int i = 0; i < b->vars.len; i++) {
    const Expr *rhs = b->rhss.items[i];
    if (expr_is_log(rhs) || expr_contains(rhs, E_LOGSAVE) || expr_contains(rhs, E_LOGMARK) ||
        expr_contains(rhs, E_LOGPUSH))
      return true;
  }
  return false;
}

/* Does a block's primal save elements of arrays in the undo log? */
static bool bindings_save(const Bindings *b) {
  for (int i = 0; i < b->vars.len; i++) {
    const Expr *rhs = b->rhss.items[i];
    if (rhs->kind == E_LOGSAVE || expr_contains(rhs, E_LOGSAVE))
      return true;
  }
  return false;
}

/* Does a block make arrays of its own (freed when its C scope ends)? */
static bool bindings_make_arrays(const Bindings *b) {
  for (int i = 0; i < b->vars.len; i++) {
    const Expr *rhs = b->rhss.items[i];
    if ((rhs->kind == E_ALLOC || rhs->kind == E_BUILD || rhs->kind == E_SCATTER) &&
        type_holds_array(rhs->type))
      return true;
  }
  return false;
}

static Expr *strip_inner_saves(Rev *s, Expr *e, VarMap *made, bool *unknown);
static bool updates_stay_inside(Rev *s, Var *x, Expr *rhs);

/* Is e worth reading from the primal branch rather than computing again:
 * a <math.h> call, or a division (the 1/theta of a partial, DESIGN 8.65)? */
static bool costly_primitive(const Expr *e) {
  return e->kind == E_PRIM && (prim_info(e->op)->cls == PC_MATH || e->op == P_DIV);
}

/* The variable of the primal branch bound to the costly primitive e (the
 * same operation on the same variables and constants), or NULL. */
static Var *primal_call_of(const Bindings *bprimal, const Expr *e) {
  for (int k = 0; k < bprimal->vars.len; k++) {
    const Expr *p = bprimal->rhss.items[k];
    Var *w = bprimal->vars.items[k];
    if (p->kind != E_PRIM || p->op != e->op || p->nargs != e->nargs || !w->type || !e->type ||
        !type_eq(w->type, e->type))
      continue;
    bool same = true;
    for (int a = 0; a < p->nargs && same; a++)
      same = (p->args[a]->kind == E_VAR || p->args[a]->kind == E_CONST) &&
             atom_eq(p->args[a], e->args[a]);
    if (same)
      return w;
  }
  return NULL;
}

/* The reverse branch's <math.h> calls and divisions that the primal branch
 * makes too (sin x's partial cos x, where the branch computes cos x itself,
 * inside the linear maps; the 1/theta of Rodrigues' rotation) read the
 * primal's value, which becomes a residual,
 * instead of calling again. Copies what it changes: the reverse branch
 * shares subexpressions with the primal one (a loop body it runs again),
 * where the primal's variable is not yet bound (gen seed 51851). */
static Expr *share_primal_calls(Rev *s, const Bindings *bprimal, Expr *e) {
  if (!e)
    return e;
  Var *w = costly_primitive(e) ? primal_call_of(bprimal, e) : NULL;
  if (w)
    return ex_var(s->a, w);
  Expr *copy = e;
  for (int i = 0; i < e->nargs; i++) {
    Expr *a = share_primal_calls(s, bprimal, e->args[i]);
    if (a == e->args[i])
      continue;
    if (copy == e)
      copy = ex_clone_shallow(s->a, e);
    copy->args[i] = a;
  }
  Expr *body = share_primal_calls(s, bprimal, e->body);
  if (body != e->body) {
    if (copy == e)
      copy = ex_clone_shallow(s->a, e);
    copy->body = body;
  }
  return copy;
}

enum { SMALL_ARRAY = 16 }; /* elements of a branch's array kept as numbers */

/* The constant length of the array v, made in the branch by a build of
 * numbers, or -1. */
static long long small_array_length(const Bindings *b, Var *v) {
  if (v->type->kind != TY_ARRAY || !type_is_float(v->type->elem))
    return -1;
  for (int i = 0; i < b->vars.len; i++) {
    const Expr *rhs = b->rhss.items[i];
    if (b->vars.items[i] != v)
      continue;
    if (rhs->kind != E_BUILD || rhs->args[0]->kind != E_CONST ||
        rhs->args[0]->ival < 0 || rhs->args[0]->ival > SMALL_ARRAY)
      return -1;
    return rhs->args[0]->ival;
  }
  return -1;
}

/* Arrays among a branch's residuals that the branch makes by a build of a
 * few numbers (a rotation's w[3], a cross product) are exported as their
 * elements, read right after the build, and made again from them at the
 * start of the reverse branch: the branch's primal, its sqrt, sin and cos,
 * is not recomputed for them (DESIGN 8.18). Only for a branch that saves
 * nothing in the undo log (no memory of the branch's arrays is restored).
 * Returns the residuals to export. */
static PtrVec export_small_arrays(Rev *s, IfRev *info, int j, Bindings *bprimal, PtrVec res) {
  if (!residuals_hold_arrays(&res) || bindings_log(bprimal))
    return res;
  for (int i = 0; i < res.len; i++) {
    Var *v = res.items[i];
    if (type_holds_array(v->type) && small_array_length(bprimal, v) < 0)
      return res; /* some array must be recomputed anyway */
  }
  Bindings primal = {0}, again = {0};
  PtrVec kept = {0};
  for (int i = 0; i < bprimal->vars.len; i++) {
    Var *v = bprimal->vars.items[i];
    bindings_push(s->a, &primal, v, bprimal->rhss.items[i]);
    if (!contains_var(&res, v) || !type_holds_array(v->type))
      continue;
    long long n = small_array_length(bprimal, v);
    Var **elems = arena_alloc(s->a, sizeof(Var *) * (size_t)(n ? n : 1));
    for (long long k = 0; k < n; k++) {
      Expr *e = bind(s, &primal, arena_printf(s->a, "%s_%lld", v->name, k),
                     ex_index(s->a, ex_var(s->a, v), ex_int(s->a, k)));
      elems[k] = e->var;
      ptrvec_push(s->a, &kept, e->var);
    }
    /* v again: (build n (k) (if (eq k 0) v_0 (if (eq k 1) v_1 ... v_n-1))) */
    Var *k = var_new(s->a, nameset_fresh(s->names, s->a, "k"), ty_int());
    Expr *chain = n ? ex_var(s->a, elems[n - 1]) : ex_const(s->a, v->type->elem, 0);
    for (long long m = n - 2; m >= 0; m--) {
      Bindings bb = {0};
      Expr *is = bind(s, &bb, "is", ex_prim2(s->a, P_EQ, ex_var(s->a, k), ex_int(s->a, m)));
      Expr *pick = bind(s, &bb, "e", ex_if(s->a, is, ex_var(s->a, elems[m]), chain));
      chain = bindings_build(s->a, &bb, pick);
    }
    Expr *made = ex_build(s->a, ex_int(s->a, n), k, chain);
    made->type = v->type;
    bindings_push(s->a, &again, v, made);
  }
  for (int i = 0; i < res.len; i++)
    if (!type_holds_array(((Var *)res.items[i])->type))
      ptrvec_push(s->a, &kept, res.items[i]);
  *bprimal = primal;
  Bindings *rev = &info->rev[j];
  for (int i = 0; i < rev->vars.len; i++)
    bindings_push(s->a, &again, rev->vars.items[i], rev->rhss.items[i]);
  *rev = again;
  return kept;
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
  /* the marks a branch may push come before those of the loops inside it,
   * as marks are numbered outer first (DESIGN 8.13) */
  int branch_mark = s->marks + 1;
  s->marks += 2;
  for (int j = 0; j < 2; j++) {
    result[j] = branch_rev(s, info, j, rhs->args[1 + j], &bprimal[j]);
    for (int i = 0; i < info->rev[j].rhss.len; i++)
      info->rev[j].rhss.items[i] =
          share_primal_calls(s, &bprimal[j], info->rev[j].rhss.items[i]);
    res[j] = branch_residuals(s, &bprimal[j], &info->rev[j], &info->outer_vals[j]);
    res[j] = export_small_arrays(s, info, j, &bprimal[j], res[j]);
    if (residuals_hold_arrays(&res[j])) {
      /* An array made in the branch dies with it (its scope frees it), so
       * the reverse branch recomputes the branch's primal instead. What
       * the primal branch saved in the undo log is undone first, back to a
       * mark it pushes, so that the recomputation starts from the memory
       * the branch started from and the log stays balanced (DESIGN 8.13). */
      Bindings again = {0};
      Bindings once = bprimal[j];
      if (bindings_save(&bprimal[j]) && bindings_make_arrays(&bprimal[j])) {
        /* The undo would write into arrays the primal branch made and
         * freed; the reverse branch makes them again, so the primal branch
         * saves only what it overwrites in memory from outside it. */
        VarMap made = {0};
        bool unknown = false;
        Expr *stripped = strip_inner_saves(
            s, bindings_build(s->a, &bprimal[j], ex_tuple(s->a, 0, NULL)), &made, &unknown);
        varmap_free(&made);
        if (unknown) {
          fail(s, rhs->loc, "a branch that makes arrays and updates arrays in place, whose "
                            "reverse must recompute it, cannot be differentiated in reverse "
                            "mode yet");
          return;
        }
        once = (Bindings){0};
        bindings_of(s->a, stripped, &once);
      }
      if (bindings_log(&bprimal[j])) {
        int mark = branch_mark + j;
        bind(s, &again, "undone", ex_logundo(s->a, mark, ex_tuple(s->a, 0, NULL)));
        Bindings marked = {0};
        bind(s, &marked, "mark", ex_logmark(s->a, mark));
        for (int i = 0; i < once.vars.len; i++)
          bindings_push(s->a, &marked, once.vars.items[i], once.rhss.items[i]);
        for (int i = 0; i < bprimal[j].vars.len; i++)
          bindings_push(s->a, &again, bprimal[j].vars.items[i], bprimal[j].rhss.items[i]);
        bprimal[j] = marked;
      } else {
        again = bprimal[j];
      }
      for (int i = 0; i < info->rev[j].vars.len; i++)
        bindings_push(s->a, &again, info->rev[j].vars.items[i], info->rev[j].rhss.items[i]);
      info->rev[j] = again;
      res[j] = (PtrVec){0};
    }
    res[j] = recompute_cheap_residuals(s, info, j, &bprimal[j], result[j], res[j]);
  }
  /* Residual slots. Only one branch runs, so a residual of each branch can
   * share a slot of their type: the reverse if reads a slot only in the
   * branch that wrote it. (Without sharing, each level of an else-if chain
   * carried a slot for every level below it.) The branch not taken leaves
   * default values in the slots it does not use. */
  PtrVec slot_types = {0};
  int *slot_of[2];
  assign_slots(s, res, slot_of, &slot_types);
  int nslots = slot_types.len;
  Type **types = arena_alloc(s->a, sizeof(Type *) * (size_t)(nslots + 1));
  types[0] = rhs->type;
  for (int k = 0; k < nslots; k++)
    types[k + 1] = slot_types.items[k];
  Expr *branches[2];
  for (int j = 0; j < 2; j++) {
    Expr **elems = arena_alloc(s->a, sizeof(Expr *) * (size_t)(nslots + 1));
    elems[0] = result[j];
    for (int k = 0; k < nslots; k++)
      elems[k + 1] = ex_zero(s->a, types[k + 1]);
    for (int i = 0; i < res[j].len; i++)
      elems[slot_of[j][i] + 1] = ex_var(s->a, res[j].items[i]);
    branches[j] = bindings_build(s->a, &bprimal[j], ex_tuple(s->a, nslots + 1, elems));
  }
  Expr *iff = ex_if(s->a, rhs->args[0], branches[0], branches[1]);
  iff->type = ty_tuple(s->a, nslots + 1, types);
  iff->loc = rhs->loc;
  info->logs = expr_contains(iff, E_LOGPUSH) || expr_contains(iff, E_LOGSAVE) ||
               expr_contains(iff, E_LOGMARK);
  Expr *pr = bind(s, primal, arena_printf(s->a, "%s_if", x->name), iff);
  bindings_push(s->a, primal, x, ex_get(s->a, 0, pr));
  Expr **outer = arena_alloc(s->a, sizeof(Expr *) * (size_t)(nslots + 1));
  for (int j = 0; j < 2; j++)
    for (int i = 0; i < res[j].len; i++) {
      int k = slot_of[j][i];
      if (!outer[k])
        outer[k] = bind(s, primal, ((Var *)res[j].items[i])->name, ex_get(s->a, k + 1, pr));
    }
  /* The reverse branch binds each residual again, to its slot: the same
   * variable in another scope (ANF renames it apart later). Substituting
   * instead would rebuild the reverse code of every if nested inside, at
   * every level of the nest. */
  for (int j = 0; j < 2; j++) {
    if (!res[j].len)
      continue;
    Bindings head = {0};
    for (int i = 0; i < res[j].len; i++)
      bindings_push(s->a, &head, res[j].items[i], outer[slot_of[j][i]]);
    for (int i = 0; i < info->rev[j].vars.len; i++)
      bindings_push(s->a, &head, info->rev[j].vars.items[i], info->rev[j].rhss.items[i]);
    info->rev[j] = head;
  }
  varmap_put(&s->if_rev, x, info);
}

/* ------------------------------------------- loops that carry arrays */

/* The arrays of a state: its array leaves, fields depth first. */
static int array_leaf_count(const Type *t) {
  if (t->kind == TY_ARRAY)
    return 1;
  if (t->kind != TY_TUPLE || t->name)
    return 0;
  int n = 0;
  for (int i = 0; i < t->n; i++)
    n += array_leaf_count(t->elems[i]);
  return n;
}

static int array_leaf_offset(const Type *t, int field) {
  int n = 0;
  for (int i = 0; i < field; i++)
    n += array_leaf_count(t->elems[i]);
  return n;
}

/* Where a loop body's arrays come from: per array leaf of a variable, the
 * leaf of the loop's state it is a version of, NOT_CARRIED for an array
 * made in the body, or CARRIED_SOMEWHERE for one of the state's arrays
 * whose leaf depends on a condition. */
enum { NOT_CARRIED = -1, CARRIED_SOMEWHERE = -2 };

static int *origin_of(VarMap *origin, const Expr *atom) {
  return atom->kind == E_VAR ? varmap_get(origin, atom->var) : NULL;
}

static int *new_origin(Rev *s, int n, int fill) {
  int *o = arena_alloc(s->a, sizeof(int) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++)
    o[i] = fill;
  return o;
}

static int *tuple_origin(Rev *s, VarMap *origin, const Expr *rhs, int n) {
  int *o = new_origin(s, n, NOT_CARRIED);
  for (int i = 0, k = 0; i < rhs->nargs; i++) {
    int m = array_leaf_count(rhs->args[i]->type);
    int *a = origin_of(origin, rhs->args[i]);
    for (int j = 0; j < m; j++, k++)
      o[k] = a ? a[j] : NOT_CARRIED;
  }
  return o;
}

/* Leaf by leaf: the same origin on both sides, or carried from somewhere. */
static int *merge_origins(Rev *s, const int *x, const int *y, int n) {
  int *o = new_origin(s, n, NOT_CARRIED);
  for (int j = 0; j < n; j++) {
    int a = x ? x[j] : NOT_CARRIED, b = y ? y[j] : NOT_CARRIED;
    o[j] = a == b ? a : a == NOT_CARRIED && b == NOT_CARRIED ? NOT_CARRIED : CARRIED_SOMEWHERE;
  }
  return o;
}

static Expr *block_result_atom(Expr *e) {
  while (e->kind == E_LET)
    e = e->body;
  return e;
}

static Expr *log_block(Rev *s, Expr *e, VarMap *origin);

/* Where a branch's arrays live, per array leaf of a variable: memory from
 * outside the branch (a variable it does not bind: the default), memory
 * the branch made (freed when it ends), or either. */
enum { MADE_OUTSIDE = 0, MADE_INSIDE = 1, MADE_EITHER = 2 };

static int *made_of(Rev *s, VarMap *made, const Expr *atom, int n) {
  if (atom->kind == E_TUPLE && n) { /* a block's result, not bound */
    int *m = new_origin(s, n, MADE_OUTSIDE);
    for (int a = 0, k = 0; a < atom->nargs; a++) {
      int c = array_leaf_count(atom->args[a]->type);
      memcpy(m + k, made_of(s, made, atom->args[a], c), sizeof(int) * (size_t)c);
      k += c;
    }
    return m;
  }
  int *m = atom->kind == E_VAR ? varmap_get(made, atom->var) : NULL;
  return m ? m : new_origin(s, n, atom->kind == E_VAR || !n ? MADE_OUTSIDE : MADE_EITHER);
}

static int *made_merge(Rev *s, const int *x, const int *y, int n) {
  int *m = new_origin(s, n, MADE_OUTSIDE);
  for (int j = 0; j < n; j++)
    m[j] = x[j] == y[j] ? x[j] : MADE_EITHER;
  return m;
}

static bool made_same(const int *x, const int *y, int n) {
  for (int j = 0; j < n; j++)
    if (x[j] != y[j])
      return false;
  return true;
}

/* A loop's state: its leaves from the initial state, merged with what a
 * step returns until nothing changes (each leaf changes at most twice). */
static int *made_loop(Rev *s, Expr *rhs, Expr **body, VarMap *made, bool *unknown) {
  int n = array_leaf_count(rhs->args[1]->type);
  int *state = made_of(s, made, rhs->args[1], n);
  for (;;) {
    varmap_put(made, rhs->var2, state);
    bool probe = false;
    *body = strip_inner_saves(s, rhs->body, made, &probe);
    Expr *res = block_result_atom(*body);
    int *next = made_of(s, made, res, array_leaf_count(res->type));
    if (rhs->kind == E_WHILE || rhs->kind == E_WHILESAVE)
      next += array_leaf_count(res->type) - n; /* (tuple go state) */
    int *merged = made_merge(s, state, next, n);
    if (made_same(merged, state, n)) {
      *unknown = *unknown || probe;
      return state;
    }
    state = merged;
  }
}

/* The primal of a branch whose reverse makes it again, without the undo
 * log entries of arrays it makes (the undo before the reverse would write
 * into them after they were freed). Sets *unknown when an entry's array
 * may be either. */
static Expr *strip_inner_saves(Rev *s, Expr *e, VarMap *made, bool *unknown) {
  Bindings b, out = {0};
  bindings_of(s->a, e, &b);
  for (int i = 0; i < b.vars.len; i++) {
    Var *x = b.vars.items[i];
    Expr *rhs = b.rhss.items[i];
    int n = array_leaf_count(x->type);
    int *m = NULL;
    switch (rhs->kind) {
    case E_LOGSAVE: {
      int w = made_of(s, made, rhs->args[0], 1)[0];
      if (w == MADE_INSIDE)
        continue;
      *unknown = *unknown || w == MADE_EITHER;
      break;
    }
    case E_BUILD:
    case E_ALLOC:
      m = new_origin(s, n, MADE_INSIDE);
      break;
    case E_UPDATE:
    case E_VIEW:
    case E_SCATTER:
    case E_VAR:
      m = made_of(s, made, rhs->kind == E_VAR ? rhs : rhs->args[0], n);
      if (rhs->kind == E_UPDATE && m[0] != MADE_INSIDE)
        s->outer_update = true;
      break;
    case E_GET: {
      int k = array_leaf_count(rhs->args[0]->type);
      if (n && k)
        m = made_of(s, made, rhs->args[0], k) + array_leaf_offset(rhs->args[0]->type, rhs->index);
      break;
    }
    case E_TUPLE:
      if (n)
        m = made_of(s, made, rhs, n);
      break;
    case E_IF: {
      Expr *r = ex_clone_shallow(s->a, rhs);
      r->args[1] = strip_inner_saves(s, rhs->args[1], made, unknown);
      r->args[2] = strip_inner_saves(s, rhs->args[2], made, unknown);
      if (n)
        m = made_merge(s, made_of(s, made, block_result_atom(r->args[1]), n),
                       made_of(s, made, block_result_atom(r->args[2]), n), n);
      rhs = r;
      break;
    }
    case E_FOLD:
    case E_FOLDSAVE:
    case E_WHILE:
    case E_WHILESAVE: {
      Expr *r = ex_clone_shallow(s->a, rhs);
      int *state = made_loop(s, rhs, &r->body, made, unknown);
      if (n) {
        /* the final state, then the tape (and count) the loop made */
        m = new_origin(s, n, MADE_INSIDE);
        memcpy(m, state, sizeof(int) * (size_t)array_leaf_count(rhs->args[1]->type));
      }
      rhs = r;
      break;
    }
    default:
      break;
    }
    if (expr_is_loop(rhs) && rhs->kind != E_FOLD && rhs->kind != E_FOLDSAVE &&
        rhs->kind != E_WHILE && rhs->kind != E_WHILESAVE) {
      /* build, sum, scatter: their bodies may make and update arrays */
      Expr *r = ex_clone_shallow(s->a, rhs);
      r->body = strip_inner_saves(s, rhs->body, made, unknown);
      rhs = r;
    }
    if (!m && type_holds_array(x->type))
      m = new_origin(s, n ? n : 1, MADE_EITHER); /* a call's, a record's */
    if (m)
      varmap_put(made, x, m);
    bindings_push(s->a, &out, x, rhs);
  }
  return bindings_build(s->a, &out, b.result);
}

/* Does an if or a loop update only arrays it makes itself? Then nothing
 * outside it sees its updates, and an inactive one needs no undo log. */
static bool updates_stay_inside(Rev *s, Var *x, Expr *rhs) {
  Bindings b = {0};
  bindings_push(s->a, &b, x, rhs);
  VarMap made = {0};
  bool unknown = false, outer = s->outer_update;
  s->outer_update = false;
  strip_inner_saves(s, bindings_build(s->a, &b, ex_var(s->a, x)), &made, &unknown);
  bool inside = !s->outer_update;
  s->outer_update = outer;
  varmap_free(&made);
  return inside;
}

/* A nested loop carrying some of the outer loop's arrays: its state's
 * arrays have their origins, and so does its result when each step
 * returns them in place. */
static Expr *log_loop(Rev *s, Var *x, Expr *rhs, VarMap *origin, int **out) {
  int n = array_leaf_count(rhs->args[1]->type);
  int *init = origin_of(origin, rhs->args[1]);
  *out = NULL;
  if (!init)
    return rhs;
  varmap_put(origin, rhs->var2, init);
  Expr *loop = ex_clone_shallow(s->a, rhs);
  loop->body = log_block(s, rhs->body, origin);
  int *next = origin_of(origin, block_result_atom(loop->body));
  *out = merge_origins(s, init, next, n);
  (void)x;
  return loop;
}

/* The primal of a body that updates a loop's carried arrays: each update
 * of one of them (at any depth: in branches and nested loops too) first
 * saves the element it overwrites in the undo log, so that the reverse
 * sweep can give the arrays back as they were before any step. Arrays
 * made in the body are not logged: the reverse sweep makes them again. */
static Expr *log_block(Rev *s, Expr *e, VarMap *origin) {
  Bindings b, out = {0};
  bindings_of(s->a, e, &b);
  for (int i = 0; i < b.vars.len; i++) {
    Var *x = b.vars.items[i];
    Expr *rhs = b.rhss.items[i];
    int n = array_leaf_count(x->type);
    int *o = NULL;
    switch (rhs->kind) {
    case E_UPDATE:
      o = origin_of(origin, rhs->args[0]);
      if (o && o[0] != NOT_CARRIED) {
        bind(s, &out, "saved", ex_logsave(s->a, rhs->args[0], rhs->args[1]));
        if (s->collecting)
          varmap_put(s->collecting, x, x);
      }
      break;
    case E_VAR:
      o = origin_of(origin, rhs);
      break;
    case E_VIEW:
      o = origin_of(origin, rhs->args[0]);
      break;
    case E_GET: {
      int *t = origin_of(origin, rhs->args[0]);
      if (t && n)
        o = t + array_leaf_offset(rhs->args[0]->type, rhs->index);
      break;
    }
    case E_TUPLE:
      if (n)
        o = tuple_origin(s, origin, rhs, n);
      break;
    case E_IF: {
      Expr *r = ex_clone_shallow(s->a, rhs);
      r->args[1] = log_block(s, rhs->args[1], origin);
      r->args[2] = log_block(s, rhs->args[2], origin);
      if (n)
        o = merge_origins(s, origin_of(origin, block_result_atom(r->args[1])),
                          origin_of(origin, block_result_atom(r->args[2])), n);
      rhs = r;
      break;
    }
    case E_FOLD:
    case E_WHILE:
      rhs = log_loop(s, x, rhs, origin, &o);
      break;
    default:
      break; /* numbers, or arrays made here (build, scatter, alloc, calls) */
    }
    if (o)
      varmap_put(origin, x, o);
    bindings_push(s->a, &out, x, rhs);
  }
  return bindings_build(s->a, &out, b.result);
}

/* The body of a loop carrying arrays, as its primal runs it in f$rev: a
 * mark first, then the body with its carried updates logged. Returns NULL
 * after a located failure when a step does not give each array back in
 * its own place (double buffering by swapping: not yet). */
static Expr *logged_loop_body(Rev *s, Expr *rhs, int mark) {
  int n = array_leaf_count(rhs->args[1]->type);
  VarMap origin = {0};
  int *identity = new_origin(s, n, 0);
  for (int j = 0; j < n; j++)
    identity[j] = j;
  varmap_put(&origin, rhs->var2, identity);
  Expr *body = log_block(s, rhs->body, &origin);
  int *next = origin_of(&origin, block_result_atom(body));
  bool same = true; /* a while's (tuple go state): go holds no array */
  for (int j = 0; j < n; j++)
    same = same && next && next[j] == j;
  if (s->origins)
    varmap_copy_into(s->origins, &origin);
  varmap_free(&origin);
  if (!same) {
    fail(s, rhs->loc, "a loop whose steps swap or replace the arrays it carries cannot be "
                      "differentiated in reverse mode yet");
    return NULL;
  }
  Bindings b = {0};
  bind(s, &b, "mark", ex_logmark(s->a, mark));
  return bindings_build(s->a, &b, body);
}

/* A fold or while whose state holds arrays: the primal saves in the undo
 * log what its steps overwrite, after a mark per step (DESIGN 8.13). */
static Expr *carry_arrays(Rev *s, Var *x, Expr *rhs) {
  if (!type_holds_array(rhs->args[1]->type))
    return rhs->body;
  int mark = ++s->marks;
  varmap_put(&s->fold_mark, x, (void *)(long)mark);
  return logged_loop_body(s, rhs, mark);
}


/* ------------------------------------- loops that store their residuals */

/* DESIGN 8.22. A fold's reverse either recomputes each step from the state
 * the primal saved (rule 5), or reads residuals each step stored: the
 * values its reverse sweep needs, pushed on the undo log at the end of the
 * step, taken back at the start of the step's reverse. Recomputing costs
 * one more run of the step per level of nesting (a nest of depth d runs
 * its innermost body d + 1 times); storing costs a push and a take per
 * residual and memory for every residual of every step, no more than the
 * values the primal computes. */

/* The cost of running e once, in rough units of one arithmetic operation:
 * what the reverse pays to recompute it. A loop counts its body
 * LOOP_TRIPS times (its trip count is not known here). */
enum { LOOP_TRIPS = 16, CALL_COST = 20, MATH_COST = 20, STORE_COST = 3 };
#define COST_MAX (1L << 40) /* costs saturate: nests are deep */

static long recompute_cost(const Expr *e) {
  long c = 0;
  for (; e->kind == E_LET; e = e->body)
    c += recompute_cost(e->args[0]);
  switch (e->kind) {
  case E_PRIM: {
    const PrimInfo *pi = prim_info(e->op);
    c += pi && pi->cls == PC_MATH && !pi->infix ? MATH_COST
         : e->op == P_DIV                      ? 4
                                               : 1;
    break;
  }
  case E_CALL:
    c += CALL_COST;
    break;
  case E_IF: {
    long c1 = recompute_cost(e->args[1]), c2 = recompute_cost(e->args[2]);
    c += 1 + (c1 > c2 ? c1 : c2);
    return c < COST_MAX ? c : COST_MAX;
  }
  case E_INDEX:
  case E_UPDATE:
    c += 1;
    break;
  default:
    break;
  }
  if (expr_is_loop(e)) {
    long body = recompute_cost(e->body);
    c += body >= COST_MAX / LOOP_TRIPS ? COST_MAX : 2 + LOOP_TRIPS * body;
  }
  for (int i = 0; i < e->nargs; i++)
    c += recompute_cost(e->args[i]);
  return c < COST_MAX ? c : COST_MAX;
}

/* The numbers a value of type t stores: 1 for a number, the sum of its
 * fields for a tuple of numbers, -1 when it holds an array (unless
 * `pointers`: then an array in it stores its address). */
static int stored_leaves(const Type *t, bool pointers) {
  if (t->kind == TY_F64 || t->kind == TY_F32 || t->kind == TY_INT)
    return 1;
  if (t->kind == TY_ARRAY && pointers)
    return 1;
  if (t->kind != TY_TUPLE)
    return -1;
  int n = 0;
  for (int i = 0; i < t->n; i++) {
    int k = stored_leaves(t->elems[i], pointers);
    if (k < 0)
      return -1;
    n += k;
  }
  return n;
}

/* The numbers a value stores whose plain arrays are versions of the
 * arrays a loop carries (not stored); -1 when a record in it holds one. */
static int stored_leaves_carried(const Type *t) {
  if (t->kind == TY_ARRAY)
    return 0;
  if (t->kind != TY_TUPLE || t->name)
    return stored_leaves(t, false);
  int n = 0;
  for (int i = 0; i < t->n; i++) {
    int k = stored_leaves_carried(t->elems[i]);
    if (k < 0)
      return -1;
    n += k;
  }
  return n;
}

/* How an array residual is stored: by its elements, with its length
 * unless the reverse step knows it (`len`), read back in place (`view`,
 * an array of f64 only) or taken into a new array. */
typedef struct ArrayPush {
  Expr *len;
  bool view;
} ArrayPush;

/* Pushes the elements of array atom v, then its length unless the reverse
 * knows it: last first, for take_array's build, or first first, for a
 * log-view, which reads them in pushed order. */
static void push_array(Rev *s, Bindings *out, Expr *v, ArrayPush how) {
  Expr *n = bind(s, out, "n", ex_len(s->a, v));
  Var *i = var_new(s->a, nameset_fresh(s->names, s->a, "i"), ty_int());
  Var *u = var_new(s->a, nameset_fresh(s->names, s->a, "u"), ty_int());
  Bindings body = {0};
  Expr *last = ex_prim2(s->a, P_SUB, n, ex_int(s->a, 1));
  Expr *at = how.view ? ex_var(s->a, i)
                      : bind(s, &body, "at", ex_prim2(s->a, P_SUB, last, ex_var(s->a, i)));
  Expr *elt = bind(s, &body, "elt", ex_index(s->a, v, at));
  bind(s, &body, "pushed", ex_logpush(s->a, elt));
  Expr *loop = ex_fold(s->a, n, ex_int(s->a, 0), i, u, bindings_build(s->a, &body, ex_var(s->a, u)));
  loop->type = ty_int();
  bind(s, out, "pushed", loop);
  if (!how.len)
    bind(s, out, "pushed", ex_logpush(s->a, n));
}

/* Takes back an array push_array pushed: the log's words themselves, or
 * a new array. */
static Expr *take_array(Rev *s, Bindings *out, Type *t, ArrayPush how) {
  Expr *n = how.len ? ex_clone_shallow(s->a, how.len)
                    : bind(s, out, "n", ex_logtake(s->a, ty_int()));
  if (how.view)
    return bind(s, out, "taken", ex_logview(s->a, n));
  Var *i = var_new(s->a, nameset_fresh(s->names, s->a, "i"), ty_int());
  Bindings body = {0};
  Expr *elt = bind(s, &body, "elt", ex_logtake(s->a, t->elem));
  Expr *b = ex_build(s->a, n, i, bindings_build(s->a, &body, elt));
  b->type = t;
  return bind(s, out, "taken", b);
}

/* Pushes the numbers of atom v (of type t) in field order; `how` is for v
 * itself when it is an array pushed by its elements (`top`). */
static void push_leaves(Rev *s, Bindings *out, Expr *v, Type *t, bool top, const int *origin,
                        ArrayPush how) {
  if (t->kind == TY_ARRAY && origin)
    return; /* read through the loop's result */
  if (t->kind == TY_ARRAY && top) {
    push_array(s, out, v, how);
    return;
  }
  if (t->kind != TY_TUPLE) { /* a number, or an array's address in a record */
    bind(s, out, "pushed", ex_logpush(s->a, v));
    return;
  }
  for (int i = 0; i < t->n; i++) /* a record's arrays are addresses */
    push_leaves(s, out, bind(s, out, "field", ex_get(s->a, i, v)), t->elems[i], false,
                t->name ? NULL : origin, how);
}

/* Takes back a value of type t that push_leaves pushed: its numbers in
 * reverse field order. */
static Expr *take_leaves(Rev *s, Bindings *out, Type *t, bool top, const int *origin,
                         int *array_leaf, const PtrVec *carried, ArrayPush how) {
  if (t->kind == TY_ARRAY && origin)
    return carried->items[origin[(*array_leaf)--]];
  if (t->kind == TY_ARRAY && top)
    return take_array(s, out, t, how);
  if (t->kind != TY_TUPLE)
    return bind(s, out, "taken", ex_logtake(s->a, t));
  Expr **parts = arena_alloc(s->a, sizeof(Expr *) * (size_t)(t->n ? t->n : 1));
  for (int i = t->n - 1; i >= 0; i--)
    parts[i] = take_leaves(s, out, t->elems[i], false, t->name ? NULL : origin, array_leaf,
                           carried, how);
  Expr *tup = ex_tuple(s->a, t->n, parts);
  tup->type = t;
  tup->name = t->name; /* a callee's tape record stays that record */
  return bind(s, out, "taken", tup);
}

/* The array an expression of array type names: a variable, through
 * projections. */
static Var *array_root(Expr *e) {
  while (e->kind == E_GET)
    e = e->args[0];
  return e->kind == E_VAR ? e->var : NULL;
}

/* The right-hand side a let of block e binds v to (at e's top level), or
 * NULL. */
static const Expr *let_rhs(const Expr *e, const Var *v) {
  for (; e->kind == E_LET; e = e->body)
    if (e->var == v)
      return e->args[0];
  return NULL;
}

static bool fold_keeps_length(const Expr *fold, int k, int depth);

/* The right-hand side b binds v to, or NULL. */
static Expr *bound_rhs(const Bindings *b, const Var *v) {
  for (int i = 0; i < b->vars.len; i++)
    if (b->vars.items[i] == v)
      return b->rhss.items[i];
  return NULL;
}

/* The array field k of the initial state of fold x (bound in b), when
 * every step keeps that field's length; else NULL. */
static const Var *carried_from(const Bindings *b, const Var *x, int k) {
  const Expr *fold = bound_rhs(b, x);
  if (!fold || fold->kind != E_FOLD || fold->args[1]->kind != E_VAR ||
      !fold_keeps_length(fold, k, 0))
    return NULL;
  const Expr *init = bound_rhs(b, fold->args[1]->var);
  return init && init->kind == E_TUPLE && k < init->nargs && init->args[k]->kind == E_VAR
             ? init->args[k]->var
             : NULL;
}

/* Is array a, bound in the step `body` of `fold`, the fold's state field
 * k (its whole state when k < 0) through updates, copies, and fields of
 * inner folds that keep their length? (A swap of two arrays, a view or a
 * choice is none of these.) */
static bool state_field_chain(const Expr *fold, const Expr *body, const Var *a, int k,
                              int depth) {
  for (int guard = 0; a && guard < 1000; guard++) {
    if (a == fold->var2)
      return k < 0;
    const Expr *r = let_rhs(body, a);
    if (!r)
      return false;
    if (r->kind == E_UPDATE || r->kind == E_VAR) {
      const Expr *base = r->kind == E_VAR ? r : r->args[0];
      a = base->kind == E_VAR ? base->var : NULL;
      continue;
    }
    if (r->kind != E_GET || r->args[0]->kind != E_VAR)
      return false;
    const Var *y = r->args[0]->var;
    if (y == fold->var2)
      return r->index == k;
    const Expr *inner = let_rhs(body, y);
    if (!inner || inner->kind != E_FOLD || inner->args[1]->kind != E_VAR ||
        !fold_keeps_length(inner, r->index, depth + 1))
      return false;
    const Expr *init = let_rhs(body, inner->args[1]->var);
    if (!init || init->kind != E_TUPLE || init->args[r->index]->kind != E_VAR)
      return false;
    a = init->args[r->index]->var;
  }
  return false;
}

/* Does each step of `fold` give back the array in its state's field k
 * (its whole state when k < 0) as a version of the one it was given, so
 * that the fold's result holds an array as long as its initial state's? */
static bool fold_keeps_length(const Expr *fold, int k, int depth) {
  if (depth > 64)
    return false;
  const Expr *body = fold->body, *res = body;
  while (res->kind == E_LET)
    res = res->body;
  if (res->kind != E_VAR)
    return false;
  const Var *a = res->var;
  if (k >= 0) {
    const Expr *t = let_rhs(body, res->var);
    if (!t || t->kind != E_TUPLE || k >= t->nargs || t->args[k]->kind != E_VAR)
      return false;
    a = t->args[k]->var;
  }
  return state_field_chain(fold, body, a, k, depth);
}

/* The length of array v, made in the step `bprimal` (through updates,
 * copies, views from element 0, and the arrays folds carry and keep the
 * length of, from an alloc or a build), when that is a constant or a
 * variable bound outside the step (not the loop's counter or state,
 * which the reverse step binds anew): an atom the reverse step can read
 * as it is. NULL otherwise. */
static Expr *outer_length(const Bindings *bprimal, const Var *v, const Expr *loop) {
  for (int guard = 0; v && guard < 1000; guard++) {
    Expr *rhs = bound_rhs(bprimal, v);
    if (!rhs)
      return NULL;
    if (rhs->kind == E_GET && rhs->args[0]->kind == E_VAR) {
      /* an array a fold carried (GMM's Qtimesx result): as long as the
       * array it began with */
      v = carried_from(bprimal, rhs->args[0]->var, rhs->index);
      continue;
    }
    if (rhs->kind == E_FOLD) { /* a fold whose state is the array */
      v = rhs->args[1]->kind == E_VAR && fold_keeps_length(rhs, -1, 0) ? rhs->args[1]->var : NULL;
      continue;
    }
    if (rhs->kind == E_VIEW) {
      const Expr *at = rhs->args[1];
      v = at->kind == E_CONST && at->ival == 0 && rhs->args[0]->kind == E_VAR
              ? rhs->args[0]->var
              : NULL;
      continue;
    }
    if (rhs->kind == E_ALLOC || rhs->kind == E_BUILD) {
      Expr *n = rhs->args[0];
      if (n->kind == E_CONST)
        return n;
      if (n->kind != E_VAR || n->var == loop->var || n->var == loop->var2)
        return NULL;
      return bound_rhs(bprimal, n->var) ? NULL : n;
    }
    v = rhs->kind == E_UPDATE && rhs->args[0]->kind == E_VAR ? rhs->args[0]->var
        : rhs->kind == E_VAR                                 ? rhs->var
                                                             : NULL;
  }
  return NULL;
}

/* Does a step's reverse push on the log (a loop in it that stores its
 * residuals, run again)? Then the log's words may move under a view. */
static bool step_reverse_pushes(const StoreRev *st) {
  for (int i = 0; i < st->rev.vars.len; i++)
    if (expr_contains(st->rev.rhss.items[i], E_LOGPUSH))
      return true;
  return false;
}

/* How a step pushes residual v: an array pushed by its elements (at the
 * top, not a version of the loop's state) leaves its length out when the
 * reverse step knows it, and is read in place when it holds f64 and the
 * reverse step pushes nothing. */
static ArrayPush array_push(const StoreRev *st, const Bindings *bprimal, const Var *v, bool top,
                            const int *origin, const Expr *loop) {
  ArrayPush how = {0};
  if (v->type->kind != TY_ARRAY || !top || origin)
    return how;
  how.len = outer_length(bprimal, v, loop);
  how.view = st->views && v->type->elem->kind == TY_F64;
  return how;
}

/* e with each (len a) of an array a that the step makes replaced by a
 * number the step's primal binds (and so stores), or by the length its
 * allocation gives when that is known outside the step (outer_length):
 * a buffer's allocation is the one read of such an array in the step's
 * reverse. */
static Expr *store_lengths(Rev *s, Expr *e, const VarMap *made, Bindings *bprimal,
                           const Expr *loop) {
  if (e->kind == E_LEN) {
    Var *root = array_root(e->args[0]);
    if (!root || !varmap_has(made, root))
      return e;
    const Expr *arr = e->args[0];
    const Var *v = arr->kind == E_VAR ? root
                   : arr->kind == E_GET && arr->args[0]->kind == E_VAR
                       ? carried_from(bprimal, arr->args[0]->var, arr->index)
                       : NULL;
    Expr *n = v ? outer_length(bprimal, v, loop) : NULL;
    if (n)
      return ex_clone_shallow(s->a, n);
    return bind(s, bprimal, arena_printf(s->a, "n_%s", root->name), e);
  }
  Expr *copy = NULL;
  for (int i = 0; i < e->nargs; i++) {
    Expr *a = store_lengths(s, e->args[i], made, bprimal, loop);
    if (a != e->args[i]) {
      copy = copy ? copy : ex_clone_shallow(s->a, e);
      copy->args[i] = a;
    }
  }
  if (e->kind == E_LET || expr_is_loop(e)) {
    Expr *b = store_lengths(s, e->body, made, bprimal, loop);
    if (b != e->body) {
      copy = copy ? copy : ex_clone_shallow(s->a, e);
      copy->body = b;
    }
  }
  return copy ? copy : e;
}

/* Does e mention v other than as the array an index or a length reads? */
static bool used_otherwise(const Expr *e, const Var *v) {
  if (e->kind == E_VAR)
    return e->var == v;
  size_t n = e->kind == E_CALL ? strlen(e->name) : 0;
  bool reads_only = n > 4 && strcmp(e->name + n - 4, "$aug") == 0; /* halves write no array */
  for (int i = 0; i < e->nargs; i++) {
    const Expr *a = e->args[i];
    if ((reads_only || (i == 0 && (e->kind == E_INDEX || e->kind == E_LEN))) && a->kind == E_VAR)
      continue;
    if (used_otherwise(a, v))
      return true;
  }
  if (e->kind == E_LET || expr_is_loop(e))
    return used_otherwise(e->body, v);
  return false;
}

static bool only_read(const Bindings *b, Var *v, int depth);

/* Is the tuple t (bound to `tup`, holding v) only projected, and is each
 * projection of v only read? */
static bool tuple_only_projected(const Bindings *b, Var *t, const Expr *tup, Var *v, int depth) {
  for (int i = 0; i < b->vars.len; i++) {
    Expr *rhs = b->rhss.items[i];
    if (rhs->kind == E_GET && rhs->args[0]->kind == E_VAR && rhs->args[0]->var == t) {
      const Expr *elt = tup->args[rhs->index];
      if (elt->kind == E_VAR && elt->var == v && !only_read(b, b->vars.items[i], depth + 1))
        return false;
      continue;
    }
    if (used_otherwise(rhs, t))
      return false;
  }
  return true;
}

/* Does the step only read the array v (through aliases and the tuples an
 * inlined callee's result is packed in), so that its memory still holds v
 * at the end of the step? */
static bool only_read(const Bindings *b, Var *v, int depth) {
  if (depth > 16)
    return false;
  for (int i = 0; i < b->vars.len; i++) {
    Var *x = b->vars.items[i];
    Expr *rhs = b->rhss.items[i];
    if (rhs->kind == E_VAR && rhs->var == v) {
      if (!only_read(b, x, depth + 1))
        return false;
      continue;
    }
    bool packs = false;
    for (int j = 0; rhs->kind == E_TUPLE && j < rhs->nargs; j++)
      packs = packs || (rhs->args[j]->kind == E_VAR && rhs->args[j]->var == v);
    if (packs) {
      if (!tuple_only_projected(b, x, rhs, v, depth))
        return false;
      continue;
    }
    if (used_otherwise(rhs, v))
      return false;
  }
  return true;
}

/* The arrays a step makes (build, alloc, scatter, a call's result) and
 * their versions and views, which die with the step: the reverse needs a
 * copy of one it reads. `consumed` gets the versions an update consumes
 * (their memory holds a later version by the end of the step). */
static void step_arrays(const Bindings *bprimal, VarMap *made, VarMap *consumed) {
  VarMap tuples = {0}; /* tuple Var -> its E_TUPLE */
  for (int i = 0; i < bprimal->vars.len; i++) {
    Var *x = bprimal->vars.items[i];
    Expr *rhs = bprimal->rhss.items[i];
    if (rhs->kind == E_TUPLE)
      varmap_put(&tuples, x, rhs);
    if (expr_binds_state(rhs) && rhs->args[1]->kind == E_VAR) {
      /* a loop consumes the arrays it starts from */
      Var *init = rhs->args[1]->var;
      Expr *tup = varmap_get(&tuples, init);
      varmap_put(consumed, init, init);
      for (int j = 0; tup && j < tup->nargs; j++)
        if (tup->args[j]->kind == E_VAR)
          varmap_put(consumed, tup->args[j]->var, tup->args[j]->var);
    }
    if (x->type->kind == TY_TUPLE && !x->type->name && type_holds_array(x->type)) {
      /* a tuple of arrays the step made, or a loop's result started from
       * one (not a fold-save's or while-save's, whose tape has no length
       * the emitted C knows) */
      bool fresh = rhs->kind == E_TUPLE || rhs->kind == E_FOLD || rhs->kind == E_WHILE;
      const Expr *tup = rhs->kind == E_TUPLE ? rhs : NULL;
      if (expr_binds_state(rhs))
        tup = rhs->args[1]->kind == E_VAR ? varmap_get(&tuples, rhs->args[1]->var) : NULL;
      fresh = fresh && tup;
      for (int j = 0; fresh && j < tup->nargs; j++)
        if (tup->args[j]->type->kind == TY_ARRAY)
          fresh = tup->args[j]->kind == E_VAR && varmap_has(made, tup->args[j]->var);
      if (fresh && expr_binds_state(rhs))
        varmap_put(made, x, x);
      continue;
    }
    if (x->type->kind != TY_ARRAY)
      continue;
    if (rhs->kind == E_GET && rhs->args[0]->kind == E_VAR && varmap_has(made, rhs->args[0]->var)) {
      varmap_put(made, x, x);
      continue;
    }
    Expr *src = rhs->kind == E_UPDATE || rhs->kind == E_VIEW ? rhs->args[0]
                : rhs->kind == E_VAR                       ? rhs
                : rhs->kind == E_FOLD                      ? rhs->args[1]
                                                           : NULL;
    if (rhs->kind == E_UPDATE && src->kind == E_VAR)
      varmap_put(consumed, src->var, src->var);
    bool fresh = rhs->kind == E_BUILD || rhs->kind == E_ALLOC || rhs->kind == E_SCATTER ||
                 rhs->kind == E_CALL;
    if (fresh || (src && src->kind == E_VAR && varmap_has(made, src->var)))
      varmap_put(made, x, x);
  }
  varmap_free(&tuples);
}

/* Is the array v (bound in the step) a view or alias of an array bound
 * outside the loop? Its memory outlives the step, and nothing in the loop
 * writes it (the loop would carry it). */
static bool views_outside(const Bindings *bprimal, Var *v, Var *state) {
  for (int guard = 0; guard < 100000; guard++) {
    if (v == state)
      return false;
    Expr *rhs = NULL;
    for (int i = 0; i < bprimal->vars.len && !rhs; i++)
      if (bprimal->vars.items[i] == v)
        rhs = bprimal->rhss.items[i];
    if (!rhs)
      return true; /* bound outside the loop */
    Expr *src = rhs->kind == E_VIEW ? rhs->args[0] : rhs->kind == E_VAR ? rhs : NULL;
    if (!src || src->kind != E_VAR)
      return false;
    v = src->var;
  }
  return false;
}

/* Is v a callee's tape (an f$aug call's) whose arrays are the call's array
 * arguments, each bound outside the loop or a version of an array the loop
 * carries? Then the addresses it holds outlive the step, and the undo log
 * gives their memory back as the call read it before the reverse reads it
 * (8.13). */
static bool tape_points_outside(const Bindings *bprimal, Var *v, Var *state,
                                const VarMap *origins) {
  Var *call = NULL;
  for (int i = 0; i < bprimal->vars.len; i++) {
    Expr *rhs = bprimal->rhss.items[i];
    if (bprimal->vars.items[i] == v && rhs->kind == E_GET && rhs->args[0]->kind == E_VAR)
      call = rhs->args[0]->var;
  }
  for (int i = 0; call && i < bprimal->vars.len; i++) {
    Expr *rhs = bprimal->rhss.items[i];
    if (bprimal->vars.items[i] != call)
      continue;
    if (rhs->kind != E_CALL)
      return false;
    for (int j = 0; j < rhs->nargs; j++) {
      Expr *arg = rhs->args[j];
      if (!type_holds_array(arg->type))
        continue;
      if (arg->kind != E_VAR || arg->type->kind != TY_ARRAY)
        return false;
      int *o = varmap_get(origins, arg->var);
      if (!(o && o[0] >= 0) && !views_outside(bprimal, arg->var, state))
        return false;
    }
    return true;
  }
  return false;
}

/* Is v a callee's tape holding the address of a version of an array the
 * loop carries (memory the reverse step reads as the call read it)? */
static bool tape_reads_carried(const Bindings *bprimal, Var *v, const VarMap *origins) {
  if (v->type->kind != TY_TUPLE || !v->type->name)
    return false;
  for (int i = 0; i < bprimal->vars.len; i++) {
    Expr *rhs = bprimal->rhss.items[i];
    if (bprimal->vars.items[i] != v || rhs->kind != E_GET || rhs->args[0]->kind != E_VAR)
      continue;
    for (int k = 0; k < bprimal->vars.len; k++) {
      Expr *call = bprimal->rhss.items[k];
      if (bprimal->vars.items[k] != rhs->args[0]->var || call->kind != E_CALL)
        continue;
      for (int j = 0; j < call->nargs; j++) {
        Expr *arg = call->args[j];
        int *o = arg->kind == E_VAR ? varmap_get(origins, arg->var) : NULL;
        for (int l = 0; o && l < array_leaf_count(arg->type); l++)
          if (o[l] >= 0 || o[l] == CARRIED_SOMEWHERE)
            return true;
      }
    }
  }
  return false;
}

/* Drops the bindings of rev that compute a pure value nothing reads (a
 * projection give_back_init made and did not need): they would make a
 * residual of what they read. The same holds inside a kept loop or
 * branch: the reverse of a `build` or an `if` evaluates its primal body
 * again, and what the body's reverse does not need of it is dead there
 * (DESIGN 8.79); `dce_expr` removes it, keeping every write into a buffer
 * bound outside (the step's cotangent buffers, the caller's adjoints). */
static void drop_unread(Rev *s, StoreRev *st) {
  Bindings kept = {0};
  VarMap live = {0};
  for (int i = 0; i < st->vals.len; i++)
    expr_visit_vars(st->vals.items[i], note_ref, &live);
  expr_visit_vars(st->state_ct, note_ref, &live);
  bool *keep = arena_alloc(s->a, sizeof(bool) * (size_t)(st->rev.vars.len + 1));
  for (int i = st->rev.vars.len - 1; i >= 0; i--) {
    Var *x = st->rev.vars.items[i];
    Expr *rhs = st->rev.rhss.items[i];
    bool pure = rhs->kind == E_GET || rhs->kind == E_VAR || rhs->kind == E_LEN ||
                rhs->kind == E_TUPLE || rhs->kind == E_PRIM || rhs->kind == E_CONST;
    keep[i] = !pure || varmap_has(&live, x);
    if (keep[i])
      expr_visit_vars(rhs, note_ref, &live);
  }
  for (int i = 0; i < st->rev.vars.len; i++) {
    if (!keep[i])
      continue;
    Expr *rhs = st->rev.rhss.items[i];
    if (expr_is_loop(rhs) || rhs->kind == E_IF) {
      /* dce_expr cleans the right-hand sides of a let chain */
      Var *x = st->rev.vars.items[i];
      Expr *e = dce_expr(s->m, ex_let(s->a, x, rhs, ex_var(s->a, x)));
      rhs = e->kind == E_LET ? e->args[0] : rhs;
    }
    bindings_push(s->a, &kept, st->rev.vars.items[i], rhs);
  }
  st->rev = kept;
  varmap_free(&live);
}

/* The f$aug call whose tape v is, bound in the step, or NULL. */
static Expr *tape_call(const Bindings *bprimal, Var *v) {
  Var *pair = NULL;
  for (int i = 0; i < bprimal->vars.len && !pair; i++) {
    Expr *rhs = bprimal->rhss.items[i];
    if (bprimal->vars.items[i] == v && rhs->kind == E_GET && rhs->index == 1 &&
        rhs->args[0]->kind == E_VAR)
      pair = rhs->args[0]->var;
  }
  for (int i = 0; pair && i < bprimal->vars.len; i++)
    if (bprimal->vars.items[i] == pair) {
      Expr *rhs = bprimal->rhss.items[i];
      return rhs->kind == E_CALL ? rhs : NULL;
    }
  return NULL;
}

/* How a residual v is stored: the numbers it takes on the log, or -1 when
 * it cannot be. Sets its origins and whether an array goes by address. */
static int residual_size(Rev *s, Expr *rhs, Bindings *bprimal, StoreRev *st, const VarMap *origins,
                         const VarMap *fresh, const VarMap *consumed, Var *v, int **origin) {
  int *o = varmap_get(origins, v);
  int narrays = array_leaf_count(v->type);
  for (int j = 0; o && j < narrays; j++)
    if (o[j] < 0)
      o = NULL;
  *origin = narrays ? o : NULL;
  if (narrays && o) /* versions of the arrays the loop carries */
    return stored_leaves_carried(v->type);
  int k = stored_leaves(v->type, false);
  if (k >= 0)
    return k;
  if (v->type->kind == TY_ARRAY) {
    if (varmap_has(fresh, v) && !varmap_has(consumed, v) && only_read(bprimal, v, 0) &&
        stored_leaves(v->type->elem, false) == 1)
      return LOOP_TRIPS; /* a copy of an array the step made (as long as it) */
    if (views_outside(bprimal, v, rhs->var2)) {
      varmap_put(&st->address, v, v);
      return 1; /* its address */
    }
    return -1;
  }
  if (v->type->kind == TY_TUPLE && v->type->name &&
      tape_points_outside(bprimal, v, rhs->var2, origins))
    return stored_leaves(v->type, true); /* a callee's tape: its arrays' addresses */
  return -1;
}

/* Can the integer v, bound in the step by a cheap primitive, be computed
 * again in the reverse step from the loop's counter, values bound outside
 * the loop and other such integers? Then they are appended to st->again
 * (operands first) rather than stored: indices cost less to compute than
 * to push and take. */
static bool int_again(Rev *s, const Bindings *bprimal, const VarMap *bound, Var *counter,
                      StoreRev *st, VarMap *done, Var *v, int depth);

/* An atom of a block the reverse step can compute: a constant, the
 * counter, a variable bound earlier in the same block (`local`), one
 * from outside the step, or one of the step that int_again computes. */
static bool atom_again(Rev *s, const Bindings *bprimal, const VarMap *bound, Var *counter,
                       StoreRev *st, VarMap *done, const VarMap *local, Expr *a, int depth) {
  if (a->kind == E_CONST || (a->kind == E_VAR && (a->var == counter || varmap_has(local, a->var))))
    return true;
  if (a->kind != E_VAR)
    return false;
  return !varmap_has(bound, a->var) ||
         int_again(s, bprimal, bound, counter, st, done, a->var, depth + 1);
}

/* A branch of an int `if` made of cheap primitives over atoms atom_again
 * accepts, as a copy whose variables are fresh (the reverse step binds
 * them again); NULL when it is not one. */
static Expr *int_block_again(Rev *s, const Bindings *bprimal, const VarMap *bound, Var *counter,
                             StoreRev *st, VarMap *done, Expr *e, int depth) {
  VarMap local = {0}, subst = {0};
  Bindings copy = {0};
  bool ok = true;
  for (; e->kind == E_LET && ok; e = e->body) {
    Expr *rhs = e->args[0];
    ok = is_cheap(rhs);
    for (int i = 0; i < rhs->nargs && ok; i++)
      ok = atom_again(s, bprimal, bound, counter, st, done, &local, rhs->args[i], depth);
    if (!ok)
      break;
    varmap_put(&local, e->var, e->var);
    Var *fresh = var_new(s->a, nameset_fresh(s->names, s->a, e->var->name), e->var->type);
    bindings_push(s->a, &copy, fresh, expr_subst(s->a, rhs, &subst));
    varmap_put(&subst, e->var, ex_var(s->a, fresh));
  }
  ok = ok && expr_is_atom(e) && atom_again(s, bprimal, bound, counter, st, done, &local, e, depth);
  Expr *r = ok ? bindings_build(s->a, &copy, expr_subst(s->a, e, &subst)) : NULL;
  varmap_free(&local);
  varmap_free(&subst);
  return r;
}

/* int_again for v = (if c t e) of ints (a loop's trip count, `(if (gt d
 * (add i 1)) (sub d (add i 1)) 0)`): the condition an atom it computes,
 * each branch a block of cheap primitives; the copy's branches bind
 * fresh variables. */
static bool int_select_again(Rev *s, const Bindings *bprimal, const VarMap *bound, Var *counter,
                             StoreRev *st, VarMap *done, Var *v, Expr *rhs, int depth) {
  VarMap none = {0};
  if (!atom_again(s, bprimal, bound, counter, st, done, &none, rhs->args[0], depth))
    return false;
  Expr *branches[2];
  for (int j = 0; j < 2; j++)
    if (!(branches[j] = int_block_again(s, bprimal, bound, counter, st, done, rhs->args[1 + j],
                                        depth)))
      return false;
  Expr *again = ex_if(s->a, rhs->args[0], branches[0], branches[1]);
  again->type = rhs->type;
  again->loc = rhs->loc;
  varmap_put(done, v, v);
  ptrvec_push(s->a, &st->again, v);
  ptrvec_push(s->a, &st->again_rhs, again);
  return true;
}

static bool int_again(Rev *s, const Bindings *bprimal, const VarMap *bound, Var *counter,
                      StoreRev *st, VarMap *done, Var *v, int depth) {
  if (varmap_has(done, v))
    return true;
  if (depth > RECOMPUTE_DEPTH || v->type->kind != TY_INT)
    return false;
  Expr *rhs = NULL;
  for (int i = 0; i < bprimal->vars.len && !rhs; i++)
    if (bprimal->vars.items[i] == v)
      rhs = bprimal->rhss.items[i];
  if (rhs && rhs->kind == E_IF && rhs->type && rhs->type->kind == TY_INT)
    return int_select_again(s, bprimal, bound, counter, st, done, v, rhs, depth);
  if (!rhs || !is_cheap(rhs))
    return false;
  for (int i = 0; i < rhs->nargs; i++) {
    Expr *a = rhs->args[i];
    if (a->kind == E_CONST || (a->kind == E_VAR && a->var == counter))
      continue;
    if (a->kind != E_VAR)
      return false;
    if (varmap_has(bound, a->var) &&
        !int_again(s, bprimal, bound, counter, st, done, a->var, depth + 1))
      return false;
  }
  varmap_put(done, v, v);
  ptrvec_push(s->a, &st->again, v);
  ptrvec_push(s->a, &st->again_rhs, rhs);
  return true;
}

/* Is the array v, bound in the step to a view `view A e` of an array A
 * bound outside the loop, at an index e that int_again can compute again
 * (or a constant, or the counter)? Then the reverse step makes the view
 * again (appended to st->again) instead of storing its address. */
static bool view_again(Rev *s, const Bindings *bprimal, const VarMap *bound, Var *counter,
                       StoreRev *st, VarMap *done, Var *v) {
  if (v->type->kind != TY_ARRAY)
    return false;
  Expr *rhs = NULL;
  for (int i = 0; i < bprimal->vars.len && !rhs; i++)
    if (bprimal->vars.items[i] == v)
      rhs = bprimal->rhss.items[i];
  if (!rhs || rhs->kind != E_VIEW || rhs->args[0]->kind != E_VAR ||
      varmap_has(bound, rhs->args[0]->var))
    return false;
  Expr *e = rhs->args[1];
  if (e->kind == E_VAR && e->var != counter && varmap_has(bound, e->var) &&
      !int_again(s, bprimal, bound, counter, st, done, e->var, 0))
    return false;
  if (e->kind != E_VAR && e->kind != E_CONST)
    return false;
  varmap_put(done, v, v);
  ptrvec_push(s->a, &st->again, v);
  ptrvec_push(s->a, &st->again_rhs, rhs);
  return true;
}

static void collect_defs(Rev *s, Expr *e);

static void collect_defs_rhs(Rev *s, Expr *r) {
  for (int i = 0; i < r->nargs; i++)
    if (r->args[i] && !expr_is_atom(r->args[i]))
      collect_defs(s, r->args[i]);
  if (r->body && r->kind != E_LET)
    collect_defs(s, r->body);
}

static void collect_defs(Rev *s, Expr *e) {
  for (; e->kind == E_LET; e = e->body) {
    varmap_put(&s->defs, e->var, e->args[0]);
    collect_defs_rhs(s, e->args[0]);
  }
  collect_defs_rhs(s, e);
}

/* Is atom a the memory of an input array parameter (`const T *`, which
 * f never writes), or a view of it? */
static bool input_memory(Rev *s, Expr *a, int depth) {
  if (a->kind != E_VAR || depth > 64)
    return false;
  for (int i = 0; i < s->f->nparams; i++)
    if (s->f->params[i] == a->var)
      return func_param_class(s->f, i) == PARAM_IN_ARRAY;
  if (!s->have_defs) {
    collect_defs(s, s->body);
    s->have_defs = true;
  }
  Expr *rhs = varmap_get(&s->defs, a->var);
  if (rhs && rhs->kind == E_VIEW)
    return input_memory(s, rhs->args[0], depth + 1);
  return rhs && rhs->kind == E_VAR && input_memory(s, rhs, depth + 1);
}

/* The parameter marked CHAD_INACTIVE whose memory atom a is, itself or a
 * view of it (also through a local struct's copy of its pointer field), or
 * NULL. */
static Var *inactive_param_behind(Rev *s, Expr *a, int depth) {
  if (a->kind != E_VAR || depth > 64)
    return NULL;
  if (is_inactive_param(s, a->var))
    return a->var;
  if (!s->have_defs) {
    collect_defs(s, s->body);
    s->have_defs = true;
  }
  Expr *rhs = varmap_get(&s->defs, a->var);
  if (rhs && rhs->kind == E_VIEW)
    return inactive_param_behind(s, rhs->args[0], depth + 1);
  return rhs && rhs->kind == E_VAR ? inactive_param_behind(s, rhs, depth + 1) : NULL;
}

/* DESIGN 8.33: is v, bound in the step to `index A e` with A an input
 * array (or a view of one) bound outside the loop, which f never writes?
 * Then the reverse step reads it again, e computed again, instead of
 * storing it. */
static bool reread_input(Rev *s, const Bindings *bprimal, const VarMap *bound, Var *counter,
                         StoreRev *st, VarMap *again, Var *v) {
  if (v->type->kind != TY_F64 && v->type->kind != TY_F32)
    return false;
  Expr *rhs = NULL;
  for (int i = 0; i < bprimal->vars.len && !rhs; i++)
    if (bprimal->vars.items[i] == v)
      rhs = bprimal->rhss.items[i];
  if (!rhs || rhs->kind != E_INDEX || rhs->args[0]->kind != E_VAR ||
      varmap_has(bound, rhs->args[0]->var) || !input_memory(s, rhs->args[0], 0))
    return false;
  Expr *e = rhs->args[1];
  if (e->kind == E_VAR && e->var != counter && varmap_has(bound, e->var) &&
      !int_again(s, bprimal, bound, counter, st, again, e->var, 0))
    return false;
  ptrvec_push(s->a, &st->rereads, v);
  ptrvec_push(s->a, &st->reread_rhs, rhs);
  return true;
}

/* DESIGN 8.31: is v, bound in the step to `index A e` with A a version of
 * the array the outermost storing loop carries, an element no later write
 * of that loop changes? The loop saves nothing it overwrites (8.23), so
 * whenever its reverse runs, its result's memory is as the loop left it:
 * the reverse step reads v again there, e computed again, instead of
 * storing it. */
static bool reread_final(Rev *s, const Bindings *bprimal, const VarMap *bound, Var *counter,
                         StoreRev *st, VarMap *again, Var *v) {
  if (!s->final || (v->type->kind != TY_F64 && v->type->kind != TY_F32))
    return false;
  Expr *rhs = NULL;
  for (int i = 0; i < bprimal->vars.len && !rhs; i++)
    if (bprimal->vars.items[i] == v)
      rhs = bprimal->rhss.items[i];
  int field;
  if (!rhs || rhs->kind != E_INDEX || !final_read(s->final, v, &field))
    return false;
  Expr *e = rhs->args[1];
  if (e->kind == E_VAR && e->var != counter && varmap_has(bound, e->var) &&
      !int_again(s, bprimal, bound, counter, st, again, e->var, 0))
    return false;
  Expr *memory = ex_var(s->a, s->final_result);
  if (field >= 0) {
    Expr *get = ex_get(s->a, field, memory);
    Var *leaf = var_new(s->a, nameset_fresh(s->names, s->a, "final"), get->type);
    ptrvec_push(s->a, &st->rereads, leaf);
    ptrvec_push(s->a, &st->reread_rhs, get);
    memory = ex_var(s->a, leaf);
  }
  ptrvec_push(s->a, &st->rereads, v);
  ptrvec_push(s->a, &st->reread_rhs, ex_index(s->a, memory, e));
  return true;
}

/* An array v the step makes, of numbers, whose memory a later write of the
 * step changes (an update consumes it): a copy of it, taken right where v
 * is bound (`(build (len v) (\i. index v i))`), is pushed in its place, and
 * the reverse step binds v to it. False when v is no such array. */
static bool keep_copy(Rev *s, Bindings *bprimal, const VarMap *fresh, StoreRev *st, Var *v) {
  if (v->type->kind != TY_ARRAY || !varmap_has(fresh, v) ||
      stored_leaves(v->type->elem, false) != 1)
    return false;
  int at = -1;
  for (int i = 0; i < bprimal->vars.len && at < 0; i++)
    if (bprimal->vars.items[i] == v)
      at = i;
  if (at < 0)
    return false;
  Arena *a = s->a;
  Var *n = var_new(a, nameset_fresh(s->names, a, "kn"), ty_int());
  Var *i = var_new(a, nameset_fresh(s->names, a, "ki"), ty_int());
  Var *e = var_new(a, nameset_fresh(s->names, a, "ke"), v->type->elem);
  Var *copy = var_new(a, nameset_fresh(s->names, a, arena_printf(a, "%s_kept", v->name)), v->type);
  Expr *elem = ex_let(a, e, ex_index(a, ex_var(a, v), ex_var(a, i)), ex_var(a, e));
  Bindings joined = {0};
  for (int k = 0; k < bprimal->vars.len; k++) {
    bindings_push(a, &joined, bprimal->vars.items[k], bprimal->rhss.items[k]);
    if (k == at) {
      bindings_push(a, &joined, n, ex_len(a, ex_var(a, v)));
      bindings_push(a, &joined, copy, ex_build(a, ex_var(a, n), i, elem));
    }
  }
  *bprimal = joined;
  varmap_put(&st->kept, v, copy);
  return true;
}

/* The residuals of a step: variables its primal binds (or the state) that
 * its reverse mentions. NULL reason when each can be stored (a number, a
 * tuple of numbers, a copy or the address of an array, or a callee's tape
 * that the reverse step makes again from stored arguments), else why the
 * step cannot store. */
static const char *step_residuals(Rev *s, Expr *rhs, Bindings *bprimal, StoreRev *st,
                                  const VarMap *origins, int *nstored) {
  VarMap made = {0};
  for (int i = 0; i < bprimal->vars.len; i++)
    if (type_holds_array(((Var *)bprimal->vars.items[i])->type))
      varmap_put(&made, bprimal->vars.items[i], bprimal->vars.items[i]);
  for (int i = 0; i < st->rev.rhss.len; i++)
    st->rev.rhss.items[i] = store_lengths(s, st->rev.rhss.items[i], &made, bprimal, rhs);
  varmap_free(&made);
  drop_unread(s, st);
  VarMap fresh = {0}, consumed = {0}, bound = {0}, queued = {0};
  step_arrays(bprimal, &fresh, &consumed);
  varmap_put(&bound, rhs->var2, rhs->var2);
  for (int i = 0; i < bprimal->vars.len; i++)
    varmap_put(&bound, bprimal->vars.items[i], bprimal->vars.items[i]);
  Bindings with_state = {0};
  bindings_push(s->a, &with_state, rhs->var2, NULL);
  for (int i = 0; i < bprimal->vars.len; i++)
    bindings_push(s->a, &with_state, bprimal->vars.items[i], bprimal->rhss.items[i]);
  PtrVec work = branch_residuals(s, &with_state, &st->rev, &st->vals);
  for (int i = 0; i < work.len; i++)
    varmap_put(&queued, work.items[i], work.items[i]);
  st->residuals = (PtrVec){0};
  *nstored = 0;
  const char *why = NULL;
  VarMap again = {0};
  for (int i = 0; i < work.len && !why; i++) {
    Var *v = work.items[i];
    int *origin;
    if (int_again(s, bprimal, &bound, rhs->var, st, &again, v, 0) ||
        view_again(s, bprimal, &bound, rhs->var, st, &again, v) ||
        reread_input(s, bprimal, &bound, rhs->var, st, &again, v) ||
        reread_final(s, bprimal, &bound, rhs->var, st, &again, v))
      continue;
    int k = residual_size(s, rhs, bprimal, st, origins, &fresh, &consumed, v, &origin);
    Expr *call = k < 0 && v->type->kind == TY_TUPLE && v->type->name ? tape_call(bprimal, v) : NULL;
    if (call) {
      /* a tape holding an array the step made: the reverse step calls
       * f$aug again on the same arguments, stored instead */
      ptrvec_push(s->a, &st->recalls, v);
      ptrvec_push(s->a, &st->recall_calls, call);
      for (int j = 0; j < call->nargs; j++) {
        Expr *a = call->args[j];
        if (a->kind == E_VAR && varmap_has(&bound, a->var) && !varmap_has(&queued, a->var)) {
          varmap_put(&queued, a->var, a->var);
          ptrvec_push(s->a, &work, a->var);
        }
      }
      *nstored += STORE_COST; /* the callee's primal, once more */
      continue;
    }
    if (k < 0 && keep_copy(s, bprimal, &fresh, st, v)) {
      origin = NULL;
      k = LOOP_TRIPS;
    }
    if (k < 0) {
      why = arena_printf(s->a, "its reverse reads the array '%s', made in the step", v->name);
      break;
    }
    if (s->tbr && (origin || tape_reads_carried(bprimal, v, origins))) {
      /* read through the loop's result, as the undo log gives it back:
       * the log must then save what the steps overwrite */
      s->tbr_conflict = true;
      why = arena_printf(s->a, "its reverse reads the array '%s' as a step left it", v->name);
      break;
    }
    ptrvec_push(s->a, &st->residuals, v);
    ptrvec_push(s->a, &st->origins, origin);
    *nstored += k;
  }
  varmap_free(&fresh);
  varmap_free(&consumed);
  varmap_free(&bound);
  varmap_free(&queued);
  varmap_free(&again);
  return why;
}

static bool sum_outer(Rev *s, Layer *layer, Bindings *out, PtrVec *outer, PtrVec *vals);
static void reverse_as_sum(Rev *s, Expr *n, Var *k, Bindings *bodyb, PtrVec *outer,
                           PtrVec *vals, Bindings *out, const char *name);
static Expr *alloc_like(Rev *s, Bindings *out, Expr *arr, const char *name);
static int count_uses(Rev *s, Var *v);

/* Generates the step's primal and reverse for storing; NULL reason when
 * they are made (then *primal_body is the step that pushes). */
static const char *store_step(Rev *s, Var *x, Expr *rhs, StoreRev *st, Expr **primal_body) {
  Type *st_type = rhs->args[1]->type;
  VarMap older = {0};
  VarMap *outer_older = s->older;
  VarMap origins = {0};
  if (type_holds_array(st_type)) {
    /* where the step's arrays come from (a state leaf, or made here), and
     * the updates of memory older than the outermost storing loop: those
     * of the arrays it carries, as the undo log of 8.13 finds them. A
     * storing loop inside another's step adds the updates of the arrays
     * it carries too: they may be made in the outer step, whose updates
     * save nothing (primal_update), yet this loop's reverse reads them as
     * each of its steps left them, which only the log gives back (gen
     * seed 41823: a loop with a break, in a branch, around a loop that
     * calls array-filling callees). Under 8.23 (s->tbr) nothing saves,
     * and a reverse that reads the carried memory is a conflict found
     * by step_residuals instead. */
    s->collecting = s->store_depth == 0 ? &older : s->tbr ? NULL : s->older;
    s->origins = &origins;
    bool failed = s->failed;
    Diag err = *s->err;
    Expr *logged = logged_loop_body(s, rhs, 0);
    s->collecting = NULL;
    s->origins = NULL;
    if (!logged) {
      s->failed = failed;
      *s->err = err;
      varmap_free(&older);
      varmap_free(&origins);
      return "its steps swap the arrays it carries";
    }
  }
  VarMap none = {0};
  if (s->store_depth == 0)
    s->older = s->tbr ? &none : &older;
  if (type_holds_array(st_type))
    varmap_put(&s->bufs, rhs->var2, varmap_get(&s->bufs, x));
  st->ct_var = var_new(s->a, nameset_fresh(s->names, s->a, "ct"), type_tangent(s->a, st_type));
  Layer layer = {.parent = s->layer};
  s->layer = &layer;
  Bindings bprimal = {0};
  bool failed = s->failed;
  Diag err = *s->err;
  const VarMap *outer_origins = s->tbr_origins;
  if (s->tbr && s->tbr_loop == rhs)
    s->tbr_origins = &origins;
  s->nesting++;
  s->store_depth++;
  Expr *r = rev_block(s, rhs->body, ex_var(s->a, st->ct_var), &bprimal, &st->rev);
  s->store_depth--;
  s->nesting--;
  s->tbr_origins = outer_origins;
  Contrib *c = take_contribs(s, rhs->var2);
  st->state_ct = c ? bind(s, &st->rev, bname(s, rhs->var2), sum_contribs(s, rhs->var2, c))
                   : ex_zero(s->a, type_tangent(s->a, st_type));
  s->layer = layer.parent;
  if (!sum_outer(s, &layer, &st->rev, &st->outer, &st->vals))
    s->failed = true; /* reported below as a reason not to store */
  varmap_free(&layer.contribs);
  if (s->store_depth == 0) {
    s->older = outer_older;
    varmap_free(&older);
  }
  if (s->failed) {
    s->failed = failed;
    *s->err = err;
    varmap_free(&origins);
    return "its reverse could not be generated in storing form";
  }
  int nstored;
  const char *why = step_residuals(s, rhs, &bprimal, st, &origins, &nstored);
  varmap_free(&origins);
  if (why)
    return why;
  long recompute = recompute_cost(rhs->body);
  if (s->store_depth == 0 && (long)nstored * STORE_COST > recompute)
    return arena_printf(s->a, "storing %d numbers per step costs more than recomputing "
                              "the step (cost %ld)", nstored, recompute);
  st->views = !step_reverse_pushes(st);
  for (int i = 0; i < st->residuals.len; i++) {
    Var *v = st->residuals.items[i];
    Var *kept = varmap_get(&st->kept, v);
    bool top = !varmap_has(&st->address, v);
    ArrayPush how = array_push(st, &bprimal, v, top, st->origins.items[i], rhs);
    ptrvec_push(s->a, &st->lengths, how.len);
    push_leaves(s, &bprimal, ex_var(s->a, kept ? kept : v), v->type, top, st->origins.items[i],
                how);
  }
  *primal_body = bindings_build(s->a, &bprimal, r);
  if (s->dump) {
    fprintf(s->dump, "chad: %s: the loop at line %d stores %d numbers per step "
                     "(recompute cost %ld)", s->f->name, rhs->loc.line, nstored, recompute);
    int rereads = 0;
    for (int i = 0; i < st->reread_rhs.len; i++)
      rereads += ((Expr *)st->reread_rhs.items[i])->kind == E_INDEX;
    if (rereads)
      fprintf(s->dump, ", reads %d again from memory no later write changes", rereads);
    fprintf(s->dump, "%s\n", s->tbr && s->tbr_loop == rhs
                                ? ", and saves nothing it overwrites in the arrays it carries (no "
                                  "reverse reads them after it)"
                                : "");
  }
  return NULL;
}

/* Does e hold a loop (a fold, while, build, sum or scatter)? */
static bool contains_loop(const Expr *e) {
  for (; e->kind == E_LET; e = e->body)
    if (contains_loop(e->args[0]))
      return true;
  if (expr_is_loop(e))
    return true;
  for (int i = 0; i < e->nargs; i++)
    if (contains_loop(e->args[i]))
      return true;
  return false;
}

/* A fold whose steps store their residuals, when the cost model and the
 * step allow it; false to recompute instead. */
/* Does e name a variable of `vars`? */
static bool names_any(const Expr *e, const VarMap *vars) {
  VarMap refs = {0};
  expr_visit_vars((Expr *)e, note_ref, &refs);
  bool any = false;
  for (int j = 0; j < refs.cap && !any; j++)
    any = refs.keys[j] && varmap_has(vars, refs.keys[j]);
  varmap_free(&refs);
  return any;
}

static bool any_names(const PtrVec *exprs, const VarMap *vars) {
  for (int i = 0; i < exprs->len; i++)
    if (names_any(exprs->items[i], vars))
      return true;
  return false;
}

/* Does the reverse of a loop whose steps stored their residuals (st) read
 * no memory of the arrays `vars`? Its residuals are numbers (no array, no
 * address, no tape holding one), and nothing its reverse step runs names
 * one of them: it reads what the primal step read through what it pushed
 * (DESIGN 8.23: an earlier loop reading an in-out parameter's elements). */
static bool stored_reverse_unread(const StoreRev *st, const VarMap *vars) {
  for (int i = 0; i < st->residuals.len; i++)
    if (type_holds_array(((Var *)st->residuals.items[i])->type))
      return false;
  return !any_names(&st->rev.rhss, vars) && !any_names(&st->again_rhs, vars) &&
         !any_names(&st->recall_calls, vars) && !any_names(&st->reread_rhs, vars);
}

/* DESIGN 8.23, the to-be-recorded rule for a loop of f's primal sweep
 * (nesting 0) or of an eager sum's step (8.71) that carries arrays: does
 * any reverse code that runs after the loop's reverse read their memory?
 * Each carried array must be a version (through updates and copies) of an
 * array f made (build, alloc) in `primal`, or of an in-out parameter when
 * inout_ok, and every earlier binding naming one of those versions must
 * be one that reads no memory in the reverse sweep: that chain of updates
 * itself, an element read, a length, a save, the tuple of the loop's
 * state, or a loop that stored only numbers and whose reverse names none
 * of them. */
static bool carried_memory_unread(Rev *s, Expr *rhs, const Bindings *primal, bool inout_ok) {
  VarMap rhs_of = {0}, chain = {0}, init_tuples = {0};
  for (int i = 0; i < primal->vars.len; i++)
    varmap_put(&rhs_of, primal->vars.items[i], primal->rhss.items[i]);
  PtrVec todo = {0};
  ptrvec_push(s->a, &todo, rhs->args[1]);
  bool ok = true;
  for (int k = 0; k < todo.len && ok; k++) {
    Expr *a = todo.items[k];
    if (a->kind != E_VAR) {
      ok = !type_holds_array(a->type);
      continue;
    }
    Expr *r = varmap_get(&rhs_of, a->var);
    if (a->var->type->kind == TY_TUPLE && !a->var->type->name && r && r->kind == E_TUPLE) {
      varmap_put(&init_tuples, a->var, a->var);
      for (int j = 0; j < r->nargs; j++)
        ptrvec_push(s->a, &todo, r->args[j]);
      continue;
    }
    if (!type_holds_array(a->type))
      continue;
    for (Var *v = a->var; ok;) {
      varmap_put(&chain, v, v);
      r = varmap_get(&rhs_of, v);
      if (r && r->kind == E_UPDATE && r->args[0]->kind == E_VAR)
        v = r->args[0]->var;
      else if (r && r->kind == E_VAR)
        v = r->var;
      else {
        ok = v->type->kind == TY_ARRAY &&
             (r ? r->kind == E_BUILD || r->kind == E_ALLOC : inout_ok && is_inout_param(s, v));
        break;
      }
    }
  }
  for (int i = 0; i < primal->vars.len && ok; i++) {
    Var *v = primal->vars.items[i];
    Expr *r = primal->rhss.items[i];
    if (!names_any(r, &chain))
      continue;
    const StoreRev *stored = r->kind == E_FOLD ? varmap_get(&s->stored, v) : NULL;
    ok = r->kind == E_INDEX || r->kind == E_LEN || r->kind == E_LOGSAVE ||
         ((r->kind == E_UPDATE || r->kind == E_VAR) && varmap_has(&chain, v)) ||
         (r->kind == E_TUPLE && varmap_has(&init_tuples, v)) ||
         (stored && !names_any(r->args[1], &chain) && stored_reverse_unread(stored, &chain));
  }
  varmap_free(&rhs_of);
  varmap_free(&chain);
  varmap_free(&init_tuples);
  return ok;
}

static const char *try_store(Rev *s, Var *x, Expr *rhs, StoreRev *st, Expr **body) {
  /* the buffers given to the step's arrays belong to its reverse, which a
   * step that recomputes makes again: a failed attempt leaves none */
  VarMap bufs = {0};
  varmap_copy_into(&bufs, &s->bufs);
  const char *why = store_step(s, x, rhs, st, body);
  if (why) {
    varmap_free(&s->bufs);
    s->bufs = bufs;
  } else {
    varmap_free(&bufs);
  }
  return why;
}

/* How the loops met so far run their reverse: saved before an attempt
 * that may fail after deciding for loops inside it, restored when it
 * does. */
typedef struct LoopForms {
  VarMap fold_tape, while_count, fold_mark, stored;
} LoopForms;

static LoopForms loop_forms_save(const Rev *s) {
  LoopForms f = {0};
  varmap_copy_into(&f.fold_tape, &s->fold_tape);
  varmap_copy_into(&f.while_count, &s->while_count);
  varmap_copy_into(&f.fold_mark, &s->fold_mark);
  varmap_copy_into(&f.stored, &s->stored);
  return f;
}

static void loop_forms_free(LoopForms *f) {
  varmap_free(&f->fold_tape);
  varmap_free(&f->while_count);
  varmap_free(&f->fold_mark);
  varmap_free(&f->stored);
}

static void loop_forms_restore(Rev *s, LoopForms *f) {
  varmap_free(&s->fold_tape);
  varmap_free(&s->while_count);
  varmap_free(&s->fold_mark);
  varmap_free(&s->stored);
  s->fold_tape = f->fold_tape;
  s->while_count = f->while_count;
  s->fold_mark = f->fold_mark;
  s->stored = f->stored;
}

static bool primal_store_fold(Rev *s, Var *x, Expr *rhs, Bindings *primal) {
  if (!s->may_store || rhs->kind != E_FOLD || varmap_get(&s->no_store, x))
    return false;
  /* 8.23 at the top level of f's primal sweep, or of an eager sum's step
   * (8.71): that step's reverse runs at its end, before the next step, so
   * the step is f's body in small, save that its arrays must be made in
   * it (an in-out parameter's final values are f's concern, not a step's) */
  bool eager_top = s->eager_depth == 1 && s->nesting == 1 && s->eager_body;
  bool tbr = !s->tbr && (s->nesting == 0 || eager_top) && s->store_depth == 0 &&
             type_holds_array(rhs->args[1]->type) &&
             carried_memory_unread(s, rhs, primal, s->nesting == 0);
  if (s->nesting == 0 && contains_loop(rhs->body) && !tbr) {
    /* the outermost loop of a nest in f's primal sweep: its steps are
     * checkpoints (the state saved, each step recomputed once in the
     * reverse sweep, where the loops inside it store), so that memory is
     * one step's residuals rather than the whole nest's */
    if (s->dump)
      fprintf(s->dump, "chad: %s: the loop at line %d recomputes its steps: it is the outermost "
                       "loop of a nest (its steps are checkpoints)\n", s->f->name, rhs->loc.line);
    return false;
  }
  /* 8.23 inside a storing loop's step (8.39): the arrays this loop
   * carries are made in that step (else their updates are in s->older and
   * save anyway), whose reverse reads residuals, never their memory; so
   * only this loop's own reverse could read them as a step left them,
   * which step_residuals tells (tbr_conflict). Tried first; a conflict
   * tries again the usual way, from the loop forms as they were. */
  bool inner = !tbr && !s->tbr && s->store_depth > 0 && type_holds_array(rhs->args[1]->type);
  LoopForms forms = {0};
  if (inner)
    forms = loop_forms_save(s);
  StoreRev *st = arena_alloc(s->a, sizeof *st);
  ptrvec_push(s->a, &s->store_revs, st);
  Expr *body = NULL;
  if (tbr || inner) {
    s->tbr = true;
    s->tbr_loop = rhs;
  }
  if (tbr) {
    s->final = final_reads_new(s->a, s->nesting == 0 ? s->body : s->eager_body, rhs);
    s->final_result = x;
  }
  const char *why = try_store(s, x, rhs, st, &body);
  if (tbr || inner) {
    s->tbr = false;
    s->tbr_loop = NULL;
  }
  if (tbr) {
    if (s->final)
      final_reads_free(s->final);
    s->final = NULL;
    s->final_result = NULL;
  }
  if (inner && s->tbr_conflict) {
    s->tbr_conflict = false;
    loop_forms_restore(s, &forms);
    st = arena_alloc(s->a, sizeof *st);
    ptrvec_push(s->a, &s->store_revs, st);
    why = try_store(s, x, rhs, st, &body);
  } else if (inner) {
    loop_forms_free(&forms);
  }
  if (tbr && why && s->tbr_conflict) {
    /* a step's reverse reads the carried memory: the log saves it. The
     * outermost loop of a nest stores too (8.42): recomputing its steps
     * would run the whole primal once more in the reverse sweep, and what
     * it stores is bounded by the work the primal does */
    s->tbr_conflict = false;
    if (s->dump)
      fprintf(s->dump, "chad: %s: the loop at line %d saves what it overwrites in the arrays it "
                       "carries: %s (8.23)\n", s->f->name, rhs->loc.line, why);
    st = arena_alloc(s->a, sizeof *st);
    ptrvec_push(s->a, &s->store_revs, st);
    why = try_store(s, x, rhs, st, &body);
  }
  if (why) {
    varmap_put(&s->stored, x, NULL);
    if (!s->tbr_conflict) /* else the outermost loop tries again, saving */
      varmap_put(&s->no_store, x, (void *)why);
    if (s->dump)
      fprintf(s->dump, "chad: %s: the loop at line %d recomputes its steps: %s\n", s->f->name,
              rhs->loc.line, why);
    return false;
  }
  Expr *loop = ex_fold(s->a, rhs->args[0], rhs->args[1], rhs->var, rhs->var2, body);
  loop->type = rhs->type;
  loop->loc = rhs->loc;
  bindings_push(s->a, primal, x, loop);
  varmap_put(&s->stored, x, st);
  return true;
}

/* A sum of numbers whose loop-free step calls a <math.h> function or a
 * callee: work a reverse sweep would rather read back than do again. */
bool costly_sum(const Expr *e) {
  return e->kind == E_SUM && type_is_float(e->type) && !contains_loop(e->body) &&
         expr_any(e->body, expr_is_math_call);
}

/* Does e read (index) an array that is a version of one the loop tried
 * under 8.23 carries? */
static bool reads_carried(const Expr *e, const VarMap *origins) {
  if (e->kind == E_INDEX && e->args[0]->kind == E_VAR) {
    const int *o = varmap_get(origins, e->args[0]->var);
    if (o && o[0] != NOT_CARRIED)
      return true;
  }
  for (int i = 0; i < e->nargs; i++)
    if (reads_carried(e->args[i], origins))
      return true;
  return e->body && reads_carried(e->body, origins);
}

/* DESIGN 8.80: a sum of numbers, in the step of the loop tried under
 * 8.23, that reads elements of the arrays the loop carries. Its reverse
 * would read them again from memory as the step left it, which only the
 * undo log gives back (a conflict: the loop then saves everything it
 * overwrites); stored, its reverse reads the numbers it pushed. */
static bool sum_reads_carried(const Rev *s, const Expr *e) {
  return s->tbr_origins && e->kind == E_SUM && type_is_float(e->type) &&
         !contains_loop(e->body) && reads_carried(e->body, s->tbr_origins);
}

/* A sum of numbers whose step runs a loop: its reverse would run that
 * loop again for each step's value. */
static bool sum_of_loops(const Expr *e) {
  return e->kind == E_SUM && type_is_float(e->type) && contains_loop(e->body);
}

/* Requires: x = rhs, a sum whose reverse did not run in the primal sweep.
 * Guarantees (when it returns true): the sum runs as the fold
 * `fold n s0 (i, acc) (acc + body)`, which adds the same values in the
 * same order (E_SUM's meaning, so the same result to the bit), and that
 * fold stores its steps' residuals (8.22); x's backprop reverses the fold.
 * Tried for a costly sum (costly_sum) in the step of a loop: a sum's
 * reverse runs its body again, so GMM's f_rev ran the exp of its
 * log_sum_exp twice per point (DESIGN 8.55). At the top level of f the
 * sum runs once, and its second run costs less than the undo log a
 * storing f_rev would need (code four times the size for LSTM's
 * logsumexp). The store policy decides as for any fold; when it
 * recomputes, the sum stays. */
static bool primal_store_sum(Rev *s, Var *x, Expr *rhs, Bindings *primal) {
  if (!s->may_store || !(costly_sum(rhs) || sum_reads_carried(s, rhs) || sum_of_loops(rhs)) ||
      !(s->store_depth > 0 || s->eager_depth > 0 || s->loop_reverses > 0)) {
    /* an attempt of 8.23 that failed may have made x a storing fold */
    if (varmap_get(&s->sum_fold, x))
      varmap_put(&s->sum_fold, x, NULL);
    return false;
  }
  Bindings step = {0};
  bindings_of(s->a, rhs->body, &step);
  Var *acc = var_new(s->a, nameset_fresh(s->names, s->a, "acc"), rhs->type);
  Expr *add = ex_prim2(s->a, P_ADD, ex_var(s->a, acc), step.result);
  add->type = rhs->type;
  Expr *next = bind(s, &step, "acc", add);
  Expr *s0 = rhs->nargs == 2 ? rhs->args[1] : ex_const(s->a, rhs->type, 0.0);
  Expr *fold = ex_fold(s->a, rhs->args[0], s0, rhs->var, acc, bindings_build(s->a, &step, next));
  fold->type = rhs->type;
  fold->loc = rhs->loc;
  varmap_put(&s->sum_fold, x, fold);
  if (primal_store_fold(s, x, fold, primal))
    return true;
  varmap_put(&s->sum_fold, x, NULL);
  return false;
}

/* The fold a sum bound to x runs as, when its steps store (and the
 * attempt that made it was not undone); else NULL. */
static Expr *stored_sum_fold(Rev *s, Var *x) {
  Expr *fold = varmap_get(&s->sum_fold, x);
  return fold && varmap_get(&s->stored, x) ? fold : NULL;
}

/* A fold whose state is active runs as fold-save: the reverse loop reads
 * the state before each step back from the tape. */
static void primal_fold(Rev *s, Var *x, Expr *rhs, Bindings *primal) {
  if (!type_is_active(rhs->type)) {
    bindings_push(s->a, primal, x, rhs);
    return;
  }
  if (primal_store_fold(s, x, rhs, primal))
    return;
  Expr *body = carry_arrays(s, x, rhs);
  if (!body)
    return;
  Expr *save = ex_foldsave(s->a, rhs->args[0], rhs->args[1], rhs->var, rhs->var2, body);
  save->loc = rhs->loc;
  Expr *p = bind(s, primal, arena_printf(s->a, "%s_save", x->name), save);
  bindings_push(s->a, primal, x, ex_get(s->a, 0, p));
  Expr *tape = bind(s, primal, arena_printf(s->a, "%s_tape", x->name), ex_get(s->a, 1, p));
  varmap_put(&s->fold_tape, x, tape);
}

/* A while whose state is active runs as while-save: the same tape as a
 * fold's, grown as the loop runs, and the trip count for the reverse. */
static void primal_while(Rev *s, Var *x, Expr *rhs, Bindings *primal) {
  if (!type_is_active(rhs->type)) {
    bindings_push(s->a, primal, x, rhs);
    return;
  }
  Expr *body = carry_arrays(s, x, rhs);
  if (!body)
    return;
  Expr *save = ex_whilesave(s->a, rhs->args[0], rhs->args[1], rhs->var, rhs->var2, body);
  save->loc = rhs->loc;
  Expr *p = bind(s, primal, arena_printf(s->a, "%s_save", x->name), save);
  bindings_push(s->a, primal, x, ex_get(s->a, 0, p));
  Expr *tape = bind(s, primal, arena_printf(s->a, "%s_tape", x->name), ex_get(s->a, 1, p));
  Expr *count = bind(s, primal, arena_printf(s->a, "%s_count", x->name), ex_get(s->a, 2, p));
  varmap_put(&s->fold_tape, x, tape);
  varmap_put(&s->while_count, x, count);
}

/* The primal of an update saves the element it overwrites, read before the
 * store (DESIGN 8.2). */
static void primal_update(Rev *s, Var *x, Expr *rhs, Bindings *primal) {
  Expr *a = rhs->args[0];
  bool inout = a->kind == E_VAR && varmap_has(&s->inout, a->var);
  if (inout)
    varmap_put(&s->inout, x, x);
  /* An update of memory this function owns (its versions share one
   * buffer) saves in the undo log, whose pop no pass removes: memory may
   * be read under another name (a loop's state, a tuple's field) that a
   * restore's renaming would not reach. The first update of an input
   * array, into a copy of it, saves the scalar (8.2). */
  Expr *hx = varmap_get(&s->bufs, x), *ha = buf_of(s, a);
  bool owned = hx && ha && atom_eq(hx, ha);
  varmap_put(&s->unlogged, x, NULL);
  if (s->store_depth > 0 && !varmap_has(s->older, x)) {
    /* an array made inside a storing loop's step: the reverse never reads
     * its memory again (it reads residuals), and the step frees it */
    varmap_put(&s->unlogged, x, x);
    bindings_push(s->a, primal, x, rhs);
    return;
  }
  if (s->nesting > 0 || inout || owned) {
    bind(s, primal, "saved", ex_logsave(s->a, rhs->args[0], rhs->args[1]));
    varmap_put(&s->logged, x, x);
    bindings_push(s->a, primal, x, rhs);
    return;
  }
  Expr *old = bind(s, primal, arena_printf(s->a, "%s_old", x->name),
                   ex_index(s->a, rhs->args[0], rhs->args[1]));
  varmap_put(&s->saved, x, old);
  bindings_push(s->a, primal, x, rhs);
}

/* ------------------------------------------------- sums reversed eagerly */

/* The variables e binds, at any depth. */
static void collect_binders(Expr *e, VarMap *out) {
  for (; e; e = e->kind == E_LET || expr_is_loop(e) ? e->body : NULL) {
    if (e->kind == E_LET || expr_is_loop(e)) {
      if (e->var)
        varmap_put(out, e->var, e->var);
      if (e->var2)
        varmap_put(out, e->var2, e->var2);
    }
    for (int i = 0; i < e->nargs; i++)
      if (!expr_is_atom(e->args[i]))
        collect_binders(e->args[i], out);
  }
}

typedef struct FreeArrays {
  const VarMap *bound;
  VarMap seen;
  PtrVec found; /* Var*: arrays e reads that it does not bind */
  Arena *a;
} FreeArrays;

static void collect_free_array(Var *v, void *ctx) {
  FreeArrays *fa = ctx;
  if (v->type && type_holds_array(v->type) && !varmap_has(fa->bound, v) &&
      !varmap_has(&fa->seen, v)) {
    varmap_put(&fa->seen, v, v);
    ptrvec_push(fa->a, &fa->found, v);
  }
}

static bool block_only_reads(Rev *s, Expr *e, VarMap *outside);

/* Does the binding x = rhs (x NULL for a block's result) only read the
 * memory of the arrays in `outside` (arrays from outside the sum and views
 * of them, which it adds x to when x is one more)? An element read, a
 * length, a view, or an argument the callee does not write. */
static bool rhs_only_reads(Rev *s, Var *x, Expr *rhs, VarMap *outside) {
  if ((rhs->kind == E_VAR && varmap_has(outside, rhs->var)) ||
      (rhs->kind == E_VIEW && rhs->args[0]->kind == E_VAR && varmap_has(outside, rhs->args[0]->var))) {
    if (!x)
      return false; /* the block yields memory from outside */
    varmap_put(outside, x, x);
    return true;
  }
  Func *g = rhs->kind == E_CALL ? module_find(s->m, rhs->name) : NULL;
  for (int i = 0; i < rhs->nargs; i++) {
    Expr *a = rhs->args[i];
    if (a->kind == E_VAR) {
      if (!varmap_has(outside, a->var))
        continue;
      if ((rhs->kind == E_INDEX && i == 0) || rhs->kind == E_LEN)
        continue;
      if (g && i < g->nparams && !func_param_written(g, i))
        continue;
      return false; /* updated, carried, or passed to be written */
    }
    if (!expr_is_atom(a) && !block_only_reads(s, a, outside))
      return false;
  }
  return !expr_is_loop(rhs) || block_only_reads(s, rhs->body, outside);
}

static bool block_only_reads(Rev *s, Expr *e, VarMap *outside) {
  for (; e->kind == E_LET; e = e->body)
    if (!rhs_only_reads(s, e->var, e->args[0], outside))
      return false;
  return rhs_only_reads(s, NULL, e, outside);
}

static bool refers_to(Expr *e, const Var *v) {
  if (!e)
    return false;
  if (e->kind == E_VAR)
    return e->var == v;
  for (int i = 0; i < e->nargs; i++)
    if (refers_to(e->args[i], v))
      return true;
  return (e->kind == E_LET || expr_is_loop(e)) && refers_to(e->body, v);
}

/* The atom a as a value the primal sweep has before the top-level binding
 * `at` of b runs: a constant, a parameter, a variable bound before it, or
 * one bound after it by a primitive of such values (`to_f64 n`), computed
 * again into `pre`. NULL when a depends on what `at` binds or later. */
static Expr *known_before(Rev *s, const Bindings *b, int at, Expr *a, Bindings *pre, int depth) {
  if (a->kind != E_VAR)
    return expr_is_atom(a) ? a : NULL;
  for (int i = 0; i < s->f->nparams; i++)
    if (s->f->params[i] == a->var)
      return a;
  for (int i = 0; i < b->vars.len; i++) {
    if (b->vars.items[i] != a->var)
      continue;
    if (i < at)
      return a;
    Expr *rhs = b->rhss.items[i];
    if (i == at || depth > 4 || rhs->kind != E_PRIM || !prim_may_hoist(rhs))
      return NULL;
    Expr *copy = ex_clone_shallow(s->a, rhs);
    for (int k = 0; k < rhs->nargs; k++)
      if (!(copy->args[k] = known_before(s, b, at, rhs->args[k], pre, depth + 1)))
        return NULL;
    return bind(s, pre, a->var->name, copy);
  }
  return NULL;
}

/* The cotangent x will receive, computed in the primal sweep before x's
 * binding (the `at`-th of f's top level b): x reaches f's result through
 * one use at a time, each a sum, a difference, a negation, or a product or
 * quotient by a value known before x, ending at the return value (its seed
 * ret_b) or as the single element of an output array (its seed's element
 * 0). NULL when it does not (the cotangent depends on what x becomes). */
static Expr *early_ct(Rev *s, const Bindings *b, int at, Var *x, Bindings *primal) {
  Expr *ct = NULL;
  PtrVec factors = {0}, divisors = {0};
  bool neg = false;
  Var *cur = x;
  int i = at;
  for (;;) {
    if (count_uses(s, cur) != 1)
      return NULL;
    int j = i + 1;
    while (j < b->vars.len && !refers_to(b->rhss.items[j], cur))
      j++;
    Expr *r = j < b->vars.len ? b->rhss.items[j] : b->result;
    bool first = r->nargs > 0 && r->args[0]->kind == E_VAR && r->args[0]->var == cur;
    if (j == b->vars.len) {
      if (r->kind == E_VAR && r->var == cur && s->ret_b && type_is_float(s->ret_b->type))
        ct = s->ret_b;
      break;
    }
    if (r->kind == E_TUPLE && j == b->vars.len - 1 && b->result->kind == E_VAR &&
        b->result->var == b->vars.items[j]) {
      /* f's result (ret, outputs...): the return value's seed */
      if (first && s->ret_b && type_is_float(s->ret_b->type))
        ct = s->ret_b;
      break;
    }
    if (r->kind == E_BUILD && r->args[0]->kind == E_CONST && r->args[0]->ival == 1 &&
        r->body->kind == E_VAR && r->body->var == cur) {
      /* the one element of an output array whose buffer is its seed */
      Var *y = b->vars.items[j];
      Expr *h = varmap_get(&s->bufs, y);
      if (h && h->kind == E_VAR && !varmap_has(&s->own_bufs, h->var) && count_uses(s, y) == 1)
        ct = bind(s, primal, "seed", ex_index(s->a, h, ex_int(s->a, 0)));
      break;
    }
    if (r->kind == E_VAR) { /* another name for it */
      cur = b->vars.items[j];
      i = j;
      continue;
    }
    if (r->kind != E_PRIM || !type_is_float(r->type))
      return NULL;
    Expr *other = r->nargs == 2 ? r->args[first ? 1 : 0] : NULL;
    if (other && other->kind == E_VAR && other->var == cur)
      return NULL; /* x + x */
    switch (r->op) {
    case P_ADD:
      break;
    case P_SUB:
      neg ^= !first;
      break;
    case P_NEG:
      neg ^= 1;
      break;
    case P_MUL:
    case P_DIV:
      other = known_before(s, b, at, other, primal, 0);
      if (!other || (r->op == P_DIV && !first))
        return NULL;
      ptrvec_push(s->a, r->op == P_MUL ? &factors : &divisors, other);
      break;
    default:
      return NULL;
    }
    cur = b->vars.items[j];
    i = j;
  }
  if (!ct)
    return NULL;
  for (int k = 0; k < factors.len; k++)
    ct = bind(s, primal, "ct", ex_prim2(s->a, P_MUL, ct, factors.items[k]));
  for (int k = 0; k < divisors.len; k++)
    ct = bind(s, primal, "ct", ex_prim2(s->a, P_DIV, ct, divisors.items[k]));
  if (neg)
    ct = bind(s, primal, "ct", ex_prim1(s->a, P_NEG, ct));
  return ct;
}

/* Where the contributions of a sum's steps to the array v from outside it
 * go when the steps' reverses run in the primal sweep: a pure input
 * parameter's own buffer (the caller's, never consumed), or for an array f
 * made before the sum (a build or alloc, whose length is known) a zeroed
 * buffer of its own, added into v's when the reverse sweep reaches the sum
 * (v's buffer is made there). NULL for any other array. */
static Expr *eager_buffer(Rev *s, const Bindings *b, int at, Var *v, Bindings *primal,
                          bool *own) {
  *own = false;
  for (int i = 0; i < s->f->nparams; i++)
    if (s->f->params[i] == v)
      return func_param_class(s->f, i) == PARAM_IN_ARRAY ? varmap_get(&s->bufs, v) : NULL;
  for (int i = 0; i < at; i++)
    if (b->vars.items[i] == v) {
      ExprKind k = ((Expr *)b->rhss.items[i])->kind;
      if (k != E_BUILD && k != E_ALLOC)
        return NULL;
      *own = true;
      return alloc_like(s, primal, ex_var(s->a, v), arena_printf(s->a, "%s_sum_b", v->name));
    }
  return NULL;
}

/* How the loops seen so far run their reverses. A failed attempt at an
 * eager sum (below) made a build of its step a fold (builds_as_folds);
 * the sum's reverse made again sees the build, so what the attempt
 * recorded for the fold must go (gen seed 53695, a crash). */
/* Requires: x = rhs, a sum of floats at the top level of f's primal sweep.
 * Guarantees (when it returns true): the primal sweep runs each step and at
 * once its reverse, for the cotangent x will receive, computed before the
 * sum (early_ct); what the steps add to scalars outside is summed in the
 * loop, what they add to arrays outside goes to their buffers (or to
 * buffers of their own, eager_buffer); x's backprop passes those on
 * (DESIGN 8.35). This is the sum's reverse with one run of the step
 * instead of two. */
static bool primal_eager_sum(Rev *s, Var *x, Expr *rhs, Bindings *primal) {
  if (!s->may_store || s->nesting > 0 || s->store_depth > 0 || !type_is_float(rhs->type))
    return false;
  Bindings top;
  bindings_of(s->a, s->body, &top);
  int at = 0;
  while (at < top.vars.len && top.vars.items[at] != x)
    at++;
  if (at == top.vars.len)
    return false;
  VarMap bound = {0};
  collect_binders(rhs->body, &bound);
  FreeArrays fa = {.bound = &bound, .a = s->a};
  expr_visit_vars(rhs->body, collect_free_array, &fa);
  varmap_free(&bound);
  VarMap outside = {0};
  bool ok = true;
  for (int i = 0; i < fa.found.len; i++) {
    Var *v = fa.found.items[i];
    ok = ok && v->type->kind == TY_ARRAY;
    varmap_put(&outside, v, v);
  }
  ok = ok && block_only_reads(s, rhs->body, &outside);
  varmap_free(&outside);
  varmap_free(&fa.seen);
  if (!ok)
    return false;

  /* everything bound from here to the loop is dropped if it fails */
  Bindings pre = {0};
  EagerSum *es = arena_alloc(s->a, sizeof *es);
  *es = (EagerSum){0};
  VarMap bufs = {0}, own = {0};
  varmap_copy_into(&bufs, &s->bufs);
  varmap_copy_into(&own, &s->own_bufs);
  for (int i = 0; i < fa.found.len && ok; i++) {
    Var *v = fa.found.items[i];
    if (!varmap_get(&s->bufs, v))
      continue; /* inactive */
    bool mine;
    Expr *g = eager_buffer(s, &top, at, v, &pre, &mine);
    ok = g != NULL;
    if (ok && mine) {
      ptrvec_push(s->a, &es->arrays, v);
      ptrvec_push(s->a, &es->gbufs, g);
      varmap_put(&s->bufs, v, g);
    }
  }
  Expr *ct = ok ? early_ct(s, &top, at, x, &pre) : NULL;
  if (!ct) {
    varmap_free(&s->bufs);
    varmap_free(&s->own_bufs);
    s->bufs = bufs;
    s->own_bufs = own;
    return false;
  }
  varmap_free(&own);

  Layer layer = {.parent = s->layer};
  s->layer = &layer;
  Bindings step = {0}, rev = {0};
  bool failed = s->failed;
  Diag err = *s->err;
  LoopForms forms = loop_forms_save(s);
  s->nesting++;
  s->eager_depth++;
  s->eager_body = rhs->body;
  Expr *r = rev_block(s, rhs->body, ct, &step, &rev);
  s->eager_body = NULL;
  s->eager_depth--;
  s->nesting--;
  s->layer = layer.parent;
  ok = sum_outer(s, &layer, &rev, &es->outer, &es->totals) && !s->failed;
  varmap_free(&layer.contribs);
  varmap_free(&s->bufs);
  s->bufs = bufs;
  if (!ok) {
    s->failed = failed;
    *s->err = err;
    loop_forms_restore(s, &forms);
    return false;
  }
  loop_forms_free(&forms);
  for (int i = 0; i < pre.vars.len; i++)
    bindings_push(s->a, primal, pre.vars.items[i], pre.rhss.items[i]);
  for (int i = 0; i < rev.vars.len; i++)
    bindings_push(s->a, &step, rev.vars.items[i], rev.rhss.items[i]);

  /* fold n (init, 0...) (k acc): (acc.0 + r, acc.i + total_i) */
  int n = es->outer.len + 1;
  Type **ts = arena_alloc(s->a, sizeof(Type *) * (size_t)n);
  Expr **init = arena_alloc(s->a, sizeof(Expr *) * (size_t)n);
  Expr **next = arena_alloc(s->a, sizeof(Expr *) * (size_t)n);
  Var *st = var_new(s->a, nameset_fresh(s->names, s->a, "acc"), NULL);
  ts[0] = rhs->type;
  init[0] = rhs->nargs == 2 ? rhs->args[1] : ex_const(s->a, rhs->type, 0.0);
  for (int i = 1; i < n; i++) {
    ts[i] = ((Var *)es->outer.items[i - 1])->type;
    init[i] = ex_const(s->a, ts[i], -0.0); /* a cotangent's zero (DESIGN 8.66) */
  }
  st->type = ty_tuple(s->a, n, ts);
  for (int i = 0; i < n; i++) {
    Expr *part = bind(s, &step, "acc", ex_get(s->a, i, ex_var(s->a, st)));
    Expr *add = i == 0 ? r : es->totals.items[i - 1];
    Expr *sum = ex_prim2(s->a, P_ADD, part, add);
    sum->free_order = i > 0; /* the cotangent totals; not the primal sum */
    next[i] = bind(s, &step, "acc", sum);
  }
  Expr *res = ex_tuple(s->a, n, next);
  res->type = st->type;
  Expr *init_t = ex_tuple(s->a, n, init);
  init_t->type = st->type;
  Expr *loop = ex_fold(s->a, rhs->args[0], init_t, rhs->var, st, bindings_build(s->a, &step, res));
  loop->type = st->type;
  loop->loc = rhs->loc;
  Expr *all = bind(s, primal, arena_printf(s->a, "%s_eager", x->name), loop);
  bindings_push(s->a, primal, x, ex_get(s->a, 0, all));
  for (int i = 1; i < n; i++)
    es->totals.items[i - 1] = bind(s, primal, "sum_b", ex_get(s->a, i, all));
  varmap_put(&s->eager, x, es);
  s->eager_sums++;
  if (s->dump)
    fprintf(s->dump, "chad: %s: the sum at line %d runs each step's reverse in the primal sweep "
                     "(its cotangent is known before it)\n",
            s->f->name, rhs->loc.line);
  return true;
}

/* The reverse of a sum reversed in the primal sweep: what the steps added
 * is passed on to the scalars and the arrays made in f. */
static void backprop_eager_sum(Rev *s, Expr *rhs, EagerSum *es, Expr *ct, Bindings *out) {
  if (rhs->nargs == 2)
    add_contrib(s, rhs->args[1], -1, ct);
  for (int i = 0; i < es->outer.len; i++)
    add_contrib(s, ex_var(s->a, es->outer.items[i]), -1, es->totals.items[i]);
  for (int i = 0; i < es->arrays.len; i++) {
    Expr *g = es->gbufs.items[i], *h = varmap_get(&s->bufs, es->arrays.items[i]);
    Var *k = var_new(s->a, nameset_fresh(s->names, s->a, "k"), ty_int());
    Bindings body = {0};
    Expr *gk = bind(s, &body, "g", ex_index(s->a, g, ex_var(s->a, k)));
    bind(s, &body, "acc", ex_accum(s->a, h, ex_var(s->a, k), gk));
    PtrVec none = {0};
    reverse_as_sum(s, ex_len(s->a, g), k, &body, &none, &none, out, "added");
  }
}

/* The right-hand side this block's primal binds v to, or NULL. */
static Expr *primal_rhs(const Bindings *primal, const Var *v) {
  for (int i = primal->vars.len - 1; i >= 0; i--)
    if (primal->vars.items[i] == v)
      return primal->rhss.items[i];
  return NULL;
}

/* Is the memory of array atom a, through aliases and projections, that of
 * a loop which saves what it overwrites in the undo log, or of a logged
 * update? A reverse sweep then gives that memory back step by step and
 * reads it again, so nothing may write it that the log does not know. */
static bool memory_relogged(Rev *s, const Bindings *primal, Expr *a) {
  for (int guard = 0; a->kind == E_VAR && guard < 100000; guard++) {
    if (varmap_has(&s->logged, a->var))
      return true;
    Expr *rhs = primal_rhs(primal, a->var);
    if (!rhs)
      return false;
    if (rhs->kind == E_GET || rhs->kind == E_UPDATE)
      a = rhs->args[0];
    else if (rhs->kind == E_VAR)
      a = rhs;
    else
      return expr_is_loop(rhs) &&
             (expr_contains(rhs, E_LOGSAVE) || expr_contains(rhs, E_LOGMARK));
  }
  return false;
}

/* A scatter whose base's memory the log gives back to a later reverse:
 * the emitter would add into that memory in place (its base is used once),
 * unknown to the log, and the reverse would read the sums (gen seed
 * 239222: a while loop, a fold and a scatter through one array). It adds
 * into a copy instead (DESIGN 8.61). */
static void primal_scatter_apart(Rev *s, Var *x, Expr *rhs, Bindings *primal) {
  Expr *base = rhs->args[0];
  Var *k = var_new(s->a, nameset_fresh(s->names, s->a, "k"), ty_int());
  Expr *copy = bind(s, primal, arena_printf(s->a, "%s_apart", x->name),
                    ex_build(s->a, ex_len(s->a, base), k, ex_index(s->a, base, ex_var(s->a, k))));
  Expr *r = ex_clone_shallow(s->a, rhs);
  r->args[0] = copy;
  bindings_push(s->a, primal, x, r);
}

static void primal_binding(Rev *s, Var *x, Expr *rhs, Bindings *primal) {
  if ((rhs->kind == E_IF || expr_is_loop(rhs)) && expr_contains(rhs, E_UPDATE)) {
    const char *why = NULL;
    if (!type_is_active(rhs->type) && !updates_stay_inside(s, x, rhs))
      why = "an update of an inactive array (integers) under a condition or in a loop "
            "cannot be differentiated in reverse mode yet";
    if (why) {
      fail(s, rhs->loc, why);
      return;
    }
  }
  if (rhs->kind == E_VAR && x->type->kind == TY_ARRAY) {
    varmap_put(&s->copy_of, x, rhs->var);
    if (varmap_has(&s->inout, rhs->var))
      varmap_put(&s->inout, x, x);
  }
  if (rhs->kind == E_UPDATE)
    primal_update(s, x, rhs, primal);
  else if (rhs->kind == E_FOLD)
    primal_fold(s, x, rhs, primal);
  else if (rhs->kind == E_WHILE)
    primal_while(s, x, rhs, primal);
  else if (rhs->kind == E_CALL)
    primal_call(s, x, rhs, primal);
  else if (rhs->kind == E_IF)
    primal_if(s, x, rhs, primal);
  else if (rhs->kind == E_SCATTER && rhs->type->kind == TY_ARRAY &&
           memory_relogged(s, primal, rhs->args[0]))
    primal_scatter_apart(s, x, rhs, primal);
  else if (!(rhs->kind == E_SUM &&
               (primal_eager_sum(s, x, rhs, primal) || primal_store_sum(s, x, rhs, primal))))
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
  bool active[3] = {false, false, false};
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

/* The buffer a callee adds the cotangent of array argument `arg` into, or
 * NULL after a located failure. */
static Expr *callee_buffer(Rev *s, const Func *g, int i, Expr *rhs) {
  Expr *h = buf_of(s, rhs->args[i]);
  Var *marked = h ? NULL : inactive_param_behind(s, rhs->args[i], 0);
  if (marked) {
    /* the callee would add into a buffer whose length C does not say */
    const char *gname = g->name;
    if (strncmp(gname, "chad__flat_", 11) == 0)
      gname += 11;
    fail(s, rhs->loc,
         arena_printf(s->a, "array '%s' is marked inactive but passed to '%s', whose "
                            "parameter '%s' is active: mark that parameter CHAD_INACTIVE "
                            "too, or drop the mark",
                      marked->name, gname, g->params[i]->name));
    return NULL;
  }
  if (!h)
    fail(s, rhs->loc, "internal error: array argument without a cotangent buffer");
  return h;
}

/* A call of a CHAD_CUSTOM g: the user's g_rev, as g$rev(args with the
 * buffers of active arrays after them, ct), adds into those buffers and
 * returns the scalars' cotangents. It is an ordinary call, not a linear
 * map: nothing is known of it but the contract. */
static void backprop_custom(Rev *s, Func *g, Expr *rhs, Expr *ct, Bindings *out) {
  ad_declare_custom(s->m, g);
  Func *grev = module_find(s->m, ad_name(s->m, g->name, "rev"));
  PtrVec args = {0};
  for (int i = 0; i < g->nparams; i++) {
    ptrvec_push(s->a, &args, rhs->args[i]);
    if (func_param_class(g, i) != PARAM_IN_ARRAY || !func_param_active(g, i))
      continue;
    Expr *h = callee_buffer(s, g, i, rhs);
    if (!h)
      return;
    ptrvec_push(s->a, &args, h);
  }
  Expr *seed = bind(s, out, arena_printf(s->a, "%s_ct", g->name), ct);
  ptrvec_push(s->a, &args, seed);
  Expr *call = ex_call(s->a, grev->name, args.len, (Expr **)args.items);
  call->type = grev->ret;
  call->loc = rhs->loc;
  Expr *c = bind(s, out, arena_printf(s->a, "%s_rev", g->name), call);
  Expr *cts = ex_get(s->a, 1, c);
  cts->type = grev->ret->elems[1];
  cts = bind(s, out, arena_printf(s->a, "%s_b", g->name), cts);
  int k = 0;
  for (int i = 0; i < g->nparams; i++)
    if (func_param_class(g, i) == PARAM_ACTIVE_SCALAR) {
      Expr *ci = ex_get(s->a, k++, cts);
      ci->type = type_tangent(s->a, g->params[i]->type);
      add_contrib(s, rhs->args[i], -1, ci);
    }
}

/* The reverse of `x = call g(...)`, g a custom function that writes
 * arrays: g_rev gets the in-out arrays as the call read them (their
 * copies) and scratch for the outputs it recomputes, each followed by the
 * buffer of the fresh array the call wrote, whose seed it reads (an
 * output: the zeros lowering passed for it have no cotangent to receive)
 * or consumes and replaces by the adjoint of the values the call read
 * (in-out). `ret_ct` is the C return value's cotangent, or NULL (none, or
 * zero). */
static void backprop_custom_writer(Rev *s, Var *x, Func *g, Expr *rhs, Expr *ret_ct,
                                   Bindings *out) {
  ad_declare_custom(s->m, g);
  Func *grev = module_find(s->m, ad_name(s->m, g->name, "rev"));
  Expr **in = varmap_get(&s->custom_in, x);
  if (!in)
    return; /* its primal failed with a message */
  PtrVec args = {0};
  for (int i = 0; i < g->nparams; i++) {
    if (!func_param_active(g, i) || func_param_class(g, i) == PARAM_ACTIVE_SCALAR) {
      ptrvec_push(s->a, &args, rhs->args[i]);
      continue;
    }
    if (!func_param_written(g, i)) {
      ptrvec_push(s->a, &args, rhs->args[i]);
      Expr *h = callee_buffer(s, g, i, rhs);
      if (!h)
        return;
      ptrvec_push(s->a, &args, h);
      continue;
    }
    Expr *h = buf_of(s, rhs->args[i]);
    if (!h || h->kind != E_VAR) {
      fail(s, rhs->loc, "internal error: an array a custom function writes has no buffer");
      return;
    }
    bool inout = func_param_class(g, i) == PARAM_INOUT_ARRAY;
    ptrvec_push(s->a, &args, inout ? in[i]
                                   : bind(s, out, arena_printf(s->a, "%s_out", g->name),
                                          ex_alloc(s->a, rhs->args[i]->type, in[i])));
    ptrvec_push(s->a, &args, h);
  }
  Type *cret = g->ret->elems[0];
  if (type_is_float(cret))
    ptrvec_push(s->a, &args, ret_ct ? bind(s, out, arena_printf(s->a, "%s_ct", g->name), ret_ct)
                                    : ex_const(s->a, cret, 0));
  Expr *call = ex_call(s->a, grev->name, args.len, (Expr **)args.items);
  call->type = grev->ret;
  call->loc = rhs->loc;
  Expr *c = bind(s, out, arena_printf(s->a, "%s_rev", g->name), call);
  Expr *cts = ex_get(s->a, 1, c);
  cts->type = grev->ret->elems[1];
  cts = bind(s, out, arena_printf(s->a, "%s_b", g->name), cts);
  for (int i = 0, k = 0; i < g->nparams; i++)
    if (func_param_class(g, i) == PARAM_ACTIVE_SCALAR) {
      Expr *ci = ex_get(s->a, k++, cts);
      ci->type = type_tangent(s->a, g->params[i]->type);
      add_contrib(s, rhs->args[i], -1, ci);
    }
}

/* The cotangent of the C return value of a custom call that writes
 * arrays (field 0 of its result), from x's contributions, or NULL. */
static Expr *custom_ret_ct(Rev *s, Var *x) {
  Expr *ct = NULL;
  for (Contrib *c = take_contribs(s, x); c; c = c->next) {
    Expr *part = c->field < 0 ? ex_get(s->a, 0, c->ct) : c->field == 0 ? c->ct : NULL;
    if (part && c->field < 0)
      part->type = x->type->elems[0];
    if (part)
      ct = plus_into(s, ct, part);
  }
  return ct;
}

static void backprop_call(Rev *s, Var *x, Expr *rhs, Expr *ct, Bindings *out) {
  Func *custom = module_find(s->m, rhs->name);
  if (custom && custom->is_custom) {
    if (type_is_active(rhs->type))
      backprop_custom(s, custom, rhs, ct, out);
    return;
  }
  Expr *tape = varmap_get(&s->call_tape, x);
  if (!tape)
    return; /* inactive result: no cotangent flows through the call */
  Func *g = module_find(s->m, rhs->name);
  if (func_num_outputs(g)) {
    fail(s, rhs->loc, "calls to functions with output arrays cannot be differentiated yet");
    return;
  }
  /* The backpropagator takes the residual and, for each active array
   * argument, the caller's buffer, which it adds into in place. */
  PtrVec args = {0};
  ptrvec_push(s->a, &args, tape);
  for (int i = 0; i < g->nparams; i++) {
    if (func_param_class(g, i) != PARAM_IN_ARRAY || !type_is_active(g->params[i]->type))
      continue;
    Expr *h = callee_buffer(s, g, i, rhs);
    if (!h)
      return;
    ptrvec_push(s->a, &args, h);
  }
  Expr *bp = ex_lin(s->a, E_LCALL, args.len, (Expr **)args.items);
  bp->name = g->name;
  Expr *app = ex_lin(s->a, E_LAPPLY, 2, (Expr *[]){bp, ct});
  Expr *c = bind(s, out, arena_printf(s->a, "%s_b", g->name), app);
  int k = 0;
  for (int i = 0; i < g->nparams; i++)
    if (func_param_class(g, i) == PARAM_ACTIVE_SCALAR)
      add_contrib(s, rhs->args[i], -1, ex_get(s->a, k++, c));
}

/* Branch j's reverse, after the additions of the if's result leaves that
 * branch passed on into the buffers of the arrays it passed (IfPass): they
 * come first, as the branch's own reverse reads those buffers. */
static Bindings *with_passes(Rev *s, Var *x, int j, Bindings *rev) {
  PtrVec *passes = varmap_get(&s->if_pass, x);
  Bindings *out = NULL;
  for (int i = 0; passes && i < passes->len; i++) {
    IfPass *p = passes->items[i];
    if (p->branch != j || !p->target || atom_eq(p->target, p->h))
      continue;
    if (!out) {
      out = arena_alloc(s->a, sizeof *out);
      *out = (Bindings){0};
    }
    Var *k = var_new(s->a, nameset_fresh(s->names, s->a, "k"), ty_int());
    Bindings cb = {0};
    bind(s, &cb, "acc",
         ex_accum(s->a, p->target, ex_var(s->a, k), ex_index(s->a, p->h, ex_var(s->a, k))));
    bind(s, out, "passed", ex_sum(s->a, ex_len(s->a, p->val), k,
                                  bindings_build(s->a, &cb, ex_tuple(s->a, 0, NULL))));
  }
  if (!out)
    return rev;
  for (int i = 0; i < rev->vars.len; i++)
    bindings_push(s->a, out, rev->vars.items[i], rev->rhss.items[i]);
  return out;
}

static void backprop_if(Rev *s, Var *x, Expr *ct, Bindings *out) {
  IfRev *info = varmap_get(&s->if_rev, x);
  if (!info)
    return; /* its primal failed with a message */
  bindings_push(s->a, out, info->ct_var, ct);
  PtrVec all = {0};
  for (int j = 0; j < 2; j++)
    for (int i = 0; i < info->outer_vars[j].len; i++)
      if (!contains_var(&all, info->outer_vars[j].items[i]))
        ptrvec_push(s->a, &all, info->outer_vars[j].items[i]);
  if (!all.len && !info->rev[0].vars.len && !info->rev[1].vars.len &&
      !varmap_has(&s->if_pass, x))
    return; /* nothing flows back and nothing is added into a buffer */
  Type **types = arena_alloc(s->a, sizeof(Type *) * (size_t)(all.len ? all.len : 1));
  Expr *branches[2];
  for (int j = 0; j < 2; j++) {
    Expr **elems = arena_alloc(s->a, sizeof(Expr *) * (size_t)(all.len ? all.len : 1));
    for (int i = 0; i < all.len; i++) {
      Var *v = all.items[i];
      types[i] = type_tangent(s->a, v->type);
      elems[i] = ex_zero(s->a, types[i]);
      for (int k = 0; k < info->outer_vars[j].len; k++)
        if (info->outer_vars[j].items[k] == v)
          elems[i] = info->outer_vals[j].items[k];
    }
    branches[j] = bindings_build(s->a, with_passes(s, x, j, &info->rev[j]),
                                 ex_tuple(s->a, all.len, elems));
  }
  Expr *iff = ex_if(s->a, info->cond, branches[0], branches[1]);
  iff->type = ty_tuple(s->a, all.len, types);
  Expr *rc = bind(s, out, arena_printf(s->a, "%s_bif", x->name), iff);
  for (int i = 0; i < all.len; i++)
    add_contrib(s, ex_var(s->a, all.items[i]), -1, ex_get(s->a, i, rc));
}

/* ------------------------------------------------------ arrays, loops */

static bool has_active_array(const Type *t) {
  if (t->kind == TY_ARRAY)
    return type_is_float(t->elem);
  if (t->kind == TY_TUPLE && !t->name)
    for (int i = 0; i < t->n; i++)
      if (has_active_array(t->elems[i]))
        return true;
  return false;
}

static Expr *buf_of(Rev *s, Expr *atom) {
  return atom->kind == E_VAR ? varmap_get(&s->bufs, atom->var) : NULL;
}

/* A fresh zeroed buffer as long as the array `arr`. */
static Expr *alloc_like(Rev *s, Bindings *out, Expr *arr, const char *name) {
  Expr *buf = ex_alloc(s->a, arr->type, ex_len(s->a, arr));
  buf->cotangents = 1;
  Expr *h = bind(s, out, name, buf);
  varmap_put(&s->own_bufs, h->var, h->var);
  varmap_put(&s->made_bufs, h->var, h->var);
  return h;
}

/* The handle of a tuple-valued atom, through let-aliases. */
static Expr *shared_buf_handle(Rev *s, const VarMap *rhs_of, Expr *atom) {
  for (int guard = 0; atom && atom->kind == E_VAR && guard < 100000; guard++) {
    Expr *h = buf_of(s, atom);
    if (h)
      return h;
    Expr *rhs = varmap_get(rhs_of, atom->var);
    atom = rhs && rhs->kind == E_VAR ? rhs : NULL;
  }
  return NULL;
}

/* The buffer an update's array already has, found through the aliases and
 * updates of this block, when it is one this function allocated: the
 * versions of an array share its buffer (a parameter's buffer is the
 * caller's, which an update may not zero). NULL when there is none yet. */
static Expr *shared_buf(Rev *s, const VarMap *rhs_of, Expr *atom) {
  for (int guard = 0; atom && atom->kind == E_VAR && guard < 100000; guard++) {
    Expr *h = buf_of(s, atom);
    if (h)
      return h->kind == E_VAR && varmap_has(&s->own_bufs, h->var) ? h : NULL;
    Expr *rhs = varmap_get(rhs_of, atom->var);
    if (!rhs)
      return NULL;
    if (rhs->kind == E_GET) {
      Expr *t = shared_buf_handle(s, rhs_of, rhs->args[0]);
      Expr *f = t && t->kind == E_TUPLE ? t->args[rhs->index] : NULL;
      return f && f->kind == E_VAR && varmap_has(&s->own_bufs, f->var) ? f : NULL;
    }
    atom = rhs->kind == E_VAR ? rhs : rhs->kind == E_UPDATE ? rhs->args[0] : NULL;
  }
  return NULL;
}

static int count_uses(Rev *s, Var *v) {
  return (int)(long)varmap_get(&s->uses, v);
}

static const char *array_producer_message(Rev *s, const Expr *rhs) {
  switch (rhs->kind) {
  case E_CALL:
    return arena_printf(s->a, "call to '%s', which writes output arrays: not supported yet",
                        rhs->name);
  case E_IF:
    return "an array chosen or written under a condition: not supported yet";
  case E_FOLD:
  case E_WHILE:
    return "an array carried from one loop iteration to the next: not supported yet";
  default:
    return "an array computed by this construct: not supported yet";
  }
}

/* Gives every active array bound in this block its cotangent buffer before
 * the reverse sweep starts (contributions arrive while the sweep runs).
 * Walks backwards so that a scatter's base, used only there, can share the
 * scatter's buffer, since the base's cotangent is exactly the result's. */
/* The buffers of a loop carrying arrays: per array leaf, the buffer its
 * initial array already shares (a loop nested in a loop's step carries
 * the outer state's arrays, whose cotangents are in the outer buffers), or
 * a fresh one. `init` is the initial value's atom, or NULL when only its
 * handle `ih` is known. */
static Expr *loop_handle(Rev *s, Bindings *reverse, const VarMap *rhs_of, Expr *init, Expr *ih,
                         Expr *val, Type *t, const char *name) {
  if (t->kind == TY_ARRAY) {
    if (!type_is_active(t))
      return NULL;
    Expr *h = init ? shared_buf(s, rhs_of, init) : ih;
    if (h && (h->kind != E_VAR || !varmap_has(&s->own_bufs, h->var)))
      h = NULL;
    return h ? h : alloc_like(s, reverse, val, name);
  }
  if (!has_active_array(t))
    return NULL;
  Expr *tup = init && init->kind == E_VAR ? varmap_get(rhs_of, init->var) : NULL;
  if (tup && tup->kind != E_TUPLE)
    tup = NULL;
  if (init && !tup)
    ih = shared_buf_handle(s, rhs_of, init);
  Expr **parts = arena_alloc(s->a, sizeof(Expr *) * (size_t)t->n);
  for (int j = 0; j < t->n; j++)
    parts[j] = loop_handle(s, reverse, rhs_of, tup ? tup->args[j] : NULL,
                           !tup && ih && ih->kind == E_TUPLE ? ih->args[j] : NULL,
                           ex_get(s->a, j, val), t->elems[j], name);
  return ex_lin(s->a, E_TUPLE, t->n, parts);
}

/* The arrays a branch returns, leaf by leaf, traced through the branch's
 * updates and aliases to what they are versions of: an atom bound outside
 * the branch (or a projection of one), or NULL for an array the branch
 * makes itself. */
static bool same_root(const Expr *a, const Expr *b) {
  if (a->kind != b->kind)
    return false;
  if (a->kind == E_GET)
    return a->index == b->index && same_root(a->args[0], b->args[0]);
  return atom_eq(a, b);
}

/* The value a branch's result atom stands for: its right-hand side in the
 * branch, or the atom itself when it is a tuple (or a projection) written
 * in place; NULL when it is bound outside the branch. */
static Expr *branch_value(const VarMap *branch_rhs, Expr *atom) {
  if (atom->kind == E_VAR)
    return varmap_get(branch_rhs, atom->var);
  return atom->kind == E_TUPLE || atom->kind == E_GET ? atom : NULL;
}

/* The array leaves of a value bound outside the branch: its own fields
 * (not looked up in the branch again: a projection of it would be taken
 * for a value written in place, and looked into for ever). */
static void outside_roots(Rev *s, Expr *atom, Type *t, PtrVec *roots) {
  if (t->kind == TY_ARRAY) {
    ptrvec_push(s->a, roots, atom);
    return;
  }
  for (int j = 0; t->kind == TY_TUPLE && j < t->n; j++)
    if (array_leaf_count(t->elems[j])) {
      Expr *field = ex_get(s->a, j, atom);
      field->type = t->elems[j];
      outside_roots(s, field, t->elems[j], roots);
    }
}

static void branch_roots(Rev *s, const VarMap *branch_rhs, Expr *atom, Type *t, PtrVec *roots) {
  int n = array_leaf_count(t);
  Expr *rhs = branch_value(branch_rhs, atom);
  if (!rhs) { /* bound outside the branch */
    outside_roots(s, atom, t, roots);
    return;
  }
  switch (rhs->kind) {
  case E_VAR:
    branch_roots(s, branch_rhs, rhs, t, roots);
    return;
  case E_UPDATE:
    branch_roots(s, branch_rhs, rhs->args[0], t, roots);
    return;
  case E_FOLD:
  case E_WHILE: /* a loop updates its arrays in place (checked when it is reversed) */
    branch_roots(s, branch_rhs, rhs->args[1], t, roots);
    return;
  case E_TUPLE:
    if (t->kind == TY_TUPLE) {
      for (int j = 0; j < rhs->nargs; j++)
        branch_roots(s, branch_rhs, rhs->args[j], t->elems[j], roots);
      return;
    }
    break;
  case E_IF: { /* a nested if: the roots both its branches agree on */
    PtrVec r[2] = {{0}, {0}};
    for (int k = 0; k < 2; k++) {
      VarMap inner = {0};
      for (Expr *e = rhs->args[1 + k]; e->kind == E_LET; e = e->body)
        varmap_put(&inner, e->var, e->args[0]);
      VarMap both = {0};
      varmap_copy_into(&both, branch_rhs);
      varmap_copy_into(&both, &inner);
      branch_roots(s, &both, block_result_atom(rhs->args[1 + k]), t, &r[k]);
      varmap_free(&inner);
      varmap_free(&both);
    }
    for (int j = 0; j < n; j++) {
      Expr *a = j < r[0].len ? r[0].items[j] : NULL, *b = j < r[1].len ? r[1].items[j] : NULL;
      ptrvec_push(s->a, roots, a && b && same_root(a, b) ? a : NULL);
    }
    return;
  }
  case E_GET: {
    Type *tt = rhs->args[0]->type;
    PtrVec all = {0};
    branch_roots(s, branch_rhs, rhs->args[0], tt, &all);
    int from = array_leaf_offset(tt, rhs->index);
    for (int j = 0; j < n; j++)
      ptrvec_push(s->a, roots, from + j < all.len ? all.items[from + j] : NULL);
    return;
  }
  default:
    break;
  }
  for (int j = 0; j < n; j++) /* an array the branch makes */
    ptrvec_push(s->a, roots, NULL);
}

/* The buffer of a root: a variable's, or a field of a tuple's handle. */
static Expr *root_buf(Rev *s, const VarMap *rhs_of, Expr *root) {
  if (root->kind == E_GET) {
    /* a field of a tuple this block builds (a loop's initial state) */
    Expr *tup = root->args[0]->kind == E_VAR ? varmap_get(rhs_of, root->args[0]->var) : NULL;
    if (tup && tup->kind == E_TUPLE && root->index < tup->nargs)
      return root_buf(s, rhs_of, tup->args[root->index]);
    Expr *h = root_buf(s, rhs_of, root->args[0]);
    return h && h->kind == E_TUPLE ? h->args[root->index] : NULL;
  }
  /* through this block's aliases, whose buffers are resolved only after
   * the backward walk: the projections of a loop's state, say */
  for (int guard = 0; root && root->kind == E_VAR && guard < 100000; guard++) {
    Expr *h = buf_of(s, root);
    if (h)
      return h;
    Expr *rhs = varmap_get(rhs_of, root->var);
    if (!rhs)
      return NULL;
    if (rhs->kind == E_GET) {
      Expr *t = root_buf(s, rhs_of, rhs->args[0]);
      return t && t->kind == E_TUPLE ? t->args[rhs->index] : NULL;
    }
    root = rhs->kind == E_VAR ? rhs : rhs->kind == E_UPDATE ? rhs->args[0] : NULL;
  }
  return NULL;
}

static void block_rhs(Expr *e, VarMap *out) {
  for (; e->kind == E_LET; e = e->body)
    varmap_put(out, e->var, e->args[0]);
}

/* Per array leaf of a branch's result, the variable of the branch that
 * makes it (found through the branch's aliases, updates, loops and tuples,
 * or a nested if yielding one array not from outside), or NULL when the
 * leaf is a version of an array from outside the branch or is made some
 * other way. */
static void branch_made(Rev *s, const VarMap *branch_rhs, Expr *atom, Type *t, PtrVec *made) {
  int n = array_leaf_count(t);
  Expr *rhs = branch_value(branch_rhs, atom);
  switch (rhs ? rhs->kind : E_IF) {
  case E_VAR:
    branch_made(s, branch_rhs, rhs, t, made);
    return;
  case E_UPDATE:
    branch_made(s, branch_rhs, rhs->args[0], t, made);
    return;
  case E_FOLD:
  case E_WHILE:
    branch_made(s, branch_rhs, rhs->args[1], t, made);
    return;
  case E_TUPLE:
    if (t->kind == TY_TUPLE) {
      for (int j = 0; j < rhs->nargs; j++)
        branch_made(s, branch_rhs, rhs->args[j], t->elems[j], made);
      return;
    }
    break;
  case E_GET: {
    PtrVec all = {0};
    branch_made(s, branch_rhs, rhs->args[0], rhs->args[0]->type, &all);
    int from = array_leaf_offset(rhs->args[0]->type, rhs->index);
    for (int j = 0; j < n; j++)
      ptrvec_push(s->a, made, from + j < all.len ? all.items[from + j] : NULL);
    return;
  }
  case E_BUILD:
  case E_ALLOC:
  case E_SCATTER:
    if (t->kind == TY_ARRAY) {
      ptrvec_push(s->a, made, atom);
      return;
    }
    break;
  case E_IF:
    if (t->kind == TY_ARRAY) {
      /* a nested if that is not a version of one array from outside: its
       * own if_buffers gives its branches the buffer given to it */
      PtrVec roots = {0};
      branch_roots(s, branch_rhs, atom, t, &roots);
      ptrvec_push(s->a, made, roots.len == 1 && roots.items[0] ? NULL : atom);
      return;
    }
    break;
  default:
    break;
  }
  for (int j = 0; j < n; j++)
    ptrvec_push(s->a, made, NULL);
}

/* The buffer of one array leaf of an if's result: that of the array both
 * branches return a version of (one this function allocated, or given to
 * that array now when it is made in this block and has none yet). */
static Expr *if_leaf_buffer(Rev *s, Bindings *reverse, const VarMap *fresh, const VarMap *rhs_of,
                            Var *x, Expr *r1, Expr *r2, Expr *m1, Expr *m2,
                            Expr *have, Expr *val, Loc loc, const char *name) {
  if (!r1 && !r2 && m1 && m2) {
    /* each branch makes the array: whichever runs, its array's cotangent
     * is the if result's, in one buffer */
    Expr *h = have ? have : alloc_like(s, reverse, val, name);
    varmap_put(&s->bufs, m1->var, h);
    varmap_put(&s->bufs, m2->var, h);
    return h;
  }
  if ((m1 && !r1 && r2 && !m2) || (m2 && !r2 && r1 && !m1)) {
    /* one branch makes it, the other passes an array from outside on */
    Expr *h = have ? have : alloc_like(s, reverse, val, name);
    varmap_put(&s->bufs, (m1 ? m1 : m2)->var, h);
    IfPass *p = arena_alloc(s->a, sizeof *p);
    *p = (IfPass){.branch = m1 ? 1 : 0, .root = m1 ? r2 : r1, .h = h, .val = val};
    PtrVec *passes = varmap_get(&s->if_pass, x);
    if (!passes) {
      passes = arena_alloc(s->a, sizeof *passes);
      *passes = (PtrVec){0};
      varmap_put(&s->if_pass, x, passes);
    }
    ptrvec_push(s->a, passes, p);
    return h;
  }
  if (!r1 || !r2 || !atom_eq(r1->kind == E_GET ? r1->args[0] : r1, r2->kind == E_GET ? r2->args[0] : r2) ||
      (r1->kind == E_GET) != (r2->kind == E_GET) || (r1->kind == E_GET && r1->index != r2->index)) {
    fail(s, loc, "an array made or chosen under a condition cannot be differentiated in "
                 "reverse mode yet");
    return NULL;
  }
  Expr *h = root_buf(s, rhs_of, r1);
  if (h) {
    if (h->kind != E_VAR || !varmap_has(&s->own_bufs, h->var) || (have && !atom_eq(have, h))) {
      fail(s, loc, "an input array updated under a condition cannot be differentiated in "
                   "reverse mode yet");
      return NULL;
    }
    return h;
  }
  if (r1->kind != E_VAR || !varmap_has(fresh, r1->var)) {
    fail(s, loc, "an array updated under a condition cannot be differentiated in reverse "
                 "mode yet");
    return NULL;
  }
  h = have ? have : alloc_like(s, reverse, val, name);
  varmap_put(&s->bufs, r1->var, h);
  return h;
}

/* The array leaves of a value, as projections of its atom. */
static void array_leaf_vals(Rev *s, Expr *val, Type *t, PtrVec *out) {
  if (t->kind == TY_ARRAY) {
    ptrvec_push(s->a, out, val);
    return;
  }
  for (int j = 0; t->kind == TY_TUPLE && j < t->n; j++)
    if (array_leaf_count(t->elems[j]))
      array_leaf_vals(s, ex_get(s->a, j, val), t->elems[j], out);
}

/* The leaves of an if's result, for its buffers: the roots and made arrays
 * of each branch, the buffer a leaf already has (an output's seed, on an
 * alias of it), and the leaves' values. */
typedef struct IfLeaves {
  PtrVec roots[2], made[2], have, vals;
} IfLeaves;

static Expr *if_tuple_handle(Rev *s, Bindings *reverse, const VarMap *fresh,
                             const VarMap *rhs_of, Var *x, const IfLeaves *l, int *k, Type *t, Loc loc,
                             const char *name) {
  if (t->kind == TY_ARRAY) {
    int j = (*k)++;
    if (!type_is_active(t))
      return NULL;
    return if_leaf_buffer(s, reverse, fresh, rhs_of, x, l->roots[0].items[j], l->roots[1].items[j],
                          l->made[0].items[j], l->made[1].items[j], l->have.items[j],
                          l->vals.items[j], loc, name);
  }
  if (t->kind != TY_TUPLE || !array_leaf_count(t))
    return NULL;
  Expr **parts = arena_alloc(s->a, sizeof(Expr *) * (size_t)t->n);
  for (int j = 0; j < t->n; j++)
    parts[j] = if_tuple_handle(s, reverse, fresh, rhs_of, x, l, k, t->elems[j], loc, name);
  return ex_lin(s->a, E_TUPLE, t->n, parts);
}

/* An if whose result holds arrays that its branches update: their buffers
 * are those of the arrays updated (DESIGN 8.13). */
static void if_buffers(Rev *s, Bindings *reverse, const VarMap *fresh, const VarMap *rhs_of, Var *x,
                       Expr *rhs) {
  /* a block differentiated again (a loop's step, once per reverse that
   * recomputes it) passes into this instance's buffers, not into those of
   * the instances before, which are out of scope here (gen seed 241207) */
  varmap_put(&s->if_pass, x, NULL);
  IfLeaves l = {0};
  for (int k = 0; k < 2; k++) {
    VarMap m = {0};
    block_rhs(rhs->args[1 + k], &m);
    branch_roots(s, &m, block_result_atom(rhs->args[1 + k]), x->type, &l.roots[k]);
    branch_made(s, &m, block_result_atom(rhs->args[1 + k]), x->type, &l.made[k]);
    varmap_free(&m);
  }
  if (x->type->kind == TY_ARRAY) {
    PtrVec *seeds = varmap_get(&s->if_seeds, x);
    Expr *have = seeds ? seeds->items[0] : varmap_get(&s->bufs, x);
    Expr *h = if_leaf_buffer(s, reverse, fresh, rhs_of, x, l.roots[0].items[0], l.roots[1].items[0],
                             l.made[0].items[0], l.made[1].items[0], have,
                             ex_var(s->a, x), rhs->loc, bname(s, x));
    if (h)
      varmap_put(&s->bufs, x, h);
    return;
  }
  array_leaf_vals(s, ex_var(s->a, x), x->type, &l.vals);
  PtrVec *seeds = varmap_get(&s->if_seeds, x); /* outputs' seeds */
  for (int j = 0; j < l.vals.len; j++)
    ptrvec_push(s->a, &l.have, seeds && j < seeds->len ? seeds->items[j] : NULL);
  int k = 0;
  Expr *h = if_tuple_handle(s, reverse, fresh, rhs_of, x, &l, &k, x->type, rhs->loc, bname(s, x));
  if (!s->failed)
    varmap_put(&s->bufs, x, h);
}

/* Does a branch of an if whose result is one array make that array (each
 * branch, or one while the other passes an array from outside on)? */
static bool branches_make(Rev *s, Expr *rhs) {
  bool any = false;
  for (int k = 0; k < 2; k++) {
    VarMap m = {0};
    PtrVec made = {0};
    block_rhs(rhs->args[1 + k], &m);
    branch_made(s, &m, block_result_atom(rhs->args[1 + k]), rhs->type, &made);
    varmap_free(&m);
    any = any || (made.len == 1 && made.items[0]);
  }
  return any;
}

/* A loop's initial arrays made in this block use the loop's buffers: the
 * cotangent of the initial state is that of the state before step 0. */
static void share_with_init(Rev *s, const VarMap *rhs_of, const VarMap *fresh, Expr *init,
                            Expr *h) {
  if (!h || init->kind != E_VAR)
    return;
  if (h->kind == E_VAR) {
    if (varmap_has(fresh, init->var) && !varmap_get(&s->bufs, init->var))
      varmap_put(&s->bufs, init->var, h);
    return;
  }
  Expr *rhs = varmap_get(rhs_of, init->var);
  if (rhs && rhs->kind == E_TUPLE && rhs->nargs == h->nargs)
    for (int j = 0; j < rhs->nargs; j++)
      share_with_init(s, rhs_of, fresh, rhs->args[j], h->args[j]);
}

/* The array an update consumes, `a`, shares the update's buffer `h` when
 * this block makes it, also through let-aliases (`let proj = out` of an
 * inlined callee's in-out parameter): one buffer for all versions, as the
 * logged updates of a loop body need. */
static void share_with_versions(Rev *s, const VarMap *fresh, const VarMap *rhs_of, Var *a,
                                Expr *h) {
  Var *chain[64];
  int n = 0;
  for (Var *v = a; v && n < 64 && !varmap_get(&s->bufs, v);) {
    chain[n++] = v;
    if (varmap_has(fresh, v)) {
      for (int j = 0; j < n; j++)
        varmap_put(&s->bufs, chain[j], h);
      return;
    }
    Expr *rhs = varmap_get(rhs_of, v);
    v = rhs && rhs->kind == E_VAR ? rhs->var : NULL;
  }
}

/* The buffers the passing branches of this block's ifs add into (IfPass),
 * now that every array of the block has one. */
static void pass_targets(Rev *s, const Bindings *b) {
  VarMap rhs_of = {0};
  for (int i = 0; i < b->vars.len; i++)
    varmap_put(&rhs_of, b->vars.items[i], b->rhss.items[i]);
  for (int i = 0; i < b->vars.len && !s->failed; i++) {
    PtrVec *passes = varmap_get(&s->if_pass, (Var *)b->vars.items[i]);
    Expr *rhs = b->rhss.items[i];
    for (int j = 0; passes && j < passes->len; j++) {
      IfPass *p = passes->items[j];
      p->target = root_buf(s, &rhs_of, p->root);
      if (!p->target || p->target->kind != E_VAR) {
        fail(s, rhs->loc, "an array made or chosen under a condition cannot be differentiated "
                          "in reverse mode yet");
      } else if (!varmap_has(&s->own_bufs, p->target->var) &&
                 expr_contains(rhs->args[1 + p->branch], E_UPDATE)) {
        fail(s, rhs->loc, "an input array updated under a condition cannot be differentiated in "
                          "reverse mode yet");
      }
    }
  }
  varmap_free(&rhs_of);
}

static void make_buffers(Rev *s, const Bindings *b, Bindings *reverse) {
  VarMap fresh = {0}; /* arrays this block makes (not copies, not parameters) */
  VarMap rhs_of = {0};
  for (int i = 0; i < b->vars.len; i++) {
    ExprKind k = ((Expr *)b->rhss.items[i])->kind;
    varmap_put(&rhs_of, b->vars.items[i], b->rhss.items[i]);
    if (k == E_ALLOC || k == E_BUILD || k == E_UPDATE || k == E_SCATTER ||
        (k == E_IF && ((Var *)b->vars.items[i])->type->kind == TY_ARRAY))
      varmap_put(&fresh, b->vars.items[i], b->vars.items[i]);
  }
  /* Loops and ifs that carry or update arrays first, in order: their
   * buffers are those of the arrays they start from (DESIGN 8.13), which
   * a later loop or if may start from in turn. */
  for (int i = 0; i < b->vars.len && !s->failed; i++) {
    Var *x = b->vars.items[i];
    Expr *rhs = b->rhss.items[i];
    if (rhs->kind == E_IF && x->type->kind == TY_ARRAY && varmap_get(&s->bufs, x) &&
        branches_make(s, rhs)) {
      if_buffers(s, reverse, &fresh, &rhs_of, x, rhs); /* the seed serves both */
      continue;
    }
    if (!has_active_array(x->type) || varmap_get(&s->bufs, x))
      continue;
    if (rhs->kind == E_FOLD || rhs->kind == E_WHILE) {
      Expr *h = loop_handle(s, reverse, &rhs_of, rhs->args[1], NULL, ex_var(s->a, x), x->type,
                            bname(s, x));
      varmap_put(&s->bufs, x, h);
      share_with_init(s, &rhs_of, &fresh, rhs->args[1], h);
    } else if (rhs->kind == E_IF) {
      if_buffers(s, reverse, &fresh, &rhs_of, x, rhs);
    }
  }
  for (int i = b->vars.len - 1; i >= 0; i--) {
    Var *x = b->vars.items[i];
    Expr *rhs = b->rhss.items[i];
    if (!has_active_array(x->type))
      continue;
    if (!varmap_get(&s->bufs, x)) {
      /* an update's array, or a scatter's base, whose buffer is known
       * already (a version of an array made here, or the field of a loop's
       * state, whose buffer the loops above got first): the result is a
       * version of it and shares that buffer. A scatter's base given no
       * buffer yet gets the scatter's below. */
      Expr *shared = rhs->kind == E_UPDATE || rhs->kind == E_SCATTER
                         ? shared_buf(s, &rhs_of, rhs->args[0])
                         : NULL;
      switch (shared ? E_VAR : rhs->kind) {
      case E_IF:
        if_buffers(s, reverse, &fresh, &rhs_of, x, rhs);
        break;
      case E_FOLD:
      case E_WHILE: {
        Expr *h = loop_handle(s, reverse, &rhs_of, rhs->args[1], NULL, ex_var(s->a, x), x->type,
                              bname(s, x));
        varmap_put(&s->bufs, x, h);
        share_with_init(s, &rhs_of, &fresh, rhs->args[1], h);
        break;
      }
      case E_ALLOC:
      case E_UPDATE:
      case E_BUILD:
      case E_SCATTER:
        if (x->type->kind == TY_ARRAY) {
          varmap_put(&s->bufs, x, alloc_like(s, reverse, ex_var(s->a, x), bname(s, x)));
        } else {
          Expr **parts = arena_alloc(s->a, sizeof(Expr *) * (size_t)x->type->n);
          for (int j = 0; j < x->type->n; j++) {
            Expr *field = ex_get(s->a, j, ex_var(s->a, x));
            if (has_active_array(x->type->elems[j]))
              parts[j] = alloc_like(s, reverse, field, bname(s, x));
          }
          /* a handle, not a value: fields may be NULL (inactive) */
          varmap_put(&s->bufs, x, ex_lin(s->a, E_TUPLE, x->type->n, parts));
        }
        break;
      case E_CALL: {
        Func *g = custom_writer(s, rhs);
        if (!g) {
          fail(s, rhs->loc, array_producer_message(s, rhs));
          varmap_free(&fresh);
          varmap_free(&rhs_of);
          return;
        }
        /* each array it writes is a version of the fresh array it
         * consumes: one buffer for both (DESIGN 8.25) */
        Expr **parts = arena_alloc(s->a, sizeof(Expr *) * (size_t)x->type->n);
        for (int p = 0, j = 1; p < g->nparams; p++) {
          if (!func_param_written(g, p))
            continue;
          Expr *field = ex_get(s->a, j, ex_var(s->a, x));
          field->type = x->type->elems[j];
          Expr *h = shared_buf(s, &rhs_of, rhs->args[p]);
          for (int q = i + 1; q < b->vars.len && !h; q++) { /* a scatter gave its own */
            Expr *r = b->rhss.items[q];
            if (r->kind == E_GET && r->index == j && r->args[0]->kind == E_VAR &&
                r->args[0]->var == x)
              h = varmap_get(&s->bufs, (Var *)b->vars.items[q]);
          }
          if (!h)
            h = alloc_like(s, reverse, field, bname(s, x));
          if (rhs->args[p]->kind == E_VAR)
            share_with_versions(s, &fresh, &rhs_of, rhs->args[p]->var, h);
          parts[j++] = h;
        }
        varmap_put(&s->bufs, x, ex_lin(s->a, E_TUPLE, x->type->n, parts));
        break;
      }
      case E_TABLE:
        /* a constant: no cotangent, so its reads add nowhere; a callee it
         * is passed to adds into a buffer nobody reads */
        if (expr_passes_array(s->body, x)) {
          Expr *h = alloc_like(s, reverse, ex_var(s->a, x), bname(s, x));
          varmap_put(&s->bufs, x, h);
          varmap_put(&s->discard, h->var, h->var);
        }
        break;
      case E_VIEW:
        break; /* the same view of the array's buffer, below */
      case E_VAR:
        if (shared)
          varmap_put(&s->bufs, x, shared);
        break;
      case E_GET:
      case E_TUPLE:
        break; /* aliases: resolved below, once the source has a buffer */
      default:
        fail(s, rhs->loc, array_producer_message(s, rhs));
        varmap_free(&fresh);
        varmap_free(&rhs_of);
        return;
      }
    }
    if (rhs->kind == E_SCATTER && rhs->args[0]->kind == E_VAR &&
        count_uses(s, rhs->args[0]->var) == 1) {
      /* through the names the base is passed on by (an inlined callee's
       * output), to the array that makes it: an alias's buffer would not
       * reach it */
      Expr *src = output_producer(s, &rhs_of, rhs->args[0]);
      if (!varmap_get(&s->bufs, src->var))
        varmap_put(&s->bufs, src->var, varmap_get(&s->bufs, x));
    }
    /* the versions of an array made here share one buffer, updated in
     * place like the array; a parameter or a copy keeps its own */
    if (rhs->kind == E_UPDATE && rhs->args[0]->kind == E_VAR)
      share_with_versions(s, &fresh, &rhs_of, rhs->args[0]->var, varmap_get(&s->bufs, x));
  }
  varmap_free(&fresh);
  varmap_free(&rhs_of);
  for (int i = 0; i < b->vars.len; i++) {
    Var *x = b->vars.items[i];
    Expr *rhs = b->rhss.items[i];
    if (!has_active_array(x->type) || varmap_get(&s->bufs, x))
      continue;
    Expr *src = NULL;
    if (rhs->kind == E_VIEW) {
      /* contributions through the view add into the array's buffer */
      Expr *whole = buf_of(s, rhs->args[0]);
      if (!whole)
        continue;
      Expr *h = bind(s, reverse, bname(s, x), ex_view(s->a, whole, rhs->args[1]));
      varmap_put(&s->bufs, x, h);
      if (whole->kind == E_VAR && varmap_has(&s->discard, whole->var))
        varmap_put(&s->discard, h->var, h->var);
      continue;
    }
    if (rhs->kind == E_TUPLE) {
      Expr **parts = arena_alloc(s->a, sizeof(Expr *) * (size_t)(rhs->nargs ? rhs->nargs : 1));
      for (int j = 0; j < rhs->nargs; j++)
        parts[j] = has_active_array(rhs->args[j]->type) ? buf_of(s, rhs->args[j]) : NULL;
      src = ex_lin(s->a, E_TUPLE, rhs->nargs, parts);
    } else {
      src = buf_of(s, rhs->kind == E_GET ? rhs->args[0] : rhs);
      if (src && rhs->kind == E_GET)
        src = src->kind == E_TUPLE ? src->args[rhs->index] : NULL;
    }
    if (src)
      varmap_put(&s->bufs, x, src);
  }
  pass_targets(s, b);
}

/* A loop step's contributions to scalars outside the loop, summed into
 * `out`: the variables in `outer`, their sums in `vals`. False when one
 * is not a float (a tuple from outside the loop). */
static bool sum_outer(Rev *s, Layer *layer, Bindings *out, PtrVec *outer, PtrVec *vals) {
  bool ok = true;
  for (int i = 0; i < layer->order.len; i++) {
    Var *v = layer->order.items[i];
    Contrib *c = varmap_get(&layer->contribs, v);
    if (!c)
      continue;
    if (!type_is_float(v->type)) {
      ok = false;
      continue;
    }
    ptrvec_push(s->a, outer, v);
    ptrvec_push(s->a, vals, bind(s, out, bname(s, v), sum_contribs(s, v, c)));
  }
  return ok;
}

/* The reverse of a loop body: the body's primal recomputed, then its
 * reverse sweep for the cotangent `ct` of its result. Contributions to
 * scalars outside the loop are returned in `outer` (Var*) and `vals`
 * (atoms), for the loop to sum; arrays outside receive theirs in place. */
static void reverse_body(Rev *s, Expr *body, Expr *ct, Bindings *out, PtrVec *outer,
                         PtrVec *vals, Var *state, Expr **state_ct) {
  Layer layer = {.parent = s->layer};
  s->layer = &layer;
  Bindings rev = {0};
  s->nesting++;
  s->loop_reverses++;
  rev_block(s, body, ct, out, &rev);
  s->loop_reverses--;
  s->nesting--;
  for (int i = 0; i < rev.vars.len; i++)
    bindings_push(s->a, out, rev.vars.items[i], rev.rhss.items[i]);
  if (state) {
    Contrib *c = take_contribs(s, state);
    *state_ct = c ? bind(s, out, bname(s, state), sum_contribs(s, state, c))
                  : ex_zero(s->a, type_tangent(s->a, state->type));
  }
  s->layer = layer.parent;
  if (!sum_outer(s, &layer, out, outer, vals))
    fail(s, body->loc, "a loop body uses a tuple from outside the loop: not supported yet");
  varmap_free(&layer.contribs);
}

static Type *scalar_tuple_type(Rev *s, const PtrVec *vars) {
  Type **ts = arena_alloc(s->a, sizeof(Type *) * (size_t)(vars->len ? vars->len : 1));
  for (int i = 0; i < vars->len; i++)
    ts[i] = ((Var *)vars->items[i])->type;
  return ty_tuple(s->a, vars->len, ts);
}

/* A reverse loop `sum n (k) body` returning the outer contributions, which
 * are added to the outer variables after it. */
static void reverse_as_sum(Rev *s, Expr *n, Var *k, Bindings *bodyb, PtrVec *outer,
                           PtrVec *vals, Bindings *out, const char *name) {
  Expr *res = ex_tuple(s->a, vals->len, (Expr **)vals->items);
  res->type = scalar_tuple_type(s, outer);
  Expr *loop = ex_sum(s->a, n, k, bindings_build(s->a, bodyb, res));
  loop->type = res->type;
  loop->free_order = 1;
  Expr *rc = bind(s, out, name, loop);
  for (int i = 0; i < outer->len; i++)
    add_contrib(s, ex_var(s->a, outer->items[i]), -1, ex_get(s->a, i, rc));
}

static Expr *index_buffers(Rev *s, Expr *h, Expr *k, Type *elem_type) {
  if (h->kind != E_TUPLE)
    return ex_index(s->a, h, k);
  PtrVec parts = {0};
  for (int j = 0; j < h->nargs; j++)
    if (h->args[j])
      ptrvec_push(s->a, &parts, ex_index(s->a, h->args[j], k));
  (void)elem_type;
  return ex_tuple(s->a, parts.len, (Expr **)parts.items);
}

static void backprop_build(Rev *s, Var *x, Expr *rhs, Bindings *out) {
  Expr *h = varmap_get(&s->bufs, x);
  if (!h)
    return;
  Bindings bodyb = {0};
  Expr *ct = bind(s, &bodyb, "ct", index_buffers(s, h, ex_var(s->a, rhs->var), rhs->body->type));
  PtrVec outer = {0}, vals = {0};
  reverse_body(s, rhs->body, ct, &bodyb, &outer, &vals, NULL, NULL);
  reverse_as_sum(s, rhs->args[0], rhs->var, &bodyb, &outer, &vals, out,
                 arena_printf(s->a, "%s_rev", x->name));
}

static void backprop_sum(Rev *s, Var *x, Expr *rhs, Expr *ct, Bindings *out) {
  EagerSum *es = varmap_get(&s->eager, x);
  if (es) {
    backprop_eager_sum(s, rhs, es, ct, out);
    return;
  }
  if (rhs->nargs == 2) /* sum-from: the initial value is added unchanged */
    add_contrib(s, rhs->args[1], -1, ct);
  Bindings bodyb = {0};
  PtrVec outer = {0}, vals = {0};
  reverse_body(s, rhs->body, ct, &bodyb, &outer, &vals, NULL, NULL);
  reverse_as_sum(s, rhs->args[0], rhs->var, &bodyb, &outer, &vals, out,
                 arena_printf(s->a, "%s_rev", x->name));
}

/* scatter: the base's cotangent is the result's; each added value's is the
 * result's cotangent at its index (a gather). */
static void backprop_scatter(Rev *s, Var *x, Expr *rhs, Bindings *out) {
  Expr *h = varmap_get(&s->bufs, x);
  if (!h)
    return;
  if (h->kind == E_TUPLE) {
    fail(s, rhs->loc, "scatter into several arrays at once cannot be differentiated yet");
    return;
  }
  Expr *base = rhs->args[0];
  Expr *hb = buf_of(s, base);
  if (hb && hb != h) { /* hb += h, element-wise, once */
    Var *j = var_new(s->a, nameset_fresh(s->names, s->a, "j"), ty_int());
    Bindings cb = {0};
    bind(s, &cb, "acc", ex_accum(s->a, hb, ex_var(s->a, j), ex_index(s->a, h, ex_var(s->a, j))));
    Expr *loop = ex_sum(s->a, ex_len(s->a, ex_var(s->a, x)), j,
                        bindings_build(s->a, &cb, ex_tuple(s->a, 0, NULL)));
    bind(s, out, "copy", loop);
  }
  Expr *pair = rhs->body;
  while (pair->kind == E_LET)
    pair = pair->body;
  Expr *ct = ex_tuple(s->a, 1, (Expr *[]){ex_index(s->a, h, ex_get(s->a, 0, pair))});
  Bindings bodyb = {0};
  PtrVec outer = {0}, vals = {0};
  reverse_body(s, rhs->body, ct, &bodyb, &outer, &vals, NULL, NULL);
  reverse_as_sum(s, rhs->args[1], rhs->var, &bodyb, &outer, &vals, out,
                 arena_printf(s->a, "%s_rev", x->name));
}

/* Leaves of a state read back from a fold tape: scalar leaf j before step
 * k is at tape[k*L + j], stored as f64. Its arrays are the loop's memory,
 * given back by the undo log as they were before step k: `arrays` holds
 * them in leaf order. */
static Expr *unpack_state(Rev *s, Bindings *out, Expr *tape, Expr *k, Type *t, int nleaves,
                          int *leaf, const PtrVec *arrays, int *array_leaf) {
  if (t->kind == TY_TUPLE) {
    Expr **parts = arena_alloc(s->a, sizeof(Expr *) * (size_t)(t->n ? t->n : 1));
    for (int i = 0; i < t->n; i++)
      parts[i] = unpack_state(s, out, tape, k, t->elems[i], nleaves, leaf, arrays, array_leaf);
    Expr *tup = ex_tuple(s->a, t->n, parts);
    return bind(s, out, "sv", tup);
  }
  if (t->kind == TY_ARRAY)
    return arrays->items[(*array_leaf)++];
  Expr *pos = ex_prim2(s->a, P_ADD, ex_prim2(s->a, P_MUL, k, ex_int(s->a, nleaves)),
                       ex_int(s->a, (*leaf)++));
  Expr *v = ex_index(s->a, tape, pos);
  if (t->kind == TY_INT) /* its bits, exactly (E_FOLDSAVE) */
    v = ex_prim1(s->a, prim_cast_to(t), ex_prim1(s->a, P_BITS_LLONG, v));
  else if (t->kind == TY_F32)
    v = ex_prim1(s->a, prim_cast_to(t), v);
  return bind(s, out, "sv", v);
}

/* The scalar leaves of a state: what a fold-save's tape holds per step. */
static int count_leaves(const Type *t) {
  if (t->kind == TY_ARRAY)
    return 0;
  if (t->kind != TY_TUPLE)
    return 1;
  int n = 0;
  for (int i = 0; i < t->n; i++)
    n += count_leaves(t->elems[i]);
  return n;
}

/* The array leaves of the atom `v` of type t, bound as projections. */
static void array_leaves_of(Rev *s, Bindings *out, Expr *v, Type *t, PtrVec *leaves) {
  if (t->kind == TY_ARRAY) {
    ptrvec_push(s->a, leaves, v);
    return;
  }
  if (t->kind != TY_TUPLE || t->name)
    return;
  for (int i = 0; i < t->n; i++)
    if (array_leaf_count(t->elems[i]))
      array_leaves_of(s, out, bind(s, out, "arr", ex_get(s->a, i, v)), t->elems[i], leaves);
}

/* A state cotangent (of the tangent type of t) as the flat list of its
 * floating scalars' cotangents, and back: a loop carrying arrays keeps
 * only those in the reverse loop's state (its arrays' cotangents live in
 * their buffers). */
static void flatten_ct(Rev *s, Bindings *out, Expr *ct, Type *t, PtrVec *flat) {
  if (type_is_float(t)) {
    ptrvec_push(s->a, flat, ct);
    return;
  }
  if (t->kind != TY_TUPLE)
    return;
  for (int i = 0; i < t->n; i++)
    if (type_is_active(t->elems[i]) && t->elems[i]->kind != TY_ARRAY)
      flatten_ct(s, out, bind(s, out, "ctf", ex_get(s->a, active_index(t, i), ct)), t->elems[i],
                 flat);
}

static Expr *unflatten_ct(Rev *s, Expr *flat, Type *t, int *k) {
  if (type_is_float(t))
    return ex_get(s->a, (*k)++, flat);
  if (t->kind == TY_ARRAY)
    return ex_zero(s->a, t);
  Type *tt = type_tangent(s->a, t);
  Expr **parts = arena_alloc(s->a, sizeof(Expr *) * (size_t)(tt->n ? tt->n : 1));
  for (int i = 0, j = 0; i < t->n; i++)
    if (type_is_active(t->elems[i]))
      parts[j++] = unflatten_ct(s, flat, t->elems[i], k);
  Expr *tup = ex_tuple(s->a, tt->n, parts);
  tup->type = tt;
  return tup;
}

static Expr *flat_tuple(Rev *s, const PtrVec *flat) {
  Type **ts = arena_alloc(s->a, sizeof(Type *) * (size_t)(flat->len ? flat->len : 1));
  for (int i = 0; i < flat->len; i++)
    ts[i] = ((Expr *)flat->items[i])->type;
  Expr *t = ex_tuple(s->a, flat->len, (Expr **)flat->items);
  t->type = ty_tuple(s->a, flat->len, ts);
  return t;
}

/* The state cotangent carried by the reverse loop: the loop's own
 * cotangent type, or for a loop carrying arrays the flat tuple of its
 * floating scalars' cotangents. */
static Expr *carried_ct(Rev *s, Bindings *out, Expr *ct, Type *st, bool arrays) {
  if (!arrays)
    return ct;
  PtrVec flat = {0};
  flatten_ct(s, out, ct, st, &flat);
  return bind(s, out, "ctf", flat_tuple(s, &flat));
}

static Expr *full_ct(Rev *s, Expr *flat, Type *st, bool arrays) {
  if (!arrays)
    return flat;
  int k = 0;
  return unflatten_ct(s, flat, st, &k);
}

/* After the reverse loop: the initial arrays' own buffers (a parameter's,
 * a copy's) get what the loop's buffers hold, the cotangent of the state
 * before step 0. */
static void give_back_init(Rev *s, Bindings *out, Expr *init, Type *t, Expr *h) {
  if (!h || init->kind != E_VAR)
    return;
  Expr *hi = buf_of(s, init);
  if (t->kind == TY_ARRAY) {
    if (hi && !atom_eq(hi, h))
      add_buffer(s, out, hi, h, init);
    return;
  }
  if (h->kind != E_TUPLE)
    return;
  for (int j = 0; j < t->n; j++) {
    if (!h->args[j])
      continue;
    int before = out->vars.len;
    give_back_init(s, out, bind(s, out, "init", ex_get(s->a, j, init)), t->elems[j], h->args[j]);
    if (out->vars.len == before + 1) { /* nothing given back: no read of the state */
      out->vars.len--;
      out->rhss.len--;
    }
  }
}

/* fold and while: a reverse fold over j = 0..n-1 (n the trip count)
 * visits step k = n-1-j, restores the state before it from the tape,
 * recomputes the step and runs its reverse. Its state is the cotangent of
 * the loop's state and the running sums of the contributions to outer
 * scalars. A while's step also yields whether to go on, an int: its
 * cotangent is that of the next state alone. A loop carrying arrays
 * (DESIGN 8.13) first undoes step k's writes from the undo log, down to
 * the step's mark, so that the recomputation reads what step k read; the
 * step's reverse then leaves them as they were before step k. */
static void finish_reverse_fold(Rev *s, Var *x, Expr *rhs, Bindings *out, Bindings *bodyb, Var *j,
                                Var *rst, Expr *n, Expr *ct0, Type *dst, Expr *next_ct,
                                const PtrVec *outerp, const PtrVec *valsp);

/* The reverse loop of a fold whose steps stored their residuals: step k's
 * reverse takes them back (newest first) and runs the reverse sweep made
 * with the primal; nothing is recomputed and nothing undone (each update's
 * reverse pops its own save). */
static void backprop_stored_fold(Rev *s, Var *x, Expr *rhs, Expr *ct, Bindings *out,
                                 StoreRev *sr) {
  Type *st = rhs->var2->type;
  bool arrays = type_holds_array(st);
  Expr *ct0 = carried_ct(s, out, ct, st, arrays);
  Type *dst = arrays ? ct0->type : type_tangent(s->a, st);
  Var *j = var_new(s->a, nameset_fresh(s->names, s->a, "j"), ty_int());
  Var *rst = var_new(s->a, nameset_fresh(s->names, s->a, "rst"), NULL);
  Bindings bodyb = {0};
  Expr *ct_s = bind(s, &bodyb, "ct", ex_get(s->a, 0, ex_var(s->a, rst)));
  bindings_push(s->a, &bodyb, sr->ct_var, full_ct(s, ct_s, st, arrays));
  Expr *n = rhs->args[0];
  Expr *last = ex_prim2(s->a, P_SUB, n, ex_int(s->a, 1));
  bindings_push(s->a, &bodyb, rhs->var, ex_prim2(s->a, P_SUB, last, ex_var(s->a, j)));
  for (int i = 0; i < sr->again.len; i++)
    bindings_push(s->a, &bodyb, sr->again.items[i], ex_clone_shallow(s->a, sr->again_rhs.items[i]));
  PtrVec carried = {0};
  bool reads_carried = false;
  for (int i = 0; i < sr->origins.len; i++)
    reads_carried = reads_carried || sr->origins.items[i];
  if (reads_carried)
    array_leaves_of(s, &bodyb, ex_var(s->a, x), st, &carried);
  for (int i = sr->residuals.len - 1; i >= 0; i--) {
    Var *v = sr->residuals.items[i];
    int last_leaf = array_leaf_count(v->type) - 1;
    ArrayPush how = {sr->lengths.items[i], sr->views && v->type->kind == TY_ARRAY &&
                                                v->type->elem->kind == TY_F64};
    bindings_push(s->a, &bodyb, v,
                  take_leaves(s, &bodyb, v->type, !varmap_has(&sr->address, v),
                              sr->origins.items[i], &last_leaf, &carried, how));
  }
  for (int i = 0; i < sr->rereads.len; i++)
    bindings_push(s->a, &bodyb, sr->rereads.items[i],
                  ex_clone_shallow(s->a, sr->reread_rhs.items[i]));
  for (int i = 0; i < sr->recalls.len; i++) {
    Var *v = sr->recalls.items[i];
    Expr *pair = bind(s, &bodyb, arena_printf(s->a, "%s_again", v->name),
                      ex_clone_shallow(s->a, sr->recall_calls.items[i]));
    bindings_push(s->a, &bodyb, v, ex_get(s->a, 1, pair));
  }
  for (int i = 0; i < sr->rev.vars.len; i++)
    bindings_push(s->a, &bodyb, sr->rev.vars.items[i], sr->rev.rhss.items[i]);
  Expr *next_ct = carried_ct(s, &bodyb, sr->state_ct, st, arrays);
  finish_reverse_fold(s, x, rhs, out, &bodyb, j, rst, n, ct0, dst, next_ct, &sr->outer, &sr->vals);
}

static void backprop_fold(Rev *s, Var *x, Expr *rhs, Expr *ct, Bindings *out) {
  Expr *as_fold = stored_sum_fold(s, x);
  if (as_fold)
    rhs = as_fold;
  StoreRev *sr = varmap_get(&s->stored, x);
  if (sr) {
    backprop_stored_fold(s, x, rhs, ct, out, sr);
    return;
  }
  Expr *tape = varmap_get(&s->fold_tape, x);
  bool is_while = rhs->kind == E_WHILE;
  Type *st = rhs->var2->type;
  int mark = (int)(long)varmap_get(&s->fold_mark, x);
  bool arrays = mark > 0;
  Expr *x_arrays = NULL;
  if (arrays) {
    PtrVec leaves = {0};
    array_leaves_of(s, out, ex_var(s->a, x), st, &leaves);
    x_arrays = leaves.len == 1 ? leaves.items[0] : bind(s, out, "arrs", flat_tuple(s, &leaves));
    varmap_put(&s->bufs, rhs->var2, varmap_get(&s->bufs, x));
  }
  Expr *ct0 = carried_ct(s, out, ct, st, arrays);
  Type *dst = arrays ? ct0->type : type_tangent(s->a, st);
  Var *j = var_new(s->a, nameset_fresh(s->names, s->a, "j"), ty_int());
  Var *rst = var_new(s->a, nameset_fresh(s->names, s->a, "rst"), NULL);
  Bindings bodyb = {0};
  Expr *ct_s = bind(s, &bodyb, "ct", ex_get(s->a, 0, ex_var(s->a, rst)));
  Expr *ct_body = full_ct(s, ct_s, st, arrays);
  if (is_while) {
    Expr *one = ex_tuple(s->a, 1, (Expr *[]){ct_body});
    one->type = type_tangent(s->a, rhs->body->type);
    ct_body = bind(s, &bodyb, "ct", one);
  }
  Expr *n = is_while ? varmap_get(&s->while_count, x) : rhs->args[0];
  Expr *last = ex_prim2(s->a, P_SUB, n, ex_int(s->a, 1));
  bindings_push(s->a, &bodyb, rhs->var, ex_prim2(s->a, P_SUB, last, ex_var(s->a, j)));
  PtrVec before = {0};
  if (arrays) {
    Expr *undone = bind(s, &bodyb, "undone", ex_logundo(s->a, mark, x_arrays));
    if (undone->type->kind == TY_ARRAY)
      ptrvec_push(s->a, &before, undone);
    else
      for (int i = 0; i < undone->type->n; i++)
        ptrvec_push(s->a, &before, bind(s, &bodyb, "arr", ex_get(s->a, i, undone)));
  }
  int leaf = 0, array_leaf = 0;
  Expr *state = unpack_state(s, &bodyb, tape, ex_var(s->a, rhs->var), st, count_leaves(st), &leaf,
                             &before, &array_leaf);
  bindings_push(s->a, &bodyb, rhs->var2, state);
  PtrVec outer = {0}, vals = {0};
  Expr *state_ct;
  reverse_body(s, rhs->body, ct_body, &bodyb, &outer, &vals, rhs->var2, &state_ct);
  Expr *next_ct = carried_ct(s, &bodyb, state_ct, st, arrays);
  finish_reverse_fold(s, x, rhs, out, &bodyb, j, rst, n, ct0, dst, next_ct, &outer, &vals);
}

/* The reverse loop of a fold or while from its step `bodyb` (over j, its
 * state rst), and the contributions after it: to the initial state and to
 * the outer scalars. */
static void finish_reverse_fold(Rev *s, Var *x, Expr *rhs, Bindings *out, Bindings *bodyb, Var *j,
                                Var *rst, Expr *n, Expr *ct0, Type *dst, Expr *next_ct,
                                const PtrVec *outerp, const PtrVec *valsp) {
  Type *st = rhs->var2->type;
  bool arrays = type_holds_array(st) && (varmap_has(&s->fold_mark, x) || varmap_get(&s->stored, x));
  PtrVec outer = *outerp, vals = *valsp;
  Type **ts = arena_alloc(s->a, sizeof(Type *) * (size_t)(outer.len + 1));
  Expr **next = arena_alloc(s->a, sizeof(Expr *) * (size_t)(outer.len + 1));
  Expr **init = arena_alloc(s->a, sizeof(Expr *) * (size_t)(outer.len + 1));
  ts[0] = dst;
  next[0] = next_ct;
  init[0] = ct0;
  for (int i = 0; i < outer.len; i++) {
    Var *v = outer.items[i];
    ts[i + 1] = v->type;
    next[i + 1] = ex_prim2(s->a, P_ADD, ex_get(s->a, i + 1, ex_var(s->a, rst)), vals.items[i]);
    next[i + 1]->free_order = 1;
    init[i + 1] = ex_zero(s->a, v->type);
  }
  Type *rt = ty_tuple(s->a, outer.len + 1, ts);
  rst->type = rt;
  Expr *res = ex_tuple(s->a, outer.len + 1, next);
  res->type = rt;
  Expr *init_t = ex_tuple(s->a, outer.len + 1, init);
  init_t->type = rt;
  Expr *loop = ex_fold(s->a, n, init_t, j, rst, bindings_build(s->a, bodyb, res));
  loop->type = rt;
  loop->loc = rhs->loc;
  Expr *rc = bind(s, out, arena_printf(s->a, "%s_rev", x->name), loop);
  Expr *ct_init = ex_get(s->a, 0, rc);
  if (arrays) {
    ct_init = full_ct(s, bind(s, out, "ct", ct_init), st, true);
    give_back_init(s, out, rhs->args[1], st, varmap_get(&s->bufs, x));
  }
  add_contrib(s, rhs->args[1], -1, ct_init);
  for (int i = 0; i < outer.len; i++)
    add_contrib(s, ex_var(s->a, outer.items[i]), -1, ex_get(s->a, i + 1, rc));
}

static void backprop_index(Rev *s, Expr *rhs, Expr *ct, Bindings *out) {
  Expr *h = buf_of(s, rhs->args[0]);
  if (h && h->kind == E_VAR && varmap_has(&s->discard, h->var))
    return; /* a table's: its cotangent is dropped */
  if (h && type_is_float(rhs->type))
    bind(s, out, "acc", ex_accum(s->a, h, rhs->args[1], ct));
}

static void rename_after(Rev *s, Bindings *out, Var *from, Expr *to) {
  Rename *r = arena_alloc(s->a, sizeof *r);
  r->at = out->vars.len - 1;
  r->from = from;
  r->to = to;
  ptrvec_push(s->a, &s->renames, r);
}

/* ha += h, element-wise, once: the cotangent of a version of an array
 * given back to the buffer of the array it was copied from. */
static void add_buffer(Rev *s, Bindings *out, Expr *ha, Expr *h, Expr *arr) {
  Var *j = var_new(s->a, nameset_fresh(s->names, s->a, "j"), ty_int());
  Bindings cb = {0};
  bind(s, &cb, "acc", ex_accum(s->a, ha, ex_var(s->a, j), ex_index(s->a, h, ex_var(s->a, j))));
  bind(s, out, "add", ex_sum(s->a, ex_len(s->a, arr), j,
                             bindings_build(s->a, &cb, ex_tuple(s->a, 0, NULL))));
}

/* What an element of the cotangent buffer h holds once its cotangent is
 * taken: -0 in a buffer this function made (a cotangent's zero, DESIGN
 * 8.66, which a later accumulation then drops), +0 in the caller's (an
 * in-out parameter's), who reads it. */
static Expr *dropped_zero(Rev *s, Expr *h, Type *t) {
  bool own = h->kind == E_VAR && varmap_has(&s->made_bufs, h->var);
  return ex_const(s->a, t, own ? -0.0 : 0.0);
}

/* The reverse of an update in a branch or a loop body (DESIGN 8.13): the
 * cotangent of the stored value, the overwritten element's cotangent
 * dropped (a store into the shared buffer: a loop's buffers are not
 * versioned), then the old value back from the undo log. */
static void backprop_logged_update(Rev *s, Var *x, Expr *rhs, Bindings *out, bool pop) {
  Expr *a = rhs->args[0], *i = rhs->args[1], *v = rhs->args[2];
  Expr *hx = varmap_get(&s->bufs, x);
  if (hx && hx->kind == E_VAR && type_is_float(v->type)) {
    Expr *ha = buf_of(s, a);
    if (ha && !atom_eq(ha, hx)) {
      fail(s, rhs->loc, "an input array updated under a condition cannot be "
                        "differentiated in reverse mode yet");
      return;
    }
    add_contrib(s, v, -1, bind(s, out, arena_printf(s->a, "%s_b", x->name), ex_index(s->a, hx, i)));
    bind(s, out, "dropped", ex_store(s->a, hx, i, dropped_zero(s, hx, v->type)));
  }
  if (pop)
    bind(s, out, "restored", ex_logpop(s->a));
}

/* The reverse of `x = update a i v` (DESIGN 8.2), everything after it
 * reversed already: the cotangent of v, the dropped cotangent of the
 * overwritten element, then the restore of a's memory. */
static void backprop_update(Rev *s, Var *x, Expr *rhs, Bindings *out) {
  if (varmap_get(&s->unlogged, x) || varmap_has(&s->logged, x)) {
    backprop_logged_update(s, x, rhs, out, !varmap_get(&s->unlogged, x));
    return;
  }
  Expr *a = rhs->args[0], *i = rhs->args[1], *v = rhs->args[2];
  Expr *hx = varmap_get(&s->bufs, x);
  if (hx && hx->kind == E_VAR && type_is_float(v->type)) {
    add_contrib(s, v, -1, bind(s, out, arena_printf(s->a, "%s_b", x->name), ex_index(s->a, hx, i)));
    Expr *zeroed = bind(s, out, arena_printf(s->a, "%s_b", x->name),
                        ex_update(s->a, hx, i, dropped_zero(s, hx, v->type)));
    rename_after(s, out, hx->var, zeroed);
    Expr *ha = buf_of(s, a);
    if (ha && !atom_eq(ha, hx)) { /* a parameter or a copy: ha += x_b, once */
      Var *j = var_new(s->a, nameset_fresh(s->names, s->a, "j"), ty_int());
      Bindings cb = {0};
      bind(s, &cb, "acc", ex_accum(s->a, ha, ex_var(s->a, j), ex_index(s->a, zeroed, ex_var(s->a, j))));
      bind(s, out, "add", ex_sum(s->a, ex_len(s->a, ex_var(s->a, x)), j,
                                 bindings_build(s->a, &cb, ex_tuple(s->a, 0, NULL))));
    }
  }
  if (a->kind != E_VAR)
    return;
  Expr *old = varmap_get(&s->saved, x);
  Expr *restored = bind(s, out, arena_printf(s->a, "%s_r", a->var->name),
                        ex_update(s->a, ex_var(s->a, x), i, old));
  /* the array, under every name of it, is the restored version from here */
  for (Var *n = a->var; n; n = varmap_get(&s->copy_of, n))
    rename_after(s, out, n, restored);
}

/* Applies the renamings of the reverse of updates to the reverse sweep:
 * each from the binding after the one that made the new version. */
static void apply_renames(Rev *s, Bindings *reverse) {
  VarMap cur = {0};
  int r = 0;
  for (int k = 0; k < reverse->vars.len; k++) {
    reverse->rhss.items[k] = expr_subst(s->a, reverse->rhss.items[k], &cur);
    for (; r < s->renames.len && ((Rename *)s->renames.items[r])->at == k; r++) {
      Rename *rn = s->renames.items[r];
      varmap_put(&cur, rn->from, rn->to);
    }
  }
  varmap_free(&cur);
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
  case E_INDEX:
    backprop_index(s, rhs, ct, out);
    return;
  case E_SUM:
    if (stored_sum_fold(s, x))
      backprop_fold(s, x, rhs, ct, out);
    else
      backprop_sum(s, x, rhs, ct, out);
    return;
  case E_FOLD:
  case E_WHILE:
    backprop_fold(s, x, rhs, ct, out);
    return;
  default:
    return; /* constants, tables, len */
  }
}

/* Primal sweep of block e into `primal`, reverse sweep into `reverse`
 * (given the cotangent `ct` of e's result, NULL for none); returns e's
 * result atom. Contributions to variables bound outside e stay recorded in
 * the current layer. */
/* In the step of a sum reversed in the primal sweep, an array built by a
 * body that runs a fold or a while (GMM's main_term, one Qtimesx per
 * element) is built by a fold that updates it instead: a build's reverse
 * runs each element's body again, where a fold's steps store their
 * residuals (8.22), and the step's reverse follows at once, so nothing
 * runs twice (DESIGN 8.35). */
static void builds_as_folds(Rev *s, Bindings *b) {
  Bindings out = {0};
  for (int i = 0; i < b->vars.len; i++) {
    Var *x = b->vars.items[i];
    Expr *rhs = b->rhss.items[i];
    if (rhs->kind != E_BUILD || x->type->kind != TY_ARRAY || !type_is_float(x->type->elem) ||
        !(expr_contains(rhs->body, E_FOLD) || expr_contains(rhs->body, E_WHILE))) {
      bindings_push(s->a, &out, x, rhs);
      continue;
    }
    Expr *a0 = bind(s, &out, arena_printf(s->a, "%s_0", x->name), ex_alloc(s->a, x->type, rhs->args[0]));
    Var *st = var_new(s->a, nameset_fresh(s->names, s->a, x->name), x->type);
    Bindings body;
    bindings_of(s->a, rhs->body, &body);
    Expr *next = bind(s, &body, x->name,
                      ex_update(s->a, ex_var(s->a, st), ex_var(s->a, rhs->var), body.result));
    Expr *loop = ex_fold(s->a, rhs->args[0], a0, rhs->var, st, bindings_build(s->a, &body, next));
    loop->type = x->type;
    loop->loc = rhs->loc;
    bindings_push(s->a, &out, x, loop);
  }
  out.result = b->result;
  *b = out;
}

static Expr *rev_block(Rev *s, Expr *e, Expr *ct, Bindings *primal, Bindings *reverse) {
  Bindings b;
  bindings_of(s->a, e, &b);
  if (s->eager_depth > 0)
    builds_as_folds(s, &b);
  /* Buffers first: the reverse of an if's branch is generated during the
   * primal pass, and it may add into an array bound before the if. */
  make_buffers(s, &b, reverse);
  for (int i = 0; i < b.vars.len; i++)
    primal_binding(s, b.vars.items[i], b.rhss.items[i], primal);
  if (ct)
    add_contrib(s, b.result, -1, ct);
  for (int i = b.vars.len - 1; i >= 0; i--) {
    Var *x = b.vars.items[i];
    Expr *arhs = b.rhss.items[i];
    if (varmap_has(&s->fold_mark, x) || varmap_get(&s->stored, x) ||
        (arhs->kind == E_IF && varmap_has(&s->if_rev, x) &&
         (expr_contains(arhs, E_UPDATE) || has_active_array(x->type) ||
          ((IfRev *)varmap_get(&s->if_rev, x))->logs))) {
      /* a loop carrying arrays runs its reverse even without a scalar
       * cotangent: its arrays' cotangents are in their buffers, and the
       * undo log must give back what it wrote; so does an if whose
       * branches make or update arrays, or push on the log (a stored
       * loop in a branch whose result only a comparison reads: gen seed
       * 193384) */
      Contrib *c = take_contribs(s, x);
      Expr *total = c ? sum_contribs(s, x, c) : ex_zero(s->a, type_tangent(s->a, x->type));
      Expr *ct_x = expr_is_atom(total) ? total : bind(s, reverse, bname(s, x), total);
      if (arhs->kind == E_IF)
        backprop_if(s, x, ct_x, reverse);
      else
        backprop_fold(s, x, arhs, ct_x, reverse);
      continue;
    }
    if (custom_writer(s, arhs)) {
      /* the cotangents of the arrays it wrote are in their buffers */
      Expr *ret_ct = type_is_float(x->type->elems[0]) ? custom_ret_ct(s, x) : NULL;
      backprop_custom_writer(s, x, custom_writer(s, arhs), arhs, ret_ct, reverse);
      continue;
    }
    if (x->type->kind == TY_ARRAY || (arhs->kind == E_BUILD && has_active_array(x->type))) {
      /* array cotangents live in buffers, filled in place by now */
      if (arhs->kind == E_BUILD)
        backprop_build(s, x, arhs, reverse);
      else if (arhs->kind == E_SCATTER)
        backprop_scatter(s, x, arhs, reverse);
      else if (arhs->kind == E_UPDATE)
        backprop_update(s, x, arhs, reverse);
      continue;
    }
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

static void count_use(Var *v, void *ctx) {
  VarMap *uses = ctx;
  varmap_put(uses, v, (void *)((long)varmap_get(uses, v) + 1));
}

/* The cotangent buffers of the output arrays: the caller's seed, read
 * only, or a copy of it when f reads the output after writing it (then
 * contributions arrive in the buffer too). */
/* The variable that makes an output array, through the names it is
 * passed on by, each used once (`r = tuple () y0; y = get 1 r`, as a
 * callee inlined into f returns its output): the seed is its buffer, and
 * the aliases get it from there. */
static Expr *output_producer(Rev *s, const VarMap *rhs_of, Expr *y) {
  for (int guard = 0; y->kind == E_VAR && count_uses(s, y->var) == 1 && guard < 100000; guard++) {
    Expr *rhs = varmap_get(rhs_of, y->var);
    if (rhs && rhs->kind == E_VAR) {
      y = rhs;
      continue;
    }
    if (!rhs || rhs->kind != E_GET || rhs->args[0]->kind != E_VAR ||
        count_uses(s, rhs->args[0]->var) != 1)
      break;
    Expr *tup = varmap_get(rhs_of, rhs->args[0]->var);
    if (!tup || tup->kind != E_TUPLE || tup->args[rhs->index]->kind != E_VAR)
      break;
    y = tup->args[rhs->index];
  }
  return y;
}

/* The right-hand side bound to a block's result variable, or NULL. */
static Expr *result_binding(const Bindings *b) {
  for (int i = b->vars.len - 1; i >= 0 && b->result->kind == E_VAR; i--)
    if (b->vars.items[i] == b->result->var)
      return b->rhss.items[i];
  return NULL;
}

static void seed_outputs(Rev *s, Func *f, PtrVec *seeds, Bindings *reverse) {
  bool any = false; /* an in-out array's seed is its buffer already: NULL */
  for (int j = 0; j < seeds->len; j++)
    any = any || seeds->items[j];
  if (!any)
    return;
  Bindings b;
  bindings_of(s->a, f->body, &b);
  Expr *tup = result_binding(&b);
  if (!tup || tup->kind != E_TUPLE || tup->nargs != seeds->len + 1) {
    fail(s, f->loc, "internal error: output arrays are not returned as a tuple");
    return;
  }
  VarMap rhs_of = {0};
  for (int i = 0; i < b.vars.len; i++)
    varmap_put(&rhs_of, b.vars.items[i], b.rhss.items[i]);
  for (int j = 0; j < seeds->len; j++) {
    Expr *y = tup->args[j + 1], *seed = seeds->items[j];
    if (!seed || y->kind != E_VAR)
      continue;
    y = output_producer(s, &rhs_of, y);
    Expr *made = varmap_get(&rhs_of, y->var);
    if (made && (made->kind == E_GET || made->kind == E_VAR)) {
      /* a seed on an alias would never reach the array's own buffer */
      Expr *src = made->kind == E_GET ? made->args[0] : made;
      Expr *from = src->kind == E_VAR ? varmap_get(&rhs_of, src->var) : NULL;
      if (from && from->kind == E_IF) {
        /* an if's result: its buffers start from the seed (if_buffers) */
        PtrVec *hv = varmap_get(&s->if_seeds, src->var);
        if (!hv) {
          hv = arena_alloc(s->a, sizeof *hv);
          *hv = (PtrVec){0};
          for (int i = 0; i < array_leaf_count(src->type); i++)
            ptrvec_push(s->a, hv, NULL);
          varmap_put(&s->if_seeds, src->var, hv);
        }
        int leaf = made->kind == E_GET ? array_leaf_offset(src->type, made->index) : 0;
        if (leaf < hv->len && !hv->items[leaf]) {
          hv->items[leaf] = seed;
          continue;
        }
      }
      fail(s, f->loc, from && from->kind == E_IF
                          ? "an output array written in the branches of a condition cannot "
                            "be differentiated in reverse mode yet"
                          : "an output array returned under a name it shares with other uses "
                            "cannot be differentiated in reverse mode yet");
      break;
    }
    if (count_uses(s, y->var) == 1) {
      varmap_put(&s->bufs, y->var, seed);
      continue;
    }
    Expr *copy = alloc_like(s, reverse, y, bname(s, y->var));
    Var *k = var_new(s->a, nameset_fresh(s->names, s->a, "k"), ty_int());
    Bindings cb = {0};
    bind(s, &cb, "acc", ex_accum(s->a, copy, ex_var(s->a, k), ex_index(s->a, seed, ex_var(s->a, k))));
    bind(s, reverse, "seed", ex_sum(s->a, ex_len(s->a, y), k,
                                    bindings_build(s->a, &cb, ex_tuple(s->a, 0, NULL))));
    varmap_put(&s->bufs, y->var, copy);
  }
  varmap_free(&rhs_of);
}

/* The cotangent of f's result: ret_b for the returned value; the output
 * arrays' cotangents are their seed buffers, not values. */
static Expr *result_seed(Rev *s, Func *f, Expr *ret_b) {
  if (!func_num_outputs(f))
    return ret_b;
  Type *tt = type_tangent(s->a, f->ret);
  if (!tt)
    return NULL;
  Expr **parts = arena_alloc(s->a, sizeof(Expr *) * (size_t)(tt->n ? tt->n : 1));
  int k = 0;
  for (int i = 0; i < f->ret->n; i++) {
    Type *ft = f->ret->elems[i];
    if (!type_is_active(ft))
      continue;
    parts[k] = i == 0 && ret_b ? ret_b : ex_zero(s->a, tt->elems[k]);
    k++;
  }
  return ex_tuple(s->a, k, parts);
}

/* f's result as a tuple bound last, which seed_outputs and
 * copy_updated_outputs look for: a result that an if (an early return in
 * one branch) or a call makes is taken apart into its fields, so each
 * output array is a `get` of it (DESIGN 8.18: an if's result starts its
 * buffers from the seed). Returns f's body, rewritten when needed. */
static Expr *outputs_as_tuple(Rev *s, Func *f) {
  if (!func_num_outputs(f))
    return f->body;
  Bindings b;
  bindings_of(s->a, f->body, &b);
  Expr *made = result_binding(&b);
  if (made && made->kind == E_TUPLE)
    return f->body;
  Expr *whole = b.result;
  if (whole->kind != E_VAR)
    whole = bind(s, &b, "res", whole);
  Expr **parts = arena_alloc(s->a, sizeof(Expr *) * (size_t)f->ret->n);
  for (int i = 0; i < f->ret->n; i++)
    parts[i] = bind(s, &b, "out", ex_get(s->a, i, whole));
  Expr *tup = ex_tuple(s->a, f->ret->n, parts);
  return bindings_build(s->a, &b, bind(s, &b, "res", tup));
}

/* Output arrays that updates made are copied at the end of f's primal
 * (`y' = build (len y) (k) y[k]`): the reverse sweep's restores undo the
 * updates in y's memory, and the caller must get f's final values. One
 * copy per output array, never per write. Returns f's body, rewritten when
 * needed. */
/* Is y bound by a build at the top level of b and named by nothing but
 * b's result (the last binding)? */
static bool built_for_result(const Bindings *b, Var *y) {
  bool built = false;
  for (int i = 0; i + 1 < b->vars.len; i++) {
    if (b->vars.items[i] == y)
      built = ((Expr *)b->rhss.items[i])->kind == E_BUILD;
    else if (refers_to(b->rhss.items[i], y))
      return false;
  }
  return built;
}

static Expr *copy_updated_outputs(Rev *s, Func *f) {
  if (!func_num_outputs(f) || !expr_contains(f->body, E_UPDATE))
    return f->body;
  Bindings b;
  bindings_of(s->a, f->body, &b);
  Expr *tup = result_binding(&b);
  if (!tup || tup->kind != E_TUPLE)
    return f->body;
  Expr *copy = ex_clone_shallow(s->a, tup);
  bool copied = false;
  /* the classes of the written parameters, in the result's order: an
   * in-out array is made final by running f again (emit/emit_c.c) */
  PtrVec classes = {0};
  for (int i = 0; i < f->nparams; i++)
    if (func_param_written(f, i))
      ptrvec_push(s->a, &classes, (void *)(long)func_param_class(f, i));
  for (int j = 1; j < tup->nargs; j++) {
    Expr *y = tup->args[j];
    if (y->kind != E_VAR || y->type->kind != TY_ARRAY)
      continue;
    if (j - 1 < classes.len && (long)classes.items[j - 1] == PARAM_INOUT_ARRAY)
      continue;
    if (built_for_result(&b, y->var))
      continue; /* no update reaches it, so no restore undoes it */
    copied = true;
    Expr *n = bind(s, &b, "n", ex_len(s->a, y));
    Var *k = var_new(s->a, nameset_fresh(s->names, s->a, "k"), ty_int());
    Bindings body = {0};
    Expr *yk = bind(s, &body, "e", ex_index(s->a, y, ex_var(s->a, k)));
    copy->args[j] = bind(s, &b, arena_printf(s->a, "%s_final", y->var->name),
                         ex_build(s->a, n, k, bindings_build(s->a, &body, yk)));
  }
  if (!copied)
    return f->body;
  Expr *res = bind(s, &b, "res", copy);
  return bindings_build(s->a, &b, res);
}

Func *ad_reverse(Module *m, Func *f, NameSet *param_names, const char *suffix, bool may_store,
                 FILE *dump, bool *eager, Diag *err) {
  Rev s = {.m = m, .a = m->arena, .f = f, .names = param_names, .err = err,
           .may_store = may_store, .dump = dump};
  /* C returns no arrays (lowering passes them as output parameters, whose
   * seeds are the caller's buffers); an IR function that does has no
   * buffer for its result's cotangent, and its seed would be dropped */
  if (type_holds_array(func_num_outputs(f) ? f->ret->elems[0] : f->ret)) {
    diag_set(err, f->loc, "'%s' returns an array: reverse mode takes arrays only as "
                          "output parameters", f->name);
    return NULL;
  }
  Func copied = *f;
  copied.body = outputs_as_tuple(&s, f);
  f = &copied;
  copied.body = copy_updated_outputs(&s, f);
  f = &copied;
  s.body = f->body;
  Layer top = {0};
  s.layer = &top;
  expr_visit_vars(f->body, count_use, &s.uses);
  PtrVec params = {0}, seeds = {0};
  for (int i = 0; i < f->nparams; i++) {
    Var *p = f->params[i];
    ptrvec_push(s.a, &params, p);
    ParamClass cls = func_param_class(f, i);
    bool array = cls == PARAM_IN_ARRAY || cls == PARAM_OUT_ARRAY || cls == PARAM_INOUT_ARRAY;
    if (!array || !type_is_active(p->type)) {
      if (cls == PARAM_OUT_ARRAY || cls == PARAM_INOUT_ARRAY)
        ptrvec_push(s.a, &seeds, NULL);
      continue;
    }
    Var *pb = var_new(s.a, nameset_fresh(param_names, s.a, bname(&s, p)), p->type);
    ptrvec_push(s.a, &params, pb);
    if (cls == PARAM_IN_ARRAY) {
      varmap_put(&s.bufs, p, ex_var(s.a, pb));
    } else if (cls == PARAM_INOUT_ARRAY) {
      /* DESIGN 8.7: p_b holds the seed of p's final values and is every
       * version's buffer, consumed as the reverse sweep goes, so that it
       * ends holding the adjoint of p's initial values */
      varmap_put(&s.bufs, p, ex_var(s.a, pb));
      varmap_put(&s.own_bufs, pb, pb);
      varmap_put(&s.inout, p, p);
      ptrvec_push(s.a, &seeds, NULL);
    } else {
      ptrvec_push(s.a, &seeds, ex_var(s.a, pb));
    }
  }
  Type *ret = func_num_outputs(f) ? f->ret->elems[0] : f->ret;
  Expr *ret_b = NULL;
  if (type_is_active(ret)) {
    Var *rb = var_new(s.a, nameset_fresh(param_names, s.a, "ret_b"), type_tangent(s.a, ret));
    ptrvec_push(s.a, &params, rb);
    ret_b = ex_var(s.a, rb);
  }
  Bindings primal = {0}, reverse = {0};
  s.ret_b = ret_b;
  seed_outputs(&s, f, &seeds, &reverse);
  Expr *r = rev_block(&s, f->body, result_seed(&s, f, ret_b), &primal, &reverse);
  PtrVec cts = {0};
  PtrVec ct_types = {0};
  for (int i = 0; i < f->nparams; i++) {
    Var *p = f->params[i];
    if (func_param_class(f, i) != PARAM_ACTIVE_SCALAR)
      continue;
    Type *tt = type_tangent(s.a, p->type);
    Contrib *c = take_contribs(&s, p);
    Expr *ct = c ? sum_contribs(&s, p, c) : ex_zero(s.a, tt);
    if (!expr_is_atom(ct))
      ct = bind(&s, &reverse, nameset_fresh(param_names, s.a, bname(&s, p)), ct);
    ptrvec_push(s.a, &cts, ct);
    ptrvec_push(s.a, &ct_types, tt);
  }
  apply_renames(&s, &reverse);
  bool inout = false;
  for (int i = 0; i < f->nparams; i++)
    inout = inout || (func_param_class(f, i) == PARAM_INOUT_ARRAY && func_param_active(f, i));
  if (inout) /* where the in-out parameters hold their final values (8.7) */
    bind(&s, &primal, "final", ex_logfinal(s.a));
  Expr *ct_tuple = ex_tuple(s.a, cts.len, (Expr **)cts.items);
  Expr *result = ex_tuple(s.a, 2, (Expr *[]){r, ct_tuple});
  for (int i = 0; i < reverse.vars.len; i++)
    bindings_push(s.a, &primal, reverse.vars.items[i], reverse.rhss.items[i]);
  Func *g = module_add(m, ad_name(m, f->name, suffix), params.len, (Var **)params.items,
                       ty_tuple2(s.a, f->ret, ty_tuple(s.a, ct_types.len, (Type **)ct_types.items)),
                       bindings_build(s.a, &primal, result));
  g->is_static = f->is_static;
  g->is_generated = true;
  g->loc = f->loc;
  varmap_free(&top.contribs);
  varmap_free(&s.call_tape);
  varmap_free(&s.if_rev);
  varmap_free(&s.if_seeds);
  varmap_free(&s.if_pass);
  varmap_free(&s.bufs);
  varmap_free(&s.custom_in);
  varmap_free(&s.fold_tape);
  varmap_free(&s.while_count);
  varmap_free(&s.uses);
  varmap_free(&s.defs);
  varmap_free(&s.saved);
  varmap_free(&s.copy_of);
  varmap_free(&s.logged);
  varmap_free(&s.own_bufs);
  varmap_free(&s.made_bufs);
  varmap_free(&s.discard);
  varmap_free(&s.eager);
  varmap_free(&s.sum_fold);
  varmap_free(&s.fold_mark);
  varmap_free(&s.inout);
  varmap_free(&s.stored);
  varmap_free(&s.no_store);
  for (int i = 0; i < s.store_revs.len; i++) {
    StoreRev *st = s.store_revs.items[i];
    varmap_free(&st->address);
    varmap_free(&st->kept);
  }
  varmap_free(&s.unlogged);
  if (eager)
    *eager = s.eager_sums > 0;
  return s.failed ? NULL : g;
}
