// consumer.h: the plugin's ASTConsumer, one per translation unit.
//
// Requires: registered to run before the main action (so its
// HandleTranslationUnit runs before CodeGen's), with the options parsed.
// Guarantees: for every function definition marked differentiable, either
//  * its derivatives (emit/emit.h) are spliced into the TU: the prototypes
//    right after the function, the definitions right after the function or,
//    when it calls a differentiable function defined later, right after the
//    function that completes what it needs; or
//  * a located "chad: ..." error explains why not, and the compile fails.
// With header=FILE, a TU without errors also writes FILE, which declares
// the f_fwd/f_rev of its non-static functions for other TUs (C and C++).
// The C core sees one Module per TU, in which functions accumulate so that a
// caller finds its callees; no function is differentiated before its
// callees, and recursion is an error. CHAD_CUSTOM callees join the module
// as body-less signatures (Func.is_custom): nothing waits for them.
// A definition marked both differentiable and CHAD_CUSTOM is an error.
#ifndef CHAD_PLUGIN_CONSUMER_H
#define CHAD_PLUGIN_CONSUMER_H

#include <map>
#include <set>
#include <string>
#include <vector>

#include "lowering/locations.h"
#include "lowering/lower.h"
#include "plugin/diagnostics.h"
#include "plugin/options.h"
#include "plugin/splice.h"
#include "clang/AST/ASTConsumer.h"

extern "C" {
#include "ir/ir.h"
}

namespace clang {
class CompilerInstance;
class FunctionDecl;
} // namespace clang

namespace chad {

class ChadConsumer : public clang::ASTConsumer {
public:
  ChadConsumer(clang::CompilerInstance &ci, PluginOptions options,
               std::string generatedName, std::string inputName);
  ~ChadConsumer() override;

  bool HandleTopLevelDecl(clang::DeclGroupRef group) override;
  void HandleTranslationUnit(clang::ASTContext &ctx) override;

private:
  enum class Status {
    Waiting, // lowered; some callee is not differentiated yet
    Done,    // derivatives spliced (or being spliced)
    Failed,  // an error was reported, here or in a callee
  };
  enum class Readiness { Ready, Blocked, Doomed };

  // An annotated function whose body has been seen.
  struct Unit {
    const clang::FunctionDecl *decl = nullptr; // the definition
    Func *func = nullptr;                      // in `module`; null if Failed
                                               // while lowering
    std::vector<CalleeUse> callees;
    Status status = Status::Failed;
    std::string prototypes; // for the dump
    // A function with structs (lowering/structs.h): f_fwd/f_rev wrap the
    // derivatives of the static flat function `func`; their definitions
    // follow its, and f's own linkage decides the header.
    std::string wrappers;
    bool isStatic = false;
  };

public:
  // Both run the whole treatment of one annotated definition; the second
  // on a thread with a deep stack (see consumer.cpp).
  void handleDefinition(const clang::FunctionDecl *fd);
  void handleOnDeepStack(const clang::FunctionDecl *fd);

private:
  void addCustoms(const std::vector<Signature> &customs);
  std::string prototypesOf(Func *f);
  std::string prototypesOfSignature(const Signature &sig);
  void rejectRecursion(Unit &u);
  bool findCallPath(const clang::FunctionDecl *from,
                    const clang::FunctionDecl *to,
                    std::vector<const clang::FunctionDecl *> &path,
                    std::set<const clang::FunctionDecl *> &visited);
  Readiness readiness(const Unit &u) const;
  std::string differentiateReady();
  std::string differentiate(Unit &u);
  void reportCoreError(const Unit &u, const Diag &err, bool internal);
  void splice(const clang::FunctionDecl *fd, const std::string &text);
  void writeGeneratedFile();
  std::string headerText() const;
  void writeHeaderFile();

  clang::CompilerInstance &ci;
  PluginOptions options;
  Module *module;
  SourceLocs locs;
  Splicer splicer;
  Reporter report;
  std::map<const clang::FunctionDecl *, Unit> units; // by canonical decl
  std::vector<const clang::FunctionDecl *> order;    // in definition order
  std::string inputName;                             // for comments
  bool parserMissingReported = false;
};

} // namespace chad

#endif
