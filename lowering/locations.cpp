// locations.cpp: see locations.h.
#include "lowering/locations.h"

#include "clang/Basic/SourceManager.h"

namespace chad {

const char *SourceLocs::intern(const std::string &file) {
  auto it = files.find(file);
  if (it != files.end())
    return it->second;
  const char *copy = arena_strdup(arena, file.c_str());
  files.emplace(file, copy);
  return copy;
}

Loc SourceLocs::toIR(clang::SourceLocation loc) {
  Loc out{};
  if (loc.isInvalid())
    return out;
  // Inside a macro, the user's position is where the macro was used.
  clang::SourceLocation fileLoc = sm.getFileLoc(loc);
  clang::PresumedLoc p = sm.getPresumedLoc(fileLoc);
  if (p.isInvalid())
    return out;
  out.file = intern(p.getFilename());
  out.line = (int)p.getLine();
  out.col = (int)p.getColumn();
  back.emplace(std::make_tuple(std::string(out.file), out.line, out.col), loc);
  return out;
}

clang::SourceLocation SourceLocs::toClang(const Loc &loc) const {
  if (!loc.file || loc.line == 0)
    return {};
  auto it =
      back.find(std::make_tuple(std::string(loc.file), loc.line, loc.col));
  return it == back.end() ? clang::SourceLocation() : it->second;
}

} // namespace chad
