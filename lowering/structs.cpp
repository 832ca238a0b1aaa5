// structs.cpp: see structs.h.
//
// How a body is flattened. Every struct variable (a parameter by value or by
// pointer, a local, the result) has leaves, one per scalar or array field,
// nested structs included, each a VarDecl made here: a parameter leaf is a
// ParmVarDecl of the flat function, a local leaf a local VarDecl. The body's
// nodes that involve structs are then replaced *in place* by nodes over the
// leaves: `s.in.x` and `p->x` by a reference to the leaf (`x[0]` when the
// leaf is a written field reached through a pointer: an output array of
// length 1), a whole assignment or initialisation by one assignment per
// leaf (element by element for arrays), `return s` by writes of the result's
// output leaves, a call passing structs by a call of the callee's flat
// function with the leaves. The ordinary lowering (lower.cpp) then lowers
// the flat function, and every replaced pointer is put back: the AST clang
// compiles is the user's. Replacing in place, rather than copying the body,
// keeps every node that has nothing to do with structs as it is.
//
// Leaf classes follow from the struct variable and from what the body does
// (a scan before any leaf is made): a floating scalar field is an active
// scalar, or an output of length 1 when written through a pointer; an
// integer field is inactive; an array field or a pointer field is an input
// array, or an output array when the body writes its elements.
#include "lowering/structs.h"

#include <functional>
#include <map>
#include <memory>
#include <set>

#include "lowering/differentiable.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Basic/Version.h" // CLANG_VERSION_MAJOR, for the API changes below
#include "clang/Lex/Lexer.h"

namespace chad {
namespace {

using namespace clang;
// ir/ir.h has an Expr and a Type too: here they are clang's.
using Expr = clang::Expr;
using Type = clang::Type;

// Thrown at the first unsupported struct construct; caught in
// lowerFlattened only.
struct StructError {
  SourceLocation loc;
  std::string what;
};

[[noreturn]] void fail(SourceLocation loc, std::string what) {
  throw StructError{loc, std::move(what)};
}

// The differences Flattener::viewOffset made, and the field of each.
std::map<const clang::Expr *, std::string> viewDifferences;

// The leaves the flattener declared, and the field each stands for as the
// user wrote it (`p.d`, `q->w`), for the lowering's messages.
std::map<const clang::VarDecl *, std::string> leafFields;

enum class LeafKind {
  Float,   // double or float scalar field: active
  Int,     // integer, enum or _Bool scalar field: inactive
  Array,   // fixed-size array of scalars, `double v[3]`
  Pointer, // pointer to double, float or integers, `double *w`
};

struct Leaf {
  std::vector<const FieldDecl *> fields; // the path from the struct
  LeafKind kind = LeafKind::Float;
  QualType elem;           // the scalar type (of the elements for arrays)
  bool constElems = false; // a pointer field to const data
  long long size = 0;      // Array: number of elements
  bool written = false;    // the body writes it (its elements for arrays)
  VarDecl *decl = nullptr; // the leaf in the flat function
  // In an array of structs: the leaf is a pointer to the field of the
  // first struct, and the field of struct i is `stride * i` elements on.
  long long stride = 0;
  // An integer field of a struct result: the flat function returns it as
  // a double (exact: at most 32 bits), as the IR's outputs are floating.
  bool viaDouble = false;
  // A pointer field of a struct result is a view of one array parameter
  // (DESIGN 8.46): the index of that parameter of f, and the flat function
  // returns the field's offset there as a double (exact: the IR's offsets
  // are ints).
  int viewParam = -1;
  const ParmVarDecl *viewBase = nullptr; // that parameter
  // A 64-bit one: as two doubles per element, its high and low 32 bits
  // (element k at 2k and 2k + 1; wideHalf and wideWhole).
  bool wide = false;
  // A `_Bool` field reached through a pointer leaf (an array field, or a
  // field of an array of structs) is read as `unsigned char`: the same
  // byte, 0 or 1, and the IR has no pointers to `_Bool`.
  bool boolAsChar = false;
  QualType storage(const ASTContext &c) const {
    return viaDouble ? c.DoubleTy : boolAsChar ? c.UnsignedCharTy : elem;
  }
  bool outScalar = false;  // decl is a `T *` of one element: `decl[0]`
  long long slots() const { // storage elements of the flat leaf
    return (kind == LeafKind::Array ? size : 1) * (wide ? 2 : 1);
  }
  std::string path() const { // C access from the struct: "in.x"
    std::string s;
    for (const FieldDecl *f : fields)
      s += (s.empty() ? "" : ".") + f->getNameAsString();
    return s;
  }
  bool inactive = false;    // of a parameter marked CHAD_INACTIVE
  bool active() const {
    return elem->isRealFloatingType() && kind != LeafKind::Int && !inactive;
  }
};

enum class StructRole {
  ByValue,   // a `struct S s` parameter
  ByPointer, // a `struct S *p` or `const struct S *p` parameter
  ByArray,   // such a parameter indexed as an array, `p[i].x` (read only)
  Local,     // a local `struct S t`
  LocalArray, // a local `struct S t[N]`: one local array per field (below)

  Result,    // the function's struct result
};

// Is struct i of it `sv[i]`, its leaves strided arrays?
bool indexed(StructRole r) { return r == StructRole::ByArray || r == StructRole::LocalArray; }

struct StructVar {
  const VarDecl *var = nullptr; // null for the result
  std::string name;             // C name (for leaf names and wrappers)
  QualType type;                // the struct type as written (typedef kept)
  StructRole role = StructRole::ByValue;
  bool constData = false; // `const struct S *p`
  // LocalArray from `S *t = malloc(n * sizeof *t)` (or calloc): each leaf
  // is allocated by the same call, freed where t is
  const CallExpr *allocation = nullptr;
  std::vector<Leaf> leaves;
  bool active() const {
    for (const Leaf &l : leaves)
      if (l.active())
        return true;
    return false;
  }
};

// One parameter of f: an ordinary one (kept as it is), or a struct.
struct FlatParam {
  const ParmVarDecl *parm = nullptr;
  int structIndex = -1; // into FlatSig::structs, or -1
};

// What callers and the wrappers need of a flattened function.
struct FlatSig {
  const FunctionDecl *orig = nullptr;
  FunctionDecl *flat = nullptr;
  std::vector<FlatParam> params;
  std::vector<std::unique_ptr<StructVar>> structs; // parameters
  std::unique_ptr<StructVar> result;               // a struct result
  bool complete = false; // leaves made (false while being made)
  // Local pointers to structs, `S *q = &s;`, each with its initialiser:
  // another name for what the initialiser points to (never reassigned).
  std::map<const VarDecl *, const Expr *> structPointers;
  // Structs in the signature. Without (structs in the body only), the flat
  // function has f's own name, parameters and linkage: callers, which do
  // not flatten calls of it, call it as f, and no wrappers are needed.
  bool structSignature() const { return !structs.empty() || result != nullptr; }
};

// Per translation unit (clang runs one per plugin process): keyed by
// canonical declaration.
std::map<const FunctionDecl *, std::unique_ptr<FlatSig>> flatSigs;
std::map<const FunctionDecl *, const FunctionDecl *> flatToOrig;

const RecordType *recordOf(QualType t) {
  return t.getCanonicalType()->getAs<RecordType>();
}

const RecordType *pointeeRecord(QualType t) {
  if (const auto *p = t.getCanonicalType()->getAs<PointerType>())
    return recordOf(p->getPointeeType());
  return nullptr;
}

bool isScalarFloat(QualType t) {
  const auto *b = dyn_cast<BuiltinType>(t.getCanonicalType().getTypePtr());
  return b && (b->getKind() == BuiltinType::Double ||
               b->getKind() == BuiltinType::Float);
}

bool isScalarInt(QualType t) {
  QualType c = t.getCanonicalType();
  if (c->isBitIntType())
    return false;
  if (const auto *b = dyn_cast<BuiltinType>(c.getTypePtr()))
    if (b->getKind() == BuiltinType::Int128 ||
        b->getKind() == BuiltinType::UInt128)
      return false;
  return c->isIntegerType(); // enums and _Bool included
}

bool isScalar(QualType t) { return isScalarFloat(t) || isScalarInt(t); }

std::string typeName(QualType t, const ASTContext &ctx) {
  PrintingPolicy pp(ctx.getLangOpts());
  return t.getAsString(pp);
}

// Where a field is declared, or `at` for a field that has no place in the
// source (of a builtin record: va_list's __va_list_tag).
static SourceLocation fieldLoc(const FieldDecl *f, SourceLocation at) {
  return f->getLocation().isValid() ? f->getLocation() : at;
}

// The leaves of record `r`, depth first in field order, or an error that
// names the field and what is wrong with it.
void collectLeaves(const RecordDecl *r, std::vector<const FieldDecl *> &path,
                   std::vector<Leaf> &out, const ASTContext &ctx,
                   SourceLocation at, const std::string &owner) {
  if (r->isUnion())
    fail(at, owner + ": union '" + r->getNameAsString() +
                 "' is not supported");
  if (!r->getDefinition())
    fail(at, owner + ": struct '" + r->getNameAsString() +
                 "' is incomplete here");
  for (const FieldDecl *f : r->getDefinition()->fields()) {
    path.push_back(f);
    Leaf named;
    named.fields = path;
    std::string fname = "field '" + named.path() + "'";
    QualType t = f->getType();
    if (f->isBitField())
      fail(fieldLoc(f, at), owner + ": bit-field '" + named.path() + "'" +
                                 " is not supported");
    if (f->isAnonymousStructOrUnion())
      fail(fieldLoc(f, at), owner + ": anonymous struct or union member "
                                     "is not supported");
    Leaf l;
    l.fields = path;
    if (isScalarFloat(t) || isScalarInt(t)) {
      l.kind = isScalarFloat(t) ? LeafKind::Float : LeafKind::Int;
      l.elem = t.getUnqualifiedType();
      out.push_back(l);
    } else if (const RecordType *rt = recordOf(t)) {
      collectLeaves(rt->getDecl(), path, out, ctx, fieldLoc(f, at), owner);
    } else if (const auto *arr = ctx.getAsConstantArrayType(t)) {
      QualType e = arr->getElementType();
      if (recordOf(e))
        fail(fieldLoc(f, at), owner + ": " + fname + " is an array of "
                                       "structs; not supported");
      if (!isScalar(e))
        fail(fieldLoc(f, at), owner + ": " + fname + " has type '" +
                                   typeName(t, ctx) +
                                   "'; only arrays of scalars are supported");
      l.kind = LeafKind::Array;
      l.elem = e.getUnqualifiedType();
      l.size = (long long)arr->getSize().getZExtValue();
      out.push_back(l);
    } else if (t->isArrayType()) {
      fail(fieldLoc(f, at), owner + ": " + fname + " is a flexible array "
                                     "member; not supported");
    } else if (const auto *pt = t.getCanonicalType()->getAs<PointerType>()) {
      QualType e = pt->getPointeeType();
      if (!isScalar(e) || e->isBooleanType())
        fail(fieldLoc(f, at), owner + ": " + fname + " has type '" +
                                   typeName(t, ctx) +
                                   "'; only pointers to double, float or "
                                   "integers are supported in structs");
      l.kind = LeafKind::Pointer;
      l.elem = e.getUnqualifiedType();
      l.constElems = e.isConstQualified();
      out.push_back(l);
    } else {
      fail(fieldLoc(f, at), owner + ": " + fname + " has type '" +
                                 typeName(t, ctx) + "', which is not "
                                 "supported in a struct");
    }
    path.pop_back();
  }
}

// A struct-valued lvalue resolved: the struct variable and the path of
// fields into it (empty: the whole variable).
struct StructRef {
  StructVar *sv = nullptr;
  std::vector<const FieldDecl *> fields;
  // In an array of structs: the terms whose sum is the struct's index
  // (none: the first struct).
  std::vector<const Expr *> index;
};

class Flattener {
public:
  Flattener(const FunctionDecl *fd) : fd(fd), ctx(fd->getASTContext()) {}
  ~Flattener() { restore(); }

  FlatSig &signature(const FunctionDecl *f);
  void flattenBody(FlatSig &sig);
  void restore();
  // f_fwd's (rev false) or f_rev's wrapper, as a prototype or a definition
  static std::string wrappers(const FlatSig &sig, bool rev, bool prototypesOnly,
                              const Signature *lowered = nullptr);
  static std::string wrapperPreamble(const FlatSig &sig);
  static std::string flatPrimal(const FlatSig &sig);

private:
  const FunctionDecl *fd;
  ASTContext &ctx;
  std::vector<std::function<void()>> undo;
  std::map<const VarDecl *, StructVar *> vars; // struct variables in f
  std::vector<std::unique_ptr<StructVar>> locals;
  StructVar *result = nullptr;
  std::string fname;

  // signature
  void scanWrites(const Stmt *s, FlatSig &sig);
  void scanStructPointers(const Stmt *s, FlatSig &sig);
  void checkStructPointerUses(const Stmt *s, const FlatSig &sig);
  bool intoArray(const VarDecl *v, const FlatSig &sig);
  bool walkArrayPointer(Stmt *&slot);
  bool walkLocalArrayElement(Stmt *&slot);
  void markWritten(const Expr *target, FlatSig &sig);
  StructVar *varOf(const FlatSig &sig, const VarDecl *v);
  bool resolve(const Expr *e, const FlatSig &sig, StructVar *&sv,
               std::vector<const FieldDecl *> &fields, bool &viaPointer,
               int depth = 0, std::vector<const Expr *> *index = nullptr);
  bool usedAsArray(const Stmt *s, const ParmVarDecl *p);
  // Local pointers into an array of structs: the variable holding the
  // index they were initialised with.
  std::map<const VarDecl *, VarDecl *> pointerIndex;

  // body
  bool resolveRef(const Expr *e, StructRef &r);
  Leaf *leafAt(const StructRef &r);
  std::vector<Leaf *> leavesUnder(const StructRef &r);
  void walk(Stmt *&slot, bool statement);
  void walkChildren(Stmt *s, bool statements);
  void walkStatementChildren(Stmt *s);
  // Statements a struct-valued call inside an expression was made into
  // (hoistCall), waiting to be placed before the statement that holds it.
  std::vector<Stmt *> pending;
  // Inside an operand that C may not evaluate, or evaluates repeatedly
  // (?: branches, the right of &&, || and comma, a loop's test or step):
  // a call there cannot move before its statement.
  int conditional = 0;
  void hoistCall(Stmt *&slot);
  bool hoistMemberBase(MemberExpr *m);
  void replace(Stmt *&slot, Stmt *with) {
    Stmt **at = &slot;
    Stmt *old = slot;
    undo.push_back([at, old] { *at = old; });
    slot = with;
  }
  Stmt *declareLocals(DeclStmt *d);
  Stmt *assignWhole(const Expr *dst, const Expr *src, SourceLocation loc);
  void assignLeaves(const StructRef &dst, const Expr *src,
                    std::vector<Stmt *> &out, SourceLocation loc);
  Stmt *returnStruct(ReturnStmt *r);
  Expr *flatCall(CallExpr *c, std::vector<Expr *> results = {});
  void callIntoLeaves(const StructRef &dst, const Expr *src,
                      std::vector<Stmt *> &out, SourceLocation loc);
  int temps = 0; // temporaries made for struct results
  void indexReadOnce(const StructRef &r, size_t uses, const Expr *at);
  Expr *leafLvalue(Leaf *l, SourceLocation loc,
                   const std::vector<const Expr *> &index = {});
  Expr *elementLvalue(Leaf *l, long long k, SourceLocation loc,
                      const std::vector<const Expr *> &index = {});
  Expr *arrayArg(Leaf *l, SourceLocation loc,
                 const std::vector<const Expr *> &index = {});
  Expr *offset(const Leaf *l, const std::vector<const Expr *> &index,
               long long k, SourceLocation loc);
  Expr *indexSum(const std::vector<const Expr *> &index, SourceLocation loc);
  Expr *longBinary(Expr *a, Expr *b, BinaryOperatorKind op, SourceLocation loc);
  const CallExpr *allocatedStructs(const VarDecl *v);
  Expr *reallocate(const CallExpr *c, QualType st, const Leaf &l);
  bool freesStructs(const CallExpr *c);
  Stmt *freeLeaves(CallExpr *c);

  // node builders
  Expr *ref(VarDecl *d, SourceLocation loc) {
    return DeclRefExpr::Create(ctx, NestedNameSpecifierLoc(), SourceLocation(),
                               d, false, loc, d->getType(), VK_LValue);
  }
  Expr *rvalue(Expr *lv) {
    return ImplicitCastExpr::Create(ctx, lv->getType().getUnqualifiedType(),
                                    CK_LValueToRValue, lv, nullptr, VK_PRValue,
                                    FPOptionsOverride());
  }
  Expr *lit(long long v, SourceLocation loc) {
    return IntegerLiteral::Create(ctx, llvm::APInt(32, (uint64_t)v, true),
                                  ctx.IntTy, loc);
  }
  Expr *zero(QualType t, SourceLocation loc) {
    if (isScalarFloat(t)) {
      bool f32 = ctx.hasSameUnqualifiedType(t, ctx.FloatTy);
      return FloatingLiteral::Create(ctx, f32 ? llvm::APFloat(0.0f)
                                              : llvm::APFloat(0.0),
                                     true, t.getUnqualifiedType(), loc);
    }
    Expr *z = lit(0, loc);
    if (ctx.hasSameUnqualifiedType(t, ctx.IntTy))
      return z;
    return ImplicitCastExpr::Create(ctx, t.getUnqualifiedType(),
                                    CK_IntegralCast, z, nullptr, VK_PRValue,
                                    FPOptionsOverride());
  }
  // A 64-bit integer as two doubles (Leaf::wide): half 0 the high 32 bits,
  // half 1 the low ones, each exact in a double; and back.
  Expr *wideHalf(Expr *v, int half, SourceLocation loc) {
    QualType u = ctx.UnsignedLongLongTy;
    Expr *w = ImplicitCastExpr::Create(ctx, u, CK_IntegralCast, v, nullptr, VK_PRValue,
                                       FPOptionsOverride());
    Expr *part =
        half == 0
            ? BinaryOperator::Create(ctx, w, lit(32, loc), BO_Shr, u, VK_PRValue, OK_Ordinary, loc,
                                     FPOptionsOverride())
            : BinaryOperator::Create(ctx, w,
                                     IntegerLiteral::Create(ctx, llvm::APInt(64, 0xffffffffULL), u,
                                                            loc),
                                     BO_And, u, VK_PRValue, OK_Ordinary, loc, FPOptionsOverride());
    return ImplicitCastExpr::Create(ctx, ctx.DoubleTy, CK_IntegralToFloating,
                                    new (ctx) ParenExpr(loc, loc, part), nullptr, VK_PRValue,
                                    FPOptionsOverride());
  }
  Expr *wideWhole(Expr *hi, Expr *lo, QualType t, SourceLocation loc) {
    QualType u = ctx.UnsignedLongLongTy;
    auto toU = [&](Expr *d) {
      return ImplicitCastExpr::Create(ctx, u, CK_FloatingToIntegral, d, nullptr, VK_PRValue,
                                      FPOptionsOverride());
    };
    Expr *h = BinaryOperator::Create(ctx, toU(hi), lit(32, loc), BO_Shl, u, VK_PRValue,
                                     OK_Ordinary, loc, FPOptionsOverride());
    Expr *w = BinaryOperator::Create(ctx, new (ctx) ParenExpr(loc, loc, h), toU(lo), BO_Or, u,
                                     VK_PRValue, OK_Ordinary, loc, FPOptionsOverride());
    return ImplicitCastExpr::Create(ctx, t.getUnqualifiedType(), CK_IntegralCast,
                                    new (ctx) ParenExpr(loc, loc, w), nullptr, VK_PRValue,
                                    FPOptionsOverride());
  }
  // `p - base` for a view field of the result (Leaf::viewParam): as C
  // computes it, so the lowering checks that p points into base's array.
  Expr *viewOffset(const Leaf *l, Expr *p, SourceLocation loc) {
    Expr *base = rvalue(ref(const_cast<ParmVarDecl *>(l->viewBase), loc));
    Expr *d = BinaryOperator::Create(ctx, p, base, BO_Sub, ctx.getPointerDiffType(), VK_PRValue,
                                     OK_Ordinary, loc, FPOptionsOverride());
    viewDifferences[d] = l->path();
    return d;
  }
  // Element `at` of a result leaf's storage (Leaf::slots).
  Expr *slotLvalue(Leaf *l, long long at, SourceLocation loc) {
    return new (ctx) ArraySubscriptExpr(rvalue(ref(l->decl, loc)), lit(at, loc), l->storage(ctx),
                                        VK_LValue, OK_Ordinary, loc);
  }
  // Both halves of element k of a wide leaf set from the integer v.
  void assignWide(Leaf *l, long long k, Expr *v, std::vector<Stmt *> &out, SourceLocation loc) {
    if (v->HasSideEffects(ctx))
      fail(v->getBeginLoc(), "'" + text(v) + "', which has side effects, sets the 64-bit "
                             "integer field '" + l->path() + "' of the returned struct; "
                             "not supported (set a variable first)");
    if (!v->getType()->isIntegerType())
      v = ImplicitCastExpr::Create(ctx, l->elem.getUnqualifiedType(),
                                   v->getType()->isRealFloatingType() ? CK_FloatingToIntegral
                                                                      : CK_IntegralCast,
                                   v, nullptr, VK_PRValue, FPOptionsOverride());
    for (int h = 0; h < 2; h++)
      out.push_back(BinaryOperator::Create(ctx, slotLvalue(l, 2 * k + h, loc), wideHalf(v, h, loc),
                                           BO_Assign, ctx.DoubleTy, VK_PRValue, OK_Ordinary, loc,
                                           FPOptionsOverride()));
  }
  Expr *assign(Expr *lhs, Expr *rhs, SourceLocation loc) {
    // an integer result field travels as a double (Leaf::viaDouble)
    QualType lt = lhs->getType(), rt = rhs->getType();
    if (lt->isRealFloatingType() && rt->isIntegerType())
      rhs = ImplicitCastExpr::Create(ctx, lt.getUnqualifiedType(), CK_IntegralToFloating,
                                     rhs, nullptr, VK_PRValue, FPOptionsOverride());
    else if (lt->isIntegerType() && !lt->isBooleanType() && rt->isRealFloatingType())
      rhs = ImplicitCastExpr::Create(ctx, lt.getUnqualifiedType(), CK_FloatingToIntegral,
                                     rhs, nullptr, VK_PRValue, FPOptionsOverride());
    else if (lt->isBooleanType() && rt->isRealFloatingType())
      rhs = ImplicitCastExpr::Create(ctx, lt.getUnqualifiedType(), CK_FloatingToBoolean,
                                     rhs, nullptr, VK_PRValue, FPOptionsOverride());
    return BinaryOperator::Create(ctx, lhs, rhs, BO_Assign,
                                  lhs->getType().getUnqualifiedType(),
                                  VK_PRValue, OK_Ordinary, loc,
                                  FPOptionsOverride());
  }
  Stmt *block(std::vector<Stmt *> stmts, SourceLocation loc) {
#if CLANG_VERSION_MAJOR >= 15
    return CompoundStmt::Create(ctx, stmts, FPOptionsOverride(), loc, loc);
#else
    return CompoundStmt::Create(ctx, stmts, loc, loc);
#endif
  }
  std::string text(const Stmt *s) {
    const SourceManager &sm = ctx.getSourceManager();
    CharSourceRange r = sm.getExpansionRange(s->getSourceRange());
    std::string t = Lexer::getSourceText(r, sm, ctx.getLangOpts()).str();
    if (t.size() > 40)
      t = t.substr(0, 37) + "...";
    return t;
  }
};

// ------------------------------------------------------------ signature

// The struct variable a parameter or local declaration stands for.
StructVar *Flattener::varOf(const FlatSig &sig, const VarDecl *v) {
  for (size_t i = 0; i < sig.params.size(); i++)
    if (sig.params[i].parm == v && sig.params[i].structIndex >= 0)
      return sig.structs[sig.params[i].structIndex].get();
  auto it = vars.find(v);
  return it == vars.end() ? nullptr : it->second;
}

// `s.a.b`, `p->a`, `(*p).a`, `s`, `*p`: the struct variable and the fields.
// False when `e` is not rooted at a struct variable of f (a call's result,
// an array of structs...).
bool Flattener::resolve(const Expr *e, const FlatSig &sig, StructVar *&sv,
                        std::vector<const FieldDecl *> &fields,
                        bool &viaPointer, int depth,
                        std::vector<const Expr *> *index) {
  if (depth > 64) // `S *p = p;`, or a chain longer than any real one
    return false;
  e = e->IgnoreParens();
  // `p[i]`, `p + i`: struct i of an array of structs
  const Expr *base = nullptr, *at = nullptr;
  if (const auto *a = dyn_cast<ArraySubscriptExpr>(e)) {
    base = a->getBase();
    at = a->getIdx();
  } else if (const auto *b = dyn_cast<BinaryOperator>(e);
             b && b->getOpcode() == BO_Add && b->getType()->isPointerType()) {
    bool left = b->getLHS()->getType()->isPointerType();
    base = left ? b->getLHS() : b->getRHS();
    at = left ? b->getRHS() : b->getLHS();
  } else if (const auto *b = dyn_cast<BinaryOperator>(e);
             b && b->getOpcode() == BO_Sub && b->getType()->isPointerType()) {
    // `p - k`: the term -(long)k
    base = b->getLHS();
    Expr *k = const_cast<Expr *>(b->getRHS());
    if (k->isGLValue())
      k = rvalue(k);
    if (!ctx.hasSameUnqualifiedType(k->getType(), ctx.LongTy))
      k = ImplicitCastExpr::Create(ctx, ctx.LongTy, CK_IntegralCast, k, nullptr,
                                   VK_PRValue, FPOptionsOverride());
    at = UnaryOperator::Create(ctx, k, UO_Minus, ctx.LongTy, VK_PRValue, OK_Ordinary,
                               b->getExprLoc(), false, FPOptionsOverride());
  }
  if (base) {
    if (!resolve(base, sig, sv, fields, viaPointer, depth + 1, index) ||
        !indexed(sv->role) || !fields.empty())
      return false;
    if (index)
      index->push_back(at);
    return true;
  }
  if (const auto *m = dyn_cast<MemberExpr>(e)) {
    const auto *f = dyn_cast<FieldDecl>(m->getMemberDecl());
    if (!f || !resolve(m->getBase(), sig, sv, fields, viaPointer, depth + 1, index))
      return false;
    fields.push_back(f);
    return true;
  }
  if (const auto *c = dyn_cast<ImplicitCastExpr>(e)) // p in p->a, t in t[i]
    if (c->getCastKind() == CK_LValueToRValue || c->getCastKind() == CK_ArrayToPointerDecay)
      e = c->getSubExpr()->IgnoreParens();
  if (const auto *u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_Deref)
    e = u->getSubExpr()->IgnoreParenImpCasts();
  const auto *d = dyn_cast<DeclRefExpr>(e);
  const auto *v = d ? dyn_cast<VarDecl>(d->getDecl()) : nullptr;
  if (auto it = v ? sig.structPointers.find(v) : sig.structPointers.end();
      it != sig.structPointers.end()) {
    // a local pointer: what its initialiser points to
    const Expr *to = it->second->IgnoreParenImpCasts();
    if (const auto *u = dyn_cast<UnaryOperator>(to); u && u->getOpcode() == UO_AddrOf)
      to = u->getSubExpr();
    if (!resolve(to, sig, sv, fields, viaPointer, depth + 1, index))
      return false;
    auto k = pointerIndex.find(v); // the index as it was initialised
    if (index && k != pointerIndex.end())
      *index = {ref(k->second, d->getExprLoc())};
    return true;
  }
  sv = v ? varOf(sig, v) : nullptr;
  if (!sv)
    return false;
  viaPointer = sv->role == StructRole::ByPointer || sv->role == StructRole::ByArray;
  return true;
}

void Flattener::markWritten(const Expr *target, FlatSig &sig) {
  const Expr *e = target->IgnoreParenImpCasts();
  if (const auto *d = dyn_cast<DeclRefExpr>(e))
    if (const auto *v = dyn_cast<VarDecl>(d->getDecl()); v && sig.structPointers.count(v))
      return; // a pointer moved (`p++`), no struct written
  bool element = false;
  while (const auto *s = dyn_cast<ArraySubscriptExpr>(e)) {
    e = s->getBase()->IgnoreParenImpCasts();
    element = true;
  }
  if (const auto *u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_Deref &&
      isa<MemberExpr>(u->getSubExpr()->IgnoreParenImpCasts())) {
    e = u->getSubExpr()->IgnoreParenImpCasts(); // *p->w = ...
    element = true;
  }
  StructVar *sv = nullptr;
  std::vector<const FieldDecl *> fields;
  bool viaPointer = false;
  if (!resolve(e, sig, sv, fields, viaPointer))
    return;
  for (Leaf &l : sv->leaves)
    if (l.kind == LeafKind::Pointer && !element && l.fields == fields &&
        sv->role != StructRole::Local)
      fail(target->getBeginLoc(),
           "pointer field '" + l.path() + "' of '" + sv->name +
               "' is assigned; a pointer field may only be read through");
  for (Leaf &l : sv->leaves)
    if (l.fields.size() >= fields.size() &&
        std::equal(fields.begin(), fields.end(), l.fields.begin()))
      l.written = true;
}

// Marks the leaves the body writes: assignment targets, ++/--, and leaves
// passed to a differentiable callee for a parameter it writes.
void Flattener::scanWrites(const Stmt *s, FlatSig &sig) {
  if (!s)
    return;
  if (const auto *b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp())
    markWritten(b->getLHS(), sig);
  if (const auto *u = dyn_cast<UnaryOperator>(s); u && u->isIncrementDecrementOp())
    markWritten(u->getSubExpr(), sig);
  if (const auto *c = dyn_cast<CallExpr>(s)) {
    const FunctionDecl *callee = c->getDirectCallee();
    if (callee && isDifferentiable(callee) &&
        callee->getCanonicalDecl() != sig.orig->getCanonicalDecl()) {
      const FunctionDecl *def = callee->getDefinition();
      for (unsigned i = 0; i < c->getNumArgs() && i < callee->getNumParams(); i++) {
        QualType pt = callee->getParamDecl(i)->getType();
        const Expr *a = c->getArg(i)->IgnoreParenImpCasts();
        if (const auto *u = dyn_cast<UnaryOperator>(a); u && u->getOpcode() == UO_AddrOf)
          a = u->getSubExpr();
        if (pointeeRecord(pt) && def && usesStructs(def)) {
          // the callee's written leaves, mapped onto the argument's
          FlatSig &cs = signature(def);
          const StructVar *p = nullptr;
          for (const FlatParam &fp : cs.params)
            if (fp.parm == def->getParamDecl(i) && fp.structIndex >= 0)
              p = cs.structs[fp.structIndex].get();
          StructVar *sv = nullptr;
          std::vector<const FieldDecl *> fields;
          bool viaPointer = false;
          if (p && resolve(a, sig, sv, fields, viaPointer))
            for (const Leaf &cl : p->leaves)
              if (cl.written)
                for (Leaf &l : sv->leaves)
                  if (l.fields.size() == fields.size() + cl.fields.size() &&
                      std::equal(fields.begin(), fields.end(), l.fields.begin()))
                    l.written = l.written ||
                                std::equal(cl.fields.begin(), cl.fields.end(),
                                           l.fields.begin() + fields.size(),
                                           [](const FieldDecl *x, const FieldDecl *y) {
                                             return x->getFieldIndex() == y->getFieldIndex();
                                           });
        } else if (const auto *ptr = pt.getCanonicalType()->getAs<PointerType>();
                   ptr && !ptr->getPointeeType().isConstQualified()) {
          markWritten(a, sig);
        }
      }
    }
  }
  for (const Stmt *c : s->children())
    scanWrites(c, sig);
}

// Does the body index parameter `p` (a pointer to a struct) as an array:
// `p[i]`, `p + i`, or passing it to a differentiable callee that does?
bool Flattener::usedAsArray(const Stmt *s, const ParmVarDecl *p) {
  if (!s)
    return false;
  auto isP = [&](const Expr *e) {
    const auto *d = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    return d && d->getDecl() == p;
  };
  if (const auto *a = dyn_cast<ArraySubscriptExpr>(s); a && isP(a->getBase()))
    return true;
  if (const auto *b = dyn_cast<BinaryOperator>(s);
      b && (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub) &&
      b->getType()->isPointerType() && (isP(b->getLHS()) || isP(b->getRHS())))
    return true;
  if (const auto *c = dyn_cast<CallExpr>(s)) {
    const FunctionDecl *callee = c->getDirectCallee();
    const FunctionDecl *def = callee ? callee->getDefinition() : nullptr;
    if (def && isDifferentiable(def) && usesStructs(def) &&
        def->getCanonicalDecl() !=
            cast<FunctionDecl>(p->getDeclContext())->getCanonicalDecl())
      for (unsigned i = 0; i < c->getNumArgs() && i < def->getNumParams(); i++)
        if (isP(c->getArg(i)) && pointeeRecord(def->getParamDecl(i)->getType())) {
          FlatSig &cs = signature(def);
          for (const FlatParam &fp : cs.params)
            if (fp.parm == def->getParamDecl(i) && fp.structIndex >= 0 &&
                cs.structs[fp.structIndex]->role == StructRole::ByArray)
              return true;
        }
  }
  for (const Stmt *c : s->children())
    if (usedAsArray(c, p))
      return true;
  return false;
}

// Local pointers to structs. Each must be initialised where it is declared
// and never reassigned: it is then one more name for what it points to.
void Flattener::scanStructPointers(const Stmt *s, FlatSig &sig) {
  if (!s)
    return;
  if (const auto *d = dyn_cast<DeclStmt>(s))
    for (const Decl *decl : d->decls())
      if (const auto *v = dyn_cast<VarDecl>(decl);
          v && v->hasLocalStorage() && pointeeRecord(v->getType())) {
        if (!v->getInit())
          fail(v->getLocation(),
               "local pointer to a struct '" + v->getNameAsString() +
                   "' is declared without an initialiser; initialise it "
                   "with the struct's address where it is declared");
        if (!allocatedStructs(v)) // else an array of structs of its own
          sig.structPointers[v] = v->getInit();
      }
  for (const Stmt *c : s->children())
    scanStructPointers(c, sig);
}

// Does local pointer `v` point to a whole struct of an array of structs?
// Then it is an index into the array, and may move (`p++`, `p = &a[j]`).
bool Flattener::intoArray(const VarDecl *v, const FlatSig &sig) {
  StructVar *sv = nullptr;
  std::vector<const FieldDecl *> fields;
  bool viaPointer = false;
  const Expr *to = sig.structPointers.at(v)->IgnoreParenImpCasts();
  if (const auto *u = dyn_cast<UnaryOperator>(to); u && u->getOpcode() == UO_AddrOf)
    to = u->getSubExpr();
  if (resolve(to, sig, sv, fields, viaPointer))
    return indexed(sv->role) && fields.empty();
  // a local array of structs, made only when the body is flattened: `&t[i]`
  // or `t + i` of a local `S t[N]`
  const Expr *root = to->IgnoreParenImpCasts();
  if (const auto *a = dyn_cast<ArraySubscriptExpr>(root))
    root = a->getBase()->IgnoreParenImpCasts();
  else if (const auto *b = dyn_cast<BinaryOperator>(root); b && b->isAdditiveOp())
    root = (b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS())
               ->IgnoreParenImpCasts();
  const auto *d = dyn_cast<DeclRefExpr>(root);
  const auto *t = d ? dyn_cast<VarDecl>(d->getDecl()) : nullptr;
  if (t && allocatedStructs(t)) // `S *t = malloc(...)`
    return true;
  const auto *at = t && t->hasLocalStorage() ? ctx.getAsArrayType(t->getType()) : nullptr;
  return at && recordOf(at->getElementType());
}

// The array parameter a pointer field of f's result points into: the one
// pointer parameter of the field's element type, or, of several, the one
// the pointers stored into the field come from (followed back through
// local pointers), else the one the body uses as a pointer value (`x + k`,
// `&x[k]`) rather than only indexing it or passing it on. The lowering
// checks the choice: every returned pointer is subtracted from it, which
// is an error for a pointer into another array.
int viewParamOf(const FunctionDecl *f, const Leaf &l, SourceLocation at) {
  const ASTContext &c = f->getASTContext();
  std::vector<int> typed;
  for (unsigned i = 0; i < f->getNumParams(); i++) {
    QualType t = f->getParamDecl(i)->getType();
    if (t->isPointerType() &&
        c.hasSameUnqualifiedType(t->getPointeeType(), l.elem))
      typed.push_back((int)i);
  }
  std::string field = "the result's pointer field '" + l.path() + "'";
  if (typed.empty())
    fail(at, field + " must point into an array parameter of '" + f->getNameAsString() +
                 "' (a returned view), and '" + f->getNameAsString() + "' has no parameter of type '" +
                 QualType(c.getPointerType(l.elem)).getAsString() + "'");
  if (typed.size() == 1)
    return typed[0];
  // the pointers stored into the field (`s.d = e`, `{.., e, ..}` at its
  // place), followed back through local pointers to parameters
  const FieldDecl *fieldDecl = l.fields.back();
  std::set<int> stored;
  std::set<const VarDecl *> seen;
  std::vector<const Expr *> values;
  std::function<void(const Expr *)> rootOf = [&](const Expr *e) {
    e = e->IgnoreParenImpCasts();
    if (const auto *c = dyn_cast<CStyleCastExpr>(e); c && c->getType()->isPointerType() &&
                                                     c->getSubExpr()->getType()->isPointerType())
      return rootOf(c->getSubExpr()); // `(double *)(x + k)`
    if (const auto *u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf)
      if (const auto *a = dyn_cast<ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens()))
        return rootOf(a->getBase());
    if (const auto *b = dyn_cast<BinaryOperator>(e); b && b->isAdditiveOp())
      return rootOf(b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS());
    if (const auto *c = dyn_cast<ConditionalOperator>(e)) {
      rootOf(c->getTrueExpr());
      return rootOf(c->getFalseExpr());
    }
    const auto *d = dyn_cast<DeclRefExpr>(e);
    const auto *v = d ? dyn_cast<VarDecl>(d->getDecl()) : nullptr;
    if (!v || !seen.insert(v).second)
      return;
    for (int i : typed)
      if (v == f->getParamDecl((unsigned)i))
        stored.insert(i);
    if (v->getInit() && !isa<ParmVarDecl>(v))
      rootOf(v->getInit());
    std::function<void(const Stmt *)> assigned = [&](const Stmt *s) {
      if (!s)
        return;
      if (const auto *b = dyn_cast<BinaryOperator>(s); b && b->getOpcode() == BO_Assign)
        if (const auto *to = dyn_cast<DeclRefExpr>(b->getLHS()->IgnoreParenImpCasts());
            to && to->getDecl() == v)
          rootOf(b->getRHS());
      for (const Stmt *ch : s->children())
        assigned(ch);
    };
    assigned(f->getDefinition()->getBody());
  };
  std::function<void(const Stmt *)> stores = [&](const Stmt *s) {
    if (!s)
      return;
    if (const auto *b = dyn_cast<BinaryOperator>(s); b && b->getOpcode() == BO_Assign)
      if (const auto *m = dyn_cast<MemberExpr>(b->getLHS()->IgnoreParenImpCasts());
          m && m->getMemberDecl() == fieldDecl)
        values.push_back(b->getRHS());
    if (const auto *il = dyn_cast<InitListExpr>(s))
      if (const RecordType *rt = il->getType()->getAs<RecordType>();
          rt && rt->getDecl() == fieldDecl->getParent() &&
          fieldDecl->getFieldIndex() < il->getNumInits())
        values.push_back(il->getInit(fieldDecl->getFieldIndex()));
    for (const Stmt *ch : s->children())
      stores(ch);
  };
  stores(f->getDefinition()->getBody());
  for (const Expr *e : values)
    rootOf(e);
  if (stored.size() == 1)
    return *stored.begin();
  std::set<int> used = stored;
  std::function<void(const Stmt *, const Stmt *, const Stmt *)> scan =
      [&](const Stmt *s, const Stmt *parent, const Stmt *grand) {
        if (!s)
          return;
        if (const auto *d = dyn_cast<DeclRefExpr>(s))
          for (int i : typed)
            if (d->getDecl() == f->getParamDecl((unsigned)i)) {
              const auto *addr = dyn_cast_or_null<UnaryOperator>(grand);
              bool indexed = parent && isa<ArraySubscriptExpr>(parent) &&
                             !(addr && addr->getOpcode() == UO_AddrOf);
              if (!indexed && !(parent && isa<CallExpr>(parent)))
                used.insert(i);
            }
        // implicit casts and parentheses are not parents of their own
        bool through = isa<ImplicitCastExpr>(s) || isa<ParenExpr>(s);
        for (const Stmt *ch : s->children())
          scan(ch, through ? parent : s, through ? grand : parent);
      };
  if (stored.empty())
    scan(f->getDefinition()->getBody(), nullptr, nullptr);
  if (used.size() == 1)
    return *used.begin();
  std::string names;
  for (int i : used.empty() ? typed : std::vector<int>(used.begin(), used.end()))
    names += std::string(names.empty() ? "'" : ", '") +
             f->getParamDecl((unsigned)i)->getNameAsString() + "'";
  fail(at, field + " may point into " + names + "; a returned pointer field must point "
               "into one array parameter");
}

void Flattener::checkStructPointerUses(const Stmt *s, const FlatSig &sig) {
  if (!s)
    return;
  auto pointerIn = [&](const Expr *e) -> const VarDecl * {
    const auto *d = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    const auto *v = d ? dyn_cast<VarDecl>(d->getDecl()) : nullptr;
    return v && sig.structPointers.count(v) ? v : nullptr;
  };
  const VarDecl *changed = nullptr;
  if (const auto *b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp())
    changed = pointerIn(b->getLHS());
  if (const auto *u = dyn_cast<UnaryOperator>(s); u && u->isIncrementDecrementOp())
    changed = pointerIn(u->getSubExpr());
  if (changed && intoArray(changed, sig))
    changed = nullptr; // an index that moves (walkArrayPointer)
  if (const auto *u = dyn_cast<UnaryOperator>(s); u && u->getOpcode() == UO_AddrOf)
    changed = changed ? changed : pointerIn(u->getSubExpr());
  if (changed)
    fail(s->getBeginLoc(),
         "local pointer to a struct '" + changed->getNameAsString() +
             "' is reassigned or its address taken; a pointer to a struct "
             "must keep the address it is initialised with");
  for (const Stmt *c : s->children())
    checkStructPointerUses(c, sig);
}

FlatSig &Flattener::signature(const FunctionDecl *f) {
  const FunctionDecl *key = f->getCanonicalDecl();
  auto it = flatSigs.find(key);
  if (it != flatSigs.end())
    return *it->second;
  auto owned = std::make_unique<FlatSig>();
  FlatSig &sig = *owned;
  flatSigs[key] = std::move(owned);
  sig.orig = f;
  std::string name = f->getNameAsString();
  try {
    for (const ParmVarDecl *p : f->parameters()) {
      FlatParam fp;
      fp.parm = p;
      QualType t = p->getType();
      const RecordType *byValue = recordOf(t);
      const RecordType *byPointer = byValue ? nullptr : pointeeRecord(t);
      if (byValue || byPointer) {
        const RecordType *rt = byValue ? byValue : byPointer;
        if (rt->getDecl()->getName().empty() &&
            !(byValue ? t : t->getPointeeType())->getAs<TypedefType>())
          fail(p->getLocation(), "parameter '" + p->getNameAsString() +
                                     "' has an anonymous struct type without "
                                     "a typedef; its shadow cannot be named");
        auto sv = std::make_unique<StructVar>();
        sv->var = p;
        sv->name = p->getNameAsString();
        sv->role = byValue ? StructRole::ByValue : StructRole::ByPointer;
        sv->type = byValue ? t.getUnqualifiedType() : t->getPointeeType().getUnqualifiedType();
        sv->constData = byPointer && t->getPointeeType().isConstQualified();
        std::vector<const FieldDecl *> path;
        collectLeaves(rt->getDecl(), path, sv->leaves, f->getASTContext(),
                      p->getLocation(),
                      "parameter '" + sv->name + "'");
        if (isMarkedInactive(p)) // data: no shadow, nothing computed for it
          for (Leaf &l : sv->leaves)
            l.inactive = true;
        if (byPointer && f->getDefinition() &&
            usedAsArray(f->getDefinition()->getBody(), p)) {
          sv->role = StructRole::ByArray;
          CharUnits whole = f->getASTContext().getTypeSizeInChars(sv->type);
          for (Leaf &l : sv->leaves) {
            CharUnits one = f->getASTContext().getTypeSizeInChars(l.elem);
            if (l.kind == LeafKind::Pointer)
              fail(p->getLocation(),
                   "parameter '" + sv->name + "' is an array of structs "
                   "with pointer field '" + l.path() + "'; not supported "
                   "(only floating, integer and fixed-size array fields)");
            if (whole % one != 0)
              fail(p->getLocation(), "parameter '" + sv->name +
                                         "': field '" + l.path() +
                                         "' is not at the same place in "
                                         "every struct of the array");
            l.stride = whole / one;
          }
        }
        fp.structIndex = (int)sig.structs.size();
        sig.structs.push_back(std::move(sv));
      }
      sig.params.push_back(fp);
    }
    QualType ret = f->getReturnType();
    if (const RecordType *rt = recordOf(ret)) {
      SourceLocation rl = f->getReturnTypeSourceRange().getBegin();
      if (rl.isInvalid())
        rl = f->getLocation();
      if (rt->getDecl()->getName().empty() && !ret->getAs<TypedefType>())
        fail(rl, "the result has an anonymous struct type without a "
                 "typedef; its shadow cannot be named");
      sig.result = std::make_unique<StructVar>();
      sig.result->name = "ret";
      sig.result->role = StructRole::Result;
      sig.result->type = ret.getUnqualifiedType();
      std::vector<const FieldDecl *> path;
      collectLeaves(rt->getDecl(), path, sig.result->leaves, f->getASTContext(),
                    rl, "the result");
      for (Leaf &l : sig.result->leaves) {
        if (l.kind == LeafKind::Pointer) {
          l.viewParam = viewParamOf(f, l, rl);
          l.viewBase = f->getParamDecl((unsigned)l.viewParam);
          l.viaDouble = l.written = true;
          continue;
        }
        if (!l.elem->isRealFloatingType()) {
          if (f->getASTContext().getTypeSize(l.elem) > 64)
            fail(rl, "the result's field '" + l.path() + "' is a " +
                         std::to_string(f->getASTContext().getTypeSize(l.elem)) +
                         "-bit integer; the integer fields of a returned "
                         "struct may have at most 64 bits");
          l.viaDouble = true;
          l.wide = f->getASTContext().getTypeSize(l.elem) > 32;
        }
        l.written = true;
      }
      if (sig.result->leaves.empty())
        fail(rl, "the returned struct has no fields");
    }
    if (const FunctionDecl *def = f->getDefinition()) {
      scanStructPointers(def->getBody(), sig);
      checkStructPointerUses(def->getBody(), sig);
      scanWrites(def->getBody(), sig);
    }
  } catch (...) {
    flatSigs.erase(key);
    throw;
  }

  // The leaves' declarations and the flat function. A leaf that cannot be
  // passed fails here too: the signature is forgotten as above, so that a
  // caller asking for it later meets the same error, not a signature
  // without a flat function.
  try {
  ASTContext &c = f->getASTContext();
  std::string flatName = sig.structSignature() ? "chad__flat_" + name : name;
  std::vector<ParmVarDecl *> flatParams;
  std::vector<QualType> types;
  auto leafParm = [&](StructVar &sv, Leaf &l) {
    QualType t;
    if (l.inactive && l.written)
      fail(sv.var->getLocation(), "field '" + l.path() + "' of '" + sv.name +
                                      "', a parameter marked inactive, is "
                                      "written; not supported");
    if (sv.role == StructRole::ByArray) {
      if (l.written && !l.elem->isRealFloatingType())
        fail(sv.var->getLocation(),
             "integer field '" + l.path() + "' of '" + sv.name + "', an array of "
             "structs, is written; only its floating fields may be written");
      if (l.written && sv.constData)
        fail(sv.var->getLocation(), "field '" + l.path() + "' of const '" + sv.name +
                                        "' is written");
      t = c.getPointerType(l.written ? l.elem : l.elem.withConst());
    } else if (l.viaDouble) {
      l.outScalar = l.kind == LeafKind::Int;
      t = c.getPointerType(c.DoubleTy);
    } else if (l.kind == LeafKind::Float || l.kind == LeafKind::Int) {
      l.outScalar = sv.role != StructRole::ByValue && l.written;
      if (l.outScalar && l.kind == LeafKind::Int)
        fail(sv.var ? sv.var->getLocation() : f->getLocation(),
             "integer field '" + l.path() + "' of '" + sv.name +
                 "' is written through a pointer; not supported");
      t = l.outScalar ? c.getPointerType(l.elem) : l.elem;
    } else {
      bool out = l.written && l.elem->isRealFloatingType();
      if (l.written && !l.elem->isRealFloatingType())
        fail(sv.var ? sv.var->getLocation() : f->getLocation(),
             "integer array field '" + l.path() + "' of '" + sv.name +
                 "' is written; not supported");
      if (out && l.kind == LeafKind::Array && sv.role == StructRole::ByValue)
        fail(sv.var->getLocation(),
             "array field '" + l.path() + "' of '" + sv.name +
                 "', a struct passed by value, is written (a write into "
                 "the copy); not supported");
      if (out && sv.constData && l.kind == LeafKind::Array)
        fail(sv.var->getLocation(), "array field '" + l.path() +
                                        "' of const '" + sv.name +
                                        "' is written");
      t = c.getPointerType(out ? l.elem : l.elem.withConst());
    }
    if (t->isPointerType() && l.elem->isBooleanType() && !l.viaDouble) {
      l.boolAsChar = true;
      t = c.getPointerType(t->getPointeeType().isConstQualified()
                               ? c.UnsignedCharTy.withConst()
                               : c.UnsignedCharTy);
    }
    std::string leafName = sv.name;
    for (const FieldDecl *fl : l.fields)
      leafName += "_" + fl->getNameAsString();
    SourceLocation loc = sv.var ? sv.var->getLocation() : f->getLocation();
    auto *pd = ParmVarDecl::Create(c, const_cast<FunctionDecl *>(f)->getDeclContext(),
                                   loc, loc, &c.Idents.get(leafName), t,
                                   c.getTrivialTypeSourceInfo(t, loc), SC_None,
                                   nullptr);
    if (l.inactive)
      pd->addAttr(AnnotateAttr::CreateImplicit(c, kInactiveAnnotation, nullptr, 0));
    if (sv.role == StructRole::ByArray && l.written)
      pd->addAttr(AnnotateAttr::CreateImplicit(c, kInOutAnnotation, nullptr, 0));
    l.decl = pd;
    leafFields[pd] = sv.name +
                     (sv.role == StructRole::ByPointer ? "->"
                      : sv.role == StructRole::ByArray ? "[k]."
                                                       : ".") +
                     l.path();
    flatParams.push_back(pd);
    types.push_back(t);
  };
  for (FlatParam &fp : sig.params) {
    if (fp.structIndex < 0) {
      flatParams.push_back(const_cast<ParmVarDecl *>(fp.parm));
      types.push_back(fp.parm->getType());
      continue;
    }
    StructVar &sv = *sig.structs[fp.structIndex];
    for (Leaf &l : sv.leaves)
      leafParm(sv, l);
  }
  if (sig.result)
    for (Leaf &l : sig.result->leaves)
      leafParm(*sig.result, l);
  QualType ret = sig.result ? c.VoidTy : f->getReturnType();
  FunctionProtoType::ExtProtoInfo epi;
  QualType fnType = c.getFunctionType(ret, types, epi);
  FunctionDecl *flat = FunctionDecl::Create(
      c, const_cast<FunctionDecl *>(f)->getDeclContext(), f->getBeginLoc(),
      f->getLocation(), DeclarationName(&c.Idents.get(flatName)), fnType,
      c.getTrivialTypeSourceInfo(fnType, f->getLocation()),
      sig.structSignature() ? SC_Static : f->getStorageClass());
  for (size_t i = 0; i < flatParams.size(); i++) {
    if (flatParams[i]->getDeclContext() != f) {
      flatParams[i]->setDeclContext(flat);
      flatParams[i]->setScopeInfo(0, (unsigned)i);
    }
  }
  flat->setParams(flatParams);
  flat->addAttr(AnnotateAttr::CreateImplicit(c, kDifferentiableAnnotation,
                                             nullptr, 0));
  sig.flat = flat;
  flatToOrig[flat] = f->getCanonicalDecl();
  sig.complete = true;
  return sig;
  } catch (...) {
    flatSigs.erase(key);
    throw;
  }
}

// ------------------------------------------------------------------ body

bool Flattener::resolveRef(const Expr *e, StructRef &r) {
  FlatSig &sig = *flatSigs.at(fd->getCanonicalDecl());
  bool viaPointer = false;
  return resolve(e, sig, r.sv, r.fields, viaPointer, 0, &r.index);
}

Leaf *Flattener::leafAt(const StructRef &r) {
  for (Leaf &l : r.sv->leaves)
    if (l.fields == r.fields)
      return &l;
  return nullptr;
}

std::vector<Leaf *> Flattener::leavesUnder(const StructRef &r) {
  std::vector<Leaf *> out;
  for (Leaf &l : r.sv->leaves)
    if (l.fields.size() >= r.fields.size() &&
        std::equal(r.fields.begin(), r.fields.end(), l.fields.begin()))
      out.push_back(&l);
  return out;
}

// The leaf as C would write it: `s_a`, or `p_a[0]` for an output scalar.
// A leaf of an array of structs: elements from the leaf's start to field
// (or array element k of the field) of struct `index`, as a `long`.
Expr *Flattener::longBinary(Expr *a, Expr *b, BinaryOperatorKind op,
                            SourceLocation loc) {
  return BinaryOperator::Create(ctx, a, b, op, ctx.LongTy, VK_PRValue,
                                OK_Ordinary, loc, FPOptionsOverride());
}

// `S *t = malloc(...)` or `calloc(...)`: the call, when v is so
// initialised (a local array of structs from the heap); null otherwise.
// realloc is refused: each field's array would move on its own.
const CallExpr *Flattener::allocatedStructs(const VarDecl *v) {
  const Expr *init = v->getInit();
  const auto *c = init ? dyn_cast<CallExpr>(init->IgnoreParenCasts()) : nullptr;
  const FunctionDecl *f = c ? c->getDirectCallee() : nullptr;
  if (!f || !pointeeRecord(v->getType()) || !v->hasLocalStorage())
    return nullptr;
  std::string name = f->getNameAsString();
  if (name == "realloc")
    fail(v->getLocation(), "array of structs '" + v->getNameAsString() +
                               "' from realloc; not supported (malloc and calloc are)");
  if ((name != "malloc" || c->getNumArgs() != 1) && (name != "calloc" || c->getNumArgs() != 2))
    return nullptr;
  return c;
}

// The allocation c of an array of structs of type `st`, made again for
// leaf l: the same counts (the factors of c's byte size that are not
// constants) times the bytes of l's part of one struct, `stride *
// sizeof(elem)`, so that the lowering counts the leaf's elements from it.
Expr *Flattener::reallocate(const CallExpr *c, QualType st, const Leaf &l) {
  SourceLocation loc = c->getExprLoc();
  std::vector<const Expr *> factors, counts;
  std::function<void(const Expr *)> split = [&](const Expr *e) {
    const Expr *p = e->IgnoreParenImpCasts();
    if (const auto *b = dyn_cast<BinaryOperator>(p); b && b->getOpcode() == BO_Mul) {
      split(b->getLHS());
      split(b->getRHS());
      return;
    }
    factors.push_back(e);
  };
  for (const Expr *a : c->arguments())
    split(a);
  llvm::APInt bytes(64, 1);
  for (const Expr *f : factors) {
    Expr::EvalResult r;
    if (f->isValueDependent() || !f->EvaluateAsInt(r, ctx) || r.HasSideEffects)
      counts.push_back(f);
    else
      bytes *= r.Val.getInt().zextOrTrunc(64);
  }
  long long structBytes = ctx.getTypeSizeInChars(st).getQuantity();
  if (structBytes <= 0 || bytes.getZExtValue() % (uint64_t)structBytes != 0)
    fail(loc, "'" + text(c) + "' allocates no whole number of '" + typeName(st, ctx) + "'");
  uint64_t perStruct = (uint64_t)(l.stride ? l.stride : 1) *
                       (uint64_t)ctx.getTypeSizeInChars(l.elem).getQuantity();
  QualType size = ctx.getSizeType();
  Expr *total = IntegerLiteral::Create(
      ctx, llvm::APInt(ctx.getIntWidth(size), bytes.getZExtValue() / (uint64_t)structBytes * perStruct),
      size, loc);
  Expr *n = nullptr;
  for (const Expr *k : counts) {
    Expr *x = const_cast<Expr *>(k);
    if (x->isGLValue())
      x = rvalue(x);
    if (!ctx.hasSameUnqualifiedType(x->getType(), size))
      x = ImplicitCastExpr::Create(ctx, size, CK_IntegralCast, x, nullptr, VK_PRValue,
                                   FPOptionsOverride());
    n = n ? BinaryOperator::Create(ctx, n, x, BO_Mul, size, VK_PRValue, OK_Ordinary, loc,
                                   FPOptionsOverride())
          : x;
  }
  std::vector<Expr *> args;
  if (c->getNumArgs() == 2) // calloc(count, bytes of one)
    args = {n ? n : IntegerLiteral::Create(ctx, llvm::APInt(ctx.getIntWidth(size), 1), size, loc),
            total};
  else
    args = {n ? BinaryOperator::Create(ctx, n, total, BO_Mul, size, VK_PRValue, OK_Ordinary, loc,
                                       FPOptionsOverride())
              : total};
  return CallExpr::Create(ctx, const_cast<Expr *>(c->getCallee()), args, c->getType(), VK_PRValue,
                          c->getRParenLoc(), FPOptionsOverride());
}

// `free(t)` of an array of structs from malloc or calloc?
bool Flattener::freesStructs(const CallExpr *c) {
  const FunctionDecl *f = c->getDirectCallee();
  if (!f || f->getNameAsString() != "free" || c->getNumArgs() != 1)
    return false;
  const auto *d = dyn_cast<DeclRefExpr>(c->getArg(0)->IgnoreParenCasts());
  auto it = d ? vars.find(dyn_cast<VarDecl>(d->getDecl())) : vars.end();
  return it != vars.end() && it->second->allocation;
}

// `free(t)`: each of t's leaves freed.
Stmt *Flattener::freeLeaves(CallExpr *c) {
  SourceLocation loc = c->getBeginLoc();
  const auto *d = cast<DeclRefExpr>(c->getArg(0)->IgnoreParenCasts());
  StructVar *sv = vars.at(cast<VarDecl>(d->getDecl()));
  QualType voidPtr = ctx.getPointerType(ctx.VoidTy);
  std::vector<Stmt *> frees;
  for (Leaf &l : sv->leaves) {
    Expr *arg = ImplicitCastExpr::Create(ctx, voidPtr, CK_BitCast, rvalue(ref(l.decl, loc)), nullptr,
                                         VK_PRValue, FPOptionsOverride());
    frees.push_back(CallExpr::Create(ctx, c->getCallee(), {arg}, c->getType(), VK_PRValue,
                                     c->getRParenLoc(), FPOptionsOverride()));
  }
  return block(frees, loc);
}

// The index of a struct in an array of structs, as a `long` (null: 0).
Expr *Flattener::indexSum(const std::vector<const Expr *> &index,
                          SourceLocation loc) {
  Expr *sum = nullptr;
  for (const Expr *t : index) {
    Expr *term = const_cast<Expr *>(t);
    if (term->isGLValue())
      term = rvalue(term);
    if (!ctx.hasSameUnqualifiedType(term->getType(), ctx.LongTy))
      term = ImplicitCastExpr::Create(ctx, ctx.LongTy, CK_IntegralCast, term,
                                      nullptr, VK_PRValue, FPOptionsOverride());
    sum = sum ? longBinary(sum, term, BO_Add, loc) : term;
  }
  return sum;
}

Expr *Flattener::offset(const Leaf *l, const std::vector<const Expr *> &index,
                        long long k, SourceLocation loc) {
  auto literal = [&](long long v) -> Expr * {
    return IntegerLiteral::Create(ctx, llvm::APInt(64, (uint64_t)v, true),
                                  ctx.LongTy, loc);
  };
  auto binary = [&](Expr *a, Expr *b, BinaryOperatorKind op) {
    return longBinary(a, b, op, loc);
  };
  Expr *sum = indexSum(index, loc);
  Expr *off = sum ? binary(new (ctx) ParenExpr(loc, loc, sum), literal(l->stride), BO_Mul)
                  : nullptr;
  if (k != 0 || !off)
    off = off ? binary(off, literal(k), BO_Add) : literal(k);
  return off;
}

Expr *Flattener::leafLvalue(Leaf *l, SourceLocation loc,
                            const std::vector<const Expr *> &index) {
  Expr *r = ref(l->decl, loc);
  if (l->stride)
    return new (ctx) ArraySubscriptExpr(rvalue(r), offset(l, index, 0, loc),
                                        l->storage(ctx), VK_LValue, OK_Ordinary, loc);
  if (!l->outScalar)
    return r;
  return new (ctx) ArraySubscriptExpr(rvalue(r), lit(0, loc), l->storage(ctx),
                                      VK_LValue, OK_Ordinary, loc);
}

// The array leaf as a pointer value (a parameter's, or a local array's
// decay).
Expr *Flattener::arrayArg(Leaf *l, SourceLocation loc,
                          const std::vector<const Expr *> &index) {
  Expr *r = ref(l->decl, loc);
  Expr *base = l->decl->getType()->isArrayType() // a local array decays
                   ? ImplicitCastExpr::Create(ctx, ctx.getPointerType(l->elem),
                                              CK_ArrayToPointerDecay, r, nullptr,
                                              VK_PRValue, FPOptionsOverride())
                   : rvalue(r);
  if (l->stride && !index.empty())
    return BinaryOperator::Create(ctx, base, offset(l, index, 0, loc), BO_Add,
                                  base->getType().getUnqualifiedType(), VK_PRValue,
                                  OK_Ordinary, loc, FPOptionsOverride());
  return base;
}

Expr *Flattener::elementLvalue(Leaf *l, long long k, SourceLocation loc,
                                const std::vector<const Expr *> &index) {
  if (l->stride)
    return new (ctx) ArraySubscriptExpr(rvalue(ref(l->decl, loc)),
                                        offset(l, index, k, loc), l->storage(ctx),
                                        VK_LValue, OK_Ordinary, loc);
  return new (ctx) ArraySubscriptExpr(arrayArg(l, loc), lit(k, loc), l->storage(ctx),
                                      VK_LValue, OK_Ordinary, loc);
}

// One assignment per leaf of `dst` from the matching part of `src`: a
// struct lvalue of the same type, or an initializer list (semantic form:
// one initializer per field, missing ones implicit zeros).
void Flattener::assignLeaves(const StructRef &dst, const Expr *src,
                             std::vector<Stmt *> &out, SourceLocation loc) {
  std::vector<Leaf *> dl = leavesUnder(dst);
  src = src ? src->IgnoreParens() : nullptr;
  if (src)
    if (const auto *c = dyn_cast<ImplicitCastExpr>(src);
        c && c->getCastKind() == CK_LValueToRValue)
      src = c->getSubExpr()->IgnoreParens();
  if (!src || isa<InitListExpr>(src) || isa<ImplicitValueInitExpr>(src)) {
    // initializer: walk fields and inits together
    for (Leaf *l : dl) {
      const Expr *init = src;
      for (size_t k = dst.fields.size(); k < l->fields.size() && init; k++) {
        const auto *il = dyn_cast<InitListExpr>(init->IgnoreParens());
        if (!il) {
          if (!isa<ImplicitValueInitExpr>(init))
            fail(init->getBeginLoc(), "initializer '" + text(init) +
                                          "' of a struct field is not "
                                          "supported");
          init = nullptr;
          break;
        }
        unsigned idx = l->fields[k]->getFieldIndex();
        init = idx < il->getNumInits() ? il->getInit(idx) : nullptr;
      }
      if (init && isa<ImplicitValueInitExpr>(init))
        init = nullptr;
      if (l->viewParam >= 0) { // a view the result returns: its offset
        if (!init || init->isNullPointerConstant(ctx, Expr::NPC_ValueDependentIsNotNull))
          fail(init ? init->getBeginLoc() : loc,
               "the result's pointer field '" + l->path() + "' is returned null; a returned "
               "pointer field must point into '" + l->viewBase->getNameAsString() + "'");
        out.push_back(assign(slotLvalue(l, 0, loc), viewOffset(l, const_cast<Expr *>(init), loc), loc));
        continue;
      }
      if (l->kind == LeafKind::Pointer) {
        // a local pointer from then on (DESIGN 8.28); left unset without
        // an initializer or from a null one, as a view is assigned
        // before it is used
        if (init && !init->isNullPointerConstant(
                        ctx, Expr::NPC_ValueDependentIsNotNull))
          out.push_back(assign(leafLvalue(l, loc), const_cast<Expr *>(init), loc));
        continue;
      }
      if (l->kind == LeafKind::Array) {
        const auto *il = init ? dyn_cast<InitListExpr>(init->IgnoreParens())
                              : nullptr;
        if (init && !il)
          fail(init->getBeginLoc(), "initializer '" + text(init) +
                                        "' of array field '" + l->path() +
                                        "' is not supported");
        for (long long k = 0; k < l->size; k++) {
          Expr *v = il && k < (long long)il->getNumInits() &&
                            !isa<ImplicitValueInitExpr>(il->getInit(k))
                        ? const_cast<Expr *>(il->getInit(k))
                        : zero(l->elem, loc);
          if (l->wide)
            assignWide(l, k, v, out, loc);
          else
            out.push_back(assign(elementLvalue(l, k, loc, dst.index), v, loc));
        }
        continue;
      }
      Expr *v = init ? const_cast<Expr *>(init) : zero(l->elem, loc);
      if (l->wide)
        assignWide(l, 0, v, out, loc);
      else
        out.push_back(assign(leafLvalue(l, loc, dst.index), v, loc));
    }
    return;
  }
  StructRef from;
  if (!resolveRef(src, from))
    fail(src->getBeginLoc(), "struct value '" + text(src) +
                                 "' is not supported here (only struct "
                                 "variables, their fields and initializer "
                                 "lists)");
  std::vector<Leaf *> sl = leavesUnder(from);
  if (sl.size() != dl.size())
    fail(loc, "struct assignment between different layouts");
  indexReadOnce(from, sl.size(), src);
  for (size_t i = 0; i < dl.size(); i++) {
    Leaf *d = dl[i], *s = sl[i];
    if (d->viewParam >= 0) { // a view the result returns: its offset
      out.push_back(assign(slotLvalue(d, 0, loc), viewOffset(d, rvalue(leafLvalue(s, loc)), loc), loc));
      continue;
    }
    if (d->kind == LeafKind::Pointer || s->kind == LeafKind::Pointer) {
      if (dst.sv->role != StructRole::Local)
        fail(loc, "assigning pointer field '" + d->path() + "' of '" +
                      dst.sv->name + "' is not supported; a pointer field "
                      "of a parameter may only be read through");
      // a local's pointer field is a local pointer: it takes the view
      out.push_back(assign(leafLvalue(d, loc), rvalue(leafLvalue(s, loc)), loc));
      continue;
    }
    if (d->kind == LeafKind::Array) {
      for (long long k = 0; k < d->size; k++)
        if (d->wide)
          assignWide(d, k, rvalue(elementLvalue(s, k, loc, from.index)), out, loc);
        else
          out.push_back(assign(elementLvalue(d, k, loc, dst.index),
                               rvalue(elementLvalue(s, k, loc, from.index)), loc));
      continue;
    }
    if (d->wide)
      assignWide(d, 0, rvalue(leafLvalue(s, loc, from.index)), out, loc);
    else
      out.push_back(assign(leafLvalue(d, loc, dst.index), rvalue(leafLvalue(s, loc, from.index)), loc));
  }
}

// A struct of an array of structs copied or passed whole reads its index
// once per leaf: an index with side effects (`p[i++]`) would repeat them.
void Flattener::indexReadOnce(const StructRef &r, size_t uses, const Expr *at) {
  if (uses > 1)
    for (const Expr *t : r.index)
      if (t->HasSideEffects(ctx))
        fail(at->getBeginLoc(), "struct '" + text(at) + "' of an array of "
                                "structs is copied or passed whole at an "
                                "index with side effects; not supported");
}

// `struct S t = init;`: the leaves of t declared, then assigned.
Stmt *Flattener::declareLocals(DeclStmt *d) {
  std::vector<Stmt *> out;
  std::vector<Decl *> leafDecls;
  SourceLocation loc = d->getBeginLoc();
  for (Decl *decl : d->decls()) {
    if (isa<TypeDecl>(decl)) // `struct S { ... } s;`: the type, then s
      continue;
    auto *v = dyn_cast<VarDecl>(decl);
    if (!v)
      fail(decl->getLocation(), "declaration is not supported");
    const RecordType *rt = recordOf(v->getType());
    long long count = 0; // of a local array of structs
    Expr *length = nullptr; // of a variable-length one (count is then 1)
    if (const auto *at = ctx.getAsArrayType(v->getType()); at && recordOf(at->getElementType())) {
      const auto *fixed = dyn_cast<ConstantArrayType>(at);
      const auto *vla = dyn_cast<VariableArrayType>(at);
      if ((!fixed && !vla) || !v->hasLocalStorage())
        fail(v->getLocation(), "array of structs '" + v->getNameAsString() +
                                   "' is not supported (only a one-dimensional "
                                   "local array)");
      if (vla && vla->getSizeExpr()->HasSideEffects(ctx))
        fail(v->getLocation(), "variable-length array of structs '" + v->getNameAsString() +
                                   "' whose length has side effects; not supported");
      rt = recordOf(at->getElementType());
      count = fixed ? (long long)fixed->getSize().getZExtValue() : 1;
      length = vla ? vla->getSizeExpr() : nullptr;
    }
    const CallExpr *allocation = rt ? nullptr : allocatedStructs(v);
    if (allocation) {
      rt = pointeeRecord(v->getType());
      count = 1;
    }
    if (!rt) {
      if (pointeeRecord(v->getType())) {
        // another name for a struct (scanStructPointers): nothing declared
        StructRef to;
        const Expr *init = v->getInit() ? v->getInit()->IgnoreParenImpCasts() : nullptr;
        if (const auto *u = dyn_cast_or_null<UnaryOperator>(init);
            u && u->getOpcode() == UO_AddrOf)
          init = u->getSubExpr();
        if (!init || !resolveRef(init, to))
          fail(v->getLocation(),
               "local pointer to a struct '" + v->getNameAsString() +
                   "' is initialised with '" +
                   (v->getInit() ? text(v->getInit()) : std::string()) +
                   "'; only the address of a struct variable or of a "
                   "struct field, or another such pointer, is supported");
        if (indexed(to.sv->role) && to.fields.empty()) {
          // into an array of structs: the index, kept as it was then
          Expr *init = indexSum(to.index, loc);
          if (!init)
            init = IntegerLiteral::Create(ctx, llvm::APInt(64, 0), ctx.LongTy, loc);
          auto *k = VarDecl::Create(ctx, const_cast<FunctionDecl *>(fd),
                                    v->getLocation(), v->getLocation(),
                                    &ctx.Idents.get("chad__k_" + v->getNameAsString()),
                                    ctx.LongTy,
                                    ctx.getTrivialTypeSourceInfo(ctx.LongTy),
                                    SC_None);
          Stmt *slot = init;
          walk(slot, false);
          k->setInit(cast<Expr>(slot));
          pointerIndex[v] = k;
          leafDecls.push_back(k);
        }
        continue;
      }
      // an ordinary local among struct ones: keep it, flatten its init
      if (Expr *init = v->getInit()) {
        Stmt *slot = init;
        walk(slot, false);
        if (slot != init) {
          undo.push_back([v, init] { v->setInit(init); });
          v->setInit(cast<Expr>(slot));
        }
      }
      leafDecls.push_back(v);
      continue;
    }
    if (!v->hasLocalStorage())
      fail(v->getLocation(), "static struct '" + v->getNameAsString() +
                                 "' is not supported");
    if (rt->getDecl()->isImplicit()) // va_list's __va_list_tag
      fail(v->getLocation(), "local '" + v->getNameAsString() + "' of type '" +
                                 typeName(v->getType(), ctx) + "' is not supported");
    auto sv = std::make_unique<StructVar>();
    sv->var = v;
    sv->name = v->getNameAsString();
    sv->role = count ? StructRole::LocalArray : StructRole::Local;
    sv->type = allocation ? v->getType()->getPointeeType()
               : count    ? ctx.getAsArrayType(v->getType())->getElementType()
                          : v->getType();
    sv->allocation = allocation;
    std::vector<const FieldDecl *> path;
    collectLeaves(rt->getDecl(), path, sv->leaves, ctx, v->getLocation(),
                  "local '" + sv->name + "'");
    for (Leaf &l : sv->leaves) {
      std::string leafName = sv->name;
      for (const FieldDecl *fl : l.fields)
        leafName += "_" + fl->getNameAsString();
      if (count && l.kind == LeafKind::Pointer)
        fail(v->getLocation(), "local array of structs '" + sv->name +
                                   "' has pointer field '" + l.path() +
                                   "'; not supported");
      // One array per field: field f of struct i is `t_f[i * stride + k]`,
      // as in an array of structs (8.30), with the field's own size as
      // the stride.
      l.stride = count ? (l.kind == LeafKind::Array ? l.size : 1) : 0;
      // a variable-length array of structs: variable-length leaves, of
      // the length times the stride
      Expr *leafLength = !length || l.stride == 1
                             ? length
                             : BinaryOperator::Create(ctx, length,
                                                      IntegerLiteral::Create(
                                                          ctx, llvm::APInt(ctx.getIntWidth(length->getType()),
                                                                           (uint64_t)l.stride),
                                                          length->getType(), loc),
                                                      BO_Mul, length->getType(), VK_PRValue,
                                                      OK_Ordinary, loc, FPOptionsOverride());
      QualType t = allocation ? ctx.getPointerType(l.elem)
                   : leafLength ? ctx.getVariableArrayType(l.elem, leafLength, ArrayType::Normal, 0,
                                                           SourceRange())
                   : count    ? ctx.getConstantArrayType(l.elem, llvm::APInt(64, count * l.stride),
                                                         nullptr, ArrayType::Normal, 0)
                   : l.kind == LeafKind::Array
                       ? ctx.getConstantArrayType(l.elem,
                                                  llvm::APInt(64, l.size),
                                                  nullptr, ArrayType::Normal, 0)
                   : l.kind == LeafKind::Pointer
                       ? l.fields.back()->getType().getUnqualifiedType()
                       : l.elem;
      l.decl = VarDecl::Create(ctx, const_cast<FunctionDecl *>(fd),
                               v->getLocation(), v->getLocation(),
                               &ctx.Idents.get(leafName), t,
                               ctx.getTrivialTypeSourceInfo(t), SC_None);
      leafFields[l.decl] = v->getNameAsString() + (count ? "[k]." : ".") + l.path();
      if (allocation) // the field's share of the struct's allocation
        l.decl->setInit(ImplicitCastExpr::Create(ctx, t, CK_BitCast,
                                                 reallocate(allocation, sv->type, l), nullptr,
                                                 VK_PRValue, FPOptionsOverride()));
      leafDecls.push_back(l.decl);
    }
    StructVar *raw = sv.get();
    vars[v] = raw;
    locals.push_back(std::move(sv));
    if (const auto *il = dyn_cast_or_null<InitListExpr>(v->getInit()); il && count) {
      // `S t[N] = {...}`: struct k from its initializer, zero past the list
      for (long long k = 0; k < count; k++) {
        const Expr *init = k < (long long)il->getNumInits() ? il->getInit((unsigned)k) : nullptr;
        StructRef at{raw, {}, {IntegerLiteral::Create(ctx, llvm::APInt(64, (uint64_t)k, true),
                                                      ctx.LongTy, loc)}};
        size_t from = out.size();
        assignLeaves(at, init, out, v->getLocation());
        for (size_t j = from; j < out.size(); j++) {
          Stmt *slot = out[j];
          walkChildren(slot, false); // the initializers may read struct fields
          out[j] = slot;
        }
      }
      continue;
    }
    if (const Expr *init = allocation ? nullptr : v->getInit()) {
      if (isa<CallExpr>(init->IgnoreParenImpCasts())) {
        std::vector<Stmt *> call;
        callIntoLeaves(StructRef{raw, {}, {}}, init, call, v->getLocation());
        for (Stmt *s : call)
          out.push_back(s);
        continue;
      }
      size_t from = out.size();
      assignLeaves(StructRef{raw, {}, {}}, init, out, v->getLocation());
      for (size_t k = from; k < out.size(); k++) {
        Stmt *slot = out[k];
        walkChildren(slot, false); // the initializers may read struct fields
        out[k] = slot;
      }
    }
  }
  if (leafDecls.empty() && out.empty())
    return new (ctx) NullStmt(loc);
  std::vector<Stmt *> all;
  if (!leafDecls.empty())
    all.push_back(new (ctx) DeclStmt(
        DeclGroupRef::Create(ctx, leafDecls.data(), leafDecls.size()), loc,
        d->getEndLoc()));
  for (Stmt *s : out)
    all.push_back(s);
  return all.size() == 1 && isa<DeclStmt>(all[0]) ? all[0] : block(all, loc);
}

Stmt *Flattener::assignWhole(const Expr *dst, const Expr *src,
                             SourceLocation loc) {
  StructRef to;
  if (!resolveRef(dst, to))
    fail(loc, "assignment to struct '" + text(dst) + "' is not supported");
  if (to.sv->constData)
    fail(loc, "assignment to const struct data");
  std::vector<Stmt *> out;
  if (isa<CallExpr>(src->IgnoreParenImpCasts())) {
    callIntoLeaves(to, src, out, loc);
    return block(out, loc);
  }
  assignLeaves(to, src, out, loc);
  for (Stmt *&s : out)
    walkChildren(s, false);
  return block(out, loc);
}

// `return e;` of a struct: the result's output leaves written, then return.
Stmt *Flattener::returnStruct(ReturnStmt *r) {
  SourceLocation loc = r->getBeginLoc();
  const Expr *v = r->getRetValue();
  std::vector<Stmt *> out;
  if (isa<CallExpr>(v->IgnoreParenImpCasts())) {
    callIntoLeaves(StructRef{result, {}, {}}, v, out, loc);
  } else {
    assignLeaves(StructRef{result, {}, {}}, v, out, loc);
    for (Stmt *&s : out)
      walkChildren(s, false);
  }
  out.push_back(ReturnStmt::Create(ctx, loc, nullptr, nullptr));
  return block(out, loc);
}

// `t = g(...)`, `struct S t = g(...)`, `return g(...)`: the call of g's
// flat function writes the leaves of its result into temporaries (arrays,
// of one element for a scalar), which are then assigned to t's leaves. The
// arguments may read t: they are all read before it is written, as in C.
// The statements made are final (not walked again).
void Flattener::callIntoLeaves(const StructRef &dst, const Expr *src,
                               std::vector<Stmt *> &out, SourceLocation loc) {
  auto *c = const_cast<CallExpr *>(cast<CallExpr>(src->IgnoreParenImpCasts()));
  const FunctionDecl *callee = c->getDirectCallee();
  if (!callee || !isDifferentiable(callee))
    fail(c->getBeginLoc(), "a struct returned by a call of '" +
                               (callee ? callee->getNameAsString() : text(c)) +
                               "', which is not differentiable, is not supported");
  const FunctionDecl *def = callee->getDefinition();
  if (!def)
    fail(c->getBeginLoc(), "call to '" + callee->getNameAsString() +
                               "', which returns a struct and is defined after "
                               "this function; define it first");
  FlatSig &cs = signature(def);
  std::vector<Leaf *> dl;
  if (dst.sv)
    dl = leavesUnder(dst);
  else if (cs.result)
    for (Leaf &l : cs.result->leaves)
      dl.push_back(&l); /* a call whose result is dropped: only its layout */
  if (!cs.result || dl.size() != cs.result->leaves.size())
    fail(loc, "struct assignment between different layouts");
  std::vector<VarDecl *> tmps;
  std::vector<Expr *> results;
  for (size_t i = 0; i < dl.size(); i++) {
    const Leaf &rl = cs.result->leaves[i];
    Leaf *d = dl[i];
    if (d->kind != rl.kind || (rl.kind == LeafKind::Array && d->size != rl.size))
      fail(loc, "struct assignment between different layouts");
    QualType t = ctx.getConstantArrayType(rl.storage(ctx), llvm::APInt(64, rl.slots()), nullptr,
                                          ArrayType::Normal, 0);
    std::string name = "chad__" + callee->getNameAsString() + "_" +
                       std::to_string(temps++);
    auto *tmp = VarDecl::Create(ctx, const_cast<FunctionDecl *>(fd), loc, loc,
                                &ctx.Idents.get(name), t,
                                ctx.getTrivialTypeSourceInfo(t), SC_None);
    tmps.push_back(tmp);
    results.push_back(ImplicitCastExpr::Create(ctx, ctx.getPointerType(rl.storage(ctx)),
                                               CK_ArrayToPointerDecay, ref(tmp, loc),
                                               nullptr, VK_PRValue, FPOptionsOverride()));
  }
  // A view the callee returns is an offset into one of its array
  // arguments (Leaf::viewParam): that argument is bound to a local pointer
  // first, passed on from there, and the view rebuilt from it.
  std::map<int, VarDecl *> viewArgs;
  for (const Leaf &rl : cs.result->leaves) {
    if (rl.viewParam < 0 || viewArgs.count(rl.viewParam) ||
        rl.viewParam >= (int)c->getNumArgs())
      continue;
    auto slot = c->child_begin();
    std::advance(slot, 1 + rl.viewParam);
    Stmt *arg = *slot;
    walk(arg, false); // struct fields in it
    QualType t = def->getParamDecl((unsigned)rl.viewParam)->getType().getUnqualifiedType();
    std::string name = "chad__" + callee->getNameAsString() + "_" +
                       rl.viewBase->getNameAsString() + "_" + std::to_string(temps++);
    auto *v = VarDecl::Create(ctx, const_cast<FunctionDecl *>(fd), loc, loc,
                              &ctx.Idents.get(name), t, ctx.getTrivialTypeSourceInfo(t),
                              SC_None);
    v->setInit(cast<Expr>(arg));
    out.push_back(new (ctx) DeclStmt(DeclGroupRef(v), loc, loc));
    replace(*slot, rvalue(ref(v, loc)));
    viewArgs[rl.viewParam] = v;
  }
  std::vector<Decl *> decls(tmps.begin(), tmps.end());
  out.push_back(new (ctx) DeclStmt(DeclGroupRef::Create(ctx, decls.data(), decls.size()),
                                   loc, loc));
  out.push_back(flatCall(c, results));
  for (size_t i = 0; i < dl.size() && dst.sv; i++) {
    Leaf *d = dl[i];
    const Leaf &rl = cs.result->leaves[i];
    auto tmpAt = [&](long long k) {
      return rvalue(new (ctx) ArraySubscriptExpr(
          ImplicitCastExpr::Create(ctx, ctx.getPointerType(rl.storage(ctx)),
                                   CK_ArrayToPointerDecay, ref(tmps[i], loc), nullptr,
                                   VK_PRValue, FPOptionsOverride()),
          lit(k, loc), rl.storage(ctx), VK_LValue, OK_Ordinary, loc));
    };
    if (rl.viewParam >= 0) { // the view, from the argument it points into
      VarDecl *base = viewArgs.at(rl.viewParam);
      Expr *off = ImplicitCastExpr::Create(ctx, ctx.getPointerDiffType(), CK_FloatingToIntegral,
                                           tmpAt(0), nullptr, VK_PRValue, FPOptionsOverride());
      Expr *p = BinaryOperator::Create(ctx, rvalue(ref(base, loc)), off, BO_Add, base->getType(),
                                       VK_PRValue, OK_Ordinary, loc, FPOptionsOverride());
      if (d->viewParam >= 0)
        out.push_back(assign(slotLvalue(d, 0, loc), viewOffset(d, p, loc), loc));
      else if (dst.sv->role != StructRole::Local)
        fail(loc, "assigning pointer field '" + d->path() + "' of '" + dst.sv->name +
                      "' is not supported; a pointer field of a parameter may only be read "
                      "through");
      else
        out.push_back(assign(leafLvalue(d, loc), p, loc));
      continue;
    }
    if (d->wide) { // a result of ours too: the halves as they are
      for (long long k = 0; k < d->slots(); k++)
        out.push_back(assign(slotLvalue(d, k, loc), tmpAt(k), loc));
      continue;
    }
    long long n = d->kind == LeafKind::Array ? d->size : 1;
    for (long long k = 0; k < n; k++) {
      Expr *v = rl.wide ? wideWhole(tmpAt(2 * k), tmpAt(2 * k + 1), d->elem, loc) : tmpAt(k);
      Expr *to = d->kind == LeafKind::Array ? elementLvalue(d, k, loc) : leafLvalue(d, loc);
      out.push_back(assign(to, v, loc));
    }
  }
}

// A call of a differentiable function that takes or returns structs: the
// same call of its flat function, with the leaves of the struct arguments,
// then `results`: where a struct result's leaves go (callIntoLeaves).
Expr *Flattener::flatCall(CallExpr *c, std::vector<Expr *> results) {
  const FunctionDecl *callee = c->getDirectCallee();
  SourceLocation loc = c->getBeginLoc();
  std::string name = callee->getNameAsString();
  const FunctionDecl *def = callee->getDefinition();
  if (!def)
    fail(loc, "call to '" + name + "', which takes or returns a struct and "
                                   "is defined after this function; define "
                                   "it first");
  FlatSig &cs = signature(def);
  if (cs.result && results.empty())
    fail(loc, "the struct that '" + name + "' returns is used other than "
                                           "assigned whole, initialising a "
                                           "struct or returned; not supported");
  std::vector<Expr *> args;
  for (size_t i = 0; i < cs.params.size() && i < c->getNumArgs(); i++) {
    Expr *a = c->getArg((unsigned)i);
    const FlatParam &fp = cs.params[i];
    if (fp.structIndex < 0) {
      Stmt *slot = a;
      walk(slot, false);
      args.push_back(cast<Expr>(slot));
      continue;
    }
    const StructVar &p = *cs.structs[fp.structIndex];
    if (const auto *call = dyn_cast<CallExpr>(a->IgnoreParenImpCasts());
        call && recordOf(call->getType())) {
      // `norm(g(a))`: of a temporary made before the statement
      auto slot = c->child_begin();
      std::advance(slot, 1 + (long)i);
      hoistCall(*slot);
      a = c->getArg((unsigned)i);
    }
    const Expr *e = a->IgnoreParenImpCasts();
    if (const auto *u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_AddrOf)
      e = u->getSubExpr();
    StructRef from;
    if (!resolveRef(e, from))
      fail(a->getBeginLoc(), "struct argument '" + text(a) + "' of '" + name +
                                 "' is not supported (pass a struct "
                                 "variable, a field of one, or its address)");
    std::vector<Leaf *> sl = leavesUnder(from);
    if (sl.size() != p.leaves.size())
      fail(a->getBeginLoc(), "struct argument of another layout");
    if (from.sv->role == StructRole::LocalArray && from.index.empty() && p.role != StructRole::ByArray)
      fail(a->getBeginLoc(), "local array of structs '" + text(a) + "' passed to '" + name +
                                 "'; pass one struct of it, '&" + from.sv->name + "[i]'");
    if (p.role == StructRole::ByArray && from.sv->role == StructRole::LocalArray)
      fail(a->getBeginLoc(), "'" + name + "' indexes its parameter '" + p.name +
                                 "' as an array of structs, and '" + text(a) +
                                 "' is a local array of structs, which chad keeps as one "
                                 "array per field; not supported");
    if (p.role == StructRole::ByArray && from.sv->role != StructRole::ByArray)
      fail(a->getBeginLoc(), "'" + name + "' indexes its parameter '" + p.name +
                                 "' as an array of structs, and '" + text(a) +
                                 "' is not one; not supported");
    indexReadOnce(from, sl.size(), a);
    for (size_t k = 0; k < sl.size(); k++) {
      const Leaf &pl = p.leaves[k];
      Leaf *l = sl[k];
      size_t before = args.size();
      if (p.role == StructRole::ByArray) { // the same layout: the same strides
        args.push_back(arrayArg(l, loc, from.index));
      } else if (pl.kind == LeafKind::Float || pl.kind == LeafKind::Int) {
        if (pl.outScalar) {
          if (indexed(from.sv->role)) {
            // the field's element of the array of structs, as a view of it
            args.push_back(arrayArg(l, loc, from.index));
          } else {
            if (!l->outScalar)
              fail(a->getBeginLoc(), "'" + name + "' writes field '" +
                                         pl.path() + "' of '" + text(a) +
                                         "', which this function holds as a "
                                         "value; not supported");
            args.push_back(rvalue(ref(l->decl, loc)));
          }
        } else {
          args.push_back(rvalue(leafLvalue(l, loc, from.index)));
        }
      } else {
        if (l->kind == LeafKind::Float || l->kind == LeafKind::Int)
          fail(a->getBeginLoc(), "struct argument of another layout");
        args.push_back(arrayArg(l, loc, from.index));
      }
      if (!from.index.empty() && args.size() > before) {
        Stmt *arg = args.back(); // the index may read struct fields
        walkChildren(arg, false);
      }
    }
  }
  for (Expr *r : results)
    args.push_back(r);
  Expr *fn = ImplicitCastExpr::Create(
      ctx, ctx.getPointerType(cs.flat->getType()), CK_FunctionToPointerDecay,
      DeclRefExpr::Create(ctx, NestedNameSpecifierLoc(), SourceLocation(),
                          cs.flat, false, loc, cs.flat->getType(), VK_PRValue),
      nullptr, VK_PRValue, FPOptionsOverride());
  return CallExpr::Create(ctx, fn, args, cs.result ? ctx.VoidTy : c->getType(),
                          VK_PRValue, c->getRParenLoc(), FPOptionsOverride());
}

// Is `child` a statement of `parent` (a body, a branch), rather than a
// part of it that is an expression (a condition, an initialisation)?
static bool isBodyOf(const Stmt *parent, const Stmt *child) {
  if (isa<CompoundStmt>(parent))
    return true;
  if (const auto *i = dyn_cast<IfStmt>(parent))
    return child == i->getThen() || child == i->getElse();
  if (const auto *f = dyn_cast<ForStmt>(parent))
    return child == f->getBody();
  if (const auto *w = dyn_cast<WhileStmt>(parent))
    return child == w->getBody();
  if (const auto *d = dyn_cast<DoStmt>(parent))
    return child == d->getBody();
  if (const auto *w = dyn_cast<SwitchStmt>(parent))
    return child == w->getBody();
  if (const auto *c = dyn_cast<SwitchCase>(parent))
    return child == c->getSubStmt();
  if (const auto *l = dyn_cast<LabelStmt>(parent))
    return child == l->getSubStmt();
  return false;
}

// Is `child` a loop's test or step, evaluated at every step?
static bool isLoopTest(const Stmt *parent, const Stmt *child) {
  if (const auto *f = dyn_cast<ForStmt>(parent))
    return child == f->getCond() || child == f->getInc();
  if (const auto *w = dyn_cast<WhileStmt>(parent))
    return child == w->getCond();
  if (const auto *d = dyn_cast<DoStmt>(parent))
    return child == d->getCond();
  return false;
}

// The children of a statement that is not an expression. What calls
// inside a body hoisted (hoistCall) is placed right before it, in a block
// with it (the lowering does not scope declarations by blocks); what the
// conditions and initialisations hoisted waits for the statement itself.
void Flattener::walkStatementChildren(Stmt *s) {
  for (Stmt *&child : s->children()) {
    if (!child)
      continue;
    size_t before = pending.size();
    bool test = isLoopTest(s, child);
    conditional += test;
    walk(child, true);
    conditional -= test;
    if (pending.size() == before || !isBodyOf(s, child))
      continue;
    std::vector<Stmt *> stmts(pending.begin() + (long)before, pending.end());
    pending.resize(before);
    stmts.push_back(child);
    replace(child, block(stmts, child->getBeginLoc()));
  }
}

// `slot` holds (in parentheses, perhaps) a call of a differentiable
// function that returns a struct, used inside an expression: the call
// becomes the initialiser of a temporary struct local, `struct S
// chad__g_N = g(...);`, flattened into `pending`, to run just before the
// statement, and the slot reads the temporary. Evaluated there, the call
// runs exactly when C runs it, except where C might not run it, or run it
// again: refused there.
void Flattener::hoistCall(Stmt *&slot) {
  auto *c = cast<CallExpr>(cast<Expr>(slot)->IgnoreParenImpCasts());
  SourceLocation loc = c->getBeginLoc();
  if (conditional)
    fail(loc, "struct returned by '" + text(c) +
                  "' inside an operand C may skip or repeat (a branch of ?:, the right of "
                  "&&, || or a comma, a loop's test or step) is not supported; assign it to "
                  "a local first");
  const FunctionDecl *callee = c->getDirectCallee();
  QualType t = c->getType().getUnqualifiedType();
  std::string name = "chad__" + (callee ? callee->getNameAsString() : std::string("call")) +
                     "_r" + std::to_string(temps++);
  auto *v = VarDecl::Create(ctx, const_cast<FunctionDecl *>(fd), loc, loc,
                            &ctx.Idents.get(name), t, ctx.getTrivialTypeSourceInfo(t), SC_None);
  v->setInit(c);
  auto *d = new (ctx) DeclStmt(DeclGroupRef(v), loc, loc);
  Stmt *made = declareLocals(d);
  pending.push_back(made);
  replace(slot, ref(v, loc));
}

// `g(a).x`, `g(a).in.x`: the call hoisted (hoistCall). False when m is not
// rooted at such a call.
bool Flattener::hoistMemberBase(MemberExpr *m) {
  while (!m->isArrow()) {
    Stmt **slot = &*m->child_begin();
    Expr *base = m->getBase()->IgnoreParenImpCasts();
    if (auto *inner = dyn_cast<MemberExpr>(base)) {
      m = inner;
      continue;
    }
    const auto *c = dyn_cast<CallExpr>(base);
    if (!c || !recordOf(c->getType()))
      return false;
    hoistCall(*slot);
    return true;
  }
  return false;
}

void Flattener::walkChildren(Stmt *s, bool statements) {
  for (Stmt *&child : s->children())
    if (child)
      walk(child, statements);
}

// Replaces, under `slot`, every node that involves a struct. `statement`:
// the slot holds a statement (not part of an expression).
void Flattener::walk(Stmt *&slot, bool statement) {
  Stmt *s = slot;
  if (auto *d = dyn_cast<DeclStmt>(s)) {
    bool anyStruct = false;
    for (Decl *decl : d->decls())
      if (auto *v = dyn_cast<VarDecl>(decl)) {
        QualType t = v->getType();
        const auto *at = ctx.getAsArrayType(t);
        anyStruct = anyStruct || recordOf(t) || pointeeRecord(t) ||
                    (at && recordOf(at->getElementType()));
      }
    if (anyStruct) {
      replace(slot, declareLocals(d));
      return;
    }
    for (Decl *decl : d->decls())
      if (auto *v = dyn_cast<VarDecl>(decl))
        if (Expr *init = v->getInit()) {
          Stmt *tmp = init;
          walk(tmp, false);
          if (tmp != init) {
            undo.push_back([v, init] { v->setInit(init); });
            v->setInit(cast<Expr>(tmp));
          }
        }
    return;
  }
  if (auto *r = dyn_cast<ReturnStmt>(s)) {
    if (r->getRetValue() && result) {
      replace(slot, returnStruct(r));
      return;
    }
  }
  auto *e = dyn_cast<Expr>(s);
  if (!e) {
    walkStatementChildren(s);
    return;
  }
  if (isa<UnaryExprOrTypeTraitExpr>(e)) // sizeof, _Alignof: not evaluated
    return;
  if (walkArrayPointer(slot) || walkLocalArrayElement(slot))
    return;
  if (auto *b = dyn_cast<BinaryOperator>(e);
      b && b->getOpcode() == BO_Assign && recordOf(b->getType())) {
    if (!statement)
      fail(b->getOperatorLoc(), "struct assignment inside an expression is "
                                "not supported; write it as a statement");
    replace(slot, assignWhole(b->getLHS(), b->getRHS(), b->getOperatorLoc()));
    return;
  }
  if (auto *c = dyn_cast<ImplicitCastExpr>(e);
      c && c->getCastKind() == CK_ArrayToPointerDecay) {
    // `p->v` used as a pointer: the leaf's pointer
    StructRef r;
    if (isa<MemberExpr>(c->getSubExpr()->IgnoreParens()) &&
        resolveRef(c->getSubExpr(), r)) {
      Leaf *l = leafAt(r);
      if (!l)
        fail(c->getBeginLoc(), "array of structs '" + text(c) + "' is not supported");
      Stmt *to = arrayArg(l, c->getBeginLoc(), r.index);
      walkChildren(to, false); // the index may read struct fields
      replace(slot, to);
      return;
    }
  }
  if (auto *v = dyn_cast<CStyleCastExpr>(e);
      v && v->getType()->isVoidType() &&
      (recordOf(v->getSubExpr()->getType()) || pointeeRecord(v->getSubExpr()->getType()))) {
    // `(void)s;`, `(void)p;`: a struct or a pointer to one, unused
    StructRef r;
    if (!resolveRef(v->getSubExpr()->IgnoreParenImpCasts(), r))
      fail(v->getBeginLoc(), "'" + text(v) + "' is not supported (only of a "
                                             "struct variable or pointer)");
    for (Stmt *&child : v->children())
      replace(child, lit(0, v->getBeginLoc()));
    return;
  }
  if (auto *m = dyn_cast<MemberExpr>(e)) {
    StructRef r;
    hoistMemberBase(m); // `g(a).x`: of a temporary made before the statement
    if (!resolveRef(m, r)) {
      const Expr *base = m->getBase()->IgnoreParenImpCasts();
      if (isa<ArraySubscriptExpr>(base))
        fail(m->getBeginLoc(), "array of structs ('" + text(m) +
                                   "') is not supported");
      if (isa<MemberExpr>(base))
        fail(m->getBeginLoc(), "pointer to a struct in a struct ('" +
                                   text(m) + "') is not supported");
      fail(m->getBeginLoc(), "field access '" + text(m) +
                                 "' is not supported (only fields of struct "
                                 "parameters and locals)");
    }
    Leaf *l = leafAt(r);
    if (!l)
      fail(m->getBeginLoc(), "struct value '" + text(m) +
                                 "' used where only a whole assignment, an "
                                 "initialisation, a return or an argument "
                                 "of a differentiable function is supported");
    if (l->kind == LeafKind::Pointer && !l->decl->getType()->isPointerType())
      fail(m->getBeginLoc(), "pointer field '" + text(m) + "' is not supported here");
    Expr *to = leafLvalue(l, m->getExprLoc(), r.index);
    if (!r.index.empty()) {
      Stmt *at = to;
      walkChildren(at, false); // the index may read struct fields
    }
    if (!m->isLValue()) // a field of a struct a call returns, `g(a).p`
      to = rvalue(to);
    replace(slot, to);
    return;
  }
  if (auto *c = dyn_cast<CallExpr>(e); c && freesStructs(c)) {
    if (!statement)
      fail(c->getBeginLoc(), "'" + text(c) + "' inside an expression; write it as a statement");
    replace(slot, freeLeaves(c));
    return;
  }
  if (auto *c = dyn_cast<CallExpr>(e)) {
    const FunctionDecl *callee = c->getDirectCallee();
    bool structs = false;
    if (callee) {
      structs = recordOf(callee->getReturnType()) != nullptr;
      for (const ParmVarDecl *p : callee->parameters())
        structs = structs || recordOf(p->getType()) || pointeeRecord(p->getType());
    }
    if (structs && callee && isDifferentiable(callee) && statement &&
        recordOf(callee->getReturnType())) {
      // `g(...);` for what it writes: its result goes to temporaries
      std::vector<Stmt *> out;
      callIntoLeaves(StructRef{}, c, out, c->getBeginLoc());
      replace(slot, block(out, c->getBeginLoc()));
      return;
    }
    if (structs && callee && isDifferentiable(callee)) {
      replace(slot, flatCall(c));
      return;
    }
    if (structs)
      fail(c->getBeginLoc(), "call to '" + (callee ? callee->getNameAsString()
                                                   : std::string("?")) +
                                 "' with a struct, which is not "
                                 "differentiable");
  }
  if (pointeeRecord(e->getType()) &&
      e->isNullPointerConstant(ctx, Expr::NPC_ValueDependentIsNotNull))
    return; // NULL, compared with a pointer to structs
  if (recordOf(e->getType()) || pointeeRecord(e->getType())) {
    const Expr *x = e->IgnoreParenImpCasts();
    if (const auto *b = dyn_cast<BinaryOperator>(x); b && b->isAssignmentOp())
      if (const auto *d = dyn_cast<DeclRefExpr>(b->getLHS()->IgnoreParenImpCasts())) {
        auto it = vars.find(dyn_cast<VarDecl>(d->getDecl()));
        if (it != vars.end() && it->second->allocation)
          fail(b->getOperatorLoc(), "array of structs '" + it->second->name + "' from " +
                                        it->second->allocation->getDirectCallee()->getNameAsString() +
                                        " is assigned ('" + text(b) + "'); not supported");
      }
    if (const auto *d = dyn_cast<DeclRefExpr>(x); d && e->isPRValue()) {
      // `!t`, `t == NULL` of an array of structs from malloc: its first
      // leaf's pointer, which the lowering tests as it tests scratch
      auto it = vars.find(dyn_cast<VarDecl>(d->getDecl()));
      if (it != vars.end() && it->second->allocation && !it->second->leaves.empty()) {
        replace(slot, rvalue(ref(it->second->leaves[0].decl, e->getExprLoc())));
        return;
      }
    }
    if (const auto *u = dyn_cast<UnaryOperator>(x);
        u && u->getOpcode() == UO_AddrOf)
      fail(e->getBeginLoc(), "address of a struct '" + text(e) +
                                 "' used other than as an argument of a "
                                 "differentiable function");
    if (isa<ArraySubscriptExpr>(x))
      fail(e->getBeginLoc(), "array of structs ('" + text(e) +
                                 "') is not supported");
    fail(e->getBeginLoc(), "struct value '" + text(e) +
                               "' used where only a field access, a whole "
                               "assignment, an initialisation, a return or "
                               "an argument of a differentiable function is "
                               "supported");
  }
  const auto *b = dyn_cast<BinaryOperator>(e);
  bool maybeSkipped = isa<AbstractConditionalOperator>(e) ||
                      (b && (b->getOpcode() == BO_LAnd || b->getOpcode() == BO_LOr ||
                             b->getOpcode() == BO_Comma));
  if (!maybeSkipped) {
    walkChildren(e, false);
    return;
  }
  bool first = true; // the condition, or the left operand: always evaluated first
  for (Stmt *&child : e->children()) {
    if (!child)
      continue;
    conditional += !first;
    walk(child, false);
    conditional -= !first;
    first = false;
  }
}

// A pointer into an array of structs is its index (`chad__k_p`): `p = &a[j]`,
// `p = q + 1`, `p++`, `p += k` move the index, and `p < q`, `p != end`
// compare the indices. True when `slot` was such a node (replaced).
// `t[i].w[k]` of a local array of structs, or of a parameter array of
// structs whose field `w` is written: element `i * stride + k` of the
// field's array, `t_w`, an element the lowering can write (a view,
// `t_w + i * stride`, it would only read).
bool Flattener::walkLocalArrayElement(Stmt *&slot) {
  auto *s = dyn_cast<ArraySubscriptExpr>(slot);
  const auto *m = s ? dyn_cast<MemberExpr>(s->getBase()->IgnoreParenImpCasts()) : nullptr;
  StructRef r;
  if (!m || !resolveRef(m, r) || !indexed(r.sv->role))
    return false;
  Leaf *l = leafAt(r);
  if (!l || l->kind != LeafKind::Array || (r.sv->role == StructRole::ByArray && !l->written))
    return false;
  SourceLocation loc = s->getExprLoc();
  Expr *at = longBinary(offset(l, r.index, 0, loc), indexSum({s->getIdx()}, loc), BO_Add, loc);
  Stmt *to = new (ctx) ArraySubscriptExpr(arrayArg(l, loc, {}), at, l->storage(ctx), VK_LValue,
                                          OK_Ordinary, loc);
  walkChildren(to, false); // the indices may read struct fields
  replace(slot, to);
  return true;
}

bool Flattener::walkArrayPointer(Stmt *&slot) {
  auto *e = dyn_cast<Expr>(slot);
  SourceLocation loc = e->getExprLoc();
  auto indexVar = [&](const Expr *x) -> VarDecl * {
    const auto *d = dyn_cast<DeclRefExpr>(x->IgnoreParenImpCasts());
    const auto *v = d ? dyn_cast<VarDecl>(d->getDecl()) : nullptr;
    auto it = v ? pointerIndex.find(v) : pointerIndex.end();
    return it == pointerIndex.end() ? nullptr : it->second;
  };
  auto zero = [&] { return IntegerLiteral::Create(ctx, llvm::APInt(64, 0), ctx.LongTy, loc); };
  // the index of pointer value `x` into array `sv`
  auto indexOf = [&](const Expr *x, const StructVar *sv) -> Expr * {
    const Expr *to = x->IgnoreParenImpCasts();
    if (const auto *u = dyn_cast<UnaryOperator>(to); u && u->getOpcode() == UO_AddrOf)
      to = u->getSubExpr();
    StructRef r;
    if (!resolveRef(to, r) || r.sv != sv || !r.fields.empty())
      fail(x->getBeginLoc(), "'" + text(x) + "' is not a struct of the same "
                             "array of structs; not supported");
    Expr *sum = indexSum(r.index, loc);
    return sum ? sum : zero();
  };
  auto *b = dyn_cast<BinaryOperator>(e);
  auto *u = dyn_cast<UnaryOperator>(e);
  Expr *made = nullptr;
  if (b && b->isAssignmentOp()) {
    VarDecl *k = indexVar(b->getLHS());
    if (!k)
      return false;
    StructRef self;
    resolveRef(b->getLHS()->IgnoreParenImpCasts(), self);
    Expr *rhs = b->getOpcode() == BO_Assign ? indexOf(b->getRHS(), self.sv) : b->getRHS();
    if (b->getOpcode() != BO_Assign && b->getOpcode() != BO_AddAssign &&
        b->getOpcode() != BO_SubAssign)
      fail(loc, "'" + text(b) + "' on a pointer to a struct is not supported");
    if (!ctx.hasSameUnqualifiedType(rhs->getType(), ctx.LongTy))
      rhs = ImplicitCastExpr::Create(ctx, ctx.LongTy, CK_IntegralCast, rhs, nullptr,
                                     VK_PRValue, FPOptionsOverride());
    if (b->getOpcode() == BO_Assign)
      made = assign(ref(k, loc), rhs, loc);
    else
      made = CompoundAssignOperator::Create(ctx, ref(k, loc), rhs, b->getOpcode(),
                                            ctx.LongTy, VK_PRValue, OK_Ordinary, loc,
                                            FPOptionsOverride(), ctx.LongTy, ctx.LongTy);
  } else if (u && u->isIncrementDecrementOp()) {
    VarDecl *k = indexVar(u->getSubExpr());
    if (!k)
      return false;
    made = UnaryOperator::Create(ctx, ref(k, loc), u->getOpcode(), ctx.LongTy,
                                 VK_PRValue, OK_Ordinary, loc, false, FPOptionsOverride());
  } else if (b && (b->isComparisonOp() || b->getOpcode() == BO_Sub) &&
             pointeeRecord(b->getLHS()->getType()) && pointeeRecord(b->getRHS()->getType()) &&
             // `t == NULL`: a null test, of the first leaf (walk)
             !b->getLHS()->isNullPointerConstant(ctx, Expr::NPC_ValueDependentIsNotNull) &&
             !b->getRHS()->isNullPointerConstant(ctx, Expr::NPC_ValueDependentIsNotNull)) {
    // `p < q`, `p - q` into one array of structs: of the indices
    bool sub = b->getOpcode() == BO_Sub;
    StructRef l;
    const Expr *lx = b->getLHS()->IgnoreParenImpCasts();
    if (const auto *a = dyn_cast<UnaryOperator>(lx); a && a->getOpcode() == UO_AddrOf)
      lx = a->getSubExpr();
    if (!resolveRef(lx, l) || !indexed(l.sv->role))
      fail(loc, std::string(sub ? "difference '" : "comparison '") + text(b) +
                    "' of pointers to structs is not supported (only of pointers into one "
                    "array of structs)");
    made = BinaryOperator::Create(ctx, indexOf(b->getLHS(), l.sv), indexOf(b->getRHS(), l.sv),
                                  b->getOpcode(), sub ? ctx.LongTy : ctx.IntTy, VK_PRValue,
                                  OK_Ordinary, loc, FPOptionsOverride());
  }
  if (!made)
    return false;
  walkChildren(made, false); // indices may read struct fields
  replace(slot, made);
  return true;
}

void Flattener::flattenBody(FlatSig &sig) {
  fname = fd->getNameAsString();
  if (sig.result)
    result = sig.result.get();
  auto *body = dyn_cast_or_null<CompoundStmt>(fd->getBody());
  if (!body)
    fail(fd->getLocation(), "unsupported function body");
  walkStatementChildren(body);
  if (!pending.empty())
    fail(fd->getLocation(), "a struct-valued call was left without a statement to precede");
  sig.flat->setBody(body);
  // Parents are asked during lowering (lower.cpp): of the flattened body.
  ctx.getParentMapContext().clear();
}

void Flattener::restore() {
  for (auto it = undo.rbegin(); it != undo.rend(); ++it)
    (*it)();
  if (!undo.empty())
    ctx.getParentMapContext().clear();
  undo.clear();
}

// ------------------------------------------------------------- wrappers

// C's keywords (those of C2x included), which a shadow's name made by
// prefixing `d` may spell: `o` gives `do`, `ouble` gives `double`.
bool isCKeyword(const std::string &n) {
  static const std::set<std::string> keywords = {
      "auto", "break", "case", "char", "const", "continue", "default", "do",
      "double", "else", "enum", "extern", "float", "for", "goto", "if",
      "inline", "int", "long", "register", "restrict", "return", "short",
      "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
      "unsigned", "void", "volatile", "while", "_Bool", "_Complex",
      "_Imaginary", "_Alignas", "_Alignof", "_Atomic", "_Generic",
      "_Noreturn", "_Static_assert", "_Thread_local", "bool", "true", "false",
      "alignas", "alignof", "static_assert", "thread_local", "typeof",
      "typeof_unqual", "nullptr", "constexpr"};
  return keywords.count(n) != 0;
}

// A fresh C name among the parameters, not a keyword.
std::string freshName(std::set<std::string> &taken, const std::string &base) {
  std::string n = base;
  for (int i = 2; taken.count(n) || isCKeyword(n); i++)
    n = base + "_" + std::to_string(i);
  taken.insert(n);
  return n;
}

std::string declare(const std::string &type, const std::string &name) {
  return type + (type.back() == '*' ? "" : " ") + name;
}

// `t name` as C declares it (`const double (*A)[3]` for rows).
std::string declare(QualType t, const std::string &name, const ASTContext &ctx) {
  std::string out;
  llvm::raw_string_ostream os(out);
  t.print(os, PrintingPolicy(ctx.getLangOpts()), name);
  return os.str();
}

// The shadow of an ordinary pointer parameter of type t whose elements are
// floating, `T *` or rows `T (*)[C]`: the same type for a tangent; for an
// adjoint, writable when the primal is const (accumulated) and const when
// it is not (a seed). Null for any other t.
QualType pointerShadow(QualType t, bool rev, const ASTContext &c, const ParamClass *cls) {
  const auto *pt = t.getCanonicalType()->getAs<PointerType>();
  if (!pt)
    return QualType();
  QualType e = pt->getPointeeType();
  const auto *row = c.getAsConstantArrayType(e);
  if (row)
    e = row->getElementType();
  if (!isScalarFloat(e))
    return QualType();
  if (!rev)
    return t;
  // f_rev's shadow is a read-only seed for an output array only; before
  // the lowering has classified the parameter, a non-const one is taken
  // for an output
  bool seed = cls ? *cls == PARAM_OUT_ARRAY : !e.isConstQualified();
  QualType s = seed ? e.getUnqualifiedType().withConst() : e.getUnqualifiedType();
  if (row)
    s = c.getConstantArrayType(s, row->getSize(), nullptr, clang::ArrayType::Normal, 0);
  return c.getPointerType(s);
}

// `lowered`: the flat function's signature, whose parameter classes decide
// the shadows' const (null before it is lowered).
std::string Flattener::wrappers(const FlatSig &sig, bool rev, bool prototypesOnly,
                                const Signature *lowered) {
  const FunctionDecl *f = sig.orig;
  const ASTContext &c = f->getASTContext();
  std::string name = f->getNameAsString();
  std::string flat = sig.flat->getNameAsString();
  bool isStatic = !f->isExternallyVisible();
  std::string linkage = isStatic ? "static __attribute__((unused)) " : "";
  std::string out;
  {
    std::set<std::string> taken;
    for (const FlatParam &fp : sig.params)
      taken.insert(fp.parm->getNameAsString());
    std::vector<std::string> params, args;
    std::vector<std::string> arrayShadow(sig.params.size()); // of array parameters
    size_t flatIndex = 0; // of fp among the flat function's parameters
    for (const FlatParam &fp : sig.params) {
      const ParamClass *cls = nullptr;
      if (fp.structIndex >= 0)
        flatIndex += sig.structs[fp.structIndex]->leaves.size();
      else if (lowered && flatIndex < lowered->classes.size())
        cls = &lowered->classes[flatIndex++];
      else
        flatIndex++;
      const ParmVarDecl *p = fp.parm;
      std::string pn = p->getNameAsString();
      QualType t = p->getType();
      params.push_back(declare(t, pn, c));
      if (fp.structIndex < 0) {
        args.push_back(pn);
        bool inactive = isMarkedInactive(p);
        if (inactive)
          continue;
        if (isScalarFloat(t)) {
          // the adjoint of `const double a` is written: its pointer is to
          // double, as for a function without structs (fuzz seed s63)
          std::string sn = freshName(taken, rev ? pn + "_b" : "d" + pn);
          std::string st = typeName(t.getUnqualifiedType(), c);
          params.push_back(declare(rev ? st + " *" : st, sn));
          args.push_back(sn);
        } else if (QualType st = pointerShadow(t, rev, c, cls); !st.isNull()) {
          std::string sn = freshName(taken, rev ? pn + "_b" : "d" + pn);
          params.push_back(declare(st, sn, c));
          args.push_back(sn);
          arrayShadow[(size_t)(&fp - &sig.params[0])] = sn;
        }
        continue;
      }
      const StructVar &sv = *sig.structs[fp.structIndex];
      bool byPtr = sv.role == StructRole::ByPointer || sv.role == StructRole::ByArray;
      std::string acc = pn + (byPtr ? "->" : ".");
      std::string sn, sacc;
      if (sv.active()) {
        sn = freshName(taken, rev ? pn + "_b" : "d" + pn);
        std::string st = typeName(sv.type, c);
        if (rev)
          params.push_back(declare(st + " *", sn));
        else if (byPtr)
          params.push_back(declare(typeName(t, c), sn));
        else
          params.push_back(declare(st, sn));
        sacc = sn + (rev || byPtr ? "->" : ".");
      }
      for (const Leaf &l : sv.leaves) {
        std::string path = l.path();
        bool scalar = l.kind == LeafKind::Float || l.kind == LeafKind::Int;
        std::string asChar = l.boolAsChar ? "(const unsigned char *)" : "";
        if (sv.role == StructRole::ByArray) {
          // the field of the first struct; the others follow at the stride
          args.push_back(asChar + (scalar ? "&" : "") + acc + path);
          if (l.active())
            args.push_back((scalar ? "&" : "") + sacc + path);
        } else if (scalar && l.outScalar) {
          args.push_back("&" + acc + path);
          args.push_back("&" + sacc + path);
        } else if (scalar) {
          args.push_back(acc + path);
          if (l.active())
            args.push_back((rev ? "&" : "") + sacc + path);
        } else {
          args.push_back(asChar + acc + path);
          // A pointer to const data in the shadow struct points to the
          // caller's adjoint array, which f_rev adds into.
          if (l.active())
            args.push_back((rev && l.constElems ? "(" + typeName(l.elem, c) + " *)" : "") +
                           sacc + path);
        }
      }
    }
    QualType ret = f->getReturnType();
    std::string retType = typeName(ret, c);
    std::string pre, post, call;
    if (sig.result) {
      std::string rn = freshName(taken, "ret");
      std::string sn = freshName(taken, rev ? "ret_b" : "d_ret");
      params.push_back(rev ? declare(retType, sn) : declare(retType + " *", sn));
      std::string sacc = sn + (rev ? "." : "->");
      pre = "  " + declare(retType, rn) + ";\n";
      if (rev) // its pointer and integer fields are not read: maybe none is
        pre += "  (void)" + sn + ";\n";
      for (const Leaf &l : sig.result->leaves) {
        bool scalar = l.kind == LeafKind::Float || l.kind == LeafKind::Int;
        if (l.viaDouble) {
          // an integer field: a double to take it, a zero seed (f_rev) or
          // a tangent dropped (f_fwd)
          std::string n = std::to_string(scalar ? 1 : l.size);
          std::string slots = std::to_string(l.slots());
          std::string v = freshName(taken, "chad__" + rn + "_" + std::to_string(&l - &sig.result->leaves[0]));
          std::string sd = freshName(taken, v + "_d");
          pre += "  double " + v + "[" + slots + "];\n";
          pre += "  double " + sd + "[" + slots + "] = {0};\n";
          args.push_back(v);
          args.push_back(sd);
          if (l.viewParam >= 0) {
            // a view: its offset into the array parameter, and the same
            // offset into that array's shadow in f_fwd (DESIGN 8.46)
            std::string off = "(long long)" + v + "[0]";
            std::string ft = "(" + typeName(l.fields.back()->getType(), c) + ")";
            post += "  " + rn + "." + l.path() + " = " + ft + "(" +
                    l.viewBase->getNameAsString() + " + " + off + ");\n";
            const std::string &shadow = arrayShadow[(size_t)l.viewParam];
            if (!rev && !shadow.empty())
              post += "  " + sacc + l.path() + " = " + ft + "(" + shadow + " + " + off + ");\n";
            continue;
          }
          // a 64-bit field: from its high and low 32 bits (Leaf::wide)
          std::string value = l.wide ? "(((unsigned long long)" + v + "[2 * chad__i] << 32) | "
                                       "(unsigned long long)" + v + "[2 * chad__i + 1])"
                                     : v + "[chad__i]";
          post += "  for (int chad__i = 0; chad__i < " + n + "; chad__i++)\n    " + rn +
                  "." + l.path() + (scalar ? "" : "[chad__i]") + " = (" +
                  typeName(l.elem, c) + ")" + value + ";\n";
          continue;
        }
        args.push_back((scalar ? "&" : "") + rn + "." + l.path());
        args.push_back((scalar ? "&" : "") + sacc + l.path());
      }
      post += "  return " + rn + ";\n";
    } else if (isScalarFloat(ret)) {
      std::string sn = freshName(taken, rev ? "ret_b" : "d_ret");
      params.push_back(rev ? declare(retType, sn) : declare(retType + " *", sn));
      args.push_back(sn);
    }
    std::string fname2 = name + (rev ? "_rev" : "_fwd");
    std::string sigText = linkage + retType + " " + fname2 + "(";
    for (size_t i = 0; i < params.size(); i++)
      sigText += (i ? ", " : "") + params[i];
    sigText += params.empty() ? "void)" : ")";
    if (prototypesOnly)
      return sigText + ";\n";
    call = flat + (rev ? "_rev(" : "_fwd(");
    for (size_t i = 0; i < args.size(); i++)
      call += (i ? ", " : "") + args[i];
    call += ")";
    out += sigText + " {\n" + pre;
    if (sig.result)
      out += "  " + call + ";\n" + post;
    else if (ret->isVoidType())
      out += "  " + call + ";\n";
    else
      out += "  return " + call + ";\n";
    out += "}\n\n";
  }
  return out;
}

// What the wrappers' definitions need before them: the flat primal.
std::string Flattener::wrapperPreamble(const FlatSig &sig) {
  std::string name = sig.orig->getNameAsString();
  return "/* chad: '" + name + "' takes or returns structs: " + name + "_fwd and " + name +
         "_rev pass their fields to the derivatives of " + sig.flat->getNameAsString() +
         " */\n" + flatPrimal(sig);
}

// The flat function itself as C, for the derivatives of callers that call
// it for its value (a reverse sweep recomputing a loop body, say): the
// leaves packed into structs, f called, its written leaves and its result
// unpacked. It precedes every caller's derivatives (callers of a function
// with structs in its signature are defined after it).
std::string Flattener::flatPrimal(const FlatSig &sig) {
  const FunctionDecl *f = sig.orig;
  const ASTContext &c = f->getASTContext();
  std::string flat = sig.flat->getNameAsString();
  std::vector<std::string> params, args;
  std::string pack, unpack;
  auto leafName = [](const Leaf &l) { return l.decl->getNameAsString(); };
  for (const FlatParam &fp : sig.params) {
    const ParmVarDecl *p = fp.parm;
    if (fp.structIndex < 0) {
      params.push_back(declare(p->getType(), p->getNameAsString(), c));
      args.push_back(p->getNameAsString());
      continue;
    }
    const StructVar &sv = *sig.structs[fp.structIndex];
    if (sv.role == StructRole::ByArray) {
      // the array itself, from where its first struct's first leaf is
      const Leaf &first = sv.leaves.front();
      args.push_back("(" + typeName(p->getType(), c) + ")(const void *)((const char *)" +
                     leafName(first) + " - __builtin_offsetof(" +
                     typeName(sv.type, c) + ", " + first.path() + "))");
      for (const Leaf &l : sv.leaves) {
        params.push_back(declare(typeName(l.decl->getType(), c), leafName(l)));
        if (&l != &first)
          pack += "  (void)" + leafName(l) + ";\n";
      }
      continue;
    }
    std::string local = "chad__s_" + sv.name;
    pack += "  " + declare(typeName(sv.type, c), local) + ";\n";
    args.push_back((sv.role == StructRole::ByPointer ? "&" : "") + local);
    for (const Leaf &l : sv.leaves) {
      std::string ln = leafName(l), at = local + "." + l.path();
      params.push_back(declare(typeName(l.decl->getType(), c), ln));
      if (l.kind == LeafKind::Float || l.kind == LeafKind::Int) {
        if (l.outScalar)
          unpack += "  " + ln + "[0] = " + at + ";\n";
        else
          pack += "  " + at + " = " + ln + ";\n";
      } else if (l.kind == LeafKind::Array) {
        std::string loop = "  for (long long chad__i = 0; chad__i < " +
                           std::to_string(l.size) + "; chad__i++)\n    ";
        if (l.written)
          unpack += loop + ln + "[chad__i] = " + at + "[chad__i];\n";
        else
          pack += loop + at + "[chad__i] = " + ln + "[chad__i];\n";
      } else {
        // the field's own type: a leaf read only is a pointer to const
        pack += "  " + at + " = (" + typeName(l.fields.back()->getType(), c) +
                ")" + ln + ";\n";
      }
    }
  }
  std::string call = f->getNameAsString() + "(";
  for (size_t i = 0; i < args.size(); i++)
    call += (i ? ", " : "") + args[i];
  call += ")";
  std::string body;
  if (sig.result) {
    std::string local = "chad__s_ret";
    body = "  " + declare(typeName(sig.result->type, c), local) + " = " + call + ";\n";
    for (const Leaf &l : sig.result->leaves) {
      std::string ln = leafName(l), at = local + "." + l.path();
      params.push_back(declare(typeName(l.decl->getType(), c), ln));
      std::string loop = "  for (long long chad__i = 0; chad__i < " +
                         std::to_string(l.kind == LeafKind::Array ? l.size : 1) + "; chad__i++)\n    ";
      std::string each = at + (l.kind == LeafKind::Array ? "[chad__i]" : "");
      if (l.viewParam >= 0) // a view: its offset (Leaf::viewParam)
        each = "(" + at + " - " + l.viewBase->getNameAsString() + ")";
      if (l.wide) // its high and low 32 bits (Leaf::wide)
        unpack += loop + "{\n      " + ln + "[2 * chad__i] = (double)((unsigned long long)" + each +
                  " >> 32);\n      " + ln + "[2 * chad__i + 1] = (double)((unsigned long long)" +
                  each + " & 0xffffffffu);\n    }\n";
      else if (l.kind == LeafKind::Array)
        unpack += loop + ln + "[chad__i] = " + each + ";\n";
      else
        unpack += "  " + ln + "[0] = " + each + ";\n";
    }
    body += unpack;
  } else if (f->getReturnType()->isVoidType()) {
    body = "  " + call + ";\n" + unpack;
  } else if (unpack.empty()) {
    body = "  return " + call + ";\n";
  } else {
    body = "  " + declare(typeName(f->getReturnType(), c), "chad__r") + " = " + call +
           ";\n" + unpack + "  return chad__r;\n";
  }
  std::string ret = sig.result ? "void" : typeName(f->getReturnType(), c);
  std::string text = "static __attribute__((unused)) " + ret + " " + flat + "(";
  for (size_t i = 0; i < params.size(); i++)
    text += (i ? ", " : "") + params[i];
  text += params.empty() ? "void" : "";
  return text + ") {\n" + pack + body + "}\n\n";
}

bool mentionsStructs(const Stmt *s) {
  if (!s)
    return false;
  if (const auto *e = dyn_cast<Expr>(s))
    if (isa<MemberExpr>(e) || recordOf(e->getType()) || pointeeRecord(e->getType()))
      return true;
  if (const auto *d = dyn_cast<DeclStmt>(s))
    for (const Decl *decl : d->decls())
      if (const auto *v = dyn_cast<VarDecl>(decl)) {
        const auto *at = v->getASTContext().getAsArrayType(v->getType());
        if (recordOf(v->getType()) || pointeeRecord(v->getType()) ||
            (at && recordOf(at->getElementType())))
          return true;
      }
  for (const Stmt *c : s->children())
    if (mentionsStructs(c))
      return true;
  return false;
}

} // namespace

bool usesStructs(const clang::FunctionDecl *fd) {
  if (flatToOrig.count(fd)) // flattened already
    return false;
  if (recordOf(fd->getReturnType()))
    return true;
  for (const clang::ParmVarDecl *p : fd->parameters())
    if (recordOf(p->getType()) || pointeeRecord(p->getType()))
      return true;
  return mentionsStructs(fd->getBody());
}

// The functions whose bodies are flattened now (one being lowered, a
// callee being looked into): never flattened twice over.
static std::set<const clang::FunctionDecl *> flattenedNow;

struct FlatBody::State {
  const clang::FunctionDecl *orig;
  Flattener fl;
};

FlatBody::FlatBody(const clang::FunctionDecl *def) {
  auto it = flatToOrig.find(def);
  if (it == flatToOrig.end())
    return;
  const clang::FunctionDecl *orig = it->second->getDefinition();
  auto sig = flatSigs.find(it->second);
  if (!orig || sig == flatSigs.end() || !sig->second->complete ||
      flattenedNow.count(orig))
    return;
  state = new State{orig, Flattener(orig)};
  flattenedNow.insert(orig);
  try {
    state->fl.flattenBody(*sig->second);
  } catch (const StructError &) { // it was lowered, so this is not expected:
    state->fl.restore();          // the callee's body stays as written
  }
}

FlatBody::~FlatBody() {
  if (!state)
    return;
  state->fl.restore();
  flattenedNow.erase(state->orig);
  delete state;
}

std::string sourceName(const clang::VarDecl *v) {
  auto it = leafFields.find(v);
  return it == leafFields.end() ? v->getNameAsString() : it->second;
}

std::string returnedViewField(const clang::Expr *difference) {
  auto it = viewDifferences.find(difference);
  return it == viewDifferences.end() ? std::string() : it->second;
}

LoweredFunction lowerFlattened(const clang::FunctionDecl *fd, Arena *arena,
                               SourceLocs &locs) {
  LoweredFunction out;
  flattenedNow.insert(fd);
  struct Done {
    const clang::FunctionDecl *fd;
    ~Done() { flattenedNow.erase(fd); }
  } done{fd};
  Flattener fl(fd);
  FlatSig *sig = nullptr;
  try {
    sig = &fl.signature(fd);
    if (sig->structSignature())
      for (int rev = 0; rev < 2; rev++)
        out.wrapperPrototypes[rev] = Flattener::wrappers(*sig, rev, true);
    fl.flattenBody(*sig);
  } catch (const StructError &e) {
    out.error = LowerError{e.loc, e.what};
    return out;
  }
  out = lowerFunction(sig->flat, arena, locs);
  fl.restore();
  if (sig->structSignature()) {
    const Signature *lowered = out.signatureOk ? &out.sig : nullptr;
    for (int rev = 0; rev < 2; rev++) {
      out.wrapperPrototypes[rev] = Flattener::wrappers(*sig, rev, true, lowered);
      out.wrapperDefinitions[rev] = Flattener::wrappers(*sig, rev, false, lowered);
    }
    out.wrapperPreamble = Flattener::wrapperPreamble(*sig);
    out.sig.isStatic = true; // only the wrappers call the flat derivatives
  }
  for (CalleeUse &u : out.callees) {
    auto it = flatToOrig.find(u.callee);
    if (it != flatToOrig.end())
      u.callee = it->second;
  }
  return out;
}

} // namespace chad
