// lower_private.cpp: scratch arrays private to each iteration of a loop
// (DESIGN.md section 8.17).
//
// Numerical C reuses one scratch array in every iteration of a loop:
//
//     for (ik = 0; ik < k; ik++) {
//       subtract(d, &x[ix*d], &means[ik*d], xcentered);
//       Qtimesx(d, ..., xcentered, Qxcentered);
//       ... sqnorm(d, Qxcentered) ...
//     }
//
// Each iteration fills xcentered before it reads it, and nothing reads it
// after the loop, so no value flows through it from one iteration to the
// next. Carrying it in the loop's state would make every element written an
// in-place update and, in reverse mode, an undo-log entry. Instead the
// loop's body starts every iteration with such an array unwritten, as if it
// were declared in the body: the call's output is a fresh value, and the
// loop carries nothing for it.
#include "lowering/lowerer.h"

#include "clang/Basic/SourceManager.h"

namespace chad {
namespace lowering_detail {

// Does the statement or expression s name d?
bool Lowerer::mentions(const Stmt *s, const VarDecl *d) {
  if (!s)
    return false;
  if (const auto *r = dyn_cast<DeclRefExpr>(s))
    return r->getDecl() == d;
  for (const Stmt *c : s->children())
    if (mentions(c, d))
      return true;
  return false;
}

// `a`, `&a[0]` or `a + 0`: the start of array a, as a call passes a whole
// array; null for any other expression.
const VarDecl *Lowerer::wholeArrayArg(const CExpr *e) {
  if (const VarDecl *d = arrayDecl(e))
    return d;
  e = e->IgnoreParenImpCasts();
  const CExpr *base = nullptr, *offset = nullptr;
  if (const auto *u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == clang::UO_AddrOf) {
    if (const auto *s = dyn_cast<ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens())) {
      base = s->getBase();
      offset = s->getIdx();
    }
  } else if (const auto *b = dyn_cast<BinaryOperator>(e);
             b && b->getOpcode() == clang::BO_Add && b->getLHS()->getType()->isPointerType()) {
    base = b->getLHS();
    offset = b->getRHS();
  }
  long long c;
  if (base && constIndex(offset, c) && c == 0)
    return arrayDecl(base);
  return nullptr;
}

// Is s a call statement that fills d from its first element: d passed
// whole as an output array of a callee that writes arrays, and named by no
// other argument?
bool Lowerer::fillsWhole(const Stmt *s, const VarDecl *d) {
  const auto *e = dyn_cast<CExpr>(s);
  if (!e)
    return false;
  const auto *call = dyn_cast<CallExpr>(e->IgnoreParenCasts());
  const FunctionDecl *callee = call ? call->getDirectCallee() : nullptr;
  if (!callee || !effectCallIn(call) || call->getNumArgs() != callee->getNumParams())
    return false;
  bool fills = false;
  for (unsigned i = 0; i < call->getNumArgs(); i++) {
    const CExpr *a = call->getArg(i);
    if (!mentions(a, d))
      continue;
    ParamClass cls;
    Type *t = nullptr;
    std::string problem;
    if (fills || wholeArrayArg(a) != d ||
        !classifyParam(callee->getParamDecl(i), cls, t, problem) || cls != PARAM_OUT_ARRAY)
      return false;
    fills = true;
  }
  return fills;
}

// Is v (a parameter or local integer) never assigned, incremented or
// given away by address anywhere in the function?
bool Lowerer::neverWritten(const clang::ValueDecl *v) {
  bool written = false;
  std::function<void(const Stmt *)> walk = [&](const Stmt *s) {
    if (!s || written)
      return;
    const CExpr *target = nullptr;
    if (const auto *b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp())
      target = b->getLHS();
    else if (const auto *u = dyn_cast<UnaryOperator>(s);
             u && (u->isIncrementDecrementOp() || u->getOpcode() == clang::UO_AddrOf))
      target = u->getSubExpr();
    if (const auto *r = target ? dyn_cast<DeclRefExpr>(target->IgnoreParenImpCasts()) : nullptr;
        r && r->getDecl() == v)
      written = true;
    for (const Stmt *c : s->children())
      walk(c);
  };
  walk(fd->getBody());
  return !written;
}

// Is `bound` d's number of elements, by the same unchanging value: the
// constant size of a fixed-size array, or the variable or constant n of
// `malloc(n * sizeof ...)`, `calloc(n, sizeof ...)` or `double d[n]`?
bool Lowerer::sameCount(const CExpr *bound, const VarDecl *d) {
  bound = bound->IgnoreParenImpCasts();
  clang::Expr::EvalResult r;
  long long constant = -1;
  if (bound->EvaluateAsInt(r, ctx))
    constant = r.Val.getInt().getExtValue();
  const auto *bref = dyn_cast<DeclRefExpr>(bound);
  const clang::ValueDecl *bvar = bref ? bref->getDecl() : nullptr;
  if (constant < 0 && !(bvar && (isa<clang::ParmVarDecl>(bvar) || isa<VarDecl>(bvar)) &&
                        bvar->getType()->isIntegerType() && neverWritten(bvar)))
    return false;
  auto same = [&](const CExpr *n) {
    n = n->IgnoreParenImpCasts();
    clang::Expr::EvalResult nr;
    if (constant >= 0)
      return n->EvaluateAsInt(nr, ctx) && nr.Val.getInt().getExtValue() == constant;
    const auto *nref = dyn_cast<DeclRefExpr>(n);
    return nref && nref->getDecl() == bvar;
  };
  const ArrayInfo &info = arrays.at(d);
  if (info.fixedSize >= 0 && info.cols == 0)
    return constant == info.fixedSize;
  if (const auto *vla = ctx.getAsVariableArrayType(d->getType()))
    return same(vla->getSizeExpr());
  const CExpr *count;
  long long constantCount;
  if (!allocationCount(d, count, constantCount) || !neverWritten(d))
    return false; /* not allocated once and kept */
  return count ? same(count) : constant == constantCount;
}

// Is f `for (i = 0; i < n; i++) { ... d[i] = e; ... }`, with n d's number
// of elements, the assignment unconditional at the top level of the body,
// nothing else in the loop naming d, and nothing leaving an iteration
// early? Then each run of f writes every element of d before anything
// after it reads one.
bool Lowerer::loopFillsWhole(const clang::ForStmt *f, const VarDecl *d) {
  const clang::ValueDecl *i = nullptr;
  const CExpr *start = nullptr;
  if (const auto *ds = dyn_cast_or_null<clang::DeclStmt>(f->getInit());
      ds && ds->isSingleDecl()) {
    if (const auto *v = dyn_cast<VarDecl>(ds->getSingleDecl()))
      i = v, start = v->getInit();
  } else if (const auto *b = dyn_cast_or_null<BinaryOperator>(f->getInit());
             b && b->getOpcode() == clang::BO_Assign) {
    if (const auto *r = dyn_cast<DeclRefExpr>(b->getLHS()->IgnoreParenImpCasts()))
      i = r->getDecl(), start = b->getRHS();
  }
  long long zero;
  if (!i || !start || !i->getType()->isIntegerType() || !constIndex(start, zero) || zero != 0)
    return false;
  auto isCounter = [&](const CExpr *e) {
    const auto *r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    return r && r->getDecl() == i;
  };
  const auto *cond = dyn_cast_or_null<BinaryOperator>(f->getCond());
  const CExpr *bound = nullptr;
  if (cond && cond->getOpcode() == clang::BO_LT && isCounter(cond->getLHS()))
    bound = cond->getRHS();
  else if (cond && cond->getOpcode() == clang::BO_GT && isCounter(cond->getRHS()))
    bound = cond->getLHS();
  const auto *inc = dyn_cast_or_null<UnaryOperator>(f->getInc());
  if (!bound || !inc || !inc->isIncrementOp() || !isCounter(inc->getSubExpr()) ||
      !sameCount(bound, d))
    return false;
  bool early = false, counterWritten = false;
  std::function<void(const Stmt *)> walk = [&](const Stmt *s) {
    if (!s)
      return;
    if (isa<clang::BreakStmt>(s) || isa<clang::ContinueStmt>(s) || isa<clang::ReturnStmt>(s) ||
        isa<clang::GotoStmt>(s))
      early = true;
    if (const auto *b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp() && isCounter(b->getLHS()))
      counterWritten = true;
    if (const auto *u = dyn_cast<UnaryOperator>(s);
        u && (u->isIncrementDecrementOp() || u->getOpcode() == clang::UO_AddrOf) &&
        isCounter(u->getSubExpr()))
      counterWritten = true;
    for (const Stmt *c : s->children())
      walk(c);
  };
  walk(f->getBody());
  if (early || counterWritten)
    return false;
  std::vector<const Stmt *> parts;
  if (const auto *c = dyn_cast<clang::CompoundStmt>(f->getBody()))
    parts.assign(c->body_begin(), c->body_end());
  else
    parts.push_back(f->getBody());
  int naming = 0;
  bool fills = false;
  for (const Stmt *part : parts) {
    if (!mentions(part, d))
      continue;
    naming++;
    const auto *b = dyn_cast<BinaryOperator>(part);
    const auto *lhs = b && b->getOpcode() == clang::BO_Assign
                          ? dyn_cast<ArraySubscriptExpr>(b->getLHS()->IgnoreParens())
                          : nullptr;
    fills = lhs && arrayDecl(lhs->getBase()) == d && isCounter(lhs->getIdx()) &&
            !mentions(b->getRHS(), d);
  }
  return naming == 1 && fills;
}

// How a run of s first touches d: not at all, by filling it, only inside
// loops nested in s that each keep d private, or otherwise (a read, a write
// of some elements, a conditional use).
Lowerer::Touch Lowerer::firstTouch(const Stmt *s, const VarDecl *d) {
  if (!mentions(s, d))
    return Touch::None;
  if (const auto *c = dyn_cast<clang::CompoundStmt>(s)) {
    bool inner = false;
    for (const Stmt *part : c->body()) {
      Touch t = firstTouch(part, d);
      if (t == Touch::Fills || t == Touch::Other)
        return t;
      inner = inner || t == Touch::Inner;
    }
    return inner ? Touch::Inner : Touch::None;
  }
  const Stmt *body = nullptr;
  std::vector<const Stmt *> header;
  if (const auto *f = dyn_cast<ForStmt>(s)) {
    header = {f->getInit(), f->getCond(), f->getInc()};
    body = f->getBody();
  } else if (const auto *w = dyn_cast<clang::WhileStmt>(s)) {
    header = {w->getCond()};
    body = w->getBody();
  } else if (const auto *w = dyn_cast<clang::DoStmt>(s)) {
    header = {w->getCond()};
    body = w->getBody();
  }
  if (body) {
    for (const Stmt *part : header)
      if (mentions(part, d))
        return Touch::Other;
    if (const auto *f = dyn_cast<ForStmt>(s); f && loopFillsWhole(f, d))
      return Touch::Fills;
    Touch t = firstTouch(body, d);
    return t == Touch::Fills ? Touch::Inner : t;
  }
  return fillsWhole(s, d) ? Touch::Fills : Touch::Other;
}

// Is d named after the loop s, other than by `free(d)`?
bool Lowerer::usedAfter(const Stmt *loop, const VarDecl *d) {
  const clang::SourceManager &sm = ctx.getSourceManager();
  SourceLocation end = loop->getEndLoc();
  bool used = false;
  std::function<void(const Stmt *)> walk = [&](const Stmt *s) {
    if (!s || used)
      return;
    if (const auto *call = dyn_cast<CallExpr>(s))
      if (const FunctionDecl *f = call->getDirectCallee();
          f && f->getName() == "free" && call->getNumArgs() == 1 &&
          arrayDecl(call->getArg(0)) == d)
        return;
    if (const auto *r = dyn_cast<DeclRefExpr>(s);
        r && r->getDecl() == d && sm.isBeforeInTranslationUnit(end, r->getBeginLoc()))
      used = true;
    for (const Stmt *c : s->children())
      walk(c);
  };
  walk(fd->getBody());
  return used;
}

// Requires: h is the header of a loop about to be lowered in env.
// Guarantees: the local arrays in env that every iteration of the loop
// fills before it reads them, and that nothing reads after the loop.
std::set<const VarDecl *> Lowerer::privateArrays(const LoopHeader &h, const Env &env) {
  std::set<const VarDecl *> found;
  const Stmt *loop = h.stmt ? (const Stmt *)h.stmt : h.body;
  for (const auto &[d, value] : env.arrays) {
    (void)value;
    const ArrayInfo &info = arrays.at(d);
    if (info.role != ArrayRole::Local || info.scalarReplaced || mentions(h.whileCond, d))
      continue;
    if (h.stmt && (mentions(h.stmt->getInit(), d) || mentions(h.stmt->getCond(), d) ||
                   mentions(h.stmt->getInc(), d)))
      continue;
    Touch t = firstTouch(h.body, d);
    if ((t == Touch::Fills || t == Touch::Inner) && !usedAfter(loop, d))
      found.insert(d);
  }
  return found;
}

// Finds the loop's private arrays (lc.privates) and returns the scope its
// scan sees: env without them, so that the loop neither classifies nor
// carries them.
Env Lowerer::privateScope(LoopCtx &lc, const Env &env) {
  lc.privates = privateArrays(lc.h, env);
  Env scope = env;
  for (const VarDecl *d : lc.privates)
    scope.arrays.erase(d);
  return scope;
}

} // namespace lowering_detail
} // namespace chad
