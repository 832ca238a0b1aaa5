// locations.h: source positions between Clang and the IR.
//
// Requires: one SourceLocs per translation unit, living as long as the
// module whose arena it allocates file names in.
// Guarantees: toIR gives the presumed position (honouring #line) that a user
// sees in clang's own diagnostics; toClang maps any Loc that toIR produced
// back to the clang location, so that errors the C core reports (with an IR
// Loc) are shown with clang's caret and source line.
#ifndef CHAD_LOWERING_LOCATIONS_H
#define CHAD_LOWERING_LOCATIONS_H

#include <map>
#include <string>
#include <tuple>

#include "clang/Basic/SourceLocation.h"

extern "C" {
#include "ir/ir.h"
}

namespace clang {
class SourceManager;
}

namespace chad {

class SourceLocs {
public:
  SourceLocs(const clang::SourceManager &sm, Arena *arena)
      : sm(sm), arena(arena) {}

  Loc toIR(clang::SourceLocation loc);
  // An invalid location when `loc` did not come from toIR.
  clang::SourceLocation toClang(const Loc &loc) const;

private:
  const char *intern(const std::string &file);

  const clang::SourceManager &sm;
  Arena *arena;
  std::map<std::string, const char *> files;
  std::map<std::tuple<std::string, int, int>, clang::SourceLocation> back;
};

} // namespace chad

#endif
