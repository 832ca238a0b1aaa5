// lower_extents.cpp: calls that update or fill an array through a view
// (DESIGN.md 8.21).
//
// `lstm_model(b, ..., &s[i], &s[i + b], xp)` passes views of s to in-out
// parameters. A view has no length in C; the callee touches a part of it
// that its own code bounds: `hidden[i]` for `i < hsize` touches hsize
// elements. That extent, written in the caller's terms (hsize is the
// caller's b), makes the call a value call like any other: the slice
// s[i .. i + b) goes in (copied: O(b)), the callee's new slice comes out and
// is stored back into s element by element, as updates (so the reverse
// sweep restores exactly what was overwritten, DESIGN 8.13). Two views
// written by one call must be disjoint, which the extents show
// (`i + b` is where the second starts); an input view of the same array
// must be disjoint too, or read by the callee only before it writes
// anything (then the copy taken before the call is what C reads).
#include "lowering/differentiable.h"
#include "lowering/lowerer.h"
#include "lowering/structs.h"

namespace chad {
namespace lowering_detail {

bool constantOf(const CExpr *e, const clang::ASTContext &ctx, long long &v) {
  CExpr::EvalResult r;
  if (!e || e->isValueDependent() || !e->EvaluateAsInt(r, ctx))
    return false;
  v = r.Val.getInt().getExtValue();
  return true;
}

bool countedLoop(const ForStmt *f, const clang::ASTContext &ctx, CountedLoop &out) {
  const clang::VarDecl *counter = nullptr;
  long long lo;
  if (const auto *ds = dyn_cast_or_null<clang::DeclStmt>(f->getInit())) {
    const auto *v = ds->isSingleDecl() ? dyn_cast<clang::VarDecl>(ds->getSingleDecl()) : nullptr;
    if (!v || !constantOf(v->getInit(), ctx, lo))
      return false;
    counter = v;
  } else if (const auto *b = dyn_cast_or_null<BinaryOperator>(f->getInit());
             b && b->getOpcode() == clang::BO_Assign) {
    const auto *d = dyn_cast<DeclRefExpr>(b->getLHS()->IgnoreParens());
    counter = d ? dyn_cast<clang::VarDecl>(d->getDecl()) : nullptr;
    if (!counter || !constantOf(b->getRHS(), ctx, lo))
      return false;
  } else {
    return false;
  }
  const auto *c = dyn_cast_or_null<BinaryOperator>(f->getCond());
  if (!c || (c->getOpcode() != clang::BO_LT && c->getOpcode() != clang::BO_LE) || lo < 0)
    return false;
  const auto *l = dyn_cast<DeclRefExpr>(c->getLHS()->IgnoreParenImpCasts());
  if (!l || l->getDecl() != counter)
    return false;
  const CExpr *inc = f->getInc() ? f->getInc()->IgnoreParens() : nullptr;
  bool up = false;
  if (const auto *u = dyn_cast_or_null<UnaryOperator>(inc))
    up = u->isIncrementOp();
  else if (const auto *a = dyn_cast_or_null<clang::CompoundAssignOperator>(inc)) {
    long long step;
    up = a->getOpcode() == clang::BO_AddAssign && constantOf(a->getRHS(), ctx, step) && step > 0;
  }
  if (!up)
    return false;
  out = CountedLoop{counter, c->getRHS(), c->getOpcode() == clang::BO_LE, lo};
  return true;
}

// Does the body assign v (=, op=, ++, --) or take its address?
bool assigns(const Stmt *s, const clang::VarDecl *v) {
  if (!s)
    return false;
  auto names = [&](const CExpr *e) {
    const auto *r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    return r && r->getDecl() == v;
  };
  if (const auto *b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp() && names(b->getLHS()))
    return true;
  if (const auto *u = dyn_cast<UnaryOperator>(s);
      u && (u->isIncrementDecrementOp() || u->getOpcode() == clang::UO_AddrOf) &&
      names(u->getSubExpr()))
    return true;
  for (const Stmt *c : s->children())
    if (assigns(c, v))
      return true;
  return false;
}

namespace {

// idx as `scale * counter + plus` (`i`, `i + 1`, `i - 1`, `2 * i + 1`,
// `3 * i`), scale >= 1 and plus constants; false for any other form.
bool affineInCounter(const CExpr *idx, const clang::ASTContext &ctx, const clang::VarDecl *&counter,
                     long long &scale, long long &plus, const DeclRefExpr **ref = nullptr) {
  const CExpr *e = idx->IgnoreParenImpCasts();
  plus = 0;
  if (const auto *b = dyn_cast<BinaryOperator>(e); b && b->isAdditiveOp()) {
    long long c;
    if (constantOf(b->getRHS(), ctx, c)) {
      plus = b->getOpcode() == clang::BO_Add ? c : -c;
      e = b->getLHS()->IgnoreParenImpCasts();
    } else if (b->getOpcode() == clang::BO_Add && constantOf(b->getLHS(), ctx, c)) {
      plus = c;
      e = b->getRHS()->IgnoreParenImpCasts();
    } else {
      return false;
    }
  }
  scale = 1;
  if (const auto *m = dyn_cast<BinaryOperator>(e); m && m->getOpcode() == clang::BO_Mul) {
    if (constantOf(m->getLHS(), ctx, scale))
      e = m->getRHS()->IgnoreParenImpCasts();
    else if (constantOf(m->getRHS(), ctx, scale))
      e = m->getLHS()->IgnoreParenImpCasts();
    else
      return false;
  }
  const auto *r = dyn_cast<DeclRefExpr>(e);
  counter = r ? dyn_cast<clang::VarDecl>(r->getDecl()) : nullptr;
  if (ref)
    *ref = r;
  return counter && scale >= 1;
}

} // namespace

// The bounds of the elements of parameter `param` the callee touches:
// each is `scale * bound + plus` (bound null: the constant plus); false
// when some use is not an element at a constant, at `scale * i + c` of a
// counted loop's counter i, never below 0 from the loop's start on (the
// bound then over-approximates a loop that steps by more than 1), or at
// `scale * m + c` of an integer parameter m the callee never assigns
// (`v[n - 1]`; callExtent checks that the index cannot fall below the view).
bool Lowerer::extentBounds(const FunctionDecl *def, unsigned param, std::vector<ExtentBound> &out) {
  FlatBody flat(def); // a struct function's body, with its leaf parameters
  const clang::ParmVarDecl *p = def->getParamDecl(param);
  std::vector<CountedLoop> loops;
  bool ok = true;
  auto isParam = [&](const CExpr *e) {
    const auto *r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    return r && r->getDecl() == p;
  };
  auto element = [&](const CExpr *idx) {
    long long c;
    if (constantOf(idx, ctx, c)) {
      ok = ok && c >= 0;
      out.push_back({nullptr, 1, c + 1});
      return;
    }
    const clang::VarDecl *counter;
    long long scale, plus;
    const DeclRefExpr *ref = nullptr;
    bool affine = affineInCounter(idx, ctx, counter, scale, plus, &ref);
    for (auto it = loops.rbegin(); affine && it != loops.rend(); ++it)
      if (it->counter == counter && scale * it->start + plus >= 0) {
        // the last counter value is bound - 1 (bound, if inclusive)
        out.push_back({it->bound, scale, plus + 1 - (it->inclusive ? 0 : scale)});
        return;
      }
    const auto *m = affine ? dyn_cast<clang::ParmVarDecl>(counter) : nullptr;
    if (m && m != p && m->getType()->isIntegerType() && !assigns(def->getBody(), m)) {
      out.push_back({ref, scale, plus + 1, true});
      return;
    }
    ok = false;
  };
  std::function<void(const Stmt *)> walk = [&](const Stmt *s) {
    if (!s || !ok)
      return;
    if (const auto *f = dyn_cast<ForStmt>(s)) {
      CountedLoop l;
      bool counted = countedLoop(f, ctx, l);
      walk(f->getInit());
      walk(f->getCond());
      walk(f->getInc());
      if (counted)
        loops.push_back(l);
      walk(f->getBody());
      if (counted)
        loops.pop_back();
      return;
    }
    if (const auto *a = dyn_cast<ArraySubscriptExpr>(s); a && isParam(a->getBase())) {
      element(a->getIdx());
      walk(a->getIdx());
      return;
    }
    if (const auto *u = dyn_cast<UnaryOperator>(s); u && u->getOpcode() == clang::UO_Deref) {
      const CExpr *e = u->getSubExpr()->IgnoreParenImpCasts();
      if (isParam(e)) {
        out.push_back({nullptr, 1, 1});
        return;
      }
      if (const auto *b = dyn_cast<BinaryOperator>(e);
          b && b->getOpcode() == clang::BO_Add && isParam(b->getLHS())) {
        element(b->getRHS());
        return;
      }
    }
    if (const auto *r = dyn_cast<DeclRefExpr>(s); r && r->getDecl() == p) {
      ok = false; // passed on, or a pointer made from it
      return;
    }
    for (const Stmt *c : s->children())
      walk(c);
  };
  walk(def->getBody());
  return ok && !out.empty();
}

// An integer expression of the callee over its parameters and constants,
// in the caller's terms (each parameter is the call's argument).
Expr *Lowerer::calleeIntExpr(const CExpr *e, const CallExpr *call, const Env &env) {
  SourceLocation loc = call->getExprLoc();
  long long c;
  if (constantOf(e, ctx, c))
    return mkInt(c, loc);
  e = e->IgnoreParenImpCasts();
  if (const auto *r = dyn_cast<DeclRefExpr>(e)) {
    const auto *p = dyn_cast<clang::ParmVarDecl>(r->getDecl());
    // its position in the callee's parameters: a struct function's flat
    // callee keeps f's ordinary parameters, with their places in f
    const FunctionDecl *callee = call->getDirectCallee();
    unsigned at = 0;
    while (callee && at < callee->getNumParams() && callee->getParamDecl(at) != p)
      at++;
    if (!p || !callee || !p->getType()->isIntegerType() || at >= call->getNumArgs() ||
        at >= callee->getNumParams())
      return nullptr;
    Expr *v = lowerExpr(call->getArg(at), env);
    if (!v->type || v->type->kind != TY_INT)
      return nullptr;
    return toKind(v, ty_int(), loc);
  }
  if (const auto *b = dyn_cast<BinaryOperator>(e)) {
    if (b->getOpcode() != clang::BO_Add && b->getOpcode() != clang::BO_Sub &&
        b->getOpcode() != clang::BO_Mul)
      return nullptr;
    Expr *l = calleeIntExpr(b->getLHS(), call, env);
    Expr *r = l ? calleeIntExpr(b->getRHS(), call, env) : nullptr;
    if (!r)
      return nullptr;
    return b->getOpcode() == clang::BO_Add   ? iAdd(l, r, loc)
           : b->getOpcode() == clang::BO_Sub ? iSub(l, r, loc)
                                              : iMul(l, r, loc);
  }
  return nullptr;
}

// Is argument a a local array of the caller (`u`, `&u[0]`, `u + 0`)? Then
// C lets no index below 0 be touched through it. (A pointer parameter may
// itself point inside its caller's array.)
static bool viewAtStart(const CExpr *a) {
  a = a->IgnoreParenImpCasts();
  const CExpr *base = a, *index = nullptr;
  if (const auto *u = dyn_cast<UnaryOperator>(a); u && u->getOpcode() == clang::UO_AddrOf) {
    const auto *s = dyn_cast<ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens());
    if (!s)
      return false;
    base = s->getBase(), index = s->getIdx();
  } else if (const auto *b = dyn_cast<BinaryOperator>(a); b && b->getOpcode() == clang::BO_Add) {
    base = b->getLHS(), index = b->getRHS();
  }
  const auto *l = index ? dyn_cast<clang::IntegerLiteral>(index->IgnoreParenImpCasts()) : nullptr;
  if (index && (!l || l->getValue() != 0))
    return false;
  const auto *r = dyn_cast<DeclRefExpr>(base->IgnoreParenImpCasts());
  const auto *v = r ? dyn_cast<clang::VarDecl>(r->getDecl()) : nullptr;
  return v && !isa<clang::ParmVarDecl>(v) && v->getType()->isArrayType();
}

// The number of elements of parameter `param` a call's callee touches, in
// the caller's terms (at least 0), or null when its code does not bound it.
Expr *Lowerer::callExtent(const CallExpr *call, unsigned param, const Env &env, Expr **plain) {
  const FunctionDecl *def = nullptr;
  const FunctionDecl *callee = call->getDirectCallee();
  if (callee && isCustom(callee)) { // its declared length
    Expr *ext = customExtent(call, param, env);
    if (plain)
      *plain = ext ? dup(arena, ext) : nullptr;
    return ext;
  }
  if (!callee || !callee->hasBody(def) || !def || param >= def->getNumParams())
    return nullptr;
  FlatBody flat(def); // the bounds are expressions of its body: kept flat
  std::vector<ExtentBound> bounds;
  if (!extentBounds(def, param, bounds))
    return nullptr;
  SourceLocation loc = call->getExprLoc();
  Expr *ext = mkInt(0, loc);
  // the one bound every access shares, when there is one: for telling
  // slices apart structurally (`i + b` ends where `i + b` starts)
  Expr *same = nullptr;
  bool one = true;
  for (const ExtentBound &e : bounds) {
    Expr *b = mkInt(e.plus, loc);
    if (e.bound) {
      Expr *n = calleeIntExpr(e.bound, call, env);
      if (!n)
        return nullptr;
      long long m;
      if (e.atParameter && !(intConst(n, m) && e.scale * m + e.plus - 1 >= 0) &&
          !viewAtStart(call->getArg(param)))
        return nullptr; // `v[n - 1]` with n = 0 touches the element before
                        // an interior view, which a slice does not hold
      if (e.scale != 1)
        n = iMul(mkInt(e.scale, loc), n, loc);
      b = iAdd(n, b, loc);
    }
    one = one && (!same || exprEq(same, b));
    same = same ? same : b;
    ext = iMax(ext, b, loc);
  }
  if (plain)
    *plain = one ? dup(arena, same) : nullptr;
  return ext;
}

// Does the callee read parameter `in` only in top-level statements before
// the first one that writes parameter `out` (an element assigned, or `out`
// passed on)? Then a copy of `in` taken before the call is what
// C reads, however the two overlap.
bool Lowerer::readsBeforeWrites(const FunctionDecl *def, unsigned in, unsigned out) {
  FlatBody flat(def);
  const auto *body = dyn_cast_or_null<CompoundStmt>(def->getBody());
  if (!body)
    return false;
  const clang::ParmVarDecl *pin = def->getParamDecl(in), *pout = def->getParamDecl(out);
  bool written = false;
  for (const Stmt *s : body->body()) {
    bool writes = writesParam(s, pout);
    if ((written || writes) && mentions(s, pin))
      return false;
    written = written || writes;
  }
  return true;
}

// Does s write through parameter p (an element assigned, incremented, or
// p passed on to a call, which may write it)?
bool Lowerer::writesParam(const Stmt *s, const clang::ParmVarDecl *p) {
  if (!s)
    return false;
  auto names = [&](const CExpr *e) {
    e = e->IgnoreParenImpCasts();
    if (const auto *a = dyn_cast<ArraySubscriptExpr>(e))
      e = a->getBase()->IgnoreParenImpCasts();
    else if (const auto *u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == clang::UO_Deref)
      return mentions(u->getSubExpr(), p);
    const auto *r = dyn_cast<DeclRefExpr>(e);
    return r && r->getDecl() == p;
  };
  if (const auto *b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp() && names(b->getLHS()))
    return true;
  if (const auto *u = dyn_cast<UnaryOperator>(s); u && u->isIncrementDecrementOp() &&
                                                  names(u->getSubExpr()))
    return true;
  if (const auto *c = dyn_cast<CallExpr>(s))
    for (const CExpr *a : c->arguments())
      if (a->getType()->isPointerType() && mentions(a, p)) // p or a view of it
        return true;
  for (const Stmt *c : s->children())
    if (writesParam(c, p))
      return true;
  return false;
}

// The fresh array a CHAD_CUSTOM callee writes its output parameter
// `param` into: zeros of its declared length.
Expr *Lowerer::customOutput(const CallExpr *call, unsigned param, Type *elem, const Env &env) {
  SourceLocation loc = call->getArg(param)->getExprLoc();
  Expr *n = customExtent(call, param, env);
  if (!n)
    fail(loc, "the length of parameter '" +
                  call->getDirectCallee()->getParamDecl(param)->getNameAsString() + "' of '" +
                  call->getDirectCallee()->getNameAsString() + "' is not an integer expression "
                  "of its parameters chad can follow (+, -, * of parameters and constants)");
  return at(ex_alloc(arena, ty_array(arena, elem), n), loc);
}

// Stores r (the callee's new slice) into d at offset `off`, element by
// element: d's next value in env.
void Lowerer::storeSlice(const VarDecl *d, Expr *off, Var *r, Env &env,
                         std::vector<Binding> &out, SourceLocation loc) {
  ArrayVal old = env.arrays.at(d);
  ArrayVal now{r, nullptr};
  Var *k = var_new(arena, "k", ty_int());
  Type *arrType = old.value->type;
  Type *st = ty_tuple(arena, 1, &arrType);
  Var *state = var_new(arena, "st", st);
  Var *cur = newPlaceVar({d, kWhole});
  Var *next = newPlaceVar({d, kWhole});
  Expr *at_k = off ? iAdd(dup(arena, off), mkVar(k, loc), loc) : mkVar(k, loc);
  Expr *upd = at(ex_update(arena, mkVar(cur, loc), at_k,
                           oldElement(now, mkVar(k, loc), false, loc)),
                 loc);
  Expr *body = mkLet(cur, mkGet(0, mkVar(state, loc), loc),
                     mkLet(next, upd, mkTuple({mkVar(next, loc)}, loc), loc), loc);
  Expr *fold = at(ex_fold(arena, lenOf(now), mkTuple({mkVar(old.value, loc)}, loc), k, state,
                          body),
                  loc);
  Var *stored = newPlaceVar({d, kWhole});
  out.push_back({stored, mkGet(0, fold, loc), loc});
  env.arrays[d] = ArrayVal{stored, lenCopy(old)};
}

// An argument `&d[k]` or `d + k` to a parameter the callee writes (in-out,
// or an output): the slice of d the callee touches goes in (a copy of it
// for in-out, nothing for an output) and is stored back after the call.
void Lowerer::sliceArgument(const CallExpr *call, unsigned param, const CExpr *a, bool inOut,
                            Env &env, std::vector<Binding> &out, std::vector<Expr *> &args,
                            std::vector<const VarDecl *> &outs, std::vector<Slice> &slices) {
  SourceLocation loc = a->getExprLoc();
  const FunctionDecl *callee = call->getDirectCallee();
  const clang::ParmVarDecl *p = callee->getParamDecl(param);
  std::string name = callee->getNameAsString();
  const VarDecl *d = viewBase(a);
  if (env.sizes.count(d))
    makeWhole(d, env, out, loc);
  ArrayRole role = arrays.at(d).role;
  if (role == ArrayRole::In || role == ArrayRole::View)
    fail(loc, "'" + d->getNameAsString() + "' passed to parameter '" + p->getNameAsString() +
                  "' of '" + name + "', which writes it; it is read-only here");
  if (!isWhole(d, env) && !carriedInPlace(d))
    fail(loc, "a view '" + text(a) + "' of '" + d->getNameAsString() + "' passed to parameter '" +
                  p->getNameAsString() + "' of '" + name + "', which writes it, before '" +
                  d->getNameAsString() + "' is written whole; supported for in-out "
                  "parameters, local arrays and allocated scratch (write the whole array first)");
  const VarDecl *base = nullptr;
  Expr *view = lowerArrayRef(a, env, base);
  ParamClass cls;
  Type *t = nullptr;
  std::string problem;
  classifyParam(p, cls, t, problem);
  requireElemType(a, base, t, p, name);
  Expr *whole = view->kind == E_VIEW ? view->args[0] : view;
  Expr *off = view->kind == E_VIEW ? view->args[1] : mkInt(0, loc);
  Expr *plain = nullptr;
  Expr *ext = callExtent(call, param, env, &plain);
  if (!ext)
    fail(loc, "call to '" + name + "' writes its parameter '" + p->getNameAsString() +
                  "' at the view '" + text(a) + "', but which of its elements '" + name +
                  "' touches is not bounded by its parameters (index '" + p->getNameAsString() +
                  "' at constants, at 'k * i + c' of the counter of a loop 'for (i = c0; "
                  "i < n; i++)' whose bound is a parameter, never below 0, or at 'k * m + c' "
                  "of a parameter m given a constant or a local array); not supported");
  Expr *rawOff = dup(arena, off);
  off = simpleOrBound(off, "at", out, loc);
  ext = simpleOrBound(ext, "ext", out, loc);
  if (inOut) {
    Var *j = var_new(arena, "j", ty_int());
    Expr *e = at(ex_index(arena, dup(arena, whole), iAdd(dup(arena, off), mkVar(j, loc), loc)),
                 loc);
    e->type = arrays.at(d).elem;
    args.push_back(at(ex_build(arena, dup(arena, ext), j, e), loc));
  } else if (isCustom(callee)) {
    args.push_back(customOutput(call, param, arrays.at(d).elem, env));
  } else {
    args.push_back(emptyArray(arrays.at(d).elem));
  }
  slices.push_back(Slice{d, off, rawOff, plain ? iAdd(dup(arena, rawOff), plain, loc) : nullptr,
                         a, param, outs.size()});
  outs.push_back(d);
}

// Two slices one call writes are disjoint (one ends where the other
// starts, as the extents show); an array the call also reads, whole or at
// a view, is read by the callee only before it writes the slice.
void Lowerer::checkSlices(const CallExpr *call, const std::vector<Slice> &slices,
                          const std::vector<std::pair<const VarDecl *, unsigned>> &readOnly,
                          const std::vector<std::pair<const VarDecl *, bool>> &passed) {
  const FunctionDecl *def = nullptr;
  call->getDirectCallee()->hasBody(def);
  std::string name = call->getDirectCallee()->getNameAsString();
  for (size_t x = 0; x < slices.size(); x++) {
    const Slice &s = slices[x];
    for (size_t y = 0; y < x; y++) {
      const Slice &o = slices[y];
      if (o.base == s.base && !(o.end && exprEq(o.end, s.rawOff)) &&
          !(s.end && exprEq(s.end, o.rawOff)))
        fail(s.arg->getExprLoc(), "'" + text(o.arg) + "' and '" + text(s.arg) + "', passed to '" +
                                      name + "', which writes them, may overlap; not supported "
                                      "(chad must see that one ends where the other starts)");
    }
    int whole = 0;
    for (auto &[d, asOut] : passed)
      whole += d == s.base && asOut;
    if (whole)
      fail(s.arg->getExprLoc(), "'" + s.base->getNameAsString() + "' is passed to '" + name +
                                    "' whole and at the view '" + text(s.arg) +
                                    "', both written; aliasing is not supported");
    for (auto &[d, q] : readOnly)
      if (d == s.base && !(def && readsBeforeWrites(def, q, s.param)))
        fail(s.arg->getExprLoc(),
             "'" + s.base->getNameAsString() + "' is passed to '" + name + "' at the view '" +
                 text(s.arg) + "', which it writes, and also read through parameter '" +
                 call->getDirectCallee()->getParamDecl(q)->getNameAsString() + "', which '" +
                 name + "' " + (def ? "reads after writing" : "may read after writing (a "
                 "CHAD_CUSTOM function: chad cannot see)") + "; aliasing is not supported");
  }
}

// Does another argument of the call pass a view of the same array to a
// parameter the callee writes? Then `&s[0]` is a slice too, not s whole.
bool Lowerer::writtenViewElsewhere(const CallExpr *call, unsigned param) {
  const FunctionDecl *callee = call->getDirectCallee();
  const VarDecl *base = viewBase(call->getArg(param));
  for (unsigned j = 0; j < call->getNumArgs() && j < callee->getNumParams(); j++) {
    if (j == param || viewBase(call->getArg(j)) != base || arrayDecl(call->getArg(j)))
      continue;
    ParamClass cls;
    Type *t = nullptr;
    std::string problem;
    classifyParam(callee->getParamDecl(j), cls, t, problem);
    if (cls == PARAM_OUT_ARRAY || cls == PARAM_INOUT_ARRAY)
      return true;
  }
  return false;
}

// A pointer into one of several arrays (`xp` after `xp = x2; ... xp =
// &s[i];`, rewritten `(xp_in == 1 ? s + xp_at : x2 + xp_at)`) passed to an
// input parameter: a copy of the elements the callee reads, each chosen as
// the pointer chooses. Null when `a` is no such choice.
Expr *Lowerer::choiceArgument(const CallExpr *call, unsigned param, const CExpr *a,
                              const Env &env, std::vector<Binding> &out,
                              std::vector<std::pair<const VarDecl *, unsigned>> &readOnly) {
  const auto *c = dyn_cast<clang::ConditionalOperator>(a->IgnoreParenImpCasts());
  if (!c || !a->getType()->isPointerType())
    return nullptr;
  SourceLocation loc = a->getExprLoc();
  std::string name = call->getDirectCallee()->getNameAsString();
  const clang::ParmVarDecl *p = call->getDirectCallee()->getParamDecl(param);
  Expr *ext = callExtent(call, param, env);
  if (!ext)
    fail(loc, "a pointer that points into one of several arrays ('" + text(a) +
                  "') passed to '" + name + "', whose reads of '" + p->getNameAsString() +
                  "' are not bounded by its parameters; not supported");
  ext = simpleOrBound(ext, "ext", out, loc);
  Var *j = var_new(arena, "j", ty_int());
  ParamClass cls;
  Type *t = nullptr;
  std::string problem;
  classifyParam(p, cls, t, problem);
  std::function<Expr *(const CExpr *)> element = [&](const CExpr *e) -> Expr * {
    const CExpr *x = e->IgnoreParenImpCasts();
    if (const auto *k = dyn_cast<clang::ConditionalOperator>(x))
      return mkIf(lowerCondition(k->getCond(), env), element(k->getTrueExpr()),
                  element(k->getFalseExpr()), loc);
    if (!viewBase(x))
      fail(e->getExprLoc(), "unsupported array argument '" + text(e) + "'");
    const VarDecl *base = nullptr;
    Expr *view = lowerArrayRef(x, env, base);
    requireElemType(x, base, t, p, name);
    readOnly.push_back({base, param});
    Expr *r = at(ex_index(arena, view, mkVar(j, loc)), loc);
    r->type = arrays.at(base).elem;
    return r;
  };
  Expr *body = element(a);
  return at(ex_build(arena, ext, j, body), loc);
}

} // namespace lowering_detail
} // namespace chad
