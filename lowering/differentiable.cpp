// differentiable.cpp: see differentiable.h.
#include "lowering/differentiable.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"

namespace chad {

static bool hasAnnotation(const clang::Decl *d, const char *what) {
  for (const auto *a : d->specific_attrs<clang::AnnotateAttr>())
    if (a->getAnnotation() == what)
      return true;
  return false;
}

bool isDifferentiable(const clang::FunctionDecl *fd) {
  // Inheritance normally puts the mark on every later redeclaration; looking
  // at all of them also covers a mark that only an earlier one carries.
  for (const clang::FunctionDecl *r : fd->redecls())
    if (hasAnnotation(r, kDifferentiableAnnotation))
      return true;
  return false;
}

bool isCustom(const clang::FunctionDecl *fd) {
  for (const clang::FunctionDecl *r : fd->redecls())
    if (hasAnnotation(r, kCustomAnnotation))
      return true;
  return false;
}

bool isMarkedInOut(const clang::ParmVarDecl *p) { return hasAnnotation(p, kInOutAnnotation); }

bool isMarkedInactive(const clang::ParmVarDecl *p) {
  const auto *fd = llvm::dyn_cast<clang::FunctionDecl>(p->getDeclContext());
  unsigned index = p->getFunctionScopeIndex();
  auto marked = [](const clang::ParmVarDecl *q) {
    return hasAnnotation(q, kInactiveAnnotation);
  };
  if (!fd)
    return marked(p);
  // parameter attributes are not merged across redeclarations
  for (const clang::FunctionDecl *r : fd->redecls())
    if (index < r->getNumParams() && marked(r->getParamDecl(index)))
      return true;
  return false;
}

} // namespace chad
