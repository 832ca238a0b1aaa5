/* dce.c: dead-code elimination.
 *
 * Requires ANF with unique binders. Guarantees that every remaining binding
 * is used (all operations are pure, so an unused one can go: an `update`
 * too, whose removal only leaves its array unconsumed), and that an
 * `if` whose tuple result has fields nobody projects returns only the used
 * fields: this drops the residuals of branches that the optimised reverse
 * sweep no longer reads, and then the computations that produced them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ad/ad.h"
#include "ad/util.h"

typedef struct Dce {
  Arena *a;   /* the module's: for the nodes of the result */
  Arena *tmp; /* this round's: for scratch vectors, freed after the round */
  VarMap live;       /* Var -> non-NULL when used */
  VarMap bound;      /* every Var bound inside the function */
  VarMap view_of;    /* Var bound to (view a k) -> the atom a */
  VarMap field_use;  /* Var bound by a tuple-typed if -> int[]: live gets of each field */
  VarMap whole_use;  /* Var -> number of uses other than by `get` (NULL: none) */
  VarMap tuple_of;   /* Var bound to a tuple of atoms -> that tuple */
} Dce;

static void mark_live(Var *v, void *ctx) {
  Dce *s = ctx;
  varmap_put(&s->live, v, v);
}

static Expr *dce_block(Dce *s, Expr *e, bool *effects);

/* Marks what a kept right-hand side reads. The nested blocks of an if or a
 * loop were cleaned (and their reads marked) already: only the operands
 * remain, so nested branches are not walked once per enclosing level. */
static void mark_reads(Dce *s, Expr *r) {
  if (r->kind == E_IF) {
    expr_visit_vars(r->args[0], mark_live, s);
    return;
  }
  if (expr_is_loop(r)) {
    for (int i = 0; i < r->nargs; i++)
      expr_visit_vars(r->args[i], mark_live, s);
    return;
  }
  expr_visit_vars(r, mark_live, s);
}

/* A buffer's writes matter when it is read later (already marked, since
 * the walk is backwards) or belongs to the caller (a parameter), or when it
 * is a view of a buffer whose writes matter (it is the same memory). */
static bool buffer_matters(Dce *s, Expr *buf) {
  while (buf && buf->kind == E_VAR) {
    if (varmap_has(&s->live, buf->var) || !varmap_has(&s->bound, buf->var))
      return true;
    buf = varmap_get(&s->view_of, buf->var);
  }
  return false;
}

static bool accum_matters(Dce *s, Expr *rhs) { return buffer_matters(s, rhs->args[0]); }

/* An array read (index), with the arrays it is a view of. */
static void mark_indexed(Expr *arr, void *ctx) {
  Dce *s = ctx;
  for (; arr && arr->kind == E_VAR; arr = varmap_get(&s->view_of, arr->var))
    varmap_put(&s->live, arr->var, arr->var);
}

/* Calls fn on the array operand of every index in e. */
static void expr_visit_indexed(Expr *e, void (*fn)(Expr *, void *), void *ctx) {
  for (; e; e = e->kind == E_LET || expr_is_loop(e) ? e->body : NULL) {
    if (e->kind == E_INDEX)
      fn(e->args[0], ctx);
    for (int i = 0; i < e->nargs; i++)
      expr_visit_indexed(e->args[i], fn, ctx);
  }
}

/* Does some array the call is given matter after it? (For g$rev the
 * primal arrays are counted too: conservative, a parameter always
 * matters, but such a call is rarely unused.) */
static bool buffers_matter(Dce *s, Expr *rhs) {
  for (int i = 0; i < rhs->nargs; i++) {
    Expr *b = rhs->args[i];
    if (b->kind == E_VAR && b->type->kind == TY_ARRAY && buffer_matters(s, b))
      return true;
  }
  return false;
}

/* Cleans the nested blocks of rhs; *effects tells whether what is left
 * still has an effect that matters (then it stays even if unused). */
static Expr *dce_rhs(Dce *s, Expr *rhs, bool *effects) {
  *effects = false;
  if (rhs->kind == E_ACCUM) {
    *effects = accum_matters(s, rhs);
    return rhs;
  }
  if (expr_is_log(rhs)) { /* the undo log: every push has its pop */
    *effects = true;
    return rhs;
  }
  if (call_adds_into_buffers(rhs)) { /* a backpropagator's effect */
    *effects = buffers_matter(s, rhs);
    return rhs;
  }
  if (lapply_adds_into_buffers(rhs)) { /* the same, as a linear map */
    *effects = true;
    return rhs;
  }
  if (rhs->kind != E_IF && !expr_is_loop(rhs))
    return rhs;
  if (rhs->kind == E_IF) {
    bool e1, e2;
    Expr *b1 = dce_block(s, rhs->args[1], &e1);
    Expr *b2 = dce_block(s, rhs->args[2], &e2);
    *effects = e1 || e2;
    if (b1 == rhs->args[1] && b2 == rhs->args[2])
      return rhs;
    Expr *n = ex_clone_shallow(s->a, rhs);
    n->args[1] = b1;
    n->args[2] = b2;
    return n;
  }
  /* a buffer read in the body is read by the next iteration too: writes
   * into it anywhere in the body matter (an update in a loop reads its
   * element's cotangent, which earlier steps' reads add to) */
  expr_visit_indexed(rhs->body, mark_indexed, s);
  Expr *body = dce_block(s, rhs->body, effects);
  if (body == rhs->body)
    return rhs;
  Expr *n = ex_clone_shallow(s->a, rhs);
  n->body = body;
  return n;
}

/* Does e contain anything that writes a buffer? (No liveness involved.) */
static bool has_effect_node(const Expr *e) {
  for (; e; e = e->kind == E_LET || expr_is_loop(e) ? e->body : NULL) {
    if (e->kind == E_ACCUM || expr_is_log(e) || call_adds_into_buffers(e) ||
        lapply_adds_into_buffers(e))
      return true;
    for (int i = 0; i < e->nargs; i++)
      if (has_effect_node(e->args[i]))
        return true;
  }
  return false;
}

static void note_binders(Dce *s, Expr *e) {
  for (; e->kind == E_LET; e = e->body) {
    varmap_put(&s->bound, e->var, e->var);
    if (e->args[0]->kind == E_VIEW)
      varmap_put(&s->view_of, e->var, e->args[0]->args[0]);
    note_binders(s, e->args[0]);
  }
  for (int i = 0; i < e->nargs; i++)
    note_binders(s, e->args[i]);
  if (expr_is_loop(e))
    note_binders(s, e->body);
}

static Expr *dce_block(Dce *s, Expr *e, bool *effects) {
  Bindings in;
  bindings_of(s->tmp, e, &in);
  expr_visit_vars(in.result, mark_live, s);
  int n = in.vars.len;
  bool *keep = calloc((size_t)(n ? n : 1), sizeof *keep);
  Expr **rhss = calloc((size_t)(n ? n : 1), sizeof *rhss);
  *effects = false;
  for (int i = n - 1; i >= 0; i--) {
    Var *x = in.vars.items[i];
    Expr *rhs = in.rhss.items[i];
    bool used = varmap_has(&s->live, x);
    /* Cleaning a nested block marks what it reads as live: an unused loop
     * or if is looked into only if it can have an effect at all. */
    if (!used && !has_effect_node(rhs))
      continue;
    bool eff;
    Expr *r = dce_rhs(s, rhs, &eff);
    if (!used && !eff)
      continue;
    keep[i] = true;
    rhss[i] = r;
    *effects = *effects || eff;
    mark_reads(s, r);
  }
  bool same = true;
  for (int i = 0; i < n && same; i++)
    same = keep[i] && rhss[i] == in.rhss.items[i];
  Bindings out = {0};
  for (int i = 0; i < n && !same; i++)
    if (keep[i])
      bindings_push(s->tmp, &out, in.vars.items[i], rhss[i]);
  free(keep);
  free(rhss);
  /* an unchanged block is returned as is: later rounds allocate nothing
   * for the parts they leave alone */
  return same ? e : bindings_build(s->a, &out, in.result);
}

/* ------------------------------------------- unused fields of if results */

typedef struct FieldScan {
  Dce *s;
  VarMap tuple_ifs; /* Var -> Expr* (the if) */
} FieldScan;

static void note_whole(Var *v, void *ctx) {
  Dce *s = ctx;
  varmap_put(&s->whole_use, v, (void *)((intptr_t)varmap_get(&s->whole_use, v) + 1));
}

/* Records, for each variable bound to a tuple-typed if, which fields are
 * projected and whether it is used whole. */
static void scan_uses(Dce *s, Expr *e) {
  Bindings b;
  bindings_of(s->tmp, e, &b);
  for (int i = 0; i < b.vars.len; i++) {
    Var *x = b.vars.items[i];
    Expr *rhs = b.rhss.items[i];
    if (rhs->kind == E_TUPLE)
      varmap_put(&s->tuple_of, x, rhs);
    if ((rhs->kind == E_IF || rhs->kind == E_SUM || rhs->kind == E_BUILD) && rhs->type &&
        rhs->type->kind == TY_TUPLE && !rhs->type->name) {
      int *used = arena_alloc(s->a, sizeof(int) * (size_t)(rhs->type->n + 1));
      varmap_put(&s->field_use, x, used);
    }
    if (rhs->kind == E_GET && rhs->args[0]->kind == E_VAR) {
      int *used = varmap_get(&s->field_use, rhs->args[0]->var);
      if (used)
        used[rhs->index]++;
      else
        note_whole(rhs->args[0]->var, s);
    } else if (rhs->kind == E_IF) {
      if (rhs->args[0]->kind == E_VAR)
        note_whole(rhs->args[0]->var, s);
      scan_uses(s, rhs->args[1]);
      scan_uses(s, rhs->args[2]);
    } else if (expr_is_loop(rhs)) {
      for (int k = 0; k < rhs->nargs; k++)
        expr_visit_vars(rhs->args[k], note_whole, s);
      scan_uses(s, rhs->body);
    } else {
      expr_visit_vars(rhs, note_whole, s);
    }
  }
  expr_visit_vars(b.result, note_whole, s);
}

/* Makes the block return only the kept fields of its tuple result. The
 * result is an atom bound (in this block) to a tuple, or a structural zero. */
static Expr *narrow_block(Dce *s, Expr *e, const int *used, Type *narrowed) {
  Bindings b;
  bindings_of(s->tmp, e, &b);
  Expr *res = b.result;
  Expr *tup = NULL;
  if (res->kind == E_VAR)
    for (int i = b.vars.len - 1; i >= 0 && !tup; i--)
      if (b.vars.items[i] == res->var && ((Expr *)b.rhss.items[i])->kind == E_TUPLE)
        tup = b.rhss.items[i];
  if (!tup && res->kind == E_TUPLE)
    tup = res;
  Type *full = res->type;
  if (!tup && (!full || full->kind != TY_TUPLE))
    return NULL;
  int nfields = tup ? tup->nargs : full->n;
  Expr **elems = arena_alloc(s->a, sizeof(Expr *) * (size_t)(nfields + 1));
  int k = 0;
  for (int i = 0; i < nfields; i++) {
    if (!used[i])
      continue;
    if (tup) {
      elems[k++] = tup->args[i];
    } else { /* a tuple from elsewhere (shared by CSE): project it here */
      Var *g = var_new(s->a, "f", full->elems[i]);
      bindings_push(s->a, &b, g, ex_get(s->a, i, res));
      elems[k++] = ex_var(s->a, g);
    }
  }
  Expr *nt = ex_tuple(s->a, k, elems);
  nt->type = narrowed;
  Var *v = var_new(s->a, "r", narrowed);
  bindings_push(s->a, &b, v, nt);
  return bindings_build(s->a, &b, ex_var(s->a, v));
}

static Expr *narrow_ifs(Dce *s, Expr *e, bool *changed);

/* The fields of x's tuple type that are projected, when x is only ever
 * projected and some field never is; NULL otherwise. */
static int *dead_fields(Dce *s, Var *x, Type *t, int *kept) {
  int *used = varmap_get(&s->field_use, x);
  if (!used || varmap_get(&s->whole_use, x))
    return NULL;
  *kept = 0;
  for (int i = 0; i < t->n; i++)
    *kept += used[i] != 0;
  return *kept == t->n ? NULL : used;
}

static Type *kept_type(Dce *s, Type *t, const int *used, int kept, bool elements) {
  Type **ts = arena_alloc(s->a, sizeof(Type *) * (size_t)(kept + 1));
  for (int i = 0, k = 0; i < t->n; i++)
    if (used[i])
      ts[k++] = elements ? t->elems[i]->elem : t->elems[i];
  return ty_tuple(s->a, kept, ts);
}

/* The kept fields of a tuple atom, as a new tuple bound in `pre`. A field
 * of a variable bound to a tuple of atoms is that atom, so that the old
 * tuple, and what only its dropped fields read, can die (a forward sum's
 * start `(tuple v dv)` whose tangent nobody reads). */
static Expr *kept_fields(Dce *s, Expr *atom, const int *used, Type *kept_t, Bindings *pre) {
  Expr **parts = arena_alloc(s->a, sizeof(Expr *) * (size_t)(kept_t->n + 1));
  Expr *tuple = atom->kind == E_VAR ? varmap_get(&s->tuple_of, atom->var) : NULL;
  for (int i = 0, k = 0; i < atom->type->n; i++) {
    if (!used[i])
      continue;
    if (tuple && (tuple->args[i]->kind == E_VAR || tuple->args[i]->kind == E_CONST)) {
      parts[k++] = ex_clone_shallow(s->a, tuple->args[i]);
      continue;
    }
    Var *g = var_new(s->a, "init", atom->type->elems[i]);
    bindings_push(s->a, pre, g, ex_get(s->a, i, atom));
    parts[k++] = ex_var(s->a, g);
  }
  Expr *t = ex_tuple(s->a, kept_t->n, parts);
  t->type = kept_t;
  Var *v = var_new(s->a, "init", kept_t);
  bindings_push(s->a, pre, v, t);
  return ex_var(s->a, v);
}

/* A branch of an if that drops its unused fields no longer passes on what
 * it had at those places: when that was an inner if's field (through a
 * `get` used nowhere else), the inner field is now unused too, and is
 * dropped in this same round as the walk reaches the inner if. Without
 * this, a nest of n ifs took n rounds of the whole function. */
static void release_fields(Dce *s, const VarMap *bound, Expr *tup, const int *used);

static void release_dropped(Dce *s, Expr *branch, const int *used) {
  Expr *res = branch;
  while (res->kind == E_LET)
    res = res->body;
  if (res->kind != E_VAR || (intptr_t)varmap_get(&s->whole_use, res->var) != 1)
    return; /* the old result tuple may stay alive: nothing is released */
  VarMap bound = {0}; /* the branch's variables -> their right-hand sides */
  for (Expr *p = branch; p->kind == E_LET; p = p->body)
    varmap_put(&bound, p->var, p->args[0]);
  release_fields(s, &bound, varmap_get(&bound, res->var), used);
  varmap_free(&bound);
}

static void release_fields(Dce *s, const VarMap *bound, Expr *tup, const int *used) {
  if (!tup || tup->kind != E_TUPLE)
    return;
  for (int i = 0; i < tup->nargs; i++) {
    Expr *a = tup->args[i];
    if (used[i] || a->kind != E_VAR)
      continue;
    intptr_t n = (intptr_t)varmap_get(&s->whole_use, a->var) - 1;
    varmap_put(&s->whole_use, a->var, n > 0 ? (void *)n : NULL);
    Expr *get = n == 0 ? varmap_get(bound, a->var) : NULL;
    if (!get || get->kind != E_GET || get->args[0]->kind != E_VAR)
      continue;
    int *inner = varmap_get(&s->field_use, get->args[0]->var);
    if (inner && inner[get->index] > 0)
      inner[get->index]--;
  }
}

static Expr *narrow_if(Dce *s, Var *x, Expr *rhs, bool *changed) {
  int *used = varmap_get(&s->field_use, x);
  bool narrowable = used && !varmap_get(&s->whole_use, x);
  int kept = 0;
  for (int i = 0; narrowable && i < rhs->type->n; i++)
    kept += used[i] != 0;
  narrowable = narrowable && kept < rhs->type->n;
  Expr *n = ex_clone_shallow(s->a, rhs);
  if (narrowable) {
    Type **ts = arena_alloc(s->a, sizeof(Type *) * (size_t)(kept + 1));
    for (int i = 0, k = 0; i < rhs->type->n; i++)
      if (used[i])
        ts[k++] = rhs->type->elems[i];
    Type *narrowed = ty_tuple(s->a, kept, ts);
    Expr *t0 = narrow_block(s, rhs->args[1], used, narrowed);
    Expr *t1 = narrow_block(s, rhs->args[2], used, narrowed);
    if (t0 && t1) {
      release_dropped(s, rhs->args[1], used);
      release_dropped(s, rhs->args[2], used);
      n->args[1] = t0;
      n->args[2] = t1;
      n->type = narrowed;
      x->type = narrowed;
      *changed = true;
    } else {
      narrowable = false;
    }
  }
  Expr *b1 = narrow_ifs(s, n->args[1], changed);
  Expr *b2 = narrow_ifs(s, n->args[2], changed);
  if (!narrowable && b1 == rhs->args[1] && b2 == rhs->args[2])
    return rhs;
  n->args[1] = b1;
  n->args[2] = b2;
  return n;
}

static Expr *narrow_rhs(Dce *s, Var *x, Expr *rhs, bool *changed, Bindings *pre) {
  if (expr_is_loop(rhs)) {
    Expr *nb = narrow_ifs(s, rhs->body, changed);
    Expr *n = rhs;
    if (nb != rhs->body) {
      n = ex_clone_shallow(s->a, rhs);
      n->body = nb;
    }
    int kept;
    bool narrowable = rhs->kind == E_SUM || rhs->kind == E_BUILD;
    int *used = narrowable && rhs->type->kind == TY_TUPLE ? dead_fields(s, x, rhs->type, &kept)
                                                          : NULL;
    if (!used)
      return n;
    if (n == rhs)
      n = ex_clone_shallow(s->a, rhs);
    /* a sum or build whose result fields are partly unused: the loop
     * computes only the others */
    bool build = rhs->kind == E_BUILD;
    Type *body_type = kept_type(s, rhs->type, used, kept, build);
    Expr *body = narrow_block(s, n->body, used, body_type);
    if (!body)
      return n;
    n->body = body;
    if (rhs->kind == E_SUM && rhs->nargs == 2) /* sum-from: its start too */
      n->args[1] = kept_fields(s, rhs->args[1], used, body_type, pre);
    n->type = build ? kept_type(s, rhs->type, used, kept, false) : body_type;
    x->type = n->type;
    *changed = true;
    return n;
  }
  if (rhs->kind == E_IF)
    return narrow_if(s, x, rhs, changed);
  if (rhs->kind == E_GET && rhs->args[0]->kind == E_VAR) {
    int *used = varmap_get(&s->field_use, rhs->args[0]->var);
    if (used && !varmap_get(&s->whole_use, rhs->args[0]->var)) {
      if (!used[rhs->index]) /* dead since the enclosing if dropped it */
        return ex_zero(s->a, rhs->type);
      int k = 0;
      for (int i = 0; i < rhs->index; i++)
        k += used[i] != 0;
      if (k != rhs->index) {
        Expr *n = ex_clone_shallow(s->a, rhs);
        n->index = k;
        return n;
      }
    }
  }
  return rhs;
}

static Expr *narrow_ifs(Dce *s, Expr *e, bool *changed) {
  Bindings b, out = {0};
  bindings_of(s->tmp, e, &b);
  bool same = true;
  for (int i = 0; i < b.vars.len; i++) {
    int before = out.vars.len;
    Expr *r = narrow_rhs(s, b.vars.items[i], b.rhss.items[i], changed, &out);
    same = same && r == b.rhss.items[i] && out.vars.len == before;
    bindings_push(s->tmp, &out, b.vars.items[i], r);
  }
  return same ? e : bindings_build(s->a, &out, b.result);
}

Expr *dce_expr(Module *m, Expr *e) {
  /* Narrowing one if can make the fields of the enclosing one dead: repeat
   * until nothing changes (each round removes something, so it ends). */
  for (int round = 0; round < 10000; round++) {
    Dce s = {.a = m->arena, .tmp = arena_new()};
    note_binders(&s, e);
    bool effects;
    Expr *before = e;
    e = dce_block(&s, e, &effects);
    /* a dropped loop or if may have marked what it read as live: another
     * round sees it gone (unchanged trees come back as the same pointer) */
    bool removed = e != before;
    varmap_free(&s.live);
    varmap_free(&s.bound);
    varmap_free(&s.view_of);
    scan_uses(&s, e);
    bool changed = false;
    e = narrow_ifs(&s, e, &changed);
    varmap_free(&s.field_use);
    varmap_free(&s.whole_use);
    varmap_free(&s.tuple_of);
    arena_free(s.tmp);
    if (!changed && !removed)
      break;
  }
  return e;
}
