// differentiable.h: which functions the user marked differentiable.
//
// Requires: the plugin's attribute handler (plugin/attribute.cpp) marks a
// function by attaching an AnnotateAttr with kDifferentiableAnnotation.
// Guarantees: isDifferentiable and isCustom see the mark on any
// redeclaration, so a prototype with the attribute marks the definition
// that follows it; isMarkedInactive sees a parameter's on any of them.
#ifndef CHAD_LOWERING_DIFFERENTIABLE_H
#define CHAD_LOWERING_DIFFERENTIABLE_H

namespace clang {
class FunctionDecl;
class ParmVarDecl;
}

namespace chad {

// An implicit annotation rather than a plugin-side set: Sema copies it to
// later redeclarations for free, and it never reaches the object file.
inline constexpr const char *kDifferentiableAnnotation = "chad.differentiable";

bool isDifferentiable(const clang::FunctionDecl *fd);

// CHAD_INACTIVE in chad.h: clang's own annotate attribute on a parameter,
// so that plain clang compiles the primal without the plugin.
inline constexpr const char *kInactiveAnnotation = "chad_inactive";

// On a leaf parameter the struct flattener makes for a written field of an
// array of structs: written data of a struct pointer follows the in-out
// rule (DESIGN 1) even where the body writes an element before reading it.
inline constexpr const char *kInOutAnnotation = "chad.inout";

bool isMarkedInOut(const clang::ParmVarDecl *p);

// Is the parameter marked inactive on any declaration of its function?
bool isMarkedInactive(const clang::ParmVarDecl *p);

// CHAD_CUSTOM in chad.h: clang's annotate attribute on a function
// declaration; the user writes its g_fwd and g_rev (DESIGN.md section 1).
inline constexpr const char *kCustomAnnotation = "chad_custom";

// Is the function marked CHAD_CUSTOM on any of its declarations?
bool isCustom(const clang::FunctionDecl *fd);

} // namespace chad

#endif
