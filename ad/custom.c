/* custom.c: the derivatives of a CHAD_CUSTOM function, as IR declarations.
 *
 * Requires: g->is_custom (no body); its result an active scalar (f64 or
 * f32), or, when g writes arrays (out and in-out parameters, of the lengths
 * their declarations give, DESIGN 8.25), (tuple R Y1 ... Yk) with R unit,
 * an integer or a float: lowering refuses anything else at the call.
 * Guarantees: the module holds the body-less, is_custom functions
 *   g$fwd : (p1, dp1, ..., pn, dpn)              -> (ret, dret)
 *   g$rev : (p1, [p1_b], ..., pn, [pn_b], [ret_b]) -> (R, (p_b...))
 * with the IR signatures ad_forward and ad_reverse would give g had chad
 * seen its body: a tangent after each active parameter in g$fwd (ret and
 * dret include the arrays' final values and tangents), a cotangent buffer
 * after each active array in g$rev (for a written array the seed, which
 * g_rev reads, or consumes and replaces for in-out), ret_b only when R is
 * floating, and g$rev's result R and the tuple of the active scalars'
 * cotangents.
 * They stand for the user's C functions g_fwd and g_rev (DESIGN.md section
 * 1): the emitter calls them by the contract, so that a caller's derivative
 * treats a custom callee like any other, except that g$rev replaces the
 * g$aug/g$bwd halves (the user wrote one function, not two; its primal
 * value is recomputed, which costs one more run of g, as the contract has
 * it). Idempotent: callers declare them at every call site. */
#include "ad/ad.h"

/* Adds one derivative declaration. Its classes are the primal's for a
 * primal parameter, and for a shadow the class of what is passed (a
 * scalar's tangent is a scalar, an array's shadow an array); NULL when g's
 * are (all parameters scalars). */
static void declare(Module *m, Func *g, const char *suffix, int n, Var **params,
                    ParamClass *classes, Type *ret) {
  Func *d = module_add(m, ad_name(m, g->name, suffix), n, params, ret, NULL);
  d->is_custom = true;
  d->is_static = g->is_static;
  d->loc = g->loc;
  d->classes = classes;
}

void ad_declare_custom(Module *m, Func *g) {
  if (module_find(m, ad_name(m, g->name, "fwd")))
    return;
  Arena *a = m->arena;
  size_t cap = (size_t)(2 * g->nparams + 2);
  Var **fp = arena_alloc(a, sizeof(Var *) * cap), **rp = arena_alloc(a, sizeof(Var *) * cap);
  ParamClass *fc = arena_alloc(a, sizeof(ParamClass) * cap);
  ParamClass *rc = arena_alloc(a, sizeof(ParamClass) * cap);
  int nf = 0, nr = 0;
  Type *ret = g->ret;
  Type *dret = type_tangent(a, ret);
  for (int i = 0; i < g->nparams; i++) {
    Var *p = g->params[i];
    ParamClass cls = func_param_class(g, i);
    fc[nf] = rc[nr] = cls;
    fp[nf++] = rp[nr++] = p;
    if (!func_param_active(g, i))
      continue;
    if (cls == PARAM_ACTIVE_SCALAR) { /* its adjoint is a result of g$rev */
      fc[nf] = PARAM_ACTIVE_SCALAR;
      fp[nf++] = var_new(a, arena_printf(a, "d%s", p->name), type_tangent(a, p->type));
    } else { /* an array: its shadow follows it in both */
      fc[nf] = cls;
      fp[nf++] = var_new(a, arena_printf(a, "d%s", p->name), p->type);
      rc[nr] = cls;
      rp[nr++] = var_new(a, arena_printf(a, "%s_b", p->name), p->type);
    }
  }
  /* the C return value: g's result, or its first field when g writes
   * arrays; only a floating one has a seed */
  Type *cret = func_num_outputs(g) ? ret->elems[0] : ret;
  if (type_is_float(cret)) {
    rc[nr] = PARAM_ACTIVE_SCALAR;
    rp[nr++] = var_new(a, "ret_b", cret);
  }
  /* the scalar cotangents g$rev returns, in parameter order */
  Type **cts = arena_alloc(a, sizeof(Type *) * (size_t)(g->nparams + 1));
  int k = 0;
  for (int i = 0; i < g->nparams; i++)
    if (func_param_class(g, i) == PARAM_ACTIVE_SCALAR)
      cts[k++] = type_tangent(a, g->params[i]->type);
  declare(m, g, "fwd", nf, fp, g->classes ? fc : NULL, ty_tuple2(a, ret, dret));
  declare(m, g, "rev", nr, rp, g->classes ? rc : NULL,
          ty_tuple2(a, cret, ty_tuple(a, k, cts)));
}
