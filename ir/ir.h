/* ir.h: the functional IR of chad (DESIGN.md section 3).
 *
 * A module is a list of first-order functions. A function body is an
 * expression tree over typed variables; after normalisation (ad/anf.c) it is in
 * A-normal form with unique binders. Every node is allocated in the module's
 * arena and freed with it: nothing in here is freed individually.
 *
 * One textual form (ir/print.c, ir/parse.c) round-trips every term; it is the
 * medium of the IR tests, of bug reports and of -fplugin-arg-chad-dump. */
#ifndef CHAD_IR_H
#define CHAD_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* ---------------------------------------------------------------- arena */

typedef struct Arena Arena;

Arena *arena_new(void);
void arena_free(Arena *a);
void *arena_alloc(Arena *a, size_t size); /* zeroed, aligned for any type */
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A growable array of pointers, allocated in an arena. */
typedef struct PtrVec {
  void **items;
  int len;
  int cap;
} PtrVec;
void ptrvec_push(Arena *a, PtrVec *v, void *item);

/* ---------------------------------------------------------- locations */

/* A source position: in C source for lowered code, in IR text for parsed
 * code, or none (line 0) for code the passes create. */
typedef struct Loc {
  const char *file; /* may be NULL */
  int line;         /* 1-based; 0 means unknown */
  int col;          /* 1-based; 0 means unknown */
} Loc;

/* A located message: every failing API of the core fills one. */
typedef struct Diag {
  Loc loc;
  char msg[512];
} Diag;

void diag_set(Diag *d, Loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------- types */

typedef enum TypeKind {
  TY_F64,   /* IEEE binary64 (C double): active, its tangent is f64 */
  TY_F32,   /* IEEE binary32 (C float): active, its tangent is f32 */
  TY_INT,   /* a C integer type, which one in `ikind` (int for booleans,
               indices and lengths): inactive, no tangent */
  TY_TUPLE, /* product of `n` element types; n = 0 is unit. A tuple with a
               `name` is a nominal record (emitted as a C struct): the
               residual ("tape") of a reverse derivative */
  TY_LIN,   /* linear map dom -o cod: exists only between AD and elimination */
  TY_ARRAY, /* one-dimensional array of `elem` (f64, f32 or int) with a
               run-time length; a C pointer at function boundaries */
} TypeKind;

/* The C integer types (TY_INT), each with C's width, signedness and
 * arithmetic on this target. The IR's arithmetic never promotes: lowering
 * makes C's promotions and usual arithmetic conversions explicit casts. */
typedef enum IntKind {
  IK_INT,    /* int: also booleans, indices and lengths */
  IK_BOOL,   /* _Bool: 0 or 1; conversion to it tests against zero */
  IK_CHAR,   /* char (signed or not as the target says) */
  IK_SCHAR,  /* signed char */
  IK_UCHAR,  /* unsigned char */
  IK_SHORT,  /* short */
  IK_USHORT, /* unsigned short */
  IK_UINT,   /* unsigned int */
  IK_LONG,   /* long */
  IK_ULONG,  /* unsigned long (size_t on LP64) */
  IK_LLONG,  /* long long */
  IK_ULLONG, /* unsigned long long */
  IK_COUNT   /* number of integer kinds, not a kind */
} IntKind;

typedef struct Type Type;
struct Type {
  TypeKind kind;
  IntKind ikind;    /* TY_INT: which C integer type */
  int n;            /* TY_TUPLE: number of elements */
  Type **elems;     /* TY_TUPLE: element types */
  const char *name; /* TY_TUPLE: record name, NULL for a plain tuple */
  Type *dom, *cod;  /* TY_LIN: domain and codomain */
  Type *elem;       /* TY_ARRAY: element type */
  bool has_lin;     /* TY_TUPLE: some element is or holds a linear map (set
                       by the constructor: types are immutable, and the
                       checker asks this of every node) */
};

Type *ty_f64(void); /* shared, immutable scalar singletons */
Type *ty_f32(void);
Type *ty_int(void);
Type *ty_intk(IntKind k); /* the singleton of integer kind k */
/* Integer kinds' facts on this target: width in bits, signedness, the
 * textual IR name ("int", "ulong", ...) and the C type name. */
int intk_bits(IntKind k);
bool intk_signed(IntKind k);
const char *intk_ir_name(IntKind k);
const char *intk_c_name(IntKind k);
bool intk_from_ir_name(const char *name, IntKind *out);
/* v reduced to kind k as C converts an integer to it (wrap-around modulo
 * 2^bits; _Bool tests against zero). Unsigned 64-bit values are kept as
 * their bit pattern in a long long. */
long long intk_wrap(IntKind k, long long v);
Type *ty_unit(Arena *a);
Type *ty_tuple(Arena *a, int n, Type **elems);
Type *ty_record(Arena *a, const char *name, int n, Type **elems);
Type *ty_tuple2(Arena *a, Type *t0, Type *t1);
Type *ty_lin(Arena *a, Type *dom, Type *cod);
Type *ty_array(Arena *a, Type *elem);

bool type_eq(const Type *x, const Type *y);
bool type_is_float(const Type *t); /* f64 or f32 */
bool type_is_unit(const Type *t);
/* Does a value of this type carry derivative information? (f64, f32, or a
 * tuple containing one.) Inactive values have no tangent and no cotangent. */
bool type_is_active(const Type *t);
/* The tangent (= cotangent) type: scalars map to themselves, tuples
 * element-wise to the tuple of their *active* elements' tangents. Returns
 * NULL for an inactive type. */
Type *type_tangent(Arena *a, Type *t);

/* ---------------------------------------------------------- variables */

typedef struct Var Var;
struct Var {
  const char *name; /* as written; unique within a function after ANF */
  Type *type;       /* may be NULL before type checking */
  int id;           /* unique within a module; assigned by var_new */
};

Var *var_new(Arena *a, const char *name, Type *type);

/* -------------------------------------------------------- primitives */

typedef enum Prim {
  /* arithmetic on f64, f32 or int; both operands of one type */
  P_ADD, /* a + b */
  P_SUB, /* a - b */
  P_MUL, /* a * b */
  P_DIV, /* a / b (truncating on int; division by zero is the C program's) */
  P_NEG, /* -a */
  P_MOD, /* a % b, int only */
  /* comparisons: operands of one type, result int 0 or 1 */
  P_LT, /* a < b */
  P_LE, /* a <= b */
  P_GT, /* a > b */
  P_GE, /* a >= b */
  P_EQ, /* a == b */
  P_NE, /* a != b */
  /* logic on int (strict: lowering keeps C's short circuit with `if`) */
  P_AND, /* a && b */
  P_OR,  /* a || b */
  P_NOT, /* !a */
  /* bitwise operations on integers: C's operators on one integer type */
  P_BAND, /* a & b */
  P_BOR,  /* a | b */
  P_BXOR, /* a ^ b */
  P_BNOT, /* ~a */
  P_SHL,  /* a << b: result of a's type, b any integer type */
  P_SHR,  /* a >> b: arithmetic for signed a (as clang does), logical else */
  /* <math.h>, on f64 or f32 (the f-suffixed C function for f32) */
  P_SQRT,  /* sqrt(a) */
  P_EXP,   /* exp(a) */
  P_LOG,   /* log(a) */
  P_LOG1P, /* log1p(a) */
  P_EXPM1, /* expm1(a) */
  P_POW,   /* pow(a, b) */
  P_SIN,   /* sin(a) */
  P_COS,   /* cos(a) */
  P_TAN,   /* tan(a) */
  P_ASIN,  /* asin(a) */
  P_ACOS,  /* acos(a) */
  P_ATAN,  /* atan(a) */
  P_ATAN2, /* atan2(a, b) */
  P_SINH,  /* sinh(a) */
  P_COSH,  /* cosh(a) */
  P_TANH,  /* tanh(a) */
  P_FABS,  /* fabs(a) */
  P_FMIN,  /* fmin(a, b) */
  P_FMAX,  /* fmax(a, b) */
  P_HYPOT, /* hypot(a, b) */
  P_ERF,   /* erf(a) */
  P_CBRT,  /* cbrt(a) */
  P_FLOOR, /* floor(a): derivative zero almost everywhere */
  P_CEIL,  /* ceil(a) */
  P_ROUND, /* round(a) */
  P_LGAMMA,    /* lgamma(a): log |gamma(a)| */
  P_TGAMMA,    /* tgamma(a) */
  P_EXP2,      /* exp2(a) */
  P_LOG2,      /* log2(a) */
  P_LOG10,     /* log10(a) */
  P_FMA,       /* fma(a, b, c): a * b + c rounded once */
  P_FMOD,      /* fmod(a, b): a - n b, n = a/b truncated, exactly */
  P_REMAINDER, /* remainder(a, b): a - n b, n = a/b rounded to even */
  P_COPYSIGN,  /* copysign(a, b): |a| with the sign of b */
  P_FDIM,      /* fdim(a, b): a - b if a > b, else +0 */
  P_TRUNC,     /* trunc(a) */
  P_RINT,      /* rint(a), in the current rounding mode */
  P_NEARBYINT, /* nearbyint(a) */
  P_ERFC,      /* erfc(a): 1 - erf(a) without the cancellation */
  P_ASINH,     /* asinh(a) */
  P_ACOSH,     /* acosh(a) */
  P_ATANH,     /* atanh(a) */
  P_LDEXP,     /* ldexp(a, n), n int: a 2^n */
  P_SCALBN,    /* scalbn(a, n), n int: a 2^n (FLT_RADIX is 2) */
  P_POWI,      /* pow(a, n), n int converted to a's type: C's pow(x, 3) */
  P_DIGAMMA,   /* chad_digamma(a): d/da lgamma(a); only in derivatives,
                  C has none, so generated code carries its own */
  /* conversions, C semantics */
  P_TO_F64, /* (double)a from f32 or int */
  P_TO_F32, /* (float)a from f64 or int */
  P_TO_INT, /* (int)a from f64, f32 or any integer type, C semantics */
  P_TO_BOOL,   /* (_Bool)a: a != 0 */
  P_TO_CHAR,   /* (char)a */
  P_TO_SCHAR,  /* (signed char)a */
  P_TO_UCHAR,  /* (unsigned char)a */
  P_TO_SHORT,  /* (short)a */
  P_TO_USHORT, /* (unsigned short)a */
  P_TO_UINT,   /* (unsigned)a */
  P_TO_LONG,   /* (long)a */
  P_TO_ULONG,  /* (unsigned long)a */
  P_TO_LLONG,  /* (long long)a */
  P_TO_ULLONG, /* (unsigned long long)a */
  P_BITS_LLONG, /* the bits of the f64 a as a long long: how a fold-save
                   tape, an f64 array, gives back an integer leaf exactly
                   (it stores (long long)x's bits, see E_FOLDSAVE) */
  P_COUNT   /* number of primitives, not a primitive */
} Prim;

typedef enum PrimClass {
  PC_ARITH, /* operands and result share a numeric type */
  PC_CMP,   /* numeric operands of one type, int result */
  PC_LOGIC, /* int operands, int result */
  PC_MATH,  /* float operands and result of one float type */
  PC_MATH_INT, /* a float operand, then an int one (ldexp's exponent);
                  the result has the float operand's type */
  PC_CAST,  /* one numeric operand, result type fixed by the primitive */
  PC_BITS,  /* integer operands of one type and result of that type */
  PC_SHIFT, /* integer operands of any types, result of the first's type */
} PrimClass;

typedef struct PrimInfo {
  const char *name;   /* textual IR name, e.g. "add", "sqrt" */
  int arity;          /* 1, 2 or 3 (fma) */
  PrimClass cls;      /* typing rule */
  const char *c_name; /* C operator ("+") or <math.h> function ("sqrt") */
  bool infix;         /* c_name is an operator */
  bool helper;        /* c_name is chad's own function, emitted with the
                         code that calls it: only in derivatives */
} PrimInfo;

const PrimInfo *prim_info(Prim p);
/* The result type of a PC_CAST primitive, and the cast to a type. */
Type *prim_cast_type(Prim p);
Prim prim_cast_to(const Type *t);
bool prim_from_name(const char *name, Prim *out);

/* -------------------------------------------------------- expressions */

typedef enum ExprKind {
  E_CONST, /* literal; `type` is f64, f32 or int; value in fval or ival */
  E_VAR,   /* reference to `var` */
  E_LET,   /* let `var` = args[0] in `body` */
  E_PRIM,  /* primitive `op` applied to args[0..nargs) */
  E_CALL,  /* call of module function `name` with args (a custom one,
              Func.is_custom, is the user's C: g, g_fwd or g_rev) */
  E_TUPLE, /* tuple of args; with `name` set, a record of that name */
  E_GET,   /* field `index` (0-based) of the tuple args[0] */
  E_IF,    /* if args[0] (int, nonzero is true) then args[1] else args[2] */
  E_ZERO,  /* the structural zero of the tangent type `type` */
  E_PLUS,  /* tangent addition args[0] + args[1] (any tangent type) */
  /* linear maps: only between AD and elimination (ad/linmap.c) */
  E_LZERO,  /* 0 : `type`->dom -o `type`->cod (type given explicitly) */
  E_LONE,   /* 1 : T -o T (type given explicitly) */
  E_LSCALE, /* scale args[0] : T -o T, multiplication by a scalar */
  E_LCOMP,  /* args[0] . args[1]: apply args[1] first */
  E_LVCAT,  /* args[0] x ... x args[n-1] : S -o (T0, ..., Tn-1) */
  E_LHCAT,  /* args[0] |><| ... : (S0, ..., Sn-1) -o T, sums the parts */
  E_LPLUS,  /* args[0] (+) args[1], pointwise sum of maps */
  E_LTRANS, /* transpose of args[0] */
  E_LAPPLY, /* args[0] applied to the tangent args[1] */
  E_LCALL,  /* the derivative of callee `name` at the residual args[0]:
               cotangent of the result -o cotangents of the active args,
               realised by `name`$bwd (reverse mode only) */
  /* arrays and loops (DESIGN.md section 3); `var` is the loop index i */
  E_INDEX,    /* element args[1] (int) of array args[0] */
  E_LEN,      /* length of array args[0] (int) */
  E_BUILD,    /* array of length args[0] whose element i is `body`; a tuple
                 body gives a tuple of arrays (one loop, several outputs) */
  E_SUM,      /* sum over i < args[0] of `body` (a number or a tuple of
                 numbers, summed field-wise), added one by one, in order,
                 to args[1] when present (else to 0): exactly as C's
                 `s = s0; for (...) s += e` rounds */
  E_FOLD,     /* the state after args[0] steps from args[1], where a step
                 maps state `var2` at index `var` to `body` */
  E_FOLDSAVE, /* as E_FOLD, returning (final state, tape): the tape is an
                 f64 array holding the L scalar leaves of the state before
                 step i at [i*L .. i*L+L): floating leaves converted to f64
                 (exact for f32), integer leaves as the bits of their value
                 converted to long long (read back with bits_llong), so
                 that 64-bit integers come back exactly */
  E_WHILE,    /* C's while loop: with go = args[0] (int) and state =
                 args[1], steps k = 0, 1, ... while go != 0, where a step
                 maps state `var2` at index `var` to `body` = (tuple go'
                 state'); the final state. The trip count is known only
                 when the loop ends */
  E_WHILESAVE, /* as E_WHILE, returning (tuple final-state tape count): the
                 tape as E_FOLDSAVE's, grown while the loop runs, and the
                 number of steps it ran */
  E_SCATTER,  /* args[0] (an array, or a tuple of arrays) with, for each
                 i < args[1], the value part of `body` = (tuple idx v)
                 added at index idx: reduce-by-index */
  E_ACCUM,    /* effect: array args[0] at index args[1] += args[2]; unit.
                 Only in derivatives: cotangent buffers are the one
                 mutable thing. With `index` 1 it is `(store b i v)`,
                 b[i] = v: the reverse of an update in a loop drops the
                 cotangent of the element it overwrote (DESIGN 8.13) */
  E_ALLOC,    /* a fresh array of `type` with args[0] elements, all zero:
                 C's calloc (DESIGN 8.1, `(alloc n)`), and the cotangent
                 buffers of derivatives. Any numeric element type. Never
                 shared with another allocation: passes must not merge,
                 duplicate or hoist two of them into one */
  E_VIEW,     /* the array args[0] from element args[1] (an int, 0 <= it
                 <= len) on, as the same memory: C's `&a[k]`, `a + k`.
                 Its length is the rest of the array; reads through it read
                 a, and accumulations into a view of a cotangent buffer
                 add into the buffer (the emitter writes `a + k`) */
  E_TABLE,    /* a constant array (a C `const` table): `type` is (array T)
                 with T f64, f32 or an integer kind, and args are its
                 elements, E_CONST nodes of type T, in order (a C
                 two-dimensional table row-major). Immutable and
                 inactive: it has no tangent and no cotangent */
  E_UPDATE,   /* array args[0] with element args[1] (int) replaced by
                 args[2] (DESIGN 8.1). Consumes args[0]: the checker
                 rejects any reference to that array (under any name that
                 aliases it) after the update, so the emitter stores in
                 place (`a[i] = v`) and the result names the same memory.
                 The interpreter copies (it is the oracle). Passes must not
                 merge, duplicate or reorder it past a read of args[0] */
  /* The undo log of reverse mode (DESIGN 8.13): memory effects, in the
   * order of their bindings, only in derivatives. A function's log is a
   * stack of (element address, old value) entries and of marks; passes
   * never drop, merge, duplicate or move these terms. */
  E_LOGSAVE, /* effect: pushes element args[1] of array args[0] and its
                value, before an update overwrites it; unit */
  E_LOGPOP,  /* effect: pops the newest entry, writing the old value back
                into its element; unit */
  E_LOGMARK, /* effect: pushes mark args[0] (an int constant, unique to one
                loop of the function): one per iteration; unit */
  E_LOGUNDO, /* effect: pops entries, writing old values back, down to and
                including the newest mark args[0]; returns args[1] (an
                array or a tuple of arrays, now holding the values they
                had when the mark was pushed) */
  E_LOGPUSH, /* effect: pushes the value of args[0], a number or an array
                (its address: memory that outlives the reverse's read), a
                residual a loop step stores for its reverse (DESIGN 8.22);
                unit */
  E_LOGTAKE, /* effect: pops the newest pushed value and returns it, of
                type `type` (a number or an array); no args */
  E_LOGVIEW, /* effect: pops the newest args[0] (int) pushed values, all
                f64, and returns them as an (array f64), the oldest first,
                without a copy: the emitted C's array is the log's own
                words, which stay as they are until the next push, so
                only a reverse step that pushes nothing reads one
                (DESIGN 8.50) */
  E_LOGFINAL, /* effect: the end of f$rev's primal sweep, where the emitted
                 C records the values the saved elements of in-out
                 parameters hold (their final values, put back at the end
                 of f_rev, DESIGN 8.7); the log is unchanged; unit */
} ExprKind;

typedef struct Expr Expr;
struct Expr {
  ExprKind kind;
  Type *type; /* set by the builders when known, always by the checker */
  Loc loc;
  double fval;      /* E_CONST of float type */
  long long ival;   /* E_CONST of int type */
  Var *var;         /* E_VAR: referenced; E_LET: bound */
  Prim op;          /* E_PRIM */
  const char *name; /* E_CALL, E_LCALL: callee; E_TUPLE: record name */
  int index;        /* E_GET */
  Expr **args;
  int nargs;
  Expr *body; /* E_LET; the loop forms: the body of the loop */
  Var *var2;  /* E_FOLD, E_FOLDSAVE, E_WHILE, E_WHILESAVE: the state variable */
  /* E_PRIM add/sub: 1 or 2 when operand args[contract-1] was, in the C
   * source, a multiplication written in the same expression. C compilers
   * may contract such `a*b + c` into a fused multiply-add (-ffp-contract=on),
   * so the emitter writes it as one expression too: the derivative code
   * then rounds exactly as the primal does. 0 otherwise. */
  int contract;
  /* E_PRIM add, E_SUM: 1 when the additions sum cotangents across a
   * reverse loop's steps (the contributions to a scalar outside it),
   * an order nothing depends on. The emitter lets the C compiler
   * reassociate them, which vectorises such a reduction (DESIGN 8.49).
   * Never set on a primal value, whose rounding and branches must be f's.
   * Not printed: a hint to the emitter, not part of the meaning. 0
   * otherwise. */
  int free_order;
  /* E_ALLOC: 1 when the array holds cotangents (a buffer reverse mode
   * made), whose zeros' sign nothing depends on: the emitter may start it
   * at -0, which additions into it then drop (DESIGN 8.66). Never set on
   * an array of the primal. A hint like free_order. 0 otherwise. */
  int cotangents;
};

Expr *ex_f64(Arena *a, double v);
Expr *ex_f32(Arena *a, float v);
Expr *ex_int(Arena *a, long long v);
Expr *ex_const(Arena *a, Type *t, double v); /* any scalar type */
/* An integer constant of integer type t: v as C converts it to t. */
Expr *ex_const_int(Arena *a, Type *t, long long v);
Expr *ex_var(Arena *a, Var *v);
Expr *ex_let(Arena *a, Var *v, Expr *rhs, Expr *body);
Expr *ex_prim(Arena *a, Prim op, int nargs, Expr **args);
Expr *ex_prim1(Arena *a, Prim op, Expr *x);
Expr *ex_prim2(Arena *a, Prim op, Expr *x, Expr *y);
Expr *ex_call(Arena *a, const char *name, int nargs, Expr **args);
Expr *ex_tuple(Arena *a, int nargs, Expr **args);
Expr *ex_record(Arena *a, const char *name, int nargs, Expr **args);
Expr *ex_get(Arena *a, int index, Expr *tuple);
Expr *ex_if(Arena *a, Expr *c, Expr *t, Expr *e);
Expr *ex_zero(Arena *a, Type *tangent_type);
Expr *ex_plus(Arena *a, Expr *x, Expr *y);
Expr *ex_lin(Arena *a, ExprKind kind, int nargs, Expr **args);
Expr *ex_lin_typed(Arena *a, ExprKind kind, Type *lin_type); /* 0 and 1 */
Expr *ex_lcall(Arena *a, const char *callee, Expr *residual);
Expr *ex_index(Arena *a, Expr *array, Expr *i);
Expr *ex_len(Arena *a, Expr *array);
Expr *ex_view(Arena *a, Expr *array, Expr *offset);
Expr *ex_build(Arena *a, Expr *n, Var *i, Expr *body);
Expr *ex_sum(Arena *a, Expr *n, Var *i, Expr *body);
Expr *ex_sum_from(Arena *a, Expr *n, Expr *init, Var *i, Expr *body);
Expr *ex_fold(Arena *a, Expr *n, Expr *s0, Var *i, Var *s, Expr *body);
Expr *ex_foldsave(Arena *a, Expr *n, Expr *s0, Var *i, Var *s, Expr *body);
Expr *ex_while(Arena *a, Expr *go, Expr *s0, Var *i, Var *s, Expr *body);
Expr *ex_whilesave(Arena *a, Expr *go, Expr *s0, Var *i, Var *s, Expr *body);
/* The loops that carry a state (fold, fold-save, while, while-save). */
bool expr_binds_state(const Expr *e);
Expr *ex_scatter(Arena *a, Expr *base, Expr *n, Var *i, Expr *body);
Expr *ex_accum(Arena *a, Expr *buf, Expr *i, Expr *v);
Expr *ex_store(Arena *a, Expr *buf, Expr *i, Expr *v); /* E_ACCUM, index 1 */
Expr *ex_alloc(Arena *a, Type *array_type, Expr *n);
/* (update array i v): the array with element i replaced by v; consumes
 * `array` (see E_UPDATE). */
Expr *ex_update(Arena *a, Expr *array, Expr *i, Expr *v);
/* The undo log's terms (E_LOGSAVE ... E_LOGUNDO). */
Expr *ex_logsave(Arena *a, Expr *array, Expr *i);
Expr *ex_logpop(Arena *a);
Expr *ex_logmark(Arena *a, int mark);
Expr *ex_logundo(Arena *a, int mark, Expr *arrays);
Expr *ex_logpush(Arena *a, Expr *value);
Expr *ex_logtake(Arena *a, Type *scalar);
Expr *ex_logview(Arena *a, Expr *n);
Expr *ex_logfinal(Arena *a);
/* Is this one of the undo log's terms? */
bool expr_is_log(const Expr *e);
/* A constant table of n elements of scalar type `elem`; values[i] are
 * E_CONST nodes of that type (the array of pointers is copied). */
Expr *ex_table(Arena *a, Type *elem, int n, Expr **values);
/* Is this a loop form (build, sum, fold, fold-save, scatter)? */
bool expr_is_loop(const Expr *e);
/* A node of the same kind and fields with a fresh args array. */
Expr *ex_clone_shallow(Arena *a, const Expr *e);

/* ----------------------------------------------------------- modules */

/* How a parameter of the C primal is passed; decides the contract of
 * DESIGN.md section 1 for f_fwd and f_rev. */
typedef enum ParamClass {
  PARAM_ACTIVE_SCALAR, /* double / float: tangent dx, adjoint double *x_b */
  PARAM_INACTIVE,      /* int and friends, and any scalar or input array
                          the user marks CHAD_INACTIVE: no shadow, and no
                          derivative is computed for it */
  PARAM_IN_ARRAY,      /* const double *a (also const T a[N]): an input
                          array; active when its elements are floating */
  PARAM_OUT_ARRAY,     /* double *y: an output array that f writes; the IR
                          parameter holds nothing f may read, and f's IR
                          result carries its final contents (see Func) */
  PARAM_INOUT_ARRAY,   /* double *p that f reads before overwriting it
                          (DESIGN 1 and 8.7): the IR parameter holds its
                          initial contents, which f may read and update,
                          and f's IR result carries its final contents,
                          as for an output array */
} ParamClass;

typedef struct Func Func;
struct Func {
  const char *name;
  Var **params;
  int nparams;
  Type *ret; /* result type */
  Expr *body;
  Loc loc;
  bool is_static;    /* C linkage of the primal; the derivatives copy it */
  bool is_generated; /* made by AD (f$fwd, ...), not by the user */
  /* Set by AD: f$aug and f$bwd run again work a caller's loop could
   * store (what f$rev stores on its undo log, 8.22, or the steps of a sum
   * that calls a math function), so callers inline a small f called in
   * a loop instead of calling its halves (8.55). */
  bool halves_recompute;
  /* Declared CHAD_CUSTOM: a function chad cannot see, whose derivatives
   * the user writes by hand to the contract of DESIGN.md section 1. It has
   * no body (NULL). Its companions g$fwd and g$rev (ad/custom.c) are
   * body-less too and stand for the user's C functions g_fwd and g_rev:
   * callers' derivatives call them, nothing ever defines them here. */
  bool is_custom;
  /* Parameter classes, or NULL when every parameter is a scalar (then the
   * class follows from its type). With k > 0 output arrays the IR result is
   * (tuple R Y1 ... Yk): R the C return value (unit for void) and Yj the
   * final contents of the j-th output array, in parameter order. */
  ParamClass *classes;
  /* Per parameter, the length C of its rows when C declares it `T (*)[C]`
   * (`T A[][C]`, `T A[R][C]`), else 0; NULL when no parameter has rows.
   * The IR sees such a parameter as one flat array, row-major as C lays it
   * out; only the C signatures of f, f_fwd and f_rev keep the rows. */
  long long *rows;
};

ParamClass func_param_class(const Func *f, int i);
/* Number of PARAM_OUT_ARRAY and PARAM_INOUT_ARRAY params: the arrays the
 * result carries after R. */
int func_num_outputs(const Func *f);
/* Is parameter i's final contents part of the result (out or in-out)? */
bool func_param_written(const Func *f, int i);
/* Does parameter i have a shadow (tangent, adjoint or seed)? */
bool func_param_active(const Func *f, int i);
/* The row length of parameter i (Func.rows), 0 for a flat one. */
long long func_param_rows(const Func *f, int i);

typedef struct Module {
  Arena *arena;
  PtrVec funcs;  /* of Func* */
  void *by_name; /* name -> newest Func*, a private index of module_find */
} Module;

Module *module_new(void);
void module_free(Module *m);
Func *module_add(Module *m, const char *name, int nparams, Var **params,
                 Type *ret, Expr *body);
Func *module_find(const Module *m, const char *name);
/* Forgets the functions added after the first n (a failed parse). */
void module_truncate(Module *m, int n);

/* ---------------------------------------------------- printer, parser */

/* Textual form (s-expressions, see ir/print.c for the grammar). */
void print_type(FILE *out, const Type *t);
/* `indent` is the column the cursor is at (nothing is printed before e);
 * lines after the first are indented relative to it. */
void print_expr(FILE *out, const Expr *e, int indent);
void print_func(FILE *out, const Func *f);
void print_module(FILE *out, const Module *m);
char *func_to_string(const Func *f); /* malloc'd; caller frees */
char *expr_to_string(const Expr *e); /* malloc'd; caller frees */
char *type_to_string(const Type *t); /* malloc'd; caller frees */
/* Formats a number as the printer does (e.g. "1.0", "1.5f", "-inf", "3"),
 * the shortest text that parses back to the same value bit for bit (NaN
 * payloads excepted). Returns the length; `buf` needs 32 bytes. */
int format_const(char *buf, size_t size, const Type *t, double f, long long i);

/* Parses functions from `text` into `m` (which may already hold functions
 * they call). On error returns false with a located message in `err`.
 * `file` names the text in locations (may be NULL). */
bool parse_module(Module *m, const char *text, const char *file, Diag *err);

/* ------------------------------------------------------ type checker */

typedef enum CheckMode {
  CHECK_SOURCE, /* no linear maps, no structural zeros or tangent plus */
  CHECK_AD,     /* linear maps allowed (between AD and elimination) */
  CHECK_FINAL,  /* after elimination: any linear-map-typed value is an error */
} CheckMode;

/* Infers and sets `type` on every node of f's body; checks scoping. */
bool check_func(Module *m, Func *f, CheckMode mode, Diag *err);
bool check_module(Module *m, CheckMode mode, Diag *err);

/* ------------------------------------------------------- interpreter */

typedef enum ValueKind {
  V_F64, /* f */
  V_F32, /* f, rounded to float at every operation */
  V_INT, /* i */
  V_TUPLE, /* elems[0..n) */
  V_ARRAY, /* elems[0..n), shared by reference: copies of the Value see
              the same elements, so E_ACCUM's additions and E_UPDATE's
              stores are visible; i is 1 when the interpreter made the
              array (an update may store into it) and 0 for a parameter's
              or a view's (an update copies it first, as C does) */
} ValueKind;

typedef struct Value Value;
struct Value {
  ValueKind kind;
  double f;
  long long i;
  int n;
  Value *elems;
};

/* Runs function `fname` of `m` on `args` (one per parameter). Result is
 * allocated in `a`. Returns false with a message on a run-time error
 * (unknown function, linear map reached, ...). */
bool interp_call(Module *m, Arena *a, const char *fname, int nargs,
                 const Value *args, Value *result, Diag *err);

Value val_f64(double f);
Value val_f32(float f);
Value val_int(long long i);
Value val_tuple(Arena *a, int n, const Value *elems);
Value val_array(Arena *a, int n, const Value *elems); /* copies elems */
bool val_eq(const Value *x, const Value *y); /* same kinds, bit-equal numbers */
void print_value(FILE *out, const Value *v); /* e.g. (tuple 1.0 2.5f 3) */

#endif
