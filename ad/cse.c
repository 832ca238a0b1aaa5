/* cse.c: common-subexpression elimination on A-normal form.
 *
 * Requires ANF with unique binders. Guarantees ANF with unique binders in
 * which no binding recomputes an operation (same kind, operator, callee,
 * field and operand atoms) already bound in an enclosing scope; the later
 * binding becomes a use of the earlier variable. Scopes follow `if`
 * branches, so a value bound in one branch is never used outside it. `add`
 * and `mul` are commutative in IEEE arithmetic, so their operands are put
 * in a canonical order first. Operations are pure, calls included; array
 * reads are left alone because cotangent buffers change under E_ACCUM and
 * updates and the undo log change other arrays, but for the reads of a
 * parameter, or of an array the function builds, (or a view of one) that
 * nothing writes (`collect_read_only`: every mention of it is a read, a
 * length, a view or an argument of a call that returns no array): the C
 * compiler cannot merge those across the stores into the cotangents
 * between them (DESIGN 8.63, 8.74). On f's own body before AD
 * (cse_primal_expr) every read is merged with an equal earlier one: there
 * each array version is read only while live (DESIGN 8.78). Loops,
 * allocations, updates (each consumes its array: two are never one) and
 * effects are never merged. Equal constant tables are. Tuples are not:
 * they cost nothing, and a loop body's tuple merged into an equal one
 * bound outside the loop (two inlined calls that start a fold alike) is a
 * tuple from outside the loop, which reverse mode refuses in a loop body
 * (ad/rev.c sum_outer). A comparison whose
 * operands become one variable is folded (`t > t` is 0 for integers). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ad/ad.h"
#include "ad/util.h"

typedef struct Entry Entry;
struct Entry {
  Expr *rhs;
  Var *var;
  unsigned hash;
  Entry *next_in_bucket;
};

typedef struct Cse {
  Arena *a;
  Entry **buckets;
  unsigned nbuckets; /* power of two */
  PtrVec stack;      /* Entry* in insertion order, popped at scope exit */
  VarMap subst;
  VarMap fused;      /* products a sum contracts with (Expr.contract) */
  VarMap read_only;  /* arrays nothing writes: parameters and their views */
  bool all_reads;    /* f's own body: every read of one array version is one */
  VarMap call_written; /* arrays a call writes in place (never merged) */
} Cse;

/* A product that a sum contracts with stays its own: C computes one
 * fused multiply-add per occurrence, and merging two products would leave
 * the sums to round the shared product separately. */
static void note_fused(Cse *s, Expr *e) {
  for (; e; e = e->kind == E_LET || expr_is_loop(e) ? e->body : NULL) {
    if (e->kind == E_PRIM && e->contract && e->args[e->contract - 1]->kind == E_VAR)
      varmap_put(&s->fused, e->args[e->contract - 1]->var, e);
    for (int i = 0; i < e->nargs; i++)
      note_fused(s, e->args[i]);
  }
}

static unsigned mix(unsigned h, unsigned x) { return (h ^ x) * 16777619u; }

static unsigned hash_atom(const Expr *e) {
  switch (e->kind) {
  case E_VAR:
    return (unsigned)e->var->id * 2654435761u;
  case E_CONST: {
    uint64_t bits;
    if (e->type->kind == TY_INT)
      bits = (uint64_t)e->ival;
    else
      memcpy(&bits, &e->fval, sizeof bits);
    return (unsigned)(bits ^ (bits >> 32)) ^ (unsigned)e->type->kind;
  }
  default:
    return 7u;
  }
}

static unsigned hash_rhs(const Expr *e) {
  unsigned h = mix(2166136261u, (unsigned)e->kind);
  h = mix(h, (unsigned)e->op);
  h = mix(h, (unsigned)e->index);
  if (e->name)
    for (const char *p = e->name; *p; p++)
      h = mix(h, (unsigned char)*p);
  for (int i = 0; i < e->nargs; i++)
    h = mix(h, hash_atom(e->args[i]));
  return h;
}

static bool same_rhs(const Expr *x, const Expr *y) {
  if (x->kind != y->kind || x->nargs != y->nargs || x->index != y->index)
    return false;
  if (x->kind == E_PRIM && x->op != y->op)
    return false;
  if ((x->name || y->name) && (!x->name || !y->name || strcmp(x->name, y->name) != 0))
    return false;
  if (!type_eq(x->type, y->type))
    return false;
  for (int i = 0; i < x->nargs; i++)
    if (!atom_eq(x->args[i], y->args[i]))
      return false;
  return true;
}

static bool cse_candidate(const Cse *s, const Expr *rhs) {
  switch (rhs->kind) {
  case E_INDEX: /* a read of memory nothing writes */
  case E_VIEW:
    return rhs->args[0]->kind == E_VAR &&
           ((s->all_reads && !varmap_has(&s->call_written, rhs->args[0]->var)) ||
            varmap_has(&s->read_only, rhs->args[0]->var)) &&
           expr_is_atom(rhs->args[1]);
  case E_TABLE: /* immutable: two equal tables are one (unlike alloc's
                   buffers, which are written) */
    return true;
  case E_CALL: /* a backpropagator adds into buffers: each call counts */
    if (call_adds_into_buffers(rhs))
      return false;
    /* fall through */
  case E_IF: /* a choice between atoms: like a primitive */
    if (!expr_is_select(rhs))
      return false;
    /* fall through */
  case E_PRIM:
  case E_GET:
    for (int i = 0; i < rhs->nargs; i++)
      if (!expr_is_atom(rhs->args[i]))
        return false;
    return true;
  default:
    return false;
  }
}

static void canonical_order(Expr *rhs) {
  if (rhs->kind != E_PRIM || (rhs->op != P_ADD && rhs->op != P_MUL))
    return;
  Expr *a = rhs->args[0], *b = rhs->args[1];
  unsigned ka = hash_atom(a), kb = hash_atom(b);
  if (ka > kb || (ka == kb && a->kind == E_CONST && b->kind == E_VAR)) {
    rhs->args[0] = b;
    rhs->args[1] = a;
    if (rhs->contract) /* the fused operand moves with its operand */
      rhs->contract = 3 - rhs->contract;
  }
}

static void grow(Cse *s) {
  unsigned n = s->nbuckets ? s->nbuckets * 2 : 256;
  Entry **b = calloc(n, sizeof *b);
  if (!b)
    abort();
  /* Rehash preserving per-bucket order (newest first) by reinserting the
   * stack oldest first. */
  for (int i = 0; i < s->stack.len; i++) {
    Entry *e = s->stack.items[i];
    unsigned k = e->hash & (n - 1);
    e->next_in_bucket = b[k];
    b[k] = e;
  }
  free(s->buckets);
  s->buckets = b;
  s->nbuckets = n;
}

static Var *lookup(Cse *s, Expr *rhs, unsigned h) {
  if (!s->nbuckets)
    return NULL;
  for (Entry *e = s->buckets[h & (s->nbuckets - 1)]; e; e = e->next_in_bucket)
    if (e->hash == h && same_rhs(e->rhs, rhs))
      return e->var;
  return NULL;
}

static void insert(Cse *s, Expr *rhs, Var *v, unsigned h) {
  if ((unsigned)(s->stack.len + 1) * 2 > s->nbuckets)
    grow(s);
  Entry *e = arena_alloc(s->a, sizeof *e);
  e->rhs = rhs;
  e->var = v;
  e->hash = h;
  unsigned k = h & (s->nbuckets - 1);
  e->next_in_bucket = s->buckets[k];
  s->buckets[k] = e;
  ptrvec_push(s->a, &s->stack, e);
}

/* Removes the entries added since the stack had `height` entries. Entries
 * leave in reverse order of insertion, so each is at its bucket's head. */
static void pop_to(Cse *s, int height) {
  while (s->stack.len > height) {
    Entry *e = s->stack.items[--s->stack.len];
    unsigned k = e->hash & (s->nbuckets - 1);
    s->buckets[k] = e->next_in_bucket;
  }
}

static Expr *resolve(Cse *s, Expr *atom) {
  if (atom->kind != E_VAR)
    return atom;
  Expr *to = varmap_get(&s->subst, atom->var);
  return to ? to : atom;
}

static Expr *cse_block(Cse *s, Expr *e);

static Expr *cse_rhs(Cse *s, Expr *rhs) {
  if (expr_is_atom(rhs))
    return resolve(s, rhs);
  Expr *n = ex_clone_shallow(s->a, rhs);
  if (rhs->kind == E_IF) {
    n->args[0] = resolve(s, rhs->args[0]);
    n->args[1] = cse_block(s, rhs->args[1]);
    n->args[2] = cse_block(s, rhs->args[2]);
    return n;
  }
  for (int i = 0; i < rhs->nargs; i++)
    n->args[i] = resolve(s, rhs->args[i]);
  if (expr_is_loop(rhs)) /* the body is a scope: its values stay inside */
    n->body = cse_block(s, rhs->body);
  canonical_order(n);
  Expr *self = fold_self_comparison(s->a, n); /* merged operands: `t > t` */
  return self ? self : n;
}

static Expr *cse_block(Cse *s, Expr *e) {
  int height = s->stack.len;
  Bindings in, out = {0};
  bindings_of(s->a, e, &in);
  for (int i = 0; i < in.vars.len; i++) {
    Var *x = in.vars.items[i];
    Expr *rhs = cse_rhs(s, in.rhss.items[i]);
    if (cse_candidate(s, rhs) && !varmap_has(&s->fused, x)) {
      unsigned h = hash_rhs(rhs);
      Var *earlier = lookup(s, rhs, h);
      if (earlier) {
        varmap_put(&s->subst, x, ex_var(s->a, earlier));
        continue;
      }
      insert(s, rhs, x, h);
    }
    bindings_push(s->a, &out, x, rhs);
  }
  Expr *r = bindings_build(s->a, &out, resolve(s, in.result));
  pop_to(s, height);
  return r;
}

/* Adds each array variable e passes to a written (output or in-out)
 * parameter of a callee: a custom function's, which writes it in place
 * (DESIGN 8.25; other such callees are inlined before the primal stages). */
static void note_call_written(Module *m, const Expr *e, VarMap *out) {
  for (; e; e = e->kind == E_LET || expr_is_loop(e) ? e->body : NULL) {
    if (e->kind == E_CALL) {
      Func *callee = module_find(m, e->name);
      for (int i = 0; callee && i < e->nargs && i < callee->nparams; i++)
        if (func_param_written(callee, i) && e->args[i]->kind == E_VAR)
          varmap_put(out, e->args[i]->var, e->args[i]->var);
    }
    for (int i = 0; i < e->nargs; i++)
      note_call_written(m, e->args[i], out);
  }
}

static Expr *cse_run(Module *m, Expr *e, bool all_reads) {
  Cse s = {.a = m->arena, .all_reads = all_reads};
  note_fused(&s, e);
  collect_read_only(e, &s.read_only);
  if (all_reads)
    note_call_written(m, e, &s.call_written);
  Expr *r = cse_block(&s, e);
  free(s.buckets);
  varmap_free(&s.subst);
  varmap_free(&s.fused);
  varmap_free(&s.read_only);
  varmap_free(&s.call_written);
  return r;
}

Expr *cse_expr(Module *m, Expr *e) { return cse_run(m, e, false); }

/* f's body before AD has the IR's value semantics whole: an array version
 * is read only while it is live (the checker refuses a read after the
 * update, fold or call that consumed it, and a fold's body reading the
 * array its state updates in place), so two reads of one version at one
 * index are one value wherever they are. Derivatives restore memory from
 * the undo log under the same names, so there only read-only arrays'
 * reads are merged (cse_expr). */
Expr *cse_primal_expr(Module *m, Expr *e) { return cse_run(m, e, true); }
