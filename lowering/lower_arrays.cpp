// lower_arrays.cpp: arrays (see lowerer.h for places and the written-prefix
// representation): parameters and their classes (DESIGN.md section 1), the
// function's result with output arrays, local arrays, element reads and
// writes outside loops, and calls that pass arrays.
#include <algorithm>

#include "lowering/differentiable.h"
#include "lowering/lowerer.h"
#include "lowering/structs.h"
#include "clang/AST/Type.h"

namespace chad {
namespace lowering_detail {

// -------------------------------------------------------- parameters

// DESIGN.md section 1: a `double *p` that f reads before overwriting it is
// in-out. Decided on the source alone, so that f and its callers decide
// alike: p is in-out when its first use in evaluation order (an
// assignment's value before its target) reads it. `p[e] = v` (or `*p = v`)
// first makes p an output; `p[e] += v`, a read, or passing p on (other
// than to an output parameter, whole or as a view `&p[e]`, `p + e`) first
// makes it in-out.
enum class FirstUse { None, Write, Read };

static bool namesParam(const CExpr *e, const clang::ParmVarDecl *p) {
  const auto *d = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
  return d && d->getDecl() == p;
}

static FirstUse firstUse(const Stmt *s, const clang::ParmVarDecl *p, int depth);

// Is `a` p itself, or a view `&p[e]`, `p + e` of it? Then `offset` is e
// (null for p itself).
static bool namesParamOrView(const CExpr *a, const clang::ParmVarDecl *p,
                             const CExpr *&offset) {
  offset = nullptr;
  if (namesParam(a, p))
    return true;
  a = a->IgnoreParenImpCasts();
  if (const auto *u = dyn_cast<UnaryOperator>(a); u && u->getOpcode() == clang::UO_AddrOf)
    if (const auto *s = dyn_cast<ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens());
        s && namesParam(s->getBase(), p)) {
      offset = s->getIdx();
      return true;
    }
  if (const auto *b = dyn_cast<BinaryOperator>(a); b && b->getOpcode() == clang::BO_Add) {
    if (namesParam(b->getLHS(), p) && b->getLHS()->getType()->isPointerType()) {
      offset = b->getRHS();
      return true;
    }
    if (namesParam(b->getRHS(), p) && b->getRHS()->getType()->isPointerType()) {
      offset = b->getLHS();
      return true;
    }
  }
  return false;
}

// The first use of p in the target of a plain assignment, whose value was
// evaluated first.
static FirstUse firstUseAsTarget(const CExpr *lhs, const clang::ParmVarDecl *p,
                                 int depth) {
  lhs = lhs->IgnoreParens();
  if (const auto *sub = dyn_cast<ArraySubscriptExpr>(lhs)) {
    if (namesParam(sub->getBase(), p)) {
      FirstUse i = firstUse(sub->getIdx(), p, depth);
      return i != FirstUse::None ? i : FirstUse::Write;
    }
    // `p[i][j] = v` of rows p (`double p[][3]`)
    const auto *row = dyn_cast<ArraySubscriptExpr>(sub->getBase()->IgnoreParenImpCasts());
    if (row && namesParam(row->getBase(), p)) {
      FirstUse i = firstUse(row->getIdx(), p, depth);
      if (i == FirstUse::None)
        i = firstUse(sub->getIdx(), p, depth);
      return i != FirstUse::None ? i : FirstUse::Write;
    }
  }
  if (const auto *u = dyn_cast<UnaryOperator>(lhs);
      u && u->getOpcode() == clang::UO_Deref) {
    const CExpr *e = u->getSubExpr()->IgnoreParenImpCasts();
    if (namesParam(e, p))
      return FirstUse::Write;
    if (const auto *b = dyn_cast<BinaryOperator>(e);
        b && b->isAdditiveOp() && namesParam(b->getLHS(), p)) {
      FirstUse k = firstUse(b->getRHS(), p, depth);
      return k != FirstUse::None ? k : FirstUse::Write;
    }
  }
  return firstUse(lhs, p, depth);
}

static bool isInOutParam(const clang::ParmVarDecl *p, int depth);

static FirstUse firstUse(const Stmt *s, const clang::ParmVarDecl *p, int depth) {
  if (!s)
    return FirstUse::None;
  if (const auto *b = dyn_cast<BinaryOperator>(s);
      b && b->getOpcode() == clang::BO_Assign) {
    FirstUse r = firstUse(b->getRHS(), p, depth);
    return r != FirstUse::None ? r : firstUseAsTarget(b->getLHS(), p, depth);
  }
  if (const auto *d = dyn_cast<DeclRefExpr>(s))
    return d->getDecl() == p ? FirstUse::Read : FirstUse::None;
  if (const auto *c = dyn_cast<CallExpr>(s)) {
    const FunctionDecl *callee = c->getDirectCallee();
    FirstUse r = firstUse(c->getCallee(), p, depth);
    for (unsigned i = 0; r == FirstUse::None && i < c->getNumArgs(); i++) {
      const CExpr *a = c->getArg(i);
      const CExpr *offset = nullptr;
      bool asOutput = callee && namesParamOrView(a, p, offset) &&
                      i < callee->getNumParams() && depth < 8 &&
                      firstUse(offset, p, depth) == FirstUse::None;
      if (asOutput) { // p given whole to a non-const floating pointer
        const clang::ParmVarDecl *q = callee->getParamDecl(i);
        QualType t = q->getType();
        QualType elem = t->isPointerType() ? t->getPointeeType() : t;
        bool constant = elem.isConstQualified();
        if (const auto *row = dyn_cast<clang::ArrayType>(elem.getCanonicalType())) {
          elem = row->getElementType(); // rows `double (*)[3]`
          constant = constant || elem.isConstQualified();
        }
        asOutput = t->isPointerType() && !constant && elem->isRealFloatingType() &&
                   !isInOutParam(q, depth + 1);
      }
      // memcpy, memmove and memset write their first argument
      bool filled = callee && i == 0 && namesParam(a, p) && callee->getIdentifier() &&
                    (callee->getName() == "memcpy" || callee->getName() == "memmove" ||
                     callee->getName() == "memset");
      r = asOutput || filled ? FirstUse::Write : firstUse(a, p, depth);
    }
    return r;
  }
  for (const Stmt *c : s->children()) {
    FirstUse r = firstUse(c, p, depth);
    if (r != FirstUse::None)
      return r;
  }
  return FirstUse::None;
}

static bool isInOutParam(const clang::ParmVarDecl *p, int depth) {
  if (isMarkedInOut(p)) // a written field of an array of structs
    return true;
  const auto *f = dyn_cast<FunctionDecl>(p->getDeclContext());
  if (f && isCustom(f)) // the user's g_rev says, by its seed's const
    return customParamInOut(f, p->getFunctionScopeIndex());
  const FunctionDecl *def = f ? f->getDefinition() : nullptr;
  if (!def || p->getFunctionScopeIndex() >= def->getNumParams())
    return false; // not seen yet: an output until its body says otherwise
  const clang::ParmVarDecl *q = def->getParamDecl(p->getFunctionScopeIndex());
  FlatBody flat(def); // a struct function's body, with its leaf parameters
  return firstUse(def->getBody(), q, depth) == FirstUse::Read;
}

// The row length C of a parameter or argument of type `T (*)[C]` (as C
// adjusts `T A[][C]` and `T A[R][C]`), T a number: the IR sees the rows as
// one flat array, row-major as C lays them out. 0 for anything else.
long long rowLength(QualType t) {
  if (!t->isPointerType())
    return 0;
  const auto *row = dyn_cast<clang::ConstantArrayType>(
      t->getPointeeType().getCanonicalType().getTypePtr());
  if (!row || row->getElementType()->isArrayType() || row->getSize() == 0)
    return 0;
  return (long long)row->getSize().getZExtValue();
}

// The class and IR type of a parameter, or false with the problem.
bool Lowerer::classifyParam(const clang::ParmVarDecl *p, ParamClass &cls,
                            Type *&type, std::string &problem) {
  QualType t = p->getType();
  std::string name = p->getNameAsString();
  if (t->isPointerType()) {
    QualType pointee = t->getPointeeType();
    if (rowLength(t)) // `double A[][3]`: rows, stored flat
      pointee = ctx.getAsConstantArrayType(pointee)->getElementType();
    const auto *b =
        dyn_cast<clang::BuiltinType>(pointee.getCanonicalType().getTypePtr());
    Type *elem = nullptr;
    if (b && b->getKind() == clang::BuiltinType::Double)
      elem = ty_f64();
    else if (b && b->getKind() == clang::BuiltinType::Float)
      elem = ty_f32();
    else if (pointee->isBooleanType()) // `const _Bool *`: bytes 0 or 1
      elem = ty_intk(IK_BOOL);
    else if (pointee->isIntegerType())
      elem = irScalarType(pointee); // any integer kind, enums included
    if (!elem) {
      QualType shown = p->getOriginalType();
      problem = "parameter '" + name + "' has type '" + shown.getAsString() +
                "'; only pointers to double, float or integers, or to rows of them of "
                "constant length ('double A[][3]'), are supported";
      return false;
    }
    type = ty_array(arena, elem);
    // An int array is inactive input; a floating one is output (or in-out)
    // unless const.
    cls = elem->kind != TY_INT && !pointee.isConstQualified() ? PARAM_OUT_ARRAY
                                                               : PARAM_IN_ARRAY;
    if (cls == PARAM_OUT_ARRAY && isInOutParam(p, 0))
      cls = PARAM_INOUT_ARRAY;
    if (cls != PARAM_IN_ARRAY && isMarkedInactive(p)) {
      problem = "parameter '" + name + "' is marked inactive but written: only "
                "scalars and read-only (const) arrays can be inactive";
      return false;
    }
    return true;
  }
  if (Type *s = irScalarType(t)) {
    type = s;
    cls = type_is_active(s) ? PARAM_ACTIVE_SCALAR : PARAM_INACTIVE;
    return true;
  }
  problem = irTypeProblem(t, "parameter", name);
  return false;
}

void Lowerer::classifyParams(Signature &s) {
  std::vector<ParamClass> classes;
  bool anyArray = false, anyInactive = false;
  for (const clang::ParmVarDecl *p : fd->parameters()) {
    ParamClass cls;
    Type *t = nullptr;
    std::string problem;
    if (!classifyParam(p, cls, t, problem))
      fail(p->getLocation(), problem);
    bool array = cls == PARAM_IN_ARRAY || cls == PARAM_OUT_ARRAY ||
                 cls == PARAM_INOUT_ARRAY;
    if (array) {
      anyArray = true;
      ArrayInfo info;
      info.role = cls == PARAM_IN_ARRAY    ? ArrayRole::In
                  : cls == PARAM_OUT_ARRAY ? ArrayRole::Out
                                           : ArrayRole::InOut;
      info.elem = t->elem;
      arrays[p] = info;
    }
    Var *v = newVar(p);
    v->type = t;
    if (array) {
      arrays[p].param = v;
      if (cls == PARAM_OUT_ARRAY) {
        outputs.push_back(p);
        paramEnv.arrays[p] = ArrayVal{}; // nothing written yet
      } else if (cls == PARAM_INOUT_ARRAY) {
        outputs.push_back(p); // its final contents are part of the result
        paramEnv.arrays[p] = ArrayVal{v, nullptr}; // the initial contents
      } else {
        paramEnv.arrays[p] = ArrayVal{v, nullptr};
      }
    } else {
      paramEnv.vars[{p, kWhole}] = v;
    }
    s.params.push_back(v);
    // marked inactive: lowered as it is, differentiated as a constant
    bool inactive = isMarkedInactive(p) && type_is_active(t);
    anyInactive = anyInactive || inactive;
    classes.push_back(inactive ? PARAM_INACTIVE : cls);
  }
  if (anyArray || anyInactive)
    s.classes = classes;
  std::vector<long long> rows;
  for (const clang::ParmVarDecl *p : fd->parameters())
    rows.push_back(rowLength(p->getType()));
  if (std::any_of(rows.begin(), rows.end(), [](long long r) { return r > 0; }))
    s.rows = rows;
}

// The IR result type of `f`: R, or (tuple R Y1 .. Yk) with output arrays (R
// unit for void). For a callee, null when its signature is outside the
// subset (its own lowering says why).
Type *Lowerer::resultType(const FunctionDecl *f, bool forCall) {
  QualType ret = f->getReturnType();
  Type *r = nullptr;
  if (ret->isVoidType()) {
    r = ty_unit(arena);
  } else if (!(r = irScalarType(ret))) {
    if (forCall)
      return nullptr;
    SourceLocation retLoc = f->getReturnTypeSourceRange().getBegin();
    fail(retLoc.isValid() ? retLoc : f->getLocation(),
         irTypeProblem(ret, "return", ""));
  }
  std::vector<Type *> parts{r};
  for (const clang::ParmVarDecl *p : f->parameters()) {
    ParamClass cls;
    Type *t = nullptr;
    std::string problem;
    if (!classifyParam(p, cls, t, problem))
      return nullptr;
    if (cls == PARAM_OUT_ARRAY || cls == PARAM_INOUT_ARRAY)
      parts.push_back(t);
  }
  if (parts.size() == 1)
    return ret->isVoidType() ? nullptr : r;
  return ty_tuple(arena, (int)parts.size(), parts.data());
}

bool Lowerer::calleeWritesArrays(const FunctionDecl *callee) {
  for (const clang::ParmVarDecl *p : callee->parameters()) {
    ParamClass cls;
    Type *t = nullptr;
    std::string problem;
    if (classifyParam(p, cls, t, problem) &&
        (cls == PARAM_OUT_ARRAY || cls == PARAM_INOUT_ARRAY))
      return true;
  }
  return false;
}

// ------------------------------------------------------- local arrays

void Lowerer::registerLocalArray(const VarDecl *v) {
  if (arrays.count(v) || tableOf(v))
    return;
  ArrayInfo info;
  info.role = ArrayRole::Local;
  const clang::ArrayType *at = ctx.getAsArrayType(v->getType());
  const auto *fixed = dyn_cast_or_null<clang::ConstantArrayType>(at);
  // Two constant dimensions: a flat array of rows * cols elements.
  const clang::ConstantArrayType *row =
      fixed ? ctx.getAsConstantArrayType(fixed->getElementType()) : nullptr;
  if (at && !at->getElementType()->isArrayType())
    info.elem = irScalarType(at->getElementType()); // null: checked at use
  else if (row && !row->getElementType()->isArrayType())
    info.elem = irScalarType(row->getElementType());
  if (fixed)
    info.fixedSize = (long long)fixed->getSize().getZExtValue();
  if (row && info.elem) {
    info.cols = (long long)row->getSize().getZExtValue();
    info.fixedSize *= info.cols;
  }
  arrays[v] = info;
}

bool Lowerer::constIndex(const CExpr *idx, long long &v) {
  CExpr::EvalResult r;
  if (idx->isValueDependent() || !idx->EvaluateAsInt(r, ctx) ||
      r.HasSideEffects)
    return false;
  if (r.Val.getInt().getMinSignedBits() > 32) { // indices are C ints here
    fail(idx->getExprLoc(), "array index " + std::to_string(r.Val.getInt().getSExtValue()) +
                                " does not fit in 'int'");
    return false;
  }
  v = r.Val.getInt().getSExtValue();
  return true;
}

// The row index i of R[i][j] when d is two-dimensional, else null.
const CExpr *Lowerer::rowIndex(const ArraySubscriptExpr *s, const VarDecl *d) {
  if (arrays.at(d).cols <= 0)
    return nullptr;
  return cast<ArraySubscriptExpr>(s->getBase()->IgnoreParenImpCasts())->getIdx();
}

// The flat index of element s of d when it is a constant: c, or i*cols + j.
bool Lowerer::constElement(const ArraySubscriptExpr *s, const VarDecl *d,
                           long long &v) {
  const CExpr *row = rowIndex(s, d);
  long long r = 0, c;
  if (!constIndex(s->getIdx(), c) || (row && !constIndex(row, r)))
    return false;
  long long cols = arrays.at(d).cols;
  if (row && (c < 0 || c >= cols)) // C reads another row: not worth it
    fail(s->getExprLoc(), "index '" + text(s) + "' is out of the bounds of "
                          "the rows of '" + d->getNameAsString() + "'");
  v = row ? r * cols + c : c;
  return true;
}

// The IR index (int) of element s of d: C's row-major i*cols + j.
Expr *Lowerer::lowerElementIndex(const ArraySubscriptExpr *s, const VarDecl *d,
                                 const Env &env) {
  Expr *col = lowerIndex(s->getIdx(), env);
  const CExpr *row = rowIndex(s, d);
  if (!row)
    return col;
  SourceLocation loc = s->getExprLoc();
  return iAdd(iMul(lowerIndex(row, env), mkInt(arrays.at(d).cols, loc), loc),
              col, loc);
}

// The array a subscript indexes: a parameter or local array named directly,
// or a two-dimensional local array indexed twice (R[i][j]).
const VarDecl *Lowerer::arrayBase(const ArraySubscriptExpr *s, bool required) {
  const CExpr *base = s->getBase()->IgnoreParenImpCasts();
  const auto *rowSub = dyn_cast<ArraySubscriptExpr>(base);
  const VarDecl *v = arrayDecl(rowSub ? rowSub->getBase() : base);
  bool twoDim = v && arrays.at(v).cols > 0;
  if (v && twoDim == (rowSub != nullptr))
    return v;
  if (!required)
    return nullptr;
  SourceLocation loc = s->getExprLoc();
  if (v && twoDim)
    fail(loc, "row '" + text(s) + "' of two-dimensional array '" +
                  v->getNameAsString() + "' used as a value; not supported "
                  "yet (index its elements, '" + v->getNameAsString() +
                  "[i][j]')");
  if (const auto *b = dyn_cast<BinaryOperator>(base);
      b && b->isAdditiveOp())
    fail(loc, "pointer arithmetic '" + text(base) + "' is not supported yet");
  const CExpr *root = rowSub ? rowSub->getBase()->IgnoreParenImpCasts() : base;
  if (const auto *d = dyn_cast<DeclRefExpr>(root))
    if (const auto *v = dyn_cast<VarDecl>(d->getDecl()); v && !v->hasLocalStorage())
      fail(loc, "reads of global array '" + v->getNameAsString() +
                    "', which is not a constant table (only const arrays "
                    "with a constant initializer can be read)");
  if (rowSub)
    fail(loc, "indexing '" + text(base) + "' is not supported (only "
              "two-dimensional arrays that are local variables)");
  fail(loc, "indexing '" + text(base) + "' is not supported (only arrays "
            "that are parameters or local variables)");
}

const VarDecl *Lowerer::arrayDecl(const CExpr *e) {
  if (const auto *d = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()))
    if (const auto *v = dyn_cast<VarDecl>(d->getDecl()))
      if (arrays.count(v))
        return v;
  return nullptr;
}

// Which arrays are scalar-replaced: local arrays of constant size, and
// output arrays, whose every use is an index that is a constant (in range).
void Lowerer::prescanArrays(const Stmt *body) {
  std::function<void(const Stmt *)> walk = [&](const Stmt *s) {
    if (!s)
      return;
    if (const auto *d = dyn_cast<clang::DeclStmt>(s))
      for (const clang::Decl *x : d->decls()) {
        if (const auto *v = dyn_cast<VarDecl>(x); v && v->getType()->isArrayType())
          registerLocalArray(v);
        if (const auto *v = dyn_cast<VarDecl>(x); v && v->getType()->isPointerType())
          registerPointerView(v);
      }
    checkPointerUse(s);
    if (const auto *u = dyn_cast<UnaryOperator>(s); u && u->getOpcode() == clang::UO_AddrOf)
      if (const auto *a = dyn_cast<ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens()))
        if (const VarDecl *v = arrayBase(a, false))
          arrays[v].constIndexOnly = false; // a view of it: not in scalars
    if (const auto *a = dyn_cast<ArraySubscriptExpr>(s)) {
      if (const VarDecl *v = arrayBase(a, false)) {
        long long c;
        bool constant = constElement(a, v, c);
        ArrayInfo &info = arrays[v];
        if (constant && c >= 0 &&
            (info.fixedSize < 0 || c < info.fixedSize) && c < 4096)
          info.numElems = std::max(info.numElems, (int)c + 1);
        else
          info.constIndexOnly = false;
        walk(a->getIdx());
        walk(rowIndex(a, v));
        return;
      }
    }
    if (const auto *r = dyn_cast<DeclRefExpr>(s))
      if (const auto *v = dyn_cast<VarDecl>(r->getDecl()))
        if (arrays.count(v))
          arrays[v].constIndexOnly = false;
    for (const Stmt *c : s->children())
      walk(c);
  };
  walk(body);
  for (auto &[v, info] : arrays) {
    if (!info.constIndexOnly || !info.elem)
      continue;
    if (info.role == ArrayRole::Local && info.fixedSize >= 0 &&
        info.fixedSize <= 4096) {
      info.scalarReplaced = true;
      info.numElems = (int)info.fixedSize;
    } else if (info.role == ArrayRole::Out) {
      info.scalarReplaced = true;
    }
  }
}

// Scalar-replaced outputs start as poison: reading an element before
// writing it reads the caller's memory, and an element written on some
// paths only is unknown on the others.
void Lowerer::initOutputs(Env &env, std::vector<Binding> &entry,
                          SourceLocation loc) {
  for (const VarDecl *y : outputs) {
    ArrayInfo &info = arrays[y];
    if (!info.scalarReplaced)
      continue;
    env.arrays[y] = ArrayVal{};
    for (int c = 0; c < info.numElems; c++) {
      Place p{y, c};
      std::string name = placeName(p);
      Poison poison{"reads output '" + name + "' before writing it",
                    "output '" + name + "' is written on some paths only "
                    "(and used or returned after them)",
                    y->getLocation()};
      Var *v = makePoison(info.elem, (y->getNameAsString() + "_unset").c_str(),
                          poison, entry, loc);
      env.vars[p] = v;
      initialElem[p] = v;
    }
  }
}

Expr *Lowerer::emptyArray(Type *elem) {
  Var *k = var_new(arena, "k", ty_int());
  return ex_build(arena, ex_int(arena, 0), k, ex_const(arena, elem, 0));
}

Expr *Lowerer::lenOf(const ArrayVal &v) {
  if (v.len)
    return dup(arena, v.len);
  return ex_len(arena, ex_var(arena, v.value));
}

void Lowerer::lowerLocalArrayDecl(const VarDecl *v, Env &env,
                                   std::vector<Binding> &bindings) {
  SourceLocation loc = v->getLocation();
  registerLocalArray(v);
  ArrayInfo &info = arrays[v];
  const clang::ArrayType *arr = ctx.getAsArrayType(v->getType());
  if (arr && arr->getElementType()->isArrayType() && info.cols <= 0)
    fail(loc, isa<clang::ConstantArrayType>(arr)
                  ? "array '" + v->getNameAsString() + "' has more than two "
                    "dimensions, or rows of variable length; not supported"
                  : "variable-length two-dimensional array '" +
                        v->getNameAsString() + "' is not supported yet");
  if (!arr)
    fail(loc, "unsupported array type");
  if (!info.elem)
    fail(loc, "array '" + v->getNameAsString() + "' has elements of type '" +
                  ctx.getBaseElementType(arr->getElementType()).getAsString() +
                  "'; only double, float and int elements are supported");
  if (isa<clang::IncompleteArrayType>(arr))
    fail(loc, "array '" + v->getNameAsString() + "' has no size");
  const CExpr *init = v->getInit();
  const auto *list = dyn_cast_or_null<clang::InitListExpr>(
      init ? init->IgnoreParens() : nullptr);
  if (init && !list)
    fail(init->getExprLoc(), "unsupported array initialiser");
  // The value of element c (flat) of the initialiser (C zero-fills the
  // rest); a two-dimensional one is a list of rows.
  auto element = [&](long long c) -> Expr * {
    const clang::InitListExpr *l = list;
    if (l && info.cols > 0) {
      const CExpr *row = c / info.cols < (long long)l->getNumInits()
                             ? l->getInit((unsigned)(c / info.cols))
                             : nullptr;
      l = dyn_cast_or_null<clang::InitListExpr>(row ? row->IgnoreParens()
                                                    : nullptr);
      c %= info.cols;
    }
    if (l && c < (long long)l->getNumInits()) {
      const CExpr *e = l->getInit((unsigned)c);
      if (!isa<clang::ImplicitValueInitExpr>(e))
        return lowerExpr(e, env);
    }
    return mkConst(info.elem, 0, loc);
  };
  if (info.scalarReplaced) {
    env.arrays[v] = ArrayVal{};
    std::vector<std::pair<Place, Var *>> elems;
    for (int c = 0; c < info.numElems; c++) {
      Place p{v, c};
      Var *x = nullptr;
      if (list) {
        x = newPlaceVar(p);
        bindings.push_back({x, element(c), loc});
        noteZero(x, bindings.back().value);
      }
      elems.push_back({p, x});
    }
    for (auto &[p, x] : elems)
      env.vars[p] = x;
    return;
  }
  // Its whole length, known to make it whole when a write needs it.
  Expr *n = nullptr;
  if (info.fixedSize >= 0) {
    n = mkInt(info.fixedSize, loc);
  } else if (const auto *vla = dyn_cast<clang::VariableArrayType>(arr)) {
    n = lowerExpr(vla->getSizeExpr(), env);
    if (!n->type || n->type->kind != TY_INT)
      fail(vla->getSizeExpr()->getExprLoc(), "array size is not an integer");
    n = simpleOrBound(toKind(n, ty_int(), loc), "size", bindings, loc);
  } else {
    fail(loc, "unsupported array type");
  }
  env.sizes[v] = n;
  if (!list) {
    env.arrays[v] = ArrayVal{};
    return;
  }
  // (build N (k) (if (eq k 0) e0 (if (eq k 1) e1 ... rest)))
  long long given = info.cols > 0 ? info.fixedSize // rows, zero-filled
                                  : (long long)list->getNumInits();
  if (info.fixedSize >= 0)
    given = std::min(given, info.fixedSize);
  std::vector<Var *> values;
  for (long long c = 0; c < given; c++) {
    Var *x = var_new(arena, (v->getNameAsString() + "_init").c_str(),
                     info.elem);
    bindings.push_back({x, element(c), loc});
    values.push_back(x);
  }
  Var *k = var_new(arena, "k", ty_int());
  Expr *body = mkConst(info.elem, 0, loc);
  if (given > 0 && given == info.fixedSize) // the last needs no test
    body = mkVar(values[(size_t)--given], loc);
  for (long long c = given - 1; c >= 0; c--)
    body = mkIf(mkPrim2(P_EQ, mkVar(k, loc), mkInt(c, loc), loc),
                mkVar(values[(size_t)c], loc), body, loc);
  Var *y = newPlaceVar({v, kWhole});
  bindings.push_back({y, at(ex_build(arena, dup(arena, n), k, body), loc), loc});
  env.arrays[v] = ArrayVal{y, dup(arena, n)};
  return;
}

// ------------------------------------------------------ element reads

// The loop that makes d by one of the cheap forms (build, scatter), whose
// element is a place in its body. A loop that carries d whole in its state
// (Update) is not its owner: in its body d is an array value like outside
// loops.
LoopCtx *Lowerer::ownerOf(const VarDecl *d) {
  for (LoopCtx *c : loops)
    if (c->arrays.count(d) && c->arrays.at(d) != Site::Update)
      return c;
  return nullptr;
}

// Does a loop being lowered carry d in its state, updated in place? Then
// every write to d inside it must be an update of that value.
bool Lowerer::carriedInPlace(const VarDecl *d) {
  for (LoopCtx *c : loops)
    if (c->arrays.count(d) && c->arrays.at(d) == Site::Update)
      return true;
  return false;
}

static bool isCounterRef(const CExpr *e, const VarDecl *counter) {
  if (const auto *d = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()))
    return d->getDecl() == counter;
  return false;
}

Res Lowerer::resolveRead(const ArraySubscriptExpr *s, const VarDecl *d,
                         const Env &env, Place &place) {
  const ArrayInfo &info = arrays.at(d);
  long long c;
  if (info.scalarReplaced && constElement(s, d, c)) {
    place = {d, (int)c};
    return Res::Element;
  }
  LoopCtx *o = ownerOf(d);
  if (!o)
    return Res::Direct;
  Site::Kind kind = o->arrays.at(d);
  place = {d, kSlot};
  if (kind == Site::Slot && isCounterRef(s->getIdx(), o->h.counter))
    return Res::Slot;
  if (kind == Site::FlatSlot && o->target == TargetKind::FlatBuild &&
      o->targetArray == d && env.vars.count(place) && o->flatInner.count(d)) {
    LoopHeader inner = parseHeader(o->flatInner.at(d), nullptr);
    if (isFlatPattern(s->getIdx(), o->h, inner))
      return Res::Slot;
  }
  fail(s->getExprLoc(), "loop carries array '" + d->getNameAsString() +
                            "' from one iteration to the next; not "
                            "supported yet");
}

Res Lowerer::resolveWrite(const ArraySubscriptExpr *s, const VarDecl *d,
                          const CExpr *write, Place &place) {
  const ArrayInfo &info = arrays.at(d);
  long long c;
  if (info.scalarReplaced && constElement(s, d, c)) {
    place = {d, (int)c};
    return Res::Element;
  }
  LoopCtx *o = ownerOf(d);
  if (!o)
    return Res::Direct;
  auto it = o->siteOf.find(write);
  if (it == o->siteOf.end())
    fail(s->getExprLoc(), "internal error: unclassified write to '" +
                              d->getNameAsString() + "' in a loop");
  const Site &site = o->sites[it->second];
  place = {d, kSlot};
  switch (site.kind) {
  case Site::Slot:
    return Res::Slot;
  case Site::FlatSlot:
    return o->target == TargetKind::FlatBuild && o->targetArray == d
               ? Res::Slot
               : Res::Skip;
  case Site::Scatter:
    return o->targetSite == &site ? Res::SiteTarget : Res::Skip;
  case Site::Update: // not owned (ownerOf): an array value
    return Res::Direct;
  case Site::Strided: {
    long long m, c;
    stridedIndex(s->getIdx(), o->h.counter, m, c);
    place = {d, kBlock0 - (int)c};
    return Res::Slot;
  }
  }
  return Res::Skip;
}

Expr *Lowerer::lowerIndex(const CExpr *idx, const Env &env) {
  long long c;
  if (constIndex(idx, c))
    return mkInt(c, idx->getExprLoc());
  Expr *i = lowerExpr(idx, env);
  if (!i->type || i->type->kind != TY_INT)
    fail(idx->getExprLoc(), "array index '" + text(idx) + "' is not an integer");
  return toKind(i, ty_int(), idx->getExprLoc());
}

Expr *Lowerer::arrayValue(const VarDecl *d, SourceLocation loc, const Env &env,
                          const char *what) {
  auto it = env.arrays.find(d);
  if (it == env.arrays.end())
    fail(loc, "unsupported use of '" + d->getNameAsString() + "'");
  if (!it->second.value) {
    std::string kind =
        arrays.at(d).role == ArrayRole::Out ? "output array" : "array";
    fail(loc, std::string(what) + " " + kind + " '" + d->getNameAsString() +
                  "' before writing it");
  }
  return mkVar(it->second.value, loc);
}

// An element of a `const _Bool *` parameter, a byte 0 or 1, is an int in
// the IR as every _Bool value is (scalarType).
Expr *Lowerer::boolElementAsInt(Expr *e, SourceLocation loc) {
  if (!e->type || e->type->kind != TY_INT || e->type->ikind != IK_BOOL)
    return e;
  Expr *r = mkPrim1(P_TO_INT, e, loc);
  r->type = ty_int();
  return r;
}

Expr *Lowerer::lowerSubscriptRead(const ArraySubscriptExpr *s,
                                  const Env &env) {
  if (Expr *t = lowerTableRead(s, env))
    return t;
  SourceLocation loc = s->getExprLoc();
  if (!arrayBase(s, false) && viewBase(s->getBase())) { // (a + k)[j], *(p + n - 1)
    const VarDecl *base = nullptr;
    Expr *view = lowerArrayRef(s->getBase(), env, base);
    Expr *e = at(ex_index(arena, view, lowerIndex(s->getIdx(), env)), loc);
    e->type = arrays.at(base).elem;
    return boolElementAsInt(e, loc);
  }
  const VarDecl *d = arrayBase(s, true);
  Place p{d, kWhole};
  switch (resolveRead(s, d, env, p)) {
  case Res::Element:
  case Res::Slot:
    return readPlace(p, loc, env);
  default:
    break;
  }
  Expr *y = arrayValue(d, loc, env, "reads");
  Expr *i = lowerElementIndex(s, d, env);
  Expr *e = at(ex_index(arena, y, i), loc);
  e->type = arrays.at(d).elem;
  return boolElementAsInt(e, loc);
}

// A callee the module needs, once, with the first call's location.
void Lowerer::noteCallee(const FunctionDecl *callee, SourceLocation loc) {
  const FunctionDecl *canonical = callee->getCanonicalDecl();
  for (const CalleeUse &u : callees)
    if (u.callee == canonical)
      return;
  callees.push_back({canonical, loc});
}

// An array argument's elements must be the parameter's.
void Lowerer::requireElemType(const CExpr *a, const VarDecl *d, Type *want,
                              const clang::ParmVarDecl *p, const std::string &callee) {
  if (!type_eq(arrays.at(d).elem, want->elem))
    fail(a->getExprLoc(), "'" + d->getNameAsString() +
                              "' has another element type than parameter '" +
                              p->getNameAsString() + "' of '" + callee + "'");
}

// A view (`&x[k]`, `x + k`) passed for input array parameter `p` of type
// `want`; `base` gets the array it points into.
Expr *Lowerer::viewArgument(const CExpr *a, Type *want, const clang::ParmVarDecl *p,
                            const std::string &callee, const Env &env, const VarDecl *&base) {
  Expr *view = lowerArrayRef(a, env, base);
  requireElemType(a, base, want, p, callee);
  return view;
}

Expr *Lowerer::oldElement(const ArrayVal &old, Expr *i, bool guarded,
                          SourceLocation loc) {
  Expr *e = at(ex_index(arena, mkVar(old.value, loc), i), loc);
  e->type = old.value->type->elem;
  if (!guarded)
    return e;
  Expr *inRange = mkPrim2(P_LT, dup(arena, i), at(lenOf(old), loc), loc);
  return mkIf(inRange, e, mkConst(e->type, 0, loc), loc);
}

// ----------------------------------------------------- element writes

// AST equality for index expressions (y[i*n + j] written and read).
bool Lowerer::sameAst(const CExpr *a, const CExpr *b) {
  a = a->IgnoreParenImpCasts();
  b = b->IgnoreParenImpCasts();
  long long x, y;
  if (constIndex(a, x) && constIndex(b, y))
    return x == y;
  if (const auto *da = dyn_cast<DeclRefExpr>(a)) {
    const auto *db = dyn_cast<DeclRefExpr>(b);
    return db && da->getDecl() == db->getDecl();
  }
  if (const auto *ba = dyn_cast<BinaryOperator>(a)) {
    const auto *bb = dyn_cast<BinaryOperator>(b);
    return bb && ba->getOpcode() == bb->getOpcode() &&
           sameAst(ba->getLHS(), bb->getLHS()) &&
           sameAst(ba->getRHS(), bb->getRHS());
  }
  if (const auto *ua = dyn_cast<UnaryOperator>(a)) {
    const auto *ub = dyn_cast<UnaryOperator>(b);
    return ub && ua->getOpcode() == ub->getOpcode() &&
           sameAst(ua->getSubExpr(), ub->getSubExpr());
  }
  if (const auto *sa = dyn_cast<ArraySubscriptExpr>(a)) {
    const auto *sb = dyn_cast<ArraySubscriptExpr>(b);
    return sb && sameAst(sa->getBase(), sb->getBase()) &&
           sameAst(sa->getIdx(), sb->getIdx());
  }
  return false;
}

bool Lowerer::sameLvalue(const CExpr *a, const CExpr *b) {
  a = a->IgnoreParenImpCasts();
  b = b->IgnoreParenImpCasts();
  if (isa<DeclRefExpr>(a) || isa<ArraySubscriptExpr>(a))
    return sameAst(a, b);
  return false;
}

// The value an assignment, compound assignment or ++/-- stores; `old` reads
// the target (only compound forms call it).
Expr *Lowerer::writtenValue(const CExpr *write,
                            const std::function<Expr *()> &old,
                            const Env &env) {
  SourceLocation loc = write->getExprLoc();
  if (const auto *c = dyn_cast<clang::CompoundAssignOperator>(write)) {
    QualType lhsType = c->getLHS()->getType();
    Expr *o = convert(old(), lhsType, c->getComputationLHSType(), loc);
    Prim p;
    switch (BinaryOperator::getOpForCompoundAssignment(c->getOpcode())) {
    case clang::BO_Add: p = P_ADD; break;
    case clang::BO_Sub: p = P_SUB; break;
    case clang::BO_Mul: p = P_MUL; break;
    case clang::BO_Div: p = P_DIV; break;
    case clang::BO_Rem: p = P_MOD; break;
    default:
      fail(loc, "operator '" + c->getOpcodeStr().str() + "' is not supported");
    }
    Expr *result = mkPrim2(p, o, lowerExpr(c->getRHS(), env), loc);
    return convert(result, c->getComputationResultType(), lhsType, loc);
  }
  if (const auto *b = dyn_cast<BinaryOperator>(write))
    return lowerExpr(b->getRHS(), env); // converted to the lhs type by Sema
  const auto *u = cast<UnaryOperator>(write);
  QualType type = u->getSubExpr()->getType();
  QualType promoted =
      type.getCanonicalType()->isBooleanType() ? ctx.IntTy : type;
  Expr *o = convert(old(), type, promoted, loc);
  Expr *one = mkConst(irScalarType(promoted), 1, loc);
  Expr *result = mkPrim2(u->isIncrementOp() ? P_ADD : P_SUB, o, one, loc);
  return convert(result, promoted, type, loc);
}

// What an accumulating write (+= -= ++ -- or y[e] = y[e] +- v) adds.
Expr *Lowerer::accumulatedValue(const CExpr *write, QualType elemType,
                                const Env &env) {
  SourceLocation loc = write->getExprLoc();
  if (const auto *c = dyn_cast<clang::CompoundAssignOperator>(write)) {
    Expr *v = lowerExpr(c->getRHS(), env);
    if (c->getOpcode() == clang::BO_SubAssign)
      v = mkPrim1(P_NEG, v, loc);
    return convert(v, c->getComputationResultType(), elemType, loc);
  }
  if (const auto *u = dyn_cast<UnaryOperator>(write))
    return mkConst(irScalarType(elemType), u->isIncrementOp() ? 1 : -1, loc);
  const auto *a = cast<BinaryOperator>(write);
  const auto *b = cast<BinaryOperator>(a->getRHS()->IgnoreParenImpCasts());
  const CExpr *other =
      sameLvalue(b->getLHS(), a->getLHS()) ? b->getRHS() : b->getLHS();
  Expr *v = lowerExpr(other, env);
  if (b->getOpcode() == clang::BO_Sub)
    v = mkPrim1(P_NEG, v, loc);
  return convert(v, b->getType(), elemType, loc);
}

Expr *Lowerer::lowerElementWrite(const CExpr *write,
                                 const ArraySubscriptExpr *lhs,
                                 const Rest *next, Env env,
                                 const Tail &tail) {
  SourceLocation loc = write->getExprLoc();
  const VarDecl *d = arrayBase(lhs, true);
  const ArrayInfo &info = arrays.at(d);
  if (info.role == ArrayRole::View)
    fail(lhs->getExprLoc(), "writes through pointer '" + d->getNameAsString() +
                                "' are not supported yet (write the array it points into)");
  if (info.role == ArrayRole::In)
    fail(lhs->getExprLoc(),
         info.elem->kind == TY_INT
             ? "writes to integer array parameter '" + d->getNameAsString() +
                   "' are not supported"
             : "writes to input array '" + d->getNameAsString() + "'");
  Place p{d, kWhole};
  switch (resolveWrite(lhs, d, write, p)) {
  case Res::Element:
  case Res::Slot: {
    std::vector<Binding> effects;
    if (const auto *b = dyn_cast<BinaryOperator>(write);
        b && b->getOpcode() == clang::BO_Assign)
      lowerEffects(b->getRHS(), env, effects);
    Expr *value = writtenValue(
        write, [&] { return readPlace(p, lhs->getExprLoc(), env); }, env);
    return wrapInLets(effects,
                      assignPlace(p, value, loc, next, std::move(env), tail));
  }
  case Res::SiteTarget: {
    Expr *idx = lowerIndex(lhs->getIdx(), env);
    Expr *add = accumulatedValue(write, lhs->getType(), env);
    Expr *sum = mkPrim2(P_ADD, readPlace({d, kSiteVal}, loc, env), add, loc);
    Var *vi = newPlaceVar({d, kSiteIdx});
    Var *vv = newPlaceVar({d, kSiteVal});
    env.vars[{d, kSiteIdx}] = vi;
    env.vars[{d, kSiteVal}] = vv;
    return mkLet(vi, idx,
                 mkLet(vv, sum, lowerSeq(next, std::move(env), tail), loc),
                 loc);
  }
  case Res::Skip:
    return lowerSeq(next, std::move(env), tail);
  case Res::Direct:
    break;
  }
  return directWrite(d, lhs, write, next, std::move(env), tail);
}

// ---------------------------------------------------- whole arrays

// Is the current value of d the whole C array, so that a write at any
// index C allows is in range: an in-out parameter, or a local array whose
// value has its declared length?
bool Lowerer::isWhole(const VarDecl *d, const Env &env) {
  const ArrayVal &a = env.arrays.at(d);
  if (!a.value)
    return false;
  if (arrays.at(d).role == ArrayRole::InOut)
    return true;
  auto s = env.sizes.find(d);
  return s != env.sizes.end() && a.len && exprEq(a.len, s->second);
}

// Requires: d is a local array (its size in env.sizes). Guarantees: the
// current value of d is whole: the written prefix, zeros after it (C's
// unwritten elements, which a correct program does not read), or a fresh
// zeroed array when nothing was written. One O(n) copy, after which every
// write is an O(1) update.
void Lowerer::makeWhole(const VarDecl *d, Env &env, std::vector<Binding> &out,
                        SourceLocation loc) {
  if (isWhole(d, env))
    return;
  auto s = env.sizes.find(d);
  if (s == env.sizes.end())
    fail(loc, "internal error: '" + d->getNameAsString() + "' has no size");
  Type *elem = arrays.at(d).elem;
  ArrayVal old = env.arrays.at(d);
  Expr *value;
  if (!old.value) {
    value = at(ex_alloc(arena, ty_array(arena, elem), dup(arena, s->second)), loc);
  } else {
    Var *k = var_new(arena, "k", ty_int());
    value = at(ex_build(arena, dup(arena, s->second), k,
                        oldElement(old, mkVar(k, loc), true, loc)),
               loc);
  }
  Var *y = newPlaceVar({d, kWhole});
  out.push_back({y, value, loc});
  env.arrays[d] = ArrayVal{y, dup(arena, s->second)};
}

// Is the C index `idx` certainly below `len`, the length of an output's
// written prefix? Cheap facts only: constants, and the counter of a loop
// being lowered that counts up to a bound (exclusive) equal to the length,
// or down from a start below it; a length (if (> X 0) X 0), a loop's trip
// count, is at least X.
bool Lowerer::provablyBelow(const CExpr *idx, const Expr *len) {
  if (!len)
    return false;
  std::vector<const Expr *> bounds{len};
  if (len->kind == E_IF && len->args[0]->kind == E_PRIM &&
      len->args[0]->op == P_GT && isIntConst(len->args[0]->args[1], 0) &&
      isIntConst(len->args[2], 0) && exprEq(len->args[0]->args[0], len->args[1]))
    bounds.push_back(len->args[1]);
  long long c, l;
  if (constIndex(idx, c) && intConst(len, l))
    return c >= 0 && c < l;
  const auto *ref = dyn_cast<DeclRefExpr>(idx->IgnoreParenImpCasts());
  if (!ref)
    return false;
  for (LoopCtx *lc : loops) {
    if (lc->h.counter != ref->getDecl() || !lc->h.stmt)
      continue;
    for (const Expr *b : bounds) {
      if (lc->h.step > 0 && lc->h.cmp == clang::BO_LT && lc->b.hi &&
          (exprEq(lc->b.hi, b) ||
           (intConst(lc->b.hi, c) && intConst(b, l) && c <= l)))
        return true;
      // counting down from lo: lo = X - k (k >= 1) with X the length
      const Expr *lo = lc->b.lo;
      if (lc->h.step < 0 && lo && lo->kind == E_PRIM && lo->op == P_SUB &&
          intConst(lo->args[1], c) && c >= 1 && exprEq(lo->args[0], b))
        return true;
    }
  }
  return false;
}

// A write that is an update of the whole array (DESIGN 8.1):
// `let y' = (update y i v)`, v computed first (reading y's old element for
// `+=`). `bindings` holds what the statement computed before.
Expr *Lowerer::updateWrite(const VarDecl *d, const ArraySubscriptExpr *lhs,
                           const CExpr *write, std::vector<Binding> bindings,
                           const Rest *next, Env env, const Tail &tail) {
  SourceLocation loc = write->getExprLoc();
  Type *elem = arrays.at(d).elem;
  if (env.sizes.count(d))
    makeWhole(d, env, bindings, loc);
  ArrayVal old = env.arrays.at(d);
  Expr *idx = simpleOrBound(lowerElementIndex(lhs, d, env), "at", bindings, loc);
  Expr *value = writtenValue(
      write,
      [&] {
        Expr *e = at(ex_index(arena, mkVar(old.value, loc), dup(arena, idx)), loc);
        e->type = elem;
        return e;
      },
      env);
  Var *v = var_new(arena, (d->getNameAsString() + "_val").c_str(), elem);
  bindings.push_back({v, value, loc});
  Var *y = newPlaceVar({d, kWhole});
  Expr *upd = at(ex_update(arena, mkVar(old.value, loc), dup(arena, idx), mkVar(v, loc)), loc);
  upd->type = old.value->type;
  bindings.push_back({y, upd, loc});
  env.arrays[d] = ArrayVal{y, old.len ? dup(arena, old.len) : nullptr};
  return wrapInLets(bindings, lowerSeq(next, std::move(env), tail));
}

// y[i] = v outside any loop that writes y by a cheap form. A whole array
// (an in-out parameter, a local made whole) is updated in place; so is an
// output whose written prefix certainly holds element i. Otherwise, for an
// output, a new written prefix,
// (build L' (k) (if (eq k i) v (index y k))) with L' = max(len y, i + 1).
Expr *Lowerer::directWrite(const VarDecl *d, const ArraySubscriptExpr *lhs,
                           const CExpr *write, const Rest *next, Env env,
                           const Tail &tail) {
  SourceLocation loc = write->getExprLoc();
  Type *elem = arrays.at(d).elem;
  ArrayVal old = env.arrays.at(d);
  std::vector<Binding> bindings;
  if (const auto *b = dyn_cast<BinaryOperator>(write);
      b && b->getOpcode() == clang::BO_Assign)
    lowerEffects(b->getRHS(), env, bindings);
  // Updates where the prefix cannot serve (a loop's state, an in-out
  // parameter, a local first written past index 0) or need not (a whole
  // array outside loop bodies: O(1) instead of a copy per write, also
  // under conditions); in a loop body that does not carry the array, the
  // prefix, which reverse mode handles there (updates in loop bodies wait
  // for DESIGN 8.2's undo).
  bool local = env.sizes.count(d) != 0;
  bool inPlace = carriedInPlace(d);
  bool firstNotZero = !old.value && !isIntConst(lowerElementIndex(lhs, d, env), 0);
  if (arrays.at(d).role == ArrayRole::InOut || (local && (inPlace || firstNotZero)) ||
      (loops.empty() && isWhole(d, env)) ||
      (inPlace && old.value && !rowIndex(lhs, d) &&
       provablyBelow(lhs->getIdx(), old.len)))
    return updateWrite(d, lhs, write, std::move(bindings), next, std::move(env),
                       tail);
  if (inPlace)
    fail(lhs->getExprLoc(),
         "a loop updates output '" + d->getNameAsString() + "' at '" +
             text(lhs->getIdx()) + "', which may lie beyond the elements "
             "written before the loop; not supported (write the whole output "
             "first, or count up to the length it was written with)");
  Expr *idx = simpleOrBound(lowerElementIndex(lhs, d, env), "at", bindings,
                            loc);
  Expr *value = writtenValue(
      write,
      [&] {
        Expr *y = arrayValue(d, lhs->getExprLoc(), env, "reads");
        Expr *e = at(ex_index(arena, y, dup(arena, idx)), loc);
        e->type = elem;
        return e;
      },
      env);
  Var *v = var_new(arena, (d->getNameAsString() + "_val").c_str(), elem);
  bindings.push_back({v, value, loc});
  Var *k = var_new(arena, "k", ty_int());
  Expr *hit = mkPrim2(P_EQ, mkVar(k, loc), dup(arena, idx), loc);
  Expr *built = nullptr;
  Expr *len = nullptr;
  if (!old.value) {
    if (!isIntConst(idx, 0))
      fail(lhs->getExprLoc(),
           "'" + d->getNameAsString() + "' is first written at index '" +
               text(lhs->getIdx()) +
               "', not at 0; arrays must be written from index 0 up (the "
               "written part is kept as a prefix)");
    len = mkInt(1, loc);
    built = ex_build(arena, dup(arena, len), k, mkVar(v, loc));
  } else {
    long long ci, cl;
    bool known = intConst(idx, ci) && old.len && intConst(old.len, cl);
    bool inPrefix = (known && ci <= cl) || (old.len && exprEq(idx, old.len));
    if (known)
      len = mkInt(std::max(cl, ci + 1), loc);
    else if (old.len && exprEq(idx, old.len))
      len = iAdd(lenOf(old), mkInt(1, loc), loc);
    else
      len = iMax(lenOf(old), iAdd(dup(arena, idx), mkInt(1, loc), loc), loc);
    if (len->kind != E_CONST && len->kind != E_VAR)
      len = simpleOrBound(len, "len", bindings, loc);
    Expr *keep = oldElement(old, mkVar(k, loc), !inPrefix, loc);
    built = ex_build(arena, dup(arena, len), k,
                     mkIf(hit, mkVar(v, loc), keep, loc));
  }
  Var *y = newPlaceVar({d, kWhole});
  bindings.push_back({y, at(built, loc), loc});
  env.arrays[d] = ArrayVal{y, len};
  return wrapInLets(bindings, lowerSeq(next, std::move(env), tail));
}

// ------------------------------------------------------------- results

// The function's IR result: the C value alone, or (tuple R Y1 .. Yk).
Expr *Lowerer::outputResult(Expr *value, const Env &env, SourceLocation loc) {
  if (outputs.empty())
    return value;
  std::vector<Expr *> parts{value ? value : mkTuple({}, loc)};
  for (const VarDecl *y : outputs) {
    const ArrayInfo &info = arrays.at(y);
    if (!info.scalarReplaced) {
      const ArrayVal &a = env.arrays.at(y);
      parts.push_back(a.value ? mkVar(a.value, loc) : emptyArray(info.elem));
      continue;
    }
    int written = 0;
    for (int c = 0; c < info.numElems; c++)
      if (env.vars.at({y, c}) != initialElem.at({y, c}))
        written = c + 1;
    for (int c = 0; c < written; c++)
      if (env.vars.at({y, c}) == initialElem.at({y, c}))
        fail(loc, "output '" + placeName({y, c}) +
                      "' is not written on this path but '" +
                      placeName({y, written - 1}) +
                      "' is; an output array must be written from index 0 "
                      "up, without gaps");
    Var *k = var_new(arena, "k", ty_int());
    Expr *body = written ? mkVar(env.vars.at({y, written - 1}), loc)
                         : mkConst(info.elem, 0, loc);
    for (int c = written - 2; c >= 0; c--)
      body = mkIf(mkPrim2(P_EQ, mkVar(k, loc), mkInt(c, loc), loc),
                  mkVar(env.vars.at({y, c}), loc), body, loc);
    parts.push_back(at(ex_build(arena, mkInt(written, loc), k, body), loc));
  }
  return mkTuple(parts, loc);
}

// ---------------------------------------------------------------- calls

// The call a statement consists of, when its callee writes arrays.
const CallExpr *Lowerer::effectCallIn(const CExpr *e) {
  e = e->IgnoreParenImpCasts();
  if (const auto *c = dyn_cast<clang::CStyleCastExpr>(e);
      c && c->getCastKind() == clang::CK_ToVoid)
    e = c->getSubExpr()->IgnoreParenImpCasts();
  const auto *call = dyn_cast<CallExpr>(e);
  if (!call)
    return nullptr;
  const FunctionDecl *callee = call->getDirectCallee();
  if (!callee || !(isDifferentiable(callee) || isCustom(callee)) ||
      !calleeWritesArrays(callee))
    return nullptr;
  return call;
}

void Lowerer::lowerEffects(const CExpr *e, Env &env,
                           std::vector<Binding> &out) {
  if (const CallExpr *c = effectCallIn(e))
    effectCall(c, env, out);
}

// A call to a differentiable function: scalars by value, arrays by their
// current value. Calls to functions with output arrays are lowered at
// statement level (effectCall) and read back here.
Expr *Lowerer::lowerDifferentiableCall(const CallExpr *c,
                                       const FunctionDecl *callee,
                                       const Env &env) {
  SourceLocation loc = c->getBeginLoc();
  std::string name = callee->getNameAsString();
  if (!callee->getType()->getAs<clang::FunctionProtoType>())
    fail(loc, "call to '" + name + "' which has no prototype");
  if (callee->isVariadic())
    fail(loc, "call to '" + name + "': variadic functions are not supported");
  if (calleeWritesArrays(callee)) {
    auto it = effectValues.find(c);
    if (it == effectValues.end())
      fail(loc, "call to '" + name + "', which writes output arrays, must be "
                "a statement of its own or the value of an assignment or "
                "declaration");
    return dup(arena, it->second);
  }
  if (callee->getReturnType()->isVoidType())
    fail(loc, "call to '" + name + "' which returns void");
  Type *ret = resultType(callee, true);
  if (!ret)
    fail(loc, "call to '" + name + "', whose signature is not supported");
  std::vector<Expr *> args = lowerCallArgs(c, callee, env);
  noteCallee(callee, loc);
  Expr *call = ex_call(arena, name.c_str(), (int)args.size(), args.data());
  call->type = ret;
  return at(call, loc);
}

// The arguments of a call that writes no array: scalars converted to the
// parameter type, input arrays by their current value.
std::vector<Expr *> Lowerer::lowerCallArgs(const CallExpr *c,
                                           const FunctionDecl *callee,
                                           const Env &env) {
  std::string name = callee->getNameAsString();
  std::vector<Expr *> args;
  unsigned i = 0;
  for (const CExpr *a : c->arguments()) {
    const clang::ParmVarDecl *p = callee->getParamDecl(i++);
    ParamClass cls;
    Type *t = nullptr;
    std::string problem;
    classifyParam(p, cls, t, problem);
    if (cls != PARAM_IN_ARRAY) {
      args.push_back(lowerExpr(a, env)); // converted to the parameter type
      continue;
    }
    if (Expr *table = tableArgument(a, t, p, name, env)) {
      args.push_back(table);
      continue;
    }
    const VarDecl *d = arrayDecl(a);
    if (!d && viewBase(a)) { // &x[k], x + k: a view of x
      const VarDecl *base = nullptr;
      args.push_back(viewArgument(a, t, p, name, env, base));
      continue;
    }
    std::vector<Binding> pre;
    std::vector<std::pair<const VarDecl *, unsigned>> reads;
    if (Expr *chosen = choiceArgument(c, i - 1, a, env, pre, reads)) {
      args.push_back(wrapInLets(pre, chosen));
      continue;
    }
    if (!d)
      lowerExpr(a, env); // says what is wrong with the argument
    if (!d)
      fail(a->getExprLoc(), "unsupported array argument '" + text(a) + "'");
    requireElemType(a, d, t, p, name);
    if (ownerOf(d))
      fail(a->getExprLoc(), "loop carries array '" + d->getNameAsString() +
                                "' from one iteration to the next; not "
                                "supported yet");
    args.push_back(arrayValue(d, a->getExprLoc(), env, "passes"));
  }
  return args;
}

// A call whose callee writes output arrays: binds the result tuple, then
// each array the caller passed for an output to its new value (the callee's
// written prefix over the caller's).
void Lowerer::effectCall(const CallExpr *c, Env &env,
                         std::vector<Binding> &out) {
  SourceLocation loc = c->getBeginLoc();
  const FunctionDecl *callee = c->getDirectCallee();
  std::string name = callee->getNameAsString();
  // A CHAD_CUSTOM callee has no body to inline: each array it writes goes
  // in as a fresh array of its declared length (a copy of the slice for
  // in-out, zeros for an output) and is stored back after the call, so
  // that the call never writes the caller's memory itself (DESIGN 8.25).
  bool custom = isCustom(callee);
  if (custom)
    registerCustom(c, callee);
  if (!callee->getType()->getAs<clang::FunctionProtoType>())
    fail(loc, "call to '" + name + "' which has no prototype");
  Type *ret = resultType(callee, true);
  if (!ret)
    fail(loc, "call to '" + name + "', whose signature is not supported");
  std::vector<Expr *> args;
  std::vector<const VarDecl *> outs;
  std::vector<std::pair<const VarDecl *, bool>> passed; // array, as output
  std::set<const VarDecl *> inOut; // passed to in-out parameters
  // outputs at a view of an array a loop builds block by block: the block
  // offset c and the callee's output length (lower_strided.cpp)
  std::map<const VarDecl *, std::pair<long long, long long>> blocks;
  std::vector<Slice> slices;  // outputs and in-out arguments at views
  std::vector<std::pair<const VarDecl *, unsigned>> readOnly; // input arrays, parameter
  unsigned i = 0;
  for (const CExpr *a : c->arguments()) {
    const clang::ParmVarDecl *p = callee->getParamDecl(i++);
    ParamClass cls;
    Type *t = nullptr;
    std::string problem;
    classifyParam(p, cls, t, problem);
    bool slice = viewBase(a) && !arrayDecl(a) &&
                 (!wholeArrayArg(a) || writtenViewElsewhere(c, i - 1));
    if (custom && cls == PARAM_OUT_ARRAY && (slice || (wholeArrayArg(a) && viewBase(a) &&
                                                       isWhole(viewBase(a), env))))
      slice = true; // an output the caller has whole: stored back over it
    if (cls == PARAM_INOUT_ARRAY || cls == PARAM_OUT_ARRAY) {
      Type *elem = nullptr;
      std::string table;
      if (tableRef(a, env, elem, table))
        fail(a->getExprLoc(), "table '" + table + "' passed to parameter '" +
                                  p->getNameAsString() + "' of '" + name +
                                  "', which writes it; a table is constant");
    }
    if (cls == PARAM_INOUT_ARRAY && (slice || custom)) {
      sliceArgument(c, i - 1, a, true, env, out, args, outs, slices);
      continue;
    }
    if (cls == PARAM_INOUT_ARRAY) { // the array's value in, its new value out
      const VarDecl *d = wholeArrayArg(a);
      if (!d)
        fail(a->getExprLoc(), "call to '" + name + "', whose parameter '" +
                                  p->getNameAsString() + "' is in-out (read before it is "
                                  "overwritten), with '" + text(a) + "', which is not a whole "
                                  "array; not supported yet");
      if (arrays.at(d).role == ArrayRole::In || arrays.at(d).role == ArrayRole::View)
        fail(a->getExprLoc(), "'" + d->getNameAsString() + "' passed to in-out parameter '" +
                                  p->getNameAsString() + "' of '" + name +
                                  "', which writes it; it is read-only here");
      requireElemType(a, d, t, p, name);
      for (auto &[other, otherOut] : passed)
        if (other == d)
          fail(a->getExprLoc(), "'" + d->getNameAsString() + "' is passed to '" + name +
                                    "' twice, once as an in-out array; aliasing is not "
                                    "supported");
      if (ownerOf(d))
        fail(a->getExprLoc(), "loop writes array '" + d->getNameAsString() +
                                  "' through a call to '" + name + "'; not supported yet");
      args.push_back(arrayValue(d, a->getExprLoc(), env, "passes"));
      passed.push_back({d, true});
      outs.push_back(d);
      inOut.insert(d);
      continue;
    }
    if (cls != PARAM_IN_ARRAY && cls != PARAM_OUT_ARRAY) {
      args.push_back(lowerExpr(a, env));
      continue;
    }
    if (cls == PARAM_IN_ARRAY)
      if (Expr *table = tableArgument(a, t, p, name, env)) {
        args.push_back(table);
        continue;
      }
    if (cls == PARAM_IN_ARRAY)
      if (Expr *chosen = choiceArgument(c, i - 1, a, env, out, readOnly)) {
        args.push_back(chosen);
        continue;
      }
    const VarDecl *d = slice ? nullptr : wholeArrayArg(a); // `a`, `&a[0]`: a itself
    long long blockAt, width;
    if (!d && cls == PARAM_OUT_ARRAY && stridedCallOutput(a, d, blockAt, width)) {
      requireElemType(a, d, t, p, name);
      for (auto &[other, otherOut] : passed)
        if (other == d)
          fail(a->getExprLoc(), "'" + d->getNameAsString() + "' is passed to '" + name +
                                    "' twice, once as an output array; aliasing is not "
                                    "supported");
      passed.push_back({d, true});
      args.push_back(custom ? customOutput(c, i - 1, arrays.at(d).elem, env)
                            : emptyArray(arrays.at(d).elem));
      outs.push_back(d);
      blocks[d] = {blockAt, width};
      continue;
    }
    if (!d && viewBase(a)) {
      if (cls == PARAM_OUT_ARRAY) {
        sliceArgument(c, i - 1, a, false, env, out, args, outs, slices);
        continue;
      }
      const VarDecl *base = nullptr;
      args.push_back(viewArgument(a, t, p, name, env, base));
      passed.push_back({base, false});
      readOnly.push_back({base, i - 1});
      continue;
    }
    if (!d)
      lowerExpr(a, env);
    if (!d)
      fail(a->getExprLoc(), "unsupported array argument '" + text(a) + "'");
    requireElemType(a, d, t, p, name);
    bool asOut = cls == PARAM_OUT_ARRAY;
    for (auto &[other, otherOut] : passed)
      if (other == d && (asOut || otherOut))
        fail(a->getExprLoc(),
             "'" + d->getNameAsString() + "' is passed to '" + name +
                 "' twice, once as an output array; aliasing is not "
                 "supported");
    passed.push_back({d, asOut});
    if (ownerOf(d))
      fail(a->getExprLoc(), "loop writes array '" + d->getNameAsString() +
                                "' through a call to '" + name +
                                "'; not supported yet");
    if (asOut) {
      if (arrays.at(d).role == ArrayRole::In)
        fail(a->getExprLoc(), "input array '" + d->getNameAsString() +
                                  "' passed as an output array");
      if (arrays.at(d).role == ArrayRole::View)
        fail(a->getExprLoc(), "pointer '" + d->getNameAsString() + "' passed as output array of '" +
                                  name + "': writing through a pointer into an array is not "
                                  "supported yet");
      const ArrayVal &cur = env.arrays.at(d);
      args.push_back(custom      ? customOutput(c, i - 1, arrays.at(d).elem, env)
                     : cur.value ? mkVar(cur.value, loc)
                                 : emptyArray(arrays.at(d).elem));
      outs.push_back(d);
    } else {
      args.push_back(arrayValue(d, a->getExprLoc(), env, "passes"));
      readOnly.push_back({d, i - 1});
    }
  }
  checkSlices(c, slices, readOnly, passed);
  if (!custom)
    noteCallee(callee, loc);
  Expr *call = ex_call(arena, name.c_str(), (int)args.size(), args.data());
  call->type = ret;
  Var *r = var_new(arena, ("call_" + name).c_str(), ret);
  out.push_back({r, at(call, loc), loc});
  for (size_t j = 0; j < outs.size(); j++) {
    const VarDecl *d = outs[j];
    Var *fresh = newPlaceVar({d, kWhole});
    out.push_back({fresh, mkGet((int)j + 1, mkVar(r, loc), loc), loc});
    auto slice = std::find_if(slices.begin(), slices.end(),
                              [&](const Slice &x) { return x.out == j; });
    if (slice != slices.end()) { // the callee's new slice, stored back in place
      storeSlice(d, slice->off, fresh, env, out, loc);
      continue;
    }
    if (blocks.count(d)) { // its elements are block elements of the loop's
      auto [c, width] = blocks.at(d);
      for (long long q = 0; q < width; q++) {
        Place p{d, kBlock0 - (int)(c + q)};
        Var *v = newPlaceVar(p);
        Expr *e = at(ex_index(arena, mkVar(fresh, loc), mkInt(q, loc)), loc);
        e->type = arrays.at(d).elem;
        out.push_back({v, e, loc});
        env.vars[p] = v;
      }
      continue;
    }
    ArrayVal old = env.arrays.at(d);
    if (inOut.count(d)) { // the callee updated it: same length
      env.arrays[d] = ArrayVal{fresh, old.len ? dup(arena, old.len) : nullptr};
      continue;
    }
    if (!old.value) {
      env.arrays[d] = ArrayVal{fresh, nullptr};
      continue;
    }
    if (carriedInPlace(d)) {
      // a loop carries d whole, updated in place (DESIGN 8.16): the
      // callee's prefix is stored into it element by element, so that the
      // reverse sweep restores what it overwrote from the undo log
      storeSlice(d, nullptr, fresh, env, out, loc);
      continue;
    }
    // The callee's prefix over the caller's: max of the two lengths.
    ArrayVal now{fresh, nullptr};
    Var *k = var_new(arena, "k", ty_int());
    Expr *inNew = mkPrim2(P_LT, mkVar(k, loc), lenOf(now), loc);
    Expr *body = mkIf(inNew, oldElement(now, mkVar(k, loc), false, loc),
                      oldElement(old, mkVar(k, loc), false, loc), loc);
    Var *merged = newPlaceVar({d, kWhole});
    out.push_back({merged,
                   at(ex_build(arena, iMax(lenOf(now), lenOf(old), loc), k,
                               body),
                      loc),
                   loc});
    env.arrays[d] = ArrayVal{merged, nullptr};
  }
  effectValues[c] = mkGet(0, mkVar(r, loc), loc);
}

} // namespace lowering_detail
} // namespace chad
