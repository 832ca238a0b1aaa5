/* transform.h: the AD transformations proper, used by ad/driver.c.
 * Each requires its input function in ANF with unique binders and
 * type-checked, and adds one new function to the module whose right-hand
 * sides may still contain linear maps (removed by linmap_eliminate). */
#ifndef CHAD_AD_TRANSFORM_H
#define CHAD_AD_TRANSFORM_H

#include "ad/util.h"

/* f$fwd. `param_names` holds f's parameter names; tangent parameter names
 * are drawn fresh from it so they cannot clash with user names. */
Func *ad_forward(Module *m, Func *f, NameSet *param_names);

/* f$rev: (params with array cotangent buffers..., ret_b) ->
 * (result, (cotangents of active scalar params)); array cotangents are
 * added into the buffers. NULL with a message for what it cannot do. */
/* f$<suffix> is the reverse derivative ("rev"); may_store: loops may store
 * their residuals on the undo log (DESIGN 8.22) and sums may run their
 * reverse in the primal sweep (8.35), not in an f$rev to be split into
 * halves (the log is one function's); *eager (when not NULL) says whether
 * a sum did; dump: where the store-or-recompute decisions are shown, or
 * NULL. */
Func *ad_reverse(Module *m, Func *f, NameSet *param_names, const char *suffix, bool may_store,
                 FILE *dump, bool *eager, Diag *err);

/* Which calls ad_inline_calls inlines besides those to callees without
 * reverse halves. */
typedef struct InlinePolicy {
  bool small_storing; /* small callees, called in loops, whose halves
                         would run work again that a loop can store
                         (Func.halves_recompute, DESIGN 8.55) */
  FILE *dump;         /* when non-NULL, each such call is reported here */
  const char *caller; /* the caller's name, for the report */
} InlinePolicy;

/* Is e a sum of numbers whose loop-free step calls a <math.h> function or
 * a callee? In a loop's step, f$rev stores such a sum's steps (DESIGN
 * 8.55). */
bool costly_sum(const Expr *e);

/* f's body with every call to a callee that has no reverse halves
 * replaced by the callee's body (ad/inline.c), and under `policy` (may be
 * NULL) the calls it names; the body itself when there is none; NULL with
 * a message when calls nest too deeply. */
Expr *ad_inline_calls(Module *m, Expr *body, const InlinePolicy *policy, Diag *err);

/* Splits an optimised f$rev into f$aug and f$bwd (ad/split.c). */
bool ad_split(Module *m, Func *f, Func *rev, Diag *err);

#endif
