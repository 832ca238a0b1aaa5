/* final.c: element reads that no later write of a loop overwrites
 * (DESIGN 8.31).
 *
 * Requires: f's body in ANF with unique binders, type-checked, and the
 * loop a fold bound at its top level. Guarantees: final_read(v) only when
 * no write the loop makes after v's read can be to the element v read,
 * proven by dependence analysis of affine indices:
 *
 *  - Addresses. An access `index A e` or `update A e x` is at offset(A) + e
 *    in A's memory, where views add their offsets and versions (updates,
 *    copies, a fold's state) keep their array's. Arrays are not told apart:
 *    every write may be to the read's memory (sound, and the loops this
 *    serves write one array).
 *  - Integers as polynomials. An index is expanded, through the bindings
 *    that define it, into a polynomial of degree at most 2 over atoms: loop
 *    counters and integers the loop computes otherwise (one unknown per
 *    access), and integers bound outside the loop (shared by the two
 *    accesses compared). Only signed C arithmetic is expanded: its overflow
 *    is undefined, so the polynomial is exact.
 *  - Context. A counter c of a loop around an access has 0 <= c < N for
 *    the loop's trip count N (for `if t then X else 0`, X: when t is false
 *    no step runs). The write's counter of the analysed loop is at least
 *    the read's: the same step or a later one. The same step's writes
 *    before the read are included, which only weakens the result.
 *  - Disjointness. {context, address of the read = address of the write}
 *    has no solution: Fourier-Motzkin elimination over the rationals,
 *    products of atoms taken as unknowns of their own, rows tightened to
 *    integers. Where that fails, a row-major address s*R + C, s bound
 *    outside the loop, is split: when 0 <= C < s for both accesses, equal
 *    addresses have equal C and equal R, which the context may refute
 *    (Cholesky's read l[i*n + k], k < j, against its writes l[i*n + j'],
 *    j' >= j, since column k is never column j').
 * A call given an array and a scatter in the loop may write memory in ways
 * not modelled: then every answer is false. */
#include <stdlib.h>
#include <string.h>

#include "ad/final.h"

enum {
  MAX_TERMS = 16, /* terms of a polynomial */
  MAX_UNKNOWNS = 24, /* monomials in one system */
  MAX_ROWS = 2000,   /* rows during elimination, beyond which nothing is proven */
  MAX_DEPTH = 48,    /* bindings followed through from one atom */
};
#define MAX_COEF (1LL << 40) /* beyond this a row is dropped as unproven */

typedef struct Loop Loop;
struct Loop {
  Var *counter;
  Expr *count;  /* trip count atom; NULL for a while loop */
  Loop *parent; /* the loop around it, NULL at the top level */
};

typedef struct Def {
  Expr *rhs;
  Loop *loop;  /* the innermost loop around the binding, or NULL */
  bool inside; /* bound within the analysed loop */
} Def;

typedef struct Access {
  Expr *array, *index;
  Loop *loop;
} Access;

struct FinalReads {
  Arena *a;
  Expr *target;    /* the analysed fold */
  Loop *top;       /* its loop, once found */
  VarMap defs;     /* Var -> Def* */
  VarMap counters; /* counter Var -> Loop*, for loops within the target */
  VarMap states;   /* a loop's state Var -> the loop's Expr */
  PtrVec writes;   /* Access*: the target's updates, at any depth */
  bool unknown_writes; /* a call or scatter in the target may write memory */
};

/* ------------------------------------------------------------ the walk */

static void walk(FinalReads *fr, Expr *e, Loop *loop, bool inside);

static bool is_loop(const Expr *e) {
  switch (e->kind) {
  case E_FOLD: case E_FOLDSAVE: case E_WHILE: case E_WHILESAVE:
  case E_BUILD: case E_SUM: case E_SCATTER:
    return true;
  default:
    return false;
  }
}

static void walk_loop(FinalReads *fr, Expr *rhs, Loop *loop, bool inside) {
  Loop *l = arena_alloc(fr->a, sizeof *l);
  bool in = inside || rhs == fr->target;
  l->counter = rhs->var;
  l->count = rhs->kind == E_WHILE || rhs->kind == E_WHILESAVE ? NULL
             : rhs->args[rhs->kind == E_SCATTER ? 1 : 0];
  l->parent = loop;
  if (rhs == fr->target)
    fr->top = l;
  if (in && rhs->var)
    varmap_put(&fr->counters, rhs->var, l);
  if (rhs->var2)
    varmap_put(&fr->states, rhs->var2, rhs);
  if (in && rhs->kind == E_SCATTER)
    fr->unknown_writes = true;
  walk(fr, rhs->body, l, in);
}

static void walk_rhs(FinalReads *fr, Expr *rhs, Loop *loop, bool inside) {
  if (is_loop(rhs)) {
    walk_loop(fr, rhs, loop, inside);
    return;
  }
  if (inside && rhs->kind == E_UPDATE) {
    Access *w = arena_alloc(fr->a, sizeof *w);
    *w = (Access){rhs->args[0], rhs->args[1], loop};
    ptrvec_push(fr->a, &fr->writes, w);
  }
  if (inside && rhs->kind == E_CALL) {
    bool arrays = type_holds_array(rhs->type);
    for (int i = 0; i < rhs->nargs; i++)
      arrays = arrays || type_holds_array(rhs->args[i]->type);
    if (arrays)
      fr->unknown_writes = true;
  }
  for (int i = 0; i < rhs->nargs; i++)
    if (rhs->args[i] && !expr_is_atom(rhs->args[i]))
      walk(fr, rhs->args[i], loop, inside);
}

static void walk(FinalReads *fr, Expr *e, Loop *loop, bool inside) {
  for (; e->kind == E_LET; e = e->body) {
    Def *d = arena_alloc(fr->a, sizeof *d);
    *d = (Def){e->args[0], loop, inside};
    varmap_put(&fr->defs, e->var, d);
    walk_rhs(fr, e->args[0], loop, inside);
  }
  walk_rhs(fr, e, loop, inside);
}

FinalReads *final_reads_new(Arena *a, Expr *body, Expr *loop) {
  FinalReads *fr = arena_alloc(a, sizeof *fr);
  fr->a = a;
  fr->target = loop;
  walk(fr, body, NULL, false);
  return fr;
}

void final_reads_free(FinalReads *fr) {
  varmap_free(&fr->defs);
  varmap_free(&fr->counters);
  varmap_free(&fr->states);
}

/* ------------------------------------------------------------ polynomials */

typedef struct Atom {
  const Var *v;
  int side; /* 0 for an integer shared by both accesses, else the access's */
} Atom;

typedef struct Term {
  long long c;
  int deg; /* 0 for the constant */
  Atom at[2];
} Term;

typedef struct Poly {
  int n;
  Term t[MAX_TERMS];
} Poly;

static int atom_cmp(Atom x, Atom y) {
  if (x.v->id != y.v->id)
    return x.v->id < y.v->id ? -1 : 1;
  return x.side < y.side ? -1 : x.side > y.side;
}

static int mono_cmp(const Term *x, const Term *y) {
  if (x->deg != y->deg)
    return x->deg < y->deg ? -1 : 1;
  for (int i = 0; i < x->deg; i++) {
    int c = atom_cmp(x->at[i], y->at[i]);
    if (c)
      return c;
  }
  return 0;
}

static bool small(long long c) { return c > -MAX_COEF && c < MAX_COEF; }

/* Adds k times the monomial of t to p; false when p would grow too big. */
static bool poly_add_term(Poly *p, const Term *t, long long k) {
  long long c = t->c * k;
  if (!small(t->c) || !small(k) || !small(c))
    return false;
  for (int i = 0; i < p->n; i++)
    if (!mono_cmp(&p->t[i], t)) {
      p->t[i].c += c;
      return small(p->t[i].c);
    }
  if (p->n == MAX_TERMS)
    return false;
  p->t[p->n] = *t;
  p->t[p->n++].c = c;
  return true;
}

static bool poly_add(Poly *p, const Poly *q, long long k) {
  for (int i = 0; i < q->n; i++)
    if (!poly_add_term(p, &q->t[i], k))
      return false;
  return true;
}

static Poly poly_const(long long k) {
  Poly p = {0};
  p.n = 1;
  p.t[0] = (Term){.c = k};
  return p;
}

static Poly poly_atom(const Var *v, int side) {
  Poly p = {0};
  p.n = 1;
  p.t[0] = (Term){.c = 1, .deg = 1, .at = {{v, side}}};
  return p;
}

static bool poly_mul(const Poly *p, const Poly *q, Poly *out) {
  *out = (Poly){0};
  for (int i = 0; i < p->n; i++)
    for (int j = 0; j < q->n; j++) {
      const Term *x = &p->t[i], *y = &q->t[j];
      if (x->deg + y->deg > 2)
        return false;
      Term t = {.c = x->c, .deg = x->deg + y->deg};
      int k = 0;
      for (int l = 0; l < x->deg; l++)
        t.at[k++] = x->at[l];
      for (int l = 0; l < y->deg; l++)
        t.at[k++] = y->at[l];
      if (t.deg == 2 && atom_cmp(t.at[0], t.at[1]) > 0) {
        Atom s = t.at[0];
        t.at[0] = t.at[1];
        t.at[1] = s;
      }
      if (!poly_add_term(out, &t, y->c))
        return false;
    }
  return true;
}

static bool signed_int(const Type *t) {
  return t && t->kind == TY_INT &&
         (t->ikind == IK_INT || t->ikind == IK_LONG || t->ikind == IK_LLONG);
}

static bool expand(FinalReads *fr, Expr *e, int side, Poly *out, int depth);

/* The right-hand side of an inside binding as a polynomial, when it is
 * signed arithmetic that can be; false to take the variable as an atom. */
static bool expand_rhs(FinalReads *fr, Expr *rhs, int side, Poly *out, int depth) {
  if (rhs->kind == E_VAR)
    return expand(fr, rhs, side, out, depth + 1);
  if (rhs->kind != E_PRIM || !signed_int(rhs->type))
    return false;
  Poly x, y;
  switch (rhs->op) {
  case P_ADD:
  case P_SUB:
    if (!expand(fr, rhs->args[0], side, out, depth + 1) ||
        !expand(fr, rhs->args[1], side, &y, depth + 1))
      return false;
    return poly_add(out, &y, rhs->op == P_ADD ? 1 : -1);
  case P_NEG:
    if (!expand(fr, rhs->args[0], side, &x, depth + 1))
      return false;
    *out = (Poly){0};
    return poly_add(out, &x, -1);
  case P_MUL:
    return expand(fr, rhs->args[0], side, &x, depth + 1) &&
           expand(fr, rhs->args[1], side, &y, depth + 1) && poly_mul(&x, &y, out);
  case P_TO_LONG:
  case P_TO_LLONG: /* widening a signed integer keeps its value */
    return signed_int(rhs->args[0]->type) &&
           (rhs->args[0]->type->ikind != IK_LLONG || rhs->op == P_TO_LLONG) &&
           expand(fr, rhs->args[0], side, out, depth + 1);
  default:
    return false;
  }
}

static bool expand(FinalReads *fr, Expr *e, int side, Poly *out, int depth) {
  if (depth > MAX_DEPTH)
    return false;
  if (e->kind == E_CONST && e->type && e->type->kind == TY_INT) {
    *out = poly_const(e->ival);
    return true;
  }
  if (e->kind != E_VAR || !e->type || e->type->kind != TY_INT)
    return false;
  Var *v = e->var;
  if (varmap_has(&fr->counters, v)) {
    *out = poly_atom(v, side);
    return true;
  }
  Def *d = varmap_get(&fr->defs, v);
  if (!d || !d->inside) { /* a parameter, or bound before the loop: shared */
    if (!d || !expand_rhs(fr, d->rhs, 0, out, depth))
      *out = poly_atom(v, 0);
    return true;
  }
  if (expand_rhs(fr, d->rhs, side, out, depth))
    return true;
  *out = poly_atom(v, side); /* computed in the loop some other way */
  return true;
}

/* Array memory named by an atom, or by field `field` of a tuple atom. */
typedef struct Ref {
  Expr *atom; /* NULL: none */
  int field;  /* -1: the atom is the array */
} Ref;

static Ref no_ref(void) { return (Ref){NULL, -1}; }

static bool steps_keep(FinalReads *fr, Expr *loop, int field, int depth);

/* The memory r names, one step back through a version: a copy, an
 * update's array, a tuple's field, or a fold's initial state when each
 * step returns a version of that state. Not through a loop's state
 * variable (the caller decides), nor views. */
static Ref previous_version(FinalReads *fr, Ref r, int depth) {
  Expr *a = r.atom;
  if (depth > MAX_DEPTH || !a)
    return no_ref();
  if (a->kind == E_TUPLE)
    return r.field >= 0 && r.field < a->nargs ? (Ref){a->args[r.field], -1} : no_ref();
  Def *d = a->kind == E_VAR ? varmap_get(&fr->defs, a->var) : NULL;
  if (!d)
    return no_ref();
  Expr *rhs = d->rhs;
  switch (rhs->kind) {
  case E_VAR:
    return (Ref){rhs, r.field};
  case E_TUPLE:
    return (Ref){rhs, r.field};
  case E_UPDATE:
    return r.field < 0 ? (Ref){rhs->args[0], -1} : no_ref();
  case E_GET:
    return r.field < 0 ? (Ref){rhs->args[0], rhs->index} : no_ref();
  case E_FOLD:
    return steps_keep(fr, rhs, r.field, depth + 1) ? (Ref){rhs->args[1], r.field} : no_ref();
  default:
    return no_ref();
  }
}

static Expr *state_loop(FinalReads *fr, Ref r) {
  return r.atom && r.atom->kind == E_VAR ? varmap_get(&fr->states, r.atom->var) : NULL;
}

/* Does every step of fold `loop` return a version of its state's memory
 * (field `field` of it, or all of it when -1)? */
static bool steps_keep(FinalReads *fr, Expr *loop, int field, int depth) {
  if (depth > MAX_DEPTH || loop->kind != E_FOLD)
    return false;
  Type *t = loop->var2->type;
  if (!t || (field < 0 ? t->kind != TY_ARRAY
                       : t->kind != TY_TUPLE || field >= t->n || t->elems[field]->kind != TY_ARRAY))
    return false;
  Expr *result = loop->body;
  while (result->kind == E_LET)
    result = result->body;
  Ref r = {result, field};
  for (int k = 0; r.atom && k < MAX_DEPTH; k++) {
    if (state_loop(fr, r))
      return r.atom->var == loop->var2 && r.field == field;
    r = previous_version(fr, r, depth + 1);
  }
  return false;
}

/* Back from r through versions and the states of loops inside the
 * analysed one, to a reference that is neither. */
static Ref oldest_version(FinalReads *fr, Ref r, bool *reached_target) {
  *reached_target = false;
  for (int k = 0; r.atom && k < 4 * MAX_DEPTH; k++) {
    Expr *loop = state_loop(fr, r);
    if (loop == fr->target) {
      *reached_target = true;
      return r;
    }
    if (loop)
      r = steps_keep(fr, loop, r.field, 0) ? (Ref){loop->args[1], r.field} : no_ref();
    else {
      Ref p = previous_version(fr, r, 0);
      if (!p.atom)
        return r;
      r = p;
    }
  }
  return no_ref();
}

/* The offset of array atom a into its memory: views add theirs; versions
 * keep their array's. False when it is not known. */
static bool offset_of(FinalReads *fr, Expr *a, int side, Poly *out, int depth) {
  if (depth > MAX_DEPTH)
    return false;
  bool at_target;
  Ref r = oldest_version(fr, (Ref){a, -1}, &at_target);
  if (at_target) {
    if (!steps_keep(fr, fr->target, r.field, 0))
      return false;
    r = oldest_version(fr, (Ref){fr->target->args[1], r.field}, &at_target);
  }
  if (!r.atom || r.field >= 0 || r.atom->kind != E_VAR)
    return false;
  Def *d = varmap_get(&fr->defs, r.atom->var);
  if (!d) { /* a parameter */
    *out = poly_const(0);
    return true;
  }
  Expr *rhs = d->rhs;
  if (rhs->kind == E_VIEW) {
    Poly k;
    return offset_of(fr, rhs->args[0], side, out, depth + 1) &&
           expand(fr, rhs->args[1], side, &k, 0) && poly_add(out, &k, 1);
  }
  if (rhs->kind == E_BUILD || rhs->kind == E_ALLOC) {
    *out = poly_const(0);
    return true;
  }
  return false;
}

static bool address_of(FinalReads *fr, const Access *x, int side, Poly *out) {
  Poly i;
  return offset_of(fr, x->array, side, out, 0) && expand(fr, x->index, side, &i, 0) &&
         poly_add(out, &i, 1);
}

/* ------------------------------------------------------------ systems */

/* Rows sum_k row[k] * u_k + row[MAX_UNKNOWNS] >= 0 over the monomials u. */
typedef struct System {
  int nu;
  Term u[MAX_UNKNOWNS];
  int nrows;
  long long row[64][MAX_UNKNOWNS + 1];
  bool overflow; /* a row did not fit: nothing can be proven */
} System;

static void add_row(System *s, const Poly *p) {
  if (s->nrows == 64) {
    s->overflow = true;
    return;
  }
  long long *r = s->row[s->nrows++];
  memset(r, 0, sizeof s->row[0]);
  for (int i = 0; i < p->n; i++) {
    const Term *t = &p->t[i];
    if (!t->deg) {
      r[MAX_UNKNOWNS] += t->c;
      continue;
    }
    int k = 0;
    while (k < s->nu && mono_cmp(&s->u[k], t))
      k++;
    if (k == s->nu) {
      if (s->nu == MAX_UNKNOWNS) {
        s->overflow = true;
        return;
      }
      s->u[s->nu++] = *t;
    }
    r[k] += t->c;
  }
}

/* p = 0 as two rows. */
static void add_zero(System *s, const Poly *p) {
  Poly q = {0};
  add_row(s, p);
  if (poly_add(&q, p, -1))
    add_row(s, &q);
  else
    s->overflow = true;
}

static long long gcd(long long x, long long y) {
  x = x < 0 ? -x : x;
  y = y < 0 ? -y : y;
  while (y) {
    long long t = x % y;
    x = y;
    y = t;
  }
  return x;
}

static long long floor_div(long long x, long long y) {
  long long q = x / y;
  return (x % y != 0 && (x < 0) != (y < 0)) ? q - 1 : q;
}

/* Divides a row's unknowns' coefficients by their gcd and the constant
 * rounded down (the unknowns are integers). False when the row says
 * 0 >= something positive: no solution. */
static bool tighten(long long *r) {
  long long g = 0;
  for (int k = 0; k < MAX_UNKNOWNS; k++)
    g = gcd(g, r[k]);
  if (!g)
    return r[MAX_UNKNOWNS] >= 0;
  for (int k = 0; k < MAX_UNKNOWNS; k++)
    r[k] /= g;
  r[MAX_UNKNOWNS] = floor_div(r[MAX_UNKNOWNS], g);
  return true;
}

/* Does the system have no solution? By Fourier-Motzkin elimination of one
 * unknown after another; false when unsure (too many rows, overflow). */
static bool infeasible(const System *s) {
  if (s->overflow)
    return false;
  size_t width = sizeof(long long) * (MAX_UNKNOWNS + 1);
  long long (*rows)[MAX_UNKNOWNS + 1] = malloc(width * MAX_ROWS);
  long long (*next)[MAX_UNKNOWNS + 1] = malloc(width * MAX_ROWS);
  int n = s->nrows;
  bool none = false, unsure = !rows || !next;
  for (int i = 0; i < n && !unsure; i++) {
    memcpy(rows[i], s->row[i], width);
    none = none || !tighten(rows[i]);
  }
  for (int k = 0; k < s->nu && !none && !unsure; k++) {
    int m = 0;
    for (int i = 0; i < n; i++)
      if (!rows[i][k])
        memcpy(next[m++], rows[i], width);
    for (int i = 0; i < n && !none && !unsure; i++) {
      if (rows[i][k] <= 0)
        continue;
      for (int j = 0; j < n && !none && !unsure; j++) {
        if (rows[j][k] >= 0)
          continue;
        if (m == MAX_ROWS) {
          unsure = true;
          break;
        }
        long long a = rows[i][k], b = -rows[j][k];
        for (int l = 0; l <= MAX_UNKNOWNS; l++) {
          long long x = rows[i][l] * b + rows[j][l] * a;
          if (!small(rows[i][l]) || !small(rows[j][l]) || !small(x)) {
            unsure = true;
            break;
          }
          next[m][l] = x;
        }
        if (!unsure)
          none = !tighten(next[m++]);
      }
    }
    long long (*t)[MAX_UNKNOWNS + 1] = rows;
    rows = next;
    next = t;
    n = m;
  }
  free(rows);
  free(next);
  return none && !unsure;
}

/* ------------------------------------------------------------ the test */

/* 0 <= c < N for each loop from l out to the analysed one, and for the
 * loops around that (shared by both accesses); false when the access is
 * not within the analysed loop. */
static bool add_bounds(FinalReads *fr, System *s, Loop *l, int side) {
  bool within_target = false;
  for (; l; l = l->parent) {
    Poly c = poly_atom(l->counter, side);
    add_row(s, &c);
    Expr *count = l->count;
    Def *d = count && count->kind == E_VAR ? varmap_get(&fr->defs, count->var) : NULL;
    if (d && d->rhs->kind == E_IF) {
      /* if t then X else 0: no step when t is false */
      Expr *x = d->rhs->args[1], *y = d->rhs->args[2];
      while (x->kind == E_LET)
        x = x->body;
      while (y->kind == E_LET)
        y = y->body;
      count = y->kind == E_CONST && !y->ival ? x : x->kind == E_CONST && !x->ival ? y : NULL;
    }
    Poly n;
    if (count && expand(fr, count, side, &n, 0) && poly_add(&n, &c, -1) &&
        poly_add(&n, &(Poly){1, {{.c = -1}}}, 1))
      add_row(s, &n);
    if (l == fr->top)
      within_target = true;
    if (within_target)
      side = 0;
  }
  return within_target;
}

/* Does the context of access x (side) imply 0 <= p <= sym - 1? */
static bool within(FinalReads *fr, const Access *x, int side, const Poly *p, const Var *sym) {
  System lo = {0}, hi;
  if (!add_bounds(fr, &lo, x->loop, side))
    return false;
  hi = lo;
  Poly below = {0}, above = *p;
  Poly s = poly_atom(sym, 0);
  if (!poly_add(&below, p, -1) || !poly_add(&below, &(Poly){1, {{.c = -1}}}, 1) ||
      !poly_add(&above, &s, -1))
    return false;
  add_row(&lo, &below); /* p <= -1 */
  add_row(&hi, &above); /* p >= sym */
  return infeasible(&lo) && infeasible(&hi);
}

/* p = sym * r + c, c free of sym; false when p has sym squared. */
static bool split(const Poly *p, const Var *sym, Poly *r, Poly *c) {
  *r = (Poly){0};
  *c = (Poly){0};
  Atom s = {sym, 0};
  for (int i = 0; i < p->n; i++) {
    const Term *t = &p->t[i];
    int hits = 0, other = -1;
    for (int k = 0; k < t->deg; k++) {
      if (!atom_cmp(t->at[k], s))
        hits++;
      else
        other = k;
    }
    if (hits == 2)
      return false;
    Term q = {.c = t->c};
    if (hits && other >= 0) {
      q.deg = 1;
      q.at[0] = t->at[other];
    }
    if (!poly_add_term(hits ? r : c, hits ? &q : t, 1))
      return false;
  }
  return true;
}

/* Can no write wr, at a step of the analysed loop no earlier than the
 * read's (any step when !ordered), be to the element rd reads? */
static bool disjoint(FinalReads *fr, const Access *rd, const Access *wr, bool ordered) {
  Poly ar, aw;
  if (!address_of(fr, rd, 1, &ar) || !address_of(fr, wr, 2, &aw))
    return false;
  System base = {0};
  if (!add_bounds(fr, &base, rd->loop, 1) || !add_bounds(fr, &base, wr->loop, 2))
    return false;
  Poly later = poly_atom(fr->top->counter, 2);
  Poly first = poly_atom(fr->top->counter, 1);
  if (!poly_add(&later, &first, -1))
    return false;
  if (ordered)
    add_row(&base, &later);
  System direct = base;
  Poly diff = ar;
  if (!poly_add(&diff, &aw, -1))
    return false;
  add_zero(&direct, &diff);
  if (infeasible(&direct))
    return true;
  /* row-major: try each integer from outside the loop that multiplies */
  const Poly *both[2] = {&ar, &aw};
  for (int b = 0; b < 2; b++)
    for (int i = 0; i < both[b]->n; i++) {
      const Term *t = &both[b]->t[i];
      for (int k = 0; k < t->deg; k++) {
        if (t->deg != 2 || t->at[k].side != 0)
          continue;
        const Var *sym = t->at[k].v;
        Poly rr, cr, rw, cw;
        if (!split(&ar, sym, &rr, &cr) || !split(&aw, sym, &rw, &cw) ||
            !within(fr, rd, 1, &cr, sym) || !within(fr, wr, 2, &cw, sym))
          continue;
        System s = base;
        if (!poly_add(&cr, &cw, -1) || !poly_add(&rr, &rw, -1))
          continue;
        add_zero(&s, &cr);
        add_zero(&s, &rr);
        if (infeasible(&s))
          return true;
      }
    }
  return false;
}

bool final_read(FinalReads *fr, const Var *v, int *field) {
  if (!fr->top || fr->unknown_writes)
    return false;
  Def *d = varmap_get(&fr->defs, v);
  if (!d || !d->inside || d->rhs->kind != E_INDEX)
    return false;
  bool at_target;
  Ref r = oldest_version(fr, (Ref){d->rhs->args[0], -1}, &at_target);
  if (!at_target || !steps_keep(fr, fr->target, r.field, 0))
    return false;
  *field = r.field;
  Access rd = {d->rhs->args[0], d->rhs->args[1], d->loop};
  for (int i = 0; i < fr->writes.len; i++)
    if (!disjoint(fr, &rd, fr->writes.items[i], true))
      return false;
  return true;
}

bool invariant_read(FinalReads *fr, const Var *v, int *field) {
  if (!fr->top || fr->unknown_writes)
    return false;
  Def *d = varmap_get(&fr->defs, v);
  if (!d || d->loop != fr->top || d->rhs->kind != E_INDEX)
    return false;
  Expr *e = d->rhs->args[1];
  Poly at;
  if (!expand(fr, e, 1, &at, 0))
    return false;
  for (int i = 0; i < at.n; i++)
    for (int k = 0; k < at.t[i].deg; k++)
      if (at.t[i].at[k].side) /* varies from step to step */
        return false;
  bool at_target;
  Ref r = oldest_version(fr, (Ref){d->rhs->args[0], -1}, &at_target);
  if (!at_target || !steps_keep(fr, fr->target, r.field, 0))
    return false;
  *field = r.field;
  Access rd = {d->rhs->args[0], e, d->loop};
  for (int i = 0; i < fr->writes.len; i++)
    if (!disjoint(fr, &rd, fr->writes.items[i], false))
      return false;
  return true;
}
