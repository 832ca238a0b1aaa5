/* util.h: small data structures shared by the passes of ad/ and emit/.
 *
 * VarMap maps variables (by identity) to arbitrary pointers. A Binding list
 * is the flat view of a let chain, so that passes walk long ANF chains with
 * loops instead of recursion (a 10^5-statement function would overflow the
 * stack otherwise). */
#ifndef CHAD_AD_UTIL_H
#define CHAD_AD_UTIL_H

#include "ir/ir.h"

typedef struct VarMap {
  const Var **keys;
  void **vals;
  int cap; /* power of two, or 0 */
  int len;
} VarMap;

void varmap_put(VarMap *m, const Var *k, void *v);
void *varmap_get(const VarMap *m, const Var *k); /* NULL when absent */
bool varmap_has(const VarMap *m, const Var *k);
void varmap_free(VarMap *m);
void varmap_copy_into(VarMap *dst, const VarMap *src); /* adds src's entries to dst */

/* A let chain `let v0 = r0 in ... let vn-1 = rn-1 in result` taken apart. */
typedef struct Bindings {
  PtrVec vars; /* Var* */
  PtrVec rhss; /* Expr* */
  Expr *result;
} Bindings;

void bindings_of(Arena *a, Expr *e, Bindings *out); /* walks the chain */
void bindings_push(Arena *a, Bindings *b, Var *v, Expr *rhs);
Expr *bindings_build(Arena *a, const Bindings *b, Expr *result);

/* Fresh, C-friendly names unique within one function. */
typedef struct NameSet {
  char **names;
  int cap;
  int len;
  /* base name -> next suffix to try, so that n fresh names from one base
   * cost O(n) rather than O(n^2) probes */
  char **bases;
  int *next;
  int bcap;
  int blen;
} NameSet;

const char *nameset_fresh(NameSet *s, Arena *a, const char *base);
void nameset_reserve(NameSet *s, const char *name);
void nameset_free(NameSet *s);

bool expr_is_atom(const Expr *e); /* variable, constant or structural zero */

/* Position of field i among the active fields of tuple type t. */
int active_index(const Type *t, int i);
/* Is t an array, or a plain tuple holding one? (Records are not looked
 * into: a callee's tape is the callee's business.) */
bool type_holds_array(const Type *t);
bool atom_eq(const Expr *x, const Expr *y);

/* Can this primitive run where the source might not have run it (before a
 * loop that may run no step)? Operations that cannot fail: no integer
 * division or remainder, no float-to-int conversion (out of range is
 * undefined), no shift (by the width or more is undefined). Used by LICM
 * and unswitching. */
bool prim_may_hoist(const Expr *rhs);
/* An if whose condition and branches are atoms (`(if t n 0)`, a loop's trip
 * count): a choice between values, pure and cheap, like a primitive. */
bool expr_is_select(const Expr *rhs);

/* Does e hold a node of kind k, in nested blocks too? */
bool expr_contains(const Expr *e, ExprKind k);

/* Nodes in e, counted until there are `cap` (the count may pass it a
 * little, never by more than one subterm's). */
int expr_count_nodes(const Expr *e, int cap);

/* Is e a call of a <math.h> function (not an operator) or of a callee? */
bool expr_is_math_call(const Expr *e);
/* Does e hold a node for which `is` holds, in nested blocks too? */
bool expr_any(const Expr *e, bool (*is)(const Expr *));

/* Does a call in e take array x as an argument, itself or a view of it
 * (through the variables e binds to views and copies of it)? */
bool expr_passes_array(const Expr *e, const Var *x);

/* Calls `visit` on each variable referenced (not bound) in e, including
 * references in nested blocks. Iterative on let chains. */
void expr_visit_vars(Expr *e, void (*visit)(Var *v, void *ctx), void *ctx);

/* Does e refer to x (to a variable in `set`), in nested blocks too? */
bool expr_mentions(const Expr *e, const Var *x);
bool expr_mentions_any(const Expr *e, const VarMap *set);
/* r with each nested block (an argument that is not an atom, as an if's
 * branches; a loop's body) replaced by f(ctx, block), in a copy of r; r
 * itself when f returned every block unchanged. */
Expr *expr_map_blocks(Arena *a, Expr *r, Expr *(*f)(void *ctx, Expr *block), void *ctx);

/* May a binding with right-hand side rhs stand between two effects on one
 * element of a cotangent buffer without changing what they do: arithmetic
 * on numbers (no arrays), or an accumulation (which commutes with the
 * others). A read, a store or a call may not. (readd.c, merge.c) */
bool commutes_with_accums(const Expr *rhs);

/* May a binding with right-hand side r move to an earlier point of its
 * block? Pure and cheap: arithmetic, tuples, lengths, views, a fresh
 * allocation, a choice between atoms; an element read too when `reads`
 * (no effect on arrays lies between). (fuse.c, fuse_sweep.c) */
bool movable_binding(const Expr *r, bool reads);

/* Adds Var -> its right-hand side for every let in e, at any depth. */
void collect_let_defs(VarMap *defs, Expr *e);

/* The first rewrite of a pair of bindings: walks the let blocks of e,
 * innermost first, and offers each binding whose right-hand side
 * `candidate` accepts to attempt(ctx, b, k), which may rewrite the block b
 * and return true; the walk stops there (one rewrite per call). Returns
 * e, or a copy with that rewrite. (fuse.c, fuse_sweep.c) */
Expr *rewrite_first_pair(Arena *a, Expr *e, bool (*candidate)(const Expr *rhs),
                         bool (*attempt)(void *ctx, Bindings *b, int k), void *ctx);

/* Adds to `out` the arrays of e that nothing writes: parameters (free in
 * e) and arrays e builds or allocates, every mention of which is a read, a
 * length, a view or an argument of a call that returns no array (nor adds
 * into buffers), no view of which is mentioned otherwise, and views of
 * them bound in e, mentioned only so too. Reading one twice gives the
 * same value wherever e reads it (cse.c, DESIGN 8.74). */
void collect_read_only(Expr *e, VarMap *out);

/* Replaces references to variables in `subst` (Var* -> Expr* atom) by the
 * mapped atoms; returns a new tree sharing unchanged leaves. */
Expr *expr_subst(Arena *a, Expr *e, const VarMap *subst);

/* Is rhs a call that adds into the cotangent buffers it is passed: a
 * callee's adjoint half g$bwd, or a custom function's g$rev (the only
 * calls of a $rev in IR, ad/custom.c), with an array argument? Such a call
 * is an effect: it is neither merged with another (CSE) nor dropped while
 * its buffers are read (DCE). */
bool call_adds_into_buffers(const Expr *rhs);
/* Is rhs the application of a linear map holding such a derivative (an
 * lcall with cotangent arrays, before the linear maps are eliminated)?
 * The same effect, for DCE run on a step's reverse (DESIGN 8.79). */
bool lapply_adds_into_buffers(const Expr *rhs);

/* A comparison of a variable with itself, as a constant where C knows it
 * (C compilers warn about `t > t`): every one for integers, `<` and `>`
 * (false for NaN too) for floats. NULL when rhs is not such a comparison
 * or its result depends on the value. (simplify.c; cse.c, which makes
 * new ones when it merges two variables) */
Expr *fold_self_comparison(Arena *a, const Expr *rhs);

/* The C identifier of a generated function: f$fwd -> f_fwd, f$rev -> f_rev,
 * f$aug -> f__aug, f$bwd -> f__bwd, f$tape -> f__tape. Allocated in `a`. */
const char *c_name_of(Arena *a, const char *ir_name);

#endif
