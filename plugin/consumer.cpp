// consumer.cpp: see consumer.h.
//
// The order of work for each annotated definition f, when the parser hands
// it over:
//   1. lower f at once, so that its own errors appear where the user expects
//      them, and put it in the module;
//   2. splice f's prototypes right after f (they need only its signature);
//   3. differentiate every function whose callees are all done, f first if
//      it can be, and splice their definitions after f's prototypes.
// A function waiting for a callee is checked and differentiated only when
// the callee is, because the checker and AD look callees up in the module.
#include "plugin/consumer.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <cstdio>
#include <cstdlib>
#include <set>

#include <pthread.h>

#include "lowering/differentiable.h"
#include "clang/AST/Decl.h"
#include "clang/Frontend/CompilerInstance.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

extern "C" {
#include "ad/ad.h"
#include "emit/emit.h"
}

namespace chad {

// A string malloc'd by the C core, as a std::string; frees it.
static std::string take(char *s) {
  std::string out = s ? s : "";
  free(s);
  return out;
}

// Func.classes for a signature, in the module's arena (NULL: all scalars).
static ParamClass *classesOf(Module *m, const Signature &sig) {
  if (sig.classes.empty())
    return nullptr;
  auto *out = static_cast<ParamClass *>(
      arena_alloc(m->arena, sizeof(ParamClass) * sig.classes.size()));
  std::copy(sig.classes.begin(), sig.classes.end(), out);
  return out;
}

static long long *rowsOf(Module *m, const Signature &sig) {
  if (sig.rows.empty())
    return nullptr;
  auto *out = static_cast<long long *>(arena_alloc(m->arena, sizeof(long long) * sig.rows.size()));
  std::copy(sig.rows.begin(), sig.rows.end(), out);
  return out;
}

static std::string nameOf(const clang::FunctionDecl *fd) {
  return fd->getNameAsString();
}

ChadConsumer::ChadConsumer(clang::CompilerInstance &ci, PluginOptions options,
                           std::string generatedName, std::string inputName)
    : ci(ci), options(std::move(options)), module(module_new()),
      locs(ci.getSourceManager(), module->arena),
      splicer(ci, std::move(generatedName), inputName),
      report(ci.getDiagnostics()), inputName(std::move(inputName)) {
  setDirections({!this->options.reverseOnly, !this->options.forwardOnly});
}

ChadConsumer::~ChadConsumer() { module_free(module); }

// Lowering follows the C statements recursively (a function of 10^4
// statements nests 10^4 continuations deep), so the work runs on a thread
// with a stack far deeper than clang's own; the main thread waits. Only
// address space is reserved: pages are used as the recursion needs them.
namespace {
struct DeepCall {
  ChadConsumer *self;
  const clang::FunctionDecl *fd;
};

void *runDeep(void *arg) {
  auto *call = static_cast<DeepCall *>(arg);
  call->self->handleDefinition(call->fd);
  return nullptr;
}
} // namespace

void ChadConsumer::handleOnDeepStack(const clang::FunctionDecl *fd) {
  const size_t stack = size_t(1) << 30;
  DeepCall call{this, fd};
  pthread_attr_t attr;
  pthread_t thread;
  if (pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, stack) == 0 &&
      pthread_create(&thread, &attr, runDeep, &call) == 0) {
    pthread_join(thread, nullptr);
    pthread_attr_destroy(&attr);
    return;
  }
  handleDefinition(fd); // no thread to be had: the ordinary stack
}

bool ChadConsumer::HandleTopLevelDecl(clang::DeclGroupRef group) {
  for (clang::Decl *d : group) {
    const auto *fd = llvm::dyn_cast<clang::FunctionDecl>(d);
    if (fd && fd->doesThisDeclarationHaveABody() && !fd->isInvalidDecl() &&
        isDifferentiable(fd))
      handleOnDeepStack(fd);
  }
  return true;
}

void ChadConsumer::handleDefinition(const clang::FunctionDecl *fd) {
  const clang::FunctionDecl *key = fd->getCanonicalDecl();
  if (units.count(key)) // a redefinition: Sema reports it
    return;
  // After an error of clang's, bodies may hold recovery nodes, and the
  // compilation fails anyway: lowering them could only add confusion.
  if (report.clangReportedErrors())
    return;
  if (isCustom(fd)) {
    // Two sources of derivatives for one function: the user must choose.
    report.cannotDifferentiate(
        fd->getLocation(), nameOf(fd),
        "'" + nameOf(fd) + "' is marked both CHAD_CUSTOM and differentiable: "
        "keep CHAD_CUSTOM to use your own derivatives, or the differentiable "
        "mark to have chad's");
    Unit u;
    u.decl = fd;
    units[key] = u; // Failed: its callers fail with it
    order.push_back(key);
    return;
  }
  LoweredFunction lowered = lowerFunction(fd, module->arena, locs);
  addCustoms(lowered.customs);
  if (lowered.error && !lowered.error->what.empty())
    report.cannotDifferentiate(lowered.error->loc, nameOf(fd),
                               lowered.error->what);

  Unit u;
  u.decl = fd;
  u.callees = lowered.callees;
  if (lowered.body) {
    const Signature &sig = lowered.sig;
    u.func = module_add(module, sig.name.c_str(), (int)sig.params.size(),
                        const_cast<Var **>(sig.params.data()), sig.ret,
                        lowered.body);
    u.func->loc = sig.loc;
    u.func->is_static = sig.isStatic;
    u.func->classes = classesOf(module, sig);
    u.func->rows = rowsOf(module, sig);
    u.status = Status::Waiting;
    u.prototypes = prototypesOf(u.func);
  } else if (lowered.signatureOk && !lowered.hasWrappers()) {
    // The body failed, the signature did not: its prototypes still spare
    // the user's later calls of f_fwd/f_rev a second, confusing error.
    u.prototypes = prototypesOfSignature(lowered.sig);
  }
  u.isStatic = !fd->isExternallyVisible();
  if (lowered.hasWrappers()) {
    // the contract's prototypes, not the flat function's
    u.prototypes.clear();
    for (int rev = 0; rev < 2; rev++)
      if (rev ? !options.forwardOnly : !options.reverseOnly) {
        u.prototypes += lowered.wrapperPrototypes[rev];
        u.wrappers += lowered.wrapperDefinitions[rev];
      }
    u.wrappers = lowered.wrapperPreamble + u.wrappers;
  }
  units[key] = u;
  order.push_back(key);
  if (units[key].status == Status::Waiting)
    rejectRecursion(units[key]);

  std::string text = units[key].prototypes + differentiateReady();
  if (!text.empty())
    splice(fd, text);
}

// The CHAD_CUSTOM functions a definition calls join the module once each,
// without a body: AD finds their signatures there (ad/custom.c).
void ChadConsumer::addCustoms(const std::vector<Signature> &customs) {
  for (const Signature &sig : customs) {
    if (module_find(module, sig.name.c_str()))
      continue;
    Func *g = module_add(module, sig.name.c_str(), (int)sig.params.size(),
                         const_cast<Var **>(sig.params.data()), sig.ret, nullptr);
    g->loc = sig.loc;
    g->is_static = sig.isStatic;
    g->is_custom = true;
    g->classes = classesOf(module, sig);
  }
}

std::string ChadConsumer::prototypesOf(Func *f) {
  return take(options.forwardOnly   ? emit_prototypes_forward(module, f)
              : options.reverseOnly ? emit_prototypes_reverse(module, f)
                                    : emit_prototypes(module, f));
}

// Prototypes of a function that stays out of the module: made in a scratch
// module, so that callers can never find a function without a body.
std::string ChadConsumer::prototypesOfSignature(const Signature &sig) {
  Module *scratch = module_new();
  Func *f = module_add(scratch, sig.name.c_str(), (int)sig.params.size(),
                       const_cast<Var **>(sig.params.data()), sig.ret, nullptr);
  f->loc = sig.loc;
  f->is_static = sig.isStatic;
  f->classes = classesOf(scratch, sig);
  f->rows = rowsOf(scratch, sig);
  std::string text = take(options.forwardOnly   ? emit_prototypes_forward(scratch, f)
                          : options.reverseOnly ? emit_prototypes_reverse(scratch, f)
                                                : emit_prototypes(scratch, f));
  module_free(scratch);
  return text;
}

// Recursion can only close through the function just defined: the calls of
// all others were checked when they were defined.
void ChadConsumer::rejectRecursion(Unit &u) {
  const clang::FunctionDecl *self = u.decl->getCanonicalDecl();
  for (const CalleeUse &call : u.callees) {
    std::vector<const clang::FunctionDecl *> path{call.callee};
    std::set<const clang::FunctionDecl *> visited;
    if (call.callee != self && !findCallPath(call.callee, self, path, visited))
      continue;
    std::string chain = "'" + nameOf(u.decl) + "' calls itself";
    if (call.callee != self) {
      chain = "'" + nameOf(u.decl) + "' calls '" + nameOf(path[0]) + "'";
      for (size_t i = 1; i < path.size(); i++)
        chain += ", which calls '" + nameOf(path[i]) + "'";
    }
    report.cannotDifferentiate(call.loc, nameOf(u.decl),
                               "recursion (" + chain + ")");
    u.status = Status::Failed;
    return;
  }
}

// Depth-first through the calls of waiting functions; on success `path`
// ends with `to`. `visited` keeps shared callees from being searched twice.
bool ChadConsumer::findCallPath(
    const clang::FunctionDecl *from, const clang::FunctionDecl *to,
    std::vector<const clang::FunctionDecl *> &path,
    std::set<const clang::FunctionDecl *> &visited) {
  auto it = units.find(from);
  if (it == units.end() || it->second.status != Status::Waiting ||
      !visited.insert(from).second)
    return false;
  for (const CalleeUse &call : it->second.callees) {
    path.push_back(call.callee);
    if (call.callee == to || findCallPath(call.callee, to, path, visited))
      return true;
    path.pop_back();
  }
  return false;
}

ChadConsumer::Readiness ChadConsumer::readiness(const Unit &u) const {
  Readiness r = Readiness::Ready;
  for (const CalleeUse &call : u.callees) {
    auto it = units.find(call.callee);
    if (it == units.end())
      r = Readiness::Blocked; // declared, not defined yet
    else if (it->second.status == Status::Failed)
      return Readiness::Doomed;
    else if (it->second.status == Status::Waiting)
      r = Readiness::Blocked;
  }
  return r;
}

// Differentiates, in definition order, every waiting function whose callees
// are done, until none is left; returns their definitions.
std::string ChadConsumer::differentiateReady() {
  std::string text;
  for (bool progress = true; progress;) {
    progress = false;
    for (const clang::FunctionDecl *key : order) {
      Unit &u = units[key];
      if (u.status != Status::Waiting)
        continue;
      Readiness r = readiness(u);
      if (r == Readiness::Blocked)
        continue;
      progress = true;
      if (r == Readiness::Doomed)
        u.status = Status::Failed; // the callee's error says why
      else
        text += differentiate(u);
    }
  }
  return text;
}

std::string ChadConsumer::differentiate(Unit &u) {
  std::string name = nameOf(u.decl);
  bool dump = options.wantsDump(name);
  u.status = Status::Failed;
  Diag err = {};
  if (!check_func(module, u.func, CHECK_SOURCE, &err)) {
    // ad_differentiate prints the lowered IR first in its dump; it is
    // printed here only when AD never gets to run.
    if (dump) {
      fprintf(stderr, "== %s: lowered IR ==\n", name.c_str());
      print_func(stderr, u.func);
      fputc('\n', stderr);
    }
    reportCoreError(u, err, /*internal=*/true);
    return "";
  }
  AdOptions ad = {};
  ad.dump = dump ? stderr : nullptr;
  ad.forward_only = options.forwardOnly;
  ad.reverse_only = options.reverseOnly;
  ad.recompute = options.recompute;
  ad.no_fuse = options.noFuse;
  if (!ad_differentiate(module, u.func, &ad, &err)) {
    reportCoreError(u, err, /*internal=*/false);
    return "";
  }
  char *definitions = options.forwardOnly   ? emit_definitions_forward(module, u.func, &err)
                      : options.reverseOnly ? emit_definitions_reverse(module, u.func, &err)
                                            : emit_definitions(module, u.func, &err);
  if (!definitions) {
    reportCoreError(u, err, /*internal=*/false);
    return "";
  }
  std::string text = take(definitions) + u.wrappers;
  if (dump) {
    fprintf(stderr, "== %s: emitted C ==\n%s%s\n", name.c_str(),
            u.prototypes.c_str(), text.c_str());
  }
  u.status = Status::Done;
  return text;
}

// The core locates its messages with IR Locs; lowering made them from clang
// locations, which map back. Anything else is shown at the function.
void ChadConsumer::reportCoreError(const Unit &u, const Diag &err,
                                   bool internal) {
  clang::SourceLocation loc = locs.toClang(err.loc);
  if (loc.isInvalid())
    loc = u.decl->getLocation();
  std::string what = err.msg[0] ? err.msg : "unknown error";
  if (internal)
    report.internalError(loc, nameOf(u.decl),
                         "the lowered IR does not type-check: " + what);
  else
    report.cannotDifferentiate(loc, nameOf(u.decl), what);
}

void ChadConsumer::splice(const clang::FunctionDecl *fd,
                          const std::string &text) {
  if (splicer.spliceAfter(fd, text) || parserMissingReported)
    return;
  parserMissingReported = true;
  report.error(fd->getLocation(),
               "cannot insert derivatives: clang's parser is out of reach "
               "(unsupported clang version?)");
}

void ChadConsumer::HandleTranslationUnit(clang::ASTContext &) {
  // Whatever still waits needs a callee that was declared differentiable
  // but never defined: the file is over, nothing can come.
  for (const clang::FunctionDecl *key : order) {
    Unit &u = units[key];
    if (u.status != Status::Waiting)
      continue;
    for (const CalleeUse &call : u.callees) {
      if (units.count(call.callee))
        continue;
      report.cannotDifferentiate(
          call.loc, nameOf(u.decl),
          "'" + nameOf(call.callee) +
              "' is declared differentiable but not defined in this "
              "translation unit");
      u.status = Status::Failed;
      break;
    }
  }
  differentiateReady(); // only fails the functions waiting for those
  for (const clang::FunctionDecl *key : order)
    if (units[key].status == Status::Waiting)
      report.internalError(units[key].decl->getLocation(), nameOf(key),
                           "still waiting at the end of the file");
  if (!options.emitDir.empty())
    writeGeneratedFile();
  // A header of a TU that failed would declare what no object defines.
  if (!options.headerFile.empty() && !ci.getDiagnostics().hasErrorOccurred())
    writeHeaderFile();
}

// FILE's name as an include guard: CHAD_ then letters and digits, the rest
// as underscores (a_chad.h -> CHAD_A_CHAD_H).
static std::string guardOf(const std::string &path) {
  std::string guard = "CHAD_";
  for (char c : llvm::sys::path::filename(path).str())
    guard += std::isalnum((unsigned char)c) ? (char)std::toupper((unsigned char)c) : '_';
  return guard;
}

// The prototypes the plugin spliced, of functions callable from elsewhere:
// a static function's derivatives are static too. Their types are double,
// float, int and pointers to them, so the header needs no #include, except
// for functions with structs, whose types the includer must define first;
// it is the same text as in the TU, so the two cannot disagree.
std::string ChadConsumer::headerText() const {
  std::string guard = guardOf(options.headerFile);
  std::string text = "/* Generated by chad from " + inputName +
                     " (-fplugin-arg-chad-header): the derivatives it "
                     "defines. */\n#ifndef " + guard + "\n#define " + guard +
                     "\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n";
  for (const clang::FunctionDecl *key : order) {
    const Unit &u = units.at(key);
    if (u.status != Status::Done || u.isStatic)
      continue;
    text += "\n/* derivatives of '" + nameOf(u.decl) + "' */\n" + u.prototypes;
  }
  return text + "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
}

void ChadConsumer::writeHeaderFile() {
  const std::string &path = options.headerFile;
  // Its directory is made, as emit-dir's is: a build system names the
  // header in a directory of generated files that nothing else creates.
  llvm::StringRef dir = llvm::sys::path::parent_path(path);
  std::error_code ec;
  if (!dir.empty())
    ec = llvm::sys::fs::create_directories(dir);
  std::unique_ptr<llvm::raw_fd_ostream> out;
  if (!ec)
    out = std::make_unique<llvm::raw_fd_ostream>(path, ec, llvm::sys::fs::OF_Text);
  if (!ec) {
    *out << headerText();
    out->close();
    ec = out->error();
  }
  if (ec)
    report.error(clang::SourceLocation(),
                 "cannot write '" + path + "': " + ec.message());
}

void ChadConsumer::writeGeneratedFile() {
  const std::string &path = splicer.generatedName();
  std::error_code ec = llvm::sys::fs::create_directories(options.emitDir);
  if (!ec) {
    llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_Text);
    if (!ec) {
      out << splicer.allText();
      out.close();
      ec = out.error();
    }
  }
  if (ec)
    report.error(clang::SourceLocation(),
                 "cannot write '" + path + "': " + ec.message());
}

} // namespace chad
