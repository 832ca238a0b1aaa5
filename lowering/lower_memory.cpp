// lower_memory.cpp: scratch memory (DESIGN.md 8.8, 8.14): `double *t =
// malloc(n * sizeof *t)`, `calloc`, `t = realloc(t, ...)`, `free(t)`,
// `memset(t, 0, ...)`, `memcpy`/`memmove`, and the null test after an
// allocation.
//
// An allocated pointer is a local array like `double t[n]` (ArrayRole::
// Local, written from index 0 up; see lowerer.h for the written-prefix
// representation): malloc's elements are unwritten, so the array starts
// with nothing written and a read before a write is reported as for any
// local array; calloc's are zeros, `(alloc (array T) n)`, the fresh zeroed
// array of 8.11 that passes never merge or hoist. memset to 0 of the whole
// written part is an alloc too, and memset/memcpy/memmove of a part are a
// `build` that replaces the elements they write (one `build` of the source
// when the destination is fresh). realloc keeps the prefix it can keep.
// free ends the array's life: lowering checks that nothing refers to the
// pointer afterwards on the same path and emits nothing, because the
// emitter frees every array it allocates when its C scope ends, on every
// path (emit/emit_c.c, open_scope/close_scope), in f_fwd and f_rev alike.
// The user's own malloc and free run only in f, which is the user's code.
//
// Sizes are read from the byte count's product form: the factors that are
// constants (sizeof included) must make a whole number of elements, and
// every sizeof among them must name the element type. A successful
// allocation is assumed: the null test of an allocated pointer (`!t`,
// `t == NULL`, `if (t)`) is the constant a successful malloc gives.
#include "lowering/lowerer.h"

#include "clang/AST/Type.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringSwitch.h"

namespace chad {
namespace lowering_detail {
namespace {

enum class MemFn { None, Malloc, Calloc, Realloc, Free, Memset, Memcpy, Memmove };

// The C library memory function `c` calls (also its __builtin_ spelling),
// when the callee is a library function (not defined in this file).
MemFn memFunction(const CallExpr *c) {
  const FunctionDecl *f = c ? c->getDirectCallee() : nullptr;
  if (!f || !f->getIdentifier() || f->hasBody())
    return MemFn::None;
  llvm::StringRef n = f->getName();
  n.consume_front("__builtin_");
  return llvm::StringSwitch<MemFn>(n)
      .Case("malloc", MemFn::Malloc)
      .Case("calloc", MemFn::Calloc)
      .Case("realloc", MemFn::Realloc)
      .Case("free", MemFn::Free)
      .Case("memset", MemFn::Memset)
      .Case("memcpy", MemFn::Memcpy)
      .Case("memmove", MemFn::Memmove)
      .Default(MemFn::None);
}

const char *memName(MemFn f) {
  switch (f) {
  case MemFn::Malloc: return "malloc";
  case MemFn::Calloc: return "calloc";
  case MemFn::Realloc: return "realloc";
  case MemFn::Free: return "free";
  case MemFn::Memset: return "memset";
  case MemFn::Memcpy: return "memcpy";
  case MemFn::Memmove: return "memmove";
  default: return "";
  }
}

size_t memArity(MemFn f) {
  switch (f) {
  case MemFn::Malloc:
  case MemFn::Free: return 1;
  case MemFn::Calloc:
  case MemFn::Realloc: return 2;
  default: return 3;
  }
}

// The allocation an initialiser or assigned value is, through casts
// (`(double *)malloc(...)`): a call to malloc, calloc or realloc.
const CallExpr *allocationCall(const CExpr *e) {
  if (!e)
    return nullptr;
  const auto *c = dyn_cast<CallExpr>(e->IgnoreParenCasts());
  MemFn f = memFunction(c);
  return f == MemFn::Malloc || f == MemFn::Calloc || f == MemFn::Realloc ? c
                                                                          : nullptr;
}

// The factors of a product of sizes, `n * m * sizeof(double)`; a factor
// is not looked into further (its own value is what C multiplies). A
// product converted between integer types of 32 bits or more (`sizeof(x)
// * n` with an `unsigned long long n`, made a size_t) is looked through:
// such a conversion keeps the value modulo 2^32, all an int count keeps.
void productFactors(const CExpr *e, std::vector<const CExpr *> &out,
                    clang::ASTContext &ctx) {
  const CExpr *p = e->IgnoreParens();
  while (const auto *c = dyn_cast<CastExpr>(p)) {
    if (c->getCastKind() != clang::CK_IntegralCast ||
        ctx.getTypeSize(c->getType()) < 32 ||
        ctx.getTypeSize(c->getSubExpr()->getType()) < 32 ||
        !isa<BinaryOperator>(c->getSubExpr()->IgnoreParens()))
      break;
    p = c->getSubExpr()->IgnoreParens();
  }
  if (const auto *b = dyn_cast<BinaryOperator>(p); b && b->getOpcode() == clang::BO_Mul) {
    productFactors(b->getLHS(), out, ctx);
    productFactors(b->getRHS(), out, ctx);
    return;
  }
  out.push_back(e);
}

// A count converted to size_t for the multiplication (`n` in `n *
// sizeof(double)`, `(size_t)n`): a conversion from an integer of at most
// 32 bits changes nothing once the count is an int again (the product
// taken modulo 2^32 is the same), so the count is the int itself, and
// compares equal to the bounds of the loops that fill the array.
const CExpr *withoutWidening(const CExpr *e, clang::ASTContext &ctx) {
  for (;;) {
    const auto *c = dyn_cast<CastExpr>(e->IgnoreParens());
    if (!c || c->getCastKind() != clang::CK_IntegralCast)
      return e;
    QualType from = c->getSubExpr()->getType();
    if (!from->isIntegerType() || ctx.getTypeSize(from) > 32)
      return e;
    e = c->getSubExpr();
  }
}

// The scalar element type of an array variable: `double` for `double *t`,
// `double t[n]` and `double R[3][3]` (flat, as lowering stores it).
QualType scalarElemType(clang::ASTContext &ctx, const VarDecl *d) {
  QualType t = d->getType();
  if (t->isPointerType())
    t = t->getPointeeType();
  return ctx.getBaseElementType(t);
}

bool refersTo(const Stmt *s, const VarDecl *d, SourceLocation &where) {
  if (!s || isa<clang::UnaryExprOrTypeTraitExpr>(s)) // sizeof reads nothing
    return false;
  if (const auto *r = dyn_cast<DeclRefExpr>(s); r && r->getDecl() == d) {
    where = r->getExprLoc();
    return true;
  }
  for (const Stmt *c : s->children())
    if (refersTo(c, d, where))
      return true;
  return false;
}

} // namespace

bool isAllocatedPointer(const VarDecl *v) { return allocationCall(v->getInit()) != nullptr; }

bool Lowerer::isMemoryCall(const CallExpr *c) {
  return memFunction(c) != MemFn::None;
}

// The array a memset, memcpy or memmove writes (a return-free `if` that
// holds one yields the array's new value), or null.
const VarDecl *Lowerer::memoryWriteTarget(const CallExpr *c) {
  MemFn fn = memFunction(c);
  if ((fn != MemFn::Memset && fn != MemFn::Memcpy && fn != MemFn::Memmove) ||
      c->getNumArgs() != 3)
    return nullptr;
  return fillTarget(c->getArg(0), nullptr, nullptr);
}

// Called by the prescan for every local pointer: one initialised by an
// allocation is a local array (written before it is read), not a view.
bool Lowerer::registerScratch(const VarDecl *v) {
  if (!allocationCall(v->getInit()))
    return false;
  ArrayInfo info;
  info.role = ArrayRole::Local;
  QualType pointee = v->getType()->getPointeeType();
  if (!pointee->isBooleanType()) // null: refused where it is declared
    info.elem = irScalarType(pointee);
  info.constIndexOnly = false; // its length is not a constant
  arrays[v] = info;
  scratchArrays.insert(v);
  return true;
}

// The number of elements d's allocation (`malloc(n * sizeof *d)`,
// `calloc(n, sizeof(double))`, never realloc'd into d) makes, as C wrote
// it: one factor `count` (the rest sizeof and constants making one
// element), or with count null the constant `constant`. False for any
// other initialiser.
bool Lowerer::allocationCount(const VarDecl *d, const CExpr *&count, long long &constant) {
  const CallExpr *c = allocationCall(d->getInit());
  if (!c || memFunction(c) == MemFn::Realloc || c->getNumArgs() != memArity(memFunction(c)))
    return false;
  std::vector<const CExpr *> factors;
  for (unsigned i = 0; i < c->getNumArgs(); i++)
    productFactors(c->getArg(i), factors, ctx);
  long long esize = ctx.getTypeSizeInChars(d->getType()->getPointeeType()).getQuantity();
  long long bytes = 1;
  count = nullptr;
  for (const CExpr *f : factors) {
    CExpr::EvalResult r;
    if (f->isValueDependent() || !f->EvaluateAsInt(r, ctx) || r.HasSideEffects) {
      if (count)
        return false;
      count = f;
      continue;
    }
    llvm::APSInt v = r.Val.getInt();
    if (v.isNegative() || v.getActiveBits() > 40 || (bytes *= v.getExtValue()) > (1LL << 40))
      return false;
  }
  if (esize <= 0 || bytes % esize != 0)
    return false;
  constant = bytes / esize;
  return !count || constant == 1;
}

// The number of elements of type `elem` in the byte count that is the
// product of `sizeArgs` (calloc's two arguments, or one), as an int
// expression over SSA values (not bound: it is compared structurally with
// the lengths loops give, `(if (gt n 0) n 0)`), at least 0 as a length
// is. `of` names the array in messages.
Expr *Lowerer::elementCount(std::vector<const CExpr *> sizeArgs, QualType elem,
                            const std::string &of, const Env &env) {
  SourceLocation loc = sizeArgs[0]->getExprLoc();
  std::vector<const CExpr *> factors;
  for (const CExpr *a : sizeArgs)
    productFactors(a, factors, ctx);
  long long esize = ctx.getTypeSizeInChars(elem).getQuantity();
  std::string ename = elem.getUnqualifiedType().getAsString();
  long long bytes = 1;
  std::vector<const CExpr *> counts;
  for (const CExpr *f : factors) {
    CExpr::EvalResult r;
    if (f->isValueDependent() || !f->EvaluateAsInt(r, ctx) || r.HasSideEffects) {
      counts.push_back(f);
      continue;
    }
    const auto *s = dyn_cast<clang::UnaryExprOrTypeTraitExpr>(f->IgnoreParenImpCasts());
    if (s && s->getKind() == clang::UETT_SizeOf &&
        !ctx.hasSameUnqualifiedType(ctx.getBaseElementType(s->getTypeOfArgument()), elem))
      fail(s->getExprLoc(), "'" + text(s) + "' in the size of " + of +
                                " does not match its element type '" + ename + "'");
    llvm::APSInt v = r.Val.getInt();
    if (v.isNegative() || v.getActiveBits() > 40 || (bytes *= v.getExtValue()) > (1LL << 40))
      fail(f->getExprLoc(), "size of " + of + " is too large");
  }
  if (bytes % esize != 0) {
    std::string whole = sizeArgs.size() == 1 ? text(sizeArgs[0])
                                             : text(sizeArgs[0]) + ", " + text(sizeArgs[1]);
    fail(loc, "size '" + whole + "' of " + of + " is not a whole number of '" + ename +
                  "' elements (write it as a count times 'sizeof(" + ename + ")')");
  }
  Expr *n = mkInt(bytes / esize, loc);
  for (const CExpr *f : counts) {
    const CExpr *c = withoutWidening(f, ctx);
    Expr *x = lowerExpr(c, env);
    if (!x->type || x->type->kind != TY_INT)
      fail(c->getExprLoc(), "size of " + of + " is not an integer");
    n = iMul(n, toKind(x, ty_int(), loc), loc);
  }
  return iMax(n, mkInt(0, loc), loc);
}

// `double *t = malloc(...)` / `calloc(...)`: unwritten, or zeros.
void Lowerer::lowerScratchDecl(const VarDecl *v, Env &env, std::vector<Binding> &out) {
  SourceLocation loc = v->getLocation();
  const CallExpr *c = allocationCall(v->getInit());
  MemFn fn = memFunction(c);
  std::string name = v->getNameAsString();
  if (c->getNumArgs() != memArity(fn))
    fail(c->getBeginLoc(), std::string("call to '") + memName(fn) + "' with " +
                               std::to_string(c->getNumArgs()) + " arguments");
  if (fn == MemFn::Realloc)
    fail(c->getBeginLoc(), "realloc into another pointer ('" + name + "') is not "
                           "supported; reallocate in place, 'p = realloc(p, ...)'");
  hoistEffects(v->getInit(), env, out);
  QualType elemC = v->getType()->getPointeeType();
  Type *elem = arrays.at(v).elem;
  std::vector<const CExpr *> size{c->getArg(0)};
  if (fn == MemFn::Calloc)
    size.push_back(c->getArg(1));
  Expr *n = elementCount(size, elemC, "'" + name + "'", env);
  Expr *count = simpleOrBound(dup(arena, n), "n_elems", out, loc);
  // its whole length, as a VLA's: a write that needs the whole array
  // makes it whole once, and updates it from then on (DESIGN 8.16)
  env.sizes[v] = count;
  if (fn == MemFn::Malloc) {
    env.arrays[v] = ArrayVal{}; // nothing written yet
    return;
  }
  Var *t = newPlaceVar({v, kWhole});
  out.push_back({t, at(ex_alloc(arena, ty_array(arena, elem), count), loc), loc});
  env.arrays[v] = ArrayVal{t, n};
}

// The statements that are memory operations: free, memset, memcpy,
// memmove, and `t = realloc(t, ...)`. Null for any other statement.
Expr *Lowerer::lowerMemoryStmt(const CExpr *e, const Rest *next, Env &env,
                               const Tail &tail) {
  const CExpr *x = e->IgnoreParens();
  if (const auto *c = dyn_cast<clang::CStyleCastExpr>(x);
      c && c->getCastKind() == clang::CK_ToVoid)
    x = c->getSubExpr()->IgnoreParens();
  if (isSelfRealloc(x))
    return lowerRealloc(cast<BinaryOperator>(x), next, std::move(env), tail);
  const auto *call = dyn_cast<CallExpr>(x);
  MemFn fn = memFunction(call);
  if (fn == MemFn::None || fn == MemFn::Malloc || fn == MemFn::Calloc || fn == MemFn::Realloc)
    return nullptr; // an allocation whose result is dropped: lowerCall says so
  if (call->getNumArgs() != memArity(fn))
    fail(call->getBeginLoc(), std::string("call to '") + memName(fn) + "' with " +
                                  std::to_string(call->getNumArgs()) + " arguments");
  if (fn == MemFn::Free)
    return lowerFree(call, next, std::move(env), tail);
  return lowerFill(call, next, std::move(env), tail);
}

// No statement that runs after `at` on this path refers to `d`.
void Lowerer::requireUnusedAfter(const VarDecl *d, const Rest *next,
                                 SourceLocation at, const char *what) {
  (void)at;
  for (const Rest *r = next; r; r = r->outer)
    for (const Stmt *s : r->stmts) {
      SourceLocation where;
      if (refersTo(s, d, where))
        fail(where, "'" + d->getNameAsString() + "' is used after " + what + " it");
      // nothing after a jump runs on this path (a break or continue leaves
      // the body that declares the array: the scan of loops sees to that)
      if (isa<clang::ReturnStmt>(s) || isa<clang::BreakStmt>(s) ||
          isa<clang::ContinueStmt>(s))
        return;
    }
}

// free(t): nothing to lower (the emitter frees what it allocates), but
// nothing may refer to t afterwards. The statements after a branch that
// goes on past its `if` are not in `next`, so a free there is accepted
// only for a pointer declared inside that `if`, which no later statement
// can name.
Expr *Lowerer::lowerFree(const CallExpr *c, const Rest *next, Env env, const Tail &tail) {
  const CExpr *a = c->getArg(0);
  const VarDecl *d = arrayDecl(a);
  if (!d || !scratchArrays.count(d))
    fail(a->getExprLoc(), "free of '" + text(a) + "', which is not a pointer this "
                          "function allocated with malloc, calloc or realloc");
  bool bodyEnd = !tail.joined || (!loops.empty() && &tail == loops.back()->bodyTail);
  const clang::SourceManager &sm = ctx.getSourceManager();
  bool declaredInBranch = tail.joined && !tail.whileCond &&
                          sm.isBeforeInTranslationUnit(tail.end, d->getLocation());
  if (!bodyEnd && !declaredInBranch)
    fail(c->getBeginLoc(), "free of '" + d->getNameAsString() + "' in a branch that goes on "
                           "after its 'if' is not supported (free it after the 'if', or "
                           "return after freeing it)");
  requireUnusedAfter(d, next, c->getBeginLoc(), "freeing");
  return lowerSeq(next, std::move(env), tail);
}

// The array a memset/memcpy/memmove destination writes, `t`, `&t[k]` or
// `t + k`, with the offset k (lowered when `env` is given); null if none.
const VarDecl *Lowerer::fillTarget(const CExpr *dst, const Env *env, Expr **offset) {
  const CExpr *e = dst->IgnoreParenCasts();
  if (const VarDecl *d = arrayDecl(e)) {
    if (offset)
      *offset = mkInt(0, dst->getExprLoc());
    return d;
  }
  const CExpr *base = nullptr, *idx = nullptr;
  bool minus = false;
  if (const auto *u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == clang::UO_AddrOf) {
    if (const auto *s = dyn_cast<ArraySubscriptExpr>(u->getSubExpr()->IgnoreParens())) {
      base = s->getBase();
      idx = s->getIdx();
    }
  } else if (const auto *b = dyn_cast<BinaryOperator>(e); b && b->isAdditiveOp()) {
    bool left = b->getLHS()->getType()->isPointerType();
    if (left || b->getOpcode() == clang::BO_Add) {
      base = left ? b->getLHS() : b->getRHS();
      idx = left ? b->getRHS() : b->getLHS();
      minus = b->getOpcode() == clang::BO_Sub;
    }
  }
  const VarDecl *d = base ? arrayDecl(base) : nullptr;
  if (!d || arrays.at(d).cols > 0) // &R[i] is a row, not an element
    return nullptr;
  if (offset && env) {
    Expr *k = lowerIndex(idx, *env);
    *offset = minus ? iSub(mkInt(0, dst->getExprLoc()), k, dst->getExprLoc()) : k;
  }
  return d;
}

// memset(dst, 0, size), memcpy(dst, src, size), memmove(dst, src, size):
// the destination's new value. The source is read as it is before the
// call, which is memmove's meaning (and memcpy's, which may not overlap).
Expr *Lowerer::lowerFill(const CallExpr *c, const Rest *next, Env env, const Tail &tail) {
  SourceLocation loc = c->getBeginLoc();
  MemFn fn = memFunction(c);
  std::string fname = memName(fn);
  const CExpr *dstArg = c->getArg(0);
  Expr *off = nullptr;
  const VarDecl *d = fillTarget(dstArg, &env, &off);
  if (!d)
    fail(dstArg->getExprLoc(), "'" + fname + "' into '" + text(dstArg) + "' is not supported "
                               "(only into an array, '&a[k]' or 'a + k' of one)");
  std::string name = d->getNameAsString();
  const ArrayInfo &info = arrays.at(d);
  if (info.role == ArrayRole::View)
    fail(dstArg->getExprLoc(), "writes through pointer '" + name + "' (by '" + fname +
                                   "') are not supported yet (write the array it points into)");
  if (info.role == ArrayRole::In)
    fail(dstArg->getExprLoc(), "writes to input array '" + name + "' (by '" + fname + "')");
  if (info.scalarReplaced || ownerOf(d))
    fail(dstArg->getExprLoc(), "loop writes array '" + name + "' through '" + fname +
                                   "'; not supported yet");
  std::vector<Binding> pre;
  QualType elemC = scalarElemType(ctx, d);
  Type *elem = info.elem;
  Expr *mExpr = elementCount({c->getArg(2)}, elemC, "'" + name + "'", env);
  Expr *m = simpleOrBound(dup(arena, mExpr), "n_elems", pre, loc);
  off = simpleOrBound(off, "at", pre, loc);
  Var *src = nullptr;
  if (fn == MemFn::Memset) {
    CExpr::EvalResult r;
    const CExpr *v = c->getArg(1);
    if (v->isValueDependent() || !v->EvaluateAsInt(r, ctx) || r.HasSideEffects ||
        r.Val.getInt() != 0)
      fail(v->getExprLoc(), "memset of '" + name + "' to '" + text(v) +
                                "': only 0 is supported (other bytes make no number "
                                "chad can follow)");
  } else {
    const CExpr *s = c->getArg(1);
    const VarDecl *sb = viewBase(s);
    if (!sb)
      fail(s->getExprLoc(), "'" + fname + "' from '" + text(s) + "' is not supported "
                            "(only from an array, '&a[k]' or 'a + k' of one)");
    if (!ctx.hasSameUnqualifiedType(scalarElemType(ctx, sb), elemC))
      fail(s->getExprLoc(), "'" + fname + "' from '" + text(s) + "' into '" + name +
                                "', whose elements have another type");
    const VarDecl *base = nullptr;
    Expr *arr = lowerArrayRef(s, env, base);
    src = var_new(arena, (name + "_src").c_str(), arr->type);
    pre.push_back({src, arr, loc});
  }
  auto valueAt = [&](Expr *j) -> Expr * {
    if (!src)
      return mkConst(elem, 0, loc);
    Expr *e = at(ex_index(arena, mkVar(src, loc), j), loc);
    e->type = elem;
    return e;
  };
  ArrayVal old = env.arrays.at(d);
  bool atZero = isIntConst(off, 0);
  if (!old.value && !atZero)
    fail(dstArg->getExprLoc(), "'" + name + "' is first written at index '" +
                                   text(dstArg) + "' (by '" + fname + "'), not at 0; "
                                   "arrays must be written from index 0 up (the written "
                                   "part is kept as a prefix)");
  bool whole = atZero && (!old.value || (old.len && exprEq(old.len, mExpr)));
  Var *k = var_new(arena, "k", ty_int());
  Expr *value, *len;
  if (whole && !src) {
    len = mExpr;
    value = ex_alloc(arena, ty_array(arena, elem), dup(arena, m));
  } else if (whole) {
    len = mExpr;
    value = ex_build(arena, dup(arena, m), k, valueAt(mkVar(k, loc)));
  } else {
    // elements [off, off + m) are written, the others keep their value
    Expr *end = simpleOrBound(iAdd(dup(arena, off), dup(arena, m), loc), "end", pre, loc);
    len = simpleOrBound(iMax(lenOf(old), dup(arena, end), loc), "len", pre, loc);
    Expr *in = iCmp(P_LT, mkVar(k, loc), dup(arena, end), loc);
    if (!atZero)
      in = mkPrim2(P_AND, iCmp(P_GE, mkVar(k, loc), dup(arena, off), loc), in, loc);
    Expr *body = mkIf(in, valueAt(iSub(mkVar(k, loc), dup(arena, off), loc)),
                      oldElement(old, mkVar(k, loc), true, loc), loc);
    value = ex_build(arena, dup(arena, len), k, body);
  }
  Var *y = newPlaceVar({d, kWhole});
  pre.push_back({y, at(value, loc), loc});
  env.arrays[d] = ArrayVal{y, dup(arena, len)};
  return wrapInLets(pre, lowerSeq(next, std::move(env), tail));
}

// `t = realloc(t, size)`: the elements written so far, up to the new
// length, are kept; the new ones are unwritten.
Expr *Lowerer::lowerRealloc(const BinaryOperator *a, const Rest *next, Env env,
                            const Tail &tail) {
  SourceLocation loc = a->getExprLoc();
  const CallExpr *c = allocationCall(a->getRHS());
  const VarDecl *d = arrayDecl(a->getLHS());
  if (!d || !scratchArrays.count(d))
    fail(c->getArg(0)->getExprLoc(), "realloc of '" + text(c->getArg(0)) + "', which is "
                                     "not a pointer this function allocated with malloc, "
                                     "calloc or realloc");
  std::vector<Binding> pre;
  std::string name = d->getNameAsString();
  Expr *mExpr = elementCount({c->getArg(1)}, scalarElemType(ctx, d), "'" + name + "'",
                             env);
  ArrayVal old = env.arrays.at(d);
  Expr *m = simpleOrBound(dup(arena, mExpr), "n_elems", pre, loc);
  env.sizes[d] = m; /* its whole length from here */
  if (old.value && !(old.len && exprEq(old.len, mExpr))) {
    Expr *had = simpleOrBound(lenOf(old), "had", pre, loc);
    Expr *kept = mkIf(iCmp(P_LT, had, m, loc), dup(arena, had), dup(arena, m), loc);
    kept = simpleOrBound(kept, "kept", pre, loc);
    Var *k = var_new(arena, "k", ty_int());
    Var *y = newPlaceVar({d, kWhole});
    pre.push_back({y,
                   at(ex_build(arena, dup(arena, kept), k,
                               oldElement(old, mkVar(k, loc), false, loc)),
                      loc),
                   loc});
    env.arrays[d] = ArrayVal{y, dup(arena, kept)};
  }
  return wrapInLets(pre, lowerSeq(next, std::move(env), tail));
}

// `p = realloc(p, size)` (through casts), the one assignment to an
// allocated pointer after its declaration.
bool Lowerer::isSelfRealloc(const Stmt *s) {
  const auto *b = dyn_cast<BinaryOperator>(s);
  if (!b || b->getOpcode() != clang::BO_Assign)
    return false;
  const CallExpr *c = allocationCall(b->getRHS());
  if (!c || memFunction(c) != MemFn::Realloc || c->getNumArgs() != 2)
    return false;
  const auto *l = dyn_cast<DeclRefExpr>(b->getLHS()->IgnoreParenImpCasts());
  const auto *r = dyn_cast<DeclRefExpr>(c->getArg(0)->IgnoreParenCasts());
  return l && r && l->getDecl() == r->getDecl();
}

// A loop whose body writes or frees an array declared outside it would
// carry the array from one iteration to the next: not supported yet.
void Lowerer::scanMemoryCall(const CallExpr *c, const Env &env) {
  MemFn fn = memFunction(c);
  if (fn == MemFn::None || fn == MemFn::Malloc || fn == MemFn::Calloc || c->getNumArgs() == 0)
    return;
  const VarDecl *d = fillTarget(c->getArg(0), nullptr, nullptr);
  if (!d || !(env.arrays.count(d) || ownerOf(d)))
    return;
  std::string name = d->getNameAsString();
  if (fn == MemFn::Free)
    fail(c->getBeginLoc(), "loop frees '" + name + "', which is allocated outside it; "
                           "free it after the loop");
  fail(c->getBeginLoc(), "loop writes array '" + name + "' through '" + memName(fn) +
                             "'; not supported yet (arrays carried from one iteration "
                             "to the next)");
}

// An allocation or memory call where lowering cannot take it.
void Lowerer::failMemoryCall(const CallExpr *c) {
  MemFn fn = memFunction(c);
  std::string f = memName(fn);
  if (fn == MemFn::Realloc)
    fail(c->getBeginLoc(), "call to 'realloc' is supported only as 'p = realloc(p, "
                           "n * sizeof *p);' for a pointer p this function allocated");
  if (fn == MemFn::Malloc || fn == MemFn::Calloc)
    fail(c->getBeginLoc(), "call to '" + f + "' is supported only as the initialiser "
                           "of a local pointer to numbers ('double *t = " + f + "(...);'), "
                           "or as its first assignment when declared without a value");
  fail(c->getBeginLoc(), "call to '" + f + "' is supported only as a statement of its own");
}

// `!t`, `t == NULL`, `t != NULL` and `t` as a truth value, for an
// allocated t: a successful allocation is assumed, so these are constants
// (the branch that handles a failed malloc is dead code to chad).
Expr *Lowerer::scratchNullTest(const CExpr *e) {
  if (scratchArrays.empty())
    return nullptr;
  auto scratch = [&](const CExpr *x) {
    const VarDecl *d = arrayDecl(x);
    return d && scratchArrays.count(d);
  };
  auto null = [&](const CExpr *x) {
    return x->isNullPointerConstant(ctx, CExpr::NPC_ValueDependentIsNotNull) !=
           CExpr::NPCK_NotNull;
  };
  SourceLocation loc = e->getExprLoc();
  e = e->IgnoreParens();
  if (const auto *u = dyn_cast<UnaryOperator>(e);
      u && u->getOpcode() == clang::UO_LNot && u->getSubExpr()->getType()->isPointerType() &&
      scratch(u->getSubExpr()))
    return mkInt(0, loc);
  if (const auto *b = dyn_cast<BinaryOperator>(e);
      b && (b->getOpcode() == clang::BO_EQ || b->getOpcode() == clang::BO_NE) &&
      ((scratch(b->getLHS()) && null(b->getRHS())) ||
       (scratch(b->getRHS()) && null(b->getLHS()))))
    return mkInt(b->getOpcode() == clang::BO_NE ? 1 : 0, loc);
  if (e->getType()->isPointerType() && scratch(e))
    return mkInt(1, loc); // a truth value: the only use that lowers a pointer
  return nullptr;
}

} // namespace lowering_detail
} // namespace chad
