/* ir.c: arena, types, variables, primitives, expression builders, modules.
 * Requires nothing; guarantees that every object lives in an arena and that
 * builders fill in `type` wherever it follows from the arguments alone. */
#include "ir.h"
#include "irmap.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- arena */

typedef struct Chunk Chunk;
struct Chunk {
  Chunk *next;
  size_t used, size;
  max_align_t data[]; /* flexible, aligned for anything */
};

struct Arena {
  Chunk *head;
};

static void out_of_memory(void) {
  fputs("chad: out of memory\n", stderr);
  abort();
}

Arena *arena_new(void) {
  Arena *a = calloc(1, sizeof *a);
  if (!a)
    out_of_memory();
  return a;
}

void arena_free(Arena *a) {
  if (!a)
    return;
  for (Chunk *c = a->head, *next; c; c = next) {
    next = c->next;
    free(c);
  }
  free(a);
}

/* Chunks come zeroed from calloc and no byte of one is handed out twice,
 * so an object needs no memset of its own: for a large chunk the C
 * library maps fresh pages, which the kernel zeroes as they are first
 * touched. Zeroing each object again was a sixth of the plugin's time on
 * long functions, whose derivatives fill hundreds of megabytes. Chunks
 * double from 64 KB to 4 MB: the many small arenas (a check, a DCE) stay
 * small, and a large one gets pages straight from the kernel. */
enum { ARENA_FIRST_CHUNK = 1 << 16, ARENA_MAX_CHUNK = 1 << 22 };

void *arena_alloc(Arena *a, size_t size) {
  size_t align = sizeof(max_align_t);
  size = (size + align - 1) / align * align;
  if (!a->head || a->head->size - a->head->used < size) {
    size_t chunk = !a->head ? ARENA_FIRST_CHUNK
                   : a->head->size < ARENA_MAX_CHUNK ? 2 * a->head->size
                                                     : ARENA_MAX_CHUNK;
    chunk = size > chunk ? size : chunk;
    Chunk *c = calloc(1, sizeof *c + chunk);
    if (!c)
      out_of_memory();
    c->next = a->head;
    c->used = 0;
    c->size = chunk;
    a->head = c;
  }
  void *p = (char *)a->head->data + a->head->used;
  a->head->used += size;
  return p;
}

char *arena_strdup(Arena *a, const char *s) {
  size_t n = strlen(s) + 1;
  char *p = arena_alloc(a, n);
  memcpy(p, s, n);
  return p;
}

char *arena_printf(Arena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *p = arena_alloc(a, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return p;
}

void ptrvec_push(Arena *a, PtrVec *v, void *item) {
  if (v->len == v->cap) {
    int cap = v->cap ? v->cap * 2 : 8;
    void **items = arena_alloc(a, sizeof(void *) * (size_t)cap);
    if (v->len)
      memcpy(items, v->items, sizeof(void *) * (size_t)v->len);
    v->items = items;
    v->cap = cap;
  }
  v->items[v->len++] = item;
}

void diag_set(Diag *d, Loc loc, const char *fmt, ...) {
  if (!d)
    return;
  d->loc = loc;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d->msg, sizeof d->msg, fmt, ap);
  va_end(ap);
}

/* ------------------------------------------------------------- types */

static Type f64_type = {.kind = TY_F64};
static Type f32_type = {.kind = TY_F32};
static Type int_types[IK_COUNT] = {
    [IK_INT] = {.kind = TY_INT, .ikind = IK_INT},
    [IK_BOOL] = {.kind = TY_INT, .ikind = IK_BOOL},
    [IK_CHAR] = {.kind = TY_INT, .ikind = IK_CHAR},
    [IK_SCHAR] = {.kind = TY_INT, .ikind = IK_SCHAR},
    [IK_UCHAR] = {.kind = TY_INT, .ikind = IK_UCHAR},
    [IK_SHORT] = {.kind = TY_INT, .ikind = IK_SHORT},
    [IK_USHORT] = {.kind = TY_INT, .ikind = IK_USHORT},
    [IK_UINT] = {.kind = TY_INT, .ikind = IK_UINT},
    [IK_LONG] = {.kind = TY_INT, .ikind = IK_LONG},
    [IK_ULONG] = {.kind = TY_INT, .ikind = IK_ULONG},
    [IK_LLONG] = {.kind = TY_INT, .ikind = IK_LLONG},
    [IK_ULLONG] = {.kind = TY_INT, .ikind = IK_ULLONG},
};

Type *ty_f64(void) { return &f64_type; }
Type *ty_f32(void) { return &f32_type; }
Type *ty_int(void) { return &int_types[IK_INT]; }
Type *ty_intk(IntKind k) { return &int_types[(unsigned)k < IK_COUNT ? k : IK_INT]; }

static const struct {
  const char *ir, *c;
  int bits;
  bool is_signed;
} intk_facts[IK_COUNT] = {
    [IK_INT] = {"int", "int", (int)sizeof(int) * CHAR_BIT, true},
    [IK_BOOL] = {"bool", "_Bool", 1, false},
    [IK_CHAR] = {"char", "char", CHAR_BIT, CHAR_MIN < 0},
    [IK_SCHAR] = {"schar", "signed char", CHAR_BIT, true},
    [IK_UCHAR] = {"uchar", "unsigned char", CHAR_BIT, false},
    [IK_SHORT] = {"short", "short", (int)sizeof(short) * CHAR_BIT, true},
    [IK_USHORT] = {"ushort", "unsigned short", (int)sizeof(short) * CHAR_BIT, false},
    [IK_UINT] = {"uint", "unsigned", (int)sizeof(int) * CHAR_BIT, false},
    [IK_LONG] = {"long", "long", (int)sizeof(long) * CHAR_BIT, true},
    [IK_ULONG] = {"ulong", "unsigned long", (int)sizeof(long) * CHAR_BIT, false},
    [IK_LLONG] = {"llong", "long long", (int)sizeof(long long) * CHAR_BIT, true},
    [IK_ULLONG] = {"ullong", "unsigned long long", (int)sizeof(long long) * CHAR_BIT, false},
};

int intk_bits(IntKind k) { return intk_facts[k].bits; }
bool intk_signed(IntKind k) { return intk_facts[k].is_signed; }
const char *intk_ir_name(IntKind k) { return intk_facts[k].ir; }
const char *intk_c_name(IntKind k) { return intk_facts[k].c; }

bool intk_from_ir_name(const char *name, IntKind *out) {
  for (int k = 0; k < IK_COUNT; k++)
    if (strcmp(intk_facts[k].ir, name) == 0) {
      *out = (IntKind)k;
      return true;
    }
  return false;
}

long long intk_wrap(IntKind k, long long v) {
  if (k == IK_BOOL)
    return v != 0;
  int bits = intk_facts[k].bits;
  if (bits >= 64)
    return v;
  unsigned long long mask = (1ULL << bits) - 1, u = (unsigned long long)v & mask;
  if (intk_facts[k].is_signed && (u >> (bits - 1)))
    return (long long)(u | ~mask); /* sign-extend: two's complement */
  return (long long)u;
}

Type *ty_record(Arena *a, const char *name, int n, Type **elems) {
  Type *t = arena_alloc(a, sizeof *t);
  t->kind = TY_TUPLE;
  t->n = n;
  t->name = name ? arena_strdup(a, name) : NULL;
  t->elems = arena_alloc(a, sizeof(Type *) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) {
    t->elems[i] = elems[i];
    t->has_lin = t->has_lin || elems[i]->kind == TY_LIN || elems[i]->has_lin;
  }
  return t;
}

Type *ty_tuple(Arena *a, int n, Type **elems) {
  return ty_record(a, NULL, n, elems);
}

Type *ty_unit(Arena *a) { return ty_tuple(a, 0, NULL); }

Type *ty_tuple2(Arena *a, Type *t0, Type *t1) {
  Type *e[2] = {t0, t1};
  return ty_tuple(a, 2, e);
}

Type *ty_array(Arena *a, Type *elem) {
  Type *t = arena_alloc(a, sizeof *t);
  t->kind = TY_ARRAY;
  t->elem = elem;
  return t;
}

Type *ty_lin(Arena *a, Type *dom, Type *cod) {
  Type *t = arena_alloc(a, sizeof *t);
  t->kind = TY_LIN;
  t->dom = dom;
  t->cod = cod;
  return t;
}

bool type_eq(const Type *x, const Type *y) {
  if (x == y)
    return true;
  if (!x || !y || x->kind != y->kind)
    return false;
  switch (x->kind) {
  case TY_F64:
  case TY_F32:
    return true;
  case TY_INT:
    return x->ikind == y->ikind;
  case TY_TUPLE:
    if (x->n != y->n || (!x->name) != (!y->name))
      return false;
    if (x->name && strcmp(x->name, y->name) != 0)
      return false;
    for (int i = 0; i < x->n; i++)
      if (!type_eq(x->elems[i], y->elems[i]))
        return false;
    return true;
  case TY_LIN:
    return type_eq(x->dom, y->dom) && type_eq(x->cod, y->cod);
  case TY_ARRAY:
    return type_eq(x->elem, y->elem);
  }
  return false;
}

bool type_is_float(const Type *t) {
  return t && (t->kind == TY_F64 || t->kind == TY_F32);
}

bool type_is_unit(const Type *t) {
  return t && t->kind == TY_TUPLE && t->n == 0;
}

bool type_is_active(const Type *t) {
  if (!t)
    return false;
  switch (t->kind) {
  case TY_F64:
  case TY_F32:
    return true;
  case TY_TUPLE:
    for (int i = 0; i < t->n; i++)
      if (type_is_active(t->elems[i]))
        return true;
    return false;
  case TY_ARRAY:
    return type_is_active(t->elem);
  case TY_INT:
  case TY_LIN:
    return false;
  }
  return false;
}

Type *type_tangent(Arena *a, Type *t) {
  if (!type_is_active(t))
    return NULL;
  if (t->kind != TY_TUPLE)
    return t; /* scalars and arrays of floats are their own tangent types */
  Type **elems = arena_alloc(a, sizeof(Type *) * (size_t)t->n);
  int n = 0;
  for (int i = 0; i < t->n; i++)
    if (type_is_active(t->elems[i]))
      elems[n++] = type_tangent(a, t->elems[i]);
  return ty_tuple(a, n, elems);
}

/* ---------------------------------------------------------- variables */

static int next_var_id = 1;

Var *var_new(Arena *a, const char *name, Type *type) {
  Var *v = arena_alloc(a, sizeof *v);
  v->name = arena_strdup(a, name);
  v->type = type;
  v->id = next_var_id++;
  return v;
}

/* -------------------------------------------------------- primitives */

static const PrimInfo prim_table[P_COUNT] = {
    [P_ADD] = {"add", 2, PC_ARITH, "+", true},
    [P_SUB] = {"sub", 2, PC_ARITH, "-", true},
    [P_MUL] = {"mul", 2, PC_ARITH, "*", true},
    [P_DIV] = {"div", 2, PC_ARITH, "/", true},
    [P_NEG] = {"neg", 1, PC_ARITH, "-", true},
    [P_MOD] = {"mod", 2, PC_ARITH, "%", true},
    [P_LT] = {"lt", 2, PC_CMP, "<", true},
    [P_LE] = {"le", 2, PC_CMP, "<=", true},
    [P_GT] = {"gt", 2, PC_CMP, ">", true},
    [P_GE] = {"ge", 2, PC_CMP, ">=", true},
    [P_EQ] = {"eq", 2, PC_CMP, "==", true},
    [P_NE] = {"ne", 2, PC_CMP, "!=", true},
    [P_AND] = {"and", 2, PC_LOGIC, "&&", true},
    [P_OR] = {"or", 2, PC_LOGIC, "||", true},
    [P_NOT] = {"not", 1, PC_LOGIC, "!", true},
    [P_BAND] = {"band", 2, PC_BITS, "&", true},
    [P_BOR] = {"bor", 2, PC_BITS, "|", true},
    [P_BXOR] = {"bxor", 2, PC_BITS, "^", true},
    [P_BNOT] = {"bnot", 1, PC_BITS, "~", true},
    [P_SHL] = {"shl", 2, PC_SHIFT, "<<", true},
    [P_SHR] = {"shr", 2, PC_SHIFT, ">>", true},
    [P_SQRT] = {"sqrt", 1, PC_MATH, "sqrt", false},
    [P_EXP] = {"exp", 1, PC_MATH, "exp", false},
    [P_LOG] = {"log", 1, PC_MATH, "log", false},
    [P_LOG1P] = {"log1p", 1, PC_MATH, "log1p", false},
    [P_EXPM1] = {"expm1", 1, PC_MATH, "expm1", false},
    [P_POW] = {"pow", 2, PC_MATH, "pow", false},
    [P_SIN] = {"sin", 1, PC_MATH, "sin", false},
    [P_COS] = {"cos", 1, PC_MATH, "cos", false},
    [P_TAN] = {"tan", 1, PC_MATH, "tan", false},
    [P_ASIN] = {"asin", 1, PC_MATH, "asin", false},
    [P_ACOS] = {"acos", 1, PC_MATH, "acos", false},
    [P_ATAN] = {"atan", 1, PC_MATH, "atan", false},
    [P_ATAN2] = {"atan2", 2, PC_MATH, "atan2", false},
    [P_SINH] = {"sinh", 1, PC_MATH, "sinh", false},
    [P_COSH] = {"cosh", 1, PC_MATH, "cosh", false},
    [P_TANH] = {"tanh", 1, PC_MATH, "tanh", false},
    [P_FABS] = {"fabs", 1, PC_MATH, "fabs", false},
    [P_FMIN] = {"fmin", 2, PC_MATH, "fmin", false},
    [P_FMAX] = {"fmax", 2, PC_MATH, "fmax", false},
    [P_HYPOT] = {"hypot", 2, PC_MATH, "hypot", false},
    [P_ERF] = {"erf", 1, PC_MATH, "erf", false},
    [P_CBRT] = {"cbrt", 1, PC_MATH, "cbrt", false},
    [P_FLOOR] = {"floor", 1, PC_MATH, "floor", false},
    [P_CEIL] = {"ceil", 1, PC_MATH, "ceil", false},
    [P_ROUND] = {"round", 1, PC_MATH, "round", false},
    [P_LGAMMA] = {"lgamma", 1, PC_MATH, "lgamma", false},
    [P_TGAMMA] = {"tgamma", 1, PC_MATH, "tgamma", false},
    [P_EXP2] = {"exp2", 1, PC_MATH, "exp2", false},
    [P_LOG2] = {"log2", 1, PC_MATH, "log2", false},
    [P_LOG10] = {"log10", 1, PC_MATH, "log10", false},
    [P_FMA] = {"fma", 3, PC_MATH, "fma", false},
    [P_FMOD] = {"fmod", 2, PC_MATH, "fmod", false},
    [P_REMAINDER] = {"remainder", 2, PC_MATH, "remainder", false},
    [P_COPYSIGN] = {"copysign", 2, PC_MATH, "copysign", false},
    [P_FDIM] = {"fdim", 2, PC_MATH, "fdim", false},
    [P_TRUNC] = {"trunc", 1, PC_MATH, "trunc", false},
    [P_RINT] = {"rint", 1, PC_MATH, "rint", false},
    [P_NEARBYINT] = {"nearbyint", 1, PC_MATH, "nearbyint", false},
    [P_ERFC] = {"erfc", 1, PC_MATH, "erfc", false},
    [P_ASINH] = {"asinh", 1, PC_MATH, "asinh", false},
    [P_ACOSH] = {"acosh", 1, PC_MATH, "acosh", false},
    [P_ATANH] = {"atanh", 1, PC_MATH, "atanh", false},
    [P_LDEXP] = {"ldexp", 2, PC_MATH_INT, "ldexp", false},
    [P_SCALBN] = {"scalbn", 2, PC_MATH_INT, "scalbn", false},
    [P_POWI] = {"powi", 2, PC_MATH_INT, "pow", false},
    [P_DIGAMMA] = {"digamma", 1, PC_MATH, "chad_digamma", false, true},
    [P_TO_F64] = {"to_f64", 1, PC_CAST, "double", false},
    [P_TO_F32] = {"to_f32", 1, PC_CAST, "float", false},
    [P_TO_INT] = {"to_int", 1, PC_CAST, "int", false},
    [P_TO_BOOL] = {"to_bool", 1, PC_CAST, "_Bool", false},
    [P_TO_CHAR] = {"to_char", 1, PC_CAST, "char", false},
    [P_TO_SCHAR] = {"to_schar", 1, PC_CAST, "signed char", false},
    [P_TO_UCHAR] = {"to_uchar", 1, PC_CAST, "unsigned char", false},
    [P_TO_SHORT] = {"to_short", 1, PC_CAST, "short", false},
    [P_TO_USHORT] = {"to_ushort", 1, PC_CAST, "unsigned short", false},
    [P_TO_UINT] = {"to_uint", 1, PC_CAST, "unsigned", false},
    [P_TO_LONG] = {"to_long", 1, PC_CAST, "long", false},
    [P_TO_ULONG] = {"to_ulong", 1, PC_CAST, "unsigned long", false},
    [P_TO_LLONG] = {"to_llong", 1, PC_CAST, "long long", false},
    [P_TO_ULLONG] = {"to_ullong", 1, PC_CAST, "unsigned long long", false},
    [P_BITS_LLONG] = {"bits_llong", 1, PC_CAST, "long long", false},
};

/* The integer kind each integer cast converts to, in Prim order from
 * P_TO_INT. */
static const IntKind cast_kinds[] = {IK_INT,   IK_BOOL,   IK_CHAR,  IK_SCHAR,
                                     IK_UCHAR, IK_SHORT,  IK_USHORT, IK_UINT,
                                     IK_LONG,  IK_ULONG,  IK_LLONG, IK_ULLONG};

Type *prim_cast_type(Prim p) {
  if (p == P_TO_F64)
    return ty_f64();
  if (p == P_TO_F32)
    return ty_f32();
  if (p >= P_TO_INT && p <= P_TO_ULLONG)
    return ty_intk(cast_kinds[p - P_TO_INT]);
  if (p == P_BITS_LLONG)
    return ty_intk(IK_LLONG);
  return NULL;
}

Prim prim_cast_to(const Type *t) {
  if (t->kind == TY_F64)
    return P_TO_F64;
  if (t->kind == TY_F32)
    return P_TO_F32;
  for (int i = 0; i <= P_TO_ULLONG - P_TO_INT; i++)
    if (cast_kinds[i] == t->ikind)
      return (Prim)(P_TO_INT + i);
  return P_TO_INT;
}

const PrimInfo *prim_info(Prim p) {
  return (unsigned)p < P_COUNT ? &prim_table[p] : NULL;
}

bool prim_from_name(const char *name, Prim *out) {
  for (int p = 0; p < P_COUNT; p++)
    if (strcmp(prim_table[p].name, name) == 0) {
      *out = (Prim)p;
      return true;
    }
  return false;
}

/* -------------------------------------------------------- expressions */

static Expr *ex_new(Arena *a, ExprKind kind, int nargs) {
  Expr *e = arena_alloc(a, sizeof *e);
  e->kind = kind;
  e->nargs = nargs;
  e->args = arena_alloc(a, sizeof(Expr *) * (size_t)(nargs ? nargs : 1));
  return e;
}

static Expr *ex_new_args(Arena *a, ExprKind kind, int nargs, Expr **args) {
  Expr *e = ex_new(a, kind, nargs);
  for (int i = 0; i < nargs; i++)
    e->args[i] = args[i];
  return e;
}

Expr *ex_f64(Arena *a, double v) {
  Expr *e = ex_new(a, E_CONST, 0);
  e->type = ty_f64();
  e->fval = v;
  return e;
}

Expr *ex_f32(Arena *a, float v) {
  Expr *e = ex_new(a, E_CONST, 0);
  e->type = ty_f32();
  e->fval = v;
  return e;
}

Expr *ex_int(Arena *a, long long v) {
  Expr *e = ex_new(a, E_CONST, 0);
  e->type = ty_int();
  e->ival = v;
  return e;
}

Expr *ex_const_int(Arena *a, Type *t, long long v) {
  Expr *e = ex_int(a, intk_wrap(t->ikind, v));
  e->type = t;
  return e;
}

Expr *ex_const(Arena *a, Type *t, double v) {
  switch (t->kind) {
  case TY_F32:
    return ex_f32(a, (float)v);
  case TY_INT:
    return ex_const_int(a, t, (long long)v);
  default:
    return ex_f64(a, v);
  }
}

Expr *ex_var(Arena *a, Var *v) {
  Expr *e = ex_new(a, E_VAR, 0);
  e->var = v;
  e->type = v->type;
  return e;
}

Expr *ex_let(Arena *a, Var *v, Expr *rhs, Expr *body) {
  Expr *e = ex_new(a, E_LET, 1);
  e->var = v;
  e->args[0] = rhs;
  e->body = body;
  e->type = body ? body->type : NULL;
  return e;
}

Expr *ex_prim(Arena *a, Prim op, int nargs, Expr **args) {
  Expr *e = ex_new_args(a, E_PRIM, nargs, args);
  e->op = op;
  const PrimInfo *pi = prim_info(op);
  Type *t0 = nargs > 0 ? args[0]->type : NULL;
  switch (pi->cls) {
  case PC_ARITH:
  case PC_MATH:
  case PC_BITS:
  case PC_SHIFT:
  case PC_MATH_INT:
    e->type = t0;
    break;
  case PC_CMP:
  case PC_LOGIC:
    e->type = ty_int();
    break;
  case PC_CAST:
    e->type = prim_cast_type(op);
    break;
  }
  return e;
}

Expr *ex_prim1(Arena *a, Prim op, Expr *x) { return ex_prim(a, op, 1, &x); }

Expr *ex_prim2(Arena *a, Prim op, Expr *x, Expr *y) {
  Expr *args[2] = {x, y};
  return ex_prim(a, op, 2, args);
}

Expr *ex_call(Arena *a, const char *name, int nargs, Expr **args) {
  Expr *e = ex_new_args(a, E_CALL, nargs, args);
  e->name = arena_strdup(a, name);
  return e;
}

Expr *ex_record(Arena *a, const char *name, int nargs, Expr **args) {
  Expr *e = ex_new_args(a, E_TUPLE, nargs, args);
  e->name = name ? arena_strdup(a, name) : NULL;
  bool typed = true;
  for (int i = 0; i < nargs; i++)
    typed = typed && args[i]->type;
  if (typed) {
    Type **ts = arena_alloc(a, sizeof(Type *) * (size_t)(nargs ? nargs : 1));
    for (int i = 0; i < nargs; i++)
      ts[i] = args[i]->type;
    e->type = ty_record(a, name, nargs, ts);
  }
  return e;
}

Expr *ex_tuple(Arena *a, int nargs, Expr **args) {
  return ex_record(a, NULL, nargs, args);
}

Expr *ex_get(Arena *a, int index, Expr *tuple) {
  Expr *e = ex_new_args(a, E_GET, 1, &tuple);
  e->index = index;
  if (tuple->type && tuple->type->kind == TY_TUPLE && index >= 0 &&
      index < tuple->type->n)
    e->type = tuple->type->elems[index];
  return e;
}

Expr *ex_if(Arena *a, Expr *c, Expr *t, Expr *f) {
  Expr *args[3] = {c, t, f};
  Expr *e = ex_new_args(a, E_IF, 3, args);
  e->type = t->type ? t->type : f->type;
  return e;
}

Expr *ex_zero(Arena *a, Type *tangent_type) {
  Expr *e = ex_new(a, E_ZERO, 0);
  e->type = tangent_type;
  return e;
}

Expr *ex_plus(Arena *a, Expr *x, Expr *y) {
  Expr *args[2] = {x, y};
  Expr *e = ex_new_args(a, E_PLUS, 2, args);
  e->type = x->type ? x->type : y->type;
  return e;
}

Expr *ex_lin(Arena *a, ExprKind kind, int nargs, Expr **args) {
  return ex_new_args(a, kind, nargs, args);
}

Expr *ex_lin_typed(Arena *a, ExprKind kind, Type *lin_type) {
  Expr *e = ex_new(a, kind, 0);
  e->type = lin_type;
  return e;
}

Expr *ex_lcall(Arena *a, const char *callee, Expr *residual) {
  Expr *e = ex_new_args(a, E_LCALL, 1, &residual);
  e->name = arena_strdup(a, callee);
  return e;
}

Expr *ex_index(Arena *a, Expr *array, Expr *i) {
  Expr *e = ex_new_args(a, E_INDEX, 2, (Expr *[]){array, i});
  if (array->type && array->type->kind == TY_ARRAY)
    e->type = array->type->elem;
  return e;
}

Expr *ex_view(Arena *a, Expr *array, Expr *offset) {
  Expr *e = ex_new_args(a, E_VIEW, 2, (Expr *[]){array, offset});
  e->type = array->type;
  return e;
}

Expr *ex_len(Arena *a, Expr *array) {
  Expr *e = ex_new_args(a, E_LEN, 1, &array);
  e->type = ty_int();
  return e;
}

/* The type of a build with this body: an array, or a tuple of arrays. */
static Type *build_type(Arena *a, Type *body) {
  if (!body)
    return NULL;
  if (body->kind != TY_TUPLE)
    return ty_array(a, body);
  Type **ts = arena_alloc(a, sizeof(Type *) * (size_t)(body->n ? body->n : 1));
  for (int i = 0; i < body->n; i++)
    ts[i] = ty_array(a, body->elems[i]);
  return ty_tuple(a, body->n, ts);
}

static Expr *ex_loop(Arena *a, ExprKind kind, int nargs, Expr **args, Var *i, Var *s,
                     Expr *body) {
  Expr *e = ex_new_args(a, kind, nargs, args);
  e->var = i;
  e->var2 = s;
  e->body = body;
  return e;
}

Expr *ex_build(Arena *a, Expr *n, Var *i, Expr *body) {
  Expr *e = ex_loop(a, E_BUILD, 1, &n, i, NULL, body);
  e->type = build_type(a, body->type);
  return e;
}

Expr *ex_sum(Arena *a, Expr *n, Var *i, Expr *body) {
  Expr *e = ex_loop(a, E_SUM, 1, &n, i, NULL, body);
  e->type = body->type;
  return e;
}

Expr *ex_sum_from(Arena *a, Expr *n, Expr *init, Var *i, Expr *body) {
  Expr *e = ex_loop(a, E_SUM, 2, (Expr *[]){n, init}, i, NULL, body);
  e->type = init->type ? init->type : body->type;
  return e;
}

Expr *ex_fold(Arena *a, Expr *n, Expr *s0, Var *i, Var *s, Expr *body) {
  Expr *e = ex_loop(a, E_FOLD, 2, (Expr *[]){n, s0}, i, s, body);
  e->type = s0->type;
  return e;
}

Expr *ex_foldsave(Arena *a, Expr *n, Expr *s0, Var *i, Var *s, Expr *body) {
  Expr *e = ex_loop(a, E_FOLDSAVE, 2, (Expr *[]){n, s0}, i, s, body);
  if (s0->type)
    e->type = ty_tuple2(a, s0->type, ty_array(a, ty_f64()));
  return e;
}

Expr *ex_while(Arena *a, Expr *go, Expr *s0, Var *i, Var *s, Expr *body) {
  Expr *e = ex_loop(a, E_WHILE, 2, (Expr *[]){go, s0}, i, s, body);
  e->type = s0->type;
  return e;
}

Expr *ex_whilesave(Arena *a, Expr *go, Expr *s0, Var *i, Var *s, Expr *body) {
  Expr *e = ex_loop(a, E_WHILESAVE, 2, (Expr *[]){go, s0}, i, s, body);
  if (s0->type)
    e->type = ty_tuple(a, 3, (Type *[]){s0->type, ty_array(a, ty_f64()), ty_int()});
  return e;
}

Expr *ex_scatter(Arena *a, Expr *base, Expr *n, Var *i, Expr *body) {
  Expr *e = ex_loop(a, E_SCATTER, 2, (Expr *[]){base, n}, i, NULL, body);
  e->type = base->type;
  return e;
}

Expr *ex_accum(Arena *a, Expr *buf, Expr *i, Expr *v) {
  Expr *e = ex_new_args(a, E_ACCUM, 3, (Expr *[]){buf, i, v});
  e->type = ty_unit(a);
  return e;
}

Expr *ex_store(Arena *a, Expr *buf, Expr *i, Expr *v) {
  Expr *e = ex_accum(a, buf, i, v);
  e->index = 1;
  return e;
}

Expr *ex_alloc(Arena *a, Type *array_type, Expr *n) {
  Expr *e = ex_new_args(a, E_ALLOC, 1, &n);
  e->type = array_type;
  return e;
}

Expr *ex_update(Arena *a, Expr *array, Expr *i, Expr *v) {
  Expr *e = ex_new_args(a, E_UPDATE, 3, (Expr *[]){array, i, v});
  e->type = array->type;
  return e;
}

Expr *ex_logsave(Arena *a, Expr *array, Expr *i) {
  Expr *e = ex_new_args(a, E_LOGSAVE, 2, (Expr *[]){array, i});
  e->type = ty_unit(a);
  return e;
}

Expr *ex_logpop(Arena *a) {
  Expr *e = ex_new_args(a, E_LOGPOP, 0, NULL);
  e->type = ty_unit(a);
  return e;
}

Expr *ex_logmark(Arena *a, int mark) {
  Expr *m = ex_int(a, mark);
  Expr *e = ex_new_args(a, E_LOGMARK, 1, &m);
  e->type = ty_unit(a);
  return e;
}

Expr *ex_logundo(Arena *a, int mark, Expr *arrays) {
  Expr *e = ex_new_args(a, E_LOGUNDO, 2, (Expr *[]){ex_int(a, mark), arrays});
  e->type = arrays->type;
  return e;
}

Expr *ex_logpush(Arena *a, Expr *value) {
  Expr *e = ex_new_args(a, E_LOGPUSH, 1, &value);
  e->type = ty_unit(a);
  return e;
}

Expr *ex_logtake(Arena *a, Type *t) {
  Expr *e = ex_new_args(a, E_LOGTAKE, 0, NULL);
  e->type = t;
  return e;
}

Expr *ex_logview(Arena *a, Expr *n) {
  Expr *e = ex_new_args(a, E_LOGVIEW, 1, &n);
  e->type = ty_array(a, ty_f64());
  return e;
}

Expr *ex_logfinal(Arena *a) {
  Expr *e = ex_new_args(a, E_LOGFINAL, 0, NULL);
  e->type = ty_unit(a);
  return e;
}

bool expr_is_log(const Expr *e) {
  return e->kind == E_LOGSAVE || e->kind == E_LOGPOP || e->kind == E_LOGMARK ||
         e->kind == E_LOGUNDO || e->kind == E_LOGPUSH || e->kind == E_LOGTAKE ||
         e->kind == E_LOGVIEW || e->kind == E_LOGFINAL;
}

Expr *ex_table(Arena *a, Type *elem, int n, Expr **values) {
  Expr *e = ex_new_args(a, E_TABLE, n, values);
  e->type = ty_array(a, elem);
  return e;
}

bool expr_is_loop(const Expr *e) {
  switch (e->kind) {
  case E_BUILD:
  case E_SUM:
  case E_FOLD:
  case E_FOLDSAVE:
  case E_WHILE:
  case E_WHILESAVE:
  case E_SCATTER:
    return true;
  default:
    return false;
  }
}

bool expr_binds_state(const Expr *e) {
  return e->kind == E_FOLD || e->kind == E_FOLDSAVE || e->kind == E_WHILE ||
         e->kind == E_WHILESAVE;
}

Expr *ex_clone_shallow(Arena *a, const Expr *src) {
  Expr *e = ex_new_args(a, src->kind, src->nargs, src->args);
  Expr **args = e->args;
  *e = *src;
  e->args = args;
  return e;
}

/* ----------------------------------------------------------- modules */

Module *module_new(void) {
  Arena *a = arena_new();
  Module *m = arena_alloc(a, sizeof *m);
  m->arena = a;
  return m;
}

void module_free(Module *m) {
  if (!m)
    return;
  if (m->by_name) {
    irmap_free(m->by_name);
    free(m->by_name);
  }
  arena_free(m->arena);
}

/* module_find is called per call site and per derived function: an index
 * keeps modules of thousands of functions linear. */
static IrMap *name_index(Module *m) {
  if (!m->by_name) {
    IrMap *map = calloc(1, sizeof *map);
    if (!map)
      out_of_memory();
    map->string_keys = true;
    m->by_name = map;
  }
  return m->by_name;
}

Func *module_add(Module *m, const char *name, int nparams, Var **params,
                 Type *ret, Expr *body) {
  Func *f = arena_alloc(m->arena, sizeof *f);
  f->name = arena_strdup(m->arena, name);
  f->nparams = nparams;
  f->params = arena_alloc(m->arena, sizeof(Var *) * (size_t)(nparams ? nparams : 1));
  for (int i = 0; i < nparams; i++)
    f->params[i] = params[i];
  f->ret = ret;
  f->body = body;
  ptrvec_push(m->arena, &m->funcs, f);
  irmap_put(name_index(m), f->name, f);
  return f;
}

ParamClass func_param_class(const Func *f, int i) {
  if (f->classes)
    return f->classes[i];
  Type *t = f->params[i]->type;
  if (t && t->kind == TY_ARRAY)
    return PARAM_IN_ARRAY;
  return type_is_active(t) ? PARAM_ACTIVE_SCALAR : PARAM_INACTIVE;
}

bool func_param_active(const Func *f, int i) {
  return func_param_class(f, i) != PARAM_INACTIVE && type_is_active(f->params[i]->type);
}

long long func_param_rows(const Func *f, int i) {
  return f->rows ? f->rows[i] : 0;
}

bool func_param_written(const Func *f, int i) {
  ParamClass c = func_param_class(f, i);
  return c == PARAM_OUT_ARRAY || c == PARAM_INOUT_ARRAY;
}

int func_num_outputs(const Func *f) {
  int k = 0;
  for (int i = 0; i < f->nparams; i++)
    k += func_param_written(f, i);
  return k;
}

void module_truncate(Module *m, int n) {
  if (n >= m->funcs.len)
    return;
  m->funcs.len = n;
  if (m->by_name) { /* rebuild: a later function may have shadowed a kept one */
    irmap_free(m->by_name);
    memset(m->by_name, 0, sizeof(IrMap));
    ((IrMap *)m->by_name)->string_keys = true;
    for (int i = 0; i < n; i++) {
      Func *f = m->funcs.items[i];
      irmap_put(m->by_name, f->name, f);
    }
  }
}

Func *module_find(const Module *m, const char *name) {
  return m->by_name ? irmap_get(m->by_name, name) : NULL;
}
