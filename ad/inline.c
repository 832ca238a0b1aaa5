/* inline.c: callees without reverse halves, inlined into their callers,
 * and, in loops, small callees whose halves would run again work the
 * caller's loop can store (DESIGN 8.55).
 *
 * A callee that writes output arrays, or updates or allocates arrays, has
 * no f$aug/f$bwd (DESIGN 8.6: its halves would have to hand memory and
 * the undo log from one to the other). Its callers differentiate it as
 * part of themselves instead: the call becomes the callee's body, with its
 * parameters bound to the arguments (views of the caller's arrays
 * included), so that its updates and scratch use the caller's undo log and
 * buffers, and its outputs are the caller's arrays' new versions.
 *
 * A callee's halves cannot store (two functions cannot share one log,
 * 8.22): what its f$rev stores on its undo log they recompute, and a sum
 * whose step calls exp (log_sum_exp's) they run twice, once in g$aug and
 * again in g$bwd (Func.halves_recompute says so). When such a callee is
 * small and called in a loop, differentiating it as part of its caller
 * lets the caller's loop steps store those values (8.55).
 *
 * Requires: f type-checked; every callee differentiated before f (callees
 * come first), so that the halves a callee has are in the module;
 * callees are not recursive (lowering refuses recursion). Guarantees: a
 * copy of f's body in which no call to a callee without halves is left
 * (nor, under the policy, to a small storing callee in a loop), at any
 * depth of inlining; not in ANF, and sharing the callees' terms
 * (the caller normalises it, which gives every binder a fresh variable). */
#include "ad/ad.h"
#include "ad/transform.h"
#include "ad/util.h"

/* Deeper than this, inlining has met a cycle lowering did not see. */
enum { MAX_INLINE_DEPTH = 64 };

/* The largest callee (in IR nodes) inlined because its halves would run
 * work again: a few loops and their bodies. Code size grows by at most
 * this much per call site. */
enum { SMALL_CALLEE_NODES = 400 };

typedef struct Inliner {
  Module *m;
  Arena *a;
  const InlinePolicy *policy;
  int loops; /* how many loops enclose the term being rebuilt */
  Diag *err;
  bool failed;
} Inliner;

/* A callee whose halves would run work again that a loop can store,
 * called in a loop (where those runs add up) and small enough to be differentiated
 * again at each such call site. Outside loops the halves cost one more
 * run of the callee's loops, once; and a call there is often of
 * constants, whose inlined loops would carry zero tangents that a value
 * overflowing to infinity turns into NaN (gen seed 41058). */
static bool small_storing_callee(const Inliner *s, const Func *g) {
  return s->policy && s->policy->small_storing && s->loops > 0 && g->halves_recompute &&
         expr_count_nodes(g->body, SMALL_CALLEE_NODES + 1) <= SMALL_CALLEE_NODES;
}

/* Does differentiating the caller need g's body? (Forward mode inlines
 * the same calls, so that f$fwd and f$rev differentiate the same code.) */
static const Func *needs_inlining(Inliner *s, const Expr *call) {
  const Func *g = module_find(s->m, call->name);
  if (!g || g->is_custom || !g->body || !type_is_active(call->type))
    return NULL;
  if (!module_find(s->m, ad_name(s->m, g->name, "aug")))
    return g;
  if (!small_storing_callee(s, g))
    return NULL;
  if (s->policy->dump)
    fprintf(s->policy->dump,
            "chad: %s: the call to %s at line %d is inlined: %s's halves would compute "
            "again what a loop here can store\n",
            s->policy->caller, g->name, call->loc.line, g->name);
  return g;
}

static Expr *inline_expr(Inliner *s, Expr *e, int depth);

/* let params = args in body: the callee's own parameter variables are
 * bound, and normalisation renames every copy apart. */
static Expr *inline_call(Inliner *s, Expr *call, const Func *g, int depth) {
  if (depth >= MAX_INLINE_DEPTH) {
    if (!s->failed)
      diag_set(s->err, call->loc, "calls nest more than %d levels deep through '%s'",
               MAX_INLINE_DEPTH, g->name);
    s->failed = true;
    return call;
  }
  Expr *body = inline_expr(s, g->body, depth + 1);
  for (int i = g->nparams - 1; i >= 0; i--)
    body = ex_let(s->a, g->params[i], inline_expr(s, call->args[i], depth), body);
  body->loc = call->loc;
  return body;
}

/* One term, rebuilt only where a call was inlined; let chains are walked
 * iteratively (they may be long). */
static Expr *inline_expr(Inliner *s, Expr *e, int depth) {
  if (!e || s->failed)
    return e;
  if (e->kind == E_LET) {
    PtrVec lets = {0};
    for (; e->kind == E_LET; e = e->body)
      ptrvec_push(s->a, &lets, e);
    Expr *r = inline_expr(s, e, depth);
    for (int i = lets.len - 1; i >= 0; i--) {
      Expr *let = lets.items[i];
      Expr *rhs = inline_expr(s, let->args[0], depth);
      if (rhs != let->args[0] || r != let->body) {
        Expr *n = ex_clone_shallow(s->a, let);
        n->args[0] = rhs;
        n->body = r;
        let = n;
      }
      r = let;
    }
    return r;
  }
  if (e->kind == E_CALL) {
    const Func *g = needs_inlining(s, e);
    if (g)
      return inline_call(s, e, g, depth);
  }
  Expr *n = NULL;
  for (int i = 0; i < e->nargs; i++) {
    Expr *arg = inline_expr(s, e->args[i], depth);
    if (arg != e->args[i]) {
      if (!n)
        n = ex_clone_shallow(s->a, e);
      n->args[i] = arg;
    }
  }
  if (e->body) {
    bool loop = expr_is_loop(e);
    s->loops += loop;
    Expr *body = inline_expr(s, e->body, depth);
    s->loops -= loop;
    if (body != e->body) {
      if (!n)
        n = ex_clone_shallow(s->a, e);
      n->body = body;
    }
  }
  return n ? n : e;
}

Expr *ad_inline_calls(Module *m, Expr *body, const InlinePolicy *policy, Diag *err) {
  Inliner s = {.m = m, .a = m->arena, .policy = policy, .err = err};
  Expr *r = inline_expr(&s, body, 0);
  return s.failed ? NULL : r;
}
