// lower_custom.cpp: calls to CHAD_CUSTOM functions (DESIGN.md section 1).
//
// Requires: `callee` is marked CHAD_CUSTOM (isCustom). Guarantees: either
// an ordinary IR call of the callee, whose IR signature (Func.is_custom, no
// body) is recorded in `customs` for the module, after checking that the
// user declared g_fwd and g_rev (those the plugin makes derivatives of:
// setDirections) before the call with exactly the signatures
// the contract gives g; or a located error that names the call and says
// what was expected. A call of a custom function that writes arrays (each
// declared with its length, `double y[n]`) is lowered by effectCall, like
// a differentiable callee's, with fresh arrays of those lengths in place of
// the written arguments (DESIGN 8.25); customExtent and customParamInOut
// give the lengths and the classes. The generated code calls g_fwd and g_rev by name and
// declares nothing: the user's declarations, visible where the call is, are
// visible where the derivatives are spliced (after the caller), and their
// definitions may come anywhere, in this file or another.
#include "lowering/differentiable.h"
#include "lowering/lowerer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Type.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>

namespace chad {

// One compilation makes one set of derivatives: set once, from the
// plugin's arguments, before the first function is lowered.
static Directions directions;

void setDirections(Directions wanted) { directions = wanted; }

namespace lowering_detail {

// A parameter's name in messages and in the IR: unnamed parameters of a
// prototype (`double bessel(double);`) are numbered as in C's p1, p2...
static std::string paramName(const clang::ParmVarDecl *p, unsigned i) {
  std::string n = p->getNameAsString();
  return n.empty() ? "p" + std::to_string(i + 1) : n;
}

// `T name` as C writes a declaration (no space after a '*').
static std::string declText(QualType t, const std::string &name) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os, clang::PrintingPolicy(clang::LangOptions()), name); // `const double (*A)[2]`
  return os.str();
}

// The length a parameter of g is declared with on some declaration (`double
// y[n]`, `double y[3]`, `double y[static 3]`), as clang keeps it before the
// array decays: its array type, or null.
static const clang::ArrayType *declaredArray(const FunctionDecl *g, unsigned i) {
  for (const FunctionDecl *r : g->redecls()) {
    if (i >= r->getNumParams())
      continue;
    const clang::ArrayType *t = r->getParamDecl(i)->getOriginalType()->getAsArrayTypeUnsafe();
    if (t && (isa<clang::ConstantArrayType>(t) ||
              (isa<clang::VariableArrayType>(t) &&
               cast<clang::VariableArrayType>(t)->getSizeExpr())))
      return t;
  }
  return nullptr;
}

bool customParamInOut(const FunctionDecl *g, unsigned i) {
  clang::ASTContext &ctx = g->getASTContext();
  std::string rev = g->getNameAsString() + "_rev";
  const FunctionDecl *d = nullptr;
  for (clang::NamedDecl *nd : ctx.getTranslationUnitDecl()->lookup(
           clang::DeclarationName(&ctx.Idents.get(rev))))
    if (const auto *f = dyn_cast<FunctionDecl>(nd))
      d = f;
  if (!d || i >= g->getNumParams())
    return false;
  // g_rev's parameters: each of g's, an active one followed by its shadow
  unsigned at = 0;
  for (unsigned j = 0; j <= i; j++) {
    const clang::ParmVarDecl *p = g->getParamDecl(j);
    QualType t = p->getType();
    bool floating = t->isRealFloatingType() ||
                    (t->isPointerType() && t->getPointeeType()->isRealFloatingType());
    at += j < i ? 1 + (floating && !isMarkedInactive(p)) : 1;
  }
  if (at >= d->getNumParams())
    return false;
  QualType seed = d->getParamDecl(at)->getType();
  return seed->isPointerType() && !seed->getPointeeType().isConstQualified();
}

Signature Lowerer::customSignature(const FunctionDecl *g,
                                   SourceLocation callLoc) {
  std::string name = g->getNameAsString();
  Signature s;
  s.name = name;
  s.loc = locs.toIR(g->getLocation());
  s.isStatic = !g->isExternallyVisible();
  QualType rt = g->getReturnType();
  Type *r = rt->isVoidType() ? ty_unit(arena) : irScalarType(rt);
  std::vector<ParamClass> classes;
  std::vector<Type *> results{r};
  bool plain = true; // every parameter an active scalar or an integer
  for (unsigned i = 0; i < g->getNumParams(); i++) {
    const clang::ParmVarDecl *p = g->getParamDecl(i);
    ParamClass cls;
    Type *t = nullptr;
    std::string problem;
    if (!classifyParam(p, cls, t, problem))
      fail(callLoc, "CHAD_CUSTOM function '" + name + "': " + problem);
    if (rowLength(p->getType()))
      fail(callLoc, "CHAD_CUSTOM function '" + name + "' takes rows ('" +
                        declText(p->getOriginalType(), paramName(p, i)) +
                        "'); a custom function's arrays must be pointers ('double *') for now");
    if ((cls == PARAM_OUT_ARRAY || cls == PARAM_INOUT_ARRAY) && !declaredArray(g, i))
      fail(callLoc, "CHAD_CUSTOM function '" + name + "' writes array parameter '" +
                        paramName(p, i) + "', declared '" + declText(p->getOriginalType(),
                        paramName(p, i)) + "', whose length chad cannot see: declare it "
                        "with its length, as a C99 array parameter ('double " +
                        paramName(p, i) + "[n]' over an earlier integer parameter n, or "
                        "'double " + paramName(p, i) + "[3]'), or make it 'const'");
    if (cls == PARAM_OUT_ARRAY || cls == PARAM_INOUT_ARRAY)
      results.push_back(t);
    if (isMarkedInactive(p) && type_is_active(t))
      cls = PARAM_INACTIVE;
    plain = plain && (cls == PARAM_ACTIVE_SCALAR ||
                      (cls == PARAM_INACTIVE && !type_is_active(t)));
    classes.push_back(cls);
    s.params.push_back(var_new(arena, paramName(p, i).c_str(), t));
  }
  bool writes = results.size() > 1;
  if (!r || (!type_is_float(r) && !writes))
    fail(callLoc, "CHAD_CUSTOM function '" + name + "' returns '" + rt.getAsString() +
                      "': a custom function must return double or float, or write an "
                      "array (then it may return void or an integer)");
  s.ret = writes ? ty_tuple(arena, (int)results.size(), results.data()) : r;
  if (!plain) // as lowering does for a definition: NULL when all scalars
    s.classes = classes;
  return s;
}

// The length parameter `param` of CHAD_CUSTOM callee is declared with, in
// the caller's terms, or null.
Expr *Lowerer::customExtent(const CallExpr *call, unsigned param, const Env &env) {
  const clang::ArrayType *t = declaredArray(call->getDirectCallee(), param);
  if (const auto *c = dyn_cast_or_null<clang::ConstantArrayType>(t))
    return mkInt((long long)c->getSize().getZExtValue(), call->getExprLoc());
  if (const auto *v = dyn_cast_or_null<clang::VariableArrayType>(t))
    return calleeIntExpr(v->getSizeExpr(), call, env);
  return nullptr;
}

// Checks that g_fwd (or g_rev) is declared, before the call, with the
// contract's signature for g (DESIGN.md section 1).
void Lowerer::checkCustomDerivative(const FunctionDecl *g, const Signature &sig,
                                    bool reverse, SourceLocation callLoc) {
  std::string gname = g->getNameAsString();
  std::string dname = gname + (reverse ? "_rev" : "_fwd");
  QualType ret = g->getReturnType().getUnqualifiedType();
  std::vector<QualType> want;
  std::string text; // the expected declaration, for messages
  auto add = [&](QualType t, const std::string &n) {
    want.push_back(t);
    text += (want.size() > 1 ? ", " : "") + declText(t, n);
  };
  for (unsigned i = 0; i < g->getNumParams(); i++) {
    const clang::ParmVarDecl *p = g->getParamDecl(i);
    QualType t = p->getType().getUnqualifiedType(); // arrays as pointers
    std::string n = paramName(p, i);
    add(t, n);
    ParamClass cls = sig.classes.empty() ? (type_is_active(sig.params[i]->type)
                                                ? PARAM_ACTIVE_SCALAR
                                                : PARAM_INACTIVE)
                                         : sig.classes[i];
    if (cls == PARAM_INACTIVE || !type_is_active(sig.params[i]->type))
      continue;
    QualType elem = t->isPointerType() ? t->getPointeeType().getUnqualifiedType() : t;
    if (cls == PARAM_ACTIVE_SCALAR)
      add(reverse ? ctx.getPointerType(t) : t, reverse ? n + "_b" : "d" + n);
    else if (reverse && cls == PARAM_OUT_ARRAY) // an output's seed is read only
      add(ctx.getPointerType(elem.withConst()), n + "_b");
    else if (reverse) // an input's adjoint, an in-out array's seed: written
      add(ctx.getPointerType(elem), n + "_b");
    else
      add(t, "d" + n);
  }
  if (ret->isRealFloatingType()) {
    if (reverse)
      add(ret, "ret_b");
    else
      add(ctx.getPointerType(ret), "d_ret");
  }
  std::string expected = declText(ret, dname) + "(" + text + ")";

  bool written = false; // a hint for the class the user meant
  for (unsigned i = 0; i < g->getNumParams() && !sig.classes.empty(); i++)
    written = written || sig.classes[i] == PARAM_OUT_ARRAY || sig.classes[i] == PARAM_INOUT_ARRAY;
  if (written && reverse)
    expected += "' (an output array's seed is 'const', an in-out array's is not: g_rev "
                "consumes it and leaves the adjoint of the array's initial values)";
  else
    expected += "'";
  const FunctionDecl *d = nullptr;
  for (clang::NamedDecl *nd : ctx.getTranslationUnitDecl()->lookup(
           clang::DeclarationName(&ctx.Idents.get(dname))))
    if (const auto *f = dyn_cast<FunctionDecl>(nd))
      d = f;
  if (!d || d->isInvalidDecl())
    fail(callLoc, "call to CHAD_CUSTOM function '" + gname + "', whose " +
                      (reverse ? "reverse" : "forward") + " derivative '" +
                      dname + "' is not declared before the call: declare "
                      "'" + expected + " (DESIGN.md section 1)");
  const auto *proto = d->getType()->getAs<clang::FunctionProtoType>();
  bool ok = proto && !proto->isVariadic() && proto->getNumParams() == want.size() &&
            ctx.hasSameType(proto->getReturnType(), ret);
  for (unsigned i = 0; ok && i < want.size(); i++)
    ok = ctx.hasSameType(proto->getParamType(i).getUnqualifiedType(), want[i]);
  if (!ok) {
    const clang::SourceManager &sm = ctx.getSourceManager();
    fail(callLoc, "'" + dname + "', the " + (reverse ? "reverse" : "forward") +
                      " derivative of CHAD_CUSTOM function '" + gname +
                      "', is declared at line " +
                      std::to_string(sm.getPresumedLineNumber(d->getLocation())) +
                      " as '" + d->getType().getAsString() +
                      "'; the contract (DESIGN.md section 1) expects '" + expected);
  }
}

// The checks every call of a custom function makes, and its signature for
// the module, once.
void Lowerer::registerCustom(const CallExpr *c, const FunctionDecl *callee) {
  SourceLocation loc = c->getBeginLoc();
  std::string name = callee->getNameAsString();
  if (isDifferentiable(callee))
    fail(loc, "'" + name + "' is marked both CHAD_CUSTOM and differentiable: "
              "keep CHAD_CUSTOM to use your own derivatives, or the "
              "differentiable mark to have chad's");
  if (!callee->getType()->getAs<clang::FunctionProtoType>())
    fail(loc, "call to CHAD_CUSTOM function '" + name + "' which has no prototype");
  if (callee->isVariadic())
    fail(loc, "call to CHAD_CUSTOM function '" + name + "': variadic functions "
              "are not supported");
  Signature sig = customSignature(callee, loc);
  if (directions.forward)
    checkCustomDerivative(callee, sig, /*reverse=*/false, loc);
  if (directions.reverse)
    checkCustomDerivative(callee, sig, /*reverse=*/true, loc);
  const FunctionDecl *canonical = callee->getCanonicalDecl();
  if (std::find(customDecls.begin(), customDecls.end(), canonical) == customDecls.end()) {
    customDecls.push_back(canonical);
    customs.push_back(sig);
  }
}

// A call of a custom function that writes arrays is lowered at statement
// level (effectCall, as for a differentiable callee) and read back here.
Expr *Lowerer::lowerCustomCall(const CallExpr *c, const FunctionDecl *callee,
                               const Env &env) {
  SourceLocation loc = c->getBeginLoc();
  std::string name = callee->getNameAsString();
  registerCustom(c, callee);
  if (calleeWritesArrays(callee)) {
    auto it = effectValues.find(c);
    if (it == effectValues.end())
      fail(loc, "call to CHAD_CUSTOM function '" + name + "', which writes arrays, must "
                "be a statement of its own or the value of an assignment or declaration");
    return dup(arena, it->second);
  }
  Signature sig = customSignature(callee, loc);
  std::vector<Expr *> args = lowerCallArgs(c, callee, env);
  Expr *call = ex_call(arena, name.c_str(), (int)args.size(), args.data());
  call->type = sig.ret;
  return at(call, loc);
}

} // namespace lowering_detail
} // namespace chad
