// lower_chains.cpp: statements whose value is that of an array update.
//
// Requires: a function body after DerefRewrite (`*p` is already `p[0]`).
// Guarantees: while the rewrite lives, no expression statement of the form
// `A op= (E op= v)`, `A op= ++E` or `A op= E++` (E an array element whose
// base and index have no side effects) is left; each is a block of two
// statements, the update of E and the assignment of A from a read of E, in
// C's order of effects. Anything else is left as it was (and keeps its
// located error, "assignment to an array element inside an expression").
//
// Why a rewrite: array updates are statements to the lowering (each makes
// the next version of the array, DESIGN 8.16); a scalar assignment inside
// an expression is hoisted before its statement, but an update of an array
// there would need the versions threaded through the expression. Reading
// the element again after the update gives the assigned value exactly: the
// value of `E = v` is E's value after the assignment (C11 6.5.16p3).
#include "lowering/lowerer.h"

#include "clang/Basic/Version.h" // CLANG_VERSION_MAJOR: CompoundStmt::Create

namespace chad {
namespace lowering_detail {

using clang::CompoundAssignOperator;
using clang::ImplicitCastExpr;
using clang::UnaryOperator;

// The array element that `e` (an assignment, ++ or --) updates, or null.
static ArraySubscriptExpr *updatedElement(CExpr *e, const clang::ASTContext &ctx) {
  CExpr *target = nullptr;
  if (auto *b = dyn_cast<BinaryOperator>(e); b && b->isAssignmentOp())
    target = b->getLHS();
  else if (auto *u = dyn_cast<UnaryOperator>(e); u && u->isIncrementDecrementOp())
    target = u->getSubExpr();
  auto *s = target ? dyn_cast<ArraySubscriptExpr>(target->IgnoreParens()) : nullptr;
  return s && !s->HasSideEffects(ctx) ? s : nullptr;
}

void ChainRewrite::apply(Stmt *body) {
  walk(body);
  rewritten();
}

// Every slot that holds a statement (not an expression operand) is offered
// to split.
void ChainRewrite::walk(Stmt *s) {
  if (!s)
    return;
  auto isStatementSlot = [&](const Stmt *child) {
    if (isa<clang::CompoundStmt>(s) || isa<clang::SwitchCase>(s) || isa<clang::LabelStmt>(s))
      return true;
    if (const auto *f = dyn_cast<clang::ForStmt>(s))
      return child == f->getBody();
    if (const auto *w = dyn_cast<clang::WhileStmt>(s))
      return child == w->getBody();
    if (const auto *d = dyn_cast<clang::DoStmt>(s))
      return child == d->getBody();
    if (const auto *i = dyn_cast<IfStmt>(s))
      return child == i->getThen() || child == i->getElse();
    return false;
  };
  if (isa<CExpr>(s))
    return; // no statements inside (statement expressions are refused)
  for (Stmt *&child : s->children()) {
    if (!child)
      continue;
    if (isStatementSlot(child))
      if (Stmt *with = split(child))
        replace(child, with);
    walk(child);
  }
}

// `A op= X` where X (through parentheses and one implicit conversion) is
// an update of an array element: the two statements, or null.
Stmt *ChainRewrite::split(Stmt *s) {
  auto *outer = dyn_cast<BinaryOperator>(s);
  if (!outer || !outer->isAssignmentOp())
    return nullptr;
  CExpr *rhs = outer->getRHS()->IgnoreParens();
  auto *conversion = dyn_cast<ImplicitCastExpr>(rhs);
  CExpr *inner = conversion ? conversion->getSubExpr()->IgnoreParens() : rhs;
  ArraySubscriptExpr *elem = updatedElement(inner, ctx);
  if (!elem)
    return nullptr;
  SourceLocation loc = inner->getExprLoc();
  // the element read again: its value after the update (or, for E++ and
  // E--, before it, by reading first)
  auto *again = new (ctx) ArraySubscriptExpr(elem->getLHS(), elem->getRHS(), elem->getType(),
                                             clang::VK_LValue, clang::OK_Ordinary,
                                             elem->getRBracketLoc());
  CExpr *read = ImplicitCastExpr::Create(ctx, elem->getType().getUnqualifiedType(),
                                         clang::CK_LValueToRValue, again, nullptr,
                                         clang::VK_PRValue, clang::FPOptionsOverride());
  if (conversion)
    read = ImplicitCastExpr::Create(ctx, conversion->getType(), conversion->getCastKind(), read,
                                    nullptr, clang::VK_PRValue, clang::FPOptionsOverride());
  Stmt *assign;
  if (auto *ca = dyn_cast<CompoundAssignOperator>(outer))
    assign = CompoundAssignOperator::Create(
        ctx, ca->getLHS(), read, ca->getOpcode(), ca->getType(), clang::VK_PRValue,
        clang::OK_Ordinary, ca->getOperatorLoc(), clang::FPOptionsOverride(),
        ca->getComputationLHSType(), ca->getComputationResultType());
  else
    assign = BinaryOperator::Create(ctx, outer->getLHS(), read, outer->getOpcode(),
                                    outer->getType(), clang::VK_PRValue, clang::OK_Ordinary,
                                    outer->getOperatorLoc(), clang::FPOptionsOverride());
  // the update may itself be a chain: `a[0] = a[1] = a[2] = v`
  Stmt *update = inner;
  if (Stmt *deeper = split(inner))
    update = deeper;
  const auto *u = dyn_cast<UnaryOperator>(inner);
  std::vector<Stmt *> two = u && u->isPostfix() ? std::vector<Stmt *>{assign, update}
                                                : std::vector<Stmt *>{update, assign};
#if CLANG_VERSION_MAJOR >= 15
  return clang::CompoundStmt::Create(ctx, two, clang::FPOptionsOverride(), loc, loc);
#else
  return clang::CompoundStmt::Create(ctx, two, loc, loc);
#endif
}

} // namespace lowering_detail
} // namespace chad
