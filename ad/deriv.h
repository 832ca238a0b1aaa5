/* deriv.h: local derivatives of primitives, as linear maps.
 *
 * The Jacobian of `x = op(a, b)` at the point (a, b) is the linear map
 * hcat(m_a, m_b) : (T, T) -o T, where each m_i is `scale k_i` with the
 * partial derivative k_i, `1`, or `0`. Forward mode applies it to the
 * tangents of the active operands; reverse mode applies its transpose to the
 * cotangent of x (ad/fwd.c, ad/rev.c). Both modes share this one table. */
#ifndef CHAD_AD_DERIV_H
#define CHAD_AD_DERIV_H

#include "ir/ir.h"

/* Is the primitive differentiable with float result (not a comparison,
 * logic, int arithmetic or cast)? Casts are handled structurally. */
bool deriv_is_smooth(Prim op, Type *result_type);

/* The local linear map for `x = op(args)` restricted to the operands whose
 * entry in `active` is true, as hcat(m_i for active i). `x` is the variable
 * holding the primal result (partials such as exp's reuse it). Returns a
 * term of type lin((T_i for active i), T). */
Expr *deriv_jacobian(Arena *a, Prim op, Expr **args, Expr *x,
                     const bool *active);

#endif
