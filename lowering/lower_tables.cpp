// lower_tables.cpp: constant tables (TableInfo in lowerer.h): `const`
// arrays of one or two dimensions whose initializer is a constant, at file
// scope (`static const double A[10][4] = {...}`) or in the function
// (`static const` or `const`), read with any index.
//
// Requires: a table is only read (C forbids writing a const object), by
// element: A[i] or A[i][j]. Guarantees: a read at constant indices is the
// constant itself; a read at computed indices is (index T k), with T the
// one E_TABLE of that table, bound at the function's entry, and k the
// row-major index i*cols + j (C's layout, so the IR indexes exactly the
// element C reads). A table is a constant for AD: no tangent, no adjoint.
//
// Why not a local array: lower_arrays.cpp makes an initialised array an
// IR `build` with one `if` per element, rebuilt whenever it is written,
// which is quadratic in the size of the table and, being a computed value,
// would get a cotangent buffer in f_rev. A table costs nothing at run time
// (the emitter writes it as a `static const` array) and nothing in the
// derivatives.
#include "lowering/lowerer.h"

namespace chad {
namespace lowering_detail {

// Larger tables are rejected rather than copied into every derivative.
static constexpr long long kMaxTableElems = 1 << 20;

static const VarDecl *referencedVar(const CExpr *e) {
  if (const auto *d = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()))
    return dyn_cast<VarDecl>(d->getDecl());
  return nullptr;
}

// Appends the `n` elements that `init` gives an array of `n` elements
// (rows of `cols` for two dimensions): clang's constant evaluator does not
// evaluate C arrays, so each element is folded alone (Lowerer::foldConstant)
// and what the initializer leaves out is zero, as in C. False if some
// element is not a constant.
bool Lowerer::tableInit(const CExpr *init, long long n, long long cols,
                        TableInfo &t) {
  init = init ? init->IgnoreParens() : nullptr;
  if (const auto *str = dyn_cast_or_null<clang::StringLiteral>(init)) {
    if (t.elem->kind != TY_INT)
      return false;
    for (long long i = 0; i < n; i++)
      t.values.push_back(ex_const_int(
          arena, t.elem, i < (long long)str->getLength() ? str->getCodeUnit((size_t)i) : 0));
    return true;
  }
  const auto *list = dyn_cast_or_null<clang::InitListExpr>(init);
  if (init && !list && !isa<clang::ImplicitValueInitExpr>(init))
    return false;
  for (long long i = 0; i < n; i++) {
    const CExpr *e = list && i < (long long)list->getNumInits()
                         ? list->getInit((unsigned)i)
                         : nullptr;
    if (e && isa<clang::ImplicitValueInitExpr>(e))
      e = nullptr;
    if (cols > 0) { // a row
      if (!tableInit(e, cols, 0, t))
        return false;
      continue;
    }
    Expr *k = e ? foldConstant(e, t.elem) : ex_const(arena, t.elem, 0);
    if (!k)
      return false;
    t.values.push_back(k);
  }
  return true;
}

// The table `v` is, or null when it is not one: not a const array of one
// or two constant dimensions of numbers, or (a local) not initialised by a
// constant, which then is an ordinary local array. A global that looks
// like a table but whose values this translation unit cannot know is an
// error: there is nothing else it could be.
const TableInfo *Lowerer::tableOf(const VarDecl *v) {
  auto known = tables.find(v);
  if (known != tables.end())
    return known->second.get();
  tables[v] = nullptr;
  const auto *outer = ctx.getAsConstantArrayType(v->getType());
  if (!outer)
    return nullptr;
  QualType elemType = outer->getElementType();
  const clang::ConstantArrayType *inner = ctx.getAsConstantArrayType(elemType);
  if (inner)
    elemType = inner->getElementType();
  QualType base = ctx.getBaseElementType(v->getType());
  if (ctx.getAsArrayType(elemType) || !base.isConstQualified() ||
      base.isVolatileQualified())
    return nullptr;
  auto t = std::make_unique<TableInfo>();
  t->elem = irScalarType(base.getUnqualifiedType());
  if (!t->elem)
    return nullptr;
  t->twoDim = inner != nullptr;
  t->cols = (long long)(inner ? inner : outer)->getSize().getZExtValue();
  t->rows = inner ? (long long)outer->getSize().getZExtValue() : 1;
  std::string name = v->getNameAsString();
  if (t->rows * t->cols > kMaxTableElems)
    fail(v->getLocation(), "table '" + name + "' has more than " +
                               std::to_string(kMaxTableElems) + " elements");
  const VarDecl *def = nullptr;
  const CExpr *init = v->getAnyInitializer(def);
  if (!init || init->isValueDependent() ||
      !tableInit(init, t->rows * (t->twoDim ? 1 : t->cols), t->twoDim ? t->cols : 0, *t) ||
      (long long)t->values.size() != t->rows * t->cols) {
    if (v->hasLocalStorage())
      return nullptr;
    fail(v->getLocation(),
         "table '" + name + "' has no constant initializer in this "
         "translation unit; only tables whose values are known can be read");
  }
  tables[v] = std::move(t);
  return tables[v].get();
}

// A read of a table element, or null when `s` does not read a table.
Expr *Lowerer::lowerTableRead(const ArraySubscriptExpr *s, const Env &env) {
  const CExpr *base = s->getBase()->IgnoreParenImpCasts();
  const auto *rowSub = dyn_cast<ArraySubscriptExpr>(base);
  const VarDecl *v = referencedVar(rowSub ? rowSub->getBase() : base);
  const TableInfo *t = v ? tableOf(v) : nullptr;
  if (!t)
    return nullptr;
  SourceLocation loc = s->getExprLoc();
  std::string name = v->getNameAsString();
  if (t->twoDim && !rowSub)
    fail(loc, "row '" + text(s) + "' of table '" + name +
                  "' used as a value; read its elements ('" + name +
                  "[i][j]')");
  const CExpr *rowIdx = rowSub ? rowSub->getIdx() : nullptr;
  long long r = 0, c = 0;
  if (constIndex(s->getIdx(), c) && (!rowIdx || constIndex(rowIdx, r))) {
    if (r < 0 || r >= t->rows || c < 0 || c >= t->cols)
      fail(loc, "index '" + text(s) + "' is out of the bounds of table '" +
                    name + "'");
    return at(dup(arena, t->values[(size_t)(r * t->cols + c)]), loc);
  }
  Expr *flat = lowerIndex(s->getIdx(), env);
  if (rowIdx)
    flat = iAdd(iMul(lowerIndex(rowIdx, env), mkInt(t->cols, loc), loc), flat,
                loc);
  Expr *e = at(ex_index(arena, tableValue(v, loc), flat), loc);
  e->type = t->elem;
  return e;
}

// The whole table `v` as an IR array: its variable, bound at the entry by
// tableBindings.
Expr *Lowerer::tableValue(const VarDecl *v, SourceLocation loc) {
  TableInfo &t = *tables.at(v);
  if (!t.var) {
    t.var = var_new(arena, v->getNameAsString().c_str(), ty_array(arena, t.elem));
    tablesBound.push_back(v);
  }
  return mkVar(t.var, loc);
}

// A table as an array (`A`, `&A[0]`), a view into it (`&A[k]`, `A + k`)
// or, for two dimensions, a view at a row (`A[i]`, `&A[i][k]`, C's
// row-major layout) or all of it as one array (`(const double *)A + k`); null when `a` names no table. `elem` gets its element
// type, `name` its name.
Expr *Lowerer::tableRef(const CExpr *a, const Env &env, Type *&elem, std::string &name) {
  SourceLocation loc = a->getExprLoc();
  const CExpr *e = a->IgnoreParenImpCasts();
  const CExpr *rowIdx = nullptr, *off = nullptr;
  // `A`, `A + k`, `&A[k]` of a 2-D table as rows (`const double (*)[C]`):
  // for a parameter that takes rows, the table from row k on
  bool rows = rowLength(a->getType()) > 0;
  bool minus = false;
  if (const auto *u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == clang::UO_AddrOf) {
    const auto *s = dyn_cast<ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens());
    if (!s)
      return nullptr;
    e = s->getBase()->IgnoreParenImpCasts();
    off = s->getIdx();
  } else if (const auto *b = dyn_cast<BinaryOperator>(e);
             b && (b->getOpcode() == clang::BO_Add || b->getOpcode() == clang::BO_Sub) &&
             b->getType()->isPointerType()) {
    bool left = b->getLHS()->getType()->isPointerType();
    e = (left ? b->getLHS() : b->getRHS())->IgnoreParenImpCasts();
    off = left ? b->getRHS() : b->getLHS();
    minus = b->getOpcode() == clang::BO_Sub;
  }
  if (const auto *s = dyn_cast<ArraySubscriptExpr>(e)) { // a row A[i]
    rowIdx = s->getIdx();
    e = s->getBase()->IgnoreParenImpCasts();
  }
  // `(const double *)A`: all of a 2-D table's elements, row after row
  const clang::ExplicitCastExpr *flat = nullptr;
  if (const auto *c = dyn_cast<clang::ExplicitCastExpr>(e); c && !rowIdx && c->getType()->isPointerType()) {
    flat = c;
    e = c->getSubExpr()->IgnoreParenImpCasts();
  }
  const VarDecl *v = referencedVar(e);
  const TableInfo *t = v ? tableOf(v) : nullptr;
  if (!t)
    return nullptr;
  name = v->getNameAsString();
  elem = t->elem;
  if (flat) {
    Type *to = irScalarType(flat->getType()->getPointeeType().getUnqualifiedType());
    if (!to || !type_eq(to, t->elem))
      fail(loc, "table '" + name + "' cast to a pointer to another element type in '" +
                    text(a) + "'");
  } else if (t->twoDim != (rowIdx != nullptr) && !(rows && t->twoDim))
    fail(loc, "table '" + name + "' used as '" + text(a) + "', which is not a pointer to " +
                  "its elements; use " + (t->twoDim ? "a row ('" + name + "[i]')" : "'" + name + "'"));
  Expr *k = nullptr;
  if (rowIdx)
    k = iMul(lowerIndex(rowIdx, env), mkInt(t->cols, loc), loc);
  if (off) {
    Expr *o = lowerIndex(off, env);
    if (rows)
      o = iMul(o, mkInt(t->cols, loc), loc);
    if (minus)
      o = iSub(mkInt(0, loc), o, loc);
    k = k ? iAdd(k, o, loc) : o;
  }
  Expr *whole = tableValue(v, loc);
  if (!k)
    return whole;
  Expr *view = at(ex_view(arena, whole, k), loc);
  view->type = whole->type;
  return view;
}

// A table passed for input array parameter `p` (of type `want`) of
// `callee`, or null when `a` names no table. The callee sees constants:
// its derivatives get a tangent of zeros and a cotangent buffer nobody
// reads (DESIGN 8.38).
Expr *Lowerer::tableArgument(const CExpr *a, Type *want, const clang::ParmVarDecl *p,
                             const std::string &callee, const Env &env) {
  Type *elem = nullptr;
  std::string name;
  Expr *ref = tableRef(a, env, elem, name);
  if (ref && !type_eq(elem, want->elem))
    fail(a->getExprLoc(), "table '" + name + "' has another element type than parameter '" +
                              p->getNameAsString() + "' of '" + callee + "'");
  return ref;
}

// `body` under the bindings of the tables it reads at computed indices:
// at the function's entry, since a table's value does not depend on where
// it is declared (and one binding serves every loop that reads it).
Expr *Lowerer::tableBindings(Expr *body) {
  for (auto it = tablesBound.rbegin(); it != tablesBound.rend(); ++it) {
    const TableInfo &t = *tables.at(*it);
    std::vector<Expr *> values;
    for (Expr *x : t.values)
      values.push_back(dup(arena, x));
    Expr *table = ex_table(arena, t.elem, (int)values.size(), values.data());
    table->loc = locs.toIR((*it)->getLocation());
    body = mkLet(t.var, table, body, (*it)->getLocation());
  }
  return body;
}

} // namespace lowering_detail
} // namespace chad
