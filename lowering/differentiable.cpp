// differentiable.cpp: see differentiable.h.
#include "lowering/differentiable.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"

namespace chad {

static bool hasMark(const clang::FunctionDecl *fd) {
  for (const auto *a : fd->specific_attrs<clang::AnnotateAttr>())
    if (a->getAnnotation() == kDifferentiableAnnotation)
      return true;
  return false;
}

bool isDifferentiable(const clang::FunctionDecl *fd) {
  // Inheritance normally puts the mark on every later redeclaration; looking
  // at all of them also covers a mark that only an earlier one carries.
  for (const clang::FunctionDecl *r : fd->redecls())
    if (hasMark(r))
      return true;
  return false;
}

} // namespace chad
