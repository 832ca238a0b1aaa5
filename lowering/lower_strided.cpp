// lower_strided.cpp: arrays a loop writes block by block (DESIGN.md 8.19).
//
// Numerical C fills an output a block per iteration, at a stride:
//
//     for (i = 0; i < p; i++) {
//       compute_reproj_error(..., &reproj_err[2 * i]);   // ADBench's BA
//       y[3*i] = a; y[3*i + 1] = b; y[3*i + 2] = c;
//     }
//
// Iteration i writes the block y[m*i .. m*i + m) and nothing else of y, so
// the loop is a `build` like y[i] = e at the counter, of a block instead of
// an element: the body yields the block's m elements as a tuple, the build
// makes m arrays of length trip in one loop, and y is their interleaving,
// y[k] = a_(k mod m)[k / m]. Nothing is carried from one iteration to the
// next, so reverse mode needs no saves: the build's reverse recomputes the
// body once (the callee's forward pass runs once more in total), and the
// interleaving's reverse is a gather.
//
// A call's output array at a view `&y[m*i + c]` or `y + m*i + c` writes the
// elements m*i + c .. m*i + c + L, where L is the number of elements the
// callee writes: known here only when the callee writes its output at
// constant indices (it is then scalar-replaced there, and its output has
// exactly L elements).
//
// Requires: classifyArrays' scan (sites with their paths and reads).
// Guarantees: an array classified Strided has its every site at the top of
// the body (no nested loop, no while), indices covering each c < m, no
// reads in the loop, and a loop from 0 by 1; each site resolves to the place
// {y, kBlock0 - c}, and stridedTarget binds y to the whole written array of
// length m * trip.
#include "lowering/differentiable.h"
#include "lowering/lowerer.h"
#include "lowering/structs.h"

namespace chad {
namespace lowering_detail {

static bool counterRef(const CExpr *e, const VarDecl *counter) {
  const auto *r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
  return r && r->getDecl() == counter;
}

// e is affine in the counter with integer constant coefficients:
// e = m*i + c (`2*i + 1`, `1 + i*2`, `3*(i + 1)`, `k`).
static bool affineInCounter(const CExpr *e, const VarDecl *counter,
                            clang::ASTContext &ctx, long long &m, long long &c) {
  e = e->IgnoreParenImpCasts();
  if (counterRef(e, counter)) {
    m = 1, c = 0;
    return true;
  }
  CExpr::EvalResult r;
  if (!e->isValueDependent() && e->EvaluateAsInt(r, ctx) && !r.HasSideEffects &&
      r.Val.getInt().getMinSignedBits() <= 32) {
    m = 0, c = r.Val.getInt().getSExtValue();
    return true;
  }
  const auto *b = dyn_cast<BinaryOperator>(e);
  long long m1, c1, m2, c2;
  if (!b || !affineInCounter(b->getLHS(), counter, ctx, m1, c1) ||
      !affineInCounter(b->getRHS(), counter, ctx, m2, c2))
    return false;
  switch (b->getOpcode()) {
  case clang::BO_Add:
    m = m1 + m2, c = c1 + c2;
    return true;
  case clang::BO_Sub:
    m = m1 - m2, c = c1 - c2;
    return true;
  case clang::BO_Mul:
    if (m1 != 0 && m2 != 0)
      return false;
    m = m1 * c2 + m2 * c1, c = c1 * c2;
    return true;
  default:
    return false;
  }
}

// idx is m*i + c with i the counter, 1 <= m <= kMaxStride and c >= 0.
bool Lowerer::stridedIndex(const CExpr *idx, const VarDecl *counter,
                           long long &m, long long &c) {
  return affineInCounter(idx, counter, ctx, m, c) && m >= 1 &&
         m <= kMaxStride && c >= 0;
}

// A view `&y[e]`, `y + e`, `e + y`, `y + e1 + e2` of a one-dimensional
// array y: y, and the integer parts of its offset in `parts`; null for
// anything else.
static const VarDecl *viewParts(Lowerer &l, const CExpr *a,
                                std::vector<const CExpr *> &parts) {
  a = a->IgnoreParenImpCasts();
  if (const VarDecl *d = l.arrayDecl(a))
    return d;
  if (const auto *u = dyn_cast<UnaryOperator>(a);
      u && u->getOpcode() == clang::UO_AddrOf) {
    const auto *s = dyn_cast<ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens());
    const VarDecl *d = s ? l.arrayDecl(s->getBase()) : nullptr;
    if (d)
      parts.push_back(s->getIdx());
    return d;
  }
  const auto *b = dyn_cast<BinaryOperator>(a);
  if (!b || b->getOpcode() != clang::BO_Add)
    return nullptr;
  bool left = b->getLHS()->getType()->isPointerType();
  parts.push_back(left ? b->getRHS() : b->getLHS());
  return viewParts(l, left ? b->getLHS() : b->getRHS(), parts);
}

// The view's array (one-dimensional), or null; `parts` its offset's terms.
const VarDecl *Lowerer::viewOffset(const CExpr *a,
                                   std::vector<const CExpr *> &parts) {
  const VarDecl *d = viewParts(*this, a, parts);
  if (!d || arrays.at(d).cols > 0 || parts.empty())
    return nullptr;
  return d;
}

// The view a is at m*i + c of its array, i the counter.
bool Lowerer::stridedView(const CExpr *a, const VarDecl *counter, long long &m,
                          long long &c) {
  std::vector<const CExpr *> parts;
  if (!viewOffset(a, parts))
    return false;
  m = 0, c = 0;
  for (const CExpr *e : parts) {
    long long pm, pc;
    if (!affineInCounter(e, counter, ctx, pm, pc))
      return false;
    m += pm, c += pc;
  }
  return m >= 1 && m <= kMaxStride && c >= 0;
}

// The number of elements the callee writes into its output parameter
// `param` when it names that parameter only at constant indices (p[c],
// *p, *(p + c)) or at the counter of a loop from 0 to a constant (`for (i
// = 0; i < 3; i++) p[i] = ...`), or passes it whole to callees' output
// parameters of such lengths, or to in-out ones: its output then has the
// largest index plus one elements (scalar-replaced, or written from 0 up
// by builds). -1 otherwise (a view of it, a computed index, no body).
long long Lowerer::fixedOutputLength(const FunctionDecl *callee,
                                     unsigned param, int depth) {
  const FunctionDecl *def = nullptr;
  if (!callee->hasBody(def) || !def || param >= def->getNumParams())
    return -1;
  FlatBody flat(def); // a struct function's body, with its leaf parameters
  const clang::ParmVarDecl *p = def->getParamDecl(param);
  long long len = 0;
  bool ok = true;
  std::map<const VarDecl *, long long> counters; // of the loops around: their trip counts
  auto isParam = [&](const CExpr *e) {
    const auto *r = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    return r && r->getDecl() == p;
  };
  auto element = [&](const CExpr *idx) {
    long long c;
    const auto *r = idx ? dyn_cast<DeclRefExpr>(idx->IgnoreParenImpCasts()) : nullptr;
    const auto *v = r ? dyn_cast<VarDecl>(r->getDecl()) : nullptr;
    if (idx && constIndex(idx, c) && c >= 0 && c < 4096)
      len = std::max(len, c + 1);
    else if (v && counters.count(v))
      len = std::max(len, counters.at(v));
    else
      ok = false;
  };
  std::function<void(const Stmt *)> walk = [&](const Stmt *s) {
    if (!s || !ok)
      return;
    CountedLoop l;
    long long trip;
    if (const auto *f = dyn_cast<clang::ForStmt>(s);
        f && countedLoop(f, ctx, l) && l.start == 0 && constantOf(l.bound, ctx, trip) &&
        trip + l.inclusive > 0 && trip < 4096 && !counters.count(l.counter) &&
        !assigns(f->getBody(), l.counter)) {
      counters[l.counter] = trip + l.inclusive;
      for (const Stmt *c : s->children())
        walk(c);
      counters.erase(l.counter);
      return;
    }
    if (const auto *a = dyn_cast<ArraySubscriptExpr>(s);
        a && isParam(a->getBase())) {
      element(a->getIdx());
      walk(a->getIdx());
      return;
    }
    if (const auto *u = dyn_cast<UnaryOperator>(s);
        u && u->getOpcode() == clang::UO_Deref) {
      const CExpr *e = u->getSubExpr()->IgnoreParenImpCasts();
      if (isParam(e)) {
        len = std::max(len, 1LL);
        return;
      }
      if (const auto *b = dyn_cast<BinaryOperator>(e);
          b && b->getOpcode() == clang::BO_Add && isParam(b->getLHS())) {
        element(b->getRHS());
        return;
      }
    }
    if (const auto *call = dyn_cast<CallExpr>(s)) {
      // p passed whole to a callee's output (its length, at most) or in-out
      // parameter (the length it had)
      const FunctionDecl *g = call->getDirectCallee();
      for (unsigned j = 0; j < call->getNumArgs(); j++) {
        const CExpr *a = call->getArg(j);
        if (!isParam(a)) {
          walk(a);
          continue;
        }
        ParamClass cls;
        Type *t;
        std::string problem;
        if (!g || j >= g->getNumParams() || depth >= 8 ||
            !classifyParam(g->getParamDecl(j), cls, t, problem) ||
            (cls != PARAM_OUT_ARRAY && cls != PARAM_INOUT_ARRAY)) {
          ok = false;
          return;
        }
        if (cls == PARAM_INOUT_ARRAY)
          continue;
        long long inner = fixedOutputLength(g, j, depth + 1);
        if (inner <= 0)
          ok = false;
        len = std::max(len, inner);
      }
      return;
    }
    if (const auto *r = dyn_cast<DeclRefExpr>(s); r && r->getDecl() == p) {
      ok = false;
      return;
    }
    for (const Stmt *c : s->children())
      walk(c);
  };
  walk(def->getBody());
  return ok && len > 0 ? len : -1;
}

// The calls in a loop body that write arrays declared outside the loop:
// each output at a view is a site (classified Strided or refused); any
// other array written through a call is refused.
void Lowerer::scanCallOutputs(const CallExpr *call,
                              std::vector<const ForStmt *> &path,
                              const Env &env, LoopScan &sc) {
  const FunctionDecl *callee = call->getDirectCallee();
  std::string name = callee->getNameAsString();
  for (unsigned i = 0; i < call->getNumArgs() && i < callee->getNumParams(); i++) {
    const CExpr *a = call->getArg(i);
    const VarDecl *whole = wholeArrayArg(a);
    const VarDecl *d = whole ? whole : viewBase(a);
    if (!d || (!env.arrays.count(d) && !ownerOf(d)))
      continue;
    ParamClass cls;
    Type *t;
    std::string problem;
    if (!classifyParam(callee->getParamDecl(i), cls, t, problem) ||
        (cls != PARAM_OUT_ARRAY && cls != PARAM_INOUT_ARRAY))
      continue;
    std::string refused = "loop writes array '" + d->getNameAsString() +
                          "' through a call to '" + name + "'; not supported yet";
    Site site;
    site.inWhile = sc.inWhile > 0;
    site.array = d;
    site.write = a;
    site.path = path;
    site.plain = true;
    site.call = call;
    if (!sc.sites.count(d))
      sc.siteOrder.push_back(d);
    sc.written.insert(d);
    if (whole) { // carried whole, updated by the call (DESIGN 8.16)
      site.wholeCall = true;
      sc.sites[d].push_back(site);
      continue;
    }
    std::vector<const CExpr *> parts;
    const VarDecl *base = viewOffset(a, parts);
    if (!base || base != d || !env.arrays.count(d))
      fail(a->getExprLoc(), refused);
    long long width = -1;
    if (cls == PARAM_OUT_ARRAY && isCustom(callee)) { // its declared length, if constant
      Expr *n = customExtent(call, i, env);
      if (!n || !intConst(n, width))
        width = -1;
    } else if (cls == PARAM_OUT_ARRAY) {
      width = fixedOutputLength(callee, i);
    }
    if (width <= 0) { // a slice of the array, carried whole (lower_extents.cpp)
      site.wholeCall = true;
      sc.sites[d].push_back(site);
      continue;
    }
    site.width = width;
    sc.sites[d].push_back(site);
  }
}

// Are `sites`, the writes of d in the loop, blocks at a stride? Sets the
// loop's stride of d. A call's output at a view has no other form: when
// the pattern does not hold, a located error.
bool Lowerer::classifyStrided(LoopCtx &lc, const VarDecl *d,
                              std::vector<Site> &sites, size_t reads) {
  const Site *call = nullptr;
  for (const Site &s : sites) {
    if (s.wholeCall) // carried whole (classifyArrays)
      return false;
    if (s.call && !call)
      call = &s;
  }
  long long lo;
  bool ok = lc.h.stmt && lc.h.step == 1 && !lc.h.stepExpr && lc.h.lo && constIndex(lc.h.lo, lo) &&
            lo == 0 && !lc.hasBreak && reads == 0 &&
            arrays.at(d).role != ArrayRole::InOut && !carriedInPlace(d);
  long long stride = 0;
  std::vector<bool> covered;
  for (const Site &s : sites) {
    long long m, c;
    ok = ok && s.path.empty() && !s.inWhile && !s.twoDim && !s.accumulate &&
         (s.call ? stridedView(s.write, lc.h.counter, m, c)
                 : stridedIndex(s.sub->getIdx(), lc.h.counter, m, c)) &&
         (stride == 0 || m == stride);
    if (!ok)
      break;
    stride = m;
    covered.resize((size_t)m);
    long long width = s.call ? s.width : 1;
    ok = c + width <= m;
    for (long long q = c; ok && q < c + width; q++)
      covered[(size_t)q] = true;
  }
  for (bool c : covered)
    ok = ok && c;
  // a plain y[i] = e at the counter is a Slot, built without the tuple
  if (ok && !call && stride == 1)
    return false;
  if (!ok && call) { // not blocks: the loop carries the array whole, and
                     // each call writes a slice of it (lower_extents.cpp)
    for (Site &s : sites)
      s.wholeCall = s.wholeCall || s.call;
    return false;
  }
  if (ok)
    lc.strides[d] = stride;
  return ok;
}

// Is `a`, a call's argument, a view of an array the loop being lowered
// builds block by block? Then d, the block offset c and the callee's output
// length.
bool Lowerer::stridedCallOutput(const CExpr *a, const VarDecl *&d, long long &c,
                                long long &width) {
  for (LoopCtx *o : loops) {
    auto it = o->siteOf.find(a);
    if (it == o->siteOf.end() || o->sites[it->second].kind != Site::Strided)
      continue;
    const Site &s = o->sites[it->second];
    long long m;
    stridedView(a, o->h.counter, m, c);
    d = s.array;
    width = s.width;
    return true;
  }
  return false;
}

// y := the interleaving of the m arrays one build makes from the blocks.
Expr *Lowerer::stridedTarget(LoopCtx &lc, const VarDecl *d, const Env &entry,
                             const std::vector<Place> &accs,
                             const std::vector<Place> &state,
                             std::vector<Binding> &pre, ArrayVal &result) {
  SourceLocation loc = lc.h.kw;
  long long m = lc.strides.at(d);
  if (entry.arrays.at(d).value || entry.arrays.at(d).len)
    for (const Site &s : lc.sites)
      if (s.array == d)
        fail(s.write->getExprLoc(),
             "loop writes array '" + d->getNameAsString() +
                 "' block by block after it was written before the loop; not "
                 "supported yet");
  BodySpec spec;
  spec.kind = TargetKind::Build;
  spec.array = d;
  spec.accumulators = accs;
  spec.carried = state;
  for (long long c = 0; c < m; c++)
    spec.yields.push_back(Place{d, kBlock0 - (int)c});
  spec.index = var_new(arena, lc.h.counter->getNameAsString().c_str(), ty_int());
  spec.counter = mkVar(spec.index, loc);
  Expr *body = lowerLoopBody(lc, spec, entry);
  checkPoison(body, nullptr, -1);
  Expr *blocks = at(ex_build(arena, dup(arena, lc.b.trip), spec.index, body), loc);
  result.len = iMul(mkInt(m, loc), dup(arena, lc.b.tripExpr), loc);
  if (m == 1)
    return blocks;
  std::vector<Type *> ts((size_t)m, ty_array(arena, arrays.at(d).elem));
  blocks->type = ty_tuple(arena, (int)m, ts.data());
  Var *parts = var_new(arena, (d->getNameAsString() + "_blocks").c_str(), blocks->type);
  pre.push_back({parts, blocks, loc});
  Var *k = var_new(arena, "k", ty_int());
  Expr *row = iDiv(mkVar(k, loc), mkInt(m, loc), loc);
  Expr *col = iMod(mkVar(k, loc), mkInt(m, loc), loc);
  Var *q = var_new(arena, "q", ty_int()), *c = var_new(arena, "c", ty_int());
  Expr *pick = at(ex_index(arena, mkGet((int)m - 1, mkVar(parts, loc), loc), mkVar(q, loc)), loc);
  pick->type = arrays.at(d).elem;
  for (long long j = m - 2; j >= 0; j--) {
    Expr *e = at(ex_index(arena, mkGet((int)j, mkVar(parts, loc), loc), mkVar(q, loc)), loc);
    e->type = arrays.at(d).elem;
    pick = mkIf(iCmp(P_EQ, mkVar(c, loc), mkInt(j, loc), loc), e, pick, loc);
  }
  Expr *elem = wrapInLets({{q, row, loc}, {c, col, loc}}, pick);
  Expr *n = simpleOrBound(dup(arena, result.len), "n_blocks", pre, loc);
  return at(ex_build(arena, n, k, elem), loc);
}

} // namespace lowering_detail
} // namespace chad
