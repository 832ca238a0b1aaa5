// lower_loops.cpp: `for` loops to the IR loop forms (DESIGN.md section 3).
//
// A loop `for (int i = lo; i CMP hi; i += c)` (c a nonzero constant, hi
// loop-invariant, the counter not written by the body) runs n times, n
// computed in IR int arithmetic; iteration k (the IR index, 0 <= k < n) has
// i = lo + k*c; an existing counter variable ends at lo + n*c. The body is
// scanned for what it does to places declared outside it, and each effect
// becomes one IR loop over the body (bodies are pure, so lowering the body
// once per IR loop, each keeping only what it needs, is correct):
//  * sum: scalars only accumulated (s += e, s -= e, s = s + e, ++) and not
//    otherwise read: s := (sum-from n s (k) body), which adds each
//    increment to the running value in order, exactly as C rounds, when
//    each iteration adds at most one increment, computed in the
//    accumulator's own type; accumulation in a rectangular nest becomes one
//    sum over the flattened nest (same order). Int sums are always exact.
//  * fold: every other scalar assigned (the state), in a tuple; places the
//    loop does not carry (assigned before read) and nobody reads after it
//    are dropped from the state;
//  * build: an array written at the counter (y[i] = e, step +-1), or in a
//    two-level nest at y[i*m + j]; the body yields the element (the slot);
//  * scatter: an accumulation y[e] += v at any index, one IR loop per such
//    write, flattened through the nested loops it sits in.
// A build, scatter or sum must not depend on a value the loop carries (a
// fold state): such state is poison in their bodies (see lowerer.h); a sum
// that depends on it joins the fold, a build or scatter is an error.
#include <algorithm>

#include "lowering/lowerer.h"

#include "clang/AST/ParentMapContext.h"

namespace chad {
namespace lowering_detail {

static bool isCounterRef(const CExpr *e, const VarDecl *counter) {
  if (const auto *d = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()))
    return d->getDecl() == counter;
  return false;
}

// Is e the counter, or the counter plus or minus a constant (`i + 1`,
// `1 + i`, `i - 2`)? `offset` is what is added.
// Is e an affine expression of the counter, `a*i + c` (a a positive
// constant: `i`, `i + 1`, `2*i`, `i*2 - 1`, `c + a*i`)? Then scale = a
// and offset = c.
static bool counterSide(const CExpr *e, const VarDecl *counter,
                        clang::ASTContext &ctx, long long &offset, long long &scale) {
  offset = 0;
  scale = 1;
  CExpr::EvalResult r;
  auto constant = [&](const CExpr *c, long long &v) {
    if (c->isValueDependent() || !c->EvaluateAsInt(r, ctx) || r.HasSideEffects ||
        r.Val.getInt().getMinSignedBits() > 32)
      return false;
    v = r.Val.getInt().getSExtValue();
    return true;
  };
  // the counter, or a positive constant times it
  auto scaled = [&](const CExpr *x) {
    if (isCounterRef(x, counter))
      return true;
    const auto *m = dyn_cast<BinaryOperator>(x->IgnoreParenImpCasts());
    long long v;
    if (!m || m->getOpcode() != clang::BO_Mul)
      return false;
    if ((isCounterRef(m->getRHS(), counter) && constant(m->getLHS(), v)) ||
        (isCounterRef(m->getLHS(), counter) && constant(m->getRHS(), v))) {
      if (v <= 0)
        return false;
      scale = v;
      return true;
    }
    return false;
  };
  if (scaled(e))
    return true;
  const auto *b = dyn_cast<BinaryOperator>(e->IgnoreParenImpCasts());
  if (!b || !b->isAdditiveOp())
    return false;
  long long v;
  if (scaled(b->getLHS()) && constant(b->getRHS(), v)) {
    offset = b->getOpcode() == clang::BO_Add ? v : -v;
    return true;
  }
  scale = 1;
  if (b->getOpcode() == clang::BO_Add && scaled(b->getRHS()) && constant(b->getLHS(), v)) {
    offset = v;
    return true;
  }
  scale = 1;
  return false;
}

static clang::BinaryOperatorKind reversed(clang::BinaryOperatorKind k) {
  switch (k) {
  case clang::BO_LT: return clang::BO_GT;
  case clang::BO_GT: return clang::BO_LT;
  case clang::BO_LE: return clang::BO_GE;
  case clang::BO_NE: return clang::BO_NE;
  default: return clang::BO_LE;
  }
}

static bool refersTo(const Stmt *s, const VarDecl *v) {
  if (!s)
    return false;
  if (const auto *d = dyn_cast<DeclRefExpr>(s))
    if (d->getDecl() == v)
      return true;
  for (const Stmt *c : s->children())
    if (refersTo(c, v))
      return true;
  return false;
}

// `i += s` with s an integer expression not naming the counter: a step
// known at run time (checked loop-invariant where the loop is lowered).
static bool runtimeStep(const CExpr *e, const VarDecl *counter) {
  return e->getType()->isIntegerType() && !e->getType()->isBooleanType() &&
         !refersTo(e, counter);
}

// ------------------------------------------------------ int arithmetic

// Integer arithmetic in the operands' kind (both of one kind; int when
// untyped), folding constants as C computes them in that kind.
static Type *kindOf(const Expr *a) {
  return a->type && a->type->kind == TY_INT ? a->type : ty_int();
}

// Folding x op y in kind t gives C's value: always for + - *, which wrap;
// for / % and comparisons only when the signed and unsigned readings of
// the stored bit patterns agree.
static bool foldable(const Type *t, long long x, long long y) {
  return intk_signed(t->ikind) || (x >= 0 && y >= 0);
}

Expr *Lowerer::kInt(Type *t, long long v, SourceLocation loc) {
  return at(ex_const_int(arena, t, v), loc);
}

Expr *Lowerer::iAdd(Expr *a, Expr *b, SourceLocation loc) {
  long long x, y;
  Type *t = kindOf(a);
  if (intConst(a, x) && intConst(b, y))
    return kInt(t, (long long)((unsigned long long)x + (unsigned long long)y), loc);
  if (isIntConst(b, 0))
    return a;
  if (isIntConst(a, 0))
    return b;
  if (intConst(b, y) && y < 0 && y != LLONG_MIN)
    return at(ex_prim2(arena, P_SUB, a, kInt(t, -y, loc)), loc);
  return at(ex_prim2(arena, P_ADD, a, b), loc);
}

Expr *Lowerer::iSub(Expr *a, Expr *b, SourceLocation loc) {
  long long x, y;
  if (intConst(a, x) && intConst(b, y))
    return kInt(kindOf(a), (long long)((unsigned long long)x - (unsigned long long)y), loc);
  if (isIntConst(b, 0))
    return a;
  return at(ex_prim2(arena, P_SUB, a, b), loc);
}

Expr *Lowerer::iMul(Expr *a, Expr *b, SourceLocation loc) {
  long long x, y;
  if (intConst(a, x) && intConst(b, y))
    return kInt(kindOf(a), (long long)((unsigned long long)x * (unsigned long long)y), loc);
  if (isIntConst(b, 1))
    return a;
  if (isIntConst(a, 1))
    return b;
  return at(ex_prim2(arena, P_MUL, a, b), loc);
}

Expr *Lowerer::iDiv(Expr *a, Expr *b, SourceLocation loc) {
  long long x, y;
  Type *t = kindOf(a);
  if (intConst(a, x) && intConst(b, y) && y > 0 && foldable(t, x, y))
    return kInt(t, x / y, loc);
  if (isIntConst(b, 1))
    return a;
  return at(ex_prim2(arena, P_DIV, a, b), loc);
}

Expr *Lowerer::iMod(Expr *a, Expr *b, SourceLocation loc) {
  long long x, y;
  Type *t = kindOf(a);
  if (intConst(a, x) && intConst(b, y) && y > 0 && foldable(t, x, y))
    return kInt(t, x % y, loc);
  if (isIntConst(b, 1))
    return kInt(t, 0, loc);
  return at(ex_prim2(arena, P_MOD, a, b), loc);
}

Expr *Lowerer::iCmp(Prim p, Expr *a, Expr *b, SourceLocation loc) {
  long long x, y;
  if (intConst(a, x) && intConst(b, y) && foldable(kindOf(a), x, y)) {
    bool r = p == P_LT ? x < y : p == P_LE ? x <= y : p == P_GT ? x > y
                                                                : x >= y;
    return mkInt(r, loc);
  }
  return at(ex_prim2(arena, p, a, b), loc);
}

// x as a value of integer type t (C's conversion), or x when it has it.
Expr *Lowerer::toKind(Expr *x, Type *t, SourceLocation loc) {
  if (x->type && type_eq(x->type, t))
    return x;
  long long v;
  if (intConst(x, v) && x->type && x->type->kind == TY_INT && t->kind == TY_INT)
    return kInt(t, v, loc);
  return mkPrim1(prim_cast_to(t), x, loc);
}

// The counter's value at iteration k (an int): lo + k * step, in the
// counter's own type as C computes it.
Expr *Lowerer::counterAt(const Bounds &b, Expr *k, SourceLocation loc) {
  Type *t = kindOf(b.lo);
  Expr *step = b.stepExpr ? dup(arena, b.stepExpr) : kInt(t, b.step, loc);
  return iAdd(dup(arena, b.lo), iMul(toKind(k, t, loc), step, loc), loc);
}

// max(a, b) = if a > b then a else b; `a` and `b` are copied.
Expr *Lowerer::iMax(Expr *a, Expr *b, SourceLocation loc) {
  long long x, y;
  if (intConst(a, x) && intConst(b, y) && foldable(kindOf(a), x, y))
    return kInt(kindOf(a), std::max(x, y), loc);
  if (exprEq(a, b))
    return a;
  return mkIf(iCmp(P_GT, a, b, loc), dup(arena, a), dup(arena, b), loc);
}

static bool simpleExpr(const Expr *e) {
  if (e->kind == E_CONST || e->kind == E_VAR)
    return true;
  if (e->kind != E_PRIM)
    return false;
  for (int i = 0; i < e->nargs; i++)
    if (e->args[i]->kind != E_CONST && e->args[i]->kind != E_VAR)
      return false;
  return true;
}

// `e` itself when it is cheap to repeat (and to compare structurally),
// else a variable bound to it in `pre`.
Expr *Lowerer::simpleOrBound(Expr *e, const char *name,
                             std::vector<Binding> &pre, SourceLocation loc) {
  if (simpleExpr(e))
    return e;
  Var *v = var_new(arena, name, e->type ? e->type : ty_int());
  pre.push_back({v, e, loc});
  return mkVar(v, loc);
}

bool Lowerer::isZeroVar(const Expr *e) {
  while (e->kind == E_PRIM &&
         (e->op == P_TO_F64 || e->op == P_TO_F32 || e->op == P_TO_INT))
    e = e->args[0];
  return e->kind == E_VAR && zeroVars.count(e->var);
}

Var *Lowerer::makePoison(Type *t, const char *name, Poison p,
                         std::vector<Binding> &bindings, SourceLocation loc) {
  Var *v = var_new(arena, name, t);
  bindings.push_back({v, mkConst(t, 0, loc), loc});
  poisons[v] = std::move(p);
  return v;
}

// Fails when a poison variable (of `only`, or any) is live in `body`.
void Lowerer::checkPoison(const Expr *body, const std::set<const Var *> *only,
                          int select) {
  Liveness live;
  liveness(body, live, select);
  for (const std::set<const Var *> *vs : {&live.liveLets, &live.free})
    for (const Var *v : *vs) {
      auto p = poisons.find(v);
      if (p == poisons.end() || (only && !only->count(v)))
        continue;
      SourceLocation loc = p->second.loc;
      auto use = live.firstUse.find(v);
      if (use != live.firstUse.end()) {
        SourceLocation l = locs.toClang(use->second->loc);
        if (l.isValid())
          loc = l;
      }
      fail(loc, p->second.flowMsg);
    }
}

// ---------------------------------------------------------------- header

// The operands of a chain of `&&`, left to right.
static void conjuncts(const CExpr *e, std::vector<const CExpr *> &out) {
  const auto *b = dyn_cast<BinaryOperator>(e->IgnoreParens());
  if (b && b->getOpcode() == clang::BO_LAnd) {
    conjuncts(b->getLHS(), out);
    conjuncts(b->getRHS(), out);
    return;
  }
  out.push_back(e);
}

// Does the for's condition join parts with `&&`?
static bool isConjunctive(const ForStmt *f) {
  const auto *b = f->getCond() ? dyn_cast<BinaryOperator>(f->getCond()->IgnoreParens()) : nullptr;
  return b && b->getOpcode() == clang::BO_LAnd;
}

// `i < n && i < m && ok`: the first comparison that tests the counter (or,
// with no counter yet, a local variable) bounds the loop; h.alsoWhile gets
// the others. C stops at the first false conjunct; here the bound's is
// tested first (the trip count) and the others at the top of each
// iteration, so they are evaluated only where C evaluates them too or
// where C would have stopped at the bound anyway (which reads nothing), and
// must have no side effects (calls of differentiable functions, which
// have none chad lets through, may stay).
const CExpr *Lowerer::boundConjunct(const CExpr *cond, LoopHeader &h) {
  std::vector<const CExpr *> parts;
  conjuncts(cond, parts);
  if (parts.size() == 1)
    return cond;
  auto tests = [&](const CExpr *side) {
    const auto *d = dyn_cast<DeclRefExpr>(side->IgnoreParenImpCasts());
    const auto *v = d ? dyn_cast<VarDecl>(d->getDecl()) : nullptr;
    if (!h.counter)
      return v && v->hasLocalStorage() && v->getType()->isIntegerType();
    long long offset, scale;
    return counterSide(side, h.counter, ctx, offset, scale);
  };
  const CExpr *bound = nullptr;
  for (const CExpr *p : parts) {
    const auto *b = dyn_cast<BinaryOperator>(p->IgnoreParens());
    if (!bound && b && (b->isRelationalOp() || b->getOpcode() == clang::BO_NE) &&
        (tests(b->getLHS()) || tests(b->getRHS()))) {
      bound = p;
      continue;
    }
    if (p->HasSideEffects(ctx, /*IncludePossibleEffects=*/false)) // calls may stay
      fail(p->getExprLoc(), "loop condition '" + text(cond) + "': its part '" + text(p) +
                                "' has side effects; not supported");
    h.alsoWhile.push_back(p);
  }
  if (!bound)
    fail(cond->getExprLoc(), "loop condition '" + text(cond) +
                                 "' is not supported; one of its '&&' parts must compare "
                                 "the counter with '<', '<=', '>', '>=' or '!='");
  return bound;
}

LoopHeader Lowerer::parseHeader(const ForStmt *s, const Env *env) {
  LoopHeader h;
  h.stmt = s;
  h.body = s->getBody();
  h.kw = s->getForLoc();
  SourceLocation loc = s->getForLoc();
  const Stmt *init = s->getInit();
  if (const auto *ds = dyn_cast_or_null<clang::DeclStmt>(init)) {
    const auto *v =
        ds->isSingleDecl() ? dyn_cast<VarDecl>(ds->getSingleDecl()) : nullptr;
    if (!v)
      fail(ds->getBeginLoc(), "loop initialisation '" + text(ds) +
                                  "' is not supported; declare one counter "
                                  "('int i = 0')");
    if (!v->getInit())
      fail(v->getLocation(), "loop counter '" + v->getNameAsString() +
                                 "' has no initial value");
    h.counter = v;
    h.declaredInInit = true;
    h.lo = v->getInit();
  } else if (init) {
    const auto *b = dyn_cast<BinaryOperator>(init);
    const auto *d = b && b->getOpcode() == clang::BO_Assign
                        ? dyn_cast<DeclRefExpr>(b->getLHS()->IgnoreParens())
                        : nullptr;
    const auto *v = d ? dyn_cast<VarDecl>(d->getDecl()) : nullptr;
    if (!v || !v->hasLocalStorage())
      fail(init->getBeginLoc(),
           "loop initialisation '" + text(init) +
               "' is not supported; declare or assign the counter "
               "('int i = 0' or 'i = 0')");
    h.counter = v;
    h.lo = b->getRHS();
  }
  const CExpr *cond = s->getCond();
  if (!cond)
    fail(loc, "loop without a condition is not supported");
  cond = boundConjunct(cond, h);
  const auto *b = dyn_cast<BinaryOperator>(cond->IgnoreParens());
  if (!b || !(b->isRelationalOp() || b->getOpcode() == clang::BO_NE))
    fail(cond->getExprLoc(),
         "loop condition '" + text(cond) +
             "' is not supported; compare the counter with '<', '<=', '>', "
             "'>=' or '!='");
  const CExpr *l = b->getLHS()->IgnoreParenImpCasts();
  const CExpr *r = b->getRHS()->IgnoreParenImpCasts();
  if (!h.counter) { // for (; i < n; i++): the counter from the condition
    for (const CExpr *side : {l, r})
      if (const auto *d = dyn_cast<DeclRefExpr>(side))
        if (const auto *v = dyn_cast<VarDecl>(d->getDecl());
            v && v->hasLocalStorage() && !h.counter)
          h.counter = v;
    if (!h.counter)
      fail(cond->getExprLoc(), "loop condition '" + text(cond) +
                                   "' does not test a counter variable");
  }
  long long offset, scale;
  if (counterSide(b->getLHS(), h.counter, ctx, offset, scale)) {
    h.hi = b->getRHS();
    h.cmp = b->getOpcode();
    h.offset = offset;
    h.scale = scale;
  } else if (counterSide(b->getRHS(), h.counter, ctx, offset, scale)) {
    h.hi = b->getLHS();
    h.cmp = reversed(b->getOpcode());
    h.offset = offset;
    h.scale = scale;
  } else {
    fail(cond->getExprLoc(), "loop condition '" + text(cond) +
                                 "' does not test the counter '" +
                                 h.counter->getNameAsString() + "'");
  }
  QualType ct = h.counter->getType();
  if (!ct->isIntegerType() || ct->isBooleanType() || !irScalarType(ct))
    fail(h.counter->getLocation(),
         "loop counter '" + h.counter->getNameAsString() + "' has type '" +
             ct.getUnqualifiedType().getAsString() +
             "'; only integer counters are supported");
  // C compares in the operands' common type, integer or floating
  if (!irScalarType(b->getLHS()->getType()) ||
      !b->getLHS()->getType()->isRealType())
    fail(h.hi->getExprLoc(),
         "loop bound '" + text(h.hi) + "' is not an arithmetic expression");
  if (env && !h.declaredInInit && !env->vars.count({h.counter, kWhole}))
    fail(cond->getExprLoc(), "unsupported loop counter '" +
                                 h.counter->getNameAsString() + "'");

  const CExpr *inc = s->getInc();
  if (!inc)
    fail(loc, "loop without a step ('i++', 'i += 2', ...) is not supported");
  inc = inc->IgnoreParens();
  bool ok = false;
  auto constant = [&](const CExpr *e, long long &v) {
    return constIndex(e, v);
  };
  if (const auto *u = dyn_cast<UnaryOperator>(inc);
      u && u->isIncrementDecrementOp() &&
      isCounterRef(u->getSubExpr(), h.counter)) {
    h.step = u->isIncrementOp() ? 1 : -1;
    ok = true;
  } else if (const auto *c = dyn_cast<clang::CompoundAssignOperator>(inc);
             c && isCounterRef(c->getLHS(), h.counter) &&
             (c->getOpcode() == clang::BO_AddAssign ||
              c->getOpcode() == clang::BO_SubAssign)) {
    long long v;
    int sign = c->getOpcode() == clang::BO_AddAssign ? 1 : -1;
    if (constant(c->getRHS(), v)) {
      h.step = sign * v;
      ok = true;
    } else if (runtimeStep(c->getRHS(), h.counter)) {
      h.step = sign;
      h.stepExpr = c->getRHS();
      ok = true;
    }
  } else if (const auto *a = dyn_cast<BinaryOperator>(inc);
             a && a->getOpcode() == clang::BO_Assign &&
             isCounterRef(a->getLHS(), h.counter)) {
    const auto *rhs = dyn_cast<BinaryOperator>(a->getRHS()->IgnoreParenImpCasts());
    long long v;
    if (rhs && rhs->isAdditiveOp()) {
      int sign = rhs->getOpcode() == clang::BO_Add ? 1 : -1;
      if (isCounterRef(rhs->getLHS(), h.counter) &&
          constant(rhs->getRHS(), v)) {
        h.step = sign * v;
        ok = true;
      } else if (rhs->getOpcode() == clang::BO_Add &&
                 isCounterRef(rhs->getRHS(), h.counter) &&
                 constant(rhs->getLHS(), v)) {
        h.step = v;
        ok = true;
      } else if (isCounterRef(rhs->getLHS(), h.counter) &&
                 runtimeStep(rhs->getRHS(), h.counter)) {
        h.step = sign;
        h.stepExpr = rhs->getRHS();
        ok = true;
      } else if (rhs->getOpcode() == clang::BO_Add &&
                 isCounterRef(rhs->getRHS(), h.counter) &&
                 runtimeStep(rhs->getLHS(), h.counter)) {
        h.step = 1;
        h.stepExpr = rhs->getLHS();
        ok = true;
      }
    }
  }
  if (!ok)
    fail(inc->getExprLoc(),
         "loop step '" + text(inc) +
             "' is not supported; add a constant or a loop-invariant integer to the "
             "counter ('i++', 'i += 2', 'i += n', 'i--')");
  if (h.step == 0)
    fail(inc->getExprLoc(), "loop step '" + text(inc) + "' is zero");
  // `i != n` stepping by one ends where `i < n` (or `i > n`) does; a loop
  // that starts beyond n never ends in C, and runs no iteration here.
  if (h.cmp == clang::BO_NE) {
    if ((h.step != 1 && h.step != -1) || h.stepExpr || h.scale != 1)
      fail(cond->getExprLoc(), "loop condition '" + text(cond) +
                                   "' with a step other than 1 or -1, or a multiple of the counter, is not "
                                   "supported; compare with '<' or '>'");
    h.cmp = h.step > 0 ? clang::BO_LT : clang::BO_GT;
  }
  bool up = h.cmp == clang::BO_LT || h.cmp == clang::BO_LE;
  if (up != (h.step > 0))
    fail(cond->getExprLoc(), "loop condition '" + text(cond) +
                                 "' does not agree with the step '" +
                                 text(inc) +
                                 "': the loop would never end or never run");
  return h;
}

// The trip count is computed in the type C compares in (the common type of
// counter and bound, which may be unsigned or floating: `j <= p` with a
// double p), then converted to the IR's int; the counter's values are
// computed in its own type (counterAt).
// The bound on i equivalent to `a*i CMP H` (a > 0): for floating H, H/a;
// for integers, i < ceil(H/a) for `<` and `>=`, i <= floor(H/a) for `<=`
// and `>` (C's division truncates: the rounding is written out by sign).
Expr *Lowerer::scaledBound(Expr *H, Type *t, long long a, clang::BinaryOperatorKind cmp,
                           std::vector<Binding> &pre, SourceLocation loc) {
  if (type_is_float(t))
    return mkPrim2(P_DIV, H, mkConst(t, (double)a, loc), loc);
  Expr *h = simpleOrBound(H, "hi_scaled", pre, loc);
  auto d = [&](Expr *e) { return dup(arena, e); };
  Expr *k = kInt(t, a, loc);
  Expr *zero = kInt(t, 0, loc);
  Expr *trunc = iDiv(d(h), d(k), loc);
  bool ceil = cmp == clang::BO_LT || cmp == clang::BO_GE;
  if (!intk_signed(t->ikind)) // H >= 0: truncation is floor
    return ceil ? iDiv(iAdd(d(h), kInt(t, a - 1, loc), loc), d(k), loc) : trunc;
  if (ceil) // H > 0 ? (H + a - 1) / a : H / a
    return mkIf(iCmp(P_GT, d(h), d(zero), loc),
                iDiv(iAdd(d(h), kInt(t, a - 1, loc), loc), d(k), loc), trunc, loc);
  // H >= 0 ? H / a : -((-H + a - 1) / a)
  return mkIf(iCmp(P_GE, d(h), d(zero), loc), trunc,
              iSub(d(zero), iDiv(iAdd(iSub(d(zero), d(h), loc), kInt(t, a - 1, loc), loc),
                                 d(k), loc), loc),
              loc);
}

Bounds Lowerer::lowerBounds(const LoopHeader &h, const Env &env,
                            std::vector<Binding> &pre) {
  SourceLocation loc = h.kw;
  Bounds b;
  b.step = h.step;
  Expr *lo = h.lo ? lowerExpr(h.lo, env)
                  : readPlace({h.counter, kWhole}, loc, env);
  if (!lo->type || lo->type->kind != TY_INT)
    fail(h.lo ? h.lo->getExprLoc() : loc, "loop start is not an integer");
  Type *counterType = irScalarType(h.counter->getType());
  lo = simpleOrBound(toKind(lo, counterType, loc), "lo", pre, loc);
  Expr *stepSize = nullptr; // |step| at run time, in the counter's type
  if (h.stepExpr) {
    Expr *st = lowerExpr(h.stepExpr, env);
    if (!st->type || st->type->kind != TY_INT)
      fail(h.stepExpr->getExprLoc(), "loop step '" + text(h.stepExpr) + "' is not an integer");
    stepSize = simpleOrBound(toKind(st, counterType, loc), "step", pre, loc);
    b.stepExpr = h.step > 0 ? stepSize
                            : simpleOrBound(iSub(kInt(counterType, 0, loc),
                                                 dup(arena, stepSize), loc),
                                            "step", pre, loc);
  }
  Expr *hi = lowerExpr(h.hi, env);
  Type *cmpType = hi->type;
  long long lo0;
  if (h.offset < 0 && !type_is_float(cmpType) && !intk_signed(cmpType->ikind) &&
      !(intConst(lo, lo0) && lo0 * h.scale + h.offset >= 0))
    // unsigned `2*i - 1 < n` wraps around at i = 0: not `2*i < n + 1`
    fail(h.hi->getExprLoc(), "loop condition subtracts from the counter in unsigned "
                             "arithmetic, which may wrap around below zero; not supported "
                             "(compare 'i < n + 1' instead)");
  if (h.offset) // i + c < n: i < n - c
    hi = type_is_float(cmpType)
             ? mkPrim2(P_SUB, hi, mkConst(cmpType, (double)h.offset, loc), loc)
             : iSub(hi, kInt(cmpType, h.offset, loc), loc);
  if (h.scale != 1) // a*i CMP H: i CMP' H/a, rounded to keep the same integers
    hi = scaledBound(hi, cmpType, h.scale, h.cmp, pre, loc);
  hi = simpleOrBound(hi, "hi", pre, loc);
  b.hi = hi;
  Expr *loC = lo;
  if (!type_eq(cmpType, counterType))
    loC = simpleOrBound(convert(dup(arena, lo), h.counter->getType(), h.hi->getType(), loc),
                        "lo_cmp", pre, loc);
  auto d = [&](Expr *e) { return dup(arena, e); };
  long long c = h.step > 0 ? h.step : -h.step;
  // the step's size in the comparison's type; a run-time step is taken to
  // be positive in the loop's direction, as a loop that ends has it
  Expr *size = stepSize ? (type_eq(cmpType, counterType)
                               ? d(stepSize)
                               : mkPrim1(prim_cast_to(cmpType), d(stepSize), loc))
                        : type_is_float(cmpType) ? mkConst(cmpType, (double)c, loc)
                                                 : kInt(cmpType, c, loc);
  Expr *from = h.step > 0 ? loC : hi, *to = h.step > 0 ? hi : loC;
  bool strict = h.cmp == clang::BO_LT || h.cmp == clang::BO_GT;
  if (type_is_float(cmpType))
    b.tripExpr = floatTrip(d(from), d(to), size, strict, loc);
  else {
    // n = to > from ? (to - from + c - 1) / c : 0          (< and >)
    // n = to >= from ? (to - from) / c + 1 : 0              (<= and >=)
    Expr *test = iCmp(strict ? P_GT : P_GE, d(to), d(from), loc);
    Expr *cMinus1 = stepSize ? iSub(d(size), kInt(cmpType, 1, loc), loc)
                             : kInt(cmpType, c - 1, loc);
    Expr *n = strict ? iDiv(iAdd(iSub(d(to), d(from), loc), cMinus1, loc), d(size), loc)
                     : iAdd(iDiv(iSub(d(to), d(from), loc), d(size), loc),
                            kInt(cmpType, 1, loc), loc);
    long long t;
    if (intConst(test, t))
      b.tripExpr = t ? n : kInt(cmpType, 0, loc);
    else
      b.tripExpr = mkIf(test, n, kInt(cmpType, 0, loc), loc);
    long long tc;
    if (intConst(b.tripExpr, tc) && tc < 0 && intk_signed(cmpType->ikind))
      b.tripExpr = kInt(cmpType, 0, loc);
    b.tripExpr = toKind(b.tripExpr, ty_int(), loc);
  }
  b.lo = lo;
  if (b.tripExpr->kind == E_CONST || b.tripExpr->kind == E_VAR) {
    b.trip = b.tripExpr;
  } else {
    Var *v = var_new(arena, ("n_" + h.counter->getNameAsString()).c_str(),
                     ty_int());
    pre.push_back({v, d(b.tripExpr), loc});
    b.trip = mkVar(v, loc);
  }
  if (h.step > 0)
    b.imin = lo;
  else if (type_eq(cmpType, counterType) && !h.stepExpr)
    b.imin = strict ? iAdd(d(hi), kInt(counterType, 1, loc), loc) : hi;
  else // the smallest value, lo + (n-1)*step, in the counter's type
    b.imin = counterAt(b, iSub(d(b.trip), mkInt(1, loc), loc), loc);
  return b;
}

// The trip count of a loop whose comparison is floating (`j <= p`): the
// counter's values are exact in the comparison's type while they stay
// below 2^53, so n = ceil((to - from) / c) for < and floor(...) + 1 for <=,
// when to > from (>=).
Expr *Lowerer::floatTrip(Expr *from, Expr *to, Expr *c, bool strict,
                         SourceLocation loc) {
  Type *t = from->type;
  Expr *span = mkPrim2(P_DIV, mkPrim2(P_SUB, to, from, loc), c, loc);
  Expr *n = strict ? mkPrim1(P_CEIL, span, loc)
                   : mkPrim2(P_ADD, mkPrim1(P_FLOOR, span, loc), mkConst(t, 1, loc), loc);
  Expr *test = mkPrim2(strict ? P_GT : P_GE, dup(arena, to), dup(arena, from), loc);
  return mkIf(test, mkPrim1(P_TO_INT, n, loc), mkInt(0, loc), loc);
}

// ------------------------------------------------------------------ scan

LoopScan Lowerer::scanLoop(const LoopHeader &h, const Env &env) {
  LoopScan sc;
  std::vector<const ForStmt *> path;
  if (!h.stmt) // a while or do loop: what its body and condition write
    sc.inWhile++;
  scanStmt(h.body, path, h, env, sc);
  scanStmt(h.whileCond, path, h, env, sc);
  return sc;
}

static void recordWrite(LoopScan &sc, const Place &p, bool accumulate,
                        bool exactType, const CExpr *write,
                        const std::vector<const ForStmt *> &path) {
  auto [it, fresh] = sc.writes.try_emplace(p);
  if (fresh) {
    sc.order.push_back(p);
    it->second.first = write;
  }
  if (!accumulate)
    it->second.accumulateOnly = false;
  if (!exactType)
    it->second.exactType = false;
  it->second.sites.push_back(write);
  it->second.paths.push_back(path);
}

// Is the increment of an accumulating write computed in the type of the
// place it adds to (so that a sum of increments rounds as C does)?
static bool incrementInOwnType(const clang::ASTContext &ctx,
                               const CExpr *write, const CExpr *lhs) {
  QualType t = lhs->getType();
  if (const auto *c = dyn_cast<clang::CompoundAssignOperator>(write))
    return ctx.hasSameUnqualifiedType(c->getComputationResultType(), t) &&
           ctx.hasSameUnqualifiedType(c->getComputationLHSType(), t) &&
           ctx.hasSameUnqualifiedType(c->getRHS()->getType(), t);
  if (const auto *a = dyn_cast<BinaryOperator>(write)) {
    const auto *b = dyn_cast<BinaryOperator>(a->getRHS()->IgnoreParens());
    return b && ctx.hasSameUnqualifiedType(b->getType(), t) &&
           ctx.hasSameUnqualifiedType(b->getLHS()->getType(), t) &&
           ctx.hasSameUnqualifiedType(b->getRHS()->getType(), t);
  }
  return true; // ++ and -- add 1 in the type itself
}

void Lowerer::scanWrite(const CExpr *write, const CExpr *lhs, const CExpr *rhs,
                        bool accumulate, std::vector<const ForStmt *> &path,
                        const LoopHeader &h, const Env &env, LoopScan &sc) {
  lhs = lhs->IgnoreParens();
  // In `p = p + e` the read of p is part of the accumulation.
  const CExpr *rest = rhs;
  bool plain = false;
  if (rhs && isa<BinaryOperator>(write) &&
      cast<BinaryOperator>(write)->getOpcode() == clang::BO_Assign) {
    plain = true;
    if (const auto *b = dyn_cast<BinaryOperator>(rhs->IgnoreParenImpCasts());
        b && b->isAdditiveOp()) {
      if (sameLvalue(b->getLHS(), lhs)) {
        accumulate = true;
        rest = b->getRHS();
      } else if (b->getOpcode() == clang::BO_Add &&
                 sameLvalue(b->getRHS(), lhs)) {
        accumulate = true;
        rest = b->getLHS();
      }
    }
    if (accumulate)
      plain = false;
  }
  // The value of `(s += e)` inside an expression is s's running value,
  // which an accumulation does not have: such a place is carried state.
  if (nestedInExpression(write))
    accumulate = false;
  // A while runs its body a number of times known only when it stops: what
  // it writes is carried state, never a sum over a trip count.
  if (sc.inWhile)
    accumulate = false;
  if (const auto *d = dyn_cast<DeclRefExpr>(lhs)) {
    if (const auto *v = dyn_cast<VarDecl>(d->getDecl())) {
      if (v == h.counter)
        fail(lhs->getExprLoc(), "the loop body modifies its counter '" +
                                    v->getNameAsString() + "'");
      if (env.vars.count({v, kWhole})) {
        recordWrite(sc, {v, kWhole}, accumulate,
                    incrementInOwnType(ctx, write, lhs), write, path);
        sc.written.insert(v);
      }
    }
  } else if (const auto *sub = dyn_cast<ArraySubscriptExpr>(lhs)) {
    scanStmt(sub->getIdx(), path, h, env, sc);
    if (const VarDecl *a = arrayBase(sub, false)) {
      scanStmt(rowIndex(sub, a), path, h, env, sc);
      Place p{a, kWhole};
      long long c;
      bool constant = constElement(sub, a, c);
      if (arrays.at(a).scalarReplaced && constant) {
        if (env.arrays.count(a)) {
          recordWrite(sc, {a, (int)c}, accumulate,
                      incrementInOwnType(ctx, write, lhs), write, path);
          sc.written.insert(a);
        }
      } else if (ownerOf(a)) {
        if (resolveWrite(sub, a, write, p) == Res::Slot) {
          recordWrite(sc, p, accumulate, incrementInOwnType(ctx, write, lhs),
                      write, path);
          sc.written.insert(a);
        }
      } else if (env.arrays.count(a)) {
        Site site;
        // The cheap forms recognise one-dimensional patterns (y[i], y[i*m
        // + j], y[idx[i]]) over a known trip count: R[i][j], or a write in
        // a while loop, is an update.
        site.inWhile = sc.inWhile > 0;
        site.twoDim = rowIndex(sub, a) != nullptr;
        site.array = a;
        site.write = write;
        site.sub = sub;
        site.path = path;
        site.accumulate = accumulate;
        site.plain = plain;
        if (!sc.sites.count(a))
          sc.siteOrder.push_back(a);
        sc.sites[a].push_back(site);
        sc.written.insert(a);
      }
    }
  } else {
    scanStmt(lhs, path, h, env, sc);
  }
  if (rest)
    scanStmt(rest, path, h, env, sc);
}

void Lowerer::scanStmt(const Stmt *s, std::vector<const ForStmt *> &path,
                       const LoopHeader &h, const Env &env, LoopScan &sc) {
  if (!s)
    return;
  if (const auto *f = dyn_cast<ForStmt>(s); f && isConjunctive(f)) {
    // it breaks when a conjunct fails: what it writes is carried, as in a
    // while, and it is never flattened into the loop around it
    sc.inWhile++;
    for (const Stmt *c : s->children())
      scanStmt(c, path, h, env, sc);
    sc.inWhile--;
    return;
  }
  if (const auto *f = dyn_cast<ForStmt>(s)) {
    path.push_back(f);
    for (const Stmt *part : {f->getInit(), (const Stmt *)f->getCond(),
                             (const Stmt *)f->getInc(), f->getBody()})
      scanStmt(part, path, h, env, sc);
    path.pop_back();
    return;
  }
  if (isa<clang::WhileStmt>(s) || isa<clang::DoStmt>(s)) {
    sc.inWhile++;
    for (const Stmt *c : s->children())
      scanStmt(c, path, h, env, sc);
    sc.inWhile--;
    return;
  }
  if (const auto *d = dyn_cast<clang::DeclStmt>(s)) {
    for (const clang::Decl *x : d->decls())
      if (const auto *v = dyn_cast<VarDecl>(x)) {
        sc.declared.insert(v);
        if (v->getInit())
          scanStmt(v->getInit(), path, h, env, sc);
      }
    return;
  }
  if (const auto *c = dyn_cast<clang::CompoundAssignOperator>(s)) {
    bool acc = c->getOpcode() == clang::BO_AddAssign ||
               c->getOpcode() == clang::BO_SubAssign;
    scanWrite(c, c->getLHS(), c->getRHS(), acc, path, h, env, sc);
    return;
  }
  if (const auto *b = dyn_cast<BinaryOperator>(s);
      b && b->getOpcode() == clang::BO_Assign) {
    scanWrite(b, b->getLHS(), b->getRHS(), false, path, h, env, sc);
    return;
  }
  if (const auto *u = dyn_cast<UnaryOperator>(s);
      u && u->isIncrementDecrementOp()) {
    scanWrite(u, u->getSubExpr(), nullptr, true, path, h, env, sc);
    return;
  }
  if (const auto *call = dyn_cast<CallExpr>(s)) {
    scanMemoryCall(call, env); // memset, memcpy, free of an outer array
    if (effectCallIn(call)) {
      // an output at a view is a site, not a read: scan only its offset
      std::set<const CExpr *> outputs;
      scanCallOutputs(call, path, env, sc);
      for (auto &[d, sites] : sc.sites)
        for (const Site &site : sites)
          if (site.call == call)
            outputs.insert(site.write);
      for (const CExpr *a : call->arguments()) {
        if (!outputs.count(a)) {
          scanStmt(a, path, h, env, sc);
          continue;
        }
        std::vector<const CExpr *> parts;
        viewOffset(a, parts);
        for (const CExpr *e : parts)
          scanStmt(e, path, h, env, sc);
      }
      return;
    }
  }
  if (const auto *sub = dyn_cast<ArraySubscriptExpr>(s)) {
    scanStmt(sub->getIdx(), path, h, env, sc);
    const VarDecl *a = arrayBase(sub, false);
    if (!a) {
      scanStmt(sub->getBase(), path, h, env, sc);
      return;
    }
    scanStmt(rowIndex(sub, a), path, h, env, sc);
    long long c;
    if (arrays.at(a).scalarReplaced && constElement(sub, a, c)) {
      if (env.arrays.count(a))
        sc.otherReads.insert({a, (int)c});
    } else if (LoopCtx *o = ownerOf(a)) {
      if (o->arrays.at(a) == Site::Slot &&
          isCounterRef(sub->getIdx(), o->h.counter))
        sc.otherReads.insert({a, kSlot});
    } else if (env.arrays.count(a)) {
      sc.reads.push_back({a, sub, sub, path});
    }
    return;
  }
  if (const auto *r = dyn_cast<DeclRefExpr>(s)) {
    if (const auto *v = dyn_cast<VarDecl>(r->getDecl())) {
      if (env.vars.count({v, kWhole}))
        sc.otherReads.insert({v, kWhole});
      if (arrays.count(v) && env.arrays.count(v))
        sc.reads.push_back({v, nullptr, r, path});
    }
    return;
  }
  for (const Stmt *c : s->children())
    scanStmt(c, path, h, env, sc);
}

// Is `e` the same value in every iteration of the loop `h`?
bool Lowerer::invariantIn(const CExpr *e, const LoopScan &scan,
                          const LoopHeader &h) {
  bool ok = true;
  std::function<void(const Stmt *)> walk = [&](const Stmt *s) {
    if (!s || !ok)
      return;
    if (const auto *d = dyn_cast<DeclRefExpr>(s))
      if (const auto *v = dyn_cast<VarDecl>(d->getDecl()))
        if (v == h.counter || scan.written.count(v) || scan.declared.count(v))
          ok = false;
    for (const Stmt *c : s->children())
      walk(c);
  };
  walk(e);
  return ok;
}

// An inner loop's start, bound and step are the same at every iteration
// of the loop h (a rectangular nest).
bool Lowerer::headerInvariantIn(const LoopHeader &inner, const LoopScan &scan,
                                const LoopHeader &h) {
  return inner.lo && invariantIn(inner.lo, scan, h) && invariantIn(inner.hi, scan, h) &&
         (!inner.stepExpr || invariantIn(inner.stepExpr, scan, h));
}

void Lowerer::requireInvariant(const CExpr *e, const LoopScan &scan,
                               const LoopHeader &h, SourceLocation at,
                               const std::string &what) {
  if (!invariantIn(e, scan, h))
    fail(at, what);
}

// idx is i*m + j (in any order), i the outer counter, j the inner one and
// m the inner bound.
bool Lowerer::isFlatPattern(const CExpr *idx, const LoopHeader &outer,
                            const LoopHeader &inner) {
  const auto *add = dyn_cast<BinaryOperator>(idx->IgnoreParenImpCasts());
  if (!add || add->getOpcode() != clang::BO_Add)
    return false;
  for (int side = 0; side < 2; side++) {
    const CExpr *j = side ? add->getLHS() : add->getRHS();
    const CExpr *im = side ? add->getRHS() : add->getLHS();
    if (!isCounterRef(j, inner.counter))
      continue;
    const auto *mul = dyn_cast<BinaryOperator>(im->IgnoreParenImpCasts());
    if (!mul || mul->getOpcode() != clang::BO_Mul)
      continue;
    if (isCounterRef(mul->getLHS(), outer.counter) &&
        sameAst(mul->getRHS(), inner.hi))
      return true;
    if (isCounterRef(mul->getRHS(), outer.counter) &&
        sameAst(mul->getLHS(), inner.hi))
      return true;
  }
  return false;
}

// Each array the loop writes gets the cheapest form that computes it:
// build (Slot, FlatSlot) or scatter when its writes and reads match their
// patterns, else Update: the array is carried whole in the loop's state
// and every write is an update (DESIGN 8.16). A loop with one Update array
// carries all its effects in one fold: every array it writes is Update
// (a build or scatter beside the fold could not read the state), and
// lowerFor makes every scalar it writes state.
void Lowerer::classifyArrays(LoopCtx &lc, LoopScan &sc, const Env &env) {
  const LoopHeader &h = lc.h;
  bool anyUpdate = false;
  std::map<const VarDecl *, Site::Kind> kinds;
  for (const VarDecl *d : sc.siteOrder) {
    std::vector<Site> &sites = sc.sites[d];
    std::vector<const ArrayRead *> reads;
    for (const ArrayRead &r : sc.reads)
      if (r.array == d)
        reads.push_back(&r);
    if (classifyStrided(lc, d, sites, reads.size())) {
      kinds[d] = Site::Strided;
      continue;
    }
    bool step1 = (h.step == 1 || h.step == -1) && !h.stepExpr;
    bool allCounter = step1, anyNested = false, allAcc = true;
    // an in-out parameter has no length to build with, a value carried
    // whole by an enclosing loop must stay in place, a while or a loop
    // that breaks has no trip count for a build
    bool forced = arrays.at(d).role == ArrayRole::InOut || carriedInPlace(d) ||
                  !h.stmt || lc.hasBreak;
    for (const Site &s : sites) {
      allCounter = allCounter && s.sub && isCounterRef(s.sub->getIdx(), h.counter);
      anyNested = anyNested || !s.path.empty();
      allAcc = allAcc && s.accumulate;
      forced = forced || s.inWhile || s.twoDim || s.wholeCall;
    }
    Site::Kind kind = Site::Update;
    if (forced) {
      kind = Site::Update;
    } else if (allCounter && allAcc && !anyNested && reads.empty()) {
      kind = Site::Scatter;
    } else if (allCounter) {
      kind = Site::Slot;
      for (const ArrayRead *r : reads)
        if (!r->sub || !isCounterRef(r->sub->getIdx(), h.counter))
          kind = Site::Update; // reads what another iteration wrote
    } else {
      // y[i*m + j] written in one inner loop, both loops from 0 by 1
      bool flat = false;
      long long lo;
      const ForStmt *inner =
          sites[0].path.size() == 1 ? sites[0].path[0] : nullptr;
      if (inner && h.lo && constIndex(h.lo, lo) && lo == 0 && h.step == 1 && !h.stepExpr) {
        try {
          LoopHeader ih = parseHeader(inner, nullptr);
          long long ilo;
          flat = ih.lo && constIndex(ih.lo, ilo) && ilo == 0 &&
                 ih.step == 1 && !ih.stepExpr && ih.cmp == clang::BO_LT && ih.offset == 0 && ih.scale == 1 &&
                 invariantIn(ih.hi, sc, h);
          for (const Site &s : sites)
            flat = flat && s.path.size() == 1 && s.path[0] == inner &&
                   isFlatPattern(s.sub->getIdx(), h, ih);
          for (const ArrayRead *r : reads)
            flat = flat && r->sub && r->path.size() == 1 &&
                   r->path[0] == inner && isFlatPattern(r->sub->getIdx(), h, ih);
        } catch (const Unsupported &) {
          flat = false; // reported when the inner loop is lowered
        }
      }
      if (flat) {
        kind = Site::FlatSlot;
        lc.flatInner[d] = inner;
      } else if (allAcc && reads.empty() && sites.size() == 1) {
        // a scatter-add, flattened over rectangular inner loops. Two
        // accumulations at any index would become two IR loops, and an
        // element both reach would get its increments in another order
        // than C's: rounded differently (gen seed 411294). They stay
        // updates, in order.
        kind = Site::Scatter;
        for (const Site &s : sites)
          for (const ForStmt *f : s.path) {
            LoopHeader fh = parseHeader(f, nullptr);
            if (!headerInvariantIn(fh, sc, h))
              kind = Site::Update; // a triangular nest
          }
      }
    }
    kinds[d] = kind;
    anyUpdate = anyUpdate || kind == Site::Update;
  }
  for (const VarDecl *d : sc.siteOrder) {
    Site::Kind kind = anyUpdate ? Site::Update : kinds[d];
    for (Site &s : sc.sites[d]) {
      s.kind = kind;
      lc.siteOf[s.write] = lc.sites.size();
      lc.sites.push_back(s);
    }
    lc.arrays[d] = kind;
  }
  (void)env;
}

// Is place `p` read after the loop: by the statements that follow, by the
// join or loop body that the loop ends, or as an output?
bool Lowerer::neededAfter(const Place &p, const Rest *next, const Tail &tail) {
  if (tail.joined &&
      std::find(tail.joined->begin(), tail.joined->end(), p) !=
          tail.joined->end())
    return true;
  if (arrays.count(p.decl) && (arrays.at(p.decl).role == ArrayRole::Out ||
                               arrays.at(p.decl).role == ArrayRole::InOut))
    return true;
  for (const Rest *r = next; r; r = r->outer)
    for (const Stmt *s : r->stmts)
      if (refersTo(s, p.decl))
        return true;
  return false;
}

// ------------------------------------------------------------ lowering

// The IR index of an IR loop over `lc`: named after the counter when it is
// the counter (from 0 by 1).
static Var *indexVar(Arena *arena, const LoopCtx &lc) {
  bool same = isIntConst(lc.b.lo, 0) && lc.b.step == 1 && !lc.b.stepExpr;
  return var_new(arena,
                 same ? lc.h.counter->getNameAsString().c_str() : "k",
                 ty_int());
}

Expr *Lowerer::lowerLoopBody(LoopCtx &lc, BodySpec &spec, const Env &entry) {
  SourceLocation loc = lc.h.kw;
  Env env = entry;
  std::vector<Binding> bind;
  const VarDecl *counter = lc.h.counter;
  Expr *cv = spec.counter;
  if (!cv && !lc.h.stmt) // a while's own counter: the IR index
    cv = mkVar(spec.index, loc);
  if (!cv)
    cv = counterAt(lc.b, mkVar(spec.index, loc), loc);
  cv = toKind(cv, irScalarType(counter->getType()), loc);
  if (cv->kind == E_VAR) {
    env.vars[{counter, kWhole}] = cv->var;
  } else {
    Var *c = newVar(counter);
    bind.push_back({c, cv, loc});
    env.vars[{counter, kWhole}] = c;
  }
  Var *counterVar = env.vars[{counter, kWhole}];
  for (const VarDecl *d : lc.privates) // as if declared in the body
    env.arrays[d] = ArrayVal{};
  for (size_t j = 0; j < spec.statePlaces.size(); j++) {
    const Place &p = spec.statePlaces[j];
    Var *v = newPlaceVar(p);
    bind.push_back({v, mkGet((int)j, mkVar(spec.state, loc), loc), loc});
    if (isArrayPlace(p)) // an array carried whole: same length every step
      env.arrays[p.decl] = ArrayVal{v, lenCopy(entry.arrays.at(p.decl))};
    else
      env.vars[p] = v;
    spec.stateVars.push_back(v);
  }
  for (const Place &p : spec.carried) {
    std::string what = spec.array ? "array '" +
                                        spec.array->getNameAsString() +
                                        "' is written from '"
                                  : "a value depends on '";
    Poison poison{"",
                  what + placeName(p) +
                      "', which the loop carries from one iteration to the "
                      "next; not supported yet",
                  loc};
    Var *v = makePoison(placeType(p), (placeName(p) + "_carried").c_str(),
                        poison, bind, loc);
    env.vars[p] = v;
    spec.carriedVars.push_back(v);
  }
  for (const Place &p : spec.accumulators) {
    Var *z = var_new(arena, (placeName(p) + "_0").c_str(), placeType(p));
    bind.push_back({z, mkConst(placeType(p), 0, loc), loc});
    zeroVars.insert(z);
    env.vars[p] = z;
  }
  // The slot of each array built at the counter: its old element, or
  // poison when nothing was written yet.
  for (auto &[d, kind] : lc.arrays) {
    if (kind == Site::Strided) // nothing of the block written yet
      for (long long c = 0; c < lc.strides.at(d); c++) {
        Place p{d, kBlock0 - (int)c};
        std::string elem = d->getNameAsString() + "[" +
                           std::to_string(lc.strides.at(d)) + "*" +
                           counter->getNameAsString() + " + " + std::to_string(c) + "]";
        Poison poison{"reads '" + elem + "' before writing it",
                      "'" + elem + "' is not written in every iteration of "
                      "the loop (on every path through its body)",
                      loc};
        env.vars[p] = makePoison(arrays.at(d).elem,
                                 (d->getNameAsString() + "_unset").c_str(),
                                 poison, bind, loc);
      }
    bool flatTarget =
        kind == Site::FlatSlot && spec.kind == TargetKind::FlatBuild &&
        spec.array == d;
    if (kind != Site::Slot && !flatTarget)
      continue;
    const ArrayVal &old = entry.arrays.at(d);
    Place slot{d, kSlot};
    std::string elem = d->getNameAsString() + "[" +
                       counter->getNameAsString() + "]";
    for (const Site &s : lc.sites)
      if (s.array == d) { // as the program spells it
        elem = text(s.sub);
        break;
      }
    Expr *at = flatTarget ? mkVar(spec.index, loc) : mkVar(counterVar, loc);
    if (old.value) {
      Var *v = newPlaceVar(slot);
      bind.push_back({v, oldElement(old, at, !lc.slotSafe[d], loc), loc});
      env.vars[slot] = v;
    } else {
      Poison poison{"reads '" + elem + "' before writing it",
                    "'" + elem + "' is not written in every iteration of "
                    "the loop (on every path through its body)",
                    loc};
      env.vars[slot] = makePoison(arrays.at(d).elem,
                                  (d->getNameAsString() + "_unset").c_str(),
                                  poison, bind, loc);
    }
  }
  if (spec.kind == TargetKind::Scatter) {
    const VarDecl *d = spec.array;
    Var *i = var_new(arena, (d->getNameAsString() + "_at").c_str(), ty_int());
    bind.push_back({i, mkInt(0, loc), loc});
    Place val{d, kSiteVal};
    Var *z = var_new(arena, (d->getNameAsString() + "_add").c_str(),
                     placeType(val));
    bind.push_back({z, mkConst(placeType(val), 0, loc), loc});
    zeroVars.insert(z);
    env.vars[{d, kSiteIdx}] = i;
    env.vars[val] = z;
  }

  lc.target = spec.kind;
  lc.targetArray = spec.array;
  lc.targetSite = spec.site;
  lc.inlined = spec.inlined;
  lc.keep = spec.keep;
  lc.poisonSink = &spec.carriedVars;
  bodiesLowered++;
  struct Pop {
    std::vector<LoopCtx *> &loops;
    ~Pop() { loops.pop_back(); }
  } pop{loops};
  loops.push_back(&lc);
  const Stmt *bodyStmt = lc.h.body; // ArrayRef points at it
  llvm::ArrayRef<const Stmt *> body(bodyStmt);
  Rest rest{body, nullptr};
  Tail tail{&spec.yields, lc.h.body->getEndLoc(),
            spec.kind == TargetKind::Fold, lc.h.whileCond};
  lc.bodyTail = &tail;
  Place done{counter, kDone};
  if (lc.hasBreak && env.vars.count(done) && env.vars[done]) {
    // after the break, an iteration leaves everything as it is
    Var *broken = env.vars[done];
    Expr *skip = finish(env, tail, true);
    Expr *run;
    if (lc.h.alsoWhile.empty()) {
      run = lowerSeq(&rest, std::move(env), tail);
    } else { // `for (...; i < n && ok; ...)`: `if (!ok) break;` first
      if (!lc.inlined.empty()) // a break loop has no flattened targets
        fail(lc.h.alsoWhile[0]->getExprLoc(),
             "loop condition part '" + text(lc.h.alsoWhile[0]) +
                 "' in a loop flattened with the loops inside it; not supported");
      Expr *go = nullptr;
      for (const CExpr *c : lc.h.alsoWhile) {
        Expr *t = lowerCondition(c, env);
        go = go ? mkIf(go, t, mkInt(0, loc), loc) : t;
      }
      Expr *stop = leaveLoop(1, env, loc);
      run = mkIf(go, lowerSeq(&rest, std::move(env), tail), stop, loc);
    }
    return wrapInLets(bind, mkIf(mkVar(broken, loc), skip, run, loc));
  }
  // the parts of a `&&` condition are tested only where the flag is
  // carried; any other target of such a loop would run past them
  if (!lc.h.alsoWhile.empty() && spec.kind != TargetKind::None)
    fail(lc.h.alsoWhile[0]->getExprLoc(),
         "loop condition part '" + text(lc.h.alsoWhile[0]) +
             "' in a loop lowered without its break flag; not supported");
  Expr *e = lowerSeq(&rest, std::move(env), tail);
  return wrapInLets(bind, e);
}

// One iteration of a loop that lies between a loop and the write it is
// flattened for: the counter comes from the flat index; what the loop
// carries between its iterations is poison.
Expr *Lowerer::inlineLoop(const ForStmt *s, LoopCtx &owner, const Rest *next,
                          Env env, const Tail &tail) {
  SourceLocation loc = s->getForLoc();
  LoopHeader h = parseHeader(s, nullptr);
  if (!h.alsoWhile.empty()) // scanStmt keeps such loops off the paths
    fail(s->getCond()->getExprLoc(), "loop condition '" + text(s->getCond()) +
                                         "' with '&&' in a loop nest flattened into one "
                                         "loop; not supported");
  LoopScan sc = scanLoop(h, env);
  if (!sc.siteOrder.empty())
    fail(sc.sites[sc.siteOrder[0]][0].write->getExprLoc(),
         "array '" + sc.siteOrder[0]->getNameAsString() +
             "' is written in a nested loop that also holds an element "
             "write flattened across loops; not supported yet");
  std::vector<Binding> bind;
  Var *c = newVar(h.counter);
  bind.push_back({c, toKind(dup(arena, owner.inlined.at(s)), irScalarType(h.counter->getType()), loc),
                  loc});
  env.vars[{h.counter, kWhole}] = c;
  for (const Place &p : sc.order) {
    if (owner.keep.count(p))
      continue;
    std::string what = owner.targetArray
                           ? "array '" + owner.targetArray->getNameAsString() +
                                 "' is written from '"
                           : "a value depends on '";
    Poison poison{"",
                  what + placeName(p) +
                      "', which a loop carries from one iteration to the "
                      "next; not supported yet",
                  loc};
    env.vars[p] = makePoison(placeType(p),
                             (placeName(p) + "_carried").c_str(), poison,
                             bind, loc);
    if (owner.poisonSink)
      owner.poisonSink->push_back(env.vars[p]);
  }
  const Stmt *bodyStmt = s->getBody(); // ArrayRef points at it
  llvm::ArrayRef<const Stmt *> body(bodyStmt);
  Rest rest{body, next};
  return wrapInLets(bind, lowerSeq(&rest, std::move(env), tail));
}

// y := (build n (i) body), over the old prefix when there is one.
Expr *Lowerer::buildTarget(LoopCtx &lc, const VarDecl *d, Site::Kind kind,
                           const Env &entry, const std::vector<Place> &accs,
                           const std::vector<Place> &state,
                           std::vector<Binding> &pre, ArrayVal &result) {
  SourceLocation loc = lc.h.kw;
  const ArrayVal &old = entry.arrays.at(d);
  const Site *first = nullptr;
  for (const Site &s : lc.sites)
    if (s.array == d && !first)
      first = &s;
  BodySpec spec;
  spec.array = d;
  spec.accumulators = accs;
  spec.carried = state;
  spec.yields = {Place{d, kSlot}};
  Expr *n, *nExpr, *imin;
  spec.index =
      var_new(arena, lc.h.counter->getNameAsString().c_str(), ty_int());
  if (kind == Site::Slot) {
    spec.kind = TargetKind::Build;
    n = lc.b.trip;
    nExpr = lc.b.tripExpr;
    imin = lc.b.imin;
    spec.counter = mkVar(spec.index, loc); // element index = counter
  } else {
    spec.kind = TargetKind::FlatBuild;
    spec.keep.insert(Place{d, kSlot});
    const ForStmt *innerLoop = lc.flatInner.at(d);
    LoopHeader ih = parseHeader(innerLoop, nullptr);
    Bounds ib = lowerBounds(ih, entry, pre);
    n = simpleOrBound(iMul(dup(arena, lc.b.trip), dup(arena, ib.trip), loc),
                      "n_flat", pre, loc);
    nExpr = iMul(dup(arena, lc.b.tripExpr), dup(arena, ib.tripExpr), loc);
    imin = mkInt(0, loc);
    spec.index = var_new(arena, "k", ty_int());
    spec.counter = iDiv(mkVar(spec.index, loc), dup(arena, ib.trip), loc);
    spec.inlined[innerLoop] =
        iMod(mkVar(spec.index, loc), dup(arena, ib.trip), loc);
  }
  bool fresh = !old.value;
  if (fresh && !isIntConst(imin, 0))
    fail(first->sub->getExprLoc(),
         "'" + d->getNameAsString() + "' is first written by a loop from "
         "index '" +
             text(lc.b.step > 0 ? lc.h.lo : lc.h.hi) +
             "' up, not from 0; arrays must be written from index 0 up (the "
             "written part is kept as a prefix)");
  bool replace = !fresh && isIntConst(imin, 0) && old.len &&
                 exprEq(old.len, nExpr);
  lc.slotSafe[d] = replace;
  Expr *body = lowerLoopBody(lc, spec, entry);
  checkPoison(body, nullptr, -1);
  Var *j = spec.index;
  if (fresh || replace) {
    result.len = nExpr;
    return at(ex_build(arena, dup(arena, n), j, body), loc);
  }
  // Over a whole array: C writes inside it, so the length stays (and the
  // array stays whole).
  if (isWhole(d, entry) && old.len) {
    Expr *end = simpleOrBound(iAdd(dup(arena, imin), dup(arena, n), loc),
                              "end", pre, loc);
    Expr *inRange = mkPrim2(P_AND, iCmp(P_GE, mkVar(j, loc), dup(arena, imin), loc),
                            iCmp(P_LT, mkVar(j, loc), end, loc), loc);
    result.len = dup(arena, old.len);
    return at(ex_build(arena, dup(arena, old.len), j,
                       mkIf(inRange, body, oldElement(old, mkVar(j, loc), false, loc), loc)),
              loc);
  }
  // Over an old prefix: elements outside [imin, imin + n) keep their value.
  long long ci, cl;
  bool zero = isIntConst(imin, 0);
  bool consts = intConst(imin, ci) && old.len && intConst(old.len, cl);
  bool append = (old.len && exprEq(imin, old.len)) || (consts && ci == cl);
  bool inPrefix = zero || append || (consts && ci <= cl); // imin <= len y
  Expr *len, *body2;
  if (append) { // y[len .. len + n) = body
    len = simpleOrBound(iAdd(lenOf(old), dup(arena, n), loc), "len", pre, loc);
    body2 = mkIf(iCmp(P_LT, mkVar(j, loc), lenOf(old), loc),
                 oldElement(old, mkVar(j, loc), false, loc), body, loc);
  } else {
    Expr *end = simpleOrBound(iAdd(dup(arena, imin), dup(arena, n), loc),
                              "end", pre, loc);
    if (zero)
      len = iMax(dup(arena, n), lenOf(old), loc);
    else if (inPrefix)
      len = iMax(lenOf(old), dup(arena, end), loc);
    else
      len = mkIf(iCmp(P_GT, dup(arena, n), mkInt(0, loc), loc),
                 iMax(lenOf(old), dup(arena, end), loc), lenOf(old), loc);
    len = simpleOrBound(len, "len", pre, loc);
    Expr *inRange = iCmp(P_LT, mkVar(j, loc), dup(arena, end), loc);
    if (!zero)
      inRange = mkPrim2(P_AND,
                        iCmp(P_GE, mkVar(j, loc), dup(arena, imin), loc),
                        inRange, loc);
    body2 = mkIf(inRange, body,
                 oldElement(old, mkVar(j, loc), !inPrefix, loc), loc);
  }
  result.len = len;
  return at(ex_build(arena, dup(arena, len), j, body2), loc);
}

// y := (scatter y n (k) (tuple index value)) for one accumulating write,
// flattened over the loops between the body and the write.
Expr *Lowerer::scatterTarget(LoopCtx &lc, const Site &site, const Env &entry,
                             const ArrayVal &base,
                             const std::vector<Place> &accs,
                             const std::vector<Place> &state,
                             std::vector<Binding> &pre) {
  SourceLocation loc = lc.h.kw;
  const VarDecl *d = site.array;
  if (!base.value)
    fail(site.sub->getExprLoc(), "accumulates into '" + d->getNameAsString() +
                                     "' before writing it");
  BodySpec spec;
  spec.kind = TargetKind::Scatter;
  spec.array = d;
  spec.site = &site;
  spec.accumulators = accs;
  spec.carried = state;
  spec.yields = {Place{d, kSiteIdx}, Place{d, kSiteVal}};
  spec.index = site.path.empty() ? indexVar(arena, lc)
                                 : var_new(arena, "k", ty_int());
  Expr *n = lc.b.trip;
  std::vector<Bounds> inner;
  for (const ForStmt *f : site.path) {
    LoopHeader fh = parseHeader(f, nullptr);
    inner.push_back(lowerBounds(fh, entry, pre));
    n = iMul(dup(arena, n), dup(arena, inner.back().trip), loc);
  }
  n = simpleOrBound(n, "n_flat", pre, loc);
  // k = ((k0 * n1 + k1) * n2 + k2) ...: the innermost index varies fastest
  Expr *rem = mkVar(spec.index, loc);
  for (size_t j = site.path.size(); j-- > 0;) {
    const Bounds &b = inner[j];
    Expr *kj = iMod(dup(arena, rem), dup(arena, b.trip), loc);
    spec.inlined[site.path[j]] = counterAt(b, kj, loc);
    rem = iDiv(rem, dup(arena, b.trip), loc);
  }
  spec.counter = counterAt(lc.b, rem, loc);
  Expr *body = lowerLoopBody(lc, spec, entry);
  checkPoison(body, nullptr, -1);
  return at(ex_scatter(arena, mkVar(base.value, loc), n, spec.index, body),
            loc);
}

// The most writes of `writes` that one run of `s` can execute (loops count
// as many).
static int maxWrites(const Stmt *s, const std::set<const Stmt *> &writes) {
  if (!s)
    return 0;
  if (writes.count(s))
    return 1;
  if (const auto *i = dyn_cast<IfStmt>(s))
    return maxWrites(i->getCond(), writes) +
           std::max(maxWrites(i->getThen(), writes),
                    maxWrites(i->getElse(), writes));
  int n = 0;
  for (const Stmt *c : s->children())
    n += maxWrites(c, writes);
  if (isa<ForStmt>(s) && n > 0)
    return 1000;
  return n;
}

// Can accumulator `p` be a sum that rounds exactly as the C loop does? C
// adds the increments one by one to the running value, and so does a
// sum-from started at the old value, when each iteration adds at most one
// increment, computed in p's type (ints: always). Writes nested in
// inner loops need the nest flattened into one sum (`path`, rectangular).
bool Lowerer::exactSum(LoopCtx &lc, const LoopScan &sc, const Place &p,
                       const Env &entry, std::vector<const ForStmt *> &path) {
  const ScanWrite &w = sc.writes.at(p);
  path.clear();
  if (placeType(p)->kind == TY_INT)
    return true; // int addition is associative: nested sums are exact
  for (const auto &q : w.paths)
    if (q != w.paths[0])
      return false;
  auto it = entry.vars.find(p);
  if (!w.exactType || it == entry.vars.end() || !it->second)
    return false;
  path = w.paths[0];
  const Stmt *scope = path.empty() ? lc.h.body
                                   : path.back()->getBody();
  std::set<const Stmt *> sites(w.sites.begin(), w.sites.end());
  if (maxWrites(scope, sites) > 1)
    return false;
  for (const ForStmt *f : path) {
    LoopHeader fh = parseHeader(f, nullptr);
    if (!headerInvariantIn(fh, sc, lc.h))
      return false;
  }
  return true;
}

// The body of the sum of `group` (accumulators written along `path`),
// flattened over the loops of the path; `trip` gets its trip count.
Expr *Lowerer::sumBody(LoopCtx &lc, const Env &entry,
                       const std::vector<Place> &group,
                       const std::vector<const ForStmt *> &path,
                       const std::vector<Place> &accs,
                       const std::vector<Place> &state,
                       std::vector<Binding> &pre, BodySpec &spec,
                       Expr *&trip) {
  SourceLocation loc = lc.h.kw;
  spec = BodySpec();
  spec.kind = TargetKind::Sum;
  spec.accumulators = accs;
  spec.yields = group;
  spec.carried = state;
  spec.keep.insert(group.begin(), group.end());
  spec.index = path.empty() ? indexVar(arena, lc)
                            : var_new(arena, "k", ty_int());
  trip = lc.b.trip;
  if (!path.empty()) {
    std::vector<Bounds> inner;
    for (const ForStmt *f : path) {
      LoopHeader fh = parseHeader(f, nullptr);
      inner.push_back(lowerBounds(fh, entry, pre));
      trip = iMul(dup(arena, trip), dup(arena, inner.back().trip), loc);
    }
    trip = simpleOrBound(trip, "n_flat", pre, loc);
    Expr *rem = mkVar(spec.index, loc);
    for (size_t j = path.size(); j-- > 0;) {
      const Bounds &b = inner[j];
      Expr *kj = iMod(dup(arena, rem), dup(arena, b.trip), loc);
      spec.inlined[path[j]] = counterAt(b, kj, loc);
      rem = iDiv(rem, dup(arena, b.trip), loc);
    }
    spec.counter = counterAt(lc.b, rem, loc);
  }
  return lowerLoopBody(lc, spec, entry);
}

// The fold body for `state` (emptied when nothing is left), after dropping
// the places whose value the loop does not carry and nobody reads after it.
Expr *Lowerer::settleFold(LoopCtx &lc, const Env &entry,
                          std::vector<Place> &state,
                          const std::vector<Place> &accs, BodySpec &spec,
                          const Rest *next, const Tail &tail) {
  SourceLocation loc = lc.h.kw;
  while (!state.empty()) {
    std::vector<Type *> ts;
    for (const Place &p : state)
      ts.push_back(placeType(p));
    spec = BodySpec();
    spec.kind = TargetKind::Fold;
    spec.index = indexVar(arena, lc);
    spec.state = var_new(arena, "state",
                         ty_tuple(arena, (int)ts.size(), ts.data()));
    spec.statePlaces = state;
    spec.accumulators = accs;
    spec.yields = state;
    Expr *body = lowerLoopBody(lc, spec, entry);
    // A place the sums' increments read (`total += x[k]; k = t;`) is
    // carried too: the probe is a body that computes the accumulators as
    // state, where those reads are live.
    Expr *probe = body;
    std::vector<Var *> probeVars = spec.stateVars;
    if (!accs.empty()) {
      BodySpec all = spec;
      all.statePlaces.insert(all.statePlaces.end(), accs.begin(), accs.end());
      for (const Place &p : accs)
        ts.push_back(placeType(p));
      all.state = var_new(arena, "state", ty_tuple(arena, (int)ts.size(), ts.data()));
      all.accumulators.clear();
      all.yields = all.statePlaces;
      all.stateVars.clear();
      probe = lowerLoopBody(lc, all, entry);
      probeVars = all.stateVars;
    }
    Liveness live;
    liveness(probe, live);
    std::vector<Place> keep;
    for (size_t j = 0; j < state.size(); j++)
      if (live.liveLets.count(probeVars[j]) ||
          neededAfter(state[j], next, tail))
        keep.push_back(state[j]);
    if (keep.size() == state.size())
      return body;
    state = keep;
  }
  (void)loc;
  return nullptr;
}

bool Lowerer::isArrayPlace(const Place &p) {
  return p.elem == kWhole && arrays.count(p.decl) != 0;
}

Expr *Lowerer::lenCopy(const ArrayVal &a) {
  return a.len ? dup(arena, a.len) : nullptr;
}

// Does the loop write output d, which has no value before it, at every
// one of its iterations in order, y[i] = v at the counter from 0 by 1, and
// read it only at the counter? Then the loop makes the whole written prefix
// (of the trip count's length), as a build would, though it carries d in
// its fold because it carries another array (`y[i] = z[i] = z[i] * a`).
bool Lowerer::fillsInOrder(const LoopCtx &lc, const LoopScan &sc, const VarDecl *d) {
  long long lo;
  const LoopHeader &h = lc.h;
  if (!h.stmt || !h.lo || !constIndex(h.lo, lo) || lo != 0 || h.step != 1 || h.stepExpr ||
      lc.hasBreak || containsLoopExit(h.body, false) || arrays.at(d).role != ArrayRole::Out)
    return false;
  auto unconditional = [&](const Stmt *s) { // only blocks between it and the body
    for (;;) {
      if (s == h.body)
        return true;
      auto parents = ctx.getParents(*s);
      if (parents.size() != 1)
        return false;
      const Stmt *up = parents[0].get<Stmt>();
      if (up == h.body)
        return true;
      if (!up || !isa<CompoundStmt>(up))
        return false;
      s = up;
    }
  };
  for (const Site &st : sc.sites.at(d))
    if (!st.sub || !st.plain || !st.path.empty() || st.inWhile || st.twoDim ||
        !isCounterRef(st.sub->getIdx(), h.counter) || !unconditional(st.write))
      return false;
  for (const ArrayRead &r : sc.reads)
    if (r.array == d && (!r.sub || !isCounterRef(r.sub->getIdx(), h.counter)))
      return false;
  return true;
}

// Output d's value before a loop that fills it in order (fillsInOrder): an
// array of the trip count's length, every element of which the loop writes.
void Lowerer::startFilled(const LoopCtx &lc, const VarDecl *d, Env &env,
                          std::vector<Binding> &pre) {
  SourceLocation loc = lc.h.kw;
  Expr *value = at(ex_alloc(arena, ty_array(arena, arrays.at(d).elem), dup(arena, lc.b.trip)), loc);
  Var *y = newPlaceVar({d, kWhole});
  pre.push_back({y, value, loc});
  env.arrays[d] = ArrayVal{y, dup(arena, lc.b.tripExpr ? lc.b.tripExpr : lc.b.trip)};
}

// Requires: classifyArrays ran. Guarantees: each array the loop carries
// whole (Update) has a whole value in `env` before the loop (a local made
// whole, an in-out parameter, an output's written prefix), and the result
// lists their places, for the fold's state.
std::vector<Place> Lowerer::carriedArrays(LoopCtx &lc, LoopScan &sc, Env &env,
                                          std::vector<Binding> &pre) {
  std::vector<Place> out;
  for (const VarDecl *d : sc.siteOrder) {
    if (lc.arrays.at(d) != Site::Update)
      continue;
    const Site &first = sc.sites.at(d)[0];
    if (env.sizes.count(d))
      makeWhole(d, env, pre, lc.h.kw);
    else if (!env.arrays.at(d).value && fillsInOrder(lc, sc, d))
      startFilled(lc, d, env, pre);
    else if (!env.arrays.at(d).value && !first.sub)
      fail(first.write->getExprLoc(),
           "loop passes output '" + d->getNameAsString() + "' to '" +
               first.call->getDirectCallee()->getNameAsString() +
               "' before it is written whole; not supported (write the whole output first)");
    else if (!env.arrays.at(d).value)
      fail(first.sub->getExprLoc(),
           "loop writes output '" + d->getNameAsString() + "' at '" +
               text(first.sub->getIdx()) + "' before it is written from "
               "index 0 up; not supported (write the whole output first, or "
               "in order 'y[i] = ...' at the loop counter)");
    out.push_back(Place{d, kWhole});
  }
  return out;
}

Expr *Lowerer::lowerFor(const ForStmt *s, const Rest *next, Env env,
                        const Tail &tail) {
  for (LoopCtx *o : loops)
    if (o->inlined.count(s))
      return inlineLoop(s, *o, next, std::move(env), tail);
  SourceLocation loc = s->getForLoc();
  LoopCtx lc;
  lc.h = parseHeader(s, &env);
  LoopScan sc = scanLoop(lc.h, privateScope(lc, env));
  lc.hasReturn = containsReturnStmt(s->getBody());
  lc.hasBreak = containsLoopExit(s->getBody(), true) || lc.hasReturn || !lc.h.alsoWhile.empty();
  classifyArrays(lc, sc, env);
  requireInvariant(lc.h.hi, sc, lc.h, lc.h.hi->getExprLoc(),
                   "loop bound '" + text(lc.h.hi) +
                       "' changes inside the loop; not supported");
  if (lc.h.stepExpr)
    requireInvariant(lc.h.stepExpr, sc, lc.h, lc.h.stepExpr->getExprLoc(),
                     "loop step '" + text(lc.h.stepExpr) +
                         "' changes inside the loop; not supported");
  std::vector<Binding> pre;
  lc.b = lowerBounds(lc.h, env, pre);
  std::vector<Place> inPlace = carriedArrays(lc, sc, env, pre);

  // Accumulators that sum exactly, grouped by the loops they sit in; every
  // other scalar written is state.
  std::vector<Place> accs, state;
  std::map<Place, std::vector<const ForStmt *>> pathOf;
  for (const Place &p : sc.order) {
    std::vector<const ForStmt *> path;
    if (inPlace.empty() && sc.writes[p].accumulateOnly && !sc.otherReads.count(p) &&
        exactSum(lc, sc, p, env, path)) {
      accs.push_back(p);
      pathOf[p] = path;
    } else {
      state.push_back(p);
    }
  }

  state.insert(state.end(), inPlace.begin(), inPlace.end());

  // A loop that breaks or returns: everything it writes is state, with the
  // flag first (and the returned value); the arrays it writes are carried
  // whole (classifyArrays).
  Place done{lc.h.counter, kDone}, returned{lc.h.counter, kRetVal}, exit{lc.h.counter, kExit};
  if (lc.hasBreak) {
    if (!lc.h.declaredInInit && neededAfter({lc.h.counter, kWhole}, next, tail)) {
      // `for (i = 0; i < n && x[i] < t; i++);` then `x[i]`: the counter's
      // value where the loop broke (leaveLoop), else the final one
      Var *final = newPlaceVar(exit);
      pre.push_back({final, counterAt(lc.b, dup(arena, lc.b.trip), loc), loc});
      env.vars[exit] = final;
      state.insert(state.begin(), exit);
    }
    Var *notYet = newPlaceVar(done);
    pre.push_back({notYet, mkInt(0, loc), loc});
    env.vars[done] = notYet;
    state.insert(state.begin(), done);
    if (lc.hasReturn && !returnsVoid) {
      Var *none = newPlaceVar(returned);
      pre.push_back({none, mkConst(placeType(returned), 0, loc), loc});
      env.vars[returned] = none;
      state.insert(state.begin() + 1, returned);
    }
    state.insert(state.end(), accs.begin(), accs.end());
    accs.clear();
  }

  std::vector<Binding> post;
  Env out = env;
  auto bindPlace = [&](const Place &p, Expr *value) {
    Var *v = newPlaceVar(p);
    post.push_back({v, value, loc});
    if (isArrayPlace(p)) // updates keep the length it had before the loop
      out.arrays[p.decl] = ArrayVal{v, lenCopy(env.arrays.at(p.decl))};
    else
      out.vars[p] = v;
  };
  // Slot arrays: is the old element at the counter inside the old prefix?
  for (auto &[d, kind] : lc.arrays) {
    const ArrayVal &old = env.arrays.at(d);
    lc.slotSafe[d] = kind == Site::Slot && old.value &&
                     isIntConst(lc.b.imin, 0) && old.len &&
                     exprEq(old.len, lc.b.tripExpr);
  }
  long loweredBefore = bodiesLowered;

  // fold: the state, less what it does not carry and nobody needs after;
  // sums: the accumulators, less those whose increments depend on the
  // state (they join it)
  struct Group {
    std::vector<const ForStmt *> path;
    std::vector<Place> places;
    Expr *body = nullptr;
    Expr *trip = nullptr;
    Var *index = nullptr;
  };
  std::vector<Group> groups;
  BodySpec foldSpec;
  Expr *foldBody = nullptr;
  for (bool moved = true; moved;) {
    moved = false;
    foldSpec = BodySpec();
    foldBody = settleFold(lc, env, state, accs, foldSpec, next, tail);
    groups.clear();
    for (const Place &p : accs) {
      auto g = std::find_if(groups.begin(), groups.end(), [&](const Group &x) {
        return x.path == pathOf[p];
      });
      if (g == groups.end()) {
        groups.push_back(Group{pathOf[p], {}, nullptr, nullptr, nullptr});
        g = groups.end() - 1;
      }
      g->places.push_back(p);
    }
    std::vector<Place> keep;
    for (Group &g : groups) {
      BodySpec spec;
      g.body = sumBody(lc, env, g.places, g.path, accs, state, pre, spec,
                       g.trip);
      g.index = spec.index;
      std::set<const Var *> carried(spec.carriedVars.begin(),
                                    spec.carriedVars.end());
      for (size_t j = 0; j < g.places.size(); j++) {
        Liveness live;
        liveness(g.body, live, g.places.size() > 1 ? (int)j : -1);
        bool depends = false;
        for (const Var *v : carried)
          depends = depends || live.liveLets.count(v) || live.free.count(v);
        if (depends) {
          state.push_back(g.places[j]);
          moved = true;
        } else {
          keep.push_back(g.places[j]);
        }
      }
    }
    accs = keep;
  }
  for (Group &g : groups) {
    checkPoison(g.body, nullptr, -1);
    Type *t;
    if (g.places.size() > 1) {
      std::vector<Type *> ts;
      for (const Place &p : g.places)
        ts.push_back(placeType(p));
      t = ty_tuple(arena, (int)ts.size(), ts.data());
    } else {
      t = placeType(g.places[0]);
    }
    // The sum starts from the accumulators' values before the loop and
    // adds each increment in turn, exactly as the C loop rounds.
    std::vector<Expr *> olds;
    for (const Place &p : g.places)
      olds.push_back(readPlace(p, sc.writes[p].first->getExprLoc(), env));
    Expr *init = olds.size() > 1 ? ex_tuple(arena, (int)olds.size(), olds.data()) : olds[0];
    Expr *sum = at(ex_sum_from(arena, dup(arena, g.trip), init, g.index, g.body), loc);
    sum->type = t;
    Var *r = var_new(arena, "sum", t);
    post.push_back({r, sum, loc});
    for (size_t j = 0; j < g.places.size(); j++) {
      const Place &p = g.places[j];
      Expr *part = g.places.size() > 1 ? mkGet((int)j, mkVar(r, loc), loc)
                                       : mkVar(r, loc);
      bindPlace(p, part);
    }
  }
  if (foldBody) {
    Expr *init = initialState(state, foldBody, foldSpec, sc, env, loc);
    Type *st = foldSpec.state->type;
    Expr *fold = at(ex_fold(arena, dup(arena, lc.b.trip), init,
                            foldSpec.index, foldSpec.state, foldBody),
                    loc);
    fold->type = st;
    Var *r = var_new(arena, "fold", st);
    post.push_back({r, fold, loc});
    for (size_t j = 0; j < state.size(); j++)
      bindPlace(state[j], mkGet((int)j, mkVar(r, loc), loc));
  }

  // arrays (those carried whole are in the fold)
  for (const VarDecl *d : sc.siteOrder) {
    Site::Kind kind = lc.arrays.at(d);
    if (kind == Site::Update)
      continue;
    if (kind == Site::Scatter) {
      for (const Site &site : lc.sites) {
        if (site.array != d)
          continue;
        Expr *e = scatterTarget(lc, site, env, out.arrays.at(d), accs, state,
                                pre);
        Var *y = newPlaceVar({d, kWhole});
        post.push_back({y, e, loc});
        out.arrays[d] = ArrayVal{y, out.arrays.at(d).len};
      }
      continue;
    }
    ArrayVal result;
    Expr *e = kind == Site::Strided
                  ? stridedTarget(lc, d, env, accs, state, pre, result)
                  : buildTarget(lc, d, kind, env, accs, state, pre, result);
    Var *y = newPlaceVar({d, kWhole});
    post.push_back({y, e, loc});
    result.value = y;
    out.arrays[d] = result;
  }

  // a loop with no effect outside: lowered only for its errors
  if (bodiesLowered == loweredBefore) {
    BodySpec spec;
    spec.kind = TargetKind::None;
    spec.index = indexVar(arena, lc);
    lowerLoopBody(lc, spec, env);
  }

  if (!lc.h.declaredInInit) // the counter keeps its final value
    bindPlace({lc.h.counter, kWhole}, out.vars.count(exit)
                                          ? mkVar(out.vars.at(exit), loc)
                                          : counterAt(lc.b, dup(arena, lc.b.trip), loc));
  return afterLoop(lc, pre, post, std::move(out), next, tail, loc);
}

// The state a fold or while starts from: the places' values before the
// loop. A place the body reads before any assignment reads garbage in C:
// an error.
Expr *Lowerer::initialState(const std::vector<Place> &state, Expr *body,
                            const BodySpec &spec, LoopScan &sc, const Env &env,
                            SourceLocation loc) {
  checkPoison(body, nullptr, -1);
  Liveness live;
  liveness(body, live);
  for (size_t j = 0; j < state.size(); j++) {
    if (isArrayPlace(state[j]))
      continue; // carriedArrays made it whole
    auto v = env.vars.find(state[j]);
    if ((v == env.vars.end() || !v->second) && live.liveLets.count(spec.stateVars[j]))
      fail(sc.writes[state[j]].first->getExprLoc(),
           "'" + placeName(state[j]) + "' is read before it is assigned");
  }
  std::vector<Expr *> init;
  for (const Place &p : state) {
    if (isArrayPlace(p)) {
      init.push_back(mkVar(env.arrays.at(p.decl).value, loc));
      continue;
    }
    Var *v = env.vars.count(p) ? env.vars.at(p) : nullptr;
    init.push_back(v ? mkVar(v, loc) : mkConst(placeType(p), 0, loc));
  }
  return mkTuple(init, loc);
}

// What follows a loop: the rest, or, when the loop returned (flag 2), the
// function's (or the enclosing loop's) return.
Expr *Lowerer::afterLoop(const LoopCtx &lc, std::vector<Binding> &pre,
                         std::vector<Binding> &post, Env out, const Rest *next,
                         const Tail &tail, SourceLocation loc) {
  Place done{lc.h.counter, kDone}, returned{lc.h.counter, kRetVal};
  if (lc.hasReturn && out.vars.count(done) && out.vars.at(done)) {
    Expr *flag = mkVar(out.vars.at(done), loc);
    Expr *value = returnsVoid ? nullptr : mkVar(out.vars.at(returned), loc);
    Expr *ret = returnValue(value, out, loc);
    Expr *rest = lowerSeq(next, std::move(out), tail);
    return wrapInLets(pre, wrapInLets(post, mkIf(mkPrim2(P_EQ, flag, mkInt(2, loc), loc),
                                                 ret, rest, loc)));
  }
  return wrapInLets(pre, wrapInLets(post, lowerSeq(next, std::move(out), tail)));
}

// The header of `while (c) body` or `do body while (c)`. Its counter is
// one chad makes (a declaration the source cannot name): the key of the
// loop's places (the break flag) and the name of the IR loop's index.
LoopHeader Lowerer::whileHeader(const Stmt *s) {
  LoopHeader h;
  if (const auto *w = dyn_cast<clang::WhileStmt>(s)) {
    h.body = w->getBody();
    h.kw = w->getWhileLoc();
    h.whileCond = w->getCond();
    if (w->getConditionVariable())
      fail(w->getConditionVariable()->getLocation(),
           "a declaration in a 'while' condition is not supported");
  } else {
    const auto *d = cast<clang::DoStmt>(s);
    h.body = d->getBody();
    h.kw = d->getDoLoc();
    h.whileCond = d->getCond();
    h.isDo = true;
  }
  h.counter = VarDecl::Create(ctx, const_cast<FunctionDecl *>(fd), h.kw, h.kw,
                              &ctx.Idents.get("k"), ctx.IntTy,
                              ctx.getTrivialTypeSourceInfo(ctx.IntTy),
                              clang::SC_None);
  h.declaredInInit = true;
  return h;
}

// `while` and `do` loops: an IR while over the scalars that the body and
// the condition write (the state: no sums, since the trip count is known
// only when the loop stops), the body yielding the condition evaluated
// after it. `break` and `return` set the flag as in a for loop, and make
// the condition 0. The arrays it writes are carried whole in the state
// and updated (DESIGN 8.16).
Expr *Lowerer::lowerWhile(const Stmt *s, const Rest *next, Env env,
                          const Tail &tail) {
  LoopCtx lc;
  lc.h = whileHeader(s);
  SourceLocation loc = lc.h.kw;
  lc.b.lo = mkInt(0, loc);
  lc.b.step = 1;
  LoopScan sc = scanLoop(lc.h, privateScope(lc, env));
  classifyArrays(lc, sc, env); // every array it writes is carried whole
  std::vector<Place> state = sc.order;
  std::vector<Binding> pre;
  std::vector<Place> inPlace = carriedArrays(lc, sc, env, pre);
  state.insert(state.end(), inPlace.begin(), inPlace.end());
  // whether the first step runs: the condition before the loop (and its
  // effects), or 1 for a do loop
  Expr *go = mkInt(1, loc);
  if (!lc.h.isDo) {
    hoistEffects(lc.h.whileCond, env, pre);
    go = lowerCondition(lc.h.whileCond, env);
  }
  Var *first = var_new(arena, "go", ty_int());
  pre.push_back({first, go, loc});

  lc.hasReturn = containsReturnStmt(lc.h.body);
  lc.hasBreak = containsLoopExit(lc.h.body, true) || lc.hasReturn;
  Place done{lc.h.counter, kDone}, returned{lc.h.counter, kRetVal};
  if (lc.hasBreak) {
    Var *notYet = newPlaceVar(done);
    pre.push_back({notYet, mkInt(0, loc), loc});
    env.vars[done] = notYet;
    state.insert(state.begin(), done);
    if (lc.hasReturn && !returnsVoid) {
      Var *none = newPlaceVar(returned);
      pre.push_back({none, mkConst(placeType(returned), 0, loc), loc});
      env.vars[returned] = none;
      state.insert(state.begin() + 1, returned);
    }
  }

  std::vector<Binding> post;
  Env out = env;
  long loweredBefore = bodiesLowered;
  BodySpec spec;
  Expr *body = settleFold(lc, env, state, {}, spec, next, tail);
  if (body) {
    Expr *init = initialState(state, body, spec, sc, env, loc);
    Type *st = spec.state->type;
    Expr *loop = at(ex_while(arena, mkVar(first, loc), init,
                             spec.index, spec.state, body),
                    loc);
    loop->type = st;
    Var *r = var_new(arena, "while", st);
    post.push_back({r, loop, loc});
    for (size_t j = 0; j < state.size(); j++) {
      Var *v = newPlaceVar(state[j]);
      post.push_back({v, mkGet((int)j, mkVar(r, loc), loc), loc});
      if (isArrayPlace(state[j]))
        out.arrays[state[j].decl] = ArrayVal{v, lenCopy(env.arrays.at(state[j].decl))};
      else
        out.vars[state[j]] = v;
    }
  }
  if (bodiesLowered == loweredBefore) { // no effect outside: for its errors
    BodySpec none;
    none.kind = TargetKind::None;
    none.index = indexVar(arena, lc);
    lowerLoopBody(lc, none, env);
  }
  return afterLoop(lc, pre, post, std::move(out), next, tail, loc);
}

} // namespace lowering_detail
} // namespace chad
