// differentiable.h: which functions the user marked differentiable.
//
// Requires: the plugin's attribute handler (plugin/attribute.cpp) marks a
// function by attaching an AnnotateAttr with kDifferentiableAnnotation.
// Guarantees: isDifferentiable sees the mark on any redeclaration, so a
// prototype with the attribute marks the definition that follows it.
#ifndef CHAD_LOWERING_DIFFERENTIABLE_H
#define CHAD_LOWERING_DIFFERENTIABLE_H

namespace clang {
class FunctionDecl;
}

namespace chad {

// An implicit annotation rather than a plugin-side set: Sema copies it to
// later redeclarations for free, and it never reaches the object file.
inline constexpr const char *kDifferentiableAnnotation = "chad.differentiable";

bool isDifferentiable(const clang::FunctionDecl *fd);

} // namespace chad

#endif
