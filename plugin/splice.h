// splice.h: putting generated C text into the translation unit being parsed.
//
// Requires: called from ASTConsumer::HandleTopLevelDecl for a function
// definition the parser has just finished, so that the parser's current
// token is the one right after the function's closing brace.
// Guarantees: the text is parsed next, before that token and the rest of the
// file, as if written right after the function: Sema checks it and CodeGen
// emits it, and later code can call what it declares. Diagnostics inside it
// point into one generated file (name given at construction): all spliced
// texts concatenated, each preceded by a comment line, which is exactly what
// allText() returns and what the plugin writes for emit-dir.
//
// How (docs: research/clang-plugin-mechanics.md, approach c): the parser has
// already lexed its one-token lookahead, so the text goes in as a new
// source buffer *under* a re-injected copy of that token, and the parser
// steps past its stale copy. No public API hands the Parser to a consumer:
// it is found through the preprocessor's code-completion handler, which the
// Parser's constructor always sets to itself.
#ifndef CHAD_PLUGIN_SPLICE_H
#define CHAD_PLUGIN_SPLICE_H

#include <string>

namespace clang {
class CompilerInstance;
class FunctionDecl;
class Parser;
} // namespace clang

namespace chad {

class Splicer {
public:
  Splicer(clang::CompilerInstance &ci, std::string generatedName,
          std::string inputName);

  // False when clang's parser is out of reach (another clang version?).
  bool spliceAfter(const clang::FunctionDecl *fd, const std::string &text);

  const std::string &generatedName() const { return name; }
  const std::string &allText() const { return all; }
  bool empty() const { return spliced == 0; }

private:
  clang::Parser *parser();

  clang::CompilerInstance &ci;
  std::string name;
  std::string all;    // the generated file
  unsigned lines = 0; // lines in `all`
  unsigned spliced = 0;
};

} // namespace chad

#endif
