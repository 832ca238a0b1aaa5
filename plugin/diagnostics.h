// diagnostics.h: the plugin's error messages.
//
// Requires: the DiagnosticsEngine of the compilation.
// Guarantees: every message starts with "chad: ", is an error (the compile
// fails and CodeGen writes nothing) and is shown at the given location with
// clang's caret; an invalid location still gives a message, without one.
#ifndef CHAD_PLUGIN_DIAGNOSTICS_H
#define CHAD_PLUGIN_DIAGNOSTICS_H

#include "clang/Basic/Diagnostic.h"
#include "llvm/ADT/StringRef.h"

namespace chad {

class Reporter {
public:
  explicit Reporter(clang::DiagnosticsEngine &engine);

  // "chad: cannot differentiate 'f': <what>": f is outside the subset.
  void cannotDifferentiate(clang::SourceLocation loc, llvm::StringRef function,
                           llvm::StringRef what);
  // "chad: internal error while differentiating 'f': <what>": a bug of chad,
  // reported instead of crashing clang.
  void internalError(clang::SourceLocation loc, llvm::StringRef function,
                     llvm::StringRef what);
  // "chad: <what>"
  void error(clang::SourceLocation loc, llvm::StringRef what);
  // Has clang itself (not chad) reported an error in this compilation? Then
  // function bodies may hold recovery nodes that lowering must not see.
  bool clangReportedErrors() const;

private:
  clang::DiagnosticsEngine &engine;
  unsigned cannotId, internalId, plainId;
  unsigned issued = 0; // errors chad reported
};

} // namespace chad

#endif
