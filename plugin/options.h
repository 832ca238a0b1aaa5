// options.h: the plugin's arguments (-fplugin-arg-chad-<arg>).
//
// Requires: nothing.
// Guarantees: parsePluginArg accepts exactly
//   dump           print every pipeline stage of every function to stderr
//   dump=NAME      the same for function NAME only (repeatable)
//   emit-dir=DIR   also write the generated C to DIR/<input file>.chad.c
//   header=FILE    write FILE, a header declaring the TU's f_fwd/f_rev
//   forward-only   make f_fwd only (no f_rev): for code whose reverse mode
//                  is not built yet, and for users who need only tangents
//   reverse-only   make f_rev only (no f_fwd): for users who need only
//                  gradients (about half the generated code)
//   recompute      loops in f_rev never store residuals: each reverse step
//                  recomputes its step (less memory, more time; DESIGN 8.22)
//   no-fuse        consecutive loops over one range stay apart (DESIGN 8.57)
// and explains anything else in `error`, so the plugin can refuse to run
// instead of silently ignoring a typo.
#ifndef CHAD_PLUGIN_OPTIONS_H
#define CHAD_PLUGIN_OPTIONS_H

#include <set>
#include <string>

namespace chad {

struct PluginOptions {
  bool dumpAll = false;
  std::set<std::string> dumpOnly;
  std::string emitDir;    // empty: write nothing
  std::string headerFile; // empty: write no header
  bool forwardOnly = false; // f_fwd only, no f_rev
  bool reverseOnly = false; // f_rev only, no f_fwd
  bool recompute = false;   // loops never store residuals in f_rev
  bool noFuse = false;      // consecutive loops are never fused

  bool wantsDump(const std::string &function) const {
    return dumpAll || dumpOnly.count(function) != 0;
  }
};

bool parsePluginArg(const std::string &arg, PluginOptions &options,
                    std::string &error);

} // namespace chad

#endif
