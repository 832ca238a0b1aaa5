/* emit_c.c: C text for f$fwd, f$rev, f$aug and f$bwd.
 *
 * Requires: ad_differentiate succeeded for f (the four functions are in
 * ANF, checked in CHECK_FINAL mode). Guarantees: C99 text, clean under
 * -Wall -Wextra -pedantic -Werror, with
 *   - f_fwd and f_rev exactly as in the contract of DESIGN.md section 1
 *     (same floating type and linkage as f; f_rev adds into the adjoints);
 *   - struct f__tape and the static helpers f__aug / f__bwd that callers of
 *     f use (the two halves of f_rev; see ad/split.c);
 *   - calls of a CHAD_CUSTOM g's g_fwd and g_rev by the same contract (the
 *     user declares them; nothing here declares or defines them).
 * Every ANF binding becomes one `const` local, so the text reads like the
 * IR and grows linearly with it. Plain tuples never reach C: each tuple
 * value is a set of C variables, one per scalar leaf. A residual record is
 * a struct; it is written in place where it ends up (a field of the
 * caller's tape, or the result of an `if`), never copied on the way. */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ad/ad.h"
#include "ad/transform.h"
#include "ad/util.h"
#include "emit/emit.h"
#include "emit/interleave.h"
#include "emit/strbuf.h"

typedef struct CVal CVal;
struct CVal {
  Type *type;
  const char *expr; /* scalar: C expression; record: lvalue of the struct,
                       NULL for a default value that is never read */
  const char *ptr;  /* record: a pointer expression to it, or NULL */
  int n;            /* plain tuple: leaves below */
  CVal **elems;
  bool literal;     /* record built from `elems` (f$aug's tape) */
  const char *len;  /* array: C expression of its length, when known */
  bool writable;    /* array: ours to write (allocated here, or a home) */
  const char *alias; /* array: the C array whose memory this pointer
                        variable names (a fold's state, an if's result
                        declared apart from it), or NULL: its own */
  bool inout;       /* array: memory of an active in-out parameter of f_rev,
                       whose restores the end of f_rev redoes (DESIGN 8.7) */
  int zero_init;    /* scalar variable declared as zero: 1 for +0, 2 for -0 */
  int zero_literal; /* the constant +0 (1) or -0 (2), else 0 */
  int stride, offset; /* array: when stride > 0, element i is element
                         stride*i + offset of `expr` (DESIGN 8.62) */
};

/* While the body of a loop that pushes (or takes) k residual words per
 * step, all at its top level, is emitted: the block of the log's stack its
 * steps fill (or empty), reserved once before the loop, so that a push is
 * a store at a computed index (emit_slab_begin). Also while a run of k
 * consecutive takes of one block is emitted (emit_word_run). */
typedef struct Slab {
  const char *ptr;   /* the block's C pointer, NULL when not in such a body */
  const char *n, *i; /* the loop's trip count and counter; i NULL: a run */
  int k, m;          /* words per step; the next word's index in the step */
  bool take;
} Slab;

typedef enum FnKind {
  FN_PRIMAL, /* f itself, from its IR (for builds without the plugin) */
  FN_FWD, /* contract f_fwd */
  FN_REV, /* contract f_rev */
  FN_AUG, /* f__aug(params, T *ret, struct f__tape *tape) */
  FN_BWD, /* f__bwd(const struct f__tape *tape, T ret_b, T *p_b...) */
} FnKind;

typedef struct Home {
  Var *owner; /* variable whose CVal holds the destination, or NULL */
  int leaf;   /* index into the owner's leaves */
  CVal *cval; /* or a fixed destination */
} Home;

/* A loop the emitter is inside, and where its header begins: an allocation
 * site in its body whose length no step changes takes its slot's block
 * once, before the loop (slot_hoist, DESIGN 8.54). */
typedef struct LoopFrame {
  StrBuf *out;       /* the text the header is written in */
  size_t at;         /* where the header begins there */
  int indent;        /* the header's */
  const Expr *steps; /* the step count (an atom); NULL: a while loop, which
                        no block is taken before */
  const char *steps_text;
} LoopFrame;

typedef struct Em {
  Module *m;
  Arena *a;
  StrBuf *out;
  int indent;
  NameSet names;
  VarMap cname; /* Var -> const char* */
  VarMap vals;  /* Var -> CVal* */
  VarMap homes; /* record-typed Var -> Home*: where it must be written */
  VarMap used;  /* Var -> itself when some term of the function reads it */
  bool inout_unknown; /* some array may or may not be an in-out parameter's
                         memory: f_rev makes them final by running f again */
  VarMap uses;  /* Var -> number of references */
  VarMap fused; /* Var of a product written inside the sum that uses it */
  VarMap gets;  /* tuple Var -> PtrVec* of the lets that project it, in its block */
  VarMap sincos_done; /* Var of a sin or cos written by its partner's
                         chad__sincos call (emit_sincos) */
  InterleavePlan plan; /* blocks written where they end up (DESIGN 8.62) */
  PtrVec *frees; /* arrays allocated in the current C scope */
  PtrVec *top_frees; /* those of the function's own scope, freed at its exit */
  PtrVec arrays; /* the names among them chad__array_new allocated (the others,
                    tapes and log buffers grown by chad__grow, go to free) */
  PtrVec slots;  /* chad__slot variables of allocation sites in inner scopes */
  PtrVec loops;  /* LoopFrame*: the loops around the text being written */
  VarMap depth;  /* let-bound Var or parameter -> 1 + the number of loops
                    around its binding (slot_hoist) */
  PtrVec *stack; /* arrays of the current scope in automatic storage */
  int scope_indent; /* the indent of the current scope's C block */
  long stack_bytes; /* automatic storage given to arrays so far */
  const char *log; /* the function's undo log (DESIGN 8.13), NULL without */
  bool log_saves; /* the function saves elements in its log: only then may
                     an in-out array's final values need putting back */
  bool log_in_locals; /* every log operation is in the function's top-level
                         block: saves are local variables (log_is_straight) */
  PtrVec live_saves;  /* LocalSave*: saved, not yet popped, oldest first */
  PtrVec final_saves; /* LocalSave*: in-out saves whose final value is kept */
  Slab slab;
  /* A frame (emit_frame): consecutive groups of pushes of one block, one
   * reservation for all. Var of a push, or counter of a slab loop -> the
   * C text of its first word; frame_left: groups not yet emitted. */
  VarMap frame_at;
  int frame_left;
  Diag *err;
  bool failed;
  bool if_result; /* declaring an if's result variables */
  PtrVec flat_rows; /* lines that name a parameter C takes as rows flat */
} Em;

static void em_fail(Em *e, const char *what) {
  if (!e->failed)
    diag_set(e->err, (Loc){0}, "cannot emit C: %s", what);
  e->failed = true;
}

static const char *c_keywords[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double",
    "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
    "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
    "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool",
    "_Complex", "_Imaginary", "_Alignas", "_Alignof", "_Atomic", "_Generic", "_Noreturn",
    "_Static_assert", "_Thread_local", "bool", "true", "false", "NAN", "HUGE_VAL",
    "HUGE_VALF", "INFINITY", "main", NULL};

static void reserve_reserved(NameSet *s) {
  for (int i = 0; c_keywords[i]; i++)
    nameset_reserve(s, c_keywords[i]);
  for (int p = 0; p < P_COUNT; p++) {
    const PrimInfo *pi = prim_info((Prim)p);
    if (!pi->infix) {
      char buf[32];
      nameset_reserve(s, pi->c_name);
      snprintf(buf, sizeof buf, "%sf", pi->c_name);
      nameset_reserve(s, buf);
    }
  }
}

/* --------------------------------------------------------------- types */

static const char *c_type(Arena *a, const Type *t) {
  switch (t->kind) {
  case TY_F64:
    return "double";
  case TY_F32:
    return "float";
  case TY_INT:
    return intk_c_name(t->ikind);
  case TY_TUPLE:
    if (t->name)
      return arena_printf(a, "struct %s", c_name_of(a, t->name));
    return "void"; /* plain tuples are flattened before this is asked */
  case TY_ARRAY:
    return arena_printf(a, "%s *", c_type(a, t->elem));
  default:
    return "void";
  }
}

/* A parameter's C type: arrays the function only reads are const. */
static const char *param_type(Arena *a, const Type *t, bool writable) {
  if (t->kind == TY_ARRAY && !writable)
    return arena_printf(a, "const %s *", c_type(a, t->elem));
  return c_type(a, t);
}

/* A parameter's declaration: `const double *x`, or for one C takes as rows
 * of length `rows` (Func.rows), `const double (*A)[3]`. */
static const char *param_decl(Arena *a, const Type *t, bool writable, long long rows,
                              const char *name) {
  if (rows > 0)
    return arena_printf(a, "%s%s (*%s)[%lld]", writable ? "" : "const ", c_type(a, t->elem),
                        name, rows);
  const char *type = param_type(a, t, writable);
  return arena_printf(a, "%s%s%s", type, type[strlen(type) - 1] == '*' ? "" : " ", name);
}

/* f's C return type: void for a function whose value is unit. */
static Type *c_return(const Func *f) {
  return func_num_outputs(f) ? f->ret->elems[0] : f->ret;
}

static const char *ret_type(Arena *a, const Func *f) {
  Type *r = c_return(f);
  return type_is_unit(r) ? "void" : c_type(a, r);
}

static bool is_leaf(const Type *t) { return t->kind != TY_TUPLE || t->name; }

static int leaf_count(const Type *t) {
  if (is_leaf(t))
    return 1;
  int n = 0;
  for (int i = 0; i < t->n; i++)
    n += leaf_count(t->elems[i]);
  return n;
}

/* Leaves of a CVal in order. */
static void leaves_of(Arena *a, CVal *v, PtrVec *out) {
  if (is_leaf(v->type)) {
    ptrvec_push(a, out, v);
    return;
  }
  for (int i = 0; i < v->n; i++)
    leaves_of(a, v->elems[i], out);
}

/* -------------------------------------------------------------- values */

/* 1 for the constant +0 (or the int 0), 2 for -0 (a cotangent's zero,
 * DESIGN 8.66), else 0. */
static int zero_const_kind(const Expr *c) {
  if (c->kind != E_CONST)
    return 0;
  if (c->type->kind == TY_INT)
    return c->ival == 0;
  return c->fval == 0 ? 1 + (signbit(c->fval) != 0) : 0;
}

static Expr *block_result(Expr *block) {
  while (block->kind == E_LET)
    block = block->body;
  return block;
}


static CVal *cv_scalar(Em *e, Type *t, const char *expr) {
  CVal *v = arena_alloc(e->a, sizeof *v);
  v->type = t;
  v->expr = expr;
  return v;
}

static CVal *cv_record(Em *e, Type *t, const char *lvalue, const char *ptr) {
  CVal *v = cv_scalar(e, t, lvalue);
  v->ptr = ptr;
  return v;
}

static void line(Em *e, const char *fmt, ...);
static bool is_leaf(const Type *t);
static const char *materialize_record(Em *e, CVal *r);

/* Field by field into struct `nm` from leaf *leaf on: the value v of type t. */
static void assign_leaves(Em *e, const char *nm, Type *t, CVal *v, int *leaf) {
  if (!is_leaf(t)) {
    for (int i = 0; i < t->n; i++)
      assign_leaves(e, nm, t->elems[i], v->elems[i], leaf);
    return;
  }
  const char *src = v->expr;
  if (t->kind == TY_TUPLE)
    src = v->ptr ? arena_printf(e->a, "*%s", v->ptr) : materialize_record(e, v);
  if (src)
    line(e, "%s.f%d = %s;", nm, *leaf, src);
  (*leaf)++;
}

/* A record built from its fields (a residual taken back from the undo
 * log, DESIGN 8.22) as a struct of its own, made where its address is
 * needed (each use its own: a use may sit in a scope the next use cannot
 * see); NULL for a default that is never read. */
static const char *materialize_record(Em *e, CVal *r) {
  if (r->expr || !r->literal)
    return r->expr;
  const char *nm = nameset_fresh(&e->names, e->a, "rec");
  line(e, "%s %s;", c_type(e->a, r->type), nm);
  int leaf = 0;
  for (int i = 0; i < r->n; i++)
    assign_leaves(e, nm, r->type->elems[i], r->elems[i], &leaf);
  return nm;
}

static const char *record_addr(Em *e, const CVal *r) {
  if (!r->ptr && !r->expr && r->literal)
    return arena_printf(e->a, "&%s", materialize_record(e, (CVal *)r));
  return r->ptr ? r->ptr : arena_printf(e->a, "&%s", r->expr);
}

static const char *record_field(Em *e, const CVal *r, int leaf) {
  if (r->ptr && r->ptr[0] == '&') /* a record in a record: its field */
    return arena_printf(e->a, "%s.f%d", r->ptr + 1, leaf);
  return r->ptr ? arena_printf(e->a, "%s->f%d", r->ptr, leaf)
                : arena_printf(e->a, "%s.f%d", r->expr, leaf);
}

/* The CVal of a value of type t stored from leaf `*leaf` of record r. */
static CVal *record_part(Em *e, const CVal *r, Type *t, int *leaf) {
  if (is_leaf(t)) {
    const char *f = record_field(e, r, (*leaf)++);
    if (t->kind == TY_TUPLE)
      return cv_record(e, t, f, arena_printf(e->a, "&%s", f));
    return cv_scalar(e, t, f);
  }
  CVal *v = cv_scalar(e, t, NULL);
  v->n = t->n;
  v->elems = arena_alloc(e->a, sizeof(CVal *) * (size_t)(t->n ? t->n : 1));
  for (int i = 0; i < t->n; i++)
    v->elems[i] = record_part(e, r, t->elems[i], leaf);
  return v;
}

static CVal *field_of(Em *e, CVal *tup, int index) {
  if (!is_leaf(tup->type))
    return tup->elems[index];
  if (tup->literal)
    return tup->elems[index];
  int leaf = 0;
  for (int i = 0; i < index; i++)
    leaf += leaf_count(tup->type->elems[i]);
  return record_part(e, tup, tup->type->elems[index], &leaf);
}

static const char *zero_of_type(Em *e, const Type *t) {
  switch (t->kind) {
  case TY_F32:
    return "0.0f";
  case TY_INT:
    return "0";
  default:
    return "0.0";
  }
}

/* The zero a float cotangent starts from (DESIGN 8.66): x + -0
 * is x for every x, so the C compiler drops additions of it. */
static const char *cotangent_zero(const Type *t) {
  return t->kind == TY_F32 ? "(-0.0f)" : "(-0.0)";
}

static const char *literal(Em *e, const Expr *c) {
  if (c->type->kind == TY_INT) {
    IntKind k = c->type->ikind;
    if (k != IK_INT && c->ival == LLONG_MIN && intk_signed(k))
      return arena_printf(e->a, "((%s)(-9223372036854775807LL - 1))", intk_c_name(k));
    if (k != IK_INT) /* a literal of its own type: C's suffixes do not cover char and short */
      return intk_signed(k)
                 ? arena_printf(e->a, "((%s)%lldLL)", intk_c_name(k), c->ival)
                 : arena_printf(e->a, "((%s)%lluULL)", intk_c_name(k),
                                (unsigned long long)c->ival);
    if (c->ival == -2147483648LL)
      return "(-2147483647 - 1)";
    return arena_printf(e->a, c->ival < 0 ? "(%lld)" : "%lld", c->ival);
  }
  bool f32 = c->type->kind == TY_F32;
  double v = c->fval;
  if (isnan(v))
    return f32 ? "__builtin_nanf(\"\")" : "__builtin_nan(\"\")";
  if (isinf(v))
    return v > 0 ? (f32 ? "__builtin_inff()" : "__builtin_inf()")
                 : (f32 ? "(-__builtin_inff())" : "(-__builtin_inf())");
  char buf[64];
  snprintf(buf, sizeof buf, f32 ? "%.9g" : "%.17g", v);
  if (!strpbrk(buf, ".e"))
    strcat(buf, ".0");
  return arena_printf(e->a, "%s%s%s%s", signbit(v) ? "(" : "", buf, f32 ? "f" : "",
                      signbit(v) ? ")" : "");
}

static const char *name_of(Em *e, Var *v) {
  const char *n = varmap_get(&e->cname, v);
  if (!n) {
    n = nameset_fresh(&e->names, e->a, v->name);
    varmap_put(&e->cname, v, (void *)n);
  }
  return n;
}

static CVal *cval_of(Em *e, Expr *atom) {
  switch (atom->kind) {
  case E_VAR: {
    CVal *v = varmap_get(&e->vals, atom->var);
    return v ? v : cv_scalar(e, atom->type, name_of(e, atom->var));
  }
  case E_CONST: {
    CVal *c = cv_scalar(e, atom->type, literal(e, atom));
    c->zero_literal = zero_const_kind(atom);
    return c;
  }
  default: /* E_ZERO of a record: a default that is never read */
    return cv_record(e, atom->type, NULL, NULL);
  }
}

static const char *scalar_text(Em *e, Expr *atom) { return cval_of(e, atom)->expr; }

/* --------------------------------------------------------------- output */

/* Deeper code is not indented further: the text of a function nested n
 * levels deep would otherwise grow with n squared. */
enum { MAX_INDENT = 24 };

static void line(Em *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void line(Em *e, const char *fmt, ...) {
  for (int i = 0; i < e->indent && i < MAX_INDENT; i++)
    sb_puts(e->out, "  ");
  va_list ap;
  va_start(ap, fmt);
  char small[256];
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < (int)sizeof small) {
    sb_puts(e->out, small);
  } else {
    char *big = malloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb_puts(e->out, big);
    free(big);
  }
  sb_puts(e->out, "\n");
}

/* Declares fresh C variables for every leaf of a value of type t, named
 * after `base`; record leaves go to their home when they have one. */
static CVal *declare(Em *e, Type *t, const char *base) {
  if (is_leaf(t)) {
    const char *n = nameset_fresh(&e->names, e->a, base);
    /* an if's scalar result may serve only another variant (f's tape in
     * f__aug): set in both branches, unused here */
    line(e, "%s %s%s;", c_type(e->a, t), n,
         e->if_result && t->kind != TY_TUPLE ? " __attribute__((unused))" : "");
    if (t->kind == TY_TUPLE)
      return cv_record(e, t, n, NULL);
    return cv_scalar(e, t, n);
  }
  CVal *v = cv_scalar(e, t, NULL);
  v->n = t->n;
  v->elems = arena_alloc(e->a, sizeof(CVal *) * (size_t)(t->n ? t->n : 1));
  for (int i = 0; i < t->n; i++)
    v->elems[i] = declare(e, t->elems[i], arena_printf(e->a, "%s_%d", base, i));
  return v;
}

static void assign(Em *e, CVal *dst, CVal *src) {
  PtrVec d = {0}, s = {0};
  leaves_of(e->a, dst, &d);
  leaves_of(e->a, src, &s);
  for (int i = 0; i < d.len && i < s.len; i++) {
    CVal *dl = d.items[i], *sl = s.items[i];
    if (!sl->expr || (dl->expr && strcmp(dl->expr, sl->expr) == 0))
      continue; /* default value, or already written in place */
    if (dl->zero_init && sl->zero_literal == dl->zero_init)
      continue; /* declared zero */
    line(e, "%s = %s;", dl->expr, sl->expr);
  }
}

/* ------------------------------------------------------ record homes */

static Expr *bound_rhs(Expr *block, Expr *atom) {
  if (atom->kind != E_VAR)
    return NULL;
  for (Expr *b = block; b->kind == E_LET; b = b->body)
    if (b->var == atom->var)
      return b->args[0];
  return NULL;
}

static void set_home(Em *e, Expr *atom, Var *owner, int leaf, CVal *fixed) {
  if (atom->kind != E_VAR || !atom->type || atom->type->kind != TY_TUPLE || !atom->type->name)
    return;
  Home *h = arena_alloc(e->a, sizeof *h);
  h->owner = owner;
  h->leaf = leaf;
  h->cval = fixed;
  varmap_put(&e->homes, atom->var, h);
}

/* A scalar leaf of an inner if's result that the branch only passes on
 * into its own result is written by the inner if straight into the outer
 * if's result variable: without this, each level of an else-if chain would
 * copy every residual of the levels below it (quadratic code). */
static bool projects_inner_if(const VarMap *bound, Expr *atom) {
  if (atom->kind != E_VAR || atom->type->kind == TY_TUPLE || atom->type->kind == TY_ARRAY)
    return false;
  Expr *get = varmap_get(bound, atom->var);
  if (!get || get->kind != E_GET || get->args[0]->kind != E_VAR)
    return false;
  Expr *producer = varmap_get(bound, get->args[0]->var);
  return producer && producer->kind == E_IF;
}

static void set_scalar_home(Em *e, Var *v, Var *owner, int leaf) {
  Home *h = arena_alloc(e->a, sizeof *h);
  h->owner = owner;
  h->leaf = leaf;
  varmap_put(&e->homes, v, h);
}

/* Records placed in the result tuple of an if branch live in the if's
 * result variables, and so do scalars passed on from an inner if. */
static void find_homes(Em *e, Expr *block) {
  for (Expr *b = block; b->kind == E_LET; b = b->body) {
    Expr *rhs = b->args[0];
    if (rhs->kind != E_IF || is_leaf(rhs->type))
      continue;
    for (int j = 1; j <= 2; j++) {
      Expr *br = rhs->args[j];
      find_homes(e, br);
      Expr *res = br;
      while (res->kind == E_LET)
        res = res->body;
      VarMap bound = {0}; /* the branch's variables -> their right-hand sides */
      for (Expr *p = br; p->kind == E_LET; p = p->body)
        varmap_put(&bound, p->var, p->args[0]);
      Expr *tup = res->kind == E_VAR ? varmap_get(&bound, res->var) : NULL;
      int leaf = 0;
      for (int i = 0; tup && tup->kind == E_TUPLE && i < tup->nargs; i++) {
        if (is_leaf(tup->args[i]->type)) {
          set_home(e, tup->args[i], b->var, leaf, NULL);
          if (projects_inner_if(&bound, tup->args[i]))
            set_scalar_home(e, tup->args[i]->var, b->var, leaf);
        }
        leaf += leaf_count(rhs->type->elems[i]);
      }
      varmap_free(&bound);
    }
  }
}

/* Leaf `index` of v in order, or NULL. */
static CVal *leaf_at(CVal *v, int index) {
  if (is_leaf(v->type))
    return index == 0 ? v : NULL;
  for (int i = 0; i < v->n; i++) {
    int k = leaf_count(v->elems[i]->type);
    if (index < k)
      return leaf_at(v->elems[i], index);
    index -= k;
  }
  return NULL;
}

static CVal *home_of(Em *e, Var *v) {
  Home *h = varmap_get(&e->homes, v);
  if (!h)
    return NULL;
  if (h->cval)
    return h->cval;
  CVal *owner = varmap_get(&e->vals, h->owner);
  if (!owner)
    return NULL;
  return leaf_at(owner, h->leaf);
}

/* ------------------------------------------------------------ bindings */

static CVal *emit_block(Em *e, Expr *block, CVal *dest);
static void emit_log(Em *e, Var *x, Expr *rhs);

static const char *prim_text(Em *e, Expr *rhs);

/* An operand's text; a product fused into this sum is written in place, so
 * that the C compiler may contract the two as it does in the primal. */
static const char *operand_text(Em *e, Expr *atom) {
  Expr *mul = atom->kind == E_VAR ? varmap_get(&e->fused, atom->var) : NULL;
  return mul ? arena_printf(e->a, "(%s)", prim_text(e, mul)) : scalar_text(e, atom);
}

/* The runtime's addition whose order is free (Expr.free_order). */
static const char *free_add(const Type *t) {
  return t->kind == TY_F32 ? "chad__free_addf" : "chad__free_add";
}

static const char *prim_text(Em *e, Expr *rhs) {
  const PrimInfo *pi = prim_info(rhs->op);
  const char *a0 = operand_text(e, rhs->args[0]);
  const char *a1 = rhs->nargs > 1 ? operand_text(e, rhs->args[1]) : NULL;
  if (rhs->op == P_BITS_LLONG)
    return arena_printf(e->a, "((union { double d; long long i; }){.d = %s}).i", a0);
  if (pi->cls == PC_CAST)
    return arena_printf(e->a, "(%s)%s", pi->c_name, a0);
  if (rhs->free_order && rhs->op == P_ADD && type_is_float(rhs->type))
    return arena_printf(e->a, "%s(%s, %s)", free_add(rhs->type), a0, a1);
  if (pi->infix)
    return a1 ? arena_printf(e->a, "%s %s %s", a0, pi->c_name, a1)
              : arena_printf(e->a, "%s%s", pi->c_name, a0);
  bool f32 = rhs->args[0]->type->kind == TY_F32;
  if (rhs->op == P_POWI) /* the conversion C makes at the call, written out:
                            an implicit one of a large constant warns */
    a1 = arena_printf(e->a, "(%s)%s", f32 ? "float" : "double", a1);
  if (rhs->nargs == 3)
    return arena_printf(e->a, "%s%s(%s, %s, %s)", pi->c_name, f32 ? "f" : "", a0, a1,
                        operand_text(e, rhs->args[2]));
  if (a1)
    return arena_printf(e->a, "%s%s(%s, %s)", pi->c_name, f32 ? "f" : "", a0, a1);
  return arena_printf(e->a, "%s%s(%s)", pi->c_name, f32 ? "f" : "", a0);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The C parameters of a call of g (`g`) or of its f_fwd (`g$fwd`, each
 * active parameter followed by its tangent) that take rows (Func.rows):
 * per argument, the row length and whether the rows are writable. NULL
 * when none does. */
static long long *rows_of_args(Em *e, Expr *call, bool **writable) {
  bool fwd = ends_with(call->name, "$fwd");
  const Func *g = module_find(e->m, fwd ? arena_printf(e->a, "%.*s", (int)(strlen(call->name) - 4),
                                                         call->name)
                                        : call->name);
  if (!g || !g->rows || g->is_custom || (!fwd && strchr(call->name, '$')))
    return NULL;
  long long *rows = arena_alloc(e->a, sizeof(long long) * (size_t)(call->nargs + 1));
  *writable = arena_alloc(e->a, sizeof(bool) * (size_t)(call->nargs + 1));
  for (int i = 0, k = 0; i < g->nparams && k < call->nargs; i++) {
    int copies = fwd && func_param_active(g, i) ? 2 : 1; /* g's, then its tangent */
    for (int c = 0; c < copies && k < call->nargs; c++, k++) {
      rows[k] = func_param_rows(g, i);
      (*writable)[k] = func_param_written(g, i);
    }
  }
  return rows;
}

static void args_text(Em *e, StrBuf *b, Expr *call, int from, bool *first) {
  bool *writable = NULL;
  long long *rows = rows_of_args(e, call, &writable);
  for (int i = from; i < call->nargs; i++) {
    CVal *v = cval_of(e, call->args[i]);
    const char *t = v->type->kind == TY_TUPLE ? record_addr(e, v) : v->expr;
    if (rows && rows[i] > 0) /* the flat array, as the rows g's C takes */
      t = arena_printf(e->a, "(%s)%s", param_decl(e->a, v->type, writable[i], rows[i], ""), t);
    sb_printf(b, "%s%s", *first ? "" : ", ", t);
    *first = false;
  }
}

/* The result leaves of a call, declared (records at their home). */
static CVal *call_result(Em *e, Var *x, Type *t, int skip_first) {
  (void)skip_first;
  if (is_leaf(t))
    return declare(e, t, name_of(e, x));
  CVal *v = cv_scalar(e, t, NULL);
  v->n = t->n;
  v->elems = arena_alloc(e->a, sizeof(CVal *) * (size_t)(t->n ? t->n : 1));
  for (int i = 0; i < t->n; i++)
    v->elems[i] = declare(e, t->elems[i], arena_printf(e->a, "%s_%d", name_of(e, x), i));
  return v;
}

/* g$aug returns (ret, tape): the tape goes to the home of the variable
 * that projects it, when that home exists. */
static CVal *aug_tape_home(Em *e, Var *pair) {
  PtrVec *gets = varmap_get(&e->gets, pair);
  for (int i = 0; gets && i < gets->len; i++) {
    Expr *let = gets->items[i];
    if (let->args[0]->index == 1)
      return home_of(e, let->var);
  }
  return NULL;
}

/* g$rev(args, ret_b) of a CHAD_CUSTOM g (ad/custom.c) is the user's g_rev
 * by the contract: the scalars' adjoints are pointers, so each gets a local
 * declared zero (g_rev adds into it), passed right after its primal; array
 * buffers are IR arguments already. g_rev's own value is the primal one,
 * which the primal sweep has: it is not kept (no unused variable). */
static void emit_custom_rev(Em *e, Var *x, Expr *rhs, const Func *grev) {
  const char *cname = c_name_of(e->a, rhs->name);
  size_t base = strlen(rhs->name) - strlen("$rev");
  const Func *g = module_find(e->m, arena_printf(e->a, "%.*s", (int)base, rhs->name));
  Type *cts = rhs->type->elems[1];
  CVal *res = cv_scalar(e, rhs->type, NULL);
  res->n = 2;
  res->elems = arena_alloc(e->a, sizeof(CVal *) * 2);
  res->elems[0] = cv_scalar(e, rhs->type->elems[0], NULL); /* never read */
  CVal *ct = cv_scalar(e, cts, NULL);
  ct->n = cts->n;
  ct->elems = arena_alloc(e->a, sizeof(CVal *) * (size_t)(cts->n ? cts->n : 1));
  res->elems[1] = ct;
  StrBuf b = {0};
  int k = 0, j = 0;
  for (int i = 0; g && i < g->nparams; i++) {
    sb_printf(&b, "%s%s", i ? ", " : "", operand_text(e, rhs->args[k++]));
    if (func_param_class(g, i) == PARAM_ACTIVE_SCALAR) {
      const char *n = nameset_fresh(&e->names, e->a,
                                    arena_printf(e->a, "%s_%d", name_of(e, x), j));
      line(e, "%s %s = %s;", c_type(e->a, cts->elems[j]), n, cotangent_zero(cts->elems[j]));
      ct->elems[j] = cv_scalar(e, cts->elems[j], n);
      j++;
      sb_printf(&b, ", &%s", n);
    } else if (func_param_active(g, i)) { /* an array: its buffer */
      sb_printf(&b, ", %s", operand_text(e, rhs->args[k++]));
    }
  }
  Type *cret = rhs->type->elems[0];
  int seed = type_is_float(cret);
  if (!g || k != grev->nparams - seed || j != cts->n) {
    em_fail(e, "call of a custom derivative that does not match its function");
    free(b.data);
    return;
  }
  if (seed)
    sb_printf(&b, "%s%s", k ? ", " : "", operand_text(e, rhs->args[k]));
  line(e, "%s%s(%s);", cret->kind == TY_TUPLE ? "" : "(void)", cname, b.data ? b.data : "");
  varmap_put(&e->vals, x, res);
  free(b.data);
}

/* A plain tuple CVal of type t, its fields to be filled. */
static CVal *cv_tuple(Em *e, Type *t) {
  CVal *v = cv_scalar(e, t, NULL);
  v->n = t->n;
  v->elems = arena_alloc(e->a, sizeof(CVal *) * (size_t)(t->n ? t->n : 1));
  return v;
}

/* A call of a CHAD_CUSTOM g that writes arrays (DESIGN 8.25), or of its
 * g_fwd: the arrays it writes are fresh arrays among its arguments, which
 * it fills in place, so the result's array fields are those arguments.
 * The C return value R (a float, an integer, or nothing) is a local; g_fwd
 * writes R's tangent through d_ret when R is floating. The result is
 * (R, Y...) for g, ((R, Y...), ([dR,] dY...)) for g_fwd. */
static void emit_custom_writer(Em *e, Var *x, Expr *rhs, const Func *g, bool fwd) {
  Type *t = fwd ? rhs->type->elems[0] : rhs->type;
  Type *cret = t->elems[0];
  CVal *val = cv_tuple(e, t), *tan = fwd ? cv_tuple(e, rhs->type->elems[1]) : NULL;
  StrBuf b = {0};
  int k = 0, out = 1, dout = 0;
  const char *dret = NULL;
  if (fwd && type_is_float(cret)) {
    dret = nameset_fresh(&e->names, e->a, arena_printf(e->a, "%s_dret", name_of(e, x)));
    line(e, "%s %s;", c_type(e->a, cret), dret);
    tan->elems[dout++] = cv_scalar(e, cret, dret);
  }
  for (int i = 0; i < g->nparams; i++) {
    CVal *arg = cval_of(e, rhs->args[k++]);
    sb_printf(&b, "%s%s", i ? ", " : "", arg->expr);
    if (func_param_written(g, i))
      val->elems[out++] = arg;
    if (!fwd || !func_param_active(g, i))
      continue;
    CVal *d = cval_of(e, rhs->args[k++]);
    sb_printf(&b, ", %s", d->expr);
    if (func_param_written(g, i))
      tan->elems[dout++] = d;
  }
  if (dret)
    sb_printf(&b, "%s&%s", k ? ", " : "", dret);
  const char *cname = c_name_of(e->a, rhs->name);
  if (cret->kind == TY_TUPLE) {
    line(e, "%s(%s);", cname, b.data ? b.data : "");
    val->elems[0] = cv_tuple(e, cret);
  } else {
    const char *r = nameset_fresh(&e->names, e->a, arena_printf(e->a, "%s_r", name_of(e, x)));
    line(e, "const %s %s = %s(%s);", c_type(e->a, cret), r, cname, b.data ? b.data : "");
    line(e, "(void)%s;", r);
    val->elems[0] = cv_scalar(e, cret, r);
  }
  free(b.data);
  if (!fwd) {
    varmap_put(&e->vals, x, val);
    return;
  }
  CVal *pair = cv_tuple(e, rhs->type);
  pair->elems[0] = val;
  pair->elems[1] = tan;
  varmap_put(&e->vals, x, pair);
}

static void emit_call(Em *e, Var *x, Expr *rhs, Expr *rest) {
  const char *cname = c_name_of(e->a, rhs->name);
  StrBuf b = {0};
  bool first = true;
  const Func *callee = module_find(e->m, rhs->name);
  if (callee && callee->is_custom && func_num_outputs(callee) &&
      !ends_with(rhs->name, "$fwd") && !ends_with(rhs->name, "$rev")) {
    emit_custom_writer(e, x, rhs, callee, false);
    return;
  }
  if (callee && callee->is_custom && ends_with(rhs->name, "$fwd")) {
    const Func *g = module_find(e->m, arena_printf(e->a, "%.*s",
                                                   (int)(strlen(rhs->name) - strlen("$fwd")),
                                                   rhs->name));
    if (g && func_num_outputs(g)) {
      emit_custom_writer(e, x, rhs, g, true);
      return;
    }
  }
  if (callee && callee->is_custom && ends_with(rhs->name, "$rev")) {
    emit_custom_rev(e, x, rhs, callee);
    return;
  }
  if (ends_with(rhs->name, "$fwd") && !is_leaf(rhs->type)) {
    CVal *res = cv_scalar(e, rhs->type, NULL);
    res->n = 2;
    res->elems = arena_alloc(e->a, sizeof(CVal *) * 2);
    const char *base = name_of(e, x);
    res->elems[1] = declare(e, rhs->type->elems[1], arena_printf(e->a, "%s_d", base));
    const char *v0 = nameset_fresh(&e->names, e->a, arena_printf(e->a, "%s_v", base));
    args_text(e, &b, rhs, 0, &first);
    line(e, "const %s %s = %s(%s, &%s);", c_type(e->a, rhs->type->elems[0]), v0, cname,
         b.data ? b.data : "", res->elems[1]->expr);
    res->elems[0] = cv_scalar(e, rhs->type->elems[0], v0);
    varmap_put(&e->vals, x, res);
  } else if (ends_with(rhs->name, "$aug") || ends_with(rhs->name, "$bwd")) {
    bool aug = ends_with(rhs->name, "$aug");
    CVal *res;
    if (aug) {
      res = cv_scalar(e, rhs->type, NULL);
      res->n = 2;
      res->elems = arena_alloc(e->a, sizeof(CVal *) * 2);
      res->elems[0] = declare(e, rhs->type->elems[0], arena_printf(e->a, "%s_v", name_of(e, x)));
      CVal *home = aug_tape_home(e, x);
      res->elems[1] = home ? home
                           : declare(e, rhs->type->elems[1], arena_printf(e->a, "%s_tape", name_of(e, x)));
    } else {
      res = call_result(e, x, rhs->type, 0);
    }
    args_text(e, &b, rhs, 0, &first);
    PtrVec ls = {0};
    leaves_of(e->a, res, &ls);
    for (int i = 0; i < ls.len; i++) {
      CVal *l = ls.items[i];
      sb_printf(&b, "%s%s", first ? "" : ", ",
                l->type->kind == TY_TUPLE ? record_addr(e, l) : arena_printf(e->a, "&%s", l->expr));
      first = false;
    }
    line(e, "%s(%s);", cname, b.data ? b.data : "");
    varmap_put(&e->vals, x, res);
  } else {
    args_text(e, &b, rhs, 0, &first);
    const char *n = name_of(e, x);
    line(e, "const %s %s = %s(%s);", c_type(e->a, rhs->type), n, cname, b.data ? b.data : "");
    varmap_put(&e->vals, x, cv_scalar(e, rhs->type, n));
  }
  free(b.data);
}

/* For each field of `tuple`, the home of the first variable that projects
 * it in the rest of the block, if it has one (one pass over the block). */
static CVal **projection_homes(Em *e, Var *tuple, int nfields) {
  CVal **homes = arena_alloc(e->a, sizeof(CVal *) * (size_t)(nfields ? nfields : 1));
  bool *seen = arena_alloc(e->a, sizeof(bool) * (size_t)(nfields ? nfields : 1));
  PtrVec *gets = varmap_get(&e->gets, tuple);
  for (int i = 0; gets && i < gets->len; i++) {
    Expr *let = gets->items[i];
    int k = let->args[0]->index;
    if (k < nfields && !seen[k]) {
      seen[k] = true;
      homes[k] = home_of(e, let->var);
    }
  }
  return homes;
}


/* Field i of an if's result is a literal zero in some branch: declaring it
 * zero saves that branch an assignment (residuals a branch does not have
 * are zeros in it, one per level of nesting otherwise). */
static Expr *zero_default(Expr *rhs, Expr *const tups[2], int i) {
  if (rhs->type->elems[i]->kind == TY_TUPLE || rhs->type->elems[i]->kind == TY_ARRAY)
    return NULL;
  for (int j = 0; j < 2; j++)
    if (tups[j] && tups[j]->kind == E_TUPLE && tups[j]->nargs == rhs->type->n &&
        zero_const_kind(tups[j]->args[i]))
      return tups[j]->args[i];
  return NULL;
}

/* The result variables of an if; a record field that ends up in a home is
 * written there directly by the branch that produces it, so the other
 * branch leaves it alone and no uninitialised copy is ever made. */
static CVal *declare_if_result(Em *e, Var *x, Expr *rhs, Expr *rest) {
  Type *t = rhs->type;
  if (is_leaf(t))
    return declare(e, t, name_of(e, x));
  CVal *v = cv_scalar(e, t, NULL);
  v->n = t->n;
  v->elems = arena_alloc(e->a, sizeof(CVal *) * (size_t)(t->n ? t->n : 1));
  CVal **homes = projection_homes(e, x, t->n);
  Expr *tups[2]; /* each branch's result tuple, if it builds one */
  for (int j = 0; j < 2; j++)
    tups[j] = bound_rhs(rhs->args[j + 1], block_result(rhs->args[j + 1]));
  for (int i = 0; i < t->n; i++) {
    CVal *home = is_leaf(t->elems[i]) && t->elems[i]->kind != TY_ARRAY ? homes[i] : NULL;
    Expr *zero;
    if (home) {
      v->elems[i] = home;
    } else if ((zero = zero_default(rhs, tups, i))) {
      const char *n = nameset_fresh(&e->names, e->a, arena_printf(e->a, "%s_%d", name_of(e, x), i));
      /* as declare's: a residual only another variant reads (f__aug's
       * tape) is set in one branch and unused here (gen seed 51957) */
      line(e, "%s %s __attribute__((unused)) = %s;", c_type(e->a, t->elems[i]), n,
           literal(e, zero));
      v->elems[i] = cv_scalar(e, t->elems[i], n);
      v->elems[i]->zero_init = zero_const_kind(zero);
    } else if (t->elems[i]->kind == TY_TUPLE && t->elems[i]->name) {
      /* a callee's tape set by one branch only: the other leaves it empty,
       * and copying it on must not read an uninitialised struct */
      const char *n = nameset_fresh(&e->names, e->a, arena_printf(e->a, "%s_%d", name_of(e, x), i));
      line(e, "%s %s = {0};", c_type(e->a, t->elems[i]), n);
      v->elems[i] = cv_record(e, t->elems[i], n, NULL);
    } else {
      e->if_result = true;
      v->elems[i] = declare(e, t->elems[i], arena_printf(e->a, "%s_%d", name_of(e, x), i));
      e->if_result = false;
    }
  }
  return v;
}

typedef struct Scope Scope;
struct Scope {
  PtrVec *frees, *stack;
  int indent;
};

/* Small arrays of a constant length live in automatic storage declared
 * in their scope's C block, which ends where the scope would free them:
 * no malloc and free per array in the loops that make them. The budget
 * bounds a function's stack frame. */
enum { STACK_ARRAY_BYTES = 512, STACK_FUNCTION_BYTES = 16384 };

static Scope *open_scope(Em *e);
static void close_scope(Em *e, Scope *saved);

/* The memory an array value names: the array its pointer was set from. */
static const char *origin(const CVal *v) { return v->alias ? v->alias : v->expr; }

/* An if whose branches both yield the same writable memory for an array
 * (each updated it in place, or left it alone) yields that memory, still
 * writable: a loop's state or an output updated under a condition. A
 * branch's own arrays are freed with it, and are never the same memory
 * as the other branch's. */
static void join_array_leaves(Em *e, CVal *res, CVal *t, CVal *f) {
  PtrVec rl = {0}, tl = {0}, fl = {0};
  leaves_of(e->a, res, &rl);
  leaves_of(e->a, t, &tl);
  leaves_of(e->a, f, &fl);
  for (int i = 0; i < rl.len && i < tl.len && i < fl.len; i++) {
    CVal *r = rl.items[i], *a = tl.items[i], *b = fl.items[i];
    if (r->type->kind != TY_ARRAY || !a->expr || !b->expr || !a->writable || !b->writable ||
        strcmp(origin(a), origin(b)) != 0)
      continue;
    r->writable = true;
    r->alias = origin(a);
    r->inout = a->inout && b->inout;
    e->inout_unknown = e->inout_unknown || a->inout != b->inout;
    r->len = a->len && b->len && strcmp(a->len, b->len) == 0 ? a->len : NULL;
  }
}

/* `to[q] = from[q]` for q below len. */
static void copy_elements(Em *e, const char *to, const char *from, const char *len) {
  const char *q = nameset_fresh(&e->names, e->a, "q");
  line(e, "for (int %s = 0; %s < %s; %s++)", q, q, len, q);
  line(e, "  %s[%s] = %s[%s];", to, q, from, q);
}

/* name, an array of chad__array_new, is freed with the scope of frees */
static void own_array(Em *e, PtrVec *frees, const char *name) {
  ptrvec_push(e->a, frees, (void *)name);
  ptrvec_push(e->a, &e->arrays, (void *)name);
}

/* dest = a heap copy of the len elements of array `from` of type t; the
 * copy's name, for the caller to free. */
static const char *heap_copy(Em *e, Type *t, const char *dest, const char *from,
                             const char *len) {
  const char *copy = nameset_fresh(&e->names, e->a, arena_printf(e->a, "%s_heap", dest));
  line(e, "%s%s = chad__array_new(%s, sizeof(%s), 0);", c_type(e->a, t), copy, len,
       c_type(e->a, t->elem));
  copy_elements(e, copy, from, len);
  line(e, "%s = %s;", dest, copy);
  return copy;
}

/* The arrays of a small constant length that an if yields from its
 * branches' automatic storage: one buffer per result leaf, declared before
 * the if (only one branch runs), instead of a heap copy per run (BA's
 * rotated point cost a malloc and a free per call of f_rev). */
typedef struct {
  const char **buf;         /* per leaf: the buffer, or NULL */
  long *count;              /* per leaf: its elements, the larger branch's */
  const char **stacked[2];  /* per branch and leaf: the length copied, or NULL */
} IfBuffers;

static long stack_elem_bytes(const Type *t) {
  return t->elem->kind == TY_F32 ? (long)sizeof(float)
         : t->elem->kind == TY_F64 ? (long)sizeof(double)
                                   : (long)sizeof(long long);
}

/* Copies branch leaf l of constant length into leaf i's buffer when the
 * if stands at the top of its scope (the buffer lives as long as the
 * scope's other arrays) and the function's stack budget allows. */
static bool copy_to_if_buffer(Em *e, IfBuffers *ib, int side, int i, CVal *l, CVal *d,
                              const Scope *outer) {
  char *end;
  long count = l->len ? strtol(l->len, &end, 10) : 0;
  if (!l->len || *end != '\0' || count <= 0 || !outer->stack || e->indent - 1 != outer->indent)
    return false;
  long size = stack_elem_bytes(l->type);
  long extra = count > ib->count[i] ? (count - ib->count[i]) * size : 0;
  if (count * size > STACK_ARRAY_BYTES || e->stack_bytes + extra > STACK_FUNCTION_BYTES)
    return false;
  e->stack_bytes += extra;
  if (!ib->buf[i])
    ib->buf[i] = nameset_fresh(&e->names, e->a, arena_printf(e->a, "%s_s", d->expr));
  if (count > ib->count[i])
    ib->count[i] = count;
  copy_elements(e, ib->buf[i], l->expr, l->len);
  line(e, "%s = %s;", d->expr, ib->buf[i]);
  ib->stacked[side][i] = l->len;
  return true;
}

/* Each branch is a C scope: arrays made there are freed there, except
 * those the branch yields as the if's result, which the if's result
 * variables take over, with their lengths (`lens`, one name per leaf,
 * made by the first branch that needs it); `made[i]` says the branch's
 * leaf i was such an array. */
static CVal *emit_branch(Em *e, Expr *block, CVal *res, const char **lens, bool *made,
                         IfBuffers *ib, int side) {
  e->indent++;
  Scope *saved = open_scope(e);
  CVal *r = emit_block(e, block, res);
  PtrVec leaves = {0}, dest = {0};
  leaves_of(e->a, r, &leaves);
  leaves_of(e->a, res, &dest);
  for (int i = 0; i < leaves.len; i++) {
    CVal *l = leaves.items[i];
    CVal *d = i < dest.len ? dest.items[i] : NULL;
    for (int j = 0; l->type->kind == TY_ARRAY && l->expr && d && d->expr && j < e->stack->len; j++) {
      if (strcmp(origin(l), e->stack->items[j]) != 0)
        continue;
      /* its storage ends with the branch: the if's result gets a copy */
      if (copy_to_if_buffer(e, ib, side, i, l, d, saved)) {
        l = NULL;
        break;
      }
      const char *copy = heap_copy(e, l->type, d->expr, l->expr, l->len);
      own_array(e, e->frees, copy);
      l = cv_scalar(e, l->type, copy);
      l->len = ((CVal *)leaves.items[i])->len;
      break;
    }
    for (int j = 0; l && l->type->kind == TY_ARRAY && l->expr && j < e->frees->len; j++) {
      if (strcmp(origin(l), e->frees->items[j]) != 0)
        continue;
      if (!d || !d->expr || !l->len) {
        em_fail(e, "an array made under a condition and used after it, of unknown length: "
                   "not supported yet");
        break;
      }
      for (int k = j + 1; k < e->frees->len; k++) /* the if's result frees it */
        e->frees->items[k - 1] = e->frees->items[k];
      e->frees->len--;
      if (!lens[i])
        lens[i] = nameset_fresh(&e->names, e->a, arena_printf(e->a, "%s_n", d->expr));
      line(e, "%s = %s;", lens[i], l->len);
      made[i] = true;
      break;
    }
  }
  close_scope(e, saved);
  e->indent--;
  return r;
}

/* Leaf i of the if's result in the buffer both branches copied into: of
 * their common constant length, or of a length each branch sets when they
 * differ. A branch that copied while the other made an array on the heap
 * moves its copy to the heap as well, so that the result is freed alike. */
static bool take_if_buffer(Em *e, CVal *r, int i, const char **lens, bool *made[2],
                           IfBuffers *ib, StrBuf **branches) {
  const char *st = ib->stacked[0][i], *sf = ib->stacked[1][i];
  if (!st && !sf)
    return false;
  StrBuf *out = e->out;
  e->indent++;
  if (st && sf) {
    if (strcmp(st, sf) != 0) {
      lens[i] = nameset_fresh(&e->names, e->a, arena_printf(e->a, "%s_n", r->expr));
      for (int side = 0; side < 2; side++) {
        e->out = branches[side];
        line(e, "%s = %s;", lens[i], ib->stacked[side][i]);
      }
    }
  } else {
    int side = st ? 0 : 1;
    const char *len = st ? st : sf;
    if (!lens[i])
      lens[i] = nameset_fresh(&e->names, e->a, arena_printf(e->a, "%s_n", r->expr));
    e->out = branches[side];
    heap_copy(e, r->type, r->expr, ib->buf[i], len);
    line(e, "%s = %s;", lens[i], len);
    made[side][i] = true;
  }
  e->indent--;
  e->out = out;
  if (!st || !sf)
    return false; /* now made on the heap: taken as such */
  if (lens[i])
    line(e, "int %s;", lens[i]);
  r->len = lens[i] ? lens[i] : st;
  r->writable = true;
  r->alias = NULL;
  ptrvec_push(e->a, e->stack, (void *)r->expr);
  return true;
}

/* A leaf one branch makes (or copied into the if's buffer) while the other
 * passes on an array from outside the if (scratch only one branch writes,
 * which lowering rebuilds there): the passing branch copies it, into the
 * if's buffer when the other branch used one and the length is a small
 * constant, else to the heap, so that the result is memory of its own,
 * writable and freed alike whichever branch ran. The copy costs what the
 * other branch's rebuild does. */
static void copy_passed_leaves(Em *e, CVal *res, CVal *t, CVal *f, const char **lens,
                               bool *made[2], IfBuffers *ib, StrBuf **branches) {
  PtrVec rl = {0}, bl[2] = {{0}, {0}};
  leaves_of(e->a, res, &rl);
  leaves_of(e->a, t, &bl[0]);
  leaves_of(e->a, f, &bl[1]);
  StrBuf *out = e->out;
  for (int i = 0; i < rl.len && i < bl[0].len && i < bl[1].len; i++) {
    CVal *r = rl.items[i];
    bool own[2];
    for (int side = 0; side < 2; side++)
      own[side] = made[side][i] || ib->stacked[side][i];
    if (r->type->kind != TY_ARRAY || !r->expr || own[0] == own[1])
      continue;
    int side = own[0] ? 1 : 0;
    CVal *l = bl[side].items[i];
    if (!l->expr || !l->len)
      continue; /* refused below */
    e->out = branches[side];
    e->indent++;
    char *end;
    long count = strtol(l->len, &end, 10), size = stack_elem_bytes(r->type);
    long extra = count > ib->count[i] ? (count - ib->count[i]) * size : 0;
    if (ib->buf[i] && *end == '\0' && count > 0 && count * size <= STACK_ARRAY_BYTES &&
        e->stack_bytes + extra <= STACK_FUNCTION_BYTES) {
      e->stack_bytes += extra;
      if (count > ib->count[i])
        ib->count[i] = count;
      copy_elements(e, ib->buf[i], l->expr, l->len);
      line(e, "%s = %s;", r->expr, ib->buf[i]);
      ib->stacked[side][i] = l->len;
    } else {
      if (!lens[i])
        lens[i] = nameset_fresh(&e->names, e->a, arena_printf(e->a, "%s_n", r->expr));
      heap_copy(e, r->type, r->expr, l->expr, l->len);
      line(e, "%s = %s;", lens[i], l->len);
      made[side][i] = true;
    }
    e->indent--;
  }
  e->out = out;
}

/* An array each branch makes becomes the if's result: declared before the
 * if with its length, freed with the scope around the if. An array only
 * one branch makes could not be freed alike: refused. */
static void take_made_arrays(Em *e, CVal *res, const char **lens, bool *made_t, bool *made_f,
                             IfBuffers *ib, StrBuf **branches) {
  PtrVec rl = {0};
  leaves_of(e->a, res, &rl);
  for (int i = 0; i < rl.len; i++) {
    if (take_if_buffer(e, rl.items[i], i, lens, (bool *[2]){made_t, made_f}, ib, branches))
      continue;
    if (made_t[i] != made_f[i]) {
      em_fail(e, "an array made under one branch of a condition only and used after it: "
                 "not supported yet");
      return;
    }
    if (!made_t[i])
      continue;
    CVal *r = rl.items[i];
    line(e, "int %s;", lens[i]);
    r->len = lens[i];
    r->writable = true;
    r->alias = NULL;
    own_array(e, e->frees, r->expr);
  }
}

/* An array leaf of an if's result whose branches know its length by
 * different names (a loop's array unswitched into two copies, one that
 * writes it and one that passes it on) gets a length of its own, declared
 * before the if and set at the end of each branch. */
static void name_branch_lengths(Em *e, CVal *res, CVal *t, CVal *f, StrBuf *then,
                                StrBuf *other, const char **named) {
  PtrVec rl = {0}, tl = {0}, fl = {0};
  leaves_of(e->a, res, &rl);
  leaves_of(e->a, t, &tl);
  leaves_of(e->a, f, &fl);
  StrBuf *out = e->out;
  for (int i = 0; i < rl.len && i < tl.len && i < fl.len; i++) {
    CVal *r = rl.items[i], *a = tl.items[i], *b = fl.items[i];
    if (r->type->kind != TY_ARRAY || r->len || !r->expr || !a->len || !b->len)
      continue;
    const char *n = nameset_fresh(&e->names, e->a, arena_printf(e->a, "%s_n", r->expr));
    line(e, "int %s;", n);
    e->indent++;
    e->out = then;
    line(e, "%s = %s;", n, a->len);
    e->out = other;
    line(e, "%s = %s;", n, b->len);
    e->indent--;
    e->out = out;
    r->len = n;
    named[i] = n;
  }
}

static void emit_if(Em *e, Var *x, Expr *rhs, Expr *rest) {
  CVal *res = declare_if_result(e, x, rhs, rest);
  varmap_put(&e->vals, x, res);
  PtrVec rl = {0};
  leaves_of(e->a, res, &rl);
  int n = rl.len ? rl.len : 1;
  const char **lens = arena_alloc(e->a, sizeof(char *) * (size_t)n);
  bool *made_t = arena_alloc(e->a, sizeof(bool) * (size_t)n);
  bool *made_f = arena_alloc(e->a, sizeof(bool) * (size_t)n);
  memset(lens, 0, sizeof(char *) * (size_t)n);
  memset(made_t, 0, sizeof(bool) * (size_t)n);
  memset(made_f, 0, sizeof(bool) * (size_t)n);
  /* the branches are written apart: the lengths of the arrays they make
   * are declared before the if */
  StrBuf *out = e->out, then = {0}, other = {0};
  IfBuffers ib = {arena_alloc(e->a, sizeof(char *) * (size_t)n),
                  arena_alloc(e->a, sizeof(long) * (size_t)n),
                  {arena_alloc(e->a, sizeof(char *) * (size_t)n),
                   arena_alloc(e->a, sizeof(char *) * (size_t)n)}};
  memset(ib.buf, 0, sizeof(char *) * (size_t)n);
  memset(ib.count, 0, sizeof(long) * (size_t)n);
  memset(ib.stacked[0], 0, sizeof(char *) * (size_t)n);
  memset(ib.stacked[1], 0, sizeof(char *) * (size_t)n);
  e->out = &then;
  CVal *t = emit_branch(e, rhs->args[1], res, lens, made_t, &ib, 0);
  e->out = &other;
  CVal *f = emit_branch(e, rhs->args[2], res, lens, made_f, &ib, 1);
  e->out = out;
  copy_passed_leaves(e, res, t, f, lens, (bool *[2]){made_t, made_f}, &ib,
                     (StrBuf *[2]){&then, &other});
  for (int i = 0; i < rl.len; i++)
    if (ib.buf[i])
      line(e, "%s %s[%ld];", c_type(e->a, ((CVal *)rl.items[i])->type->elem), ib.buf[i],
           ib.count[i]);
  join_array_leaves(e, res, t, f);
  take_made_arrays(e, res, lens, made_t, made_f, &ib, (StrBuf *[2]){&then, &other});
  const char **named = arena_alloc(e->a, sizeof(char *) * (size_t)n);
  memset(named, 0, sizeof(char *) * (size_t)n);
  name_branch_lengths(e, res, t, f, &then, &other, named);
  line(e, "if (%s) {", scalar_text(e, rhs->args[0]));
  if (then.len)
    sb_puts(e->out, then.data);
  /* an else that has nothing to do (its results are in place) is left out */
  if (other.len) {
    line(e, "} else {");
    sb_puts(e->out, other.data);
  }
  free(then.data);
  free(other.data);
  line(e, "}");
  /* an array an if yields may be memory written in place (an in-out
   * parameter) that nothing reads through this name afterwards */
  for (int i = 0; i < rl.len; i++) {
    CVal *l = rl.items[i];
    if (l->type->kind == TY_ARRAY && l->expr)
      line(e, "(void)%s;", l->expr);
    if (lens[i])
      line(e, "(void)%s;", lens[i]);
    if (named[i])
      line(e, "(void)%s;", named[i]);
  }
}

static void emit_tuple(Em *e, Var *x, Expr *rhs) {
  CVal *v = cv_scalar(e, rhs->type, NULL);
  v->n = rhs->nargs;
  v->elems = arena_alloc(e->a, sizeof(CVal *) * (size_t)(rhs->nargs ? rhs->nargs : 1));
  for (int i = 0; i < rhs->nargs; i++)
    v->elems[i] = cval_of(e, rhs->args[i]);
  v->literal = rhs->name != NULL;
  varmap_put(&e->vals, x, v);
}

static void emit_build(Em *e, Var *x, Expr *rhs, Expr *rest);
static void emit_sum(Em *e, Var *x, Expr *rhs);
static void emit_fold(Em *e, Var *x, Expr *rhs, Expr *rest);
static void emit_while(Em *e, Var *x, Expr *rhs, Expr *rest);
static void emit_scatter(Em *e, Var *x, Expr *rhs);
static void emit_array_op(Em *e, Var *x, Expr *rhs);
static void emit_table(Em *e, Var *x, Expr *rhs);

static bool interleave_elided(Em *e, Var *x, Expr *rhs);

static void emit_binding(Em *e, Var *x, Expr *rhs, Expr *rest) {
  if (interleave_elided(e, x, rhs))
    return;
  switch (rhs->kind) {
  case E_VAR:
  case E_CONST:
  case E_ZERO:
    varmap_put(&e->vals, x, cval_of(e, rhs));
    return;
  case E_PRIM: {
    const char *n = name_of(e, x);
    line(e, "const %s %s = %s;", c_type(e->a, rhs->type), n, prim_text(e, rhs));
    varmap_put(&e->vals, x, cv_scalar(e, rhs->type, n));
    return;
  }
  case E_GET:
    varmap_put(&e->vals, x, field_of(e, cval_of(e, rhs->args[0]), rhs->index));
    return;
  case E_TUPLE:
    emit_tuple(e, x, rhs);
    return;
  case E_CALL:
    emit_call(e, x, rhs, rest);
    return;
  case E_IF:
    emit_if(e, x, rhs, rest);
    return;
  case E_BUILD:
    emit_build(e, x, rhs, rest);
    return;
  case E_SUM:
    emit_sum(e, x, rhs);
    return;
  case E_FOLD:
  case E_FOLDSAVE:
    emit_fold(e, x, rhs, rest);
    return;
  case E_WHILE:
  case E_WHILESAVE:
    emit_while(e, x, rhs, rest);
    return;
  case E_SCATTER:
    emit_scatter(e, x, rhs);
    return;
  case E_INDEX:
  case E_LEN:
  case E_VIEW:
  case E_ACCUM:
  case E_ALLOC:
  case E_UPDATE:
    emit_array_op(e, x, rhs);
    return;
  case E_TABLE:
    emit_table(e, x, rhs);
    return;
  case E_LOGSAVE:
  case E_LOGPOP:
  case E_LOGMARK:
  case E_LOGUNDO:
  case E_LOGPUSH:
  case E_LOGTAKE:
  case E_LOGVIEW:
  case E_LOGFINAL:
    emit_log(e, x, rhs);
    return;
  default:
    line(e, "#error \"chad: unexpected IR node in emission\"");
    return;
  }
}


/* ------------------------------------------------------ arrays, loops */

/* Arrays allocated in a C scope are freed when it ends: the loop forms
 * never let an array escape their body, and a function's own results go
 * to the caller's buffers, so ownership follows scopes. */
static Scope *open_scope(Em *e) {
  Scope *saved = arena_alloc(e->a, sizeof(Scope));
  saved->frees = e->frees;
  saved->stack = e->stack;
  saved->indent = e->scope_indent;
  e->frees = arena_alloc(e->a, sizeof(PtrVec));
  e->stack = arena_alloc(e->a, sizeof(PtrVec));
  e->scope_indent = e->indent;
  return saved;
}

static bool is_array(Em *e, const char *name) {
  for (int i = 0; i < e->arrays.len; i++)
    if (strcmp(e->arrays.items[i], name) == 0)
      return true;
  return false;
}

static void close_scope(Em *e, Scope *saved) {
  for (int i = e->frees->len - 1; i >= 0; i--) {
    const char *name = e->frees->items[i];
    if (e->log && strcmp(name, e->log) == 0) /* kept for the next call */
      line(e, "chad__log_close(&%s);", e->log);
    else if (is_array(e, name))
      line(e, "chad__array_free(%s);", name);
    else
      line(e, "free(%s);", name);
  }
  if (saved) {
    e->frees = saved->frees;
    e->stack = saved->stack;
    e->scope_indent = saved->indent;
  }
}

static bool fits_stack(Em *e, Type *t, const char *n, long *bytes) {
  char *end;
  long count = strtol(n, &end, 10);
  *bytes = count * stack_elem_bytes(t);
  return *end == '\0' && count > 0 && *bytes <= STACK_ARRAY_BYTES && e->stack &&
         e->indent == e->scope_indent && e->stack_bytes + *bytes <= STACK_FUNCTION_BYTES;
}

static bool slot_hoist(Em *e, const char *name, Type *t, const char *n, const Expr *count,
                       const char *slot, bool zero);

/* Arrays of cotangents in the frame up to this many elements start at -0
 * element by element (DESIGN 8.66); longer ones at +0, which `{0}` says
 * in one line: their elements are reached by loops, where the C compiler
 * cannot fold additions of a known zero anyway. */
enum { NEG_ZERO_LIST_MAX = 16 };

/* " = {-0.0, ...}" for n elements of type elem. */
static const char *neg_zero_list(Em *e, const Type *elem, long n) {
  StrBuf b = {0};
  sb_puts(&b, " = {");
  for (long i = 0; i < n; i++)
    sb_printf(&b, "%s%s", i ? ", " : "", cotangent_zero(elem));
  sb_puts(&b, "}");
  char *text = sb_take(&b);
  const char *kept = arena_strdup(e->a, text);
  free(text);
  return kept;
}

/* A new array of n elements of type elem, zeroed when zero is 1, and when
 * it is 2 zeroed with -0 where it lives in the frame (an array of
 * cotangents, DESIGN 8.66); count: n as an atom of the IR, or NULL when it
 * is no atom's. */
static CVal *new_array(Em *e, Type *t, const char *base, const char *n, const Expr *count,
                       int zero) {
  const char *name = nameset_fresh(&e->names, e->a, base);
  long bytes;
  if (fits_stack(e, t, n, &bytes)) {
    const char *store = nameset_fresh(&e->names, e->a, arena_printf(e->a, "%s_s", name));
    long elems = bytes / stack_elem_bytes(t);
    const char *init = zero == 2 && type_is_float(t->elem) && elems <= NEG_ZERO_LIST_MAX
                           ? neg_zero_list(e, t->elem, elems)
                       : zero ? " = {0}"
                              : "";
    line(e, "%s %s[%s]%s;", c_type(e->a, t->elem), store, n, init);
    line(e, "%s%s = %s;", c_type(e->a, t), name, store);
    ptrvec_push(e->a, e->stack, (void *)name);
    e->stack_bytes += bytes;
  } else if (e->frees != e->top_frees && e->stack) {
    /* A site in a loop body or a branch: each array it makes is dead when
     * its scope ends, before the site runs again, so one block serves
     * every run (freed at the function's exit): no malloc and free per
     * iteration. Out of a branch, the if's result gets its own copy, as
     * for automatic storage. */
    const char *slot = nameset_fresh(&e->names, e->a, arena_printf(e->a, "%s_slot", name));
    ptrvec_push(e->a, &e->slots, (void *)slot);
    own_array(e, e->top_frees, arena_printf(e->a, "%s.p", slot));
    if (!slot_hoist(e, name, t, n, count, slot, zero != 0))
      line(e, "%s%s = chad__slot_get(&%s, %s, sizeof(%s), %d);", c_type(e->a, t), name, slot, n,
           c_type(e->a, t->elem), zero != 0);
    line(e, "(void)%s;", name); /* a tape of a state without leaves is never read */
    ptrvec_push(e->a, e->stack, (void *)name);
  } else {
    line(e, "%s%s = chad__array_new(%s, sizeof(%s), %d);", c_type(e->a, t), name, n,
         c_type(e->a, t->elem), zero != 0);
    own_array(e, e->frees, name);
  }
  CVal *v = cv_scalar(e, t, name);
  v->len = n;
  v->writable = true;
  return v;
}

static int use_count(Em *e, Var *v) { return (int)(long)varmap_get(&e->uses, v); }

/* The arrays a build writes: at their home (an output buffer) if they have
 * one, else freshly allocated. */
static CVal *build_result(Em *e, Var *x, Type *t, const char *n, const Expr *count, Expr *rest) {
  if (t->kind == TY_ARRAY) {
    CVal *home = home_of(e, x);
    if (home) {
      CVal *v = cv_scalar(e, t, home->expr);
      v->len = n;
      v->writable = true;
      return v;
    }
    return new_array(e, t, name_of(e, x), n, count, false);
  }
  CVal *v = cv_scalar(e, t, NULL);
  v->n = t->n;
  v->elems = arena_alloc(e->a, sizeof(CVal *) * (size_t)(t->n ? t->n : 1));
  CVal **homes = projection_homes(e, x, t->n);
  for (int i = 0; i < t->n; i++) {
    CVal *home = homes[i];
    if (home) {
      v->elems[i] = cv_scalar(e, t->elems[i], home->expr);
      v->elems[i]->len = n;
      v->elems[i]->writable = true;
    } else {
      v->elems[i] = new_array(e, t->elems[i], arena_printf(e->a, "%s_%d", name_of(e, x), i), n, count,
                              false);
    }
  }
  return v;
}

/* The loop whose header is written next: steps, its step count (an atom),
 * or NULL for a while loop. */
static void enter_loop(Em *e, const Expr *steps, const char *steps_text) {
  LoopFrame *f = arena_alloc(e->a, sizeof *f);
  *f = (LoopFrame){e->out, e->out->len, e->indent, steps, steps_text};
  ptrvec_push(e->a, &e->loops, f);
}

/* The C text of the counter k of the loop open_loop opened: its name, or 0
 * in a loop of one step. */
static const char *counter_text(Em *e, Var *k) {
  CVal *v = varmap_get(&e->vals, k);
  return v ? v->expr : name_of(e, k);
}

static void open_loop(Em *e, Var *k, const char *n, const Expr *steps) {
  const char *kn = name_of(e, k);
  varmap_put(&e->vals, k, cv_scalar(e, ty_int(), kn));
  enter_loop(e, steps, n);
  if (strcmp(n, "1") == 0) { /* one step (a scalar output `*loss = v`): a block */
    varmap_put(&e->vals, k, cv_scalar(e, ty_int(), "0"));
    line(e, "{");
    e->indent++;
    return;
  }
  line(e, "for (int %s = 0; %s < %s; %s++) {", kn, kn, n, kn);
  e->indent++;
}

static void close_loop(Em *e) {
  e->indent--;
  line(e, "}");
  e->loops.len--;
}

/* The number of loops around the binding of atom a (0 for a constant), or
 * -1 when that is not known (a loop's counter or state, which change from
 * step to step, are never known). */
static int binding_depth(Em *e, const Expr *a) {
  if (a->kind == E_CONST)
    return 0;
  long d = a->kind == E_VAR ? (long)varmap_get(&e->depth, a->var) : 0;
  return (int)d - 1;
}

/* The outermost of the loops around the site that an allocation of count
 * elements may be taken before: its count and the step counts of the loops
 * it leaves are bound before that loop, the site runs at every step of each
 * (no condition or while loop between them: a branch is written in a text
 * of its own), so the block is the one each step would take. -1: none. */
static int hoist_depth(Em *e, const Expr *count) {
  int top = e->loops.len, d = count ? binding_depth(e, count) : -1, best = -1, steps_depth = 0;
  for (int k = top - 1; k >= 0 && d >= 0 && d <= k; k--) {
    LoopFrame *f = e->loops.items[k];
    int sd = f->steps ? binding_depth(e, f->steps) : -1;
    if (!f->steps || f->out != e->out || sd < 0)
      break;
    steps_depth = sd > steps_depth ? sd : steps_depth;
    if (steps_depth > k)
      break;
    best = k;
  }
  return best;
}

/* Writes text at the beginning of loop k's header: the loops inside it (and
 * k, so that what is written there next comes after) move down. */
static void write_before_loop(Em *e, int k, const char *text) {
  LoopFrame *f = e->loops.items[k];
  size_t at = f->at, n = strlen(text);
  StrBuf *out = f->out;
  sb_puts(out, text); /* room, then the tail moved down over it */
  memmove(out->data + at + n, out->data + at, out->len - n - at);
  memcpy(out->data + at, text, n);
  for (int j = 0; j < e->loops.len; j++) {
    LoopFrame *g = e->loops.items[j];
    if (g->out == out && g->at >= at)
      g->at += n;
  }
}

/* An allocation site in a loop body whose block every step takes alike:
 * taken once before the outermost such loop (a call per step was a tenth
 * of GMM's f_rev at d = 2), with a count of 0 when one of the loops runs
 * no step (the primal allocates nothing then: the block is the smallest),
 * and at the site only zeroed when asked. The block comes from
 * chad__slot_block, out of line, whose malloc attribute tells the C
 * compiler that no other pointer reaches it. False when the site stays as it is. */
static bool slot_hoist(Em *e, const char *name, Type *t, const char *n, const Expr *count,
                       const char *slot, bool zero) {
  int k = hoist_depth(e, count);
  if (k < 0)
    return false;
  StrBuf steps = {0};
  for (int j = k; j < e->loops.len; j++)
    sb_printf(&steps, "%s(%s) > 0", j > k ? " && " : "",
              ((LoopFrame *)e->loops.items[j])->steps_text);
  const char *block = nameset_fresh(&e->names, e->a, arena_printf(e->a, "%s_block", name));
  const char *elem = c_type(e->a, t->elem);
  StrBuf text = {0};
  for (int i = 0; i < ((LoopFrame *)e->loops.items[k])->indent && i < MAX_INDENT; i++)
    sb_puts(&text, "  ");
  sb_printf(&text, "%s%s = chad__slot_block(&%s, %s ? (%s) : 0, sizeof(%s));\n", c_type(e->a, t),
            block, slot, steps.data, n, elem);
  write_before_loop(e, k, text.data);
  free(steps.data);
  free(text.data);
  line(e, "%s%s = %s;", c_type(e->a, t), name, block);
  if (zero)
    line(e, "chad__slot_zero(%s, %s, sizeof(%s));", name, n, elem);
  return true;
}

/* Does e touch the stack of residual words: push or take one, or record
 * its height (a mark) or drop words down to one (an undo)? */
static bool has_stack_op(const Expr *e) {
  return expr_contains(e, E_LOGPUSH) || expr_contains(e, E_LOGTAKE) ||
         expr_contains(e, E_LOGVIEW) || expr_contains(e, E_LOGMARK) || expr_contains(e, E_LOGUNDO);
}

/* Before a loop of n steps over body, when each step pushes k words of
 * residuals (or takes k) at its top level and nothing else inside it
 * touches that stack: one reservation (or release) of n k words for all
 * steps, and the pushes and takes of the body become stores and loads at
 * `(i k + m)` (or `((n - i) k - 1 - m)`, the stack read from the top) of
 * that block. Not when the body marks the stack's height or undoes down to
 * a mark (a step recomputed in the reverse sweep, DESIGN 8.13): the mark
 * would record the height after the whole block, and the undo drop it. The same words in the same places as one push at a time,
 * without a capacity check, a call and a reload of the stack's top per
 * word: loops that store their residuals (DESIGN 8.22) vectorise again.
 * Returns the state to restore after the loop. */
/* Whether the steps of loop rhs push (*push words each) or take (*take)
 * at their body's top level only, so that emit_slab_begin gives the loop a
 * slab. */
static bool slab_loop(const Expr *rhs, int *push, int *take) {
  *push = *take = 0;
  const Expr *b = rhs->body;
  for (; b->kind == E_LET; b = b->body) {
    const Expr *r = b->args[0];
    if (r->kind == E_LOGPUSH)
      ++*push;
    else if (r->kind == E_LOGTAKE)
      ++*take;
    else if (has_stack_op(r))
      return false;
  }
  return !has_stack_op(b) && (*push > 0) != (*take > 0);
}

static Slab emit_slab_begin(Em *e, Expr *rhs, const char *n) {
  Slab saved = e->slab;
  e->slab.ptr = NULL;
  int push, take;
  if (!e->log || !slab_loop(rhs, &push, &take))
    return saved;
  const char *ptr = nameset_fresh(&e->names, e->a, "chad__slab");
  const char *in_frame = varmap_get(&e->frame_at, rhs->var);
  if (in_frame) {
    line(e, "chad__word *const %s = %s;", ptr, in_frame);
    e->frame_left--;
  } else
    line(e, "chad__word *const %s = chad__log_%s(&%s, (long long)%s * %d);", ptr,
         push ? "reserve" : "release", e->log, n, push + take);
  line(e, "(void)%s; /* the steps may read none of their words */", ptr);
  e->slab.ptr = ptr;
  e->slab.n = n;
  e->slab.i = strcmp(n, "1") == 0 ? "0" : name_of(e, rhs->var); /* open_loop's counter */
  e->slab.k = push + take;
  e->slab.m = 0;
  e->slab.take = take > 0;
  return saved;
}

/* The place of the slab's next word: for a push (take false) or a take.
 * Takes read the block from its top, the newest word first. */
static const char *slab_word(Em *e, bool take) {
  Slab *s = &e->slab;
  int m = s->m++;
  if (!s->i)
    return arena_printf(e->a, "%s[%d]", s->ptr, take ? s->k - 1 - m : m);
  if (take)
    return arena_printf(e->a, "%s[(long long)(%s - %s) * %d - %d]", s->ptr, s->n, s->i, s->k,
                        1 + m);
  return arena_printf(e->a, "%s[(long long)%s * %d + %d]", s->ptr, s->i, s->k, m);
}

/* At binding b of a block, outside a slab loop's body: when b starts a run
 * of k >= 2 consecutive takes (the reverse of a step's pushes, which
 * emit_frame reserved at once), one release of the k words and a load of
 * each, the newest first: one update of the stack's top for the run, not
 * one per word. Returns k, 0 when b starts no run; *outer is the state to
 * restore after the run's k bindings. */
static int emit_word_run(Em *e, Expr *b, Slab *outer) {
  if (e->slab.ptr || !e->log || e->log_in_locals || b->args[0]->kind != E_LOGTAKE)
    return 0;
  int k = 0;
  bool read = false;
  for (Expr *p = b; p->kind == E_LET && p->args[0]->kind == E_LOGTAKE && !varmap_has(&e->fused, p->var);
       p = p->body, k++)
    read = read || varmap_has(&e->used, p->var);
  if (k < 2)
    return 0;
  *outer = e->slab;
  const char *ptr = "";
  if (read) {
    ptr = nameset_fresh(&e->names, e->a, "chad__words");
    line(e, "chad__word *const %s = chad__log_release(&%s, %d);", ptr, e->log, k);
  } else /* residuals nothing reads any more: dropped together, no load */
    line(e, "(void)chad__log_release(&%s, %d);", e->log, k);
  e->slab = (Slab){.ptr = ptr, .k = k, .take = true};
  return k;
}

/* A number of words: sum over i of max(n[i], 0) * k[i], plus words. */
enum { FRAME_COUNTS = 8 };
typedef struct FrameSize {
  const char *n[FRAME_COUNTS]; /* the C text of a loop's step count */
  long long k[FRAME_COUNTS];   /* words per step */
  int counts;
  long long words;
} FrameSize;

/* Adds to *size the words a group of a frame pushes: 1 for a push, n k
 * for a slab loop of n steps of k words (none when n < 0, as
 * chad__log_reserve). False when the binding is no group, or its count is
 * not known yet (bound inside the frame: in `inside`), or *size has no
 * room for it. */
static bool frame_add(Em *e, const Expr *rhs, const VarMap *inside, FrameSize *size) {
  int push, take;
  if (rhs->kind == E_LOGPUSH) {
    size->words++;
    return true;
  }
  if ((rhs->kind != E_SUM && rhs->kind != E_FOLD && rhs->kind != E_FOLDSAVE) ||
      !slab_loop(rhs, &push, &take) || !push)
    return false;
  Expr *n = rhs->args[0];
  if (n->kind == E_CONST) {
    size->words += (n->ival > 0 ? n->ival : 0) * push;
    return true;
  }
  if (n->kind != E_VAR || varmap_has(inside, n->var))
    return false;
  const char *t = scalar_text(e, n);
  int i = 0;
  while (i < size->counts && strcmp(size->n[i], t) != 0)
    i++;
  if (i == FRAME_COUNTS)
    return false;
  if (i == size->counts)
    size->n[size->counts++] = t, size->k[i] = 0;
  size->k[i] += push;
  return true;
}

static const char *frame_size_text(Em *e, const FrameSize *size) {
  const char *t = NULL;
  for (int i = 0; i < size->counts; i++) {
    const char *term = arena_printf(e->a, "(%s > 0 ? (long long)%s * %lld : 0)", size->n[i],
                                    size->n[i], size->k[i]);
    t = t ? arena_printf(e->a, "%s + %s", t, term) : term;
  }
  if (!t || size->words)
    t = t ? arena_printf(e->a, "%s + %lld", t, size->words) : arena_printf(e->a, "%lld", size->words);
  return t;
}

/* At binding b of a block, outside a slab loop's body: when b starts two or
 * more groups of pushes (a push, or a slab loop, DESIGN 8.27) with nothing
 * between them that touches the stack of residual words, one reservation
 * for all their words, each group's at its offset: the same words in the
 * same places as one reservation per group, with one capacity check and
 * one growth path (ADBench's lstm_objective_rev reserved for five loops
 * and eight pushes in a row, each with its own). */
static bool emit_frame(Em *e, Expr *b) {
  /* planned from its first group on, so that scans never overlap: a scan
   * that finds fewer than two groups ends where the next may begin */
  FrameSize size = {0};
  VarMap none = {0};
  if (e->slab.ptr || !e->log || e->log_in_locals || e->frame_left ||
      varmap_has(&e->fused, b->var) || !frame_add(e, b->args[0], &none, &size))
    return false;
  size = (FrameSize){0};
  PtrVec groups = {0}, before = {0}; /* each group, and the size before it */
  VarMap inside = {0};               /* the variables bound from b on */
  for (Expr *p = b; p->kind == E_LET; p = p->body) {
    FrameSize next = size;
    bool group = !varmap_has(&e->fused, p->var) && frame_add(e, p->args[0], &inside, &next);
    varmap_put(&inside, p->var, p->var);
    if (group) {
      FrameSize *at = arena_alloc(e->a, sizeof *at);
      *at = size;
      ptrvec_push(e->a, &groups, p);
      ptrvec_push(e->a, &before, at);
      size = next;
    } else if (has_stack_op(p->args[0]))
      break;
  }
  varmap_free(&inside);
  if (groups.len < 2)
    return false;
  const char *frame = nameset_fresh(&e->names, e->a, "chad__frame");
  for (int i = 0; i < groups.len; i++) {
    Expr *p = groups.items[i];
    const FrameSize *at = before.items[i];
    bool first = !at->counts && !at->words;
    const char *offset = frame_size_text(e, at);
    const char *place = p->args[0]->kind == E_LOGPUSH ? arena_printf(e->a, "%s[%s]", frame, offset)
                        : first                       ? frame
                                : arena_printf(e->a, "%s + %s", frame, offset);
    varmap_put(&e->frame_at, p->args[0]->kind == E_LOGPUSH ? p->var : p->args[0]->var,
               (void *)place);
  }
  line(e, "chad__word *const %s = chad__log_reserve(&%s, %s);", frame, e->log,
       frame_size_text(e, &size));
  e->frame_left = groups.len;
  return true;
}

/* Element idx of array v: `v[idx]`, or for a strided part of another
 * array (DESIGN 8.62) that array's element stride*idx + offset. */
static const char *elem_text(Em *e, const CVal *v, const char *idx) {
  if (v->stride <= 0)
    return arena_printf(e->a, "%s[%s]", v->expr, idx);
  bool plain = true;
  for (const char *c = idx; *c; c++)
    plain = plain && (isalnum((unsigned char)*c) || *c == '_');
  return arena_printf(e->a, plain ? "%s[%d * %s + %d]" : "%s[%d * (%s) + %d]", v->expr, v->stride,
                      idx, v->offset);
}

typedef struct NamedRead {
  Em *e;
  const char *text;
  bool found;
} NamedRead;

static void note_named(Var *v, void *ctx) {
  NamedRead *r = ctx;
  CVal *val = varmap_get(&r->e->vals, v);
  const char *name = val ? val->expr : varmap_get(&r->e->cname, v); /* bound outside rhs */
  r->found = r->found || (name && strcmp(name, r->text) == 0);
}

/* Does rhs refer to a variable whose C text is `text`? */
static bool reads_named(Em *e, Expr *rhs, const char *text) {
  NamedRead r = {e, text, false};
  expr_visit_vars(rhs, note_named, &r);
  return r.found;
}

/* The components of the build rhs (n steps) as strided parts of the
 * memory of its interleaving, made here (DESIGN 8.62); NULL when that
 * memory is a home the build's own steps read (an in-out parameter's),
 * and the two are then written as they stand. */
static CVal *interleaved_parts(Em *e, Interleave *il, Expr *rhs, const char *n) {
  Type *yt = il->result->type;
  CVal **homes = yt->kind == TY_ARRAY ? NULL : projection_homes(e, il->result, yt->n);
  for (int l = 0; l < (yt->kind == TY_ARRAY ? 1 : yt->n); l++) {
    CVal *home = homes ? homes[l] : home_of(e, il->result);
    if (home && home->expr && reads_named(e, rhs, home->expr)) {
      varmap_put(&e->plan.results, il->result, NULL);
      return NULL;
    }
  }
  /* y's length: its own count when that is bound already (a count the
   * steps share, hoisted), else m times the build's */
  bool literal = n[0] && strspn(n, "0123456789") == strlen(n);
  const char *len = literal ? arena_printf(e->a, "%lld", il->m * atoll(n))
                            : arena_printf(e->a, "%d * %s", il->m, n);
  if (il->count->kind == E_VAR && varmap_has(&e->vals, il->count->var))
    len = scalar_text(e, il->count);
  CVal *y = build_result(e, il->result, yt, len, NULL, NULL);
  PtrVec leaves = {0};
  leaves_of(e->a, y, &leaves);
  CVal *parts = cv_scalar(e, rhs->type, NULL);
  parts->n = il->n_comp;
  parts->elems = arena_alloc(e->a, sizeof(CVal *) * (size_t)il->n_comp);
  for (int j = 0; j < il->n_comp; j++) {
    CVal *part = cv_scalar(e, rhs->type->elems[j], ((CVal *)leaves.items[il->leaf[j]])->expr);
    part->len = n;
    part->stride = il->m;
    part->offset = il->offset[j];
    parts->elems[j] = part;
  }
  varmap_put(&e->vals, il->result, y);
  return parts;
}

/* Bindings the plan of DESIGN 8.62 writes elsewhere or not at all: an
 * interleaving its build's loop wrote, a buffer that is a strided part of
 * another array, and the de-interleaving sum that filled such buffers. */
static bool interleave_elided(Em *e, Var *x, Expr *rhs) {
  if (varmap_get(&e->plan.results, x) && varmap_has(&e->vals, x))
    return true;
  if (rhs->kind == E_ALLOC && varmap_has(&e->plan.parts, x))
    return true;
  PtrVec *users = varmap_get(&e->plan.counts, x);
  if (users && users->len == use_count(e, x)) { /* a count only elided loops read */
    bool all = true;
    for (int i = 0; i < users->len; i++)
      all = all && ((varmap_get(&e->plan.results, users->items[i]) && /* written already */
                     varmap_has(&e->vals, users->items[i])) ||
                    varmap_has(&e->plan.gathers, users->items[i]));
    if (all)
      return true;
  }
  PtrVec *bufs = varmap_get(&e->plan.gathers, x);
  if (!bufs)
    return false;
  for (int i = 0; i < bufs->len; i++) {
    Var *buf = bufs->items[i];
    StridedPart *p = varmap_get(&e->plan.parts, buf);
    CVal *of = varmap_get(&e->vals, p->of);
    CVal *v = cv_scalar(e, buf->type, of ? of->expr : name_of(e, p->of));
    v->stride = p->stride;
    v->offset = p->offset;
    varmap_put(&e->vals, buf, v);
  }
  varmap_put(&e->vals, x, cv_scalar(e, rhs->type, NULL));
  return true;
}

static void emit_build(Em *e, Var *x, Expr *rhs, Expr *rest) {
  const char *n = scalar_text(e, rhs->args[0]);
  Interleave *il = varmap_get(&e->plan.blocks, x);
  CVal *res = il ? interleaved_parts(e, il, rhs, n) : NULL;
  if (!res)
    res = build_result(e, x, rhs->type, n, rhs->args[0], rest);
  open_loop(e, rhs->var, n, rhs->args[0]);
  Scope *saved = open_scope(e);
  CVal *r = emit_block(e, rhs->body, NULL);
  PtrVec dst = {0}, src = {0};
  leaves_of(e->a, res, &dst);
  leaves_of(e->a, r, &src);
  for (int i = 0; i < dst.len; i++)
    line(e, "%s = %s;", elem_text(e, dst.items[i], counter_text(e, rhs->var)),
         ((CVal *)src.items[i])->expr);
  close_scope(e, saved);
  close_loop(e);
  varmap_put(&e->vals, x, res);
}

/* Mutable C variables for the leaves of a value of type t, initialised
 * with init, else zeros: -0 for float leaves when they sum cotangents. */
static CVal *declare_init(Em *e, Type *t, const char *base, CVal *init, bool cotangents) {
  if (t->kind != TY_TUPLE) {
    const char *nm = nameset_fresh(&e->names, e->a, base);
    const char *zero = cotangents && type_is_float(t) ? cotangent_zero(t) : zero_of_type(e, t);
    line(e, "%s %s = %s;", c_type(e->a, t), nm, init ? init->expr : zero);
    return cv_scalar(e, t, nm);
  }
  CVal *v = cv_scalar(e, t, NULL);
  v->n = t->n;
  v->elems = arena_alloc(e->a, sizeof(CVal *) * (size_t)(t->n ? t->n : 1));
  for (int i = 0; i < t->n; i++)
    v->elems[i] = declare_init(e, t->elems[i], arena_printf(e->a, "%s_%d", base, i),
                               init ? init->elems[i] : NULL, cotangents);
  return v;
}

static void emit_sum(Em *e, Var *x, Expr *rhs) {
  const char *n = scalar_text(e, rhs->args[0]);
  CVal *init = rhs->nargs == 2 ? cval_of(e, rhs->args[1]) : NULL;
  CVal *acc = declare_init(e, rhs->type, name_of(e, x), init, rhs->free_order);
  Slab slab = emit_slab_begin(e, rhs, n);
  open_loop(e, rhs->var, n, rhs->args[0]);
  Scope *saved = open_scope(e);
  CVal *r = emit_block(e, rhs->body, NULL);
  e->slab = slab;
  PtrVec dst = {0}, src = {0};
  leaves_of(e->a, acc, &dst);
  leaves_of(e->a, r, &src);
  for (int i = 0; i < dst.len; i++) {
    CVal *d = dst.items[i];
    if (rhs->free_order && type_is_float(d->type))
      line(e, "%s = %s(%s, %s);", d->expr, free_add(d->type), d->expr, ((CVal *)src.items[i])->expr);
    else
      line(e, "%s += %s;", d->expr, ((CVal *)src.items[i])->expr);
  }
  close_scope(e, saved);
  close_loop(e);
  varmap_put(&e->vals, x, acc);
}

/* fold and fold-save: the state lives in mutable variables; a step's new
 * state goes through temporaries, since it may permute the old one. */
/* Which leaves of v (tracked through projections, each var mapped to the
 * index of its first leaf in v) an expression reads: a projection down to
 * a leaf reads that leaf, any other use of a tracked part reads all of its
 * leaves. */
typedef struct LeafReads {
  VarMap first; /* Var -> (intptr_t)(index of its first leaf in v) + 1 */
  bool *read;
} LeafReads;

static void mark_part(LeafReads *lr, Var *v) {
  intptr_t first = (intptr_t)varmap_get(&lr->first, v) - 1;
  for (int i = 0; i < leaf_count(v->type); i++)
    lr->read[first + i] = true;
}

static void note_part_use(Var *v, void *ctx) {
  LeafReads *lr = ctx;
  if (varmap_get(&lr->first, v))
    mark_part(lr, v);
}

static void leaf_reads(LeafReads *lr, Expr *e) {
  for (; e->kind == E_LET; e = e->body) {
    Expr *r = e->args[0];
    intptr_t base = r->kind == E_GET && r->args[0]->kind == E_VAR
                        ? (intptr_t)varmap_get(&lr->first, r->args[0]->var) : 0;
    if (!base) {
      leaf_reads(lr, r);
      continue;
    }
    Type *t = r->args[0]->type;
    for (int i = 0; i < r->index; i++)
      base += leaf_count(t->elems[i]);
    if (is_leaf(r->type))
      lr->read[base - 1] = true;
    else
      varmap_put(&lr->first, e->var, (void *)base);
  }
  if (e->kind == E_VAR) {
    note_part_use(e->var, lr);
    return;
  }
  for (int i = 0; i < e->nargs; i++)
    leaf_reads(lr, e->args[i]);
  if (expr_is_loop(e))
    leaf_reads(lr, e->body);
}

/* A fold state leaf that neither the body nor what follows reads is still
 * carried (the body computes its next value), but C would call it set but
 * unused: it is marked used after the loop. */
static void mark_unread_state(Em *e, Var *state_var, Var *x, Expr *body, Expr *rest,
                              PtrVec *leaves) {
  LeafReads lr = {.read = arena_alloc(e->a, sizeof(bool) * (size_t)(leaves->len + 1))};
  varmap_put(&lr.first, state_var, (void *)1);
  leaf_reads(&lr, body);
  varmap_free(&lr.first);
  lr.first = (VarMap){0};
  varmap_put(&lr.first, x, (void *)1);
  leaf_reads(&lr, rest);
  varmap_free(&lr.first);
  for (int i = 0; i < leaves->len; i++)
    if (!lr.read[i])
      line(e, "(void)%s; /* carried, never read */", ((CVal *)leaves->items[i])->expr);
}

/* The scalar leaves of a state: what its tape holds. Its arrays are the
 * loop's memory, restored by the undo log (DESIGN 8.13). */
static PtrVec scalar_leaves(Em *e, const PtrVec *leaves) {
  PtrVec out = {0};
  for (int i = 0; i < leaves->len; i++)
    if (((CVal *)leaves->items[i])->type->kind != TY_ARRAY)
      ptrvec_push(e->a, &out, leaves->items[i]);
  return out;
}

/* Stores the state's scalar leaves before step k at tape[k*L .. k*L+L). */
static void save_leaves(Em *e, const char *tape, const char *k, const PtrVec *all) {
  PtrVec scalars = scalar_leaves(e, all);
  const PtrVec *leaves = &scalars;
  for (int i = 0; i < leaves->len; i++) {
    CVal *l = leaves->items[i];
    if (l->type->kind == TY_INT) /* the bits of a 64-bit integer fit, its value may not */
      line(e, "%s[(long long)%s * %d + %d] = ((union { long long i; double d; }){.i = (long long)%s}).d;",
           tape, k, leaves->len, i, l->expr);
    else
      line(e, "%s[(long long)%s * %d + %d] = (double)%s;", tape, k, leaves->len, i, l->expr);
  }
}

/* Assigns the leaves src[from..] to the state's leaves, through
 * temporaries: a next leaf may read a current one. */
static void step_state(Em *e, const PtrVec *leaves, const PtrVec *src, int from) {
  const char **tmp = arena_alloc(e->a, sizeof(char *) * (size_t)(leaves->len + 1));
  for (int i = 0; i < leaves->len; i++) {
    CVal *l = leaves->items[i];
    tmp[i] = nameset_fresh(&e->names, e->a, "next");
    const char *next = ((CVal *)src->items[from + i])->expr;
    if (l->type->kind == TY_ARRAY) /* the pointer is const, not the data */
      line(e, "%sconst %s = %s;", c_type(e->a, l->type), tmp[i], next);
    else
      line(e, "const %s %s = %s;", c_type(e->a, l->type), tmp[i], next);
  }
  for (int i = 0; i < leaves->len; i++)
    line(e, "%s = %s;", ((CVal *)leaves->items[i])->expr, tmp[i]);
}

/* while: `for (k = 0; go; k++)`, the step yielding go and the next state.
 * while-save grows its tape by doubling as the loop runs (its trip count
 * is known only at the end); the tape is freed with the scope. */
static CVal *owned_state(Em *e, CVal *init, const char *base);
static void own_state_leaves(PtrVec *leaves, PtrVec *init_leaves);
static bool state_owns(PtrVec *leaves, CVal *next);

static void emit_while(Em *e, Var *x, Expr *rhs, Expr *rest) {
  Type *st = rhs->args[1]->type;
  bool in_place = expr_contains(rhs->body, E_UPDATE);
  CVal *init = cval_of(e, rhs->args[1]);
  if (in_place)
    init = owned_state(e, init, arena_printf(e->a, "%s_init", name_of(e, rhs->var2)));
  CVal *state = declare_init(e, st, name_of(e, rhs->var2), init, false);
  PtrVec leaves = {0}, init_leaves = {0};
  leaves_of(e->a, state, &leaves);
  leaves_of(e->a, init, &init_leaves);
  if (in_place)
    own_state_leaves(&leaves, &init_leaves);
  const char *go = nameset_fresh(&e->names, e->a, "go");
  line(e, "int %s = %s;", go, scalar_text(e, rhs->args[0]));
  const char *k = name_of(e, rhs->var);
  varmap_put(&e->vals, rhs->var, cv_scalar(e, ty_int(), k));
  line(e, "int %s = 0;", k);
  CVal *tape = NULL;
  const char *cap = NULL;
  if (rhs->kind == E_WHILESAVE) {
    const char *name = nameset_fresh(&e->names, e->a, arena_printf(e->a, "%s_tape", name_of(e, x)));
    cap = nameset_fresh(&e->names, e->a, arena_printf(e->a, "%s_cap", name_of(e, x)));
    line(e, "double *%s = 0;", name);
    line(e, "long long %s = 0;", cap);
    ptrvec_push(e->a, e->frees, (void *)name);
    tape = cv_scalar(e, ty_array(e->a, ty_f64()), name);
    tape->writable = true;
  }
  varmap_put(&e->vals, rhs->var2, state);
  enter_loop(e, NULL, NULL);
  line(e, "for (; %s; %s++) {", go, k);
  e->indent++;
  if (tape) {
    line(e, "%s = chad__grow(%s, &%s, ((long long)%s + 1) * %d, sizeof(double));", tape->expr,
         tape->expr, cap, k, scalar_leaves(e, &leaves).len);
    save_leaves(e, tape->expr, k, &leaves);
  }
  Scope *saved = open_scope(e);
  CVal *r = emit_block(e, rhs->body, NULL);
  PtrVec src = {0};
  leaves_of(e->a, r, &src);
  line(e, "%s = %s;", go, ((CVal *)src.items[0])->expr);
  for (int i = 0; in_place && i < leaves.len; i++)
    if (((CVal *)leaves.items[i])->type->kind == TY_ARRAY && !state_owns(&leaves, src.items[i + 1]))
      em_fail(e, "a loop whose next state is an array made in its body: not supported yet");
  step_state(e, &leaves, &src, 1);
  close_scope(e, saved);
  close_loop(e);
  if (!tape) {
    line(e, "(void)%s; /* counts the steps; the body may not read it */", k);
    mark_unread_state(e, rhs->var2, x, rhs->body, rest, &leaves);
    varmap_put(&e->vals, x, state);
    return;
  }
  CVal *triple = cv_scalar(e, rhs->type, NULL);
  triple->n = 3;
  triple->elems = arena_alloc(e->a, sizeof(CVal *) * 3);
  triple->elems[0] = state;
  triple->elems[1] = tape;
  triple->elems[2] = cv_scalar(e, ty_int(), k);
  varmap_put(&e->vals, x, triple);
}

static CVal *writable_copy(Em *e, CVal *arr, const char *base);

/* The state's array leaves name the owned arrays of the initial state. */
static void own_state_leaves(PtrVec *leaves, PtrVec *init_leaves) {
  for (int i = 0; i < leaves->len && i < init_leaves->len; i++) {
    CVal *l = leaves->items[i], *il = init_leaves->items[i];
    if (l->type->kind == TY_ARRAY) {
      l->writable = true;
      l->len = il->len;
      l->alias = origin(il);
      l->inout = il->inout;
    }
  }
}

/* Is `next` one of the state's arrays (a step may only update or swap
 * them: anything else was freed with the body)? */
static bool state_owns(PtrVec *leaves, CVal *next) {
  for (int j = 0; j < leaves->len; j++) {
    CVal *lj = leaves->items[j];
    if (next->expr && (strcmp(next->expr, lj->expr) == 0 ||
                       (next->writable && lj->alias && strcmp(origin(next), lj->alias) == 0)))
      return true;
  }
  return false;
}

/* The initial state of a fold that updates its arrays in place (DESIGN
 * 8.4): each array leaf must be memory we may write, owned outside the
 * loop; a read-only one is copied once, before the loop. */
static CVal *owned_state(Em *e, CVal *init, const char *base) {
  if (init->type->kind == TY_ARRAY)
    return init->writable ? init : writable_copy(e, init, base);
  if (is_leaf(init->type))
    return init;
  CVal *v = cv_scalar(e, init->type, NULL);
  v->n = init->n;
  v->elems = arena_alloc(e->a, sizeof(CVal *) * (size_t)(v->n ? v->n : 1));
  for (int i = 0; i < v->n; i++)
    v->elems[i] = owned_state(e, init->elems[i], base);
  return v;
}

static void emit_fold(Em *e, Var *x, Expr *rhs, Expr *rest) {
  const char *n = scalar_text(e, rhs->args[0]);
  Type *st = rhs->args[1]->type;
  bool in_place = expr_contains(rhs->body, E_UPDATE);
  CVal *init = cval_of(e, rhs->args[1]);
  if (in_place)
    init = owned_state(e, init, arena_printf(e->a, "%s_init", name_of(e, rhs->var2)));
  CVal *state = declare_init(e, st, name_of(e, rhs->var2), init, false);
  PtrVec leaves = {0}, init_leaves = {0};
  leaves_of(e->a, state, &leaves);
  leaves_of(e->a, init, &init_leaves);
  for (int i = 0; in_place && i < leaves.len && i < init_leaves.len; i++) {
    CVal *l = leaves.items[i], *il = init_leaves.items[i];
    if (l->type->kind == TY_ARRAY) { /* the state names the owned arrays */
      l->writable = true;
      l->len = il->len;
      l->alias = origin(il);
      l->inout = il->inout;
    }
  }
  CVal *tape = NULL;
  if (rhs->kind == E_FOLDSAVE) {
    const char *count = arena_printf(e->a, "(long long)%s * %d", n, scalar_leaves(e, &leaves).len);
    tape = new_array(e, ty_array(e->a, ty_f64()), arena_printf(e->a, "%s_tape", name_of(e, x)),
                     count, NULL, false);
    tape->len = NULL; /* an element count of long long type, never asked */
  }
  varmap_put(&e->vals, rhs->var2, state);
  Slab slab = emit_slab_begin(e, rhs, n);
  open_loop(e, rhs->var, n, rhs->args[0]);
  if (tape)
    save_leaves(e, tape->expr, counter_text(e, rhs->var), &leaves);
  Scope *saved = open_scope(e);
  CVal *r = emit_block(e, rhs->body, NULL);
  e->slab = slab;
  PtrVec src = {0};
  leaves_of(e->a, r, &src);
  const char **tmp = arena_alloc(e->a, sizeof(char *) * (size_t)(leaves.len + 1));
  bool permuted = false; /* a step swaps arrays: the leaves' origins mix */
  for (int i = 0; i < leaves.len; i++) {
    CVal *l = leaves.items[i];
    const char *next = ((CVal *)src.items[i])->expr;
    tmp[i] = nameset_fresh(&e->names, e->a, "next");
    if (l->type->kind == TY_ARRAY) {
      /* an array the body updated in place, or one of the state's arrays
       * swapped into this leaf: anything else was freed with the body */
      CVal *nv = src.items[i];
      bool owned = false;
      for (int j = 0; j < leaves.len; j++) {
        CVal *lj = leaves.items[j];
        owned = owned || strcmp(next, lj->expr) == 0 ||
                (nv->writable && lj->alias && strcmp(origin(nv), lj->alias) == 0);
        permuted = permuted || (j == i && strcmp(origin(nv), origin(lj)) != 0);
      }
      if (in_place && !owned)
        em_fail(e, "a loop whose next state is an array made in its body: not supported yet");
      line(e, "%sconst %s = %s;", c_type(e->a, l->type), tmp[i], next);
      continue;
    }
    line(e, "const %s %s = %s;", c_type(e->a, l->type), tmp[i], next);
  }
  for (int i = 0; i < leaves.len; i++)
    line(e, "%s = %s;", ((CVal *)leaves.items[i])->expr, tmp[i]);
  close_scope(e, saved);
  close_loop(e);
  /* an array every step passes on as it is keeps the initial one's length */
  for (int i = 0; !in_place && i < leaves.len && i < init_leaves.len; i++) {
    CVal *l = leaves.items[i], *il = init_leaves.items[i];
    if (l->type->kind == TY_ARRAY && !l->len && il->len &&
        strcmp(((CVal *)src.items[i])->expr, l->expr) == 0)
      l->len = il->len;
  }
  for (int i = 0; permuted && i < leaves.len; i++) {
    CVal *l = leaves.items[i];
    l->alias = NULL; /* own memory, origin unknown */
    e->inout_unknown = e->inout_unknown || l->inout;
    l->inout = false;
  }
  if (!tape) {
    mark_unread_state(e, rhs->var2, x, rhs->body, rest, &leaves);
    varmap_put(&e->vals, x, state);
    return;
  }
  CVal *pair = cv_scalar(e, rhs->type, NULL);
  pair->n = 2;
  pair->elems = arena_alloc(e->a, sizeof(CVal *) * 2);
  pair->elems[0] = state;
  pair->elems[1] = tape;
  varmap_put(&e->vals, x, pair);
}

/* scatter adds into a copy of its base, or into the base itself when
 * nothing else reads it (its only use is this scatter). A tuple of bases
 * is scattered into together, one value each. */
static CVal *scatter_target(Em *e, Expr *base_atom, CVal *b, CVal *home, const char *name) {
  bool single_use = base_atom->kind == E_VAR && use_count(e, base_atom->var) == 1;
  if (single_use && b->writable && (!home || strcmp(home->expr, b->expr) == 0))
    return b;
  if (!b->len) {
    em_fail(e, "scatter into an array of unknown length");
    return b;
  }
  CVal *res = home ? cv_scalar(e, b->type, home->expr) : new_array(e, b->type, name, b->len, NULL, false);
  res->len = b->len;
  res->writable = true;
  const char *j = nameset_fresh(&e->names, e->a, "j");
  line(e, "for (int %s = 0; %s < %s; %s++)", j, j, b->len, j);
  line(e, "  %s[%s] = %s[%s];", res->expr, j, b->expr, j);
  return res;
}

static void emit_scatter(Em *e, Var *x, Expr *rhs) {
  Expr *base = rhs->args[0];
  CVal *b = cval_of(e, base);
  CVal *res;
  if (rhs->type->kind == TY_ARRAY) {
    res = scatter_target(e, base, b, home_of(e, x), name_of(e, x));
  } else { /* several arrays: each field's storage is decided alone */
    res = cv_scalar(e, rhs->type, NULL);
    res->n = rhs->type->n;
    res->elems = arena_alloc(e->a, sizeof(CVal *) * (size_t)(res->n ? res->n : 1));
    Expr *bt = base->kind == E_VAR ? NULL : base;
    for (int i = 0; i < res->n; i++) {
      Expr *field_atom = bt && bt->kind == E_TUPLE ? bt->args[i] : base;
      res->elems[i] = scatter_target(e, field_atom, b->elems[i], NULL,
                                     arena_printf(e->a, "%s_%d", name_of(e, x), i));
    }
  }
  const char *n = scalar_text(e, rhs->args[1]);
  open_loop(e, rhs->var, n, rhs->args[1]);
  Scope *saved = open_scope(e);
  CVal *r = emit_block(e, rhs->body, NULL);
  PtrVec dst = {0}, src = {0};
  leaves_of(e->a, res, &dst);
  leaves_of(e->a, r->elems[1], &src);
  for (int i = 0; i < dst.len && i < src.len; i++)
    line(e, "%s[%s] += %s;", ((CVal *)dst.items[i])->expr, r->elems[0]->expr,
         ((CVal *)src.items[i])->expr);
  close_scope(e, saved);
  close_loop(e);
  varmap_put(&e->vals, x, res);
}

/* A private copy of an array we may not write (a const input, a table):
 * the one O(n) copy an update of such an array costs; its own updates are
 * in place after that. */
static CVal *writable_copy(Em *e, CVal *arr, const char *base) {
  if (!arr->len) {
    em_fail(e, "an update of a read-only array whose length is unknown");
    return arr;
  }
  CVal *copy = new_array(e, arr->type, base, arr->len, NULL, false);
  const char *j = nameset_fresh(&e->names, e->a, "j");
  line(e, "for (int %s = 0; %s < %s; %s++)", j, j, arr->len, j);
  line(e, "  %s[%s] = %s[%s];", copy->expr, j, arr->expr, j);
  return copy;
}

/* (update a i v) is the store a[i] = v into a's memory: the checker's
 * linearity guarantees that nothing reads the old version afterwards, so
 * the result is the same C array under a new IR name. */
static CVal *emit_update(Em *e, Expr *rhs) {
  CVal *arr = cval_of(e, rhs->args[0]);
  if (!arr->writable)
    arr = writable_copy(e, arr, "copy");
  line(e, "%s[%s] = %s;", arr->expr, scalar_text(e, rhs->args[1]), scalar_text(e, rhs->args[2]));
  CVal *v = cv_scalar(e, arr->type, arr->expr);
  v->len = arr->len;
  v->writable = true;
  v->alias = arr->alias;
  v->inout = arr->inout;
  return v;
}

static void emit_array_op(Em *e, Var *x, Expr *rhs) {
  switch (rhs->kind) {
  case E_INDEX: {
    const char *nm = name_of(e, x);
    line(e, "const %s %s = %s;", c_type(e->a, rhs->type), nm,
         elem_text(e, cval_of(e, rhs->args[0]), scalar_text(e, rhs->args[1])));
    varmap_put(&e->vals, x, cv_scalar(e, rhs->type, nm));
    return;
  }
  case E_LEN: {
    CVal *arr = cval_of(e, rhs->args[0]);
    if (!arr->len)
      em_fail(e, "length of an array parameter");
    varmap_put(&e->vals, x, cv_scalar(e, ty_int(), arr->len ? arr->len : "0"));
    return;
  }
  case E_VIEW: { /* pointer arithmetic: the same memory */
    CVal *arr = cval_of(e, rhs->args[0]);
    const char *off = scalar_text(e, rhs->args[1]);
    CVal *v = cv_scalar(e, rhs->type, arena_printf(e->a, "(%s + %s)", arr->expr, off));
    v->len = arr->len ? arena_printf(e->a, "(%s - %s)", arr->len, off) : NULL;
    v->inout = arr->inout;
    varmap_put(&e->vals, x, v);
    return;
  }
  case E_ACCUM:
    line(e, "%s[%s] %s %s;", cval_of(e, rhs->args[0])->expr, scalar_text(e, rhs->args[1]),
         rhs->index == 1 ? "=" : "+=", scalar_text(e, rhs->args[2]));
    varmap_put(&e->vals, x, cv_scalar(e, rhs->type, NULL));
    return;
  case E_ALLOC: {
    const char *n = scalar_text(e, rhs->args[0]);
    CVal *home = home_of(e, x);
    if (!home) {
      varmap_put(&e->vals, x, new_array(e, rhs->type, name_of(e, x), n, rhs->args[0],
                                        rhs->cotangents ? 2 : 1));
      return;
    }
    /* an output array made of zeros: zeroed where the caller wants it */
    const char *j = nameset_fresh(&e->names, e->a, "j");
    line(e, "for (int %s = 0; %s < %s; %s++)", j, j, n, j);
    line(e, "  %s[%s] = %s;", home->expr, j, zero_of_type(e, rhs->type->elem));
    CVal *v = cv_scalar(e, rhs->type, home->expr);
    v->len = n;
    v->writable = true;
    varmap_put(&e->vals, x, v);
    return;
  }
  case E_UPDATE:
    varmap_put(&e->vals, x, emit_update(e, rhs));
    return;
  default:
    return;
  }
}

/* A save of the undo log kept in local variables (log_in_locals): the
 * element's address, its value before the update, and for an in-out
 * parameter its final value once the primal sweep has ended. */
typedef struct LocalSave {
  const char *elem; /* the element's C type */
  const char *at, *old, *final;
  bool inout;
} LocalSave;

/* The log operations of straight-line code, with local variables in place
 * of the log: the order of saves and pops is the order of the C text, so
 * each pop restores the newest save still live, known when emitting. */
static void emit_log_in_locals(Em *e, Expr *rhs) {
  switch (rhs->kind) {
  case E_LOGSAVE: {
    CVal *arr = cval_of(e, rhs->args[0]);
    if (!arr->writable)
      em_fail(e, "an undo-log save of an array the function may not write");
    LocalSave *sv = arena_alloc(e->a, sizeof *sv);
    sv->elem = c_type(e->a, rhs->args[0]->type->elem);
    sv->at = nameset_fresh(&e->names, e->a, "chad__saved_at");
    sv->old = nameset_fresh(&e->names, e->a, "chad__saved");
    sv->inout = arr->inout;
    line(e, "%s *const %s = &%s[%s];", sv->elem, sv->at, arr->expr, scalar_text(e, rhs->args[1]));
    line(e, "const %s %s = *%s;", sv->elem, sv->old, sv->at);
    ptrvec_push(e->a, &e->live_saves, sv);
    return;
  }
  case E_LOGPOP: {
    LocalSave *sv = e->live_saves.items[--e->live_saves.len];
    line(e, "*%s = %s;", sv->at, sv->old);
    return;
  }
  case E_LOGFINAL:
    for (int i = 0; i < e->live_saves.len; i++) {
      LocalSave *sv = e->live_saves.items[i];
      if (!sv->inout || sv->final)
        continue;
      sv->final = nameset_fresh(&e->names, e->a, "chad__final");
      line(e, "const %s %s = *%s;", sv->elem, sv->final, sv->at);
      ptrvec_push(e->a, &e->final_saves, sv);
    }
    return;
  default:
    em_fail(e, "a log operation straight-line code does not have");
  }
}

/* The undo log: a save records an element before an update stores over
 * it, and pops, undos write old values back into the same memory. */
static void emit_log(Em *e, Var *x, Expr *rhs) {
  if (e->log_in_locals) {
    emit_log_in_locals(e, rhs);
    varmap_put(&e->vals, x, cv_scalar(e, rhs->type, NULL));
    return;
  }
  switch (rhs->kind) {
  case E_LOGSAVE: {
    CVal *arr = cval_of(e, rhs->args[0]);
    if (!arr->writable)
      em_fail(e, "an undo-log save of an array the function may not write");
    line(e, "chad__log_save%s(&%s, &%s[%s], sizeof %s[0]);", arr->inout ? "_io" : "", e->log,
         arr->expr, scalar_text(e, rhs->args[1]), arr->expr);
    break;
  }
  case E_LOGPOP:
    line(e, "chad__log_pop(&%s);", e->log);
    break;
  case E_LOGMARK:
    line(e, "chad__log_mark(&%s, %lld);", e->log, rhs->args[0]->ival);
    break;
  case E_LOGPUSH: {
    Type *t = rhs->args[0]->type;
    const char *in_frame = varmap_get(&e->frame_at, x);
    if (in_frame || e->slab.ptr) {
      const char *at = in_frame ? in_frame : slab_word(e, false);
      e->frame_left -= in_frame != NULL;
      if (t->kind == TY_ARRAY)
        line(e, "%s.p = (const void *)%s;", at, cval_of(e, rhs->args[0])->expr);
      else if (t->kind == TY_INT)
        line(e, "%s.i = (long long)%s;", at, scalar_text(e, rhs->args[0]));
      else
        line(e, "%s.d = (double)%s;", at, scalar_text(e, rhs->args[0]));
      break;
    }
    if (t->kind == TY_ARRAY)
      line(e, "chad__log_pushp(&%s, (const void *)%s);", e->log, cval_of(e, rhs->args[0])->expr);
    else if (t->kind == TY_INT)
      line(e, "chad__log_pushi(&%s, (long long)%s);", e->log, scalar_text(e, rhs->args[0]));
    else
      line(e, "chad__log_push(&%s, (double)%s);", e->log, scalar_text(e, rhs->args[0]));
    break;
  }
  case E_LOGTAKE: {
    if (e->slab.ptr) {
      const char *at = slab_word(e, true);
      if (!varmap_has(&e->used, x)) {
        varmap_put(&e->vals, x, cv_scalar(e, rhs->type, zero_of_type(e, rhs->type)));
        return;
      }
      const char *nm = name_of(e, x);
      const char *field = rhs->type->kind == TY_ARRAY ? "p" : rhs->type->kind == TY_INT ? "i" : "d";
      line(e, "%s%s%s %s = (%s)%s.%s;", rhs->type->kind == TY_ARRAY ? "" : "const ",
           c_type(e->a, rhs->type), rhs->type->kind == TY_ARRAY ? " const" : "", nm,
           c_type(e->a, rhs->type), at, field);
      varmap_put(&e->vals, x, cv_scalar(e, rhs->type, nm));
      return;
    }
    if (!varmap_has(&e->used, x)) { /* a residual nothing reads any more */
      line(e, "(void)chad__log_take%s(&%s);",
           rhs->type->kind == TY_ARRAY ? "p" : rhs->type->kind == TY_INT ? "i" : "", e->log);
      varmap_put(&e->vals, x, cv_scalar(e, rhs->type, zero_of_type(e, rhs->type)));
      return;
    }
    const char *nm = name_of(e, x);
    if (rhs->type->kind == TY_ARRAY) {
      line(e, "%s const %s = (%s)chad__log_takep(&%s);", c_type(e->a, rhs->type), nm,
           c_type(e->a, rhs->type), e->log);
      varmap_put(&e->vals, x, cv_scalar(e, rhs->type, nm));
      return;
    }
    line(e, "const %s %s = (%s)chad__log_take%s(&%s);", c_type(e->a, rhs->type), nm,
         c_type(e->a, rhs->type), rhs->type->kind == TY_INT ? "i" : "", e->log);
    varmap_put(&e->vals, x, cv_scalar(e, rhs->type, nm));
    return;
  }
  case E_LOGVIEW: { /* the log's words themselves (a chad__word is a double's size) */
    const char *n = scalar_text(e, rhs->args[0]);
    if (!varmap_has(&e->used, x)) {
      line(e, "(void)chad__log_release(&%s, (long long)%s);", e->log, n);
      varmap_put(&e->vals, x, cv_scalar(e, rhs->type, NULL));
      return;
    }
    const char *nm = name_of(e, x);
    line(e, "double *const %s = (double *)chad__log_release(&%s, (long long)%s);", nm, e->log, n);
    CVal *v = cv_scalar(e, rhs->type, nm);
    v->len = n;
    varmap_put(&e->vals, x, v);
    return;
  }
  case E_LOGFINAL: /* no saves, no in-out saves to record (DESIGN 8.67) */
    if (e->log && e->log_saves)
      line(e, "chad__log_final(&%s);", e->log);
    break;
  case E_LOGUNDO: /* the same arrays, as they were at the mark */
    line(e, "chad__log_undo(&%s, %lld);", e->log, rhs->args[0]->ival);
    varmap_put(&e->vals, x, cval_of(e, rhs->args[1]));
    return;
  default:
    break;
  }
  varmap_put(&e->vals, x, cv_scalar(e, rhs->type, NULL));
}

/* A constant table is a `static const` array of the function: made once
 * per program rather than once per call, never freed, and never written
 * (its CVal is not writable). Elements are the emitter's literals, exact
 * (%.17g, %.9g), four to a line. C has no empty arrays: an empty table
 * gets one unread element. */
enum { TABLE_PER_LINE = 4 };

static void emit_table(Em *e, Var *x, Expr *rhs) {
  const char *nm = name_of(e, x);
  Type *elem = rhs->type->elem;
  int n = rhs->nargs;
  line(e, "static const %s %s[%d] = {%s", c_type(e->a, elem), nm, n ? n : 1,
       n ? "" : zero_of_type(e, elem));
  StrBuf row = {0};
  for (int i = 0; i < n; i++) {
    sb_printf(&row, "%s%s%s", i % TABLE_PER_LINE ? " " : "", literal(e, rhs->args[i]),
              i + 1 < n ? "," : "");
    if ((i + 1) % TABLE_PER_LINE == 0 || i + 1 == n) {
      e->indent++;
      line(e, "%s", row.data);
      e->indent--;
      free(sb_take(&row));
    }
  }
  line(e, "};");
  CVal *v = cv_scalar(e, rhs->type, nm);
  v->len = arena_printf(e->a, "%d", n);
  varmap_put(&e->vals, x, v);
}

/* Emits a block; with `dest`, assigns its result there. */
/* Products that the source wrote inside a sum (Expr.contract) and that
 * nothing else uses are emitted inside that sum's expression. */
static void find_fused(Em *e, Expr *block) {
  VarMap here = {0}; /* Var bound in this block -> its rhs */
  for (Expr *b = block; b->kind == E_LET; b = b->body) {
    Expr *rhs = b->args[0];
    varmap_put(&here, b->var, rhs);
    if (rhs->kind != E_PRIM || !rhs->contract)
      continue;
    Expr *operand = rhs->args[rhs->contract - 1];
    Expr *mul = operand->kind == E_VAR ? varmap_get(&here, operand->var) : NULL;
    if (mul && mul->kind == E_PRIM && mul->op == P_MUL && type_eq(mul->type, rhs->type) &&
        use_count(e, operand->var) == 1)
      varmap_put(&e->fused, operand->var, mul);
  }
  varmap_free(&here);
}

/* Records, for each tuple, the lets of this block that project it: what
 * the homes of its fields are looked up in (one pass per block, not one
 * per tuple over the rest of the block). */
static void note_gets(Em *e, Expr *block) {
  for (Expr *b = block; b->kind == E_LET; b = b->body) {
    Expr *r = b->args[0];
    if (r->kind != E_GET || r->args[0]->kind != E_VAR)
      continue;
    PtrVec *gets = varmap_get(&e->gets, r->args[0]->var);
    if (!gets) {
      gets = arena_alloc(e->a, sizeof *gets);
      varmap_put(&e->gets, r->args[0]->var, gets);
    }
    ptrvec_push(e->a, gets, b);
  }
}

/* sin(a) or cos(a) of a variable, f64 or f32: the operand, else NULL. */
static Var *trig_operand(const Expr *rhs, Prim op) {
  if (rhs->kind != E_PRIM || rhs->op != op || rhs->args[0]->kind != E_VAR)
    return NULL;
  return type_is_float(rhs->type) ? rhs->args[0]->var : NULL;
}

/* `x = sin(a)` (or cos) whose block also binds cos(a) (or sin) later: both
 * are written here, by one chad__sincos call, which costs about what one
 * of them does (DESIGN 8.60). Derivatives make such pairs everywhere: the
 * local derivative of sin(a) is cos(a), and rotations compute both. The
 * partner's binding, later in the block, is then skipped. */
static bool emit_sincos(Em *e, Var *x, Expr *rhs, Expr *rest) {
  if (rhs->kind != E_PRIM || (rhs->op != P_SIN && rhs->op != P_COS))
    return false;
  Prim other = rhs->op == P_SIN ? P_COS : P_SIN;
  Var *a = trig_operand(rhs, rhs->op);
  if (!a)
    return false;
  for (Expr *b = rest; b->kind == E_LET; b = b->body) {
    if (trig_operand(b->args[0], other) != a || varmap_has(&e->fused, b->var) ||
        !type_eq(b->args[0]->type, rhs->type))
      continue;
    Var *s = rhs->op == P_SIN ? x : b->var, *c = rhs->op == P_SIN ? b->var : x;
    const char *t = c_type(e->a, rhs->type), *sn = name_of(e, s), *cn = name_of(e, c);
    line(e, "%s %s, %s;", t, sn, cn);
    line(e, "%s(%s, &%s, &%s);", rhs->type->kind == TY_F32 ? "chad__sincosf" : "chad__sincos",
         operand_text(e, rhs->args[0]), sn, cn);
    varmap_put(&e->vals, s, cv_scalar(e, rhs->type, sn));
    varmap_put(&e->vals, c, cv_scalar(e, rhs->type, cn));
    varmap_put(&e->sincos_done, b->var, b->var);
    return true;
  }
  return false;
}

static CVal *emit_block(Em *e, Expr *block, CVal *dest) {
  Expr *b = block;
  find_fused(e, block);
  note_gets(e, block);
  Slab outer;
  int run = 0; /* bindings of a run of pushes or takes still to emit */
  bool frame = false; /* this block reserved a frame */
  for (; b->kind == E_LET; b = b->body)
    if (!varmap_has(&e->fused, b->var)) {
      varmap_put(&e->depth, b->var, (void *)(long)(e->loops.len + 1));
      if (varmap_has(&e->sincos_done, b->var) || emit_sincos(e, b->var, b->args[0], b->body))
        continue;
      if (!run) {
        frame = emit_frame(e, b) || frame;
        run = emit_word_run(e, b, &outer);
      }
      emit_binding(e, b->var, b->args[0], b->body);
      if (run && !--run)
        e->slab = outer;
    }
  /* every group must have taken its words, or later ones would be off */
  if (frame && e->frame_left)
    em_fail(e, "a group of a frame of residual words that was not written");
  CVal *r = cval_of(e, b);
  if (dest)
    assign(e, dest, r);
  return r;
}


/* ----------------------------------------------------------- functions */

typedef struct Sig {
  StrBuf text;
  bool first;
} Sig;

static void sig_param(Em *e, Sig *s, const char *type, const char *name) {
  size_t n = strlen(type);
  bool ptr = n && type[n - 1] == '*';
  sb_printf(&s->text, "%s%s%s%s", s->first ? "" : ", ", type, ptr ? "" : " ", name);
  s->first = false;
}

static const char *linkage(const Func *f) {
  return f->is_static ? "static __attribute__((unused)) " : "";
}

/* The C names of the functions the body calls: no local may shadow them. */
static void reserve_callees(Em *e, const Expr *x) {
  for (; x; x = x->kind == E_LET || expr_is_loop(x) ? x->body : NULL) {
    if (x->kind == E_CALL)
      nameset_reserve(&e->names, c_name_of(e->a, x->name));
    for (int i = 0; i < x->nargs; i++)
      reserve_callees(e, x->args[i]);
  }
}

static void em_init(Em *e, Module *m, StrBuf *out, const Func *g) {
  *e = (Em){.m = m, .a = m->arena, .out = out};
  reserve_reserved(&e->names);
  nameset_reserve(&e->names, c_name_of(e->a, g->name));
  reserve_callees(e, g->body);
}

static void em_done(Em *e) {
  nameset_free(&e->names);
  varmap_free(&e->cname);
  varmap_free(&e->vals);
  varmap_free(&e->homes);
  varmap_free(&e->gets);
  varmap_free(&e->uses);
  varmap_free(&e->fused);
  varmap_free(&e->sincos_done);
  interleave_plan_free(&e->plan);
  varmap_free(&e->used);
  varmap_free(&e->depth);
  varmap_free(&e->frame_at);
}

static const char *param_cname(Em *e, Var *v) {
  const char *n = name_of(e, v);
  return n;
}

/* An array parameter of the signature. One C takes as rows (Func.rows) is
 * declared so under a name of its own, and the body, which indexes it
 * flat, reads it through the IR's name: `const double *A = (const double
 * *)A_rows;`. */
static void sig_array(Em *e, Sig *s, Var *p, bool writable, long long rows) {
  if (rows <= 0) {
    sig_param(e, s, param_type(e->a, p->type, writable), param_cname(e, p));
    return;
  }
  const char *flat = param_cname(e, p);
  const char *outer = nameset_fresh(&e->names, e->a, arena_printf(e->a, "%s_rows", flat));
  sb_printf(&s->text, "%s%s", s->first ? "" : ", ", param_decl(e->a, p->type, writable, rows, outer));
  s->first = false;
  const char *type = param_type(e->a, p->type, writable);
  ptrvec_push(e->a, &e->flat_rows, (void *)arena_printf(e->a, "%s%s = (%s)%s;", type, flat, type, outer));
}

/* Declares the parameters of a generated function after its kind. Arrays
 * are pointers: the inputs const, outputs and cotangent buffers writable,
 * output seeds const. */
/* An output array parameter is memory f may write: an update of it (or
 * of its tangent) stores there directly. */
static void writable_param(Em *e, Var *p) {
  CVal *v = cv_scalar(e, p->type, name_of(e, p));
  v->writable = true;
  varmap_put(&e->vals, p, v);
}

static void emit_signature(Em *e, FnKind kind, const Func *f, Func *g, Sig *sig,
                           PtrVec *outs) {
  Arena *a = e->a;
  Type *r = c_return(f);
  switch (kind) {
  case FN_PRIMAL:
  case FN_FWD:
    for (int i = 0, gi = 0; i < f->nparams; i++) {
      bool out = func_param_written(f, i); /* out or in-out: writable */
      long long rows = func_param_rows(f, i);
      Var *p = g->params[gi++];
      sig_array(e, sig, p, out, rows);
      if (out)
        writable_param(e, p);
      if (kind == FN_FWD && func_param_active(f, i)) {
        Var *dp = g->params[gi++];
        sig_array(e, sig, dp, out, rows);
        if (out)
          writable_param(e, dp);
      }
    }
    if (kind == FN_FWD && type_is_active(r)) {
      ptrvec_push(a, outs, (void *)nameset_fresh(&e->names, a, "d_ret"));
      sig_param(e, sig, arena_printf(a, "%s *", c_type(a, r)), outs->items[0]);
    }
    return;
  case FN_REV:
    for (int i = 0, gi = 0; i < f->nparams; i++) {
      ParamClass cls = func_param_class(f, i);
      Var *p = g->params[gi++];
      /* not writable by updates here: the reverse sweep's restores would
       * undo them in the caller's buffer (ad/rev.c copies outputs made by
       * updates instead) */
      long long rows = func_param_rows(f, i);
      sig_array(e, sig, p, func_param_written(f, i), rows);
      if (cls == PARAM_INOUT_ARRAY) {
        writable_param(e, p); /* updated in place, restored, then made final again */
        ((CVal *)varmap_get(&e->vals, p))->inout = func_param_active(f, i);
      }
      if (cls == PARAM_ACTIVE_SCALAR) {
        const char *pb = nameset_fresh(&e->names, a, arena_printf(a, "%s_b", p->name));
        ptrvec_push(a, outs, (void *)pb);
        sig_param(e, sig, arena_printf(a, "%s *", c_type(a, p->type)), pb);
      } else if ((cls == PARAM_IN_ARRAY || func_param_written(f, i)) && type_is_active(p->type)) {
        Var *pb = g->params[gi++];
        /* an output's seed is read only; an in-out's is consumed */
        sig_array(e, sig, pb, cls != PARAM_OUT_ARRAY, rows);
        if (cls == PARAM_INOUT_ARRAY)
          writable_param(e, pb);
      }
    }
    if (type_is_active(r))
      sig_param(e, sig, c_type(a, g->params[g->nparams - 1]->type),
                param_cname(e, g->params[g->nparams - 1]));
    return;
  case FN_AUG: {
    for (int i = 0; i < g->nparams; i++)
      sig_param(e, sig, param_type(a, g->params[i]->type, false), param_cname(e, g->params[i]));
    const char *ret = nameset_fresh(&e->names, a, "ret");
    const char *tape = nameset_fresh(&e->names, a, "tape");
    ptrvec_push(a, outs, (void *)ret);
    ptrvec_push(a, outs, (void *)tape);
    sig_param(e, sig, arena_printf(a, "%s *", c_type(a, f->ret)), ret);
    sig_param(e, sig, arena_printf(a, "%s *", c_type(a, g->ret->elems[1])), tape);
    return;
  }
  case FN_BWD: {
    Var *tape = g->params[0];
    const char *tn = param_cname(e, tape);
    sig_param(e, sig, arena_printf(a, "const %s *", c_type(a, tape->type)), tn);
    varmap_put(&e->vals, tape, cv_record(e, tape->type, arena_printf(a, "(*%s)", tn), tn));
    for (int i = 1; i < g->nparams; i++)
      sig_param(e, sig, param_type(a, g->params[i]->type, true), param_cname(e, g->params[i]));
    for (int i = 0, k = 0; i < f->nparams; i++) {
      Var *p = f->params[i];
      if (func_param_class(f, i) != PARAM_ACTIVE_SCALAR)
        continue;
      const char *pb = nameset_fresh(&e->names, a, arena_printf(a, "%s_b", p->name));
      ptrvec_push(a, outs, (void *)pb);
      sig_param(e, sig, arena_printf(a, "%s *", c_type(a, g->ret->elems[k++])), pb);
    }
    return;
  }
  }
}

static bool is_zero_literal(const CVal *v) {
  static const char *const zeros[] = {"0.0", "0.0f", "(-0.0)", "(-0.0f)"};
  for (int i = 0; v->expr && i < 4; i++)
    if (strcmp(v->expr, zeros[i]) == 0)
      return true;
  return false;
}

/* An output array's final value must be in the caller's buffer. It is when
 * its producer wrote there (its home); otherwise it is copied. */
static void store_output(Em *e, CVal *val, const char *dest) {
  if (val->expr && strcmp(origin(val), dest) == 0)
    return; /* computed there (an in-out parameter updated in place) */
  if (!val->len || !val->expr) {
    em_fail(e, "an output array of unknown length");
    return;
  }
  const char *j = nameset_fresh(&e->names, e->a, "j");
  line(e, "for (int %s = 0; %s < %s; %s++)", j, j, val->len, j);
  line(e, "  %s[%s] = %s[%s];", dest, j, val->expr, j);
}

/* The C names of the output array parameters (and of their tangents in
 * f_fwd), in order. */
static void output_names(Em *e, FnKind kind, const Func *f, Func *g, PtrVec *ys, PtrVec *dys) {
  for (int i = 0, gi = 0; i < f->nparams; i++) {
    ParamClass cls = func_param_class(f, i);
    Var *p = g->params[gi++];
    bool shadow = (kind == FN_FWD && func_param_active(f, i)) ||
                  (kind == FN_REV && (cls == PARAM_IN_ARRAY || func_param_written(f, i)) &&
                   func_param_active(f, i));
    Var *dp = shadow ? g->params[gi++] : NULL;
    if (!func_param_written(f, i))
      continue;
    ptrvec_push(e->a, ys, (void *)name_of(e, p));
    ptrvec_push(e->a, dys, dp && kind == FN_FWD ? (void *)name_of(e, dp) : NULL);
  }
}

/* The value of f (R, or (R, Y1..Yk) with output arrays) and, in f_fwd, its
 * tangent: returns the C expression of R (NULL for void) after storing
 * the arrays and d_ret. */
static const char *finish_value(Em *e, FnKind kind, const Func *f, Func *g, CVal *v, CVal *dv,
                                PtrVec *outs) {
  int k = func_num_outputs(f);
  if (!k) {
    if (dv && outs->len)
      line(e, "*%s = %s;", (char *)outs->items[0], dv->expr);
    return v->expr;
  }
  PtrVec ys = {0}, dys = {0};
  output_names(e, kind, f, g, &ys, &dys);
  int dk = 0;
  if (dv && type_is_active(f->ret->elems[0])) {
    line(e, "*%s = %s;", (char *)outs->items[0], dv->elems[dk]->expr);
    dk++;
  }
  for (int j = 0; j < k; j++) {
    store_output(e, v->elems[j + 1], ys.items[j]);
    if (dv && dys.items[j] && type_is_active(f->ret->elems[j + 1]))
      store_output(e, dv->elems[dk++], dys.items[j]);
  }
  return type_is_unit(f->ret->elems[0]) ? NULL : v->elems[0]->expr;
}

static void emit_return(Em *e, const char *value) {
  close_scope(e, NULL);
  if (value)
    line(e, "return %s;", value);
}

/* An in-out array ends f_rev holding f's final values (DESIGN 8.7): the
 * reverse sweep has restored its initial values. Each element the primal
 * sweep saved (chad__log_save_io) had its final value recorded at the end
 * of the primal sweep (log-final), and those go back now: time and memory
 * O(saved elements). With no undo log nothing was restored. Where the emitter
 * could not tell whether an array is an in-out parameter's memory, f runs
 * once more on the restored initial values instead (no length needed: C
 * passes none). */
static void rerun_for_inout(Em *e, const Func *f, Func *g) {
  bool any = false;
  for (int i = 0; i < f->nparams; i++)
    any = any || (func_param_class(f, i) == PARAM_INOUT_ARRAY && func_param_active(f, i));
  if (!any)
    return;
  if (!e->log || !e->inout_unknown) {
    /* the parameter may be named nowhere else (f never writes it) */
    for (int i = 0, gi = 0; i < f->nparams; i++) {
      ParamClass cls = func_param_class(f, i);
      if (cls == PARAM_INOUT_ARRAY && func_param_active(f, i))
        line(e, "(void)%s;", param_cname(e, g->params[gi]));
      gi++;
      if ((cls == PARAM_IN_ARRAY || func_param_written(f, i)) && type_is_active(f->params[i]->type))
        gi++; /* its buffer */
    }
    if (e->log_in_locals)
      for (int i = e->final_saves.len - 1; i >= 0; i--) {
        LocalSave *sv = e->final_saves.items[i];
        line(e, "*%s = %s;", sv->at, sv->final);
      }
    else if (e->log && e->log_saves)
      line(e, "chad__log_redo(&%s);", e->log);
    return;
  }
  if (strncmp(f->name, "chad__flat_", 11) == 0) {
    /* a struct's function is flattened: there is no f of these
     * parameters to run again */
    if (!e->failed)
      diag_set(e->err, f->loc, "an in-out array field that the code chooses under a condition "
                               "or permutes in a loop cannot be differentiated in reverse mode "
                               "yet");
    e->failed = true;
    return;
  }
  for (int i = 0; i < e->final_saves.len; i++) /* f's run gives them */
    line(e, "(void)%s;", ((LocalSave *)e->final_saves.items[i])->final);
  StrBuf b = {0};
  for (int i = 0, gi = 0; i < f->nparams; i++) {
    ParamClass cls = func_param_class(f, i);
    sb_printf(&b, "%s%s", i ? ", " : "", param_cname(e, g->params[gi++]));
    if ((cls == PARAM_IN_ARRAY || func_param_written(f, i)) && type_is_active(f->params[i]->type))
      gi++; /* its buffer */
  }
  line(e, "(void)%s(%s);", c_name_of(e->a, f->name), b.data ? b.data : "");
  free(b.data);
}

static void emit_epilogue(Em *e, FnKind kind, const Func *f, Func *g, PtrVec *outs) {
  CVal *res = cval_of(e, block_result(g->body));
  switch (kind) {
  case FN_PRIMAL:
    emit_return(e, finish_value(e, kind, f, g, res, NULL, outs));
    return;
  case FN_FWD:
    if (type_is_active(f->ret))
      emit_return(e, finish_value(e, kind, f, g, res->elems[0], res->elems[1], outs));
    else
      emit_return(e, finish_value(e, kind, f, g, res, NULL, outs));
    return;
  case FN_REV: {
    CVal *cts = res->elems[1];
    PtrVec scalar_outs = {0};
    for (int k = 0; k < outs->len; k++)
      ptrvec_push(e->a, &scalar_outs, outs->items[k]);
    for (int k = 0; k < scalar_outs.len; k++) {
      CVal *ct = cts->elems[k];
      if (is_zero_literal(ct)) /* structurally zero: nothing to add */
        line(e, "(void)%s;", (char *)scalar_outs.items[k]);
      else
        line(e, "*%s += %s;", (char *)scalar_outs.items[k], ct->expr);
    }
    rerun_for_inout(e, f, g);
    PtrVec none = {0};
    emit_return(e, finish_value(e, kind, f, g, res->elems[0], NULL, &none));
    return;
  }
  case FN_AUG: {
    line(e, "*%s = %s;", (char *)outs->items[0], res->elems[0]->expr);
    if (g->ret->elems[1]->n == 0) /* nothing to keep for the adjoint half */
      line(e, "(void)%s;", (char *)outs->items[1]);
    CVal *rec = res->elems[1];
    CVal *dst = cv_record(e, g->ret->elems[1], arena_printf(e->a, "(*%s)", (char *)outs->items[1]),
                          outs->items[1]);
    for (int i = 0; i < g->ret->elems[1]->n; i++)
      assign(e, field_of(e, dst, i), field_of(e, rec, i));
    emit_return(e, NULL);
    return;
  }
  case FN_BWD:
    for (int k = 0; k < outs->len; k++)
      line(e, "*%s = %s;", (char *)outs->items[k], res->elems[k]->expr);
    emit_return(e, NULL);
    return;
  }
}

/* In f$aug, the records stored in the tape are written in place. */
static void aug_homes(Em *e, Func *g, PtrVec *outs) {
  Expr *res = block_result(g->body);
  Expr *pair = bound_rhs(g->body, res);
  if (!pair || pair->kind != E_TUPLE)
    return;
  Expr *rec = bound_rhs(g->body, pair->args[1]);
  if (!rec || rec->kind != E_TUPLE)
    return;
  const char *tp = outs->items[1];
  CVal *dst = cv_record(e, g->ret->elems[1], arena_printf(e->a, "(*%s)", tp), tp);
  for (int i = 0; i < rec->nargs; i++)
    if (rec->args[i]->type->kind == TY_TUPLE && rec->args[i]->type->name)
      set_home(e, rec->args[i], NULL, 0, field_of(e, dst, i));
}

static void set_array_home(Em *e, Expr *atom, const char *dest) {
  if (!atom || atom->kind != E_VAR || !dest)
    return;
  Home *h = arena_alloc(e->a, sizeof *h);
  h->cval = cv_scalar(e, atom->type, dest);
  varmap_put(&e->homes, atom->var, h);
}

/* Output arrays are computed in the caller's buffers: the variables that
 * hold them (and a scatter's base that nothing else reads) live there. */
static void output_homes(Em *e, FnKind kind, const Func *f, Func *g) {
  if (!func_num_outputs(f) || kind == FN_AUG || kind == FN_BWD)
    return;
  Expr *res = block_result(g->body);
  Expr *v = res, *dv = NULL;
  if (kind == FN_REV || (kind == FN_FWD && type_is_active(f->ret))) {
    Expr *pair = bound_rhs(g->body, res);
    if (!pair || pair->kind != E_TUPLE)
      return;
    v = pair->args[0];
    dv = kind == FN_FWD ? pair->args[1] : NULL;
  }
  PtrVec ys = {0}, dys = {0};
  output_names(e, kind, f, g, &ys, &dys);
  Expr *vt = bound_rhs(g->body, v);
  Expr *dvt = dv ? bound_rhs(g->body, dv) : NULL;
  int dk = type_is_active(f->ret->elems[0]) ? 1 : 0;
  for (int j = 0; j < ys.len; j++) {
    if (vt && vt->kind == E_TUPLE)
      set_array_home(e, vt->args[j + 1], ys.items[j]);
    if (dvt && dvt->kind == E_TUPLE && type_is_active(f->ret->elems[j + 1]))
      set_array_home(e, dvt->args[dk++], dys.items[j]);
  }
  /* a scatter writing a home may do so into its base's storage */
  Bindings b;
  bindings_of(e->a, g->body, &b);
  for (int i = b.vars.len - 1; i >= 0; i--) {
    Expr *rhs = b.rhss.items[i];
    Home *h = varmap_get(&e->homes, b.vars.items[i]);
    if (h && rhs->kind == E_SCATTER && rhs->args[0]->kind == E_VAR &&
        use_count(e, rhs->args[0]->var) == 1 && bound_rhs(g->body, rhs->args[0]))
      varmap_put(&e->homes, rhs->args[0]->var, h);
    /* an update chain lives where its last version must end up: the array
     * it starts from is made there (the chain writes in place) */
    if (h && rhs->kind == E_UPDATE && rhs->args[0]->kind == E_VAR &&
        bound_rhs(g->body, rhs->args[0]))
      varmap_put(&e->homes, rhs->args[0]->var, h);
  }
}

static void note_used(Var *v, void *ctx) { varmap_put(ctx, v, v); }

/* Whether C text contains the identifier id as a whole token. */
static bool names_identifier(const char *text, const char *id) {
  size_t n = strlen(id);
  for (const char *p = text ? strstr(text, id) : NULL; p; p = strstr(p + 1, id)) {
    bool starts = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
    bool ends = !(isalnum((unsigned char)p[n]) || p[n] == '_');
    if (starts && ends)
      return true;
  }
  return false;
}

static void count_ref(Var *v, void *ctx) {
  VarMap *uses = ctx;
  varmap_put(uses, v, (void *)((long)varmap_get(uses, v) + 1));
}

/* Does e use the undo log inside a loop? Only then may the log grow with
 * the problem's size and be worth keeping for the next call: a function
 * that saves a few elements keeps its log a local the compiler sees whole
 * (taking a kept one costs BA's Jacobian block a third of its time). */
static bool logs_in_loop(const Expr *e, bool in_loop) {
  for (; e->kind == E_LET; e = e->body)
    if (logs_in_loop(e->args[0], in_loop))
      return true;
  bool log = e->kind == E_LOGSAVE || e->kind == E_LOGPUSH || e->kind == E_LOGMARK;
  if (log && in_loop)
    return true;
  for (int i = 0; i < e->nargs; i++)
    if (logs_in_loop(e->args[i], in_loop))
      return true;
  return expr_is_loop(e) && logs_in_loop(e->body, true);
}

/* Does e hold an operation of the undo log (E_LOGSAVE ... E_LOGFINAL)? */
static bool contains_log_op(const Expr *e) {
  for (int k = E_LOGSAVE; k <= E_LOGFINAL; k++)
    if (expr_contains(e, (ExprKind)k))
      return true;
  return false;
}

/* Can the undo log live in local variables? When its only operations are
 * saves, pops and the final values, each in the function's top-level let
 * chain (no loop or branch holds one), their order in the C text is the
 * order they run in, and a pop never finds the log empty: a save is then
 * two locals and a pop a store, with no log to grow, allocate and free on
 * every call (a straight-line f with an in-out array, as ADBench's
 * radial_distort and compute_reproj_error are). */
static bool log_is_straight(const Expr *body) {
  int live = 0;
  for (; body->kind == E_LET; body = body->body) {
    const Expr *rhs = body->args[0];
    if (rhs->kind == E_LOGSAVE)
      live++;
    else if (rhs->kind == E_LOGPOP && live > 0)
      live--;
    else if (rhs->kind != E_LOGFINAL && contains_log_op(rhs))
      return false;
  }
  return !contains_log_op(body);
}

static bool emit_function(Module *m, StrBuf *out, FnKind kind, const Func *f, Func *g,
                          Diag *err) {
  Em e;
  em_init(&e, m, out, g);
  e.err = err;
  PtrVec top = {0}, top_stack = {0};
  e.frees = &top;
  e.top_frees = &top;
  e.stack = &top_stack;
  expr_visit_vars(g->body, count_ref, &e.uses);
  interleave_plan(e.a, g->body, &e.uses, &e.plan);
  for (int i = 0; i < g->nparams; i++)
    name_of(&e, g->params[i]); /* parameters keep their names first */
  Sig sig = {.first = true};
  PtrVec outs = {0};
  emit_signature(&e, kind, f, g, &sig, &outs);
  const char *ret = kind == FN_AUG || kind == FN_BWD ? "void" : ret_type(e.a, f);
  const char *name = c_name_of(e.a, g->name);
  bool helper = kind == FN_AUG || kind == FN_BWD;
  sb_printf(out, "%s%s %s(%s) {\n",
            helper ? "static __attribute__((unused)) " : linkage(f), ret, name,
            sig.text.data ? sig.text.data : "void");
  e.indent = 1;
  e.scope_indent = 1;
  for (int i = 0; i < e.flat_rows.len; i++)
    line(&e, "%s", (const char *)e.flat_rows.items[i]);
  /* Some parameters are not needed by every derivative (a tangent of an
   * argument the result ignores); say so rather than warn. */
  char *params = sig.text.data;
  expr_visit_vars(g->body, note_used, &e.used);
  for (int i = 0; i < g->nparams; i++)
    if (!varmap_has(&e.used, g->params[i]))
      line(&e, "(void)%s;", name_of(&e, g->params[i]));
  if (expr_contains(g->body, E_LOGMARK) || expr_contains(g->body, E_LOGSAVE) ||
      expr_contains(g->body, E_LOGPUSH)) {
    e.log = nameset_fresh(&e.names, e.a, "chad__undo");
    e.log_saves = expr_contains(g->body, E_LOGSAVE);
    e.log_in_locals = log_is_straight(g->body);
    if (!e.log_in_locals) {
      line(&e, "chad__log %s = {0};", e.log);
      if (logs_in_loop(g->body, false)) {
        line(&e, "chad__log_open(&%s);", e.log);
        ptrvec_push(e.a, e.frees, (void *)e.log);
      } else {
        ptrvec_push(e.a, e.frees, (void *)arena_printf(e.a, "%s.entry", e.log));
        ptrvec_push(e.a, e.frees, (void *)arena_printf(e.a, "%s.redo", e.log));
        ptrvec_push(e.a, e.frees, (void *)arena_printf(e.a, "%s.val", e.log));
      }
    }
  }
  if (kind == FN_AUG)
    aug_homes(&e, g, &outs);
  output_homes(&e, kind, f, g);
  find_homes(&e, g->body);
  for (int i = 0; i < g->nparams; i++) /* bound outside every loop */
    varmap_put(&e.depth, g->params[i], (void *)1L);
  /* the body after the declarations of the slots it uses */
  StrBuf body = {0};
  e.out = &body;
  emit_block(&e, g->body, NULL);
  emit_epilogue(&e, kind, f, g, &outs);
  e.out = out;
  /* a parameter the IR uses only as itself (an in-out array returned in
   * place) may be named nowhere in the C */
  for (int i = 0; i < g->nparams; i++)
    if (varmap_has(&e.used, g->params[i]) && !names_identifier(body.data, name_of(&e, g->params[i])))
      line(&e, "(void)%s;", name_of(&e, g->params[i]));
  for (int i = 0; i < e.slots.len; i++)
    line(&e, "chad__slot %s = {0};", (char *)e.slots.items[i]);
  if (body.data)
    sb_puts(out, body.data);
  free(body.data);
  sb_puts(out, "}\n\n");
  free(params);
  bool ok = !e.failed;
  em_done(&e);
  return ok;
}

/* struct f__tape: one field per leaf; a record of nothing gets a byte,
 * since C has no empty structs. */
static void emit_tape_struct(Module *m, StrBuf *out, Type *t) {
  Arena *a = m->arena;
  sb_printf(out, "%s {\n", c_type(a, t));
  int leaf = 0;
  PtrVec stack = {0};
  for (int i = t->n - 1; i >= 0; i--)
    ptrvec_push(a, &stack, t->elems[i]);
  while (stack.len) {
    Type *ft = stack.items[--stack.len];
    if (is_leaf(ft)) { /* arrays in a tape are the caller's inputs: read only */
      const char *t = param_type(a, ft, false);
      sb_printf(out, "  %s%sf%d;\n", t, t[strlen(t) - 1] == '*' ? "" : " ", leaf++);
      continue;
    }
    for (int i = ft->n - 1; i >= 0; i--)
      ptrvec_push(a, &stack, ft->elems[i]);
  }
  if (!leaf)
    sb_puts(out, "  char unused;\n");
  sb_puts(out, "};\n\n");
}

/* -------------------------------------------------------------- entry */

static void emit_contract_proto(Module *m, StrBuf *out, const Func *f, FnKind kind) {
  Arena *a = m->arena;
  NameSet names = {0};
  reserve_reserved(&names);
  for (int i = 0; i < f->nparams; i++)
    nameset_reserve(&names, f->params[i]->name);
  StrBuf params = {0};
  bool first = true;
  for (int i = 0; i < f->nparams; i++) {
    Var *p = f->params[i];
    ParamClass cls = func_param_class(f, i);
    bool out_array = func_param_written(f, i);
    long long rows = func_param_rows(f, i);
    const char *t = param_type(a, p->type, out_array);
    sb_printf(&params, "%s%s", first ? "" : ", ", param_decl(a, p->type, out_array, rows, p->name));
    first = false;
    if (!func_param_active(f, i))
      continue;
    if (kind == FN_FWD) {
      sb_printf(&params, ", %s", param_decl(a, p->type, out_array, rows,
                                           nameset_fresh(&names, a, arena_printf(a, "d%s", p->name))));
    } else {
      const char *pb = nameset_fresh(&names, a, arena_printf(a, "%s_b", p->name));
      sb_printf(&params, ", %s", cls == PARAM_ACTIVE_SCALAR
                                     ? arena_printf(a, "%s *%s", t, pb)
                                     : param_decl(a, p->type, cls != PARAM_OUT_ARRAY, rows, pb));
    }
  }
  Type *r = c_return(f);
  if (type_is_active(r)) {
    const char *t = c_type(a, r);
    if (kind == FN_FWD)
      sb_printf(&params, "%s%s *%s", first ? "" : ", ", t, nameset_fresh(&names, a, "d_ret"));
    else
      sb_printf(&params, "%s%s %s", first ? "" : ", ", t, nameset_fresh(&names, a, "ret_b"));
    first = false;
  }
  sb_printf(out, "%s%s %s_%s(%s);\n", linkage(f), ret_type(a, f), f->name,
            kind == FN_FWD ? "fwd" : "rev", params.data ? params.data : "void");
  free(params.data);
  nameset_free(&names);
}

/* The C library the generated code uses: the <math.h> functions, malloc,
 * calloc, free, abort and a message on file descriptor 2. They are
 * declared, never included: the derivatives are spliced in right after a
 * function, where clang may already be inside the next #include of the
 * file (an `#include <stdio.h>` after the function: including <stdlib.h>
 * from there finds stdio.h half read, without size_t), and a file that was
 * preprocessed already (`-save-temps`, distcc's `clang -E` then `-c
 * file.i`) has no header search at all. The prototypes are the standard's,
 * compatible with the headers' whether the file includes them before or
 * after; the names are parenthesised so that function-like macros
 * (<tgmath.h>) leave the declarations alone. sincos and sincosf are not
 * the standard's: they are declared, with glibc's prototypes, for glibc
 * (its headers define __GLIBC__) and for Linux, whose C libraries all have
 * them (the compiler defines __linux__, also when it compiles a .i file,
 * which has no headers' macros), unless the user defined CHAD_HAS_SINCOS
 * to 0 (DESIGN 8.60). Defined once per translation unit. */
static void emit_libc(StrBuf *out) {
  sb_puts(out, "#ifndef CHAD_LIBC_DEFINED\n"
               "#define CHAD_LIBC_DEFINED\n"
               "void *(malloc)(__SIZE_TYPE__);\n"
               "void *(calloc)(__SIZE_TYPE__, __SIZE_TYPE__);\n"
               "void *(realloc)(void *, __SIZE_TYPE__);\n"
               "void (free)(void *);\n"
               "void (abort)(void);\n"
               "int (dprintf)(int, const char *, ...);\n"
               "#define chad__report(...) dprintf(2, __VA_ARGS__)\n"
               "#if !defined(CHAD_HAS_SINCOS)\n"
               "#if defined(__GLIBC__) || defined(__linux__)\n"
               "#define CHAD_HAS_SINCOS 1\n"
               "#else\n"
               "#define CHAD_HAS_SINCOS 0\n"
               "#endif\n"
               "#endif\n"
               "#if CHAD_HAS_SINCOS\n"
               "void (sincos)(double, double *, double *);\n"
               "void (sincosf)(float, float *, float *);\n"
               "#endif\n");
  static const char *const params[2][3] = {{"double", "double, double", "double, double, double"},
                                           {"float", "float, float", "float, float, float"}};
  for (int p = 0; p < P_COUNT; p++) {
    const PrimInfo *pi = prim_info((Prim)p);
    if (!pi || !pi->name || !pi->c_name || (pi->cls != PC_MATH && pi->cls != PC_MATH_INT) || pi->helper ||
        strcmp(pi->name, pi->c_name) != 0 || pi->arity < 1 || pi->arity > 3)
      continue;
    for (int f32 = 0; f32 < 2; f32++) {
      const char *t = f32 ? "float" : "double";
      if (pi->cls == PC_MATH_INT)
        sb_printf(out, "%s (%s%s)(%s, int);\n", t, pi->c_name, f32 ? "f" : "", t);
      else
        sb_printf(out, "%s (%s%s)(%s);\n", t, pi->c_name, f32 ? "f" : "",
                  params[f32][pi->arity - 1]);
    }
  }
  sb_puts(out, "#endif\n\n");
}

/* Allocation for the arrays of derivatives (and of the primal's own
 * loops): sizes are checked for overflow and failure is a message and an
 * abort, never a wrong result. Defined once per translation unit. */
static const char *runtime_text =
    "#ifndef CHAD_RUNTIME_DEFINED\n"
    "#define CHAD_RUNTIME_DEFINED\n"
    "static __attribute__((unused)) void *chad__alloc(long long count, __SIZE_TYPE__ size, int zero) {\n"
    "  if (count < 0)\n"
    "    count = 0;\n"
    "  if ((unsigned long long)count > __SIZE_MAX__ / size) {\n"
    "    chad__report(\"chad: an array of %lld elements does not fit in memory\\n\", count);\n"
    "    abort();\n"
    "  }\n"
    "  __SIZE_TYPE__ n = count ? (__SIZE_TYPE__)count : 1;\n"
    "  void *p = zero ? calloc(n, size) : malloc(n * size);\n"
    "  if (!p) {\n"
    "    chad__report(\"chad: out of memory for an array of %lld elements\\n\", count);\n"
    "    abort();\n"
    "  }\n"
    "  return p;\n"
    "}\n"
    "/* The arrays of a call (DESIGN 8.58): each block holds its capacity in\n"
    " * a header of 32 bytes: the array lies where malloc's block would,\n"
    " * modulo 32 (a header of 16 moved the vector loads of GMM's f_rev across\n"
    " * 32-byte lines and cost it 7 %). A block of\n"
    " * CHAD__SPARE_LEAST bytes or more that a call frees is kept for the\n"
    " * next (at most CHAD__SPARES of them, the largest, one set per\n"
    " * translation unit), which takes the smallest that fits: a buffer of\n"
    " * megabytes freed and allocated again would cost a page fault per 4 KB\n"
    " * at every call, as glibc hands such blocks back to the kernel.\n"
    " * `chad__spare_busy` makes taking and giving them back safe when threads\n"
    " * run derivatives at once (a thread that finds them taken allocates and\n"
    " * frees as malloc does). Define CHAD_SPARES=0 to keep none. */\n"
    "#ifndef CHAD_SPARES\n"
    "#define CHAD_SPARES 16\n"
    "#endif\n"
    "#define CHAD__SPARE_LEAST ((__SIZE_TYPE__)1 << 16)\n"
    "typedef struct chad__block {\n"
    "  __SIZE_TYPE__ cap, unused[3];\n"
    "} chad__block;\n"
    "static __attribute__((unused)) chad__block *chad__spare[CHAD_SPARES + 1];\n"
    "static __attribute__((unused)) int chad__spare_busy;\n"
    "/* The smallest spare of at least `bytes`, taken; or NULL. */\n"
    "static __attribute__((unused)) chad__block *chad__spare_take(__SIZE_TYPE__ bytes) {\n"
    "  chad__block *b = 0;\n"
    "  if (__atomic_exchange_n(&chad__spare_busy, 1, __ATOMIC_ACQUIRE))\n"
    "    return 0;\n"
    "  int best = -1;\n"
    "  for (int i = 0; i < CHAD_SPARES; i++)\n"
    "    if (chad__spare[i] && chad__spare[i]->cap >= bytes &&\n"
    "        (best < 0 || chad__spare[i]->cap < chad__spare[best]->cap))\n"
    "      best = i;\n"
    "  if (best >= 0) {\n"
    "    b = chad__spare[best];\n"
    "    chad__spare[best] = 0;\n"
    "  }\n"
    "  __atomic_store_n(&chad__spare_busy, 0, __ATOMIC_RELEASE);\n"
    "  return b;\n"
    "}\n"
    "/* count elements of `size` bytes, zeroed when asked: never NULL. */\n"
    "static __attribute__((unused, noinline, malloc)) void *chad__array_new(long long count,\n"
    "                                                                  __SIZE_TYPE__ size, int zero) {\n"
    "  if (count < 1)\n"
    "    count = 1;\n"
    "  __SIZE_TYPE__ bytes = (__SIZE_TYPE__)count * size;\n"
    "  chad__block *b = 0;\n"
    "  if ((unsigned long long)count <= (__SIZE_MAX__ - sizeof(chad__block)) / size) {\n"
    "    b = bytes >= CHAD__SPARE_LEAST ? chad__spare_take(bytes) : 0;\n"
    "    if (b) {\n"
    "      if (zero)\n"
    "        __builtin_memset(b + 1, 0, bytes);\n"
    "      return b + 1;\n"
    "    }\n"
    "    b = zero ? calloc(1, sizeof(chad__block) + bytes) : malloc(sizeof(chad__block) + bytes);\n"
    "  }\n"
    "  if (!b) { /* one message for both: the code of f_rev's tree stays small */\n"
    "    chad__report(\"chad: out of memory for an array of %lld elements\\n\", count);\n"
    "    abort();\n"
    "  }\n"
    "  b->cap = bytes;\n"
    "  return b + 1;\n"
    "}\n"
    "/* Frees an array of chad__array_new, or keeps it as a spare. */\n"
    "static __attribute__((unused, noinline)) void chad__array_free(void *p) {\n"
    "  if (!p)\n"
    "    return;\n"
    "  chad__block *b = (chad__block *)p - 1;\n"
    "#if CHAD_SPARES > 0\n"
    "  if (b->cap >= CHAD__SPARE_LEAST && !__atomic_exchange_n(&chad__spare_busy, 1, __ATOMIC_ACQUIRE)) {\n"
    "    int at = 0; /* an empty place, else the smallest spare */\n"
    "    for (int i = 0; i < CHAD_SPARES && chad__spare[at]; i++)\n"
    "      if (!chad__spare[i] || chad__spare[i]->cap < chad__spare[at]->cap)\n"
    "        at = i;\n"
    "    if (!chad__spare[at] || chad__spare[at]->cap < b->cap) {\n"
    "      chad__block *smaller = chad__spare[at];\n"
    "      chad__spare[at] = b;\n"
    "      b = smaller;\n"
    "    }\n"
    "    __atomic_store_n(&chad__spare_busy, 0, __ATOMIC_RELEASE);\n"
    "  }\n"
    "#endif\n"
    "  free(b);\n"
    "}\n"
    "/* The memory of the arrays one allocation site in a loop body makes:\n"
    " * each is dead before the site runs again, so one block, grown when\n"
    " * too small, serves every run; the function frees p at its exit. */\n"
    "typedef struct chad__slot {\n"
    "  void *p;\n"
    "  long long cap;\n"
    "} chad__slot;\n"
    "/* malloc: the block is the one live array of its site, which lets the\n"
    " * compiler assume what it assumes of malloc's (no other pointer reaches\n"
    " * it), and vectorise as before.\n"
    " * A block has room for CHAD__SLOT_LEAST bytes at least, so that a small\n"
    " * array is zeroed by a memset of constant size, which the compiler turns\n"
    " * into a few plain stores: a call to the C library's memset of a few\n"
    " * bytes costs more than the zeroing, and may write with masked stores\n"
    " * that the loads of the cotangents accumulated next cannot be forwarded\n"
    " * from (a stall on each; GMM at d = 2 spent an eighth of f_rev there). */\n"
    "#define CHAD__SLOT_LEAST 256\n"
    "/* chad__slot_zero of more than 64 bytes, out of line: inlined, the 256\n"
    " * bytes' stores made every site some 150 bytes long (DESIGN 8.76), and\n"
    " * a call costs little beside 16 or more stores. */\n"
    "static __attribute__((unused, noinline)) void chad__slot_zero_more(void *p, __SIZE_TYPE__ bytes) {\n"
    "  if (bytes <= CHAD__SLOT_LEAST)\n"
    "    __builtin_memset(p, 0, CHAD__SLOT_LEAST);\n"
    "  else\n"
    "    __builtin_memset(p, 0, bytes);\n"
    "}\n"
    "/* Zeroes the count elements of a block that has room for\n"
    " * CHAD__SLOT_LEAST bytes at least. */\n"
    "static inline __attribute__((unused)) void chad__slot_zero(void *p, long long count,\n"
    "                                                         __SIZE_TYPE__ size) {\n"
    "  __SIZE_TYPE__ bytes = (__SIZE_TYPE__)(count > 0 ? count : 1) * size;\n"
    "  if (bytes <= 64)\n"
    "    __builtin_memset(p, 0, 64);\n"
    "  else\n"
    "    chad__slot_zero_more(p, bytes);\n"
    "}\n"
    "/* A block for n elements at the site s: out of line, as a site grows\n"
    " * once per call or less. */\n"
    "static __attribute__((unused, noinline, cold)) void chad__slot_grow(chad__slot *s, long long n,\n"
    "                                                                  __SIZE_TYPE__ size) {\n"
    "  long long least = (long long)((CHAD__SLOT_LEAST + size - 1) / size);\n"
    "  chad__array_free(s->p);\n"
    "  s->cap = n > least ? n : least;\n"
    "  s->p = chad__array_new(s->cap, size, 0);\n"
    "}\n"
    "/* The block of a site taken once before its loops (slot_hoist in the\n"
    " * emitter): out of line, so that the caller sees the malloc attribute,\n"
    " * which inlining would drop, and may turn copies into the block into\n"
    " * memcpy and vectorise loops writing it without run-time checks. */\n"
    "static __attribute__((unused, noinline, malloc)) void *chad__slot_block(chad__slot *s,\n"
    "                                                                      long long count,\n"
    "                                                                      __SIZE_TYPE__ size) {\n"
    "  long long n = count > 0 ? count : 1;\n"
    "  if (n > s->cap)\n"
    "    chad__slot_grow(s, n, size);\n"
    "  return s->p;\n"
    "}\n"
    "/* The block of a site in a loop body, taken at every step: inlined. */\n"
    "static inline __attribute__((unused, malloc)) void *chad__slot_get(chad__slot *s,\n"
    "                                                                 long long count,\n"
    "                                                                 __SIZE_TYPE__ size, int zero) {\n"
    "  long long n = count > 0 ? count : 1;\n"
    "  if (n > s->cap)\n"
    "    chad__slot_grow(s, n, size);\n"
    "  if (zero)\n"
    "    chad__slot_zero(s->p, n, size);\n"
    "  return s->p;\n"
    "}\n"
    "/* a + b where the order of a sum's additions is free (the contributions\n"
    " * to one cotangent across a reverse loop's steps): clang may then\n"
    " * reassociate the sum and vectorise the loop (DESIGN 8.49) */\n"
    "static inline __attribute__((unused)) double chad__free_add(double a, double b) {\n"
    "#if defined(__clang__)\n"
    "#pragma clang fp reassociate(on)\n"
    "#endif\n"
    "  return a + b;\n"
    "}\n"
    "static inline __attribute__((unused)) float chad__free_addf(float a, float b) {\n"
    "#if defined(__clang__)\n"
    "#pragma clang fp reassociate(on)\n"
    "#endif\n"
    "  return a + b;\n"
    "}\n"
    "/* sin(x) and cos(x) at about the cost of one (DESIGN 8.60): glibc's\n"
    " * sincos gives the same bits as its sin and cos */\n"
    "static inline __attribute__((unused)) void chad__sincos(double x, double *s, double *c) {\n"
    "#if CHAD_HAS_SINCOS\n"
    "  sincos(x, s, c);\n"
    "#else\n"
    "  *s = sin(x), *c = cos(x);\n"
    "#endif\n"
    "}\n"
    "static inline __attribute__((unused)) void chad__sincosf(float x, float *s, float *c) {\n"
    "#if CHAD_HAS_SINCOS\n"
    "  sincosf(x, s, c);\n"
    "#else\n"
    "  *s = sinf(x), *c = cosf(x);\n"
    "#endif\n"
    "}\n"
    "/* chad__grow when p is too small: out of line, as it runs a few times\n"
    " * per call at most while chad__grow is inlined at every push. */\n"
    "static __attribute__((unused, noinline, cold)) void *chad__grow_slow(void *p, long long *cap,\n"
    "                                                                   long long need,\n"
    "                                                                   __SIZE_TYPE__ size) {\n"
    "  long long n = *cap ? *cap : 16;\n"
    "  while (n < need)\n"
    "    n *= 2;\n"
    "  if ((unsigned long long)n > __SIZE_MAX__ / size || !(p = realloc(p, (__SIZE_TYPE__)n * size))) {\n"
    "    chad__report(\"chad: out of memory for a loop's tape of %lld entries\\n\", n);\n"
    "    abort();\n"
    "  }\n"
    "  *cap = n;\n"
    "  return p;\n"
    "}\n"
    "/* p, with room for at least `need` elements of `size` bytes: the\n"
    " * capacity *cap doubles, so n pushes cost O(n) copies in all. */\n"
    "static inline __attribute__((unused)) void *chad__grow(void *p, long long *cap, long long need,\n"
    "                                                     __SIZE_TYPE__ size) {\n"
    "  return need <= *cap ? p : chad__grow_slow(p, cap, need, size);\n"
    "}\n"
    "/* The undo log of a reverse sweep: elements saved before an update\n"
    " * overwrites them, written back in reverse order; a mark (slot NULL)\n"
    " * starts each iteration of a loop that updates the arrays it carries. */\n"
    "typedef struct chad__saved {\n"
    "  void *slot;\n"
    "  __SIZE_TYPE__ size;\n"
    "  union { double d; long long i; const void *p; unsigned char bytes[8]; } old;\n"
    "} chad__saved;\n"
    "/* redo: the final values of the saved elements of in-out parameters\n"
    " * (saves whose size has CHAD__IO set), put back at the end of f_rev. */\n"
    "typedef union chad__word { double d; long long i; const void *p; } chad__word;\n"
    "typedef struct chad__log {\n"
    "  chad__saved *entry;\n"
    "  long long n, cap;\n"

    "  chad__saved *redo;\n"
    "  long long nredo, capredo;\n"
    "  chad__word *val;\n"
    "  long long nval, capval;\n"
    "} chad__log;\n"
    "#define CHAD__IO ((__SIZE_TYPE__)0x100)\n"
    "/* An element's bytes: the sizes of double and float copied inline (a\n"
    " * copy of run-time size is a call to memcpy, per saved element). */\n"
    "static __attribute__((unused)) void chad__copy(void *to, const void *from, __SIZE_TYPE__ size) {\n"
    "  if (size == 8)\n"
    "    __builtin_memcpy(to, from, 8);\n"
    "  else if (size == 4)\n"
    "    __builtin_memcpy(to, from, 4);\n"
    "  else\n"
    "    __builtin_memcpy(to, from, size);\n"
    "}\n"
    "static __attribute__((unused)) void chad__log_save(chad__log *l, void *slot, __SIZE_TYPE__ size) {\n"
    "  l->entry = chad__grow(l->entry, &l->cap, l->n + 1, sizeof *l->entry);\n"
    "  l->entry[l->n].slot = slot;\n"
    "  l->entry[l->n].size = size;\n"
    "  chad__copy(l->entry[l->n].old.bytes, slot, size);\n"
    "  l->n++;\n"
    "}\n"
    "static __attribute__((unused)) void chad__log_save_io(chad__log *l, void *slot, __SIZE_TYPE__ size) {\n"
    "  chad__log_save(l, slot, size);\n"
    "  l->entry[l->n - 1].size |= CHAD__IO;\n"
    "}\n"
    "/* A saved element of any size back: out of line, as almost every saved\n"
    " * element is a double, restored inline by chad__log_restore. */\n"
    "static __attribute__((unused, noinline)) void chad__log_restore_any(chad__saved *s) {\n"
    "  chad__copy(s->slot, s->old.bytes, s->size & ~CHAD__IO);\n"
    "}\n"
    "static inline __attribute__((unused)) void chad__log_restore(chad__log *l, chad__saved *s) {\n"
    "  (void)l;\n"
    "  if ((s->size & ~CHAD__IO) == sizeof(double))\n"
    "    __builtin_memcpy(s->slot, s->old.bytes, sizeof(double));\n"
    "  else\n"
    "    chad__log_restore_any(s);\n"
    "}\n"
    "/* The buffers of the last large reverse sweep that ended, kept for the\n"
    " * next (one per translation unit, the largest): a tape of many\n"
    " * megabytes freed and allocated again would cost a page fault per 4 KB\n"
    " * at every call. `chad__log_busy` makes taking and giving them back\n"
    " * safe when threads run derivatives at once (a thread that finds them\n"
    " * taken makes its own); a small sweep, or one that finds no spare (a\n"
    " * relaxed load, no atomic exchange), frees and allocates as before. */\n"
    "#define CHAD__LOG_KEEP ((long long)1 << 10) /* entries: 8 to 24 KB */\n"
    "static __attribute__((unused)) chad__log chad__log_spare;\n"
    "static __attribute__((unused)) long long chad__log_spare_size;\n"
    "static __attribute__((unused)) int chad__log_busy;\n"
    "static __attribute__((unused, noinline)) void chad__log_open(chad__log *l) {\n"
    "  if (!__atomic_load_n(&chad__log_spare_size, __ATOMIC_RELAXED) ||\n"
    "      __atomic_exchange_n(&chad__log_busy, 1, __ATOMIC_ACQUIRE))\n"
    "    return;\n"
    "  *l = chad__log_spare;\n"
    "  l->n = l->nredo = l->nval = 0;\n"
    "  chad__log_spare = (chad__log){0};\n"
    "  __atomic_store_n(&chad__log_spare_size, 0, __ATOMIC_RELAXED);\n"
    "  __atomic_store_n(&chad__log_busy, 0, __ATOMIC_RELEASE);\n"
    "}\n"
    "static __attribute__((unused, noinline)) void chad__log_close(chad__log *l) {\n"
    "  long long size = l->cap + l->capredo + l->capval;\n"
    "  if (size >= CHAD__LOG_KEEP && !__atomic_exchange_n(&chad__log_busy, 1, __ATOMIC_ACQUIRE)) {\n"
    "    if (size > chad__log_spare.cap + chad__log_spare.capredo + chad__log_spare.capval) {\n"
    "      chad__log kept = chad__log_spare;\n"
    "      chad__log_spare = *l;\n"
    "      *l = kept;\n"
    "      __atomic_store_n(&chad__log_spare_size, size, __ATOMIC_RELAXED);\n"
    "    }\n"
    "    __atomic_store_n(&chad__log_busy, 0, __ATOMIC_RELEASE);\n"
    "  }\n"
    "  free(l->entry);\n"
    "  free(l->redo);\n"
    "  free(l->val);\n"
    "}\n"
    "/* At the end of the primal sweep: the values the saved elements of\n"
    " * in-out parameters hold now, their final ones. */\n"
    "static __attribute__((unused)) void chad__log_final(chad__log *l) {\n"
    "  for (long long i = 0; i < l->n; i++) {\n"
    "    chad__saved *s = &l->entry[i];\n"
    "    if (!s->slot || !(s->size & CHAD__IO))\n"
    "      continue;\n"
    "    __SIZE_TYPE__ size = s->size & ~CHAD__IO;\n"
    "    l->redo = chad__grow(l->redo, &l->capredo, l->nredo + 1, sizeof *l->redo);\n"
    "    l->redo[l->nredo].slot = s->slot;\n"
    "    l->redo[l->nredo].size = size;\n"
    "    chad__copy(l->redo[l->nredo].old.bytes, s->slot, size);\n"
    "    l->nredo++;\n"
    "  }\n"
    "}\n"
    "/* After the reverse sweep: the in-out parameters' final values back. */\n"
    "static __attribute__((unused)) void chad__log_redo(chad__log *l) {\n"
    "  while (l->nredo > 0) {\n"
    "    chad__saved *s = &l->redo[--l->nredo];\n"
    "    chad__copy(s->slot, s->old.bytes, s->size);\n"
    "  }\n"
    "}\n"
    "/* A mark keeps the height of the value stack in its size field. */\n"
    "static __attribute__((unused)) void chad__log_mark(chad__log *l, long long mark) {\n"
    "  l->entry = chad__grow(l->entry, &l->cap, l->n + 1, sizeof *l->entry);\n"
    "  l->entry[l->n].slot = 0;\n"
    "  l->entry[l->n].size = (__SIZE_TYPE__)l->nval;\n"
    "  l->entry[l->n].old.i = mark;\n"
    "  l->n++;\n"
    "}\n"
    "/* Residuals a loop step stores for its reverse: a stack of words. */\n"
    "static __attribute__((unused)) void chad__log_push(chad__log *l, double v) {\n"
    "  l->val = chad__grow(l->val, &l->capval, l->nval + 1, sizeof *l->val);\n"
    "  l->val[l->nval++].d = v;\n"
    "}\n"
    "static __attribute__((unused)) void chad__log_pushi(chad__log *l, long long v) {\n"
    "  l->val = chad__grow(l->val, &l->capval, l->nval + 1, sizeof *l->val);\n"
    "  l->val[l->nval++].i = v;\n"
    "}\n"
    "static __attribute__((unused)) void chad__log_pushp(chad__log *l, const void *p) {\n"
    "  l->val = chad__grow(l->val, &l->capval, l->nval + 1, sizeof *l->val);\n"
    "  l->val[l->nval++].p = p;\n"
    "}\n"
    "static __attribute__((unused)) void *chad__log_takep(chad__log *l) {\n"
    "  return (void *)l->val[--l->nval].p;\n"
    "}\n"
    "/* The block of n more words the steps of a loop push, reserved at once. */\n"
    "static __attribute__((unused)) chad__word *chad__log_reserve(chad__log *l, long long n) {\n"
    "  if (n < 0)\n"
    "    n = 0;\n"
    "  if (!n) /* the stack may have no memory yet */\n"
    "    return l->val;\n"
    "  l->val = chad__grow(l->val, &l->capval, l->nval + n, sizeof *l->val);\n"
    "  l->nval += n;\n"
    "  return l->val + (l->nval - n);\n"
    "}\n"
    "/* The block of the n newest words, which the steps of a loop take. */\n"
    "static __attribute__((unused)) chad__word *chad__log_release(chad__log *l, long long n) {\n"
    "  if (n < 0)\n"
    "    n = 0;\n"
    "  if (!n)\n"
    "    return l->val;\n"
    "  l->nval -= n;\n"
    "  return l->val + l->nval;\n"
    "}\n"
    "static __attribute__((unused)) double chad__log_take(chad__log *l) {\n"
    "  return l->val[--l->nval].d;\n"
    "}\n"
    "static __attribute__((unused)) long long chad__log_takei(chad__log *l) {\n"
    "  return l->val[--l->nval].i;\n"
    "}\n"
    "static __attribute__((unused)) void chad__log_pop(chad__log *l) {\n"
    "  chad__log_restore(l, &l->entry[--l->n]);\n"
    "}\n"
    "/* Writes back everything saved since the newest mark `mark` (the marks\n"
    " * of loops nested inside included) and drops it. */\n"
    "static __attribute__((unused)) void chad__log_undo(chad__log *l, long long mark) {\n"
    "  while (l->n > 0) {\n"
    "    chad__saved *s = &l->entry[--l->n];\n"
    "    if (!s->slot) {\n"
    "      if (s->old.i == mark) {\n"
    "        l->nval = (long long)s->size; /* residuals pushed since: dropped */\n"
    "        return;\n"
    "      }\n"
    "      continue;\n"
    "    }\n"
    "    chad__log_restore(l, s);\n"
    "  }\n"
    "}\n"
    "/* Frees the memory kept for the next call (the spare arrays and log):\n"
    " * for a program that counts its allocations, or wants them back. */\n"
    "static __attribute__((unused)) void chad__spares_free(void) {\n"
    "  while (__atomic_exchange_n(&chad__spare_busy, 1, __ATOMIC_ACQUIRE))\n"
    "    ;\n"
    "  for (int i = 0; i < CHAD_SPARES; i++) {\n"
    "    free(chad__spare[i]);\n"
    "    chad__spare[i] = 0;\n"
    "  }\n"
    "  __atomic_store_n(&chad__spare_busy, 0, __ATOMIC_RELEASE);\n"
    "  while (__atomic_exchange_n(&chad__log_busy, 1, __ATOMIC_ACQUIRE))\n"
    "    ;\n"
    "  free(chad__log_spare.entry);\n"
    "  free(chad__log_spare.redo);\n"
    "  free(chad__log_spare.val);\n"
    "  chad__log_spare = (chad__log){0};\n"
    "  __atomic_store_n(&chad__log_spare_size, 0, __ATOMIC_RELAXED);\n"
    "  __atomic_store_n(&chad__log_busy, 0, __ATOMIC_RELEASE);\n"
    "}\n"
    "#endif\n\n";

char *emit_primal(Module *m, const Func *f, Diag *err) {
  /* a call whose callee writes output arrays is C the emitter does not
   * write: such callees are inlined, as for the derivatives */
  Func inlined = *f;
  inlined.body = ad_inline_calls(m, f->body, NULL, err);
  if (!inlined.body)
    return NULL;
  Func *g = anf_func(m, &inlined);
  Diag d;
  if (!check_func(m, g, CHECK_SOURCE, &d)) {
    diag_set(err, d.loc, "%s", d.msg);
    return NULL;
  }
  StrBuf out = {0};
  emit_libc(&out);
  sb_puts(&out, runtime_text);
  if (!emit_function(m, &out, FN_PRIMAL, f, g, err)) {
    free(sb_take(&out));
    return NULL;
  }
  return sb_take(&out);
}

char *emit_prototypes(Module *m, const Func *f) {
  StrBuf out = {0};
  emit_contract_proto(m, &out, f, FN_FWD);
  emit_contract_proto(m, &out, f, FN_REV);
  return sb_take(&out);
}

char *emit_prototypes_forward(Module *m, const Func *f) {
  StrBuf out = {0};
  emit_contract_proto(m, &out, f, FN_FWD);
  return sb_take(&out);
}

char *emit_prototypes_reverse(Module *m, const Func *f) {
  StrBuf out = {0};
  emit_contract_proto(m, &out, f, FN_REV);
  return sb_take(&out);
}

/* Integer arithmetic that overflows, divides by zero or shifts out of
 * range is the input's undefined behaviour, and clang says nothing about
 * it there when its operands are variables. Passing constants on
 * (z = INT_MAX; z + 1 becomes 1 + 2147483647; s = 40; 1 << s becomes
 * 1 << 40) turns it into constant expressions, which clang reports: the
 * generated code, which only repeats the input's behaviour, must not be
 * what fails a -Werror build. */
static const char *quiet_begin =
    "#if defined(__clang__)\n"
    "#pragma clang diagnostic push\n"
    "#pragma clang diagnostic ignored \"-Winteger-overflow\"\n"
    "#pragma clang diagnostic ignored \"-Wdivision-by-zero\"\n"
    "#pragma clang diagnostic ignored \"-Wtautological-constant-out-of-range-compare\"\n"
    "#pragma clang diagnostic ignored \"-Wxor-used-as-pow\"\n"
    "#pragma clang diagnostic ignored \"-Wshift-count-overflow\"\n"
    "#pragma clang diagnostic ignored \"-Wshift-count-negative\"\n"
    "#pragma clang diagnostic ignored \"-Wshift-negative-value\"\n"
    "#pragma clang diagnostic ignored \"-Wshift-overflow\"\n"
    "#endif\n";
static const char *quiet_end = "#if defined(__clang__)\n#pragma clang diagnostic pop\n#endif\n";

/* The special functions of ir/special.inc, as text (special_text.h is
 * made from it by cmake/text_to_c.cmake): defined once per translation
 * unit, by the first derivatives that call one. */
#include "special_text.h"

/* Whether x calls one of them. Follows a let chain's bodies in a loop:
 * only nesting, not length, costs stack. */
static bool uses_helper(const Expr *x) {
  for (; x; x = x->body) {
    if (x->kind == E_PRIM && prim_info(x->op)->helper)
      return true;
    for (int i = 0; i < x->nargs; i++)
      if (uses_helper(x->args[i]))
        return true;
  }
  return false;
}

static void emit_special(StrBuf *out) {
  sb_puts(out, "#ifndef CHAD_SPECIAL_DEFINED\n#define CHAD_SPECIAL_DEFINED\n");
  for (int i = 0; special_text[i]; i++)
    sb_puts(out, special_text[i]);
  sb_puts(out, "#endif\n\n");
}

/* The derivatives `modes` asks for (EMIT_FWD, EMIT_REV or both); with
 * EMIT_REV the halves f__aug and f__bwd too, when f has them. */
enum { EMIT_FWD = 1, EMIT_REV = 2 };
static char *definitions(Module *m, const Func *f, int modes, Diag *err) {
  Func *fns[4];
  const char *suffix[4] = {"aug", "bwd", "fwd", "rev"};
  for (int i = 0; i < 4; i++) {
    bool wanted = modes & (i == 2 ? EMIT_FWD : EMIT_REV);
    fns[i] = wanted ? module_find(m, ad_name(m, f->name, suffix[i])) : NULL;
    if (!fns[i] && wanted && i >= 2) {
      diag_set(err, f->loc, "internal error: '%s' was not differentiated", f->name);
      return NULL;
    }
  }
  StrBuf out = {0};
  sb_printf(&out, "/* chad: derivatives of '%s' (generated; see DESIGN.md section 1) */\n",
            f->name);
  emit_libc(&out);
  sb_puts(&out, runtime_text);
  bool special = false;
  for (int i = 0; i < 4; i++)
    special = special || (fns[i] && uses_helper(fns[i]->body));
  if (special)
    emit_special(&out);
  sb_puts(&out, quiet_begin);
  bool ok = true;
  if (fns[0] && fns[1]) { /* the halves exist for functions callers can use */
    emit_tape_struct(m, &out, fns[0]->ret->elems[1]);
    ok = emit_function(m, &out, FN_AUG, f, fns[0], err) &&
         emit_function(m, &out, FN_BWD, f, fns[1], err);
  }
  ok = ok && (!fns[2] || emit_function(m, &out, FN_FWD, f, fns[2], err)) &&
       (!fns[3] || emit_function(m, &out, FN_REV, f, fns[3], err));
  if (!ok) {
    free(sb_take(&out));
    return NULL;
  }
  sb_puts(&out, quiet_end);
  return sb_take(&out);
}

char *emit_definitions(Module *m, const Func *f, Diag *err) {
  return definitions(m, f, EMIT_FWD | EMIT_REV, err);
}

char *emit_definitions_forward(Module *m, const Func *f, Diag *err) {
  return definitions(m, f, EMIT_FWD, err);
}

char *emit_definitions_reverse(Module *m, const Func *f, Diag *err) {
  return definitions(m, f, EMIT_REV, err);
}
