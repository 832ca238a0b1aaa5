/* inline.c: callees without reverse halves, inlined into their callers.
 *
 * A callee that writes output arrays, or updates or allocates arrays, has
 * no f$aug/f$bwd (DESIGN 8.6: its halves would have to hand memory and
 * the undo log from one to the other). Its callers differentiate it as
 * part of themselves instead: the call becomes the callee's body, with its
 * parameters bound to the arguments (views of the caller's arrays
 * included), so that its updates and scratch use the caller's undo log and
 * buffers, and its outputs are the caller's arrays' new versions.
 *
 * Requires: f type-checked; every callee differentiated before f (callees
 * come first), so that the halves a callee has are in the module;
 * callees are not recursive (lowering refuses recursion). Guarantees: a
 * copy of f's body in which no call to a callee without halves is left,
 * at any depth of inlining; not in ANF, and sharing the callees' terms
 * (the caller normalises it, which gives every binder a fresh variable). */
#include "ad/ad.h"
#include "ad/util.h"

/* Deeper than this, inlining has met a cycle lowering did not see. */
enum { MAX_INLINE_DEPTH = 64 };

typedef struct Inliner {
  Module *m;
  Arena *a;
  Diag *err;
  bool failed;
} Inliner;

/* Does differentiating the caller need g's body? (Forward mode inlines
 * the same calls, so that f$fwd and f$rev differentiate the same code.) */
static const Func *needs_inlining(Inliner *s, const Expr *call) {
  const Func *g = module_find(s->m, call->name);
  if (!g || g->is_custom || !g->body || !type_is_active(call->type))
    return NULL;
  return module_find(s->m, ad_name(s->m, g->name, "aug")) ? NULL : g;
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
    Expr *body = inline_expr(s, e->body, depth);
    if (body != e->body) {
      if (!n)
        n = ex_clone_shallow(s->a, e);
      n->body = body;
    }
  }
  return n ? n : e;
}

Expr *ad_inline_calls(Module *m, Expr *body, Diag *err) {
  Inliner s = {.m = m, .a = m->arena, .err = err};
  Expr *r = inline_expr(&s, body, 0);
  return s.failed ? NULL : r;
}
