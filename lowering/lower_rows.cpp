// lower_rows.cpp: parameters C declares as rows, `double A[][3]`,
// `double R[3][3]`, `const double (*M)[4]` (DESIGN.md 8.41).
//
// Requires: the signature lowered (classifyParam gives such a parameter the
// IR type of one flat array), before DerefRewrite.
// Guarantees: while the rewrite lives, the function's body names each such
// parameter p (rows of C elements of type T) only flat, as a `T *`:
// `p[i][j]` is `p[i*C + j]`, a row `p[i]` (or `*p`, `*(p + i)`) used as a
// pointer is `p + i*C`, and `&p[i]`, `p + k`, `p - k` are `p + i*C`,
// `p + k*C`, `p - k*C`. `p` passed whole stays as it is (the same memory).
// Every rule the lowering has for one-dimensional arrays (outputs written
// in a nest, in-out updates, views passed to callees) then holds for rows.
// C's signatures keep the rows (Func.rows, emit_c.c). A cast of such a
// parameter to a flat pointer to its numbers, `(const double *)A`, is A
// flat. In every function, a cast between pointers to the same numbers,
// flat or rows (`(const double *)R`, `(const double (*)[3])x`), that keeps
// `const` and whose value is used whole (a call's argument, a pointer's
// initial value) is its operand: the same memory, which the lowering sees
// flat anyway. (Under `+` or `[]` it stays: the offset counts elements of
// the cast's type.)
#include "lowering/lowerer.h"

namespace chad {
namespace lowering_detail {

using clang::BinaryOperatorKind;
using clang::ImplicitCastExpr;
using clang::UnaryOperator;

void RowsRewrite::apply(const FunctionDecl *fd, Stmt *body) {
  for (const clang::ParmVarDecl *p : fd->parameters())
    if (long long c = rowLength(p->getType()))
      rows[p] = c;
  walk(body);
  rewritten();
}

// The rows parameter `e` names, or null.
const clang::ParmVarDecl *RowsRewrite::rowsParam(const CExpr *e) const {
  const auto *d = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
  const auto *p = d ? dyn_cast<clang::ParmVarDecl>(d->getDecl()) : nullptr;
  return p && rows.count(p) && rowLength(d->getType()) ? p : nullptr; // not flat(p)
}

// Is `e` a row of a rows parameter: `p[i]`, `*p`, `*(p + i)`? Then `p` and
// the row index `i` (null for row 0).
bool RowsRewrite::rowOf(CExpr *e, const clang::ParmVarDecl *&p, CExpr *&i) const {
  e = e->IgnoreParens();
  if (auto *s = dyn_cast<ArraySubscriptExpr>(e); s && (p = rowsParam(s->getBase()))) {
    i = s->getIdx();
    return true;
  }
  auto *u = dyn_cast<UnaryOperator>(e);
  if (!u || u->getOpcode() != clang::UO_Deref)
    return false;
  CExpr *sub = u->getSubExpr()->IgnoreParenImpCasts();
  if ((p = rowsParam(sub))) {
    i = nullptr;
    return true;
  }
  auto *b = dyn_cast<BinaryOperator>(sub);
  if (!b || b->getOpcode() != clang::BO_Add)
    return false;
  bool left = (p = rowsParam(b->getLHS())) != nullptr;
  if (!left && !(p = rowsParam(b->getRHS())))
    return false;
  i = left ? b->getRHS() : b->getLHS();
  return true;
}

CExpr *RowsRewrite::asLong(CExpr *e) {
  if (e->isGLValue())
    e = ImplicitCastExpr::Create(ctx, e->getType().getUnqualifiedType(), clang::CK_LValueToRValue,
                                 e, nullptr, clang::VK_PRValue, clang::FPOptionsOverride());
  if (ctx.hasSameUnqualifiedType(e->getType(), ctx.LongTy))
    return e;
  return ImplicitCastExpr::Create(ctx, ctx.LongTy, clang::CK_IntegralCast, e, nullptr,
                                  clang::VK_PRValue, clang::FPOptionsOverride());
}

CExpr *RowsRewrite::binary(CExpr *a, CExpr *b, BinaryOperatorKind op, QualType t,
                           SourceLocation loc) {
  return BinaryOperator::Create(ctx, a, b, op, t, clang::VK_PRValue, clang::OK_Ordinary, loc,
                                clang::FPOptionsOverride());
}

// `i * C` as a long (i null: 0), its operand rewritten first.
CExpr *RowsRewrite::rowStart(const clang::ParmVarDecl *p, CExpr *i, SourceLocation loc) {
  auto literal = [&](long long v) -> CExpr * {
    return clang::IntegerLiteral::Create(ctx, llvm::APInt(64, (uint64_t)v, true), ctx.LongTy, loc);
  };
  if (!i)
    return literal(0);
  i = rewrite(i);
  CExpr *paren = new (ctx) clang::ParenExpr(loc, loc, asLong(i));
  return binary(paren, literal(rows.at(p)), clang::BO_Mul, ctx.LongTy, loc);
}

// p as the flat `T *` it is to the lowering.
CExpr *RowsRewrite::flat(const clang::ParmVarDecl *p, SourceLocation loc) {
  const clang::ArrayType *row = ctx.getAsArrayType(p->getType()->getPointeeType());
  QualType ptr = ctx.getPointerType(row->getElementType());
  auto *ref = DeclRefExpr::Create(ctx, clang::NestedNameSpecifierLoc(), SourceLocation(),
                                  const_cast<clang::ParmVarDecl *>(p), false, loc, ptr,
                                  clang::VK_LValue);
  return ImplicitCastExpr::Create(ctx, ptr, clang::CK_LValueToRValue, ref, nullptr,
                                  clang::VK_PRValue, clang::FPOptionsOverride());
}

// `p + start` of type `T *`.
CExpr *RowsRewrite::pointer(const clang::ParmVarDecl *p, CExpr *start, BinaryOperatorKind op,
                            SourceLocation loc) {
  CExpr *base = flat(p, loc);
  return binary(base, start, op, base->getType(), loc);
}

// The numbers a pointer (or an array, or rows) of type t holds, with their
// qualifiers: T of `T *`, `T (*)[C]`, `T [N]`, `T [N][C]`; null otherwise.
static const clang::Type *numbers(QualType t, const clang::ASTContext &ctx, bool &isConst) {
  QualType e = t->isPointerType() ? t->getPointeeType() : t->isArrayType() ? QualType(ctx.getAsArrayType(t)->getElementType()) : QualType();
  if (e.isNull())
    return nullptr;
  if (const clang::ArrayType *row = ctx.getAsArrayType(e))
    e = row->getElementType();
  isConst = e.isConstQualified();
  return e->isArithmeticType() ? e.getCanonicalType().getUnqualifiedType().getTypePtr() : nullptr;
}

// Is c a cast between pointers to the same numbers, flat or rows, that
// keeps const?
bool RowsRewrite::flattening(const clang::CStyleCastExpr *c) const {
  bool toConst = false, fromConst = false;
  const clang::Type *to = numbers(c->getType(), ctx, toConst);
  const clang::Type *from = numbers(c->getSubExpr()->IgnoreParenImpCasts()->getType(), ctx, fromConst);
  return c->getType()->isPointerType() && to && to == from && (toConst || !fromConst);
}

// The replacement of `e`, or e itself with its children rewritten.
CExpr *RowsRewrite::rewrite(CExpr *e) {
  SourceLocation loc = e->getExprLoc();
  const clang::ParmVarDecl *p = nullptr;
  CExpr *i = nullptr;
  if (auto *c = dyn_cast<clang::CStyleCastExpr>(e->IgnoreParens());
      c && flattening(c) && (p = rowsParam(c->getSubExpr())) && !rowLength(c->getType()))
    return flat(p, loc); // (const double *)A
  if (auto *s = dyn_cast<ArraySubscriptExpr>(e->IgnoreParens());
      s && rowOf(s->getBase()->IgnoreParenImpCasts(), p, i)) { // p[i][j]
    CExpr *j = asLong(rewrite(s->getIdx()));
    CExpr *at = binary(rowStart(p, i, loc), j, clang::BO_Add, ctx.LongTy, loc);
    return new (ctx) ArraySubscriptExpr(flat(p, loc), at, s->getType(), clang::VK_LValue,
                                        clang::OK_Ordinary, s->getRBracketLoc());
  }
  if (auto *c = dyn_cast<ImplicitCastExpr>(e); c && c->getCastKind() == clang::CK_ArrayToPointerDecay &&
                                               rowOf(c->getSubExpr(), p, i))
    return pointer(p, rowStart(p, i, loc), clang::BO_Add, loc); // a row as a pointer
  if (auto *u = dyn_cast<UnaryOperator>(e->IgnoreParens()); u && u->getOpcode() == clang::UO_AddrOf) {
    auto *s = dyn_cast<ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens());
    if (s && (p = rowsParam(s->getBase())))
      return pointer(p, rowStart(p, s->getIdx(), loc), clang::BO_Add, loc); // &p[i]
  }
  if (auto *b = dyn_cast<BinaryOperator>(e->IgnoreParens()); b && b->isAdditiveOp()) {
    bool left = (p = rowsParam(b->getLHS())) != nullptr && b->getRHS()->getType()->isIntegerType();
    if (left || (b->getOpcode() == clang::BO_Add && (p = rowsParam(b->getRHS()))))
      return pointer(p, rowStart(p, left ? b->getRHS() : b->getLHS(), loc), b->getOpcode(), loc);
  }
  walk(e);
  return e;
}

void RowsRewrite::walk(Stmt *s) {
  if (!s || isa<clang::UnaryExprOrTypeTraitExpr>(s)) // sizeof is not evaluated
    return;
  bool whole = isa<CallExpr>(s) || isa<clang::DeclStmt>(s); // values used whole
  for (Stmt *&child : s->children()) {
    auto *e = dyn_cast_or_null<CExpr>(child);
    if (!e) {
      walk(child);
      continue;
    }
    auto *c = dyn_cast<clang::CStyleCastExpr>(e->IgnoreParens());
    CExpr *with = rewrite(whole && c && flattening(c) ? c->getSubExpr() : e);
    if (with != e)
      replace(child, with);
  }
}

} // namespace lowering_detail
} // namespace chad
