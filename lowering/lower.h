// lower.h: Clang AST of one annotated C function -> IR (DESIGN.md section 2).
//
// Requires: `fd` is a function definition without Sema errors; `locs` belongs
// to the translation unit and allocates in `arena` (the module's).
// Guarantees: either a body in the IR subset, in SSA form (every C assignment
// binds a new Var named like the C variable), every node located at its C
// source, plus the differentiable functions it calls; or the first construct
// outside the subset, as a located LowerError. Never touches the module: the
// caller decides whether the function goes in (see plugin/consumer.cpp).
//
// The subset: parameters, locals and results of type double, float, any
// standard integer type or enum (_Bool as int); assignment and compound
// assignment, ++/-- (also inside expressions, hoisted before their
// statement), the comma operator, arithmetic, bitwise operators,
// comparisons, && || ! (short-circuit kept), ?:, if/else,
// early return, casts among the scalar types, const locals, constant const
// globals, <math.h> functions with a primitive, and calls to other
// differentiable functions and of CHAD_CUSTOM functions (whose g_fwd and
// g_rev must be declared before the call, with the contract's signatures).
// Arrays (DESIGN.md section 1): input arrays
// (const double *a, const float *a, const T a[N], any int pointer), output
// arrays (double *y, float *y) that the function writes element-wise, local
// arrays of fixed or variable length; `for` loops with an integer counter
// and loop-invariant bounds, with `continue` and `break`, lowered to build,
// sum, fold and scatter-add (see lower_loops.cpp). Parameters marked
// CHAD_INACTIVE keep their class for lowering and become inactive in the
// IR signature. A function with output arrays may return void; its IR
// result is (tuple R Y1 .. Yk), see Func in ir/ir.h.
#ifndef CHAD_LOWERING_LOWER_H
#define CHAD_LOWERING_LOWER_H

#include <optional>
#include <string>
#include <vector>

#include "lowering/locations.h"
#include "clang/Basic/SourceLocation.h"

extern "C" {
#include "ir/ir.h"
}

namespace clang {
class FunctionDecl;
}

namespace chad {

// A call to another differentiable function: the caller cannot be
// differentiated before the callee, and a callee never defined is reported
// at this call.
struct CalleeUse {
  const clang::FunctionDecl *callee; // canonical declaration
  clang::SourceLocation loc;         // the first call in the caller
};

struct LowerError {
  clang::SourceLocation loc;
  std::string what; // "loops are not supported yet"; empty: already reported
                    // by clang (the AST holds errors), say nothing more
};

// The C signature, enough for emit_prototypes even when the body fails.
struct Signature {
  std::string name;
  std::vector<Var *> params;
  Type *ret = nullptr;
  Loc loc{};
  bool isStatic = false;
  // One per parameter when some parameter is an array, else empty (then
  // Func.classes stays NULL).
  std::vector<ParamClass> classes;
  // One per parameter when some parameter is rows (`double A[][3]`): its
  // row length, 0 for the others (Func.rows); else empty.
  std::vector<long long> rows;
};

struct LoweredFunction {
  bool signatureOk = false;
  Signature sig;                  // valid when signatureOk
  Expr *body = nullptr;           // non-null when the whole function lowered
  std::vector<CalleeUse> callees; // distinct, in order of first call
  // The CHAD_CUSTOM functions it calls (distinct): their IR signatures, for
  // the module (Func.is_custom); their g_fwd/g_rev were checked at the call.
  std::vector<Signature> customs;
  std::optional<LowerError> error;
  // A function that takes or returns structs (structs.h) is lowered as the
  // flat function `sig.name`, whose derivatives are static: these are the C
  // text of f_fwd/f_rev with the struct signature of DESIGN.md section 1
  // (prototypes, and definitions that call the flat derivatives), [0]
  // f_fwd's and [1] f_rev's, after the preamble they need (the flat
  // primal). Empty for every other function.
  std::string wrapperPrototypes[2], wrapperDefinitions[2], wrapperPreamble;
  bool hasWrappers() const { return !wrapperPrototypes[0].empty(); }
};

LoweredFunction lowerFunction(const clang::FunctionDecl *fd, Arena *arena,
                              SourceLocs &locs);

// Which derivatives the plugin makes (its forward-only and reverse-only
// arguments; both by default): a call of a CHAD_CUSTOM function g needs
// g_fwd declared only when f_fwd is made, g_rev only when f_rev is.
struct Directions {
  bool forward = true, reverse = true;
};
void setDirections(Directions wanted);

} // namespace chad

#endif
