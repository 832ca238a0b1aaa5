/* deriv.c: the table of partial derivatives of the smooth primitives.
 * Requires atoms as operands (the partials mention them several times);
 * guarantees partials built only from those atoms, constants of the
 * operands' float type, and primitives of that type (with the int operand
 * of ldexp, scalbn and powi, and int comparisons with 0 on it). */
#include "ad/deriv.h"

typedef struct Pd {
  Arena *a;
  Type *t; /* f64 or f32 */
} Pd;

static Expr *k(Pd *p, double v) { return ex_const(p->a, p->t, v); }
static Expr *add(Pd *p, Expr *x, Expr *y) { return ex_prim2(p->a, P_ADD, x, y); }
static Expr *sub(Pd *p, Expr *x, Expr *y) { return ex_prim2(p->a, P_SUB, x, y); }
static Expr *mul(Pd *p, Expr *x, Expr *y) { return ex_prim2(p->a, P_MUL, x, y); }
static Expr *dvd(Pd *p, Expr *x, Expr *y) { return ex_prim2(p->a, P_DIV, x, y); }
static Expr *neg(Pd *p, Expr *x) { return ex_prim1(p->a, P_NEG, x); }
static Expr *call1(Pd *p, Prim op, Expr *x) { return ex_prim1(p->a, op, x); }
static Expr *sq(Pd *p, Expr *x) { return mul(p, x, x); }

/* 1/x. The partials of a/b and sqrt divide only through it, so that CSE
 * leaves one division per divisor (a division costs as much as several
 * multiplications, and BA's reverse sweep had four for two quotients by
 * one number) and merges it with a 1/x the primal computes, such as
 * Rodrigues' 1/theta (DESIGN 8.65). Not for hypot and atan2: their
 * divisors reach 2^-1024 for operands near 1e-160, where 1/x overflows
 * while a/x is finite. */
static Expr *recip(Pd *p, Expr *x) { return dvd(p, k(p, 1), x); }

/* 1 if cond holds else 0, in the float type: selects a branch's partial. */
static Expr *indicator(Pd *p, Expr *cond) {
  return ex_prim1(p->a, p->t->kind == TY_F32 ? P_TO_F32 : P_TO_F64, cond);
}

bool deriv_is_smooth(Prim op, Type *result_type) {
  const PrimInfo *pi = prim_info(op);
  if (!type_is_float(result_type))
    return false;
  return pi->cls == PC_ARITH || pi->cls == PC_MATH || pi->cls == PC_MATH_INT;
}

/* n, the int operand of powi, converted to the float type. */
static Expr *to_float(Pd *p, Expr *n) {
  return ex_prim1(p->a, p->t->kind == TY_F32 ? P_TO_F32 : P_TO_F64, n);
}

/* The quotient n of fmod and remainder, a = n b + x exactly: (a - x) / b
 * is within rounding of the integer n, which rounding recovers. a/b itself
 * is not enough: fmod(1, 0.1) takes 9 b's, and 1/0.1 rounds to 10. */
static Expr *quotient(Pd *p, Expr *a, Expr *b, Expr *x) {
  return call1(p, P_ROUND, dvd(p, sub(p, a, x), b));
}

/* Partial derivatives of x = op(a, b, c) with respect to a (out[0]), b
 * (out[1]) and c (out[2]). NULL means the partial is structurally zero; the
 * constant 1 is returned as NULL in one[i] = true so the map becomes `1`,
 * not `scale 1`. */
static void partials(Pd *p, Prim op, Expr **args, Expr *x, Expr *out[3],
                     bool one[3], bool minus_one[3]) {
  Expr *a = args[0], *b = args[1];
  for (int i = 0; i < 3; i++) {
    out[i] = NULL;
    one[i] = minus_one[i] = false;
  }
  switch (op) {
  case P_ADD: one[0] = one[1] = true; break;
  case P_SUB: one[0] = true; minus_one[1] = true; break;
  case P_NEG: minus_one[0] = true; break;
  case P_MUL: out[0] = b; out[1] = a; break;
  case P_DIV: /* d(a/b) = da/b - (a/b) db/b, both through one 1/b */
    out[0] = recip(p, b);
    out[1] = neg(p, mul(p, x, recip(p, b)));
    break;
  case P_SQRT: out[0] = mul(p, k(p, 0.5), recip(p, x)); break; /* 0.5/x exactly */
  case P_EXP: out[0] = x; break;
  case P_LOG: out[0] = dvd(p, k(p, 1), a); break;
  case P_LOG1P: out[0] = dvd(p, k(p, 1), add(p, k(p, 1), a)); break;
  case P_EXPM1: out[0] = add(p, x, k(p, 1)); break;
  case P_POW: { /* b a^(b-1), and a^b log a. Where b = 0, the first is
                   0 a^0 = 0, not 0 a^-1 (NaN at a = 0); where a^b = 0,
                   the second is 0 log(a + 1) = 0, not 0 log 0 (NaN): the
                   true values, and a NaN partial would spoil a tangent
                   whose other part is zero. */
    Expr *nonzero = indicator(p, ex_prim2(p->a, P_NE, b, k(p, 0)));
    out[0] = mul(p, b, ex_prim2(p->a, P_POW, a, sub(p, b, nonzero)));
    Expr *vanishes = indicator(p, ex_prim2(p->a, P_EQ, x, k(p, 0)));
    out[1] = mul(p, x, call1(p, P_LOG, add(p, a, vanishes)));
    break;
  }
  case P_SIN: out[0] = call1(p, P_COS, a); break;
  case P_COS: out[0] = neg(p, call1(p, P_SIN, a)); break;
  case P_TAN: out[0] = add(p, k(p, 1), sq(p, x)); break;
  case P_ASIN: out[0] = dvd(p, k(p, 1), call1(p, P_SQRT, sub(p, k(p, 1), sq(p, a)))); break;
  case P_ACOS: out[0] = neg(p, dvd(p, k(p, 1), call1(p, P_SQRT, sub(p, k(p, 1), sq(p, a))))); break;
  case P_ATAN: out[0] = dvd(p, k(p, 1), add(p, k(p, 1), sq(p, a))); break;
  case P_ATAN2: { /* atan2(a, b): (b, -a) / (a^2 + b^2) */
    Expr *r2 = add(p, sq(p, a), sq(p, b));
    out[0] = dvd(p, b, r2);
    out[1] = dvd(p, neg(p, a), r2);
    break;
  }
  case P_SINH: out[0] = call1(p, P_COSH, a); break;
  case P_COSH: out[0] = call1(p, P_SINH, a); break;
  case P_TANH: out[0] = sub(p, k(p, 1), sq(p, x)); break;
  case P_FABS: /* sign(a), 0 at 0 */
    out[0] = sub(p, indicator(p, ex_prim2(p->a, P_GT, a, k(p, 0))),
                 indicator(p, ex_prim2(p->a, P_LT, a, k(p, 0))));
    break;
  case P_FMIN:
  case P_FMAX: { /* the operand that was selected gets the whole derivative;
                    fmin(a, NaN) = a selects a, fmin(NaN, b) = b selects b */
    Expr *picked_a = indicator(p, ex_prim2(p->a, P_EQ, x, a));
    out[0] = picked_a;
    out[1] = sub(p, k(p, 1), picked_a);
    break;
  }
  case P_HYPOT: out[0] = dvd(p, a, x); out[1] = dvd(p, b, x); break;
  case P_ERF: /* 2/sqrt(pi) exp(-a^2) */
    out[0] = mul(p, k(p, 1.1283791670955126), call1(p, P_EXP, neg(p, sq(p, a))));
    break;
  case P_CBRT: out[0] = dvd(p, k(p, 1), mul(p, k(p, 3), sq(p, x))); break;
  case P_FLOOR:
  case P_CEIL:
  case P_ROUND:
  case P_TRUNC:
  case P_RINT:
  case P_NEARBYINT:
    break; /* piecewise constant: derivative zero almost everywhere */
  case P_LGAMMA: out[0] = call1(p, P_DIGAMMA, a); break;
  case P_TGAMMA: out[0] = mul(p, x, call1(p, P_DIGAMMA, a)); break;
  case P_EXP2: out[0] = mul(p, x, k(p, 0.69314718055994531)); break; /* ln 2 */
  case P_LOG2: out[0] = dvd(p, k(p, 1.4426950408889634), a); break; /* 1/ln 2 */
  case P_LOG10: out[0] = dvd(p, k(p, 0.43429448190325183), a); break; /* 1/ln 10 */
  case P_FMA: out[0] = b; out[1] = a; one[2] = true; break;
  case P_FMOD:
  case P_REMAINDER: /* a - n b with n locally constant */
    one[0] = true;
    out[1] = neg(p, quotient(p, a, b, x));
    break;
  case P_COPYSIGN: /* |a| sign(b): 1 where a and b have the same sign */
    out[0] = mul(p, ex_prim2(p->a, P_COPYSIGN, k(p, 1), a),
                 ex_prim2(p->a, P_COPYSIGN, k(p, 1), b));
    break;
  case P_FDIM: { /* a - b where a > b, else the constant 0 */
    Expr *above = indicator(p, ex_prim2(p->a, P_GT, a, b));
    out[0] = above;
    out[1] = neg(p, above);
    break;
  }
  case P_ERFC: /* -2/sqrt(pi) exp(-a^2) */
    out[0] = mul(p, k(p, -1.1283791670955126), call1(p, P_EXP, neg(p, sq(p, a))));
    break;
  case P_ASINH: /* 1/sqrt(a^2 + 1); hypot does not overflow for large a */
    out[0] = dvd(p, k(p, 1), ex_prim2(p->a, P_HYPOT, a, k(p, 1)));
    break;
  case P_ACOSH: /* 1/sqrt((a - 1)(a + 1)), accurate near 1 */
    out[0] = dvd(p, k(p, 1), call1(p, P_SQRT, mul(p, sub(p, a, k(p, 1)), add(p, a, k(p, 1)))));
    break;
  case P_ATANH: /* 1/((1 - a)(1 + a)), accurate near -1 and 1 */
    out[0] = dvd(p, k(p, 1), mul(p, sub(p, k(p, 1), a), add(p, k(p, 1), a)));
    break;
  case P_LDEXP:
  case P_SCALBN: /* a 2^n: the partial 2^n is exact; n is an int */
    out[0] = ex_prim2(p->a, op, k(p, 1), b);
    break;
  case P_POWI: { /* n a^(n-1); for n = 0, 0 a^0 = 0 rather than 0 a^-1,
                    which is NaN at a = 0. The exponent is computed in the
                    float type: n - 1 overflows int at INT_MIN. */
    Expr *n = to_float(p, b);
    Expr *nonzero = indicator(p, ex_prim2(p->a, P_NE, b, ex_int(p->a, 0)));
    out[0] = mul(p, n, ex_prim2(p->a, P_POW, a, sub(p, n, nonzero)));
    break;
  }
  default:
    break;
  }
}

Expr *deriv_jacobian(Arena *a, Prim op, Expr **args, Expr *x,
                     const bool *active) {
  Pd p = {a, x->type};
  int arity = prim_info(op)->arity;
  Expr *ks[3], *ops[3];
  for (int i = 0; i < 3; i++) /* absent operands: NULL, never read */
    ops[i] = i < arity ? args[i] : NULL;
  bool one[3], minus_one[3];
  partials(&p, op, ops, x, ks, one, minus_one);
  Expr *parts[3];
  Type *dom[3];
  int n = 0;
  for (int i = 0; i < arity; i++) {
    if (!active[i])
      continue;
    Type *lt = ty_lin(a, p.t, p.t);
    Expr *m;
    if (one[i])
      m = ex_lin_typed(a, E_LONE, lt);
    else if (minus_one[i])
      m = ex_lin(a, E_LSCALE, 1, (Expr *[]){k(&p, -1)});
    else if (ks[i])
      m = ex_lin(a, E_LSCALE, 1, &ks[i]);
    else
      m = ex_lin_typed(a, E_LZERO, lt);
    m->type = lt;
    dom[n] = p.t;
    parts[n++] = m;
  }
  Expr *j = ex_lin(a, E_LHCAT, n, parts);
  j->type = ty_lin(a, ty_tuple(a, n, dom), p.t);
  return j;
}
