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
#include "lowering/structs.h"

#include "clang/AST/ParentMapContext.h"

namespace chad {
namespace lowering_detail {

// `const double *row = A + i*m;`: row is bound to the view, once. A
// pointer into a constant table is a view of the table.
void Lowerer::lowerPointerDecl(const VarDecl *v, Env &env, std::vector<Binding> &out) {
  if (scratchArrays.count(v)) // `double *t = malloc(...)` (lower_memory.cpp)
    return lowerScratchDecl(v, env, out);
  SourceLocation loc = v->getLocation();
  const CExpr *init = v->getInit();
  Type *tableElem = nullptr;
  std::string table;
  if (Expr *ref = init ? tableRef(init, env, tableElem, table) : nullptr) { // into a table
    if (!type_eq(tableElem, arrays.at(v).elem))
      fail(loc, "pointer '" + sourceName(v) + "' has another element type than table '" +
                    table + "', which it points into");
    Var *var = var_new(arena, v->getNameAsString().c_str(), ty_array(arena, tableElem));
    out.push_back({var, ref, loc});
    env.arrays[v] = ArrayVal{var, nullptr};
    return;
  }
  if (!init || !viewBase(init))
    fail(loc, "pointer '" + sourceName(v) + "' must be initialised to point "
                  "into an array ('a', '&a[k]' or 'a + k') where it is declared");
  const VarDecl *base = nullptr;
  Expr *value = lowerArrayRef(init, env, base);
  if (!type_eq(arrays.at(base).elem, arrays.at(v).elem))
    fail(loc, "pointer '" + sourceName(v) + "' has another element type than '" +
                  sourceName(base) + "', which it points into");
  Var *var = var_new(arena, v->getNameAsString().c_str(), ty_array(arena, arrays.at(v).elem));
  out.push_back({var, value, loc});
  env.arrays[v] = ArrayVal{var, nullptr};
  viewRoots[v] = inRoot(base, value, loc);
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
      fail(s->getBeginLoc(), "assigning pointer '" + sourceName(v) +
                                 "' after its declaration is supported only when it "
                                 "always points into the same array (a parameter, a local "
                                 "array or allocated scratch); not supported yet");
}

// The two-dimensional local array `R` of a row `R[i]`, or null.
const VarDecl *Lowerer::rowOf(const CExpr *e) {
  const auto *s = dyn_cast<ArraySubscriptExpr>(e->IgnoreParens());
  if (!s || !s->getType()->isArrayType())
    return nullptr;
  const VarDecl *d = arrayDecl(s->getBase());
  return d && arrays.at(d).cols > 0 ? d : nullptr;
}

// The array a view expression points into: a known array `a`, `&a[k]`,
// `a + k`, `k + a`, `a - k`, a row `R[i]` of a two-dimensional one, of
// another view; null when e is none of these.
const VarDecl *Lowerer::viewBase(const CExpr *e) {
  e = e->IgnoreParenImpCasts();
  if (const VarDecl *d = arrayDecl(e))
    return d;
  if (const VarDecl *d = rowOf(e))
    return d;
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
      fail(loc, "pointer into array '" + sourceName(d) +
                    "', which is only ever indexed at constants otherwise; not supported");
    if (ownerOf(d))
      fail(loc, "pointer into array '" + sourceName(d) +
                    "', which the loop around it writes; not supported yet");
    return arrayValue(d, loc, env, "points into");
  }
  const CExpr *arr = nullptr, *off = nullptr;
  bool minus = false;
  if (const VarDecl *d = rowOf(e)) { // R[i]: the view of R at row i
    arr = cast<ArraySubscriptExpr>(e)->getBase();
    off = cast<ArraySubscriptExpr>(e)->getIdx();
    (void)d;
  } else if (const auto *u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == clang::UO_AddrOf) {
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
  if (const auto *row = dyn_cast<clang::ConstantArrayType>(
          arr->getType()->getPointeeOrArrayElementType()->getCanonicalTypeInternal().getTypePtr()))
    if (row->getElementType()->isArithmeticType()) // k rows of R: k * cols elements
      k = iMul(k, mkInt((long long)row->getSize().getZExtValue(), loc), loc);
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

// The array a pointer expression points into, followed through local
// pointers bound to views, and the offset there: `p + 2` with `p = x + i`
// is x at i + 2.
Expr *Lowerer::offsetInRoot(const CExpr *e, const Env &env, const VarDecl *&root) {
  const VarDecl *base = nullptr;
  Expr *view = lowerArrayRef(e, env, base);
  ViewRoot r = inRoot(base, view, e->getExprLoc());
  root = r.root;
  return r.offset;
}

// `view`, lowered from a pointer expression into `base`: in its root.
Lowerer::ViewRoot Lowerer::inRoot(const VarDecl *base, const Expr *view, SourceLocation loc) {
  Expr *k = view->kind == E_VIEW ? dup(arena, view->args[1]) : mkInt(0, loc);
  auto it = viewRoots.find(base);
  if (it == viewRoots.end())
    return ViewRoot{base, k};
  return ViewRoot{it->second.root, iAdd(dup(arena, it->second.offset), k, loc)};
}

// `p - q` of two pointers into the same array: the difference of their
// offsets there, as the ptrdiff_t C gives.
Expr *Lowerer::lowerPointerDifference(const clang::BinaryOperator *b, const Env &env) {
  SourceLocation loc = b->getExprLoc();
  if (std::string field = returnedViewField(b); !field.empty())
    return lowerReturnedView(b, field, env);
  if (!viewBase(b->getLHS()) || !viewBase(b->getRHS()))
    fail(loc, "pointer difference '" + text(b) + "' is supported only between pointers "
                  "into an array ('a', '&a[k]', 'a + k' or a local pointer into it)");
  const VarDecl *left = nullptr, *right = nullptr;
  Expr *l = offsetInRoot(b->getLHS(), env, left);
  Expr *r = offsetInRoot(b->getRHS(), env, right);
  if (left != right)
    fail(loc, "pointer difference '" + text(b) + "' of pointers into different arrays ('" +
                  sourceName(left) + "' and '" + sourceName(right) + "')");
  return toKind(iSub(l, r, loc), irScalarType(b->getType()), loc);
}

// The offset a struct result's pointer field returns, `p - base` for the
// array parameter base it must point into (structs.cpp), with errors that
// say so.
Expr *Lowerer::lowerReturnedView(const clang::BinaryOperator *b, const std::string &field,
                                 const Env &env) {
  SourceLocation loc = b->getExprLoc();
  const auto *base = cast<VarDecl>(cast<DeclRefExpr>(b->getRHS()->IgnoreParenImpCasts())->getDecl());
  std::string must = "the result's pointer field '" + field + "' must point into array "
                     "parameter '" + sourceName(base) + "' (a returned view)";
  const VarDecl *root = nullptr;
  Expr *at = nullptr;
  try {
    if (viewBase(b->getLHS()))
      at = offsetInRoot(b->getLHS(), env, root);
  } catch (const Unsupported &) {
  }
  if (!at)
    fail(loc, must + "; here it is not a pointer into an array parameter");
  if (root != base)
    fail(loc, must + "; here it points into '" + sourceName(root) + "'");
  return toKind(at, irScalarType(b->getType()), loc);
}

// A cast between pointers to the same element type, const aside.
bool constCastOnly(const clang::CastExpr *c, const clang::ASTContext &ctx) {
  QualType to = c->getType(), from = c->getSubExpr()->getType();
  return to->isPointerType() && from->isPointerType() &&
         ctx.hasSameUnqualifiedType(to->getPointeeType(), from->getPointeeType());
}

// `*e` and `*(e + k)` as subscripts `e[0]` and `e[k]`, for pointers to
// numbers: replaced in the AST while the function is lowered.
void DerefRewrite::walk(Stmt *s) {
  if (!s)
    return;
  for (Stmt *&child : s->children()) {
    // `(double *)p` of a `const double *p`: the same view (a cast that
    // drops const changes nothing the IR knows)
    while (auto *c = dyn_cast_or_null<clang::CStyleCastExpr>(child)) {
      if (!constCastOnly(c, ctx))
        break;
      replace(child, c->getSubExpr());
    }
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
      replace(child, sub);
    }
    walk(child);
  }
}

void DerefRewrite::apply(Stmt *body) {
  walk(body);
  rewritten();
}

BodyRewrite::~BodyRewrite() {
  for (auto it = undo.rbegin(); it != undo.rend(); ++it)
    *it->first = it->second;
  if (!undo.empty()) // lowering asks for parents: of the body as it was
    ctx.getParentMapContext().clear();
}

void BodyRewrite::replace(Stmt *&slot, Stmt *with) {
  undo.push_back({&slot, slot});
  slot = with;
}

void BodyRewrite::rewritten() {
  if (!undo.empty())
    ctx.getParentMapContext().clear();
}

// ------------------------------------------------------ declarations

// Does s mention v where it is evaluated (`sizeof *v` does not count)?
static bool mentions(const Stmt *s, const clang::VarDecl *v) {
  if (!s || isa<clang::UnaryExprOrTypeTraitExpr>(s))
    return false;
  if (const auto *d = dyn_cast<DeclRefExpr>(s))
    return d->getDecl() == v;
  if (const auto *d = dyn_cast<clang::DeclStmt>(s)) {
    for (const clang::Decl *x : d->decls())
      if (const auto *w = dyn_cast<clang::VarDecl>(x); w && mentions(w->getInit(), v))
        return true;
    return false;
  }
  for (const Stmt *c : s->children())
    if (mentions(c, v))
      return true;
  return false;
}

// Pointers mentioned by s can no longer move: they are used before a value.
void DeclSink::forget(const Stmt *s, std::vector<Pending> &pending) {
  pending.erase(std::remove_if(pending.begin(), pending.end(),
                               [&](const Pending &p) { return mentions(s, p.var); }),
                pending.end());
}

void DeclSink::sink(const Pending &p, Stmt **assignSlot, clang::Expr *value) {
  auto *d = cast<clang::DeclStmt>(*p.declSlot);
  std::vector<clang::Decl *> rest;
  for (clang::Decl *x : d->decls())
    if (x != p.var)
      rest.push_back(x);
  undo.push_back({p.declSlot, *p.declSlot});
  if (rest.empty())
    *p.declSlot = new (ctx) clang::NullStmt(d->getBeginLoc());
  else
    *p.declSlot = new (ctx) clang::DeclStmt(
        clang::DeclGroupRef::Create(ctx, rest.data(), rest.size()), d->getBeginLoc(),
        d->getEndLoc());
  inits.push_back({p.var, p.var->getInit()});
  p.var->setInit(value);
  Stmt *assign = *assignSlot;
  undo.push_back({assignSlot, assign});
  *assignSlot = new (ctx) clang::DeclStmt(clang::DeclGroupRef(p.var), assign->getBeginLoc(),
                                   assign->getEndLoc());
}

// The statements of a block in order, with the pointers declared and not
// yet mentioned; a plain nested block shares them (the blocks the struct
// flattener makes around a local's fields are not C scopes).
void DeclSink::block(clang::CompoundStmt *c, std::vector<Pending> &pending) {
  for (Stmt *&child : c->children()) {
    if (auto *inner = dyn_cast_or_null<clang::CompoundStmt>(child)) {
      block(inner, pending);
      continue;
    }
    if (auto *d = dyn_cast_or_null<clang::DeclStmt>(child)) {
      forget(d, pending);
      for (clang::Decl *x : d->decls()) {
        auto *v = dyn_cast<clang::VarDecl>(x);
        if (v && v->hasLocalStorage() && v->getType()->isPointerType() &&
            (!v->getInit() ||
             v->getInit()->isNullPointerConstant(ctx, CExpr::NPC_ValueDependentIsNotNull)))
          pending.push_back({v, &child});
      }
      continue;
    }
    if (auto *b = dyn_cast_or_null<BinaryOperator>(child);
        b && b->getOpcode() == clang::BO_Assign) {
      const auto *l = dyn_cast<DeclRefExpr>(b->getLHS()->IgnoreParens());
      auto it = std::find_if(pending.begin(), pending.end(), [&](const Pending &p) {
        return l && l->getDecl() == p.var;
      });
      if (it != pending.end() && !mentions(b->getRHS(), it->var)) {
        Pending p = *it;
        pending.erase(it);
        forget(b->getRHS(), pending);
        sink(p, &child, b->getRHS());
        continue;
      }
    }
    forget(child, pending);
    visit(child);
  }
}

// The blocks inside a statement that is not one: each starts afresh.
void DeclSink::visit(Stmt *s) {
  if (!s)
    return;
  if (auto *c = dyn_cast<clang::CompoundStmt>(s)) {
    std::vector<Pending> pending;
    block(c, pending);
    return;
  }
  for (Stmt *child : s->children())
    visit(child);
}

DeclSink::~DeclSink() {
  for (auto it = undo.rbegin(); it != undo.rend(); ++it)
    *it->first = it->second;
  for (auto it = inits.rbegin(); it != inits.rend(); ++it)
    it->first->setInit(it->second);
  if (!undo.empty())
    ctx.getParentMapContext().clear();
}

void DeclSink::apply(Stmt *body) {
  visit(body);
  if (!undo.empty())
    ctx.getParentMapContext().clear();
}

// ----------------------------------------------------------- aliases

static bool pointsToNumbers(QualType t) {
  return t->isPointerType() && t->getPointeeType()->isArithmeticType() &&
         !t->getPointeeType()->isBooleanType();
}

static const clang::VarDecl *refDecl(const CExpr *e) {
  if (const auto *d = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()))
    return dyn_cast<clang::VarDecl>(d->getDecl());
  return nullptr;
}

// An array a pointer may point into for good: a parameter (rows too: the
// body names them flat, RowsRewrite), a local array of numbers (one
// dimension), or scratch from an allocation.
bool AliasRewrite::isRoot(const clang::VarDecl *v) const {
  QualType t = v->getType();
  if (isa<clang::ParmVarDecl>(v))
    return pointsToNumbers(t) || rowLength(t) > 0;
  if (!v->hasLocalStorage())
    return false;
  if (const clang::ArrayType *a = ctx.getAsArrayType(t))
    return a->getElementType()->isArithmeticType();
  return pointsToNumbers(t) && isAllocatedPointer(v);
}

// The variable a pointer expression starts from: `B`, `&B[k]`, `B + k`,
// `k + B`, `B - k` (B a root or another pointer), or null.
const clang::VarDecl *AliasRewrite::baseOf(const CExpr *e) const {
  e = e->IgnoreParenImpCasts();
  if (const clang::VarDecl *v = refDecl(e))
    return e->getType()->isPointerType() || e->getType()->isArrayType() ? v : nullptr;
  if (const auto *u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == clang::UO_AddrOf)
    if (const auto *s = dyn_cast<ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens()))
      return s->getBase()->getType()->isPointerType() ? baseOf(s->getBase()) : nullptr;
  if (const auto *b = dyn_cast<BinaryOperator>(e); b && b->isAdditiveOp()) {
    if (b->getLHS()->getType()->isPointerType() && b->getRHS()->getType()->isIntegerType())
      return baseOf(b->getLHS());
    if (b->getOpcode() == clang::BO_Add && b->getRHS()->getType()->isPointerType())
      return baseOf(b->getRHS());
  }
  return nullptr;
}

// The values each local pointer to numbers is given; pointers whose
// address is taken are not aliases.
void AliasRewrite::collect(const Stmt *s) {
  if (!s)
    return;
  if (const auto *d = dyn_cast<clang::DeclStmt>(s))
    for (const clang::Decl *x : d->decls())
      if (const auto *v = dyn_cast<clang::VarDecl>(x);
          v && v->hasLocalStorage() && !isa<clang::ParmVarDecl>(v) &&
          pointsToNumbers(v->getType()) && !isAllocatedPointer(v)) {
        std::vector<const CExpr *> &d = defs[v];
        if (v->getInit())
          d.push_back(v->getInit());
      }
  if (const auto *b = dyn_cast<BinaryOperator>(s); b && b->getOpcode() == clang::BO_Assign)
    if (const auto *d = dyn_cast<DeclRefExpr>(b->getLHS()->IgnoreParens()))
      if (const auto *v = dyn_cast<clang::VarDecl>(d->getDecl()); v && defs.count(v))
        defs[v].push_back(b->getRHS());
  if (const auto *u = dyn_cast<UnaryOperator>(s); u && u->getOpcode() == clang::UO_AddrOf)
    if (const clang::VarDecl *v = refDecl(u->getSubExpr()))
      refused.insert(v);
  for (const Stmt *c : s->children())
    collect(c);
}

// Which pointers are aliases: every value given is a view of the same root
// (through other aliases).
void AliasRewrite::resolve() {
  // Each pointer's root by a fixpoint over the values it is given: unknown
  // (absent), one root, or none (null: a value from no root, or values from
  // two). Values only go down, so it ends; a value from a pointer whose
  // root is still unknown waits, so that a cycle of copies (`q = p; p =
  // q;`, structs copied back and forth) keeps the root that enters it.
  std::map<const clang::VarDecl *, const clang::VarDecl *> rootOf;
  for (bool changed = true; changed;) {
    changed = false;
    for (auto &[v, values] : defs) {
      auto at = rootOf.find(v);
      if (at != rootOf.end() && !at->second)
        continue; // none stays none
      const clang::VarDecl *r = at != rootOf.end() ? at->second : nullptr;
      bool none = refused.count(v) || values.empty();
      for (const CExpr *e : values) {
        if (none)
          break;
        const clang::VarDecl *b = baseOf(e), *rb = nullptr;
        if (b == v && b)
          continue; // `p = p + 1`: the root it has
        if (!b) {
          none = true;
        } else if (isRoot(b)) {
          rb = b;
        } else if (!defs.count(b)) {
          none = true;
        } else {
          auto it = rootOf.find(b);
          if (it == rootOf.end())
            continue; // not known yet
          rb = it->second;
          none = !rb;
        }
        if (!none && r && r != rb)
          none = true;
        if (!none)
          r = rb;
      }
      if (!none && !r)
        continue; // still unknown
      const clang::VarDecl *now = none ? nullptr : r;
      if (at == rootOf.end() || at->second != now) {
        rootOf[v] = now;
        changed = true;
      }
    }
  }
  for (auto &[v, values] : defs)
    if (!rootOf.count(v)) // a cycle no root enters
      rootOf[v] = nullptr;
  auto root = [&](const clang::VarDecl *v) -> const clang::VarDecl * {
    return isRoot(v) ? v : rootOf.at(v);
  };
  QualType diff = ctx.getPointerDiffType();
  // A cycle is skipped above (`p = p + 1` keeps p's root), which is right
  // only if the cycle keeps one root: after `t = nxt; nxt = cur; cur = t;`
  // nxt may hold cur's. So a pointer is an alias only when every value it
  // is given starts from its root or from an alias of it, to a fixpoint.
  for (bool changed = true; changed;) {
    changed = false;
    for (auto &[v, values] : defs) {
      auto it = rootOf.find(v);
      if (it == rootOf.end() || !it->second)
        continue;
      for (const CExpr *e : values) {
        const clang::VarDecl *b = baseOf(e);
        if (b == v)
          continue;
        auto rb = b && !isRoot(b) ? rootOf.find(b) : rootOf.end();
        const clang::VarDecl *r = !b ? nullptr : isRoot(b) ? b : rb != rootOf.end() ? rb->second : nullptr;
        if (r != it->second) {
          it->second = nullptr;
          changed = true;
          break;
        }
      }
    }
  }
  for (auto &[v, values] : defs) {
    const clang::VarDecl *r = root(v);
    if (!r)
      continue;
    std::string name = v->getNameAsString() + "_at";
    clang::VarDecl *off = clang::VarDecl::Create(
        ctx, const_cast<FunctionDecl *>(fd), v->getBeginLoc(), v->getLocation(),
        &ctx.Idents.get(name), diff, ctx.getTrivialTypeSourceInfo(diff, v->getLocation()),
        clang::SC_None);
    aliases[v] = Alias{r, off, {}, nullptr};
  }
  resolveChoices(rootOf);
}

// Pointers whose values are views of several roots (each directly, or
// through a pointer of one root), or of one another (`t = a; a = b; b =
// t;`, double buffering): an index saying which root, and the offset into
// it. Pointers assigned one to another form a group that shares its roots,
// in one order, so that `p = q` copies q's index. Elements written through
// them become a choice of writes (chooseWrite), and a call that writes
// through one a choice of calls (chooseCall).
void AliasRewrite::resolveChoices(
    const std::map<const clang::VarDecl *, const clang::VarDecl *> &rootOf) {
  QualType diff = ctx.getPointerDiffType();
  std::vector<const clang::VarDecl *> cand;
  for (auto &[v, values] : defs)
    if (!aliases.count(v) && !refused.count(v) && !values.empty())
      cand.push_back(v);
  auto isCand = [&](const clang::VarDecl *v) {
    return std::find(cand.begin(), cand.end(), v) != cand.end();
  };
  std::map<const clang::VarDecl *, const clang::VarDecl *> parent;
  std::function<const clang::VarDecl *(const clang::VarDecl *)> find =
      [&](const clang::VarDecl *v) -> const clang::VarDecl * {
    return parent[v] == v ? v : parent[v] = find(parent[v]);
  };
  for (const clang::VarDecl *v : cand)
    parent[v] = v;
  for (const clang::VarDecl *v : cand)
    for (const CExpr *e : defs[v])
      if (const clang::VarDecl *b = baseOf(e); b && b != v && isCand(b))
        parent[find(v)] = find(b);
  std::map<const clang::VarDecl *, std::vector<const clang::VarDecl *>> groupRoots;
  std::set<const clang::VarDecl *> bad;
  for (const clang::VarDecl *v : cand)
    for (const CExpr *e : defs[v]) {
      const clang::VarDecl *b = baseOf(e);
      if (b == v || (b && isCand(b)))
        continue;
      const clang::VarDecl *r = !b ? nullptr : isRoot(b) ? b : aliases.count(b) && aliases.at(b).roots.empty() ? aliases.at(b).root : nullptr;
      std::vector<const clang::VarDecl *> &roots = groupRoots[find(v)];
      if (!r)
        bad.insert(find(v));
      else if (std::find(roots.begin(), roots.end(), r) == roots.end())
        roots.push_back(r);
    }
  for (const clang::VarDecl *v : cand) {
    const std::vector<const clang::VarDecl *> &roots = groupRoots[find(v)];
    if (bad.count(find(v)) || roots.size() < 2)
      continue;
    auto make = [&](const std::string &name, QualType t) {
      return clang::VarDecl::Create(ctx, const_cast<FunctionDecl *>(fd), v->getBeginLoc(),
                                    v->getLocation(), &ctx.Idents.get(name), t,
                                    ctx.getTrivialTypeSourceInfo(t, v->getLocation()),
                                    clang::SC_None);
    };
    Alias a;
    a.root = roots[0];
    a.offset = make(v->getNameAsString() + "_at", diff);
    a.roots = roots;
    a.which = make(v->getNameAsString() + "_in", ctx.IntTy);
    a.group = find(v);
    aliases[v] = a;
  }
  markDistinct(cand, find);
  (void)rootOf;
}

// `t = a; a = b; b = t;` (or `T *t = a; ...`) of three pointers: the
// values it assigns are recorded as swaps.
bool AliasRewrite::swapTriple(const Stmt *s1, const Stmt *s2, const Stmt *s3) {
  const clang::VarDecl *t = nullptr;
  const CExpr *tval = nullptr;
  if (const auto *d = dyn_cast<clang::DeclStmt>(s1); d && d->isSingleDecl())
    if (const auto *v = dyn_cast<clang::VarDecl>(d->getSingleDecl()); v && v->getInit())
      t = v, tval = v->getInit();
  auto assign = [](const Stmt *x) -> const BinaryOperator * {
    const auto *b = dyn_cast<BinaryOperator>(x);
    return b && b->getOpcode() == clang::BO_Assign ? b : nullptr;
  };
  if (const BinaryOperator *b = assign(s1))
    t = refDecl(b->getLHS()->IgnoreParens()), tval = b->getRHS();
  const BinaryOperator *b2 = assign(s2), *b3 = assign(s3);
  if (!t || !tval || !b2 || !b3)
    return false;
  const clang::VarDecl *a = refDecl(tval->IgnoreParenImpCasts());
  const clang::VarDecl *b = refDecl(b2->getRHS()->IgnoreParenImpCasts());
  if (!a || !b || a == b || a == t || b == t || refDecl(b2->getLHS()->IgnoreParens()) != a ||
      refDecl(b3->getLHS()->IgnoreParens()) != b ||
      refDecl(b3->getRHS()->IgnoreParenImpCasts()) != t)
    return false;
  swapped.insert(tval);
  swapped.insert(b2->getRHS());
  swapped.insert(b3->getRHS());
  swaps.push_back({t, a, b});
  return true;
}

// The swaps of pointers in the function, and the block declaring each
// local pointer.
void AliasRewrite::collectSwaps(const Stmt *s) {
  if (!s)
    return;
  if (const auto *c = dyn_cast<clang::CompoundStmt>(s)) {
    std::vector<const Stmt *> body(c->body_begin(), c->body_end());
    for (const Stmt *x : body)
      if (const auto *d = dyn_cast<clang::DeclStmt>(x))
        for (const clang::Decl *y : d->decls())
          if (const auto *v = dyn_cast<clang::VarDecl>(y))
            declScope[v] = c;
    for (size_t i = 0; i + 2 < body.size(); i++)
      if (swapTriple(body[i], body[i + 1], body[i + 2]))
        i += 2;
  }
  for (const Stmt *c : s->children())
    collectSwaps(c);
}

// The pointers of a group of several roots that are only ever swapped
// (every value a pointer is given after its declaration comes from a
// swap), declared in one block, each initialised into its own root: at
// every point they point into distinct roots, so a call given two of them
// never has them alias. A pointer only swaps pass through (`t`) is not
// one of them, and every swap must exchange two of them through one such
// temporary: `p = q; q = r; r = p;` has the shape of a swap but leaves p
// and r naming one root.
void AliasRewrite::markDistinct(
    const std::vector<const clang::VarDecl *> &cand,
    const std::function<const clang::VarDecl *(const clang::VarDecl *)> &group) {
  std::map<const clang::VarDecl *, std::vector<const clang::VarDecl *>> mains;
  std::set<const clang::VarDecl *> bad;
  for (const clang::VarDecl *v : cand) {
    auto it = aliases.find(v);
    if (it == aliases.end() || !it->second.which)
      continue;
    const clang::VarDecl *g = group(v);
    std::vector<const CExpr *> own;
    for (const CExpr *e : defs[v])
      if (!swapped.count(e))
        own.push_back(e);
    if (own.empty())
      continue; // a temporary of the swaps
    const clang::VarDecl *r = own.size() == 1 && own[0] == v->getInit() ? baseOf(own[0]) : nullptr;
    if (!r || !isRoot(r))
      bad.insert(g);
    else
      mains[g].push_back(v);
  }
  for (const Swap &w : swaps) {
    const clang::VarDecl *g = group(w.a);
    auto isMain = [&](const clang::VarDecl *v) {
      auto it = mains.find(g);
      return it != mains.end() && std::find(it->second.begin(), it->second.end(), v) != it->second.end();
    };
    if (!isMain(w.a) || !isMain(w.b) || isMain(w.t))
      bad.insert(g);
  }
  for (auto &[g, vs] : mains) {
    std::set<const clang::VarDecl *> roots;
    for (const clang::VarDecl *v : vs)
      if (!roots.insert(baseOf(v->getInit())).second || declScope[v] != declScope[vs[0]])
        bad.insert(g);
    if (bad.count(g))
      continue;
    for (const clang::VarDecl *v : vs)
      aliases.at(v).distinct = true;
  }
}

// The pointer of several roots whose rewritten value e starts from (`q`,
// `q + k`, `&q[k]`), or null.
const clang::VarDecl *AliasRewrite::choiceSource(const CExpr *e) const {
  const CExpr *x = e->IgnoreParenImpCasts();
  while (true) {
    if (auto it = choices.find(x); it != choices.end())
      return it->second;
    if (const auto *u = dyn_cast<UnaryOperator>(x); u && u->getOpcode() == clang::UO_AddrOf) {
      const auto *sub = dyn_cast<ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens());
      if (!sub)
        return nullptr;
      x = sub->getBase()->IgnoreParenImpCasts();
      continue;
    }
    if (const auto *b = dyn_cast<BinaryOperator>(x); b && b->isAdditiveOp()) {
      x = (b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS())->IgnoreParenImpCasts();
      continue;
    }
    return nullptr;
  }
}

// `p[j] op= v` (or `p[j]++`) as a statement, p a pointer of several roots:
// `if (p_in == n-1) R_n-1[p_at + j] op= v; else ... else R_0[p_at + j] op= v;`
// (one branch runs, so v is evaluated once).
Stmt *AliasRewrite::chooseWrite(Stmt *s, const ChosenElem &c) {
  const Alias &a = aliases.at(c.pointer);
  auto writeInto = [&](CExpr *elem) -> Stmt * {
    if (auto *ca = dyn_cast<clang::CompoundAssignOperator>(s))
      return clang::CompoundAssignOperator::Create(
          ctx, elem, ca->getRHS(), ca->getOpcode(), ca->getType(), clang::VK_PRValue,
          clang::OK_Ordinary, ca->getOperatorLoc(), clang::FPOptionsOverride(),
          ca->getComputationLHSType(), ca->getComputationResultType());
    if (auto *b = dyn_cast<BinaryOperator>(s))
      return BinaryOperator::Create(ctx, elem, b->getRHS(), b->getOpcode(), b->getType(),
                                    clang::VK_PRValue, clang::OK_Ordinary, b->getOperatorLoc(),
                                    clang::FPOptionsOverride());
    auto *u = cast<UnaryOperator>(s);
    return UnaryOperator::Create(ctx, elem, u->getOpcode(), u->getType(), clang::VK_PRValue,
                                 clang::OK_Ordinary, u->getOperatorLoc(), false,
                                 clang::FPOptionsOverride());
  };
  SourceLocation loc = s->getBeginLoc();
  Stmt *r = writeInto(c.elems[0]);
  for (size_t k = 1; k < c.elems.size(); k++) {
    CExpr *test = BinaryOperator::Create(ctx, rvalue(a.which, loc), intLiteral((long long)k, ctx.IntTy, loc),
                                         clang::BO_EQ, ctx.IntTy, clang::VK_PRValue,
                                         clang::OK_Ordinary, loc, clang::FPOptionsOverride());
    r = clang::IfStmt::Create(ctx, loc, clang::IfStatementKind::Ordinary, nullptr, nullptr, test,
                              loc, loc, writeInto(c.elems[k]), loc, r);
  }
  return r;
}

// The argument of a call rewritten from a pointer of several roots (`p`
// or `p + k`): for each root, the argument as that root would give it
// (`R_k + p_at`, `R_k + p_at + k`); false for any other argument.
bool AliasRewrite::alternatives(const CExpr *arg, const clang::VarDecl *&pointer,
                                std::vector<CExpr *> &alts) {
  const CExpr *x = arg->IgnoreParenImpCasts();
  const auto *sum = dyn_cast<BinaryOperator>(x);
  if (sum && sum->isAdditiveOp() && sum->getLHS()->getType()->isPointerType())
    x = sum->getLHS()->IgnoreParenImpCasts();
  else
    sum = nullptr;
  auto it = choices.find(x);
  if (it == choices.end())
    return false;
  pointer = it->second;
  // the chain `which == n-1 ? of(R_n-1) : ... which == 1 ? of(R_1) : of(R_0)`
  size_t n = aliases.at(pointer).roots.size();
  alts.assign(n, nullptr);
  for (size_t k = n - 1; k >= 1; k--) {
    const auto *c = dyn_cast<clang::ConditionalOperator>(x);
    if (!c)
      return false;
    alts[k] = c->getTrueExpr();
    x = c->getFalseExpr();
  }
  alts[0] = const_cast<CExpr *>(x);
  for (CExpr *&a : alts) {
    if (sum)
      a = BinaryOperator::Create(ctx, a, sum->getRHS(), sum->getOpcode(), sum->getType(),
                                 clang::VK_PRValue, clang::OK_Ordinary, sum->getOperatorLoc(),
                                 clang::FPOptionsOverride());
    if (!ctx.hasSameType(a->getType(), arg->getType()))
      a = clang::ImplicitCastExpr::Create(ctx, arg->getType(), clang::CK_NoOp, a, nullptr,
                                          clang::VK_PRValue, clang::FPOptionsOverride());
  }
  return true;
}

// A call, as a statement, that passes a pointer of several roots to a
// parameter that writes: `if (p_in == n-1) g(.., R_n-1 + p_at, ..); else
// ... g(.., R_0 + p_at, ..);`, each an ordinary call writing through a
// view of one array (8.21). Several such arguments nest, and so do the
// pointers of several roots the call reads through, which are choices
// only where no argument is written through one.
Stmt *AliasRewrite::chooseCall(CallExpr *c) {
  const FunctionDecl *callee = c->getDirectCallee();
  if (!callee)
    return c;
  struct Written {
    unsigned arg;
    const clang::VarDecl *pointer;
    std::vector<CExpr *> alts;
  };
  std::vector<Written> written;
  size_t calls = 0;
  bool writes = false;
  for (unsigned i = 0; i < c->getNumArgs() && i < callee->getNumParams(); i++) {
    QualType pt = callee->getParamDecl(i)->getType();
    Written w{i, nullptr, {}};
    if (!pt->isPointerType() || !alternatives(c->getArg(i), w.pointer, w.alts))
      continue;
    writes = writes || !pt->getPointeeType().isConstQualified();
    written.push_back(std::move(w));
  }
  if (!writes)
    return c;
  std::vector<CExpr *> args(c->arg_begin(), c->arg_end());
  SourceLocation loc = c->getBeginLoc();
  // the roots the distinct pointers chosen so far point into: the others
  // cannot point there (a combination that cannot happen is not made)
  struct Taken {
    const clang::VarDecl *pointer;
    size_t root;
  };
  std::vector<Taken> taken;
  std::function<Stmt *(size_t)> nest = [&](size_t w) -> Stmt * {
    if (w == written.size() && ++calls)
      return CallExpr::Create(ctx, c->getCallee(), args, c->getType(), c->getValueKind(),
                              c->getRParenLoc(), clang::FPOptionsOverride());
    const Written &x = written[w];
    const Alias &a = aliases.at(x.pointer);
    std::vector<size_t> ks;
    for (size_t k = 0; k < x.alts.size(); k++) {
      bool possible = true;
      for (const Taken &t : taken) {
        const Alias &b = aliases.at(t.pointer);
        if (t.pointer == x.pointer) // the same pointer passed again
          possible = possible && t.root == k;
        else if (a.distinct && b.distinct && a.group == b.group)
          possible = possible && t.root != k;
      }
      if (possible)
        ks.push_back(k);
    }
    Stmt *r = nullptr;
    for (size_t k : ks) {
      args[x.arg] = x.alts[k];
      taken.push_back({x.pointer, k});
      Stmt *call = nest(w + 1);
      taken.pop_back();
      if (!r) {
        r = call; // the last choice: the pointer's index is none of the others
        continue;
      }
      CExpr *test = BinaryOperator::Create(ctx, rvalue(a.which, loc), intLiteral((long long)k, ctx.IntTy, loc),
                                           clang::BO_EQ, ctx.IntTy, clang::VK_PRValue,
                                           clang::OK_Ordinary, loc, clang::FPOptionsOverride());
      r = clang::IfStmt::Create(ctx, loc, clang::IfStatementKind::Ordinary, nullptr, nullptr, test,
                                loc, loc, call, loc, r);
    }
    return r; // null only if no combination can happen
  };
  Stmt *r = nest(0);
  return r && calls <= 8 ? r : c; // else a located error of lowering
}

// Expressions in statement position: a compound statement's, a loop's or
// an if's body.
void AliasRewrite::markStatements(const Stmt *s) {
  if (!s)
    return;
  auto mark = [&](const Stmt *x) {
    if (x && isa<CExpr>(x))
      stmtPos.insert(x);
  };
  if (const auto *c = dyn_cast<clang::CompoundStmt>(s))
    for (const Stmt *x : c->body())
      mark(x);
  if (const auto *f = dyn_cast<clang::ForStmt>(s))
    mark(f->getBody());
  if (const auto *w = dyn_cast<clang::WhileStmt>(s))
    mark(w->getBody());
  if (const auto *d = dyn_cast<clang::DoStmt>(s))
    mark(d->getBody());
  if (const auto *i = dyn_cast<clang::IfStmt>(s)) {
    mark(i->getThen());
    mark(i->getElse());
  }
  for (const Stmt *c : s->children())
    markStatements(c);
}

// The index among a's roots of the root a pointer value e points into; -1
// when e is a's own pointer moved (`p = p + 1`: the root it had).
long long AliasRewrite::rootIndex(const Alias &a, const CExpr *e) {
  const CExpr *x = e->IgnoreParenImpCasts();
  while (true) {
    if (choices.count(x))
      return -1;
    if (const auto *u = dyn_cast<UnaryOperator>(x); u && u->getOpcode() == clang::UO_AddrOf) {
      x = cast<ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens())->getBase()->IgnoreParenImpCasts();
      continue;
    }
    if (const auto *b = dyn_cast<BinaryOperator>(x); b && b->isAdditiveOp()) {
      x = (b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS())->IgnoreParenImpCasts();
      continue;
    }
    break;
  }
  const clang::VarDecl *v = refDecl(x);
  for (size_t k = 0; k < a.roots.size(); k++)
    if (v == a.roots[k])
      return (long long)k;
  return -1;
}

CExpr *AliasRewrite::intLiteral(long long v, QualType t, SourceLocation loc) {
  return clang::IntegerLiteral::Create(ctx, llvm::APInt(ctx.getTypeSize(t), (uint64_t)v, true), t,
                                       loc);
}

// `which == n-1 ? of(root n-1) : ... which == 1 ? of(root 1) : of(root 0)`.
CExpr *AliasRewrite::choose(const Alias &a, SourceLocation loc,
                            const std::function<CExpr *(const clang::VarDecl *)> &of, QualType t) {
  CExpr *e = of(a.roots[0]);
  for (size_t k = 1; k < a.roots.size(); k++) {
    CExpr *test = BinaryOperator::Create(ctx, rvalue(a.which, loc), intLiteral((long long)k, ctx.IntTy, loc),
                                         clang::BO_EQ, ctx.IntTy, clang::VK_PRValue,
                                         clang::OK_Ordinary, loc, clang::FPOptionsOverride());
    e = new (ctx) clang::ConditionalOperator(test, loc, of(a.roots[k]), loc, e, t,
                                             clang::VK_PRValue, clang::OK_Ordinary);
  }
  return e;
}

CExpr *AliasRewrite::ref(const clang::VarDecl *v, SourceLocation loc) {
  auto *d = const_cast<clang::VarDecl *>(v);
  return DeclRefExpr::Create(ctx, clang::NestedNameSpecifierLoc(), SourceLocation(), d, false,
                             loc, v->getType(), clang::VK_LValue);
}

CExpr *AliasRewrite::rvalue(const clang::VarDecl *v, SourceLocation loc) {
  return clang::ImplicitCastExpr::Create(ctx, v->getType(), clang::CK_LValueToRValue,
                                         ref(v, loc), nullptr, clang::VK_PRValue,
                                         clang::FPOptionsOverride());
}

CExpr *AliasRewrite::asOffsetType(CExpr *e) {
  QualType diff = ctx.getPointerDiffType();
  if (ctx.hasSameUnqualifiedType(e->getType(), diff))
    return e;
  return clang::ImplicitCastExpr::Create(ctx, diff, clang::CK_IntegralCast, e, nullptr,
                                         clang::VK_PRValue, clang::FPOptionsOverride());
}

CExpr *AliasRewrite::add(CExpr *a, CExpr *b, clang::BinaryOperatorKind op) {
  return BinaryOperator::Create(ctx, asOffsetType(a), asOffsetType(b), op,
                                ctx.getPointerDiffType(), clang::VK_PRValue,
                                clang::OK_Ordinary, a->getBeginLoc(),
                                clang::FPOptionsOverride());
}

// The root's first element as a pointer value.
CExpr *AliasRewrite::rootPointer(const clang::VarDecl *root, SourceLocation loc) {
  QualType t = root->getType();
  if (t->isArrayType())
    return clang::ImplicitCastExpr::Create(ctx, ctx.getArrayDecayedType(t),
                                           clang::CK_ArrayToPointerDecay, ref(root, loc),
                                           nullptr, clang::VK_PRValue,
                                           clang::FPOptionsOverride());
  if (rowLength(t)) { // rows, flat: a pointer to their numbers
    QualType flat = ctx.getPointerType(ctx.getAsArrayType(t->getPointeeType())->getElementType());
    auto *d = DeclRefExpr::Create(ctx, clang::NestedNameSpecifierLoc(), SourceLocation(),
                                  const_cast<clang::VarDecl *>(root), false, loc, flat,
                                  clang::VK_LValue);
    return clang::ImplicitCastExpr::Create(ctx, flat, clang::CK_LValueToRValue, d, nullptr,
                                           clang::VK_PRValue, clang::FPOptionsOverride());
  }
  return rvalue(root, loc);
}

// An alias used as a pointer value (rewritten as `(B + p_at)`): p.
const clang::VarDecl *AliasRewrite::aliasRef(const CExpr *e) const {
  const clang::VarDecl *v = refDecl(e);
  return v && aliases.count(v) ? v : nullptr;
}

// The offset from its root of a pointer expression whose base is a root
// or an alias (already rewritten: `(B + p_at)`), as a ptrdiff_t.
CExpr *AliasRewrite::offsetOf(const CExpr *e) {
  SourceLocation loc = e->getExprLoc();
  e = e->IgnoreParenImpCasts();
  if (auto it = choices.find(e); it != choices.end())
    return rvalue(aliases.at(it->second).offset, loc);
  if (const clang::VarDecl *v = refDecl(e)) {
    if (aliases.count(v))
      return rvalue(aliases.at(v).offset, loc);
    return clang::IntegerLiteral::Create(ctx, llvm::APInt(ctx.getTypeSize(ctx.getPointerDiffType()), 0),
                                         ctx.getPointerDiffType(), loc);
  }
  if (const auto *u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == clang::UO_AddrOf) {
    const auto *s = cast<ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens());
    return add(offsetOf(s->getBase()), const_cast<CExpr *>(s->getIdx()), clang::BO_Add);
  }
  const auto *b = cast<BinaryOperator>(e);
  bool left = b->getLHS()->getType()->isPointerType();
  CExpr *k = const_cast<CExpr *>(left ? b->getRHS() : b->getLHS());
  return add(offsetOf(left ? b->getLHS() : b->getRHS()), k, b->getOpcode());
}

void AliasRewrite::replace(Stmt *&slot, Stmt *with) {
  undo.push_back({&slot, slot});
  slot = with;
}

// Children first, so that a node is rebuilt from rewritten parts.
void AliasRewrite::walk(Stmt *&s) {
  if (!s)
    return;
  for (Stmt *&child : s->children())
    walk(child);
  Stmt *r = rewrite(s);
  if (r != s)
    replace(s, r);
}

Stmt *AliasRewrite::rewrite(Stmt *s) {
  // p as a value: (B + p_at)
  if (const auto *c = dyn_cast<clang::ImplicitCastExpr>(s);
      c && c->getCastKind() == clang::CK_LValueToRValue)
    if (const clang::VarDecl *p = aliasRef(c->getSubExpr())) {
      SourceLocation loc = c->getExprLoc();
      const Alias &a = aliases.at(p);
      if (!a.roots.empty()) { // (p_in == 1 ? R1 + p_at : R0 + p_at)
        QualType t = c->getType();
        CExpr *e = choose(a, loc, [&](const clang::VarDecl *r) -> CExpr * {
          return BinaryOperator::Create(ctx, rootPointer(r, loc), rvalue(a.offset, loc),
                                        clang::BO_Add, t, clang::VK_PRValue, clang::OK_Ordinary,
                                        loc, clang::FPOptionsOverride());
        }, t);
        choices[e] = p;
        return new (ctx) clang::ParenExpr(loc, c->getEndLoc(), e);
      }
      CExpr *sum = BinaryOperator::Create(ctx, rootPointer(a.root, loc), rvalue(a.offset, loc),
                                          clang::BO_Add, c->getType(), clang::VK_PRValue,
                                          clang::OK_Ordinary, loc, clang::FPOptionsOverride());
      return new (ctx) clang::ParenExpr(loc, c->getEndLoc(), sum);
    }
  // p[j] of a pointer into one of several arrays: (p_in == 1 ? R1[p_at + j] : R0[p_at + j])
  if (auto *sub = dyn_cast<ArraySubscriptExpr>(s)) {
    auto it = choices.find(sub->getBase()->IgnoreParens());
    if (it != choices.end()) {
      const Alias &a = aliases.at(it->second);
      SourceLocation loc = sub->getExprLoc();
      ChosenElem chosen{it->second, {}};
      CExpr *e = choose(a, loc, [&](const clang::VarDecl *r) -> CExpr * {
        CExpr *idx = add(rvalue(a.offset, loc), sub->getIdx(), clang::BO_Add);
        CExpr *elem = new (ctx) ArraySubscriptExpr(rootPointer(r, loc), idx, sub->getType(),
                                                   sub->getValueKind(), sub->getObjectKind(),
                                                   sub->getRBracketLoc());
        chosen.elems.push_back(elem);
        return elem;
      }, sub->getType());
      chosenElems[e] = chosen;
      return e;
    }
  }
  // a write through it, as a statement: a choice of writes
  {
    const CExpr *target = nullptr;
    if (auto *b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp())
      target = b->getLHS();
    if (auto *u = dyn_cast<UnaryOperator>(s); u && u->isIncrementDecrementOp())
      target = u->getSubExpr();
    if (target && stmtPos.count(s))
      if (auto it = chosenElems.find(target->IgnoreParens()); it != chosenElems.end())
        return chooseWrite(s, it->second);
  }
  // a call writing through it, as a statement: a choice of calls
  if (auto *c = dyn_cast<CallExpr>(s); c && stmtPos.count(s))
    if (Stmt *r = chooseCall(c); r != s)
      return r;
  // p[j]: B[p_at + j]
  if (auto *sub = dyn_cast<ArraySubscriptExpr>(s))
    if (const auto *sum = dyn_cast<BinaryOperator>(sub->getBase()->IgnoreParens());
        sum && sum->getOpcode() == clang::BO_Add && sum->getRHS()->getType()->isIntegerType())
      if (const clang::VarDecl *off = refDecl(sum->getRHS()))
        for (auto &[p, a] : aliases)
          if (a.offset == off) {
            CExpr *idx = add(const_cast<CExpr *>(sum->getRHS()), sub->getIdx(), clang::BO_Add);
            return new (ctx) ArraySubscriptExpr(rootPointer(a.root, sub->getExprLoc()), idx,
                                                sub->getType(), sub->getValueKind(),
                                                sub->getObjectKind(), sub->getRBracketLoc());
          }
  // p < x + n, p != q of pointers into one array (p rewritten as
  // `(B + p_at)` already): p_at < n, a test of the offsets, which a loop
  // walking p has as its condition
  if (auto *b = dyn_cast<BinaryOperator>(s);
      b && b->isComparisonOp() && b->getLHS()->getType()->isPointerType() &&
      b->getRHS()->getType()->isPointerType())
    if (const clang::VarDecl *root = baseOf(b->getLHS());
        root && root == baseOf(b->getRHS()) && !aliases.count(root))
      return BinaryOperator::Create(ctx, offsetOf(b->getLHS()), offsetOf(b->getRHS()),
                                    b->getOpcode(), b->getType(), clang::VK_PRValue,
                                    clang::OK_Ordinary, b->getOperatorLoc(),
                                    clang::FPOptionsOverride());
  // p = e: p_at = offset of e
  if (auto *b = dyn_cast<BinaryOperator>(s); b && b->getOpcode() == clang::BO_Assign)
    if (const clang::VarDecl *p = aliasRef(b->getLHS())) {
      const Alias &a = aliases.at(p);
      CExpr *set = BinaryOperator::Create(ctx, ref(a.offset, b->getLHS()->getExprLoc()),
                                          offsetOf(b->getRHS()), clang::BO_Assign,
                                          a.offset->getType(), clang::VK_PRValue,
                                          clang::OK_Ordinary, b->getOperatorLoc(),
                                          clang::FPOptionsOverride());
      long long k = rootIndex(a, b->getRHS());
      const clang::VarDecl *q = a.which ? choiceSource(b->getRHS()) : nullptr;
      if (k < 0 && (!q || q == p))
        return set;
      // (p_in = k, p_at = offset), or q's index for a pointer of its group
      SourceLocation loc = b->getOperatorLoc();
      CExpr *which = q && q != p ? rvalue(aliases.at(q).which, loc) : intLiteral(k, ctx.IntTy, loc);
      CExpr *pick = BinaryOperator::Create(ctx, ref(a.which, loc), which,
                                           clang::BO_Assign, ctx.IntTy, clang::VK_PRValue,
                                           clang::OK_Ordinary, loc, clang::FPOptionsOverride());
      return BinaryOperator::Create(ctx, pick, set, clang::BO_Comma, set->getType(),
                                    clang::VK_PRValue, clang::OK_Ordinary, loc,
                                    clang::FPOptionsOverride());
    }
  // p += k, p -= k: p_at += k
  if (auto *b = dyn_cast<clang::CompoundAssignOperator>(s);
      b && (b->getOpcode() == clang::BO_AddAssign || b->getOpcode() == clang::BO_SubAssign))
    if (const clang::VarDecl *p = aliasRef(b->getLHS())) {
      QualType diff = ctx.getPointerDiffType();
      return clang::CompoundAssignOperator::Create(
          ctx, ref(aliases.at(p).offset, b->getLHS()->getExprLoc()), asOffsetType(b->getRHS()),
          b->getOpcode(), diff, clang::VK_PRValue, clang::OK_Ordinary, b->getOperatorLoc(),
          clang::FPOptionsOverride(), diff, diff);
    }
  // p++ and friends: p_at++
  if (auto *u = dyn_cast<UnaryOperator>(s); u && u->isIncrementDecrementOp())
    if (const clang::VarDecl *p = aliasRef(u->getSubExpr()))
      return UnaryOperator::Create(ctx, ref(aliases.at(p).offset, u->getExprLoc()),
                                   u->getOpcode(), ctx.getPointerDiffType(), clang::VK_PRValue,
                                   clang::OK_Ordinary, u->getOperatorLoc(), false,
                                   clang::FPOptionsOverride());
  // the declaration: ptrdiff_t p_at = offset of its initial value
  if (auto *d = dyn_cast<clang::DeclStmt>(s)) {
    bool any = false;
    std::vector<clang::Decl *> decls;
    for (clang::Decl *x : d->decls()) {
      auto *v = dyn_cast<clang::VarDecl>(x);
      auto it = v ? aliases.find(v) : aliases.end();
      if (it == aliases.end()) {
        decls.push_back(x);
        continue;
      }
      any = true;
      clang::VarDecl *off = it->second.offset;
      if (v->getInit())
        off->setInit(offsetOf(v->getInit()));
      if (clang::VarDecl *which = it->second.which) {
        long long k = v->getInit() ? rootIndex(it->second, v->getInit()) : 0;
        const clang::VarDecl *q = v->getInit() ? choiceSource(v->getInit()) : nullptr;
        which->setInit(q && q != v ? rvalue(aliases.at(q).which, v->getLocation())
                                   : intLiteral(k < 0 ? 0 : k, ctx.IntTy, v->getLocation()));
        decls.push_back(which);
      }
      decls.push_back(off);
    }
    if (any)
      return new (ctx) clang::DeclStmt(
          clang::DeclGroupRef::Create(ctx, decls.data(), (unsigned)decls.size()),
          d->getBeginLoc(), d->getEndLoc());
  }
  return s;
}

void AliasRewrite::apply(const FunctionDecl *f, Stmt *body) {
  fd = f;
  collect(body);
  collectSwaps(body);
  resolve();
  if (aliases.empty())
    return;
  markStatements(body);
  walk(body);
  ctx.getParentMapContext().clear();
}

AliasRewrite::~AliasRewrite() {
  for (auto it = undo.rbegin(); it != undo.rend(); ++it)
    *it->first = it->second;
  if (!undo.empty())
    ctx.getParentMapContext().clear();
}

} // namespace lowering_detail
} // namespace chad
