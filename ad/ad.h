/* ad.h: normalisation, CHAD forward and reverse transformations, linear-map
 * elimination and the clean-up passes (DESIGN.md section 4).
 *
 * For a user function f the pipeline adds four functions to the module:
 *   f$fwd : (p1, dp1, ..., pn, dpn) -> (ret, dret)      forward mode
 *   f$rev : (p1, ..., pn, ret_b)     -> (ret, (p_b...))  reverse mode
 *   f$aug : (p1, ..., pn)            -> (ret, tape)      reverse, primal half
 *   f$bwd : (tape, ret_b)            -> (p_b...)         reverse, adjoint half
 * where only active parameters get a tangent or a cotangent, `tape` is the
 * record "f$tape" of the residuals the adjoint half needs, and f$rev is
 * f$aug followed by f$bwd fused into one function. Callers use f$fwd, f$aug
 * and f$bwd, so a chain of k calls costs O(k) callee runs. */
#ifndef CHAD_AD_H
#define CHAD_AD_H

#include "ir/ir.h"

typedef struct AdOptions {
  FILE *dump; /* when non-NULL, every stage is printed here */
  bool forward_only; /* only f$fwd: no reverse mode (plugin's forward-only) */
  bool reverse_only; /* no f$fwd: reverse mode alone (plugin's reverse-only) */
  bool recompute;    /* loops never store residuals (plugin's recompute):
                        every reverse step recomputes its step (DESIGN 8.22) */
  bool no_fuse;      /* consecutive loops are never fused (plugin's no-fuse,
                        DESIGN 8.57) */
} AdOptions;

/* Requires: f type-checks in CHECK_SOURCE mode, and every function it calls
 * has been differentiated already. Guarantees: f$fwd, f$rev, f$aug and f$bwd
 * are in the module (f$fwd alone with forward_only, all but f$fwd with
 * reverse_only), type-check in CHECK_FINAL mode (no linear map left), and
 * compute the derivatives of f. On failure returns false with a message. */
bool ad_differentiate(Module *m, Func *f, const AdOptions *opt, Diag *err);

/* For a CHAD_CUSTOM function g (g->is_custom): declares the body-less
 * g$fwd and g$rev that stand for the user's g_fwd and g_rev, with the IR
 * signatures f$fwd and f$rev have (ad/custom.c). Idempotent. */
void ad_declare_custom(Module *m, Func *g);

/* Names of the derived functions, allocated in the module's arena. */
const char *ad_name(Module *m, const char *fname, const char *suffix);

/* The passes, usable alone (tests, dumps). Each returns a new expression or
 * function in the module's arena; inputs are not modified. */
Expr *anf_expr(Module *m, Expr *e);          /* A-normal form, unique binders */
Func *anf_func(Module *m, Func *f);          /* same, as a new function */
Expr *anf_body(Module *m, const Func *f, Expr *e); /* e in ANF, names apart
                                                      from f's parameters */
Expr *linmap_eliminate(Module *m, Expr *e);  /* apply every linear map */
Expr *linmap_simplify(Module *m, Expr *map); /* Figure 4-5 laws on a map */
Expr *materialize_expr(Module *m, Expr *e);  /* zeros and tangent plus -> code */
Expr *materialize_cotangents(Module *m, Expr *e); /* same, float zeros as -0 */
Expr *simplify_expr(Module *m, Expr *e);     /* local rewrites, let inlining */
Expr *cse_expr(Module *m, Expr *e);          /* common subexpressions */
Expr *cse_primal_expr(Module *m, Expr *e);   /* the same on f's own body:
                                                every array read too */
Expr *dce_expr(Module *m, Expr *e);          /* dead lets, dead tuple fields */
Expr *flatten_ifs(Module *m, Expr *e);       /* if results: flat tuples */
Expr *licm_expr(Module *m, Expr *e);         /* loop-invariant code motion */
Expr *licm_primal_expr(Module *m, Expr *e);  /* same, before AD: guarded where
                                                a loop may run no step */
Expr *readd_expr(Module *m, Expr *e);        /* a cotangent zeroed, then given
                                                back: neither */
Expr *merge_accums(Module *m, Expr *e);      /* two accumulations into one
                                                element: one */
Expr *order_reverse_steps(Module *m, const Func *f, Expr *body); /* a reverse
                                                loop of independent steps:
                                                forwards */
Expr *unswitch_expr(Module *m, Expr *e);     /* folds choosing arrays: once,
                                                before the loop (not ANF) */
Expr *pick_last_expr(Module *m, Expr *body); /* a fold keeping the last value
                                                a condition picked: carries
                                                its index (not ANF) */
Expr *indvar_expr(Module *m, Expr *body);    /* counters a fold carries: from
                                                its counter (not ANF) */
Expr *hoist_reads(Module *m, Expr *body);    /* elements every step reads and
                                                none writes: once, before the
                                                loop (not ANF) */
/* One pair of consecutive folds over one range as one fold (not ANF);
 * each fusion is reported on `dump` when it is not NULL. */
Expr *fuse_loops(Module *m, Expr *body, FILE *dump, const char *fname);
/* One pair of consecutive loops of a derivative over one range, touching
 * shared arrays only at the counter, as one loop (not ANF); reported on
 * `dump` when it is not NULL. */
Expr *fuse_sweeps(Module *m, Expr *body, FILE *dump, const char *fname);
/* Buffers one loop alone touches, step i only at element i: a number per
 * step (not ANF). */
Expr *scalarize_buffers(Module *m, Expr *body);
/* Cotangent buffers whose first use, a sum, sets each element once:
 * built with those elements instead (ANF kept). */
Expr *fill_buffers(Module *m, Expr *body);

#endif
