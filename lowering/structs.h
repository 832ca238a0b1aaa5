// structs.h: functions that take, use or return structs (DESIGN.md section
// 1, "The rest of C"), lowered by flattening.
//
// The IR has no structs. A function f that uses them is lowered as a
// *flat* function `chad__flat_f` whose parameters are the leaves of f's
// struct parameters (floating and integer scalars, arrays), with the
// classes they would have as ordinary parameters; a struct result becomes
// output arrays of length 1 (and of the array fields' length). The flat
// function's derivatives are made as any other function's, static, and
// f_fwd / f_rev are thin C wrappers with the struct signature of the
// contract that pass the leaves (`s.a`, `&s_b->a`, `p->v`, `dp->v`). The
// flat function itself is C too (the leaves packed into structs, f called),
// for callers' derivatives that call it for its value.
// A function with structs in its body only (locals) keeps its signature:
// its flat function is `f` itself, with f's linkage and no wrappers, so
// that its callers, which do not flatten calls of it, find it by name.
//
// Requires: as lowerFunction (lower.h).
// Guarantees: either a LoweredFunction for `chad__flat_f` (or `f`) whose
// callees are the user's functions (never a flat declaration), with the
// wrappers' prototypes and definitions (and the flat function's) as C
// text, or a located error that names the
// struct construct. The user's AST is unchanged when this returns: the body
// is flattened in place while it is lowered (see structs.cpp) and restored.
#ifndef CHAD_LOWERING_STRUCTS_H
#define CHAD_LOWERING_STRUCTS_H

#include "lowering/lower.h"

namespace clang {
class Expr;
class VarDecl;
}

namespace chad {

// Does f's signature or body involve a struct type?
bool usesStructs(const clang::FunctionDecl *fd);

// For `p - base`, a node the flattener makes where f returns a struct
// whose pointer field is a view of array parameter `base` (DESIGN 8.46):
// the field's name, for the lowering's errors; else empty.
std::string returnedViewField(const clang::Expr *difference);
// A variable's name as the user wrote it: for a leaf the flattener
// declared, the field it stands for (`p.d`, `q->w`); else its own name.
std::string sourceName(const clang::VarDecl *v);
LoweredFunction lowerFlattened(const clang::FunctionDecl *fd, Arena *arena,
                               SourceLocs &locs);

// While alive, the body of a flat function `def` (chad__flat_f) is
// flattened, so that a caller's analysis of its callee's body (which
// elements it touches, what it reads before it writes) sees the leaf
// parameters it is called with; for any other function, nothing.
class FlatBody {
public:
  explicit FlatBody(const clang::FunctionDecl *def);
  ~FlatBody();
  FlatBody(const FlatBody &) = delete;
  FlatBody &operator=(const FlatBody &) = delete;

private:
  struct State;
  State *state = nullptr;
};

} // namespace chad

#endif
