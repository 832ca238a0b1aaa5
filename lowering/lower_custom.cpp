// lower_custom.cpp: calls to CHAD_CUSTOM functions (DESIGN.md section 1).
//
// Requires: `callee` is marked CHAD_CUSTOM (isCustom). Guarantees: either
// an ordinary IR call of the callee, whose IR signature (Func.is_custom, no
// body) is recorded in `customs` for the module, after checking that the
// user declared g_fwd and g_rev before the call with exactly the signatures
// the contract gives g; or a located error that names the call and says
// what was expected. The generated code calls g_fwd and g_rev by name and
// declares nothing: the user's declarations, visible where the call is, are
// visible where the derivatives are spliced (after the caller), and their
// definitions may come anywhere, in this file or another.
#include "lowering/differentiable.h"
#include "lowering/lowerer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Type.h"
#include "clang/Basic/SourceManager.h"

namespace chad {
namespace lowering_detail {

// A parameter's name in messages and in the IR: unnamed parameters of a
// prototype (`double bessel(double);`) are numbered as in C's p1, p2...
static std::string paramName(const clang::ParmVarDecl *p, unsigned i) {
  std::string n = p->getNameAsString();
  return n.empty() ? "p" + std::to_string(i + 1) : n;
}

// `T name` as C writes a declaration (no space after a '*').
static std::string declText(QualType t, const std::string &name) {
  std::string s = t.getAsString();
  return s + (!s.empty() && s.back() == '*' ? "" : " ") + name;
}

Signature Lowerer::customSignature(const FunctionDecl *g,
                                   SourceLocation callLoc) {
  std::string name = g->getNameAsString();
  Signature s;
  s.name = name;
  s.loc = locs.toIR(g->getLocation());
  s.isStatic = !g->isExternallyVisible();
  s.ret = irScalarType(g->getReturnType());
  if (!s.ret || !type_is_float(s.ret))
    fail(callLoc, "CHAD_CUSTOM function '" + name + "' returns '" +
                      g->getReturnType().getAsString() +
                      "': a custom function must return double or float");
  std::vector<ParamClass> classes;
  bool plain = true; // every parameter an active scalar or an integer
  for (unsigned i = 0; i < g->getNumParams(); i++) {
    const clang::ParmVarDecl *p = g->getParamDecl(i);
    ParamClass cls;
    Type *t = nullptr;
    std::string problem;
    if (!classifyParam(p, cls, t, problem))
      fail(callLoc, "CHAD_CUSTOM function '" + name + "': " + problem);
    if (cls == PARAM_OUT_ARRAY || cls == PARAM_INOUT_ARRAY)
      fail(callLoc, "CHAD_CUSTOM function '" + name + "' writes array "
                    "parameter '" + paramName(p, i) + "': custom functions "
                    "with output arrays are not supported yet (make it "
                    "'const', or return the value)");
    if (isMarkedInactive(p) && type_is_active(t))
      cls = PARAM_INACTIVE;
    plain = plain && (cls == PARAM_ACTIVE_SCALAR ||
                      (cls == PARAM_INACTIVE && !type_is_active(t)));
    classes.push_back(cls);
    s.params.push_back(var_new(arena, paramName(p, i).c_str(), t));
  }
  if (!plain) // as lowering does for a definition: NULL when all scalars
    s.classes = classes;
  return s;
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
    if (cls == PARAM_ACTIVE_SCALAR)
      add(reverse ? ctx.getPointerType(t) : t, reverse ? n + "_b" : "d" + n);
    else if (reverse) // an input array's adjoint buffer is written
      add(ctx.getPointerType(t->getPointeeType().getUnqualifiedType()), n + "_b");
    else
      add(t, "d" + n);
  }
  if (reverse)
    add(ret, "ret_b");
  else
    add(ctx.getPointerType(ret), "d_ret");
  std::string expected = declText(ret, dname) + "(" + text + ")";

  const FunctionDecl *d = nullptr;
  for (clang::NamedDecl *nd : ctx.getTranslationUnitDecl()->lookup(
           clang::DeclarationName(&ctx.Idents.get(dname))))
    if (const auto *f = dyn_cast<FunctionDecl>(nd))
      d = f;
  if (!d || d->isInvalidDecl())
    fail(callLoc, "call to CHAD_CUSTOM function '" + gname + "', whose " +
                      (reverse ? "reverse" : "forward") + " derivative '" +
                      dname + "' is not declared before the call: declare "
                      "'" + expected + "' (DESIGN.md section 1)");
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
                      "'; the contract (DESIGN.md section 1) expects '" +
                      expected + "'");
  }
}

Expr *Lowerer::lowerCustomCall(const CallExpr *c, const FunctionDecl *callee,
                               const Env &env) {
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
  checkCustomDerivative(callee, sig, /*reverse=*/false, loc);
  checkCustomDerivative(callee, sig, /*reverse=*/true, loc);
  std::vector<Expr *> args = lowerCallArgs(c, callee, env);
  const FunctionDecl *canonical = callee->getCanonicalDecl();
  bool seen = false;
  for (const FunctionDecl *d : customDecls)
    seen = seen || d == canonical;
  if (!seen) {
    customDecls.push_back(canonical);
    customs.push_back(sig);
  }
  Expr *call = ex_call(arena, name.c_str(), (int)args.size(), args.data());
  call->type = sig.ret;
  return at(call, loc);
}

} // namespace lowering_detail
} // namespace chad
