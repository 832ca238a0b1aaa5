// lower_views.cpp: pointers into arrays (DESIGN.md section 8.5).
//
// `&a[k]`, `a + k` and local pointers initialised from them (`const double
// *row = A + i*m;`) are views: IR (view a k), the array from element k on,
// as the same memory. A pointer local is bound once, where it is declared
// (assigning it later is an error, as a value joined across branches or
// carried by a loop would need), and is read-only: it is read (`row[j]`,
// `*row`, `*(row + j)`) and passed to a differentiable function's input
// array; writes through it are errors until in-place updates exist.
// `*e` is `e[0]` and `*(e + k)` is `e[k]`: before lowering, such nodes
// are replaced in the function's AST by array subscripts (and put back
// after), so that every rule for subscripts applies to them.
#include "lowering/lowerer.h"

#include "clang/AST/ParentMapContext.h"

namespace chad {
namespace lowering_detail {

// `const double *row = A + i*m;`: row is bound to the view, once.
void Lowerer::lowerPointerDecl(const VarDecl *v, Env &env, std::vector<Binding> &out) {
  if (scratchArrays.count(v)) // `double *t = malloc(...)` (lower_memory.cpp)
    return lowerScratchDecl(v, env, out);
  SourceLocation loc = v->getLocation();
  const CExpr *init = v->getInit();
  if (!init || !viewBase(init))
    fail(loc, "pointer '" + v->getNameAsString() + "' must be initialised to point "
                  "into an array ('a', '&a[k]' or 'a + k') where it is declared");
  const VarDecl *base = nullptr;
  Expr *value = lowerArrayRef(init, env, base);
  if (!type_eq(arrays.at(base).elem, arrays.at(v).elem))
    fail(loc, "pointer '" + v->getNameAsString() + "' has another element type than '" +
                  base->getNameAsString() + "', which it points into");
  Var *var = var_new(arena, v->getNameAsString().c_str(), ty_array(arena, arrays.at(v).elem));
  out.push_back({var, value, loc});
  env.arrays[v] = ArrayVal{var, nullptr};
}

// A local pointer variable is a view: the array it points into from some
// element on. Its element type is checked where it is declared.
void Lowerer::registerPointerView(const VarDecl *v) {
  if (arrays.count(v) || registerScratch(v))
    return;
  ArrayInfo info;
  info.role = ArrayRole::View;
  info.elem = irScalarType(v->getType()->getPointeeType());
  info.constIndexOnly = false;
  arrays[v] = info;
}

// Views are bound once, where they are declared: a pointer assigned later
// (in a branch or a loop, `xp = &s[i]`, or stepped with `p++`) would need
// its value joined across paths and carried by loops.
void Lowerer::checkPointerUse(const Stmt *s) {
  if (isSelfRealloc(s)) // keeps the array (lower_memory.cpp)
    return;
  const CExpr *target = nullptr;
  if (const auto *b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp())
    target = b->getLHS();
  if (const auto *u = dyn_cast<UnaryOperator>(s); u && u->isIncrementDecrementOp())
    target = u->getSubExpr();
  if (!target || !target->getType()->isPointerType())
    return;
  if (const auto *d = dyn_cast<DeclRefExpr>(target->IgnoreParenImpCasts()))
    if (const auto *v = dyn_cast<VarDecl>(d->getDecl()))
      fail(s->getBeginLoc(), "assigning pointer '" + v->getNameAsString() +
                                 "' after its declaration is not supported yet "
                                 "(declare a new pointer where it is needed)");
}

// The array a view expression points into: a known array `a`, `&a[k]`,
// `a + k`, `k + a`, `a - k`, of another view; null when e is none of these.
const VarDecl *Lowerer::viewBase(const CExpr *e) {
  e = e->IgnoreParenImpCasts();
  if (const VarDecl *d = arrayDecl(e))
    return arrays.at(d).cols > 0 ? nullptr : d;
  if (const auto *u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == clang::UO_AddrOf)
    if (const auto *s = dyn_cast<ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens()))
      return viewBase(s->getBase());
  if (const auto *b = dyn_cast<BinaryOperator>(e); b && b->isAdditiveOp()) {
    if (b->getLHS()->getType()->isPointerType())
      return viewBase(b->getLHS());
    if (b->getOpcode() == clang::BO_Add && b->getRHS()->getType()->isPointerType())
      return viewBase(b->getRHS());
  }
  return nullptr;
}

// The IR array a view expression designates: the array's value, or a view
// of it at the offset (`&a[k]` and `a + k` alike). `base` gets the array.
Expr *Lowerer::lowerArrayRef(const CExpr *e, const Env &env, const VarDecl *&base) {
  SourceLocation loc = e->getExprLoc();
  e = e->IgnoreParenImpCasts();
  if (const VarDecl *d = arrayDecl(e)) {
    base = d;
    if (arrays.at(d).scalarReplaced)
      fail(loc, "pointer into array '" + d->getNameAsString() +
                    "', which is only ever indexed at constants otherwise; not supported");
    if (ownerOf(d))
      fail(loc, "pointer into array '" + d->getNameAsString() +
                    "', which the loop around it writes; not supported yet");
    return arrayValue(d, loc, env, "points into");
  }
  const CExpr *arr = nullptr, *off = nullptr;
  bool minus = false;
  if (const auto *u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == clang::UO_AddrOf) {
    const auto *s = cast<ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens());
    arr = s->getBase();
    off = s->getIdx();
  } else {
    const auto *b = cast<BinaryOperator>(e);
    bool left = b->getLHS()->getType()->isPointerType();
    arr = left ? b->getLHS() : b->getRHS();
    off = left ? b->getRHS() : b->getLHS();
    minus = b->getOpcode() == clang::BO_Sub;
  }
  Expr *whole = lowerArrayRef(arr, env, base);
  Expr *k = lowerIndex(off, env);
  if (minus)
    k = iSub(mkInt(0, loc), k, loc);
  if (whole->kind == E_VIEW) { // a + n - 1: one view at offset n - 1
    k = iAdd(whole->args[1], k, loc);
    whole = whole->args[0];
  }
  Expr *v = at(ex_view(arena, whole, k), loc);
  v->type = whole->type;
  return v;
}


// `*e` and `*(e + k)` as subscripts `e[0]` and `e[k]`, for pointers to
// numbers: replaced in the AST while the function is lowered.
void DerefRewrite::walk(Stmt *s) {
  if (!s)
    return;
  for (Stmt *&child : s->children()) {
    if (auto *u = dyn_cast_or_null<UnaryOperator>(child);
        u && u->getOpcode() == clang::UO_Deref && u->getType()->isArithmeticType()) {
      CExpr *base = u->getSubExpr(), *index = nullptr;
      if (auto *b = dyn_cast<BinaryOperator>(base->IgnoreParens());
          b && b->getOpcode() == clang::BO_Add) {
        bool left = b->getLHS()->getType()->isPointerType();
        base = left ? b->getLHS() : b->getRHS();
        index = left ? b->getRHS() : b->getLHS();
      }
      if (!index)
        index = clang::IntegerLiteral::Create(ctx, llvm::APInt(32, 0), ctx.IntTy,
                                              u->getOperatorLoc());
      auto *sub = new (ctx) ArraySubscriptExpr(base, index, u->getType(), clang::VK_LValue,
                                               clang::OK_Ordinary, u->getEndLoc());
      Stmt **at = &child;
      undo.push_back({at, child});
      child = sub;
    }
    walk(child);
  }
}

DerefRewrite::~DerefRewrite() {
  for (auto it = undo.rbegin(); it != undo.rend(); ++it)
    *it->first = it->second;
  if (!undo.empty()) // lowering asks for parents: of the body as it was
    ctx.getParentMapContext().clear();
}

void DerefRewrite::apply(Stmt *body) {
  walk(body);
  if (!undo.empty())
    ctx.getParentMapContext().clear();
}

} // namespace lowering_detail
} // namespace chad
