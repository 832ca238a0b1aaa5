/* util.c: VarMap, let-chain views, fresh names, atoms, substitution.
 * Requires nothing beyond ir.h; guarantees iteration (no recursion) along
 * let chains, recursion only into nested blocks and operand trees. */
#include "ad/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  if (!p) {
    fputs("chad: out of memory\n", stderr);
    abort();
  }
  return p;
}

/* ------------------------------------------------------------ VarMap */

static unsigned hash_ptr(const void *p) {
  uintptr_t x = (uintptr_t)p;
  x ^= x >> 17;
  x *= 0x9E3779B97F4A7C15ull;
  return (unsigned)(x >> 29);
}

static int varmap_slot(const VarMap *m, const Var *k) {
  unsigned mask = (unsigned)m->cap - 1;
  unsigned i = hash_ptr(k) & mask;
  while (m->keys[i] && m->keys[i] != k)
    i = (i + 1) & mask;
  return (int)i;
}

static void varmap_grow(VarMap *m) {
  VarMap old = *m;
  m->cap = old.cap ? old.cap * 2 : 64;
  m->keys = xcalloc((size_t)m->cap, sizeof *m->keys);
  m->vals = xcalloc((size_t)m->cap, sizeof *m->vals);
  m->len = 0;
  for (int i = 0; i < old.cap; i++)
    if (old.keys[i])
      varmap_put(m, old.keys[i], old.vals[i]);
  free(old.keys);
  free(old.vals);
}

void varmap_put(VarMap *m, const Var *k, void *v) {
  if ((m->len + 1) * 2 > m->cap)
    varmap_grow(m);
  int i = varmap_slot(m, k);
  if (!m->keys[i]) {
    m->keys[i] = k;
    m->len++;
  }
  m->vals[i] = v;
}

void *varmap_get(const VarMap *m, const Var *k) {
  if (!m->cap)
    return NULL;
  int i = varmap_slot(m, k);
  return m->keys[i] ? m->vals[i] : NULL;
}

bool varmap_has(const VarMap *m, const Var *k) {
  return m->cap && m->keys[varmap_slot(m, k)] != NULL;
}

void varmap_copy_into(VarMap *dst, const VarMap *src) {
  for (int i = 0; i < src->cap; i++)
    if (src->keys[i])
      varmap_put(dst, src->keys[i], src->vals[i]);
}

void varmap_free(VarMap *m) {
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof *m);
}

/* ---------------------------------------------------------- Bindings */

void bindings_of(Arena *a, Expr *e, Bindings *out) {
  memset(out, 0, sizeof *out);
  /* room for the whole chain at once: grown by doubling, a long chain's
   * vectors left every smaller copy behind in the arena */
  int n = 0;
  for (const Expr *l = e; l->kind == E_LET; l = l->body)
    n++;
  if (n > 8) {
    out->vars.items = arena_alloc(a, sizeof(void *) * (size_t)n);
    out->rhss.items = arena_alloc(a, sizeof(void *) * (size_t)n);
    out->vars.cap = out->rhss.cap = n;
  }
  while (e->kind == E_LET) {
    bindings_push(a, out, e->var, e->args[0]);
    e = e->body;
  }
  out->result = e;
}

void bindings_push(Arena *a, Bindings *b, Var *v, Expr *rhs) {
  ptrvec_push(a, &b->vars, v);
  ptrvec_push(a, &b->rhss, rhs);
}

Expr *bindings_build(Arena *a, const Bindings *b, Expr *result) {
  Expr *e = result;
  for (int i = b->vars.len - 1; i >= 0; i--)
    e = ex_let(a, b->vars.items[i], b->rhss.items[i], e);
  return e;
}

/* ----------------------------------------------------------- NameSet */

static unsigned hash_str(const char *s) {
  unsigned h = 2166136261u;
  while (*s)
    h = (h ^ (unsigned char)*s++) * 16777619u;
  return h;
}

static bool nameset_has(const NameSet *s, const char *name) {
  if (!s->cap)
    return false;
  unsigned mask = (unsigned)s->cap - 1;
  for (unsigned i = hash_str(name) & mask; s->names[i]; i = (i + 1) & mask)
    if (strcmp(s->names[i], name) == 0)
      return true;
  return false;
}

static void nameset_insert(NameSet *s, char *owned) {
  if ((s->len + 1) * 2 > s->cap) {
    NameSet old = *s;
    s->cap = old.cap ? old.cap * 2 : 64;
    s->names = xcalloc((size_t)s->cap, sizeof *s->names);
    s->len = 0;
    for (int i = 0; i < old.cap; i++)
      if (old.names[i])
        nameset_insert(s, old.names[i]);
    free(old.names);
  }
  unsigned mask = (unsigned)s->cap - 1;
  unsigned i = hash_str(owned) & mask;
  while (s->names[i])
    i = (i + 1) & mask;
  s->names[i] = owned;
  s->len++;
}

static char *xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = xcalloc(n, 1);
  memcpy(p, s, n);
  return p;
}

void nameset_reserve(NameSet *s, const char *name) {
  if (!nameset_has(s, name))
    nameset_insert(s, xstrdup(name));
}

/* C-friendly: '$' and other non-identifier characters become '_'. */
static void sanitize(char *s) {
  for (char *p = s; *p; p++) {
    char c = *p;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_';
    if (!ok)
      *p = '_';
  }
  if (s[0] >= '0' && s[0] <= '9')
    s[0] = '_';
}

static int *base_counter(NameSet *s, const char *base) {
  if ((s->blen + 1) * 2 > s->bcap) {
    int oldcap = s->bcap;
    char **oldb = s->bases;
    int *oldn = s->next;
    s->bcap = oldcap ? oldcap * 2 : 32;
    s->bases = xcalloc((size_t)s->bcap, sizeof *s->bases);
    s->next = xcalloc((size_t)s->bcap, sizeof *s->next);
    s->blen = 0;
    for (int i = 0; i < oldcap; i++)
      if (oldb[i]) {
        *base_counter(s, oldb[i]) = oldn[i];
        free(oldb[i]);
      }
    free(oldb);
    free(oldn);
  }
  unsigned mask = (unsigned)s->bcap - 1;
  unsigned i = hash_str(base) & mask;
  while (s->bases[i] && strcmp(s->bases[i], base) != 0)
    i = (i + 1) & mask;
  if (!s->bases[i]) {
    s->bases[i] = xstrdup(base);
    s->next[i] = 1;
    s->blen++;
  }
  return &s->next[i];
}

const char *nameset_fresh(NameSet *s, Arena *a, const char *base) {
  char buf[128];
  snprintf(buf, sizeof buf, "%s", base && *base ? base : "t");
  sanitize(buf);
  /* A trailing digit would make base "t1" + suffix "_1" read oddly but stay
   * unique; uniqueness is all that matters here. */
  if (!nameset_has(s, buf)) {
    nameset_insert(s, xstrdup(buf));
    return arena_strdup(a, buf);
  }
  int *next = base_counter(s, buf);
  char cand[160];
  for (;; (*next)++) {
    snprintf(cand, sizeof cand, "%s_%d", buf, *next);
    if (!nameset_has(s, cand))
      break;
  }
  (*next)++;
  nameset_insert(s, xstrdup(cand));
  return arena_strdup(a, cand);
}

void nameset_free(NameSet *s) {
  for (int i = 0; i < s->cap; i++)
    free(s->names[i]);
  free(s->names);
  for (int i = 0; i < s->bcap; i++)
    free(s->bases[i]);
  free(s->bases);
  free(s->next);
  memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------- atoms */

bool expr_is_atom(const Expr *e) {
  return e->kind == E_VAR || e->kind == E_CONST || e->kind == E_ZERO;
}

int active_index(const Type *t, int i) {
  int k = 0;
  for (int j = 0; j < i; j++)
    k += type_is_active(t->elems[j]);
  return k;
}

bool type_holds_array(const Type *t) {
  if (t->kind == TY_ARRAY)
    return true;
  if (t->kind == TY_TUPLE && !t->name)
    for (int i = 0; i < t->n; i++)
      if (type_holds_array(t->elems[i]))
        return true;
  return false;
}

bool expr_is_select(const Expr *rhs) {
  return rhs->kind == E_IF && expr_is_atom(rhs->args[0]) && expr_is_atom(rhs->args[1]) &&
         expr_is_atom(rhs->args[2]);
}

bool prim_may_hoist(const Expr *rhs) {
  if (rhs->kind != E_PRIM || !rhs->type)
    return false;
  PrimClass c = prim_info(rhs->op)->cls;
  if ((rhs->op == P_DIV || rhs->op == P_MOD) && rhs->type->kind == TY_INT)
    return false; /* may divide by zero */
  if (c == PC_CAST)
    return rhs->type->kind != TY_INT || !type_is_float(rhs->args[0]->type);
  return c != PC_SHIFT;
}

bool atom_eq(const Expr *x, const Expr *y) {
  if (x->kind != y->kind)
    return false;
  switch (x->kind) {
  case E_VAR:
    return x->var == y->var;
  case E_CONST:
    if (!type_eq(x->type, y->type))
      return false;
    if (x->type->kind == TY_INT)
      return x->ival == y->ival;
    return memcmp(&x->fval, &y->fval, sizeof x->fval) == 0;
  case E_ZERO:
    return type_eq(x->type, y->type);
  default:
    return false;
  }
}

/* ----------------------------------------------------- traversal, subst */

void expr_visit_vars(Expr *e, void (*visit)(Var *v, void *ctx), void *ctx) {
  while (e) {
    if (e->kind == E_VAR) {
      visit(e->var, ctx);
      return;
    }
    for (int i = 0; i < e->nargs; i++)
      expr_visit_vars(e->args[i], visit, ctx);
    e = e->kind == E_LET || expr_is_loop(e) ? e->body : NULL;
  }
}

typedef struct Mention {
  const Var *x;
  const VarMap *set;
  bool found;
} Mention;

static void see_mention(Var *v, void *ctx) {
  Mention *m = ctx;
  m->found = m->found || v == m->x || (m->set && varmap_has(m->set, v));
}

bool expr_mentions(const Expr *e, const Var *x) {
  Mention m = {x, NULL, false};
  expr_visit_vars((Expr *)e, see_mention, &m);
  return m.found;
}

bool expr_mentions_any(const Expr *e, const VarMap *set) {
  Mention m = {NULL, set, false};
  expr_visit_vars((Expr *)e, see_mention, &m);
  return m.found;
}

static Expr *subst_one(Arena *a, Expr *e, const VarMap *subst);

/* Walks the chain without allocating until something changes: most of a
 * function is untouched by a substitution, and copying every chain it
 * visits made nested ifs cost memory quadratic in their depth. */
static Expr *subst_chain(Arena *a, Expr *e, const VarMap *subst) {
  Expr *p = e;
  Expr *first = NULL;
  for (; p->kind == E_LET; p = p->body) {
    first = subst_one(a, p->args[0], subst);
    if (first != p->args[0])
      break;
  }
  Expr *res = p->kind == E_LET ? NULL : subst_one(a, p, subst);
  if (p->kind != E_LET && res == p)
    return e;
  Bindings b = {0};
  for (Expr *q = e; q != p; q = q->body)
    bindings_push(a, &b, q->var, q->args[0]);
  if (p->kind == E_LET) {
    bindings_push(a, &b, p->var, first);
    for (p = p->body; p->kind == E_LET; p = p->body)
      bindings_push(a, &b, p->var, subst_one(a, p->args[0], subst));
    res = subst_one(a, p, subst);
  }
  return bindings_build(a, &b, res);
}

static Expr *subst_one(Arena *a, Expr *e, const VarMap *subst) {
  if (e->kind == E_LET)
    return subst_chain(a, e, subst);
  if (e->kind == E_VAR) {
    Expr *to = varmap_get(subst, e->var);
    return to ? to : e;
  }
  Expr *copy = NULL;
  for (int i = 0; i < e->nargs; i++) {
    Expr *arg = subst_one(a, e->args[i], subst);
    if (arg != e->args[i]) {
      if (!copy)
        copy = ex_clone_shallow(a, e);
      copy->args[i] = arg;
    }
  }
  if (expr_is_loop(e)) {
    Expr *body = subst_one(a, e->body, subst);
    if (body != e->body) {
      if (!copy)
        copy = ex_clone_shallow(a, e);
      copy->body = body;
    }
  }
  return copy ? copy : e;
}

Expr *expr_subst(Arena *a, Expr *e, const VarMap *subst) {
  if (!subst->len)
    return e;
  return subst_one(a, e, subst);
}

bool call_adds_into_buffers(const Expr *rhs) {
  if (rhs->kind != E_CALL || !rhs->name)
    return false;
  size_t n = strlen(rhs->name);
  if (n < 4 || (strcmp(rhs->name + n - 4, "$bwd") != 0 && strcmp(rhs->name + n - 4, "$rev") != 0))
    return false;
  for (int i = 0; i < rhs->nargs; i++)
    if (rhs->args[i]->type && rhs->args[i]->type->kind == TY_ARRAY)
      return true;
  return false;
}

/* Does the linear map m hold a callee's derivative that adds into
 * buffers (an lcall given cotangent arrays)? */
static bool map_adds_into_buffers(const Expr *m) {
  if (m->kind == E_LCALL) {
    for (int i = 0; i < m->nargs; i++)
      if (m->args[i]->type && m->args[i]->type->kind == TY_ARRAY)
        return true;
    return false;
  }
  for (int i = 0; i < m->nargs; i++)
    if (map_adds_into_buffers(m->args[i]))
      return true;
  return false;
}

bool lapply_adds_into_buffers(const Expr *rhs) {
  return rhs->kind == E_LAPPLY && map_adds_into_buffers(rhs->args[0]);
}

const char *c_name_of(Arena *a, const char *ir_name) {
  const char *dollar = strchr(ir_name, '$');
  if (!dollar)
    return ir_name;
  size_t base = (size_t)(dollar - ir_name);
  const char *suffix = dollar + 1;
  bool contract = strcmp(suffix, "fwd") == 0 || strcmp(suffix, "rev") == 0;
  return arena_printf(a, "%.*s%s%s", (int)base, ir_name, contract ? "_" : "__",
                      suffix);
}

bool expr_is_math_call(const Expr *e) {
  const PrimInfo *pi = e->kind == E_PRIM ? prim_info(e->op) : NULL;
  return e->kind == E_CALL || (pi && pi->cls == PC_MATH && !pi->infix);
}

bool expr_contains(const Expr *e, ExprKind k) {
  for (; e->kind == E_LET; e = e->body)
    if (expr_contains(e->args[0], k))
      return true;
  if (e->kind == k)
    return true;
  for (int i = 0; i < e->nargs; i++)
    if (expr_contains(e->args[i], k))
      return true;
  return expr_is_loop(e) && expr_contains(e->body, k);
}

int expr_count_nodes(const Expr *e, int cap) {
  int n = 0;
  for (; e->kind == E_LET && n < cap; e = e->body)
    n += 1 + expr_count_nodes(e->args[0], cap - n);
  n++;
  for (int i = 0; i < e->nargs && n < cap; i++)
    n += expr_count_nodes(e->args[i], cap - n);
  if (expr_is_loop(e) && n < cap)
    n += expr_count_nodes(e->body, cap - n);
  return n;
}

bool expr_any(const Expr *e, bool (*is)(const Expr *)) {
  for (; e->kind == E_LET; e = e->body)
    if (expr_any(e->args[0], is))
      return true;
  if (is(e))
    return true;
  for (int i = 0; i < e->nargs; i++)
    if (expr_any(e->args[i], is))
      return true;
  return expr_is_loop(e) && expr_any(e->body, is);
}

/* `names` holds x and the variables bound to views and copies of it, in
 * the order e binds them. */
static bool passes_array(const Expr *e, VarMap *names) {
  for (; e->kind == E_LET; e = e->body) {
    const Expr *r = e->args[0];
    const Expr *src = r->kind == E_VIEW ? r->args[0] : r->kind == E_VAR ? r : NULL;
    if (src && src->kind == E_VAR && varmap_has(names, src->var))
      varmap_put(names, e->var, e->var);
    else if (passes_array(r, names))
      return true;
  }
  if (e->kind == E_CALL)
    for (int i = 0; i < e->nargs; i++)
      if (e->args[i]->kind == E_VAR && varmap_has(names, e->args[i]->var))
        return true;
  for (int i = 0; i < e->nargs; i++)
    if (e->args[i] && !expr_is_atom(e->args[i]) && passes_array(e->args[i], names))
      return true;
  return expr_is_loop(e) && passes_array(e->body, names);
}

bool expr_passes_array(const Expr *e, const Var *x) {
  VarMap names = {0};
  varmap_put(&names, x, (void *)x);
  bool passed = passes_array(e, &names);
  varmap_free(&names);
  return passed;
}

Expr *expr_map_blocks(Arena *a, Expr *r, Expr *(*f)(void *ctx, Expr *block), void *ctx) {
  Expr *c = NULL;
  for (int i = 0; i < r->nargs; i++) {
    if (!r->args[i] || expr_is_atom(r->args[i]))
      continue;
    Expr *n = f(ctx, r->args[i]);
    if (n == r->args[i])
      continue;
    if (!c) {
      c = arena_alloc(a, sizeof *c);
      *c = *r;
      c->args = arena_alloc(a, sizeof(Expr *) * (size_t)r->nargs);
      for (int j = 0; j < r->nargs; j++)
        c->args[j] = r->args[j];
    }
    c->args[i] = n;
  }
  if (r->body && r->kind != E_LET) {
    Expr *n = f(ctx, r->body);
    if (n != r->body) {
      if (!c) {
        c = arena_alloc(a, sizeof *c);
        *c = *r;
      }
      c->body = n;
    }
  }
  return c ? c : r;
}

Expr *fold_self_comparison(Arena *a, const Expr *rhs) {
  if (rhs->kind != E_PRIM || rhs->nargs != 2 || rhs->op < P_LT || rhs->op > P_NE || !rhs->type)
    return NULL;
  const Expr *x = rhs->args[0], *y = rhs->args[1];
  if (x->kind != E_VAR || y->kind != E_VAR || x->var != y->var)
    return NULL;
  bool is_int = x->type && x->type->kind == TY_INT;
  bool holds = rhs->op == P_LE || rhs->op == P_GE || rhs->op == P_EQ;
  if (!is_int && rhs->op != P_LT && rhs->op != P_GT)
    return NULL;
  return ex_const_int(a, rhs->type, holds);
}

bool commutes_with_accums(const Expr *rhs) {
  switch (rhs->kind) {
  case E_CONST:
  case E_VAR:
  case E_PRIM:
  case E_TUPLE:
  case E_GET:
    return !type_holds_array(rhs->type);
  case E_ACCUM:
    return rhs->index == 0;
  default:
    return false;
  }
}

void collect_let_defs(VarMap *defs, Expr *e) {
  for (; e; e = e->kind == E_LET || expr_is_loop(e) ? e->body : NULL) {
    if (e->kind == E_LET)
      varmap_put(defs, e->var, e->args[0]);
    for (int i = 0; i < e->nargs; i++)
      if (!expr_is_atom(e->args[i]))
        collect_let_defs(defs, e->args[i]);
  }
}

typedef struct PairWalk {
  Arena *a;
  bool (*candidate)(const Expr *rhs);
  bool (*attempt)(void *ctx, Bindings *b, int k);
  void *ctx;
  bool done;
} PairWalk;

static Expr *pair_block(PairWalk *w, Expr *e);
static Expr *pair_block_of(void *ctx, Expr *block) { return pair_block(ctx, block); }

static Expr *pair_block(PairWalk *w, Expr *e) {
  if (w->done)
    return e;
  Bindings b = {0};
  bindings_of(w->a, e, &b);
  bool changed = false;
  for (int k = 0; k < b.vars.len && !w->done; k++) {
    Expr *r = b.rhss.items[k];
    Expr *n = expr_map_blocks(w->a, r, pair_block_of, w);
    if (n != r) {
      b.rhss.items[k] = n;
      changed = true;
    }
  }
  for (int k = 0; k < b.vars.len && !w->done; k++)
    if (w->candidate(b.rhss.items[k]) && w->attempt(w->ctx, &b, k))
      w->done = changed = true;
  Expr *result = w->done ? b.result : expr_map_blocks(w->a, b.result, pair_block_of, w);
  changed = changed || result != b.result;
  return changed ? bindings_build(w->a, &b, result) : e;
}

Expr *rewrite_first_pair(Arena *a, Expr *e, bool (*candidate)(const Expr *rhs),
                         bool (*attempt)(void *ctx, Bindings *b, int k), void *ctx) {
  PairWalk w = {.a = a, .candidate = candidate, .attempt = attempt, .ctx = ctx};
  return pair_block(&w, e);
}

bool movable_binding(const Expr *r, bool reads) {
  switch (r->kind) {
  case E_CONST:
  case E_VAR:
  case E_PRIM:
  case E_TUPLE:
  case E_GET:
  case E_LEN:
  case E_VIEW:
  case E_ALLOC: /* fresh memory, earlier */
    return true;
  case E_INDEX:
    return reads;
  case E_IF:
    return expr_is_select(r);
  default:
    return false;
  }
}

typedef struct Mentions {
  VarMap binders; /* every variable e binds: lets, loop counters, states */
  VarMap all;     /* Var -> its number of mentions */
  VarMap reads;   /* Var -> mentions as the array of an index, len or view */
  VarMap views;   /* Var bound to (view a k) -> a's Var */
  VarMap fresh;   /* Var bound to a build or an alloc: memory of its own */
} Mentions;

static void count_mention(Var *v, void *ctx) {
  VarMap *m = ctx;
  varmap_put(m, v, (void *)((intptr_t)varmap_get(m, v) + 1));
}

static void note_mentions(Mentions *mn, Expr *e) {
  for (; e->kind == E_LET; e = e->body) {
    varmap_put(&mn->binders, e->var, e->var);
    Expr *r = e->args[0];
    if (r->kind == E_VIEW && r->args[0]->kind == E_VAR)
      varmap_put(&mn->views, e->var, r->args[0]->var);
    if (r->kind == E_BUILD || r->kind == E_ALLOC)
      varmap_put(&mn->fresh, e->var, e->var);
    note_mentions(mn, r);
  }
  if ((e->kind == E_INDEX || e->kind == E_LEN || e->kind == E_VIEW) && e->args[0]->kind == E_VAR)
    count_mention(e->args[0]->var, &mn->reads);
  /* a callee that returns no array cannot have written one in place (an
   * in-out argument comes back as its result), and one that adds into
   * buffers is an effect */
  if (e->kind == E_CALL && !type_holds_array(e->type) && !call_adds_into_buffers(e))
    for (int i = 0; i < e->nargs; i++)
      if (e->args[i]->kind == E_VAR && e->args[i]->type->kind == TY_ARRAY)
        count_mention(e->args[i]->var, &mn->reads);
  if (e->var && expr_is_loop(e))
    varmap_put(&mn->binders, e->var, e->var);
  if (e->var2)
    varmap_put(&mn->binders, e->var2, e->var2);
  for (int i = 0; i < e->nargs; i++)
    if (!expr_is_atom(e->args[i]))
      note_mentions(mn, e->args[i]);
  if (e->body)
    note_mentions(mn, e->body);
}

static bool only_read(const Mentions *mn, const Var *v) {
  return v->type->kind == TY_ARRAY && varmap_get(&mn->all, v) == varmap_get(&mn->reads, v);
}

/* The arrays some view of which (at any depth) is mentioned other than
 * to be read: memory written through a view although the array itself
 * is only read. */
static void written_through_views(const Mentions *mn, VarMap *out) {
  for (bool grew = true; grew;) {
    grew = false;
    for (int i = 0; i < mn->views.cap; i++) {
      const Var *u = mn->views.keys[i], *base = mn->views.vals[i];
      if (u && !varmap_has(out, base) && (!only_read(mn, u) || varmap_has(out, u))) {
        varmap_put(out, base, (void *)base);
        grew = true;
      }
    }
  }
}

void collect_read_only(Expr *e, VarMap *out) {
  Mentions mn = {0};
  note_mentions(&mn, e);
  expr_visit_vars(e, count_mention, &mn.all);
  VarMap written = {0};
  written_through_views(&mn, &written);
  for (int i = 0; i < mn.all.cap; i++) {
    const Var *v = mn.all.keys[i];
    if (v && (!varmap_has(&mn.binders, v) || varmap_has(&mn.fresh, v)) && only_read(&mn, v) &&
        !varmap_has(&written, v))
      varmap_put(out, v, (void *)v);
  }
  varmap_free(&written);
  for (bool grew = true; grew;) {
    grew = false;
    for (int i = 0; i < mn.views.cap; i++) {
      const Var *v = mn.views.keys[i];
      if (v && !varmap_has(out, v) && varmap_has(out, mn.views.vals[i]) &&
          only_read(&mn, v)) {
        varmap_put(out, v, (void *)v);
        grew = true;
      }
    }
  }
  varmap_free(&mn.binders);
  varmap_free(&mn.all);
  varmap_free(&mn.reads);
  varmap_free(&mn.views);
  varmap_free(&mn.fresh);
}
