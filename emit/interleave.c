/* interleave.c: which interleavings and de-interleavings of blocks the
 * emitter writes in place (DESIGN 8.62; interleave.h says what is found).
 *
 * Requires: a function's final IR (ANF, checked), and the number of
 * references of every variable in it. Guarantees: a build reported in
 * `blocks` is the only producer of the components its interleaving reads,
 * those components are read nowhere else, and between the two bindings
 * only numbers and projections of the build are bound; a buffer reported in
 * `parts` is zero until its de-interleaving sum adds one element of the
 * other array into each of its elements, once, and is only read by
 * element after that sum, from an array that nothing writes.
 *
 * Both loops are recognised by what their body computes for each residue
 * c = k mod m, evaluated abstractly (`eval_block`): the interleaving's
 * element k must be element k / m of one component of the build, a
 * different one for each (leaf, c); the sum's step must add element k of
 * an array into element k / m of one buffer, a different one for each c. */
#include "emit/interleave.h"

#include <string.h>

/* An abstract value of a loop body's term, for one residue c. */
typedef enum AvKind {
  AV_FAIL,   /* anything else: the loop is not one of the two forms */
  AV_K,      /* the loop's counter k */
  AV_Q,      /* k / m */
  AV_INT,    /* an integer known for this residue (`v`): k mod m, a constant */
  AV_BLOCKS, /* the build `var` of a tuple of arrays */
  AV_PART,   /* component `v` of the build `var` */
  AV_ELEM,   /* element k / m of component `v` of the build `var` */
  AV_ARRAY,  /* the array `var`, bound outside the loop */
  AV_READ,   /* element k of the array `var` */
  AV_TUPLE,  /* a tuple of `n` values `elems` */
} AvKind;

typedef struct Av {
  AvKind kind;
  long long v;
  Var *var;
  int n;
  struct Av **elems;
} Av;

/* An accumulation a step makes: `buf[k / m] += of[k]`. */
typedef struct Effect {
  Var *buf, *of;
} Effect;

typedef struct Eval {
  Arena *a;
  const VarMap *defs; /* Var -> right-hand side, for the whole function */
  VarMap env;         /* the loop body's variables -> Av* */
  Var *k;
  int m;
  long long c;
  PtrVec effects; /* Effect* */
} Eval;

typedef struct Planner {
  Arena *a;
  const VarMap *uses;
  VarMap defs;
  VarMap index_reads; /* Var -> references as the array of an E_INDEX */
  VarMap len_reads;   /* Var -> references as the array of an E_LEN */
  VarMap accums;      /* Var -> references as the buffer of an E_ACCUM */
  InterleavePlan *out;
} Planner;

static Av fail_av = {AV_FAIL, 0, NULL, 0, NULL};

static Av *av_new(Eval *s, AvKind kind, long long v, Var *var) {
  Av *r = arena_alloc(s->a, sizeof *r);
  *r = (Av){kind, v, var, 0, NULL};
  return r;
}

static bool is_tuple_of_arrays(const Type *t) {
  if (t->kind != TY_TUPLE || t->name || t->n == 0)
    return false;
  for (int i = 0; i < t->n; i++)
    if (t->elems[i]->kind != TY_ARRAY)
      return false;
  return true;
}

/* A variable bound outside the loop: a build of arrays, a component of
 * one, or some other array. */
static Av *eval_free(Eval *s, Var *v) {
  Expr *rhs = varmap_get(s->defs, v);
  if (rhs && rhs->kind == E_BUILD && is_tuple_of_arrays(rhs->type))
    return av_new(s, AV_BLOCKS, 0, v);
  if (rhs && rhs->kind == E_GET && rhs->args[0]->kind == E_VAR) {
    Expr *of = varmap_get(s->defs, rhs->args[0]->var);
    if (of && of->kind == E_BUILD && is_tuple_of_arrays(of->type))
      return av_new(s, AV_PART, rhs->index, rhs->args[0]->var);
  }
  if (v->type->kind == TY_ARRAY)
    return av_new(s, AV_ARRAY, 0, v);
  return &fail_av;
}

static Av *eval_atom(Eval *s, const Expr *x) {
  if (x->kind == E_CONST && x->type->kind == TY_INT)
    return av_new(s, AV_INT, x->ival, NULL);
  if (x->kind != E_VAR)
    return &fail_av;
  if (x->var == s->k)
    return av_new(s, AV_K, 0, NULL);
  Av *r = varmap_get(&s->env, x->var);
  return r ? r : eval_free(s, x->var);
}

static Av *eval_block(Eval *s, Expr *block);

static Av *eval_prim(Eval *s, const Expr *rhs) {
  if (rhs->nargs != 2)
    return &fail_av;
  Av *x = eval_atom(s, rhs->args[0]), *y = eval_atom(s, rhs->args[1]);
  if ((rhs->op == P_DIV || rhs->op == P_MOD) && x->kind == AV_K && y->kind == AV_INT && y->v == s->m)
    return rhs->op == P_DIV ? av_new(s, AV_Q, 0, NULL) : av_new(s, AV_INT, s->c, NULL);
  if ((rhs->op == P_EQ || rhs->op == P_NE) && x->kind == AV_INT && y->kind == AV_INT)
    return av_new(s, AV_INT, (x->v == y->v) == (rhs->op == P_EQ), NULL);
  return &fail_av;
}

static Av *eval_rhs(Eval *s, Expr *rhs) {
  switch (rhs->kind) {
  case E_VAR:
  case E_CONST:
    return eval_atom(s, rhs);
  case E_PRIM:
    return eval_prim(s, rhs);
  case E_GET: {
    Av *t = eval_atom(s, rhs->args[0]);
    if (t->kind == AV_TUPLE && rhs->index < t->n)
      return t->elems[rhs->index];
    return t->kind == AV_BLOCKS ? av_new(s, AV_PART, rhs->index, t->var) : &fail_av;
  }
  case E_INDEX: {
    Av *arr = eval_atom(s, rhs->args[0]), *i = eval_atom(s, rhs->args[1]);
    if (arr->kind == AV_PART && i->kind == AV_Q)
      return av_new(s, AV_ELEM, arr->v, arr->var);
    if (arr->kind == AV_ARRAY && i->kind == AV_K)
      return av_new(s, AV_READ, 0, arr->var);
    return &fail_av;
  }
  case E_IF: {
    Av *c = eval_atom(s, rhs->args[0]);
    return c->kind == AV_INT ? eval_block(s, rhs->args[c->v ? 1 : 2]) : &fail_av;
  }
  case E_TUPLE: {
    if (rhs->name)
      return &fail_av;
    Av *t = av_new(s, AV_TUPLE, 0, NULL);
    t->n = rhs->nargs;
    t->elems = arena_alloc(s->a, sizeof(Av *) * (size_t)(rhs->nargs ? rhs->nargs : 1));
    for (int i = 0; i < rhs->nargs; i++)
      if ((t->elems[i] = eval_atom(s, rhs->args[i]))->kind == AV_FAIL)
        return &fail_av;
    return t;
  }
  case E_ACCUM: {
    Av *buf = eval_atom(s, rhs->args[0]), *i = eval_atom(s, rhs->args[1]),
       *v = eval_atom(s, rhs->args[2]);
    if (rhs->index != 0 || buf->kind != AV_ARRAY || i->kind != AV_Q || v->kind != AV_READ)
      return &fail_av;
    Effect *eff = arena_alloc(s->a, sizeof *eff);
    *eff = (Effect){buf->var, v->var};
    ptrvec_push(s->a, &s->effects, eff);
    Av *unit = av_new(s, AV_TUPLE, 0, NULL);
    return unit;
  }
  default:
    return &fail_av;
  }
}

static Av *eval_block(Eval *s, Expr *block) {
  for (; block->kind == E_LET; block = block->body) {
    Av *v = eval_rhs(s, block->args[0]);
    if (v->kind == AV_FAIL)
      return v;
    varmap_put(&s->env, block->var, v);
  }
  return eval_atom(s, block);
}

/* The stride m of a loop body over counter k: the constant of its first
 * `k / m` or `k mod m` at the top of the body; 0 when there is none. */
static int stride_of(const Expr *body, const Var *k) {
  for (; body->kind == E_LET; body = body->body) {
    const Expr *r = body->args[0];
    if (r->kind == E_PRIM && (r->op == P_DIV || r->op == P_MOD) && r->args[0]->kind == E_VAR &&
        r->args[0]->var == k && r->args[1]->kind == E_CONST && r->args[1]->ival >= 1 &&
        r->args[1]->ival <= 64)
      return (int)r->args[1]->ival;
  }
  return 0;
}

/* The body of loop `rhs` for residue c; effects are collected in s. */
static Av *eval_step(Planner *p, Eval *s, Expr *rhs, int m, int c) {
  varmap_free(&s->env);
  *s = (Eval){p->a, &p->defs, {0}, rhs->var, m, c, {0}};
  return eval_block(s, rhs->body);
}

/* The length an atom stands for, looked through `len` of an array made
 * by a build or an allocation (or a component of such a build). */
static const Expr *length_atom(Planner *p, const Expr *n) {
  for (int guard = 0; guard < 4 && n->kind == E_VAR; guard++) {
    const Expr *r = varmap_get(&p->defs, n->var);
    if (!r || r->kind != E_LEN || r->args[0]->kind != E_VAR)
      return n;
    const Expr *arr = varmap_get(&p->defs, r->args[0]->var);
    if (arr && arr->kind == E_GET && arr->args[0]->kind == E_VAR)
      arr = varmap_get(&p->defs, arr->args[0]->var);
    if (!arr || (arr->kind != E_BUILD && arr->kind != E_ALLOC))
      return n;
    n = arr->args[0];
  }
  return n;
}

/* Is atom big = m times the length atom small? */
static bool is_m_times(Planner *p, const Expr *big, int m, const Expr *small) {
  small = length_atom(p, small);
  if (big->kind == E_CONST)
    return small->kind == E_CONST && big->ival == m * small->ival;
  const Expr *r = big->kind == E_VAR ? varmap_get(&p->defs, big->var) : NULL;
  if (!r || r->kind != E_PRIM || r->op != P_MUL)
    return false;
  for (int i = 0; i < 2; i++)
    if (r->args[i]->kind == E_CONST && r->args[i]->ival == m &&
        atom_eq(length_atom(p, r->args[1 - i]), small))
      return true;
  return false;
}

/* Notes that the elided loop `loop` reads its step count n. */
static void note_count(Planner *p, Var *loop, const Expr *n) {
  if (n->kind != E_VAR)
    return;
  PtrVec *users = varmap_get(&p->out->counts, n->var);
  if (!users) {
    users = arena_alloc(p->a, sizeof *users);
    *users = (PtrVec){0};
    varmap_put(&p->out->counts, n->var, users);
  }
  ptrvec_push(p->a, users, loop);
}

static void count_ref(Var *v, void *ctx) {
  VarMap *m = ctx;
  varmap_put(m, v, (void *)((long)varmap_get(m, v) + 1));
}

static long uses_of(Planner *p, const Var *v) { return (long)varmap_get(p->uses, v); }

/* Every node of kind k in e whose first argument is a variable, counted
 * by variable. */
static void count_reads(Expr *e, ExprKind k, VarMap *m) {
  for (; e->kind == E_LET; e = e->body)
    count_reads(e->args[0], k, m);
  if (e->kind == k && e->args[0]->kind == E_VAR)
    count_ref(e->args[0]->var, m);
  for (int i = 0; i < e->nargs; i++)
    if (!expr_is_atom(e->args[i]))
      count_reads(e->args[i], k, m);
  if (e->body)
    count_reads(e->body, k, m);
}

/* Is every reference to the build `blocks` a projection that only y's body
 * (whose references in_y counts) or a length reads (DESIGN 8.62: the
 * lengths of the cotangent buffers of its components)? */
static bool read_only_by(Planner *p, Var *blocks, const VarMap *in_y) {
  long gets = 0;
  for (int i = 0; i < p->defs.cap; i++) {
    Var *g = (Var *)p->defs.keys[i];
    Expr *r = g ? p->defs.vals[i] : NULL;
    if (!r || r->kind != E_GET || r->args[0]->kind != E_VAR || r->args[0]->var != blocks)
      continue;
    gets++;
    if (uses_of(p, g) != (long)varmap_get(in_y, g) + (long)varmap_get(&p->len_reads, g))
      return false;
  }
  return uses_of(p, blocks) == gets;
}

static void flatten_leaves(Av *v, PtrVec *out, Arena *a) {
  if (v->kind != AV_TUPLE) {
    ptrvec_push(a, out, v);
    return;
  }
  for (int i = 0; i < v->n; i++)
    flatten_leaves(v->elems[i], out, a);
}

static int leaf_count_of(const Type *t) {
  if (t->kind == TY_ARRAY)
    return 1;
  return is_tuple_of_arrays(t) ? t->n : 0;
}

/* The interleaving y = rhs at position t of block b, of some build before
 * it: records the plan when every condition holds. */
static void try_interleave(Planner *p, Bindings *b, int t) {
  Var *y = b->vars.items[t];
  Expr *rhs = b->rhss.items[t];
  int m = stride_of(rhs->body, rhs->var), leaves = leaf_count_of(rhs->type);
  if (!m || !leaves)
    return;
  Var *blocks = NULL;
  int *leaf = NULL, *offset = NULL, n_comp = 0;
  Eval s = {0};
  for (int c = 0; c < m; c++) {
    PtrVec got = {0};
    Av *r = eval_step(p, &s, rhs, m, c);
    if (r->kind == AV_FAIL || s.effects.len)
      goto out;
    flatten_leaves(r, &got, p->a);
    if (got.len != leaves)
      goto out;
    for (int l = 0; l < leaves; l++) {
      Av *el = got.items[l];
      if (el->kind != AV_ELEM || (blocks && el->var != blocks))
        goto out;
      if (!blocks) {
        blocks = el->var;
        Expr *made = varmap_get(&p->defs, blocks);
        n_comp = made->type->n;
        if (n_comp != m * leaves)
          goto out;
        leaf = arena_alloc(p->a, sizeof(int) * (size_t)n_comp);
        offset = arena_alloc(p->a, sizeof(int) * (size_t)n_comp);
        for (int j = 0; j < n_comp; j++)
          leaf[j] = -1;
      }
      if (el->v < 0 || el->v >= n_comp || leaf[el->v] >= 0)
        goto out;
      leaf[el->v] = l, offset[el->v] = c;
    }
  }
  /* the build: earlier in this block, m times shorter, its components of
   * the element types of the leaves they fill */
  int tb = -1;
  for (int i = 0; i < t; i++)
    if (b->vars.items[i] == blocks)
      tb = i;
  Expr *made = tb >= 0 ? b->rhss.items[tb] : NULL;
  if (!made || !is_m_times(p, rhs->args[0], m, made->args[0]))
    goto out;
  for (int j = 0; j < n_comp; j++) {
    const Type *lt = rhs->type->kind == TY_ARRAY ? rhs->type : rhs->type->elems[leaf[j]];
    if (!type_eq(made->type->elems[j], lt))
      goto out;
  }
  /* nothing but y reads the build, and only numbers and projections of
   * the build are bound between the two */
  VarMap in_y = {0};
  expr_visit_vars(rhs->body, count_ref, &in_y);
  bool ok = read_only_by(p, blocks, &in_y);
  for (int i = tb + 1; i < t && ok; i++) {
    Expr *r = b->rhss.items[i];
    ok = (r->kind == E_GET && r->args[0]->kind == E_VAR && r->args[0]->var == blocks) ||
         ((r->kind == E_PRIM || r->kind == E_CONST || r->kind == E_VAR) &&
          (r->type->kind == TY_INT || type_is_float(r->type)));
  }
  varmap_free(&in_y);
  if (!ok)
    goto out;
  Interleave *il = arena_alloc(p->a, sizeof *il);
  *il = (Interleave){blocks, y, rhs->args[0], m, n_comp, leaf, offset};
  varmap_put(&p->out->blocks, blocks, il);
  varmap_put(&p->out->results, y, il);
  note_count(p, y, rhs->args[0]);
out:
  varmap_free(&s.env);
}

/* Is array y, which a de-interleaving sum reads, the same after the sum
 * as during it: only ever read by element, or also a buffer that the
 * bindings before the sum in its block (whose accumulations `before`
 * counts) add into, and nothing else? (Not a view or an alias: all its
 * references are reads and those accumulations.) */
static bool complete_before(Planner *p, Var *y, const VarMap *before) {
  long accums = (long)varmap_get(&p->accums, y);
  return accums == (long)varmap_get(before, y) &&
         uses_of(p, y) == (long)varmap_get(&p->index_reads, y) + accums;
}

/* The de-interleaving sum s = rhs at position t of block b. */
static void try_gather(Planner *p, Bindings *b, int t) {
  Var *sum = b->vars.items[t];
  Expr *rhs = b->rhss.items[t];
  int m = stride_of(rhs->body, rhs->var);
  if (!m || rhs->nargs != 1 || rhs->type->kind != TY_TUPLE || rhs->type->n != 0 ||
      uses_of(p, sum) != 0)
    return;
  Eval s = {0};
  PtrVec bufs = {0};
  PtrVec parts = {0};
  for (int c = 0; c < m; c++) {
    Av *r = eval_step(p, &s, rhs, m, c);
    if (r->kind == AV_FAIL)
      goto out;
    for (int i = 0; i < s.effects.len; i++) {
      Effect *eff = s.effects.items[i];
      for (int j = 0; j < bufs.len; j++)
        if (bufs.items[j] == eff->buf)
          goto out; /* a buffer filled at two residues */
      StridedPart *part = arena_alloc(p->a, sizeof *part);
      *part = (StridedPart){eff->of, sum, m, c};
      ptrvec_push(p->a, &bufs, eff->buf);
      ptrvec_push(p->a, &parts, part);
    }
  }
  if (!bufs.len)
    goto out;
  /* each buffer: allocated earlier in this block, m times shorter than the
   * sum's steps, added into once (by the sum), then only read by element
   * after it; the array read is never written */
  VarMap in_sum = {0}, after = {0}, before = {0};
  expr_visit_vars(rhs->body, count_ref, &in_sum);
  for (int i = t + 1; i < b->vars.len; i++)
    count_reads(b->rhss.items[i], E_INDEX, &after);
  count_reads(b->result, E_INDEX, &after);
  for (int i = 0; i < t; i++)
    count_reads(b->rhss.items[i], E_ACCUM, &before);
  bool ok = true;
  for (int j = 0; j < bufs.len && ok; j++) {
    Var *buf = bufs.items[j];
    StridedPart *part = parts.items[j];
    int ta = -1;
    for (int i = 0; i < t; i++)
      if (b->vars.items[i] == buf)
        ta = i;
    Expr *alloc = ta >= 0 ? b->rhss.items[ta] : NULL;
    ok = alloc && alloc->kind == E_ALLOC && is_m_times(p, rhs->args[0], m, alloc->args[0]) &&
         (long)varmap_get(&in_sum, buf) == 1 &&
         uses_of(p, buf) == 1 + (long)varmap_get(&after, buf) && part->of != buf &&
         complete_before(p, part->of, &before) &&
         type_eq(alloc->type, part->of->type);
  }
  varmap_free(&in_sum);
  varmap_free(&after);
  varmap_free(&before);
  if (!ok)
    goto out;
  PtrVec *list = arena_alloc(p->a, sizeof *list);
  *list = bufs;
  varmap_put(&p->out->gathers, sum, list);
  note_count(p, sum, rhs->args[0]);
  for (int j = 0; j < bufs.len; j++)
    varmap_put(&p->out->parts, bufs.items[j], parts.items[j]);
out:
  varmap_free(&s.env);
}

static void plan_expr(Planner *p, Expr *e);

static void plan_block(Planner *p, Expr *block) {
  Bindings b;
  bindings_of(p->a, block, &b);
  for (int t = 0; t < b.vars.len; t++) {
    Expr *rhs = b.rhss.items[t];
    if (rhs->kind == E_BUILD)
      try_interleave(p, &b, t);
    else if (rhs->kind == E_SUM)
      try_gather(p, &b, t);
    plan_expr(p, rhs);
  }
}

/* The blocks nested in a right-hand side: branches, loop bodies. */
static void plan_expr(Planner *p, Expr *e) {
  for (int i = 0; i < e->nargs; i++)
    if (!expr_is_atom(e->args[i]))
      plan_block(p, e->args[i]);
  if (e->body)
    plan_block(p, e->body);
}

void interleave_plan(Arena *a, Expr *body, const VarMap *uses, InterleavePlan *out) {
  memset(out, 0, sizeof *out);
  Planner p = {a, uses, {0}, {0}, {0}, {0}, out};
  collect_let_defs(&p.defs, body);
  count_reads(body, E_INDEX, &p.index_reads);
  count_reads(body, E_LEN, &p.len_reads);
  count_reads(body, E_ACCUM, &p.accums);
  plan_block(&p, body);
  varmap_free(&p.defs);
  varmap_free(&p.index_reads);
  varmap_free(&p.len_reads);
  varmap_free(&p.accums);
}

void interleave_plan_free(InterleavePlan *p) {
  varmap_free(&p->blocks);
  varmap_free(&p->results);
  varmap_free(&p->gathers);
  varmap_free(&p->parts);
  varmap_free(&p->counts);
}
