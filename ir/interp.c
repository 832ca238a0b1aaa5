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
 * activation it belongs to, so a callee never sees its caller's variables. */
#include "ir.h"
#include "irmap.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_CALL_DEPTH = 10000 };

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
    fputs("(tuple", out);
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

static bool has_type(const Value *v, const Type *t) {
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
      if (!has_type(&v->elems[i], t->elems[i]))
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

typedef struct Frame {
  const Expr *e;
  int stage;          /* operands evaluated so far, then a kind's own steps */
  int vbase;          /* value stack height when the frame started */
  const Func *caller; /* E_CALL: the function to return to */
  int caller_activation;
} Frame;

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
  const Func *func;   /* the function running */
  int activation;     /* its activation, numbered from 1 */
  int next_activation;
  int depth;
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

static bool is_number(const Value *v) { return v->kind != V_TUPLE; }

static double as_double(const Value *v) {
  return v->kind == V_INT ? (double)v->i : v->f;
}

static bool int_arith(Machine *mc, const Expr *e, long long x, long long y,
                      Value *out) {
  long long r;
  switch (e->op) {
  case P_ADD: r = x + y; break;
  case P_SUB: r = x - y; break;
  case P_MUL: r = x * y; break;
  case P_NEG: r = -x; break;
  case P_DIV:
  case P_MOD:
    if (y == 0)
      return fail(mc, e, "division by zero");
    r = e->op == P_DIV ? x / y : x % y;
    break;
  default:
    return fail(mc, e, "'%s' is not defined on int", prim_info(e->op)->name);
  }
  *out = val_int(wrap_int(r));
  return true;
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

static double math_f64(Prim op, double x, double y) {
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
  default: return round(x);
  }
}

static float math_f32(Prim op, float x, float y) {
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
  default: return roundf(x);
  }
}

static bool cast(Machine *mc, const Expr *e, const Value *x, Value *out) {
  switch (e->op) {
  case P_TO_F64:
    *out = val_f64(as_double(x));
    return true;
  case P_TO_F32:
    *out = val_f32(x->kind == V_INT ? (float)x->i : (float)x->f);
    return true;
  default:
    if (x->kind == V_INT) {
      *out = *x;
      return true;
    }
    /* C leaves the conversion undefined unless the truncation fits. */
    if (!(x->f > (double)INT_MIN - 1.0 && x->f < (double)INT_MAX + 1.0))
      return fail(mc, e, "'to_int' of %g, out of the range of int", x->f);
    *out = val_int((long long)x->f);
    return true;
  }
}

static bool apply_prim(Machine *mc, const Expr *e, const Value *args,
                       Value *out) {
  const PrimInfo *pi = prim_info(e->op);
  if (!pi || e->nargs != pi->arity)
    return fail(mc, e, "malformed primitive application");
  const Value *x = &args[0], *y = &args[pi->arity - 1];
  if (!is_number(x) || x->kind != y->kind)
    return fail(mc, e, "operands of '%s' of unsuitable kinds", pi->name);
  switch (pi->cls) {
  case PC_ARITH:
    if (x->kind == V_INT)
      return int_arith(mc, e, x->i, y->i, out);
    if (x->kind == V_F32)
      return f32_arith(mc, e, (float)x->f, (float)y->f, out);
    return f64_arith(mc, e, x->f, y->f, out);
  case PC_CMP:
    *out = val_int(x->kind == V_INT ? compare(e->op, (double)x->i, (double)y->i)
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
      *out = val_f64(math_f64(e->op, x->f, y->f));
    else if (x->kind == V_F32)
      *out = val_f32(math_f32(e->op, (float)x->f, (float)y->f));
    else
      return fail(mc, e, "'%s' needs f64 or f32 operands", pi->name);
    return true;
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
  case TY_TUPLE:
    *out = val_tuple(mc->a, t->n, NULL);
    for (int i = 0; i < t->n; i++)
      if (!zero_of(mc, e, t->elems[i], &out->elems[i]))
        return false;
    return true;
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
  case V_TUPLE:
    *out = val_tuple(mc->a, x->n, NULL);
    for (int i = 0; i < x->n; i++)
      if (!plus(mc, e, &x->elems[i], &y->elems[i], &out->elems[i]))
        return false;
    return true;
  }
  return false;
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
        !has_type(&mc->vals[f->vbase + i], callee->params[i]->type))
      return fail(mc, call, "argument %d of '%s' has the wrong type", i + 1,
                  callee->name);
  if (!callee->body)
    return fail(mc, call, "'%s' has no body", callee->name);
  f->caller = mc->func;
  f->caller_activation = mc->activation;
  mc->func = callee;
  mc->activation = ++mc->next_activation;
  mc->depth++;
  for (int i = 0; i < nargs; i++)
    bind(mc, callee->params[i], mc->vals[f->vbase + i]);
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
  if ((e->kind == E_GET && e->nargs != 1) || (e->kind == E_PLUS && e->nargs != 2))
    return fail(mc, e, "malformed '%s'", e->kind == E_GET ? "get" : "plus");
  switch (e->kind) {
  case E_PRIM:
    return apply_prim(mc, e, args, out);
  case E_TUPLE:
    *out = val_tuple(mc->a, e->nargs, args);
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
      *out = val_int(wrap_int(e->ival));
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
    push_value(&mc, args[i].kind == V_INT ? val_int(wrap_int(args[i].i)) : args[i]);
  bool ok = enter(&mc, &call, &mc.frames[0], f);
  while (ok && mc.nframes > 1)
    ok = step(&mc);
  if (ok) {
    leave(&mc, &mc.frames[0]);
    *result = mc.vals[mc.nvals - 1];
  }
  irmap_free(&mc.env);
  free(mc.frames);
  free(mc.vals);
  free(mc.binds);
  return ok;
}
