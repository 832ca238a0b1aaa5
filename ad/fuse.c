/* fuse.c: consecutive loops over one range run as one loop (DESIGN 8.57).
 *
 * Requires: the source function in ANF with unique binders, type-checked
 * (before AD). Guarantees: the same values, not in ANF (the caller
 * normalises again), where one pair of folds
 *
 *   let fa = fold n sa (i s) A in <projections of fa, cheap pure lets>
 *   let fb = fold n sb (j t) B in ...
 *
 * became one fold over n whose state is sa's fields then sb's (once, for
 * an array sb takes from fa's result), whose step runs A's step i and
 * then B's step i. The caller runs the pass again
 * until it fuses nothing, so three loops become one in two rounds.
 *
 * Why: reverse mode writes one reverse loop per primal loop, each with
 * its own counter, tape slab and index arithmetic, and the C compiler
 * versions each again for vectorisation. ADBench's `lstm_model` (gates,
 * then cell, then hidden) was three loops in `f` and six in `f_rev`; its
 * first two now fuse (the third calls tanh: both_call).
 *
 * When: running B's step j before A's steps k > j, and A's steps k after
 * B's steps j < k, must change nothing. Steps touch memory only as
 * follows, else the pair is left alone:
 *
 *  - A and B are folds with loop-free steps, over the same trip count (a
 *    build of one array counts as the fold that writes element i of a
 *    fresh array at step i), not both calling <math.h> functions or
 *    callees (both_call: measured slower);
 *  - B reads what A made only as elements `index p e` at the top level
 *    of its step, p a projection of an array A carries from step to step
 *    (A's step returns a version of the same array, and writes it only by
 *    top-level `update`s): A's steps k > j must not write them;
 *  - A reads the arrays B carries only as elements at the top level of its
 *    step (B writes them by top-level `update`s): B's steps j < k must not
 *    write what A's step k reads;
 *  - B's state may start from an array A carried, which nothing else then
 *    reads: the fused state holds it once, and A's accesses at steps
 *    k > j must not meet B's writes at j, nor A's writes B's accesses;
 *  - no other array A or B mentions shares memory with those (a view of
 *    one, through `view` bindings).
 *
 * Indices are affine in the counter (`i + 3*h`, through casts between
 * signed types, as C's subscripts and pointer offsets of a valid program
 * compute them without wrapping). A write at i + w and a read at j + r
 * meet in the steps that matter when (i - j) = r - w lies in [1, n - 1];
 * with n the trip count `max(E, 0)` that C's `for (i = 0; i < E; i++)`
 * gives, r - w = q E + c with q >= 1, c >= 0 (or q <= -1, c <= 0) never
 * does: that is how gates[i], gates[h + i], gates[2h + i] stay apart. */
#include <stdlib.h>

#include "ad/ad.h"
#include "ad/util.h"

enum { MAX_SYMS = 4, MAX_DEPTH = 48 };
static const long long COEF_LIMIT = 1LL << 40;

/* c + k*counter + sum coef[s] * sym[s]: symbols are variables the loop
 * does not bind. */
typedef struct Affine {
  long long c, k;
  int nsym;
  const Var *sym[MAX_SYMS];
  long long coef[MAX_SYMS];
} Affine;

/* One element access: an index, affine in the counter. */
typedef struct Access {
  Affine at;
  struct Access *next;
} Access;

typedef struct Fuse {
  Arena *a;
  VarMap defs; /* Var -> its right-hand side, anywhere in the function */
  FILE *dump;
  const char *fname;
} Fuse;

/* ------------------------------------------------------------- affine */

static bool small(long long v) { return v > -COEF_LIMIT && v < COEF_LIMIT; }

static bool aff_add_sym(Affine *x, const Var *v, long long coef) {
  for (int s = 0; s < x->nsym; s++)
    if (x->sym[s] == v) {
      x->coef[s] += coef;
      return small(x->coef[s]);
    }
  if (x->nsym == MAX_SYMS)
    return false;
  x->sym[x->nsym] = v;
  x->coef[x->nsym++] = coef;
  return true;
}

/* x += f * y */
static bool aff_axpy(Affine *x, long long f, const Affine *y) {
  if (!small(f))
    return false;
  x->c += f * y->c;
  x->k += f * y->k;
  if (!small(x->c) || !small(x->k))
    return false;
  for (int s = 0; s < y->nsym; s++)
    if (y->coef[s] && !aff_add_sym(x, y->sym[s], f * y->coef[s]))
      return false;
  return true;
}

/* Drops symbols whose coefficients cancelled. */
static void aff_tidy(Affine *x) {
  int n = 0;
  for (int s = 0; s < x->nsym; s++)
    if (x->coef[s]) {
      x->sym[n] = x->sym[s];
      x->coef[n++] = x->coef[s];
    }
  x->nsym = n;
}

/* Casts between signed integer types keep the value of an index a valid
 * program computes. */
static bool value_cast(Prim op) {
  return op == P_TO_INT || op == P_TO_LONG || op == P_TO_LLONG;
}

static bool affine_of(const Fuse *f, const Expr *e, const Var *counter, const VarMap *step,
                      Affine *out, int depth);

static bool affine_var(const Fuse *f, const Var *v, const Var *counter, const VarMap *step,
                       Affine *out, int depth) {
  if (v == counter) {
    out->k = 1;
    return true;
  }
  const Expr *rhs = varmap_get(step, v);
  if (rhs) /* bound by the step: affine, or its value is unknown */
    return affine_of(f, rhs, counter, step, out, depth + 1);
  rhs = varmap_get(&f->defs, v);
  Affine inner = {0};
  if (rhs && affine_of(f, rhs, counter, step, &inner, depth + 1) && inner.k == 0) {
    *out = inner;
    return true;
  }
  return aff_add_sym(out, v, 1); /* a parameter, or a value fixed before the loop */
}

static bool affine_of(const Fuse *f, const Expr *e, const Var *counter, const VarMap *step,
                      Affine *out, int depth) {
  *out = (Affine){0};
  if (depth > MAX_DEPTH || !e->type || e->type->kind != TY_INT || !intk_signed(e->type->ikind))
    return false;
  if (e->kind == E_CONST) {
    out->c = e->ival;
    return small(out->c);
  }
  if (e->kind == E_VAR)
    return affine_var(f, e->var, counter, step, out, depth);
  if (e->kind != E_PRIM)
    return false;
  Affine x, y;
  switch (e->op) {
  case P_ADD:
  case P_SUB:
    return affine_of(f, e->args[0], counter, step, &x, depth + 1) &&
           affine_of(f, e->args[1], counter, step, &y, depth + 1) && aff_axpy(out, 1, &x) &&
           aff_axpy(out, e->op == P_ADD ? 1 : -1, &y);
  case P_NEG:
    return affine_of(f, e->args[0], counter, step, &x, depth + 1) && aff_axpy(out, -1, &x);
  case P_MUL:
    if (!affine_of(f, e->args[0], counter, step, &x, depth + 1) ||
        !affine_of(f, e->args[1], counter, step, &y, depth + 1))
      return false;
    if (!x.k && !x.nsym)
      return aff_axpy(out, x.c, &y);
    if (!y.k && !y.nsym)
      return aff_axpy(out, y.c, &x);
    return false;
  default:
    return value_cast(e->op) && affine_of(f, e->args[0], counter, step, out, depth + 1);
  }
}

/* The trip count n as an affine E with n = max(E, 0): C's loop to E, or
 * lowering's `(if (gt E 0) E 0)`. */
static bool trip_bound(const Fuse *f, const Expr *n, Affine *out) {
  VarMap none = {0};
  const Expr *rhs = n->kind == E_VAR ? varmap_get(&f->defs, n->var) : NULL;
  if (rhs && rhs->kind == E_IF && expr_is_select(rhs) && rhs->args[0]->kind == E_VAR &&
      rhs->args[2]->kind == E_CONST && rhs->args[2]->ival == 0) {
    const Expr *cond = varmap_get(&f->defs, rhs->args[0]->var);
    const Expr *e = rhs->args[1];
    if (cond && cond->kind == E_PRIM && cond->op == P_GT && atom_eq(cond->args[0], e) &&
        cond->args[1]->kind == E_CONST && cond->args[1]->ival == 0)
      return affine_of(f, e, NULL, &none, out, 0);
  }
  return affine_of(f, n, NULL, &none, out, 0);
}

/* Does d = (i - j) avoid [1, n - 1] for every n = max(E, 0)? */
static bool apart(Affine d, const Affine *bound) {
  aff_tidy(&d);
  if (!d.nsym)
    return d.c <= 0 || (!bound->nsym && d.c >= bound->c);
  if (!bound->nsym)
    return false;
  /* d = q E + r for an integer q, r a constant */
  const Var *s0 = bound->sym[0];
  long long e0 = bound->coef[0], d0 = 0;
  for (int s = 0; s < d.nsym; s++)
    if (d.sym[s] == s0)
      d0 = d.coef[s];
  if (!e0 || d0 % e0)
    return false;
  long long q = d0 / e0;
  Affine r = d;
  if (!q || !aff_axpy(&r, -q, bound))
    return false;
  aff_tidy(&r);
  if (r.nsym)
    return false;
  /* n >= 1 needs E >= 1: then q E + r >= E >= n, or <= -E < 1 */
  return (q >= 1 && r.c >= 0) || (q <= -1 && r.c <= 0);
}

/* ------------------------------------------------------------ a step */

/* What a fold's step does with the fields of its state, and with the
 * arrays of the other loop it reads. */
typedef struct Step {
  const Expr *fold;
  Bindings b;
  VarMap defs;  /* its top-level bindings */
  int nfields;  /* fields of the state (1 when it is not a plain tuple) */
  bool tuple;   /* the state is a plain tuple */
  VarMap root;  /* a version of a state field's array -> field + 1 */
  Access **writes; /* per field: the elements the step's updates write */
  Access **reads;  /* per field: the elements the step reads */
  bool *kept;      /* per field: the step returns a version of the field */
  bool *opaque;    /* per field: a version is used other than by element */
  bool ok;         /* no update in a nested block, no nested loop */
} Step;

static int field_of(const Step *s, const Var *v) {
  return (int)(long)varmap_get(&s->root, v) - 1;
}

typedef struct Uses {
  const Step *s;
  bool *opaque;
} Uses;

static void mark_opaque(Var *v, void *ctx) {
  Uses *u = ctx;
  int k = field_of(u->s, v);
  if (k >= 0)
    u->opaque[k] = true;
}

static bool has_nested(const Expr *e) { return e->kind == E_UPDATE || expr_is_loop(e); }

static void push_access(Arena *a, Access **list, const Affine *at) {
  Access *x = arena_alloc(a, sizeof *x);
  x->at = *at;
  x->next = *list;
  *list = x;
}

/* What the step of `fold` does with its state's arrays: s's fields. */
static void analyse_step(Fuse *f, Step *s, const Expr *fold) {
  s->fold = fold;
  bindings_of(f->a, fold->body, &s->b);
  Type *st = fold->var2->type;
  s->tuple = st->kind == TY_TUPLE && !st->name;
  s->nfields = s->tuple ? st->n : 1;
  s->writes = arena_alloc(f->a, sizeof *s->writes * (size_t)(s->nfields + 1));
  s->reads = arena_alloc(f->a, sizeof *s->reads * (size_t)(s->nfields + 1));
  s->kept = arena_alloc(f->a, sizeof *s->kept * (size_t)(s->nfields + 1));
  s->opaque = arena_alloc(f->a, sizeof *s->opaque * (size_t)(s->nfields + 1));
  s->ok = true;
  if (!s->tuple)
    varmap_put(&s->root, fold->var2, (void *)1L);
  Uses u = {s, s->opaque};
  for (int k = 0; k < s->b.vars.len; k++) {
    Var *v = s->b.vars.items[k];
    Expr *r = s->b.rhss.items[k];
    varmap_put(&s->defs, v, r);
    for (int i = 0; i < r->nargs; i++)
      if (!expr_is_atom(r->args[i]) && expr_any(r->args[i], has_nested))
        s->ok = false;
    if (expr_is_loop(r))
      s->ok = false;
    if (s->tuple && r->kind == E_GET && r->args[0]->kind == E_VAR &&
        r->args[0]->var == fold->var2) {
      if (r->type && r->type->kind == TY_ARRAY)
        varmap_put(&s->root, v, (void *)(long)(r->index + 1));
      continue;
    }
    if (r->kind == E_TUPLE && s->b.result->kind == E_VAR && s->b.result->var == v)
      continue; /* the step's result: below */
    int at = -1;
    if ((r->kind == E_UPDATE || r->kind == E_INDEX || r->kind == E_LEN) &&
        r->args[0]->kind == E_VAR)
      at = field_of(s, r->args[0]->var);
    if (at >= 0 && r->kind != E_LEN) {
      Affine idx;
      if (affine_of(f, r->args[1], fold->var, &s->defs, &idx, 0))
        push_access(f->a, r->kind == E_UPDATE ? &s->writes[at] : &s->reads[at], &idx);
      else
        s->opaque[at] = true;
    }
    if (at >= 0 && r->kind == E_UPDATE)
      varmap_put(&s->root, v, (void *)(long)(at + 1));
    for (int i = at >= 0 ? 1 : 0; i < r->nargs; i++)
      expr_visit_vars(r->args[i], mark_opaque, &u);
    if (r->body && r->kind != E_LET)
      expr_visit_vars(r->body, mark_opaque, &u);
  }
  /* the result: a version of each field's array in its place, read by
   * nothing else in the step (a projection of it would be one more name
   * for those arrays) */
  Expr *res = s->b.result;
  for (int k = 0; k < s->b.vars.len && res->kind == E_VAR; k++)
    if (s->b.vars.items[k] != res->var && expr_mentions(s->b.rhss.items[k], res->var))
      s->ok = false;
  if (!s->tuple) {
    s->kept[0] = res->kind == E_VAR && field_of(s, res->var) == 0;
    return;
  }
  Expr *t = res->kind == E_VAR ? varmap_get(&s->defs, res->var) : NULL;
  for (int j = 0; j < s->nfields; j++) {
    const Expr *x = t && t->kind == E_TUPLE && j < t->nargs ? t->args[j] : NULL;
    s->kept[j] = x && x->kind == E_VAR && field_of(s, x->var) == j;
  }
  if (t && t->kind == E_TUPLE) {
    for (int j = 0; j < t->nargs; j++)
      if (!(t->args[j]->kind == E_VAR && field_of(s, t->args[j]->var) == j))
        expr_visit_vars(t->args[j], mark_opaque, &u);
  } else {
    expr_visit_vars(res, mark_opaque, &u);
  }
}

static void free_step(Step *s) {
  varmap_free(&s->defs);
  varmap_free(&s->root);
}

/* Element reads of `x` at the top level of a step; false when the step
 * mentions x otherwise. */
static bool reads_of(Fuse *f, const Step *s, const Var *x, Access **reads) {
  bool other = false;
  for (int k = 0; k < s->b.vars.len && !other; k++) {
    Expr *r = s->b.rhss.items[k];
    int from = 0;
    if ((r->kind == E_INDEX || r->kind == E_LEN) && r->args[0]->kind == E_VAR &&
        r->args[0]->var == x) {
      from = 1;
      Affine idx;
      if (r->kind == E_INDEX) {
        if (!affine_of(f, r->args[1], s->fold->var, &s->defs, &idx, 0))
          return false;
        push_access(f->a, reads, &idx);
      }
    }
    for (int i = from; i < r->nargs; i++)
      other = other || expr_mentions(r->args[i], x);
    other = other || (r->body && r->kind != E_LET && expr_mentions(r->body, x));
  }
  return !other && !expr_mentions(s->b.result, x);
}

/* Do the write at i + w and the read at j + r (steps i of the loop that
 * writes, j of the other) meet only in steps the fusion keeps in order?
 * `reader_later`: B reads A's array; else A reads B's. */
static bool all_apart(const Access *writes, const Access *reads, bool reader_later,
                      const Affine *bound) {
  for (const Access *w = writes; w; w = w->next)
    for (const Access *r = reads; r; r = r->next) {
      if (w->at.k != 1 || r->at.k != 1)
        return false;
      /* A writes at i + w, B reads at j + r: they meet at i - j = r - w,
       * which matters for i > j. B writes at j + w, A reads at i + r:
       * i - j = w - r, which matters for j < i. */
      Affine d = {0};
      if (reader_later) {
        aff_axpy(&d, 1, &r->at);
        aff_axpy(&d, -1, &w->at);
      } else {
        aff_axpy(&d, 1, &w->at);
        aff_axpy(&d, -1, &r->at);
      }
      d.k = 0;
      if (!apart(d, bound))
        return false;
    }
  return true;
}

/* ------------------------------------------------------- the fusion */

/* The field atoms of a fold's initial state; NULL when they are unknown. */
static Expr **init_fields(Fuse *f, const Step *s, const Expr *init) {
  Expr **out = arena_alloc(f->a, sizeof *out * (size_t)s->nfields);
  if (!s->tuple) {
    out[0] = (Expr *)init;
    return out;
  }
  const Expr *t = init->kind == E_VAR ? varmap_get(&f->defs, init->var) : NULL;
  if (!t || t->kind != E_TUPLE || t->nargs != s->nfields)
    return NULL;
  for (int j = 0; j < s->nfields; j++) {
    if (!expr_is_atom(t->args[j]))
      return NULL;
    out[j] = t->args[j];
  }
  return out;
}

/* The memory behind an array variable: through views and copies. */
static const Var *base_of(const Fuse *f, const Var *v) {
  for (int n = 0; n < MAX_DEPTH; n++) {
    const Expr *r = varmap_get(&f->defs, v);
    if (r && r->kind == E_VAR)
      v = r->var;
    else if (r && r->kind == E_VIEW && r->args[0]->kind == E_VAR)
      v = r->args[0]->var;
    else
      break;
  }
  return v;
}

typedef struct Free {
  const Step *s;
  PtrVec *out;
  Arena *a;
} Free;

static void see_free(Var *v, void *ctx) {
  Free *fr = ctx;
  if (v->type && v->type->kind == TY_ARRAY && !varmap_has(&fr->s->defs, v))
    ptrvec_push(fr->a, fr->out, v);
}

/* Does the step mention an array that shares memory with x, other than x? */
static bool mentions_alias(Fuse *f, const Step *s, const Var *x) {
  PtrVec seen = {0};
  Free fr = {s, &seen, f->a};
  expr_visit_vars(s->fold->body, see_free, &fr);
  const Var *bx = base_of(f, x);
  for (int k = 0; k < seen.len; k++) {
    const Var *y = seen.items[k];
    if (y != x && y != s->fold->var2 && base_of(f, y) == bx)
      return true;
  }
  return false;
}

static Expr *typed(Expr *e, Type *t) {
  e->type = t;
  return e;
}

/* The field j of state atom st (the atom itself when the state is not a
 * plain tuple). */
static Expr *field(Arena *a, Expr *st, const Step *s, int j) {
  if (!s->tuple)
    return st;
  return typed(ex_get(a, j, st), st->type->elems[j]);
}

typedef struct Pair {
  Var *fa, *fb;
  Step A, B;
  Expr **ainit, **binit;
  VarMap proj;        /* a projection of fa that B reads -> field + 1 */
  int *shared;        /* per field of B: the field of A whose array B's
                         state starts from (A's result), or -1 */
  Affine bound;
} Pair;

/* Can the two loops run as one without changing what either does? */
static bool fuse_pair(Fuse *f, Pair *p) {
  Step *A = &p->A, *B = &p->B;
  const Expr *fa = A->fold, *fb = B->fold;
  if (!A->ok || !B->ok || !trip_bound(f, fa->args[0], &p->bound))
    return false;
  if (!(p->ainit = init_fields(f, A, fa->args[1])) || !(p->binit = init_fields(f, B, fb->args[1])))
    return false;
  /* B goes on updating an array A carried: A's accesses at later steps
   * do not meet B's, nor B's writes A's reads at later steps */
  p->shared = arena_alloc(f->a, sizeof *p->shared * (size_t)B->nfields);
  for (int m = 0; m < B->nfields; m++) {
    Expr *x = p->binit[m];
    int k = x->kind == E_VAR ? (int)(long)varmap_get(&p->proj, x->var) - 1 : -1;
    p->shared[m] = k;
    if (k < 0)
      continue;
    for (int m2 = 0; m2 < m; m2++)
      if (p->shared[m2] == k)
        return false; /* one array twice in B's state */
    if (x->var->type->kind != TY_ARRAY || !A->kept[k] || A->opaque[k] || !B->kept[m] ||
        B->opaque[m] || !all_apart(A->writes[k], B->reads[m], true, &p->bound) ||
        !all_apart(A->writes[k], B->writes[m], true, &p->bound) ||
        !all_apart(B->writes[m], A->reads[k], false, &p->bound))
      return false;
  }
  /* B reads A's arrays by element, where A's later steps do not write */
  for (int k = 0; k < p->proj.cap; k++) {
    const Var *pv = p->proj.keys[k];
    if (!pv)
      continue;
    int j = (int)(long)p->proj.vals[k] - 1;
    for (int m = 0; m < B->nfields; m++)
      if (p->shared[m] == j && !(p->binit[m]->kind == E_VAR && p->binit[m]->var == pv))
        return false; /* the array B goes on updating, under another name */
    Access *reads = NULL;
    if (pv->type->kind != TY_ARRAY) {
      if (expr_mentions(fb->body, pv))
        return false; /* a number A computed in all its steps */
      continue;
    }
    if (!A->kept[j] || A->opaque[j] || !reads_of(f, B, pv, &reads) ||
        !all_apart(A->writes[j], reads, true, &p->bound))
      return false;
  }
  /* A reads B's arrays by element, where B's earlier steps do not write */
  for (int j = 0; j < B->nfields; j++) {
    Expr *x = p->binit[j];
    if (x->kind != E_VAR || x->var->type->kind != TY_ARRAY || p->shared[j] >= 0)
      continue;
    Access *reads = NULL;
    if (!reads_of(f, A, x->var, &reads) || mentions_alias(f, A, x->var))
      return false;
    if (reads && (!B->kept[j] || B->opaque[j] ||
                  !all_apart(B->writes[j], reads, false, &p->bound)))
      return false;
  }
  /* B mentions no alias of the arrays A carries */
  for (int j = 0; j < A->nfields; j++) {
    Expr *x = p->ainit[j];
    if (x->kind == E_VAR && x->var->type->kind == TY_ARRAY && mentions_alias(f, B, x->var))
      return false;
  }
  return true;
}

/* The slot of the fused state that holds field j of loop l (0: A, 1: B):
 * A's fields, then B's own (a field B's state starts from A's result
 * shares A's slot). */
static int slot_of(const Pair *p, int l, int j) {
  if (!l)
    return j;
  if (p->shared[j] >= 0)
    return p->shared[j];
  int s = p->A.nfields;
  for (int m = 0; m < j; m++)
    s += p->shared[m] < 0;
  return s;
}

/* The state of loop l (0: A, 1: B) from the atom st holding the fused
 * state: A's or B's own fields, a tuple when the loop's state is one.
 * `after_a`, when not NULL, is A's result in this step: a field B's state
 * starts from A's result is that. */
static Expr *own_state(Arena *a, const Pair *p, int l, Expr *st, Expr *after_a) {
  const Step *x = l ? &p->B : &p->A;
  Expr **fs = arena_alloc(a, sizeof *fs * (size_t)x->nfields);
  for (int j = 0; j < x->nfields; j++) {
    int k = l ? p->shared[j] : -1;
    fs[j] = k >= 0 && after_a ? field(a, after_a, &p->A, k)
                              : typed(ex_get(a, slot_of(p, l, j), st), st->type->elems[slot_of(p, l, j)]);
  }
  return x->tuple ? typed(ex_tuple(a, x->nfields, fs), x->fold->var2->type) : fs[0];
}

/* The fused fold. */
static Expr *build_fused(Fuse *f, Pair *p) {
  Arena *a = f->a;
  Step *A = &p->A, *B = &p->B;
  const Expr *fa = A->fold, *fb = B->fold;
  int na = A->nfields, nb = B->nfields, n = na;
  for (int j = 0; j < nb; j++)
    n += p->shared[j] < 0;
  Type **types = arena_alloc(a, sizeof *types * (size_t)n);
  Expr **init = arena_alloc(a, sizeof *init * (size_t)n);
  for (int j = 0; j < na; j++)
    init[j] = p->ainit[j];
  for (int j = 0; j < nb; j++)
    if (p->shared[j] < 0)
      init[slot_of(p, 1, j)] = p->binit[j];
  for (int j = 0; j < n; j++)
    types[j] = init[j]->type;
  Type *st = ty_tuple(a, n, types);
  Var *s = var_new(a, "state", st);
  Expr *sv = typed(ex_var(a, s), st);
  Bindings body = {0};
  bindings_push(a, &body, fa->var2, own_state(a, p, 0, sv, NULL));
  /* A reads B's arrays as they are at the start of the step */
  VarMap subst_a = {0};
  for (int j = 0; j < nb; j++) {
    Expr *x = p->binit[j];
    if (x->kind != E_VAR || x->var->type->kind != TY_ARRAY || p->shared[j] >= 0)
      continue;
    int k = slot_of(p, 1, j);
    Var *now = var_new(a, x->var->name, x->var->type);
    bindings_push(a, &body, now, typed(ex_get(a, k, sv), types[k]));
    varmap_put(&subst_a, x->var, typed(ex_var(a, now), now->type));
  }
  Expr *astep = expr_subst(a, fa->body, &subst_a);
  Bindings ab = {0};
  bindings_of(a, astep, &ab);
  for (int k = 0; k < ab.vars.len; k++)
    bindings_push(a, &body, ab.vars.items[k], ab.rhss.items[k]);
  Var *ra = var_new(a, "after_a", fa->var2->type);
  bindings_push(a, &body, ra, ab.result);
  Expr *rav = typed(ex_var(a, ra), ra->type);
  /* B's state: its own slots, and A's result where it goes on from it */
  bindings_push(a, &body, fb->var2, own_state(a, p, 1, sv, rav));
  /* B reads A's arrays as A's step left them, at A's counter */
  VarMap subst_b = {0};
  varmap_put(&subst_b, fb->var, typed(ex_var(a, fa->var), fa->var->type));
  for (int k = 0; k < p->proj.cap; k++) {
    const Var *pv = p->proj.keys[k];
    if (!pv || pv->type->kind != TY_ARRAY)
      continue;
    int j = (int)(long)p->proj.vals[k] - 1;
    Var *now = var_new(a, pv->name, pv->type);
    bindings_push(a, &body, now, field(a, rav, A, j));
    varmap_put(&subst_b, pv, typed(ex_var(a, now), now->type));
  }
  Expr *bstep = expr_subst(a, fb->body, &subst_b);
  Bindings bb = {0};
  bindings_of(a, bstep, &bb);
  for (int k = 0; k < bb.vars.len; k++)
    bindings_push(a, &body, bb.vars.items[k], bb.rhss.items[k]);
  Var *rb = var_new(a, "after_b", fb->var2->type);
  bindings_push(a, &body, rb, bb.result);
  Expr *rbv = typed(ex_var(a, rb), rb->type);
  Expr **next = arena_alloc(a, sizeof *next * (size_t)n);
  for (int j = 0; j < na; j++)
    next[j] = field(a, rav, A, j);
  for (int j = 0; j < nb; j++)
    next[slot_of(p, 1, j)] = field(a, rbv, B, j); /* B's version of a shared one */
  Expr *result = typed(ex_tuple(a, n, next), st);
  Expr *fused = ex_fold(a, fa->args[0], typed(ex_tuple(a, n, init), st), fa->var, s,
                        bindings_build(a, &body, result));
  fused->type = st;
  fused->loc = fa->loc;
  varmap_free(&subst_a);
  varmap_free(&subst_b);
  return fused;
}

/* A build of one array, which fuses as the fold that writes element i
 * of a fresh array at step i. */
static bool is_build(const Expr *e) {
  return e->kind == E_BUILD && e->type && e->type->kind == TY_ARRAY;
}

static bool fusable_loop(const Expr *e) { return e->kind == E_FOLD || is_build(e); }

/* e as a fold: a build `build n (i) e` is `fold n (alloc n) (i s)
 * (update s i e)`. */
static Expr *as_fold(Fuse *f, Expr *e) {
  if (e->kind == E_FOLD)
    return e;
  Arena *a = f->a;
  Type *t = e->type;
  Var *s = var_new(a, "built", t);
  Var *next = var_new(a, "built_next", t);
  Bindings b = {0};
  bindings_of(a, e->body, &b);
  Expr *at = typed(ex_var(a, e->var), e->var->type);
  bindings_push(a, &b, next, typed(ex_update(a, typed(ex_var(a, s), t), at, b.result), t));
  Expr *body = bindings_build(a, &b, typed(ex_var(a, next), t));
  Expr *fold = ex_fold(a, e->args[0], typed(ex_alloc(a, t, e->args[0]), t), e->var, s, body);
  fold->type = t;
  fold->loc = e->loc;
  return fold;
}

/* Do both steps call a <math.h> function or a callee? Such steps stay
 * apart: interleaving their calls made them slower, not faster.
 * ADBench's lstm_model with its three loops fused ran 1.3 to 1.4 times
 * as long as written, and its f_rev 1.95 times f against 1.57 (clang 14
 * -O2, glibc's libm, AMD EPYC; the calls' own instructions were the same
 * in number). Fusing a step of arithmetic with any other saves a pass
 * over memory and a loop: three arithmetic loops' f_rev ran in 0.55 of
 * the time fused (n = 1000). */
static bool both_call(const Expr *a, const Expr *b) {
  return expr_any(a->body, expr_is_math_call) && expr_any(b->body, expr_is_math_call);
}


/* Does B's state (rhss[second]'s) start from nothing A computed but
 * arrays A carried, named by projections of fa (or fa itself) that
 * nothing else in the block reads? Those are B's to update. */
static bool starts_apart(const Bindings *b, int first, int second, const Expr *rb,
                         const VarMap *after, const Pair *p) {
  Var *fa = b->vars.items[first];
  const Expr *init = rb->args[1];
  if (init->kind != E_VAR || !varmap_has(after, init->var))
    return !expr_mentions_any(init, after);
  const Expr *fields = init;
  int n = 1;
  const Expr *t = NULL;
  for (int k = first + 1; k < second; k++)
    if (b->vars.items[k] == init->var)
      t = b->rhss.items[k];
  if (t) { /* B's state a tuple bound between the loops */
    if (t->kind != E_TUPLE)
      return false;
    fields = t;
    n = t->nargs;
  }
  for (int j = 0; j < n; j++) {
    const Expr *x = t ? fields->args[j] : init;
    if (x->kind != E_VAR || !varmap_has(after, x->var))
      continue;
    bool carried = x->var == fa || varmap_has(&p->proj, x->var);
    if (!carried || x->var->type->kind != TY_ARRAY)
      return false;
    /* read nowhere else: between the loops, in them, or after them */
    bool other = expr_mentions(rb->body, x->var) || expr_mentions(b->result, x->var);
    for (int k = first + 1; k < b->vars.len && !other; k++)
      other = b->vars.items[k] != init->var && k != second &&
              expr_mentions(b->rhss.items[k], x->var);
    if (other)
      return false;
  }
  return true;
}

/* Tries the fold at bindings index `first` with the next fold of the
 * block; on success rewrites `b` and returns true. */
static bool try_pair(Fuse *f, Bindings *b, int first) {
  Var *fa = b->vars.items[first];
  Expr *ra = b->rhss.items[first];
  VarMap after = {0}; /* fa and its projections */
  varmap_put(&after, fa, fa);
  Pair p = {.fa = fa};
  int second = -1;
  bool ok = true;
  for (int k = first + 1; k < b->vars.len && ok; k++) {
    Var *v = b->vars.items[k];
    Expr *r = b->rhss.items[k];
    if (fusable_loop(r)) {
      second = k;
      break;
    }
    if (!movable_binding(r, true)) { /* reads: no effect on memory comes between */
      ok = false;
    } else if (r->kind == E_GET && r->args[0]->kind == E_VAR && r->args[0]->var == fa) {
      varmap_put(&after, v, v);
      varmap_put(&p.proj, v, (void *)(long)(r->index + 1));
    } else if (expr_mentions_any(r, &after)) {
      varmap_put(&after, v, v); /* stays after the loops; B must not read it */
    }
  }
  /* two builds would fuse as a build of a tuple, not as a fold (whose
   * reverse does more than theirs): not done here */
  if (second >= 0 && ra->kind == E_BUILD && ((Expr *)b->rhss.items[second])->kind == E_BUILD)
    ok = false;
  if (!ok || second < 0) {
    varmap_free(&after);
    varmap_free(&p.proj);
    return false;
  }
  /* the same count, loop-free steps, not both calling: checked before
   * anything is made, so that a function with nothing to fuse comes out
   * as it went in (new nodes and variables would reorder CSE's operands) */
  Expr *rb = b->rhss.items[second];
  bool fusable = atom_eq(ra->args[0], rb->args[0]) && type_eq(ra->var->type, rb->var->type) &&
                 !expr_any(ra->body, expr_is_loop) && !expr_any(rb->body, expr_is_loop) &&
                 !both_call(ra, rb);
  if (fusable) {
    ra = as_fold(f, ra);
    rb = as_fold(f, rb);
    /* B's state may start from arrays A carried (checked in fuse_pair),
     * not from anything else A computed */
    fusable = starts_apart(b, first, second, rb, &after, &p) && ra->var2->type && rb->var2->type;
  }
  if (fusable) {
    analyse_step(f, &p.A, ra);
    analyse_step(f, &p.B, rb);
    /* B reads a whole state of A's as fa itself, a tuple's fields as
     * projections of it */
    if (!p.A.tuple)
      varmap_put(&p.proj, fa, (void *)1L);
    for (int k = 0; k < after.cap && fusable; k++) {
      const Var *x = after.keys[k];
      if (x && !varmap_has(&p.proj, x))
        fusable = !expr_mentions(rb->body, x);
    }
    fusable = fusable && fuse_pair(f, &p);
  }
  if (!fusable) {
    if (p.A.fold) {
      free_step(&p.A);
      free_step(&p.B);
    }
    varmap_free(&after);
    varmap_free(&p.proj);
    return false;
  }
  Expr *fused = build_fused(f, &p);
  if (f->dump)
    fprintf(f->dump, "chad: %s: the loops at lines %d and %d run as one loop\n", f->fname,
            ra->loc.line, rb->loc.line);
  /* prefix; the movable bindings between; the fused fold; fa, fb from
   * its state; the projections of fa */
  Bindings out = {0};
  for (int k = 0; k < first; k++)
    bindings_push(f->a, &out, b->vars.items[k], b->rhss.items[k]);
  for (int k = first + 1; k < second; k++)
    if (!varmap_has(&after, b->vars.items[k]))
      bindings_push(f->a, &out, b->vars.items[k], b->rhss.items[k]);
  Var *fv = var_new(f->a, "fused", fused->type);
  bindings_push(f->a, &out, fv, fused);
  Expr *fvv = typed(ex_var(f->a, fv), fused->type);
  /* an array both carried is B's final version in both: nothing reads
   * A's after B's state took it (starts_apart) */
  bindings_push(f->a, &out, fa, own_state(f->a, &p, 0, fvv, NULL));
  bindings_push(f->a, &out, b->vars.items[second], own_state(f->a, &p, 1, fvv, NULL));
  for (int k = first + 1; k < second; k++)
    if (varmap_has(&after, b->vars.items[k]) && b->vars.items[k] != fa)
      bindings_push(f->a, &out, b->vars.items[k], b->rhss.items[k]);
  for (int k = second + 1; k < b->vars.len; k++)
    bindings_push(f->a, &out, b->vars.items[k], b->rhss.items[k]);
  out.result = b->result;
  *b = out;
  free_step(&p.A);
  free_step(&p.B);
  varmap_free(&after);
  varmap_free(&p.proj);
  return true;
}

static bool try_pair_of(void *ctx, Bindings *b, int first) { return try_pair(ctx, b, first); }

Expr *fuse_loops(Module *m, Expr *body, FILE *dump, const char *fname) {
  Fuse f = {.a = m->arena, .dump = dump, .fname = fname};
  collect_let_defs(&f.defs, body);
  Expr *r = rewrite_first_pair(f.a, body, fusable_loop, try_pair_of, &f);
  varmap_free(&f.defs);
  return r;
}
