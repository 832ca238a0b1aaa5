// ir_query.cpp: small questions about IR terms that lowering asks (see the
// declarations in lowerer.h).
#include "lowering/lowerer.h"

namespace chad {
namespace lowering_detail {

bool intConst(const Expr *e, long long &v) {
  if (e->kind != E_CONST || !e->type || e->type->kind != TY_INT)
    return false;
  v = e->ival;
  return true;
}

bool isIntConst(const Expr *e, long long v) {
  long long k;
  return intConst(e, k) && k == v;
}

bool exprEq(const Expr *a, const Expr *b) {
  if (a == b)
    return true;
  if (!a || !b || a->kind != b->kind || a->nargs != b->nargs)
    return false;
  switch (a->kind) {
  case E_CONST:
    if (!a->type || !b->type || !type_eq(a->type, b->type))
      return false;
    return a->type->kind == TY_INT ? a->ival == b->ival : a->fval == b->fval;
  case E_VAR:
    return a->var == b->var;
  case E_PRIM:
    if (a->op != b->op)
      return false;
    break;
  case E_GET:
    if (a->index != b->index)
      return false;
    break;
  case E_IF:
  case E_INDEX:
  case E_LEN:
    break;
  default:
    return false; // binders, calls, ...: not worth proving
  }
  for (int i = 0; i < a->nargs; i++)
    if (!exprEq(a->args[i], b->args[i]))
      return false;
  return true;
}

Expr *dup(Arena *a, const Expr *e) {
  if (!e)
    return nullptr;
  Expr *c = ex_clone_shallow(a, e);
  for (int i = 0; i < c->nargs; i++)
    c->args[i] = dup(a, e->args[i]);
  if (e->body)
    c->body = dup(a, e->body);
  return c;
}

static void live(const Expr *e, Liveness &out, int select) {
  if (!e)
    return;
  switch (e->kind) {
  case E_VAR:
    out.free.insert(e->var);
    out.firstUse.emplace(e->var, e);
    return;
  case E_LET:
    live(e->body, out, select);
    if (out.free.count(e->var)) {
      out.free.erase(e->var);
      out.liveLets.insert(e->var);
      live(e->args[0], out, -1);
    }
    return;
  case E_TUPLE:
    if (select >= 0 && select < e->nargs) {
      live(e->args[select], out, -1);
      return;
    }
    break;
  default:
    break;
  }
  if (expr_is_loop(e) && e->body) {
    // binders are unique: the loop's own variables occur only in its body
    live(e->body, out, -1);
    if (e->var)
      out.free.erase(e->var);
    if (e->var2)
      out.free.erase(e->var2);
  }
  for (int i = 0; i < e->nargs; i++)
    live(e->args[i], out, -1);
}

void liveness(const Expr *e, Liveness &out, int select) {
  live(e, out, select);
}

static Expr *dce(Expr *e, std::set<const Var *> &fv) {
  if (!e)
    return e;
  switch (e->kind) {
  case E_VAR:
    fv.insert(e->var);
    return e;
  case E_LET: {
    Expr *body = dce(e->body, fv);
    if (!fv.count(e->var))
      return body;
    fv.erase(e->var);
    e->args[0] = dce(e->args[0], fv);
    e->body = body;
    return e;
  }
  default:
    break;
  }
  if (expr_is_loop(e) && e->body) {
    e->body = dce(e->body, fv);
    if (e->var)
      fv.erase(e->var);
    if (e->var2)
      fv.erase(e->var2);
  }
  for (int i = 0; i < e->nargs; i++)
    e->args[i] = dce(e->args[i], fv);
  return e;
}

Expr *deadLets(Expr *e) {
  std::set<const Var *> fv;
  return dce(e, fv);
}

} // namespace lowering_detail
} // namespace chad
