/* interp.c: the reference interpreter, the oracle of the tests.
 *
 * Requires nothing of the program: it checks at run time what it relies on,
 * so that an ill-typed or ill-scoped term gives a located error, not a
 * crash. Guarantees C semantics for the values it computes: f64 as double;
 * f32 rounded to float after every operation (each computed in float, as C
 * does with FLT_EVAL_METHOD 0); int as 32-bit C int, wrapping where C would
 * overflow, with division by zero and out-of-range conversions to int
 * reported as errors (they are undefined in C). <math.h> does the
 * transcendental functions, the f-suffixed ones for f32.
 *
 * The machine keeps its control, value and binding stacks on the heap, so
 * neither long let chains, deep terms nor recursion (up to MAX_CALL_DEPTH
 * calls, then an error) can overflow the C stack. Variables are found through
 * a map from Var* to their innermost binding; a binding records the call
 * activation it belongs to, so a callee never sees its caller's variables.
 *
 * Arrays: a V_ARRAY's elements are shared by every copy of the value, so
 * accum's in-place additions are seen through all of them. An update
 * stores in place, as the emitted C does, into an array the interpreter
 * made; a parameter's array is copied once first (into the result arena,
 * where no loop's region reclaims it). The checker's linearity makes this
 * the same as copying in every source program; in a reverse sweep, the
 * undo log (E_LOGSAVE ... E_LOGUNDO) writes old values back into that
 * memory exactly as the C does, so a missing restore shows here too.
 * Every other array operation makes a new array (scatter copies its base). A loop runs
 * its iterations one after the other in one frame, binding i (and s) anew
 * for each, so it needs no stack per iteration. Values an iteration makes
 * go to one of two scratch regions owned by the loop, used alternately and
 * emptied before reuse: what survives an iteration (the state of fold, the
 * running total of sum) is copied out of the region the previous iteration
 * used, and build, scatter and fold-save write straight into their results,
 * so a loop's memory does not grow with its number of iterations (beyond
 * the arrays it returns). Arrays made in a region and still referenced are
 * copied out with it; arrays made elsewhere are kept by reference. */
#include "ir.h"
#include "irmap.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/special.inc" /* chad_digamma: the same text generated code carries */

enum { MAX_CALL_DEPTH = 10000 };

/* ------------------------------------------------------ scratch regions */

/* A region that can be emptied and reused (an Arena cannot). */
typedef struct RegionChunk RegionChunk;
struct RegionChunk {
  RegionChunk *next;
  size_t used, size;
  max_align_t data[];
};

typedef struct Region {
  RegionChunk *head;
} Region;

static void *region_alloc(Region *r, size_t size) {
  size_t align = sizeof(max_align_t);
  size = (size + align - 1) / align * align;
  if (!r->head || r->head->size - r->head->used < size) {
    size_t chunk = size > 16384 ? size : 16384;
    RegionChunk *c = malloc(sizeof *c + chunk);
    if (!c) {
      fputs("chad: out of memory\n", stderr);
      abort();
    }
    c->next = r->head;
    c->used = 0;
    c->size = chunk;
    r->head = c;
  }
  void *p = (char *)r->head->data + r->head->used;
  r->head->used += size;
  memset(p, 0, size);
  return p;
}

/* Empties the region, keeping its newest chunk for reuse. */
static void region_reset(Region *r) {
  if (!r->head)
    return;
  for (RegionChunk *c = r->head->next, *next; c; c = next) {
    next = c->next;
    free(c);
  }
  r->head->next = NULL;
  r->head->used = 0;
}

static void region_free(Region *r) {
  for (RegionChunk *c = r->head, *next; c; c = next) {
    next = c->next;
    free(c);
  }
  r->head = NULL;
}

static bool region_owns(const Region *r, const void *p) {
  uintptr_t x = (uintptr_t)p;
  for (const RegionChunk *c = r ? r->head : NULL; c; c = c->next)
    if (x >= (uintptr_t)c->data && x < (uintptr_t)c->data + c->size)
      return true;
  return false;
}

/* ---------------------------------------------------------------- values */

Value val_f64(double f) { return (Value){.kind = V_F64, .f = f}; }
Value val_f32(float f) { return (Value){.kind = V_F32, .f = f}; }
Value val_int(long long i) { return (Value){.kind = V_INT, .i = i}; }

/* With `elems` NULL, the elements are left zeroed for the caller to fill. */
Value val_tuple(Arena *a, int n, const Value *elems) {
  Value v = {.kind = V_TUPLE, .n = n};
  v.elems = arena_alloc(a, sizeof(Value) * (size_t)(n ? n : 1));
  if (n && elems)
    memcpy(v.elems, elems, sizeof(Value) * (size_t)n);
  return v;
}

/* With `elems` NULL, the elements are left zeroed for the caller to fill. */
Value val_array(Arena *a, int n, const Value *elems) {
  if (n < 0)
    n = 0;
  Value v = {.kind = V_ARRAY, .n = n};
  v.elems = arena_alloc(a, sizeof(Value) * (size_t)(n ? n : 1));
  if (n && elems)
    memcpy(v.elems, elems, sizeof(Value) * (size_t)n);
  return v;
}

bool val_eq(const Value *x, const Value *y) {
  if (x->kind != y->kind)
    return false;
  switch (x->kind) {
  case V_F64:
  case V_F32:
    return memcmp(&x->f, &y->f, sizeof x->f) == 0;
  case V_INT:
    return x->i == y->i;
  case V_TUPLE:
  case V_ARRAY:
    if (x->n != y->n)
      return false;
    for (int i = 0; i < x->n; i++)
      if (!val_eq(&x->elems[i], &y->elems[i]))
        return false;
    return true;
  }
  return false;
}

void print_value(FILE *out, const Value *v) {
  char buf[64];
  switch (v->kind) {
  case V_F64:
    format_const(buf, sizeof buf, ty_f64(), v->f, 0);
    break;
  case V_F32:
    format_const(buf, sizeof buf, ty_f32(), v->f, 0);
    break;
  case V_INT:
    format_const(buf, sizeof buf, ty_int(), 0, v->i);
    break;
  case V_TUPLE:
  case V_ARRAY:
    fputs(v->kind == V_TUPLE ? "(tuple" : "(array", out);
    for (int i = 0; i < v->n; i++) {
      fputc(' ', out);
      print_value(out, &v->elems[i]);
    }
    fputc(')', out);
    return;
  }
  fputs(buf, out);
}

/* C int arithmetic done in long long, brought back into int's range the way
 * C compilers wrap (two's complement), without overflowing long long. */
static long long wrap_int(long long x) {
  unsigned long long u = (unsigned long long)x & 0xffffffffull;
  return u >= 0x80000000ull ? (long long)u - 0x100000000ll : (long long)u;
}

/* `deep`: also the elements of arrays (linear in their length). */
static bool has_type(const Value *v, const Type *t, bool deep) {
  switch (t->kind) {
  case TY_F64:
    return v->kind == V_F64;
  case TY_F32:
    return v->kind == V_F32;
  case TY_INT:
    return v->kind == V_INT;
  case TY_TUPLE:
    if (v->kind != V_TUPLE || v->n != t->n)
      return false;
    for (int i = 0; i < t->n; i++)
      if (!has_type(&v->elems[i], t->elems[i], deep))
        return false;
    return true;
  case TY_ARRAY:
    if (v->kind != V_ARRAY || v->n < 0 || (v->n > 0 && !v->elems))
      return false;
    for (int i = 0; deep && i < v->n; i++)
      if (!has_type(&v->elems[i], t->elem, false))
        return false;
    return true;
  case TY_LIN:
    return false;
  }
  return false;
}

/* ---------------------------------------------------------------- machine */

typedef struct Binding {
  const Var *var;
  Value val;
  int activation;
  intptr_t shadowed; /* index + 1 of the binding it hides, or 0 */
} Binding;

/* The state of a running loop (see the top of the file). */
typedef struct Loop {
  long long iter, count;
  bool in_body;    /* the body of iteration `iter` is being evaluated */
  Value acc;       /* sum: running total; fold: state; build, scatter: result */
  Value tape;      /* fold-save */
  int leaves;      /* fold-save, while-save: scalar leaves of the state */
  bool go;         /* while: run another step */
  Value *grown;    /* while-save: the tape so far (malloc'd, grows) */
  long long cap;   /* while-save: numbers `grown` has room for */
  Region *outer;   /* where values went before the loop (NULL: the arena) */
  Region scratch[2];
} Loop;

typedef struct Frame {
  const Expr *e;
  int stage;          /* operands evaluated so far, then a kind's own steps */
  int vbase;          /* value stack height when the frame started */
  const Func *caller; /* E_CALL: the function to return to */
  int caller_activation;
  Loop *loop;         /* loops, once their operands are evaluated */
} Frame;

/* An undo-log entry: an element and the value it held, or a mark. */
typedef struct LogEntry {
  Value *slot; /* NULL for a mark or a pushed value */
  Value old;   /* the element's old value, or the pushed value */
  long long mark;
  bool pushed; /* a value pushed by log-push */
} LogEntry;

typedef struct Machine {
  Module *m;
  Arena *a;
  Diag *err;
  Frame *frames;
  int nframes, cap_frames;
  Value *vals;
  int nvals, cap_vals;
  Binding *binds;
  int nbinds, cap_binds;
  IrMap env;          /* Var* -> index + 1 of its innermost binding */
  Region *region;     /* where new values go; NULL: the result arena `a` */
  const Func *func;   /* the function running */
  int activation;     /* its activation, numbered from 1 */
  int next_activation;
  int depth;
  LogEntry *log; /* the undo log of reverse sweeps (DESIGN 8.13) */
  int nlog, cap_log;
} Machine;

static void *grow(void *items, int *cap, size_t elem) {
  *cap = *cap ? 2 * *cap : 256;
  items = realloc(items, elem * (size_t)*cap);
  if (!items) {
    fputs("chad: out of memory\n", stderr);
    abort();
  }
  return items;
}

static bool fail(Machine *mc, const Expr *e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool fail(Machine *mc, const Expr *e, const char *fmt, ...) {
  char msg[sizeof mc->err->msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  Loc loc = e && e->loc.line ? e->loc : mc->func ? mc->func->loc : (Loc){0};
  if (mc->func)
    diag_set(mc->err, loc, "in '%s': %s", mc->func->name, msg);
  else
    diag_set(mc->err, loc, "%s", msg);
  return false;
}

/* Value storage in the current region (or the result arena). */
static Value *alloc_values(Machine *mc, int n) {
  size_t size = sizeof(Value) * (size_t)(n > 0 ? n : 1);
  return mc->region ? region_alloc(mc->region, size) : arena_alloc(mc->a, size);
}

/* With `elems` NULL, the elements are zeroed for the caller to fill. */
static Value new_tuple(Machine *mc, int n, const Value *elems) {
  Value v = {.kind = V_TUPLE, .n = n, .elems = alloc_values(mc, n)};
  if (n > 0 && elems)
    memcpy(v.elems, elems, sizeof(Value) * (size_t)n);
  return v;
}

static Value new_array(Machine *mc, int n) {
  return (Value){.kind = V_ARRAY, .n = n, .i = 1, .elems = alloc_values(mc, n)};
}

static void push_value(Machine *mc, Value v) {
  if (mc->nvals == mc->cap_vals)
    mc->vals = grow(mc->vals, &mc->cap_vals, sizeof(Value));
  mc->vals[mc->nvals++] = v;
}

static void push_frame(Machine *mc, const Expr *e) {
  if (mc->nframes == mc->cap_frames)
    mc->frames = grow(mc->frames, &mc->cap_frames, sizeof(Frame));
  mc->frames[mc->nframes++] = (Frame){.e = e, .vbase = mc->nvals};
}

static void bind(Machine *mc, const Var *v, Value val) {
  if (mc->nbinds == mc->cap_binds)
    mc->binds = grow(mc->binds, &mc->cap_binds, sizeof(Binding));
  mc->binds[mc->nbinds++] = (Binding){v, val, mc->activation,
                                      (intptr_t)irmap_get(&mc->env, v)};
  irmap_put(&mc->env, v, (void *)(intptr_t)mc->nbinds);
}

/* Undoes the last `n` bindings. */
static void unbind(Machine *mc, int n) {
  for (; n > 0; n--) {
    Binding *b = &mc->binds[--mc->nbinds];
    irmap_put(&mc->env, b->var, (void *)b->shadowed);
  }
}

static bool lookup(Machine *mc, const Expr *e, Value *out) {
  intptr_t i = e->var ? (intptr_t)irmap_get(&mc->env, e->var) : 0;
  if (!i || mc->binds[i - 1].activation != mc->activation)
    return fail(mc, e, "variable '%s' is not bound",
                e->var ? e->var->name : "<null>");
  *out = mc->binds[i - 1].val;
  return true;
}

/* ------------------------------------------------------------ primitives */

static bool is_number(const Value *v) {
  return v->kind == V_F64 || v->kind == V_F32 || v->kind == V_INT;
}


static IntKind kind_of_type(const Type *t) {
  return t && t->kind == TY_INT ? t->ikind : IK_INT;
}

/* The integer kind an operation on ints computes in (unchecked IR, where
 * types may be missing, computes in int). */
static IntKind kind_of(const Expr *e) {
  return e && e->type && e->type->kind == TY_INT ? e->type->ikind : IK_INT;
}

/* C arithmetic of kind k: done on the bit patterns in unsigned long long
 * (wrapping, so signed overflow, which C leaves undefined, is two's
 * complement as the compilers do) and reduced to k. Division and remainder
 * follow the kind's signedness. */
static bool int_arith(Machine *mc, const Expr *e, long long x, long long y,
                      Value *out) {
  IntKind k = kind_of(e);
  unsigned long long ux = (unsigned long long)x, uy = (unsigned long long)y, r;
  switch (e->op) {
  case P_ADD: r = ux + uy; break;
  case P_SUB: r = ux - uy; break;
  case P_MUL: r = ux * uy; break;
  case P_NEG: r = 0 - ux; break;
  case P_BAND: r = ux & uy; break;
  case P_BOR: r = ux | uy; break;
  case P_BXOR: r = ux ^ uy; break;
  case P_BNOT: r = ~ux; break;
  case P_DIV:
  case P_MOD:
    if (y == 0)
      return fail(mc, e, "division by zero");
    if (!intk_signed(k))
      r = e->op == P_DIV ? ux / uy : ux % uy;
    else if (x == LLONG_MIN && y == -1)
      r = e->op == P_DIV ? ux : 0;
    else
      r = (unsigned long long)(e->op == P_DIV ? x / y : x % y);
    break;
  default:
    return fail(mc, e, "'%s' is not defined on integers", prim_info(e->op)->name);
  }
  *out = val_int(intk_wrap(k, (long long)r));
  return true;
}

/* x << y and x >> y of x's kind. C leaves shifts by the width or more, by
 * a negative count, and of negative values to the left undefined: those are
 * run-time errors here, as UBSan reports them. */
static bool int_shift(Machine *mc, const Expr *e, long long x, long long y,
                      Value *out) {
  IntKind k = kind_of(e);
  int bits = intk_bits(k) < 32 ? 32 : intk_bits(k); /* shifts promote */
  if (y < 0 || y >= bits)
    return fail(mc, e, "shift by %lld, outside [0, %d)", y, bits);
  if (e->op == P_SHL && intk_signed(k) && x < 0)
    return fail(mc, e, "left shift of the negative value %lld", x);
  unsigned long long ux = (unsigned long long)x, r;
  if (e->op == P_SHL)
    r = ux << y;
  else if (intk_signed(k) && x < 0)
    r = ~(~ux >> y); /* arithmetic shift, as clang does */
  else
    r = ux >> y;
  *out = val_int(intk_wrap(k, (long long)r));
  return true;
}

/* a CMP b for integers of kind k. */
static int int_compare(Prim op, IntKind k, long long x, long long y) {
  if (intk_signed(k))
    return op == P_LT ? x < y : op == P_LE ? x <= y : op == P_GT ? x > y
         : op == P_GE ? x >= y : op == P_EQ ? x == y : x != y;
  unsigned long long a = (unsigned long long)x, b = (unsigned long long)y;
  return op == P_LT ? a < b : op == P_LE ? a <= b : op == P_GT ? a > b
       : op == P_GE ? a >= b : op == P_EQ ? a == b : a != b;
}

static bool f64_arith(Machine *mc, const Expr *e, double x, double y,
                      Value *out) {
  switch (e->op) {
  case P_ADD: *out = val_f64(x + y); return true;
  case P_SUB: *out = val_f64(x - y); return true;
  case P_MUL: *out = val_f64(x * y); return true;
  case P_DIV: *out = val_f64(x / y); return true;
  case P_NEG: *out = val_f64(-x); return true;
  default:
    return fail(mc, e, "'%s' is not defined on f64", prim_info(e->op)->name);
  }
}

static bool f32_arith(Machine *mc, const Expr *e, float x, float y,
                      Value *out) {
  switch (e->op) {
  case P_ADD: *out = val_f32(x + y); return true;
  case P_SUB: *out = val_f32(x - y); return true;
  case P_MUL: *out = val_f32(x * y); return true;
  case P_DIV: *out = val_f32(x / y); return true;
  case P_NEG: *out = val_f32(-x); return true;
  default:
    return fail(mc, e, "'%s' is not defined on f32", prim_info(e->op)->name);
  }
}

static int compare(Prim op, double x, double y) {
  switch (op) {
  case P_LT: return x < y;
  case P_LE: return x <= y;
  case P_GT: return x > y;
  case P_GE: return x >= y;
  case P_EQ: return x == y;
  default: return x != y;
  }
}

static double math_f64(Prim op, double x, double y, double z) {
  switch (op) {
  case P_SQRT: return sqrt(x);
  case P_EXP: return exp(x);
  case P_LOG: return log(x);
  case P_LOG1P: return log1p(x);
  case P_EXPM1: return expm1(x);
  case P_POW: return pow(x, y);
  case P_SIN: return sin(x);
  case P_COS: return cos(x);
  case P_TAN: return tan(x);
  case P_ASIN: return asin(x);
  case P_ACOS: return acos(x);
  case P_ATAN: return atan(x);
  case P_ATAN2: return atan2(x, y);
  case P_SINH: return sinh(x);
  case P_COSH: return cosh(x);
  case P_TANH: return tanh(x);
  case P_FABS: return fabs(x);
  case P_FMIN: return fmin(x, y);
  case P_FMAX: return fmax(x, y);
  case P_HYPOT: return hypot(x, y);
  case P_ERF: return erf(x);
  case P_CBRT: return cbrt(x);
  case P_FLOOR: return floor(x);
  case P_CEIL: return ceil(x);
  case P_LGAMMA: return lgamma(x);
  case P_TGAMMA: return tgamma(x);
  case P_EXP2: return exp2(x);
  case P_LOG2: return log2(x);
  case P_LOG10: return log10(x);
  case P_FMA: return fma(x, y, z);
  case P_FMOD: return fmod(x, y);
  case P_REMAINDER: return remainder(x, y);
  case P_COPYSIGN: return copysign(x, y);
  case P_FDIM: return fdim(x, y);
  case P_TRUNC: return trunc(x);
  case P_RINT: return rint(x);
  case P_NEARBYINT: return nearbyint(x);
  case P_ERFC: return erfc(x);
  case P_ASINH: return asinh(x);
  case P_ACOSH: return acosh(x);
  case P_ATANH: return atanh(x);
  case P_DIGAMMA: return chad_digamma(x);
  default: return round(x);
  }
}

static float math_f32(Prim op, float x, float y, float z) {
  switch (op) {
  case P_SQRT: return sqrtf(x);
  case P_EXP: return expf(x);
  case P_LOG: return logf(x);
  case P_LOG1P: return log1pf(x);
  case P_EXPM1: return expm1f(x);
  case P_POW: return powf(x, y);
  case P_SIN: return sinf(x);
  case P_COS: return cosf(x);
  case P_TAN: return tanf(x);
  case P_ASIN: return asinf(x);
  case P_ACOS: return acosf(x);
  case P_ATAN: return atanf(x);
  case P_ATAN2: return atan2f(x, y);
  case P_SINH: return sinhf(x);
  case P_COSH: return coshf(x);
  case P_TANH: return tanhf(x);
  case P_FABS: return fabsf(x);
  case P_FMIN: return fminf(x, y);
  case P_FMAX: return fmaxf(x, y);
  case P_HYPOT: return hypotf(x, y);
  case P_ERF: return erff(x);
  case P_CBRT: return cbrtf(x);
  case P_FLOOR: return floorf(x);
  case P_CEIL: return ceilf(x);
  case P_LGAMMA: return lgammaf(x);
  case P_TGAMMA: return tgammaf(x);
  case P_EXP2: return exp2f(x);
  case P_LOG2: return log2f(x);
  case P_LOG10: return log10f(x);
  case P_FMA: return fmaf(x, y, z);
  case P_FMOD: return fmodf(x, y);
  case P_REMAINDER: return remainderf(x, y);
  case P_COPYSIGN: return copysignf(x, y);
  case P_FDIM: return fdimf(x, y);
  case P_TRUNC: return truncf(x);
  case P_RINT: return rintf(x);
  case P_NEARBYINT: return nearbyintf(x);
  case P_ERFC: return erfcf(x);
  case P_ASINH: return asinhf(x);
  case P_ACOSH: return acoshf(x);
  case P_ATANH: return atanhf(x);
  case P_DIGAMMA: return chad_digammaf(x);
  default: return roundf(x);
  }
}

/* ldexp, scalbn and C's pow(x, n): a float operand and an int one, which
 * pow converts to the float's type as C does at the call. */
static bool math_int(Machine *mc, const Expr *e, const Value *x, const Value *n,
                     Value *out) {
  if ((x->kind != V_F64 && x->kind != V_F32) || n->kind != V_INT)
    return fail(mc, e, "'%s' needs an f64 or f32 operand and an int one",
                prim_info(e->op)->name);
  int k = (int)n->i;
  if (x->kind == V_F64)
    *out = val_f64(e->op == P_POWI    ? pow(x->f, (double)k)
                   : e->op == P_LDEXP ? ldexp(x->f, k)
                                      : scalbn(x->f, k));
  else
    *out = val_f32(e->op == P_POWI    ? powf((float)x->f, (float)k)
                   : e->op == P_LDEXP ? ldexpf((float)x->f, k)
                                      : scalbnf((float)x->f, k));
  return true;
}

/* An integer value of kind `from` as a double or float, as C converts. */
static double int_to_double(IntKind from, long long i) {
  return intk_signed(from) ? (double)i : (double)(unsigned long long)i;
}

static float int_to_float(IntKind from, long long i) {
  return intk_signed(from) ? (float)i : (float)(unsigned long long)i;
}

/* A floating value converted to integer kind k, as C does; C leaves it
 * undefined unless the truncated value fits, which is a run-time error. */
static bool float_to_int(Machine *mc, const Expr *e, IntKind k, double f,
                         Value *out) {
  if (k == IK_BOOL) {
    *out = val_int(f != 0);
    return true;
  }
  int bits = intk_bits(k);
  double lo = intk_signed(k) ? -ldexp(1.0, bits - 1) : 0.0;
  double hi = intk_signed(k) ? ldexp(1.0, bits - 1) : ldexp(1.0, bits);
  if (!(f > lo - 1.0 && f < hi))
    return fail(mc, e, "'%s' of %g, out of the range of %s", prim_info(e->op)->name,
                f, intk_c_name(k));
  double t = trunc(f);
  *out = val_int(intk_signed(k) || t < ldexp(1.0, 63)
                     ? (long long)t
                     : (long long)(unsigned long long)t);
  return true;
}

static bool cast(Machine *mc, const Expr *e, const Value *x, Value *out) {
  if (e->op == P_BITS_LLONG) {
    long long bits;
    memcpy(&bits, &x->f, sizeof bits);
    *out = val_int(bits);
    return true;
  }
  IntKind from = kind_of(e->args[0]);
  Type *to = prim_cast_type(e->op);
  switch (to->kind) {
  case TY_F64:
    *out = val_f64(x->kind == V_INT ? int_to_double(from, x->i) : x->f);
    return true;
  case TY_F32:
    *out = val_f32(x->kind == V_INT ? int_to_float(from, x->i) : (float)x->f);
    return true;
  default:
    if (x->kind == V_INT) {
      *out = val_int(intk_wrap(to->ikind, x->i));
      return true;
    }
    return float_to_int(mc, e, to->ikind, x->f, out);
  }
}

static bool apply_prim(Machine *mc, const Expr *e, const Value *args,
                       Value *out) {
  const PrimInfo *pi = prim_info(e->op);
  if (!pi || e->nargs != pi->arity)
    return fail(mc, e, "malformed primitive application");
  /* y and z repeat x when there are fewer operands */
  const Value *x = &args[0], *y = &args[pi->arity > 1], *z = &args[pi->arity - 1];
  /* mixed kinds are checked by math_int and the shifts */
  bool mixed = pi->cls == PC_MATH_INT || pi->cls == PC_SHIFT;
  if (!mixed && (!is_number(x) || x->kind != y->kind || x->kind != z->kind))
    return fail(mc, e, "operands of '%s' of unsuitable kinds", pi->name);
  switch (pi->cls) {
  case PC_BITS:
  case PC_SHIFT:
    if (x->kind != V_INT || y->kind != V_INT)
      return fail(mc, e, "'%s' needs integer operands", pi->name);
    return pi->cls == PC_BITS ? int_arith(mc, e, x->i, y->i, out)
                              : int_shift(mc, e, x->i, y->i, out);
  case PC_ARITH:
    if (x->kind == V_INT)
      return int_arith(mc, e, x->i, y->i, out);
    if (x->kind == V_F32)
      return f32_arith(mc, e, (float)x->f, (float)y->f, out);
    return f64_arith(mc, e, x->f, y->f, out);
  case PC_CMP:
    *out = val_int(x->kind == V_INT ? int_compare(e->op, kind_of(e->args[0]), x->i, y->i)
                                    : compare(e->op, x->f, y->f));
    return true;
  case PC_LOGIC:
    if (x->kind != V_INT)
      return fail(mc, e, "'%s' needs int operands", pi->name);
    *out = val_int(e->op == P_AND  ? x->i && y->i
                   : e->op == P_OR ? x->i || y->i
                                   : !x->i);
    return true;
  case PC_MATH:
    if (x->kind == V_F64)
      *out = val_f64(math_f64(e->op, x->f, y->f, z->f));
    else if (x->kind == V_F32)
      *out = val_f32(math_f32(e->op, (float)x->f, (float)y->f, (float)z->f));
    else
      return fail(mc, e, "'%s' needs f64 or f32 operands", pi->name);
    return true;
  case PC_MATH_INT:
    return math_int(mc, e, x, y, out);
  case PC_CAST:
    return cast(mc, e, x, out);
  }
  return false;
}

/* ------------------------------------------------------- tangent values */

static bool zero_of(Machine *mc, const Expr *e, const Type *t, Value *out) {
  switch (t ? t->kind : TY_LIN) {
  case TY_F64:
    *out = val_f64(0.0);
    return true;
  case TY_F32:
    *out = val_f32(0.0f);
    return true;
  case TY_INT:
    *out = val_int(0);
    return true;
  case TY_TUPLE: {
    Value z = new_tuple(mc, t->n, NULL);
    for (int i = 0; i < t->n; i++) {
      /* a callee's tape (a named record) in a branch that made none: a
       * placeholder the reverse of that branch never reads, so its
       * arrays (the addresses the callee read) may be empty */
      if (t->name && t->elems[i]->kind == TY_ARRAY)
        z.elems[i] = new_array(mc, 0);
      else if (!zero_of(mc, e, t->elems[i], &z.elems[i]))
        return false;
    }
    *out = z;
    return true;
  }
  case TY_ARRAY:
    return fail(mc, e, "zero array without a length");
  case TY_LIN:
    break;
  }
  return fail(mc, e, "zero of a type that is not a tangent type");
}

static bool plus(Machine *mc, const Expr *e, const Value *x, const Value *y,
                 Value *out) {
  if (x->kind != y->kind || (x->kind == V_TUPLE && x->n != y->n))
    return fail(mc, e, "'plus' of values of different types");
  switch (x->kind) {
  case V_F64:
    *out = val_f64(x->f + y->f);
    return true;
  case V_F32:
    *out = val_f32((float)x->f + (float)y->f);
    return true;
  case V_INT:
    *out = val_int(wrap_int(x->i + y->i));
    return true;
  case V_TUPLE: {
    Value t = new_tuple(mc, x->n, NULL);
    for (int i = 0; i < x->n; i++)
      if (!plus(mc, e, &x->elems[i], &y->elems[i], &t.elems[i]))
        return false;
    *out = t;
    return true;
  }
  case V_ARRAY:
    return fail(mc, e, "'plus' of arrays");
  }
  return false;
}

/* --------------------------------------------------------------- arrays */

enum { MAX_VALUE_DEPTH = 1000 }; /* tuples in tuples, for the copies below */

static bool binds_state(const Expr *e) { return expr_binds_state(e); }

static bool is_while(const Expr *e) { return e->kind == E_WHILE || e->kind == E_WHILESAVE; }

static const char *loop_name(const Expr *e) {
  switch (e->kind) {
  case E_BUILD: return "build";
  case E_SUM: return "sum";
  case E_FOLD: return "fold";
  case E_FOLDSAVE: return "fold-save";
  case E_WHILE: return "while";
  case E_WHILESAVE: return "while-save";
  default: return "scatter";
  }
}

static bool in_range(Machine *mc, const Expr *e, const Value *array,
                     const Value *i) {
  if (array->kind != V_ARRAY)
    return fail(mc, e, "array operand is not an array");
  if (i->kind != V_INT)
    return fail(mc, e, "array index is not an int");
  if (i->i < 0 || i->i >= array->n)
    return fail(mc, e, "index %lld out of range for array of length %d", i->i,
                array->n);
  return true;
}

/* array[i] += v, in place: seen by every value sharing the elements. */
static bool add_at(Machine *mc, const Expr *e, const Value *array,
                   const Value *i, const Value *v) {
  if (!in_range(mc, e, array, i))
    return false;
  Value *slot = &array->elems[i->i];
  if (!is_number(v) || v->kind != slot->kind)
    return fail(mc, e, "adding a value of another kind to an array element");
  return plus(mc, e, slot, v, slot);
}

/* Copies v into the current region, except for its numbers and for the
 * arrays not made in `from0` or `from1`, which stay shared. */
static bool copy_out(Machine *mc, const Expr *e, const Value *v, Value *out,
                     const Region *from0, const Region *from1, int depth) {
  if (depth > MAX_VALUE_DEPTH)
    return fail(mc, e, "value nested too deeply");
  if (v->kind == V_TUPLE) {
    Value t = new_tuple(mc, v->n, NULL);
    for (int i = 0; i < v->n; i++)
      if (!copy_out(mc, e, &v->elems[i], &t.elems[i], from0, from1, depth + 1))
        return false;
    *out = t;
  } else if (v->kind == V_ARRAY &&
             (region_owns(from0, v->elems) || region_owns(from1, v->elems))) {
    Value t = new_array(mc, v->n);
    if (v->n > 0)
      memcpy(t.elems, v->elems, sizeof(Value) * (size_t)v->n);
    *out = t;
  } else {
    *out = *v;
  }
  return true;
}

/* Writes the scalar leaves of v, as f64, to dst (when not NULL). Returns
 * their number, or -1 if a leaf is not a number. */
static int put_leaves(const Value *v, Value *dst, int depth) {
  if (is_number(v)) {
    if (dst && v->kind == V_INT) { /* the bits, see E_FOLDSAVE */
      double bits;
      memcpy(&bits, &v->i, sizeof bits);
      *dst = val_f64(bits);
    } else if (dst) {
      *dst = val_f64(v->f);
    }
    return 1;
  }
  if (v->kind == V_ARRAY)
    return 0; /* the loop's memory: its log restores it (DESIGN 8.13) */
  if (v->kind != V_TUPLE || depth > MAX_VALUE_DEPTH)
    return -1;
  int n = 0;
  for (int i = 0; i < v->n; i++) {
    int k = put_leaves(&v->elems[i], dst ? dst + n : NULL, depth + 1);
    if (k < 0)
      return -1;
    n += k;
  }
  return n;
}

/* A loop whose body updates its state's arrays owns them, as the emitted
 * C does: a parameter's array is copied once, before the first step. */
static bool holds_update(const Expr *e) {
  for (; e; e = e->kind == E_LET || expr_is_loop(e) ? e->body : NULL) {
    if (e->kind == E_UPDATE)
      return true;
    for (int i = 0; i < e->nargs; i++)
      if (holds_update(e->args[i]))
        return true;
  }
  return false;
}

static Value owned_state(Machine *mc, const Expr *e, Value v) {
  if (!holds_update(e->body))
    return v;
  if (v.kind == V_ARRAY && !v.i) {
    Value copy = val_array(mc->a, v.n, v.elems);
    copy.i = 1;
    return copy;
  }
  if (v.kind != V_TUPLE)
    return v;
  Value t = new_tuple(mc, v.n, v.elems);
  for (int i = 0; i < v.n; i++)
    t.elems[i] = owned_state(mc, e, v.elems[i]);
  return t;
}

/* The operands of a loop are on the value stack: sets up its state. */
static bool start_loop(Machine *mc, Frame *f) {
  const Expr *e = f->e;
  int want = e->kind == E_BUILD || (e->kind == E_SUM && e->nargs != 2) ? 1 : 2;
  if (e->nargs != want || !e->var || !e->body || (binds_state(e) && !e->var2))
    return fail(mc, e, "malformed '%s'", loop_name(e));
  Value *args = mc->vals + f->vbase;
  const Value *count = &args[e->kind == E_SCATTER ? 1 : 0];
  if (count->kind != V_INT)
    return fail(mc, e, "'%s' %s is not an int", loop_name(e),
                is_while(e) ? "first condition" : "count");
  Loop *l = calloc(1, sizeof *l);
  if (!l) {
    fputs("chad: out of memory\n", stderr);
    abort();
  }
  f->loop = l;
  l->count = is_while(e) ? LLONG_MAX : count->i > 0 ? count->i : 0;
  l->go = is_while(e) ? count->i != 0 : true;
  l->outer = mc->region;
  int n = (int)l->count;
  switch (e->kind) {
  case E_BUILD:
    if (!e->type)
      return fail(mc, e, "'build' without a type");
    if (e->type->kind != TY_TUPLE) {
      l->acc = new_array(mc, n);
      return true;
    }
    l->acc = new_tuple(mc, e->type->n, NULL);
    for (int j = 0; j < e->type->n; j++)
      l->acc.elems[j] = new_array(mc, n);
    return true;
  case E_SUM:
    if (e->nargs == 2) { /* sum-from: C adds to the initial value in order */
      l->acc = args[1];
      return true;
    }
    return zero_of(mc, e, e->type, &l->acc);
  case E_FOLD:
    l->acc = owned_state(mc, e, args[1]);
    return true;
  case E_FOLDSAVE:
    l->acc = owned_state(mc, e, args[1]);
    l->leaves = put_leaves(&args[1], NULL, 0);
    if (l->leaves < 0)
      return fail(mc, e, "'fold-save' state has a leaf that is not a number");
    if (l->count * l->leaves > INT_MAX)
      return fail(mc, e, "'fold-save' tape of %lld x %d numbers is too long",
                  l->count, l->leaves);
    l->tape = new_array(mc, n * l->leaves);
    return true;
  case E_WHILE:
    l->acc = owned_state(mc, e, args[1]);
    return true;
  case E_WHILESAVE:
    l->acc = owned_state(mc, e, args[1]);
    l->leaves = put_leaves(&args[1], NULL, 0);
    if (l->leaves < 0)
      return fail(mc, e, "'while-save' state has a leaf that is not a number");
    return true;
  default: { /* E_SCATTER: adds to a copy of the base */
    const Value *base = &args[0];
    bool arrays = base->kind == V_ARRAY || base->kind == V_TUPLE;
    for (int j = 0; base->kind == V_TUPLE && j < base->n; j++)
      arrays = arrays && base->elems[j].kind == V_ARRAY;
    if (!arrays)
      return fail(mc, e, "'scatter' base is not an array or a tuple of arrays");
    if (base->kind == V_ARRAY) {
      l->acc = new_array(mc, base->n);
      if (base->n > 0)
        memcpy(l->acc.elems, base->elems, sizeof(Value) * (size_t)base->n);
      return true;
    }
    l->acc = new_tuple(mc, base->n, NULL);
    for (int j = 0; j < base->n; j++) {
      const Value *b = &base->elems[j];
      l->acc.elems[j] = new_array(mc, b->n);
      if (b->n > 0)
        memcpy(l->acc.elems[j].elems, b->elems, sizeof(Value) * (size_t)b->n);
    }
    return true;
  }
  }
}

/* Folds the value r of the body of iteration l->iter into the loop. */
static bool absorb(Machine *mc, const Expr *e, Loop *l, const Value *r) {
  int i = (int)l->iter;
  switch (e->kind) {
  case E_BUILD:
    if (l->acc.kind == V_ARRAY) {
      if (!is_number(r))
        return fail(mc, e->body, "'build' body is not a number");
      l->acc.elems[i] = *r;
      return true;
    }
    if (r->kind != V_TUPLE || r->n != l->acc.n)
      return fail(mc, e->body, "'build' body is not a tuple of %d numbers",
                  l->acc.n);
    for (int j = 0; j < r->n; j++) {
      if (!is_number(&r->elems[j]))
        return fail(mc, e->body, "'build' body is not a tuple of numbers");
      l->acc.elems[j].elems[i] = r->elems[j];
    }
    return true;
  case E_SUM: {
    Value t;
    if (!plus(mc, e, &l->acc, r, &t))
      return false;
    l->acc = t;
    return true;
  }
  case E_FOLD:
  case E_FOLDSAVE:
    /* the previous state dies with the region the next iteration empties */
    return copy_out(mc, e, r, &l->acc, &l->scratch[(i + 1) & 1], NULL, 0);
  case E_WHILE:
  case E_WHILESAVE:
    if (r->kind != V_TUPLE || r->n != 2 || r->elems[0].kind != V_INT)
      return fail(mc, e->body, "'%s' body is not a pair (tuple go state)", loop_name(e));
    l->go = r->elems[0].i != 0;
    return copy_out(mc, e, &r->elems[1], &l->acc, &l->scratch[(i + 1) & 1], NULL, 0);
  default: { /* E_SCATTER */
    if (r->kind != V_TUPLE || r->n != 2 || r->elems[0].kind != V_INT)
      return fail(mc, e->body, "'scatter' body is not a pair (tuple index value)");
    const Value *idx = &r->elems[0], *v = &r->elems[1];
    if (l->acc.kind == V_ARRAY)
      return add_at(mc, e->body, &l->acc, idx, v);
    if (v->kind != V_TUPLE || v->n != l->acc.n)
      return fail(mc, e->body, "'scatter' value does not match its %d arrays",
                  l->acc.n);
    for (int j = 0; j < v->n; j++)
      if (!add_at(mc, e->body, &l->acc.elems[j], idx, &v->elems[j]))
        return false;
    return true;
  }
  }
}

/* After the last iteration, in the region outside the loop. */
static bool loop_result(Machine *mc, const Expr *e, Loop *l, Value *out) {
  const Region *x0 = &l->scratch[0], *x1 = &l->scratch[1];
  switch (e->kind) {
  case E_SUM:
  case E_FOLD:
    return copy_out(mc, e, &l->acc, out, x0, x1, 0);
  case E_FOLDSAVE: {
    Value pair = new_tuple(mc, 2, NULL);
    pair.elems[1] = l->tape;
    if (!copy_out(mc, e, &l->acc, &pair.elems[0], x0, x1, 0))
      return false;
    *out = pair;
    return true;
  }
  case E_WHILE:
    return copy_out(mc, e, &l->acc, out, x0, x1, 0);
  case E_WHILESAVE: {
    Value triple = new_tuple(mc, 3, NULL);
    long long n = l->iter * l->leaves;
    triple.elems[1] = new_array(mc, (int)n);
    if (n > 0)
      memcpy(triple.elems[1].elems, l->grown, sizeof(Value) * (size_t)n);
    triple.elems[2] = val_int(l->iter);
    if (!copy_out(mc, e, &l->acc, &triple.elems[0], x0, x1, 0))
      return false;
    *out = triple;
    return true;
  }
  default: /* build, scatter: made outside the loop's regions */
    *out = l->acc;
    return true;
  }
}

/* (alloc (array T) n): n zeros of T, in an array of its own. */
static bool alloc_zeros(Machine *mc, const Expr *e, const Value *n, Value *out) {
  if (n->kind != V_INT)
    return fail(mc, e, "'alloc' length is not an int");
  if (!e->type || e->type->kind != TY_ARRAY || !e->type->elem)
    return fail(mc, e, "'alloc' without an array type");
  Value zero;
  if (e->type->elem->kind == TY_ARRAY || !zero_of(mc, e, e->type->elem, &zero) ||
      !is_number(&zero))
    return fail(mc, e, "'alloc' of an array whose elements are not numbers");
  Value a = new_array(mc, n->i > 0 ? (int)n->i : 0);
  for (int i = 0; i < a.n; i++)
    a.elems[i] = zero;
  *out = a;
  return true;
}

/* Room in a while-save's tape for one more state: doubles, as the
 * emitted code does. */
static bool grow_tape(Machine *mc, const Expr *e, Loop *l) {
  long long need = (l->iter + 1) * l->leaves;
  if (need <= l->cap)
    return true;
  if (need > INT_MAX)
    return fail(mc, e, "'while-save' tape of %lld numbers is too long", need);
  long long cap = l->cap ? l->cap : 16;
  while (cap < need)
    cap *= 2;
  Value *g = realloc(l->grown, sizeof(Value) * (size_t)cap);
  if (!g) {
    fputs("chad: out of memory\n", stderr);
    abort();
  }
  l->grown = g;
  l->cap = cap;
  return true;
}

/* (update a i v) as a value: a copy of a with element i replaced. The
 * oracle never writes in place, so that code violating the linearity the
 * checker enforces (or a pass that breaks it) shows up as a difference
 * between interpreted and compiled results. */
static bool update_in_place(Machine *mc, const Expr *e, const Value *array, const Value *i,
                            const Value *v, Value *out) {
  if (!in_range(mc, e, array, i))
    return false;
  if (!is_number(v) || (array->n > 0 && v->kind != array->elems[0].kind))
    return fail(mc, e, "'update' with a value of another kind than the elements");
  Value a = *array;
  if (!a.i) { /* a parameter's memory: a copy of our own, made once */
    a = val_array(mc->a, array->n, array->elems);
    a.i = 1;
  }
  a.elems[i->i] = *v;
  *out = a;
  return true;
}

static void log_push(Machine *mc, LogEntry entry) {
  if (mc->nlog == mc->cap_log)
    mc->log = grow(mc->log, &mc->cap_log, sizeof(LogEntry));
  mc->log[mc->nlog++] = entry;
}

/* log-view: the newest n pushed values, each an f64, as a new array in the
 * order they were pushed. */
static bool log_view(Machine *mc, const Expr *e, long long n, Value *out) {
  if (n < 0 || n > mc->nlog)
    return fail(mc, e, "'log-view' of %lld values with %d on the log", n, mc->nlog);
  Value v = new_array(mc, (int)n);
  for (long long k = n - 1; k >= 0; k--) {
    LogEntry *top = &mc->log[--mc->nlog];
    if (!top->pushed || top->old.kind != V_F64)
      return fail(mc, e, "'log-view' found no pushed f64 on top of the log");
    v.elems[k] = top->old;
  }
  *out = v;
  return true;
}

/* The undo log's effects. A pop that meets a mark, or an undo that meets
 * no mark of its own or an outer loop's (marks are numbered outer first)
 * first, breaks the discipline the reverse sweep keeps: an error here. */
static bool log_effect(Machine *mc, const Expr *e, const Value *args, Value *out) {
  switch (e->kind) {
  case E_LOGSAVE:
    if (!in_range(mc, e, &args[0], &args[1]))
      return false;
    if (!args[0].i)
      return fail(mc, e, "'log-save' of an array the function may not write");
    log_push(mc, (LogEntry){.slot = &args[0].elems[args[1].i], .old = args[0].elems[args[1].i]});
    break;
  case E_LOGMARK:
    log_push(mc, (LogEntry){.mark = e->args[0]->ival});
    break;
  case E_LOGPUSH:
    log_push(mc, (LogEntry){.old = args[0], .pushed = true});
    break;
  case E_LOGFINAL: /* the emitted C's record of in-out final values */
    break;
  case E_LOGTAKE:
    if (!mc->nlog || !mc->log[mc->nlog - 1].pushed)
      return fail(mc, e, "'log-take' with no pushed value on top of the log");
    *out = mc->log[--mc->nlog].old;
    return true;
  case E_LOGVIEW: /* a copy: the interpreter is the oracle of the view */
    return log_view(mc, e, args[0].i, out);
  case E_LOGPOP:
    if (!mc->nlog || !mc->log[mc->nlog - 1].slot)
      return fail(mc, e, "'log-pop' with no saved element on top of the log");
    mc->nlog--;
    *mc->log[mc->nlog].slot = mc->log[mc->nlog].old;
    break;
  case E_LOGUNDO:
    for (;;) {
      if (!mc->nlog)
        return fail(mc, e, "'log-undo' found no mark %lld", e->args[0]->ival);
      LogEntry *top = &mc->log[--mc->nlog];
      if (top->pushed)
        continue; /* a value pushed since the mark: dropped with it */
      if (!top->slot) {
        if (top->mark == e->args[0]->ival)
          break;
        if (top->mark < e->args[0]->ival) /* marks are handed out outer loops first */
          return fail(mc, e, "'log-undo' to mark %lld met mark %lld", e->args[0]->ival,
                      top->mark);
        continue; /* a loop's inside this one's: its saves are undone too */
      }
      *top->slot = top->old;
    }
    *out = args[1];
    return true;
  default:
    return fail(mc, e, "not an undo-log term");
  }
  *out = new_tuple(mc, 0, NULL);
  return true;
}

static void free_loop(Frame *f) {
  if (!f->loop)
    return;
  region_free(&f->loop->scratch[0]);
  region_free(&f->loop->scratch[1]);
  free(f->loop->grown);
  free(f->loop);
  f->loop = NULL;
}

/* ------------------------------------------------------------------ calls */

/* The arguments are the topmost values: binds them as the parameters of a
 * new activation and starts the body in the frame of the call. */
static bool enter(Machine *mc, const Expr *call, Frame *f, const Func *callee) {
  int nargs = mc->nvals - f->vbase;
  if (nargs != callee->nparams)
    return fail(mc, call, "'%s' takes %d arguments, got %d", callee->name,
                callee->nparams, nargs);
  if (mc->depth >= MAX_CALL_DEPTH)
    return fail(mc, call, "call depth exceeds %d (unbounded recursion?)",
                MAX_CALL_DEPTH);
  for (int i = 0; i < nargs; i++)
    if (!callee->params[i] || !callee->params[i]->type ||
        !has_type(&mc->vals[f->vbase + i], callee->params[i]->type, mc->depth == 0))
      return fail(mc, call, "argument %d of '%s' has the wrong type", i + 1,
                  callee->name);
  if (!callee->body && callee->is_custom)
    return fail(mc, call, "'%s' is a custom function: its code is the user's C, "
                "which the interpreter cannot run", callee->name);
  if (!callee->body)
    return fail(mc, call, "'%s' has no body", callee->name);
  f->caller = mc->func;
  f->caller_activation = mc->activation;
  mc->func = callee;
  mc->activation = ++mc->next_activation;
  mc->depth++;
  for (int i = 0; i < nargs; i++) {
    Value arg = mc->vals[f->vbase + i];
    if (arg.kind == V_ARRAY)
      arg.i = 0; /* the caller's memory: an update copies it */
    bind(mc, callee->params[i], arg);
  }
  mc->nvals = f->vbase;
  push_frame(mc, callee->body);
  return true;
}

static void leave(Machine *mc, Frame *f) {
  unbind(mc, mc->func->nparams);
  mc->func = f->caller;
  mc->activation = f->caller_activation;
  mc->depth--;
}

/* ------------------------------------------------------------------ steps */

static int nargs_of(const Expr *e) {
  switch (e->kind) {
  case E_PRIM:
  case E_CALL:
  case E_TUPLE:
  case E_GET:
  case E_PLUS:
  case E_INDEX:
  case E_LEN:
  case E_VIEW:
  case E_ACCUM:
  case E_ALLOC:
  case E_UPDATE:
  case E_LOGSAVE:
  case E_LOGPOP:
  case E_LOGMARK:
  case E_LOGUNDO:
  case E_LOGPUSH:
  case E_LOGTAKE:
  case E_LOGVIEW:
  case E_LOGFINAL:
  case E_TABLE:
  case E_BUILD:
  case E_SUM:
  case E_FOLD:
  case E_FOLDSAVE:
  case E_WHILE:
  case E_WHILESAVE:
  case E_SCATTER:
    return e->nargs;
  case E_LET:
  case E_IF:
    return 1; /* the rhs, the condition; then their own steps */
  default:
    return 0;
  }
}

/* Every operand value of the top frame is on the value stack. */
static bool combine(Machine *mc, Frame *f, Value *out) {
  const Expr *e = f->e;
  Value *args = mc->vals ? mc->vals + f->vbase : NULL; /* NULL: no operands */
  if ((e->kind == E_GET && e->nargs != 1) || (e->kind == E_PLUS && e->nargs != 2) ||
      (e->kind == E_INDEX && e->nargs != 2) || (e->kind == E_LEN && e->nargs != 1) ||
      (e->kind == E_ACCUM && e->nargs != 3) || (e->kind == E_ALLOC && e->nargs != 1) ||
      (e->kind == E_UPDATE && e->nargs != 3) || (e->kind == E_VIEW && e->nargs != 2))
    return fail(mc, e, "malformed node of kind %d", (int)e->kind);
  switch (e->kind) {
  case E_INDEX:
    if (!in_range(mc, e, &args[0], &args[1]))
      return false;
    *out = args[0].elems[args[1].i];
    return true;
  case E_LEN:
    if (args[0].kind != V_ARRAY)
      return fail(mc, e, "'len' of a value that is not an array");
    *out = val_int(args[0].n);
    return true;
  case E_VIEW: /* the same elements: accumulations through it reach a */
    if (args[0].kind != V_ARRAY || args[1].kind != V_INT)
      return fail(mc, e, "'view' of a value that is not an array, or at a non-int offset");
    if (args[1].i < 0 || args[1].i > args[0].n)
      return fail(mc, e, "view at offset %lld of an array of length %d", args[1].i, args[0].n);
    *out = (Value){.kind = V_ARRAY, .n = args[0].n - (int)args[1].i,
                   .elems = args[0].elems + args[1].i};
    return true;
  case E_ACCUM:
    if (e->index == 1 && in_range(mc, e, &args[0], &args[1]) && is_number(&args[2]) &&
        args[2].kind == args[0].elems[args[1].i].kind)
      args[0].elems[args[1].i] = args[2];
    else if (!add_at(mc, e, &args[0], &args[1], &args[2]))
      return false;
    *out = new_tuple(mc, 0, NULL);
    return true;
  case E_ALLOC:
    return alloc_zeros(mc, e, &args[0], out);
  case E_UPDATE:
    return update_in_place(mc, e, &args[0], &args[1], &args[2], out);
  case E_LOGSAVE:
  case E_LOGPOP:
  case E_LOGMARK:
  case E_LOGUNDO:
  case E_LOGPUSH:
  case E_LOGTAKE:
  case E_LOGVIEW:
  case E_LOGFINAL:
    return log_effect(mc, e, args, out);
  case E_TABLE: { /* its elements were evaluated as constants */
    Value t = new_array(mc, e->nargs);
    for (int i = 0; i < e->nargs; i++)
      t.elems[i] = args[i];
    *out = t;
    return true;
  }
  case E_PRIM:
    return apply_prim(mc, e, args, out);
  case E_TUPLE:
    *out = new_tuple(mc, e->nargs, args);
    return true;
  case E_GET:
    if (args[0].kind != V_TUPLE || e->index < 0 || e->index >= args[0].n)
      return fail(mc, e, "'get %d' of a value without that field", e->index);
    *out = args[0].elems[e->index];
    return true;
  case E_PLUS:
    return plus(mc, e, &args[0], &args[1], out);
  case E_CONST:
    if (e->type && e->type->kind == TY_F32)
      *out = val_f32((float)e->fval);
    else if (e->type && e->type->kind == TY_INT)
      *out = val_int(intk_wrap(e->type->ikind, e->ival));
    else if (e->type && e->type->kind == TY_F64)
      *out = val_f64(e->fval);
    else
      return fail(mc, e, "constant without a numeric type");
    return true;
  case E_VAR:
    return lookup(mc, e, out);
  case E_ZERO:
    return zero_of(mc, e, e->type, out);
  default:
    return fail(mc, e, "linear map reached the interpreter");
  }
}

/* Pops the frame, replacing its operands by `v`. */
static void finish(Machine *mc, Value v) {
  Frame *f = &mc->frames[--mc->nframes];
  mc->nvals = f->vbase;
  push_value(mc, v);
}

/* The steps of let, if and call after their first operands. */
static bool continue_special(Machine *mc, int fi) {
  Frame *f = &mc->frames[fi];
  const Expr *e = f->e;
  int step = f->stage++;
  switch (e->kind) {
  case E_LET:
    if (step == 1) { /* rhs done: bind, evaluate the body */
      if (!e->var || !e->body)
        return fail(mc, e, "malformed let");
      bind(mc, e->var, mc->vals[--mc->nvals]);
      push_frame(mc, e->body);
    } else { /* body done: leave the scope */
      unbind(mc, 1);
      finish(mc, mc->vals[mc->nvals - 1]);
    }
    return true;
  case E_IF:
    if (step == 1) {
      Value c = mc->vals[--mc->nvals];
      if (c.kind != V_INT)
        return fail(mc, e, "if condition is not an int");
      if (e->nargs != 3)
        return fail(mc, e, "malformed if");
      push_frame(mc, e->args[c.i ? 1 : 2]);
    } else {
      finish(mc, mc->vals[mc->nvals - 1]);
    }
    return true;
  default: /* E_CALL */
    if (step == e->nargs) {
      const Func *callee = e->name ? module_find(mc->m, e->name) : NULL;
      if (!callee)
        return fail(mc, e, "unknown function '%s'", e->name ? e->name : "<null>");
      return enter(mc, e, f, callee);
    }
    leave(mc, f);
    finish(mc, mc->vals[mc->nvals - 1]);
    return true;
  }
}

/* A loop whose operands are evaluated: starts it, takes the value of an
 * iteration's body, starts the next iteration or finishes. */
static bool loop_step(Machine *mc, int fi) {
  Frame *f = &mc->frames[fi];
  const Expr *e = f->e;
  if (!f->loop && !start_loop(mc, f))
    return false;
  Loop *l = f->loop;
  if (l->in_body) {
    Value r = mc->vals[--mc->nvals];
    unbind(mc, binds_state(e) ? 2 : 1);
    l->in_body = false;
    if (!absorb(mc, e, l, &r))
      return false;
    l->iter++;
  }
  if (l->iter < l->count && l->go) {
    Region *x = &l->scratch[l->iter & 1];
    region_reset(x);
    mc->region = x;
    if (e->kind == E_FOLDSAVE || e->kind == E_WHILESAVE) {
      if (put_leaves(&l->acc, NULL, 0) != l->leaves)
        return fail(mc, e, "'%s' state changed its shape", loop_name(e));
      if (e->kind == E_WHILESAVE && !grow_tape(mc, e, l))
        return false;
      Value *base = e->kind == E_FOLDSAVE ? l->tape.elems : l->grown;
      put_leaves(&l->acc, base + l->iter * l->leaves, 0);
    }
    bind(mc, e->var, val_int(l->iter));
    if (binds_state(e))
      bind(mc, e->var2, l->acc);
    l->in_body = true;
    push_frame(mc, e->body); /* may move f */
    return true;
  }
  mc->region = l->outer;
  Value v;
  bool ok = loop_result(mc, e, l, &v);
  free_loop(f);
  if (ok)
    finish(mc, v);
  return ok;
}

/* One step of the top frame: evaluate its next operand, or go on. */
static bool step(Machine *mc) {
  int fi = mc->nframes - 1;
  Frame *f = &mc->frames[fi];
  const Expr *e = f->e;
  if (!e)
    return fail(mc, NULL, "missing expression");
  int n = nargs_of(e);
  if (f->stage < n) {
    const Expr *operand = e->args[f->stage++];
    push_frame(mc, operand); /* may move f */
    return true;
  }
  if (e->kind == E_LET || e->kind == E_IF || e->kind == E_CALL)
    return continue_special(mc, fi);
  if (expr_is_loop(e))
    return loop_step(mc, fi);
  Value v;
  if (!combine(mc, f, &v))
    return false;
  finish(mc, v);
  return true;
}

bool interp_call(Module *m, Arena *a, const char *fname, int nargs,
                 const Value *args, Value *result, Diag *err) {
  Machine mc = {.m = m, .a = a, .err = err};
  const Func *f = module_find(m, fname);
  if (!f)
    return fail(&mc, NULL, "unknown function '%s'", fname);
  /* The bottom frame stands for the caller outside the module. */
  Expr call = {.kind = E_CALL, .name = f->name, .loc = f->loc};
  push_frame(&mc, &call);
  for (int i = 0; i < nargs; i++)
    push_value(&mc, args[i].kind == V_INT && i < f->nparams
                        ? val_int(intk_wrap(kind_of_type(f->params[i]->type), args[i].i))
                        : args[i]);
  bool ok = enter(&mc, &call, &mc.frames[0], f);
  while (ok && mc.nframes > 1)
    ok = step(&mc);
  if (ok) {
    leave(&mc, &mc.frames[0]);
    *result = mc.vals[mc.nvals - 1];
  }
  if (ok && mc.nlog)
    ok = fail(&mc, NULL, "'%s' returns with %d entries left in its undo log", fname, mc.nlog);
  free(mc.log);
  for (int i = 0; i < mc.nframes; i++)
    free_loop(&mc.frames[i]);
  irmap_free(&mc.env);
  free(mc.frames);
  free(mc.vals);
  free(mc.binds);
  return ok;
}
