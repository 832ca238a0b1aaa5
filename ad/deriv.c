/* deriv.c: the table of partial derivatives of the smooth primitives.
 * Requires atoms as operands (the partials mention them several times);
 * guarantees partials built only from those atoms, constants of the
 * operands' float type, and primitives of that type. */
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

/* 1 if cond holds else 0, in the float type: selects a branch's partial. */
static Expr *indicator(Pd *p, Expr *cond) {
  return ex_prim1(p->a, p->t->kind == TY_F32 ? P_TO_F32 : P_TO_F64, cond);
}

bool deriv_is_smooth(Prim op, Type *result_type) {
  const PrimInfo *pi = prim_info(op);
  if (!type_is_float(result_type))
    return false;
  return pi->cls == PC_ARITH || pi->cls == PC_MATH;
}

/* Partial derivatives of x = op(a, b) with respect to a (out[0]) and b
 * (out[1]). NULL means the partial is structurally zero; the constant 1 is
 * returned as NULL in one[i] = true so the map becomes `1`, not `scale 1`. */
static void partials(Pd *p, Prim op, Expr **args, Expr *x, Expr *out[2],
                     bool one[2], bool minus_one[2]) {
  Expr *a = args[0], *b = args[1];
  out[0] = out[1] = NULL;
  one[0] = one[1] = minus_one[0] = minus_one[1] = false;
  switch (op) {
  case P_ADD: one[0] = one[1] = true; break;
  case P_SUB: one[0] = true; minus_one[1] = true; break;
  case P_NEG: minus_one[0] = true; break;
  case P_MUL: out[0] = b; out[1] = a; break;
  case P_DIV: /* d(a/b) = da/b - (a/b) db/b */
    out[0] = dvd(p, k(p, 1), b);
    out[1] = neg(p, dvd(p, x, b));
    break;
  case P_SQRT: out[0] = dvd(p, k(p, 0.5), x); break;
  case P_EXP: out[0] = x; break;
  case P_LOG: out[0] = dvd(p, k(p, 1), a); break;
  case P_LOG1P: out[0] = dvd(p, k(p, 1), add(p, k(p, 1), a)); break;
  case P_EXPM1: out[0] = add(p, x, k(p, 1)); break;
  case P_POW: /* b a^(b-1), and a^b log a */
    out[0] = mul(p, b, ex_prim2(p->a, P_POW, a, sub(p, b, k(p, 1))));
    out[1] = mul(p, x, call1(p, P_LOG, a));
    break;
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
    break; /* piecewise constant: derivative zero almost everywhere */
  default:
    break;
  }
}

Expr *deriv_jacobian(Arena *a, Prim op, Expr **args, Expr *x,
                     const bool *active) {
  Pd p = {a, x->type};
  Expr *ks[2];
  bool one[2], minus_one[2];
  partials(&p, op, args, x, ks, one, minus_one);
  int arity = prim_info(op)->arity;
  Expr *parts[2];
  Type *dom[2];
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
