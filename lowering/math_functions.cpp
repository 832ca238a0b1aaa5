// math_functions.cpp: see math_functions.h.
#include "lowering/math_functions.h"

namespace chad {

struct MathName {
  const char *name;
  Prim prim;
};

static const MathName kMathNames[] = {
    {"sqrt", P_SQRT},   {"exp", P_EXP},     {"log", P_LOG},
    {"log1p", P_LOG1P}, {"expm1", P_EXPM1}, {"pow", P_POW},
    {"sin", P_SIN},     {"cos", P_COS},     {"tan", P_TAN},
    {"asin", P_ASIN},   {"acos", P_ACOS},   {"atan", P_ATAN},
    {"atan2", P_ATAN2}, {"sinh", P_SINH},   {"cosh", P_COSH},
    {"tanh", P_TANH},   {"fabs", P_FABS},   {"fmin", P_FMIN},
    {"fmax", P_FMAX},   {"hypot", P_HYPOT}, {"erf", P_ERF},
    {"cbrt", P_CBRT},   {"floor", P_FLOOR}, {"ceil", P_CEIL},
    {"round", P_ROUND}, {"lgamma", P_LGAMMA}, {"tgamma", P_TGAMMA},
    {"exp2", P_EXP2},   {"log2", P_LOG2},   {"log10", P_LOG10},
    {"fma", P_FMA},     {"fmod", P_FMOD},   {"remainder", P_REMAINDER},
    {"copysign", P_COPYSIGN}, {"fdim", P_FDIM}, {"trunc", P_TRUNC},
    {"rint", P_RINT},   {"nearbyint", P_NEARBYINT}, {"erfc", P_ERFC},
    {"asinh", P_ASINH}, {"acosh", P_ACOSH}, {"atanh", P_ATANH},
    {"ldexp", P_LDEXP}, {"scalbn", P_SCALBN},
};

static bool lookupDoubleForm(llvm::StringRef name, Prim &prim) {
  for (const MathName &m : kMathNames)
    if (name == m.name) {
      prim = m.prim;
      return true;
    }
  return false;
}

bool lookupMathFunction(llvm::StringRef name, MathFunction &out) {
  name.consume_front("__builtin_");
  // The double form first: "erf" ends in 'f' but is not a float form.
  if (lookupDoubleForm(name, out.prim)) {
    out.isFloat = false;
    return true;
  }
  // (name.back(), not endswith: renamed ends_with, then removed, in clang 19)
  if (!name.empty() && name.back() == 'f' && lookupDoubleForm(name.drop_back(), out.prim)) {
    out.isFloat = true;
    return true;
  }
  return false;
}

} // namespace chad
