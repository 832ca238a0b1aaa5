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
