// options.cpp: see options.h.
#include "plugin/options.h"

namespace chad {

// The value of `arg` if it is `key=value`.
static bool valueOf(const std::string &arg, const std::string &key,
                    std::string &value) {
  std::string prefix = key + "=";
  if (arg.compare(0, prefix.size(), prefix) != 0)
    return false;
  value = arg.substr(prefix.size());
  return true;
}

bool parsePluginArg(const std::string &arg, PluginOptions &options,
                    std::string &error) {
  std::string value;
  if (arg == "dump") {
    options.dumpAll = true;
    return true;
  }
  if (arg == "forward-only" || arg == "reverse-only") {
    (arg == "forward-only" ? options.forwardOnly : options.reverseOnly) = true;
    if (!(options.forwardOnly && options.reverseOnly))
      return true;
    error = "chad: plugin arguments 'forward-only' and 'reverse-only' exclude "
            "each other (give neither to make both f_fwd and f_rev)";
    return false;
  }
  if (arg == "recompute") {
    options.recompute = true;
    return true;
  }
  if (arg == "no-fuse") {
    options.noFuse = true;
    return true;
  }
  if (valueOf(arg, "dump", value) && !value.empty()) {
    options.dumpOnly.insert(value);
    return true;
  }
  if (valueOf(arg, "emit-dir", value) && !value.empty()) {
    options.emitDir = value;
    return true;
  }
  if (valueOf(arg, "header", value) && !value.empty()) {
    options.headerFile = value;
    return true;
  }
  error = "chad: unknown plugin argument '" + arg + "'";
  return false;
}

} // namespace chad
