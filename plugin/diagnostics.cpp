// diagnostics.cpp: see diagnostics.h.
#include "plugin/diagnostics.h"

namespace chad {

Reporter::Reporter(clang::DiagnosticsEngine &engine) : engine(engine) {
  using Level = clang::DiagnosticsEngine::Level;
  cannotId = engine.getCustomDiagID(Level::Error,
                                    "chad: cannot differentiate '%0': %1");
  internalId = engine.getCustomDiagID(
      Level::Error, "chad: internal error while differentiating '%0': %1");
  plainId = engine.getCustomDiagID(Level::Error, "chad: %0");
}

void Reporter::cannotDifferentiate(clang::SourceLocation loc,
                                   llvm::StringRef function,
                                   llvm::StringRef what) {
  engine.Report(loc, cannotId) << function << what;
  issued++;
}

void Reporter::internalError(clang::SourceLocation loc,
                             llvm::StringRef function, llvm::StringRef what) {
  engine.Report(loc, internalId) << function << what;
  issued++;
}

void Reporter::error(clang::SourceLocation loc, llvm::StringRef what) {
  engine.Report(loc, plainId) << what;
  issued++;
}

bool Reporter::clangReportedErrors() const {
  const clang::DiagnosticConsumer *client = engine.getClient();
  return client && client->getNumErrors() > issued;
}

} // namespace chad
