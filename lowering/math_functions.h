// math_functions.h: the <math.h> functions lowering turns into primitives.
//
// Requires: nothing.
// Guarantees: lookupMathFunction recognises exactly the functions that have
// a Prim (sqrt ... scalbn; not digamma, which C lacks, nor powi, which is
// pow with an int exponent), in their double form ("sin"), their float form
// ("sinf", which operates on f32) and clang's builtin spelling
// ("__builtin_sin"). Long double forms ("sinl") are not recognised.
#ifndef CHAD_LOWERING_MATH_FUNCTIONS_H
#define CHAD_LOWERING_MATH_FUNCTIONS_H

#include "llvm/ADT/StringRef.h"

extern "C" {
#include "ir/ir.h"
}

namespace chad {

struct MathFunction {
  Prim prim;
  bool isFloat; // the f-suffixed form: operands and result are f32
};

bool lookupMathFunction(llvm::StringRef name, MathFunction &out);

} // namespace chad

#endif
