// plugin.cpp: registration of the chad plugin with clang.
//
// Requires: loaded with `clang -fplugin=libchad.so`; arguments come as
// -fplugin-arg-chad-<arg> (the prefix is the registered name "chad", not the
// file name). The attribute is registered in attribute.cpp.
// Guarantees: the plugin runs before the main action, so derivatives are
// compiled in the same run (-c, -S, -emit-llvm, -fsyntax-only alike); an
// unknown argument is an error, never a silently ignored typo.
#include "plugin/consumer.h"
#include "plugin/options.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "llvm/Support/Path.h"

namespace chad {
namespace {

class ChadAction : public clang::PluginASTAction {
protected:
  std::unique_ptr<clang::ASTConsumer>
  CreateASTConsumer(clang::CompilerInstance &ci,
                    llvm::StringRef inFile) override {
    std::string input = llvm::sys::path::filename(inFile).str();
    if (input.empty() || input == "-")
      input = "stdin";
    // Named after the input, in emit-dir when given: the name diagnostics
    // and debug info use for the generated code is then a real file.
    llvm::SmallString<256> generated(options.emitDir);
    llvm::sys::path::append(generated, input + ".chad.c");
    return std::make_unique<ChadConsumer>(ci, options, generated.str().str(),
                                          input);
  }

  bool ParseArgs(const clang::CompilerInstance &ci,
                 const std::vector<std::string> &args) override {
    for (const std::string &arg : args) {
      std::string error;
      if (parsePluginArg(arg, options, error))
        continue;
      // Returning false drops the plugin; the error makes the compile fail
      // instead of going on without derivatives.
      clang::DiagnosticsEngine &diags = ci.getDiagnostics();
      diags.Report(diags.getCustomDiagID(clang::DiagnosticsEngine::Error, "%0"))
          << error;
      return false;
    }
    return true;
  }

  ActionType getActionType() override { return AddBeforeMainAction; }

private:
  PluginOptions options;
};

} // namespace
} // namespace chad

static clang::FrontendPluginRegistry::Add<chad::ChadAction>
    registerPlugin("chad", "differentiate C functions marked differentiable "
                           "(CHAD automatic differentiation)");
