// attribute.cpp: the `differentiable` attribute.
//
// Requires: clang's plugin attribute API (clang/Sema/ParsedAttr.h), 14 on;
// the C2x syntax is called C23 from clang 17.
// Guarantees: `__attribute__((differentiable))`, `[[chad::differentiable]]`
// (C2x) and the same in C++11 syntax mark a function declaration with the
// annotation that lowering/differentiable.h looks for; on anything else the
// attribute is ignored with a warning (which -Werror turns into an error).
#include "lowering/differentiable.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/Basic/Version.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"

namespace chad {
namespace {

void warnIgnored(clang::Sema &sema, const clang::ParsedAttr &attr) {
  unsigned id = sema.getDiagnostics().getCustomDiagID(
      clang::DiagnosticsEngine::Warning,
      "'differentiable' attribute only applies to functions; ignored");
  sema.Diag(attr.getLoc(), id);
}

class DifferentiableAttrInfo : public clang::ParsedAttrInfo {
public:
  DifferentiableAttrInfo() {
    static constexpr Spelling spellings[] = {
        {clang::ParsedAttr::AS_GNU, "differentiable"},
#if CLANG_VERSION_MAJOR >= 17
        {clang::ParsedAttr::AS_C23, "chad::differentiable"},
#else
        {clang::ParsedAttr::AS_C2x, "chad::differentiable"},
#endif
        {clang::ParsedAttr::AS_CXX11, "chad::differentiable"},
    };
    Spellings = spellings;
  }

  bool diagAppertainsToDecl(clang::Sema &sema, const clang::ParsedAttr &attr,
                            const clang::Decl *decl) const override {
    if (llvm::isa<clang::FunctionDecl>(decl))
      return true;
    warnIgnored(sema, attr);
    return false;
  }

  bool diagAppertainsToStmt(clang::Sema &sema, const clang::ParsedAttr &attr,
                            const clang::Stmt *) const override {
    warnIgnored(sema, attr);
    return false;
  }

  AttrHandling
  handleDeclAttribute(clang::Sema &sema, clang::Decl *decl,
                      const clang::ParsedAttr &attr) const override {
    decl->addAttr(clang::AnnotateAttr::CreateImplicit(
        sema.Context, kDifferentiableAnnotation, nullptr, 0, attr.getRange()));
    return AttributeApplied;
  }
};

} // namespace
} // namespace chad

static clang::ParsedAttrInfoRegistry::Add<chad::DifferentiableAttrInfo>
    registerAttribute("differentiable",
                      "marks a C function for differentiation by chad");
