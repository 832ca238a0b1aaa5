// lower.cpp: Clang AST -> IR for one function (see lower.h): the signature,
// statements and scalar expressions. Arrays are in lower_arrays.cpp, loops
// in lower_loops.cpp, the shared state in lowerer.h.
//
// Requires: a function definition whose AST Sema accepted; clang's implicit
// conversions are explicit in it (ImplicitCastExpr), so lowering never
// re-derives C's usual arithmetic conversions, it only follows the casts.
// Guarantees: the first unsupported construct is a LowerError at its exact
// location; nothing here reports to clang or aborts.
//
// Statements are lowered in continuation style: lowering a statement also
// lowers everything that runs after it (the "rest"), because an assignment
// becomes a `let` whose body is the rest of the function, and after an early
// `return` in one branch the rest only runs in the other one.
//  * An `if` without a return inside is lowered once, as an expression whose
//    value is the places its branches assign (the join); the rest follows
//    once, after `let`s that rebind those places.
//  * An `if` with a return inside is `if c then (then; rest) else (else;
//    rest)`: the rest is copied when both branches can fall through, the
//    price of having no join points in the IR.
#include "lowering/lowerer.h"

#include <algorithm>
#include <cmath>

#include "lowering/differentiable.h"
#include "lowering/structs.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Type.h"
#include "clang/Basic/SourceManager.h" // not included by Lexer.h since clang 16
#include "clang/Lex/Lexer.h"

namespace chad {
namespace lowering_detail {
namespace {

// ------------------------------------------------------------ types

// The IR type of a C type inside the subset, or null.
Type *scalarType(QualType t) {
  const clang::Type *c = t.getCanonicalType().getTypePtr();
  // An enum is its integer type (unsigned int when no enumerator is
  // negative), with that type's comparisons.
  if (const auto *e = dyn_cast<clang::EnumType>(c))
    return e->getDecl()->isComplete()
               ? scalarType(e->getDecl()->getIntegerType())
               : nullptr;
  const auto *b = dyn_cast<clang::BuiltinType>(c);
  if (!b)
    return nullptr;
  // clang-format off
  switch (b->getKind()) {
  case clang::BuiltinType::Double: return ty_f64();
  case clang::BuiltinType::Float: return ty_f32();
  case clang::BuiltinType::Int: return ty_int();
  case clang::BuiltinType::Bool: // a 0/1 int; conversions to it are explicit
    return ty_int();
  case clang::BuiltinType::Char_S:
  case clang::BuiltinType::Char_U: return ty_intk(IK_CHAR);
  case clang::BuiltinType::SChar: return ty_intk(IK_SCHAR);
  case clang::BuiltinType::UChar: return ty_intk(IK_UCHAR);
  case clang::BuiltinType::Short: return ty_intk(IK_SHORT);
  case clang::BuiltinType::UShort: return ty_intk(IK_USHORT);
  case clang::BuiltinType::UInt: return ty_intk(IK_UINT);
  case clang::BuiltinType::Long: return ty_intk(IK_LONG);
  case clang::BuiltinType::ULong: return ty_intk(IK_ULONG);
  case clang::BuiltinType::LongLong: return ty_intk(IK_LLONG);
  case clang::BuiltinType::ULongLong: return ty_intk(IK_ULLONG);
  default: return nullptr;
  }
  // clang-format on
}

bool isBool(QualType t) { return t.getCanonicalType()->isBooleanType(); }

// 'T', or 'T' (aka 'U') when T is a typedef or an enum.
std::string quotedType(QualType t) {
  QualType c = t.getCanonicalType();
  std::string spelled = t.getUnqualifiedType().getAsString();
  std::string canonical = c.getUnqualifiedType().getAsString();
  if (const auto *e = c->getAs<clang::EnumType>())
    canonical = e->getDecl()->getIntegerType().getAsString();
  std::string out = "'" + spelled + "'";
  if (spelled != canonical)
    out += " (aka '" + canonical + "')";
  return out;
}

// Why `t` is outside the subset. `role` says where it was met
// ("parameter", "return", "variable", ""); `name` names the declaration.
std::string typeProblem(QualType t, const std::string &role,
                        const std::string &name) {
  QualType c = t.getCanonicalType();
  if (c->isPointerType() || c->isBlockPointerType())
    return "pointers are not supported here";
  if (c->isArrayType())
    return "arrays are not supported here";
  if (c->isStructureType())
    return "struct types are not supported";
  if (c->isUnionType())
    return "union types are not supported";
  if (c->isAnyComplexType())
    return "complex types are not supported";
  if (c->isVectorType())
    return "vector types are not supported";
  if (c->isIntegerType() && !c->isBooleanType()) {
    const std::string tail = "; only the standard integer types are supported";
    if (!name.empty())
      return role + " '" + name + "' has type " + quotedType(t) + tail;
    if (role == "return")
      return "return type " + quotedType(t) + " is not supported" + tail;
    return "type " + quotedType(t) + " is not supported" + tail;
  }
  std::string what = role.empty() ? "type" : role + " type";
  return "unsupported " + what + " " + quotedType(t);
}

// ------------------------------------------------- statement scanning

bool containsReturn(const Stmt *s) {
  if (!s)
    return false;
  if (isa<clang::ReturnStmt>(s))
    return true;
  for (const Stmt *c : s->children())
    if (containsReturn(c))
      return true;
  return false;
}

llvm::ArrayRef<const Stmt *> statementsOf(const CompoundStmt *b) {
  return llvm::ArrayRef<const Stmt *>(b->body_begin(), b->body_end());
}

std::string unsupportedStatement(const Stmt *s) {
  if (isa<clang::BreakStmt>(s))
    return "'break' is not supported yet";
  if (isa<clang::ContinueStmt>(s))
    return "'continue' is not supported yet";
  if (isa<clang::SwitchStmt>(s))
    return "switch statements are not supported";
  if (isa<clang::GotoStmt>(s) || isa<clang::IndirectGotoStmt>(s))
    return "goto is not supported";
  if (isa<clang::LabelStmt>(s))
    return "labels are not supported";
  if (isa<clang::AsmStmt>(s))
    return "inline assembly is not supported";
  return std::string("unsupported construct '") + s->getStmtClassName() + "'";
}

std::string unsupportedExpression(const CExpr *e) {
  if (isa<clang::MemberExpr>(e))
    return "struct types are not supported";
  if (isa<clang::StmtExpr>(e))
    return "statement expressions are not supported";
  if (isa<clang::CompoundLiteralExpr>(e))
    return "compound literals are not supported";
  return std::string("unsupported construct '") + e->getStmtClassName() + "'";
}

bool binaryPrim(clang::BinaryOperatorKind op, Prim &p) {
  // clang-format off
  switch (op) {
  case clang::BO_Add: p = P_ADD; return true;
  case clang::BO_Sub: p = P_SUB; return true;
  case clang::BO_Mul: p = P_MUL; return true;
  case clang::BO_Div: p = P_DIV; return true;
  case clang::BO_Rem: p = P_MOD; return true;
  case clang::BO_And: p = P_BAND; return true;
  case clang::BO_Or: p = P_BOR; return true;
  case clang::BO_Xor: p = P_BXOR; return true;
  case clang::BO_Shl: p = P_SHL; return true;
  case clang::BO_Shr: p = P_SHR; return true;
  case clang::BO_LT: p = P_LT; return true;
  case clang::BO_GT: p = P_GT; return true;
  case clang::BO_LE: p = P_LE; return true;
  case clang::BO_GE: p = P_GE; return true;
  case clang::BO_EQ: p = P_EQ; return true;
  case clang::BO_NE: p = P_NE; return true;
  default: return false;
  }
  // clang-format on
}

// An int expression already known to be 0 or 1.
bool isBooleanValued(const Expr *x) {
  if (x->kind == E_CONST)
    return x->type && x->type->kind == TY_INT && (x->ival == 0 || x->ival == 1);
  if (x->kind == E_PRIM) {
    PrimClass c = prim_info(x->op)->cls;
    return c == PC_CMP || c == PC_LOGIC;
  }
  if (x->kind == E_IF)
    return isBooleanValued(x->args[1]) && isBooleanValued(x->args[2]);
  return false;
}

} // namespace

double toDouble(llvm::APFloat f) {
  bool lost = false;
  f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return f.convertToDouble();
}

Type *irScalarType(QualType t) { return scalarType(t); }
bool containsReturnStmt(const Stmt *s) { return containsReturn(s); }

// A `break` (or, unless breaksOnly, a `continue`) of the loop whose body
// holds s, not of a loop or switch inside s: like a return, it makes what
// follows in the body depend on the path.
bool containsLoopExit(const Stmt *s, bool breaksOnly) {
  if (!s || isa<ForStmt>(s) || isa<clang::WhileStmt>(s) || isa<clang::DoStmt>(s) ||
      isa<clang::SwitchStmt>(s))
    return false;
  if (isa<clang::BreakStmt>(s) || (!breaksOnly && isa<clang::ContinueStmt>(s)))
    return true;
  for (const Stmt *c : s->children())
    if (containsLoopExit(c, breaksOnly))
      return true;
  return false;
}
std::string irTypeProblem(QualType t, const std::string &role,
                          const std::string &name) {
  return typeProblem(t, role, name);
}

// ------------------------------------------------------------ lowerer

LoweredFunction Lowerer::run() {
  LoweredFunction out;
  try {
    out.sig = lowerSignature();
    out.signatureOk = true;
    const auto *body = dyn_cast_or_null<CompoundStmt>(fd->getBody());
    if (!body)
      fail(fd->getLocation(), "unsupported function body");
    sinks.apply(const_cast<CompoundStmt *>(body));
    flatRows.apply(fd, const_cast<CompoundStmt *>(body));
    derefs.apply(const_cast<CompoundStmt *>(body));
    chains.apply(const_cast<CompoundStmt *>(body));
    aliases.apply(fd, const_cast<CompoundStmt *>(body));
    prescanArrays(body);
    Rest rest{statementsOf(body), nullptr};
    Tail tail{nullptr, body->getRBracLoc()};
    std::vector<Binding> entry;
    Env env = normalizeBoolParams(body->getLBracLoc(), entry);
    initOutputs(env, entry, fd->getLocation());
    Expr *lowered = wrapInLets(entry, lowerSeq(&rest, std::move(env), tail));
    lowered = tableBindings(lowered);
    // Loops lower their body once per IR loop, each keeping what it needs;
    // the rest, and the poison that nothing depends on, goes here.
    lowered = deadLets(lowered);
    checkPoison(lowered, nullptr, -1);
    out.body = lowered;
    out.callees = callees;
    out.customs = customs;
  } catch (const Unsupported &u) {
    out.body = nullptr;
    out.error = u.error;
  } catch (const std::exception &e) { // a bug here, not in the user's code
    out.body = nullptr;
    out.error = LowerError{fd->getLocation(),
                           std::string("internal error in lowering: ") +
                               e.what()};
  }
  return out;
}

std::string Lowerer::text(const Stmt *s) {
  const clang::SourceManager &sm = ctx.getSourceManager();
  clang::CharSourceRange r = sm.getExpansionRange(s->getSourceRange());
  std::string t =
      clang::Lexer::getSourceText(r, sm, ctx.getLangOpts()).str();
  std::string out;
  bool space = false;
  for (char c : t) { // one line, single spaces
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space)
      out += ' ';
    space = false;
    out += c;
  }
  if (out.size() > 40)
    out = out.substr(0, 37) + "...";
  return out;
}

std::string Lowerer::placeName(const Place &p) {
  std::string n = p.decl->getNameAsString();
  if (p.elem >= 0)
    return n + "[" + std::to_string(p.elem) + "]";
  if (p.elem == kDone)
    return n + "_done";
  if (p.elem == kRetVal)
    return n + "_returned";
  if (p.elem == kExit)
    return n;
  if (p.elem <= kBlock0)
    return n + "[m*i + " + std::to_string(kBlock0 - p.elem) + "]";
  return n;
}

// ---------------------------------------------------------- signature

Type *Lowerer::requireType(QualType t, SourceLocation loc, const char *role,
                           const clang::NamedDecl *named) {
  if (Type *ir = scalarType(t))
    return ir;
  fail(loc, typeProblem(t, role, named ? named->getNameAsString() : ""));
}

Var *Lowerer::newVar(const VarDecl *v) { return newPlaceVar({v, kWhole}); }

Type *Lowerer::placeType(const Place &p) {
  if (p.elem == kDone)
    return ty_int();
  if (p.elem == kRetVal)
    return functionResultType();
  auto it = arrays.find(p.decl);
  if (it == arrays.end())
    return scalarType(p.decl->getType());
  switch (p.elem) {
  case kWhole:
    return ty_array(arena, it->second.elem);
  case kSiteIdx:
    return ty_int();
  default:
    return it->second.elem;
  }
}

Var *Lowerer::newPlaceVar(const Place &p) {
  std::string name = p.decl->getName().str();
  if (const auto *pv = dyn_cast<clang::ParmVarDecl>(p.decl); pv && name.empty())
    name = "unnamed_" + std::to_string(pv->getFunctionScopeIndex()); // C2x
  if (p.elem >= 0)
    name += "_" + std::to_string(p.elem);
  else if (p.elem == kSlot)
    name += "_elt";
  else if (p.elem == kSiteIdx)
    name += "_at";
  else if (p.elem == kSiteVal)
    name += "_add";
  else if (p.elem == kDone)
    name += "_done";
  else if (p.elem == kRetVal)
    name += "_returned";
  else if (p.elem == kExit)
    name += "_exit";
  else if (p.elem <= kBlock0)
    name += "_b" + std::to_string(kBlock0 - p.elem);
  return var_new(arena, name.c_str(), placeType(p));
}

// The IR has no _Bool: a _Bool parameter is an int in f_fwd and f_rev, to
// which a caller may pass 2. C converts that to 1 on the way into f, so the
// body starts with the same conversion, b = (b != 0), bound in `entry`.
// Returns the environment of the body.
Env Lowerer::normalizeBoolParams(SourceLocation loc,
                                 std::vector<Binding> &entry) {
  Env env = paramEnv;
  for (const clang::ParmVarDecl *p : fd->parameters()) {
    if (!isBool(p->getType()))
      continue;
    Var *v = newVar(p);
    Expr *value = mkPrim2(P_NE, mkVar(paramEnv.vars.at({p, kWhole}), loc),
                          mkInt(0, loc), loc);
    entry.push_back({v, value, loc});
    env.vars[{p, kWhole}] = v;
  }
  return env;
}

Expr *Lowerer::wrapInLets(const std::vector<Binding> &bindings, Expr *body) {
  for (auto b = bindings.rbegin(); b != bindings.rend(); ++b)
    body = mkLet(b->var, b->value, body, b->loc);
  return body;
}

Signature Lowerer::lowerSignature() {
  Signature s;
  s.name = fd->getNameAsString();
  s.loc = locs.toIR(fd->getLocation());
  s.isStatic = !fd->isExternallyVisible();
  if (fd->isVariadic())
    fail(fd->getLocation(), "variadic functions are not supported");
  classifyParams(s); // fills params, classes, `arrays`, `outputs`
  QualType ret = fd->getReturnType();
  returnsVoid = ret->isVoidType();
  if (returnsVoid && outputs.empty())
    fail(fd->getLocation(), "function returns void and writes no output "
                            "array (a 'double *' or 'float *' parameter)");
  s.ret = resultType(fd, /*forCall=*/false);
  return s;
}

// --------------------------------------------------------- statements

Expr *Lowerer::lowerSeq(const Rest *rest, Env env, const Tail &tail) {
  while (rest && rest->stmts.empty())
    rest = rest->outer;
  if (!rest)
    return finish(env, tail);
  Rest next{rest->stmts.drop_front(), rest->outer};
  return lowerStmt(rest->stmts.front(), &next, std::move(env), tail);
}

Expr *Lowerer::lowerStmt(const Stmt *s, const Rest *next, Env env,
                         const Tail &tail) {
  // Copying the rest after early returns is exponential in the worst case
  // (a row of ifs that each may return and may fall through): stop with an
  // error long before memory runs out.
  if (++statementsLowered > kMaxStatementsLowered)
    fail(fd->getLocation(), "too many paths through early returns (the code "
                            "after each one is copied per path) or through "
                            "nested loops (each IR loop lowers its body)");
  if (const auto *b = dyn_cast<CompoundStmt>(s)) {
    Rest inner{statementsOf(b), next};
    return lowerSeq(&inner, std::move(env), tail);
  }
  if (isa<clang::NullStmt>(s))
    return lowerSeq(next, std::move(env), tail);
  if (const auto *d = dyn_cast<clang::DeclStmt>(s))
    return lowerDeclStmt(d, next, std::move(env), tail);
  if (const auto *r = dyn_cast<clang::ReturnStmt>(s))
    return lowerReturn(r, std::move(env)); // what follows never runs
  if (const auto *i = dyn_cast<IfStmt>(s))
    return lowerIf(i, next, std::move(env), tail);
  if (const auto *b = dyn_cast<clang::BreakStmt>(s)) {
    // the loop ends here: this iteration yields the places' current values,
    // and the flag makes the iterations after it do nothing
    if (loops.empty() || !loops.back()->bodyTail || !loops.back()->hasBreak ||
        loops.back()->inlined.size())
      fail(b->getBeginLoc(), "'break' here is not supported yet (only in the "
                             "body of a loop that is not nested in a loop "
                             "flattened with it)");
    return leaveLoop(1, std::move(env), b->getBeginLoc());
  }
  if (const auto *c = dyn_cast<clang::ContinueStmt>(s)) {
    // the iteration ends here: what follows in the body never runs
    if (loops.empty() || !loops.back()->bodyTail || loops.back()->inlined.size())
      fail(c->getBeginLoc(), "'continue' here is not supported yet (only in the "
                             "body of a loop that is not nested in a loop "
                             "flattened with it)");
    return finish(env, *loops.back()->bodyTail);
  }
  if (const auto *f = dyn_cast<ForStmt>(s))
    return lowerFor(f, next, std::move(env), tail);
  if (isa<clang::WhileStmt>(s) || isa<clang::DoStmt>(s))
    return lowerWhile(s, next, std::move(env), tail);
  if (const auto *a = dyn_cast<clang::AttributedStmt>(s))
    return lowerStmt(a->getSubStmt(), next, std::move(env), tail);
  if (const auto *e = dyn_cast<CExpr>(s))
    return lowerExprStmt(e, next, std::move(env), tail);
  fail(s->getBeginLoc(), unsupportedStatement(s));
}

Expr *Lowerer::finish(const Env &env, const Tail &tail, bool leaving) {
  if (!tail.joined) {
    if (returnsVoid)
      return outputResult(nullptr, env, tail.end);
    fail(tail.end, "missing return");
  }
  if (!tail.whileCond)
    return joinedValues(env, tail);
  // a while or do body: the condition decides whether to go on, its
  // effects (`n--`) are part of the state it yields
  if (leaving)
    return mkTuple({mkInt(0, tail.end), joinedValues(env, tail)}, tail.end);
  Env after = env;
  std::vector<Binding> hoisted;
  hoistEffects(tail.whileCond, after, hoisted);
  Expr *go = lowerCondition(tail.whileCond, after);
  return wrapInLets(hoisted, mkTuple({go, joinedValues(after, tail)}, tail.end));
}

// The places a block yields, in the order of tail.joined.
Expr *Lowerer::joinedValues(const Env &env, const Tail &tail) {
  std::vector<Expr *> values;
  for (const Place &p : *tail.joined) {
    if (p.elem == kWhole && arrays.count(p.decl)) {
      const ArrayVal &a = env.arrays.at(p.decl);
      // Unwritten on this path: the written prefix is empty.
      values.push_back(a.value ? ex_var(arena, a.value)
                               : emptyArray(arrays.at(p.decl).elem));
      continue;
    }
    auto it = env.vars.find(p);
    if (it == env.vars.end())
      fail(tail.end, "internal error: '" + placeName(p) + "' is not in scope "
                     "at the end of a block");
    Var *current = it->second;
    // Unassigned on this path: any value will do, C would read garbage.
    values.push_back(current ? ex_var(arena, current)
                             : ex_const(arena, placeType(p), 0));
  }
  if (values.size() == 1 && !tail.tuple)
    return values[0];
  return ex_tuple(arena, (int)values.size(), values.data());
}

void Lowerer::checkLocalDeclaration(const clang::Decl *d) {
  if (const auto *r = dyn_cast<clang::RecordDecl>(d))
    fail(d->getLocation(), r->isUnion() ? "union types are not supported"
                                        : "struct types are not supported");
  // Names only: they change no value.
  if (isa<clang::TypedefNameDecl>(d) || isa<clang::EnumDecl>(d) ||
      isa<FunctionDecl>(d) || isa<clang::StaticAssertDecl>(d))
    return;
  fail(d->getLocation(),
       std::string("unsupported declaration '") + d->getDeclKindName() + "'");
}

void Lowerer::checkLocalVariable(const VarDecl *v) {
  if (v->getType()->isArrayType() && tableOf(v))
    return; // a constant table, static or not
  if (v->isStaticLocal() || v->getTSCSpec() != clang::TSCS_unspecified)
    fail(v->getLocation(), "static local variables are not supported");
  if (v->hasExternalStorage())
    fail(v->getLocation(), "extern declarations inside functions are not "
                           "supported");
  QualType t = v->getType();
  if (t->isPointerType()) { // a view: checked where it is bound
    if (!arrays.count(v) || !arrays.at(v).elem)
      fail(v->getLocation(), "local pointer variable '" + v->getNameAsString() +
                                 "' of type '" + t.getAsString() +
                                 "' is not supported (only pointers to numbers)");
    return;
  }
  if (t->isArrayType())
    return; // registerLocalArray checks it
  requireType(t, v->getLocation(), "variable", v);
}

Expr *Lowerer::lowerDeclStmt(const clang::DeclStmt *s, const Rest *next,
                             Env env, const Tail &tail) {
  std::vector<Binding> bindings;
  for (const clang::Decl *d : s->decls()) {
    const auto *v = dyn_cast<VarDecl>(d);
    if (!v) {
      checkLocalDeclaration(d);
      continue;
    }
    checkLocalVariable(v);
    if (v->getType()->isArrayType() && tableOf(v))
      continue; // read where it is used (lower_tables.cpp)
    if (v->getType()->isArrayType()) {
      lowerLocalArrayDecl(v, env, bindings);
      continue;
    }
    if (v->getType()->isPointerType()) {
      lowerPointerDecl(v, env, bindings);
      continue;
    }
    if (!v->getInit()) {
      env.vars[{v, kWhole}] = nullptr;
      continue;
    }
    hoistEffects(v->getInit(), env, bindings);
    lowerEffects(v->getInit(), env, bindings);
    Expr *value = lowerExpr(v->getInit(), env);
    Var *var = newVar(v);
    noteZero(var, value);
    env.vars[{v, kWhole}] = var;
    bindings.push_back({var, value, v->getLocation()});
  }
  return wrapInLets(bindings, lowerSeq(next, std::move(env), tail));
}

Expr *Lowerer::lowerReturn(const clang::ReturnStmt *r, Env env) {
  // Sema already converted the value to the return type.
  const CExpr *value = r->getRetValue();
  if (!value) {
    if (!returnsVoid)
      fail(r->getBeginLoc(), "missing return value");
    return outputResult(nullptr, env, r->getBeginLoc());
  }
  if (returnsVoid) // `return f();` of a void f: the call is the statement
    fail(r->getBeginLoc(), "returning a void expression is not supported");
  std::vector<Binding> bindings;
  hoistEffects(value, env, bindings);
  lowerEffects(value, env, bindings);
  Expr *v = lowerExpr(value, env);
  return wrapInLets(bindings, returnValue(v, std::move(env), r->getBeginLoc()));
}

// The function returns `value` (null: void) here: at once, or from inside
// a loop by ending it with the flag 2 and the value in its state (lowerFor
// returns after the loop).
Expr *Lowerer::returnValue(Expr *value, Env env, SourceLocation loc) {
  if (loops.empty())
    return outputResult(value, env, loc);
  LoopCtx *lc = loops.back();
  if (!lc->hasReturn || !lc->bodyTail || lc->inlined.size())
    fail(loc, "'return' here is not supported yet (only in the body of a "
              "loop that is not nested in a loop flattened with it)");
  if (value) {
    Place ret{lc->h.counter, kRetVal};
    Var *v = newPlaceVar(ret);
    env.vars[ret] = v;
    return mkLet(v, value, leaveLoop(2, std::move(env), loc), loc);
  }
  return leaveLoop(2, std::move(env), loc);
}

// Ends the innermost loop's iteration with its flag set to `how` (1: break,
// 2: return): the iterations after it do nothing.
Expr *Lowerer::leaveLoop(long long how, Env env, SourceLocation loc) {
  LoopCtx *lc = loops.back();
  Place done{lc->h.counter, kDone}, exit{lc->h.counter, kExit};
  Var *flag = newPlaceVar(done);
  env.vars[done] = flag;
  if (env.vars.count(exit) && env.vars.count({lc->h.counter, kWhole}))
    env.vars[exit] = env.vars.at({lc->h.counter, kWhole}); // where it broke
  return mkLet(flag, mkInt(how, loc), finish(env, *lc->bodyTail, true), loc);
}

// The IR type of the C function's value (unit for void).
Type *Lowerer::functionResultType() {
  if (returnsVoid)
    return ty_unit(arena);
  Type *t = scalarType(fd->getReturnType());
  return t ? t : ty_unit(arena);
}

// A place that a statement assigns, if it was in scope before it.
void Lowerer::addJoined(const Place &p, const Env &env,
                        std::vector<Place> &out) {
  bool inScope = p.elem == kWhole && arrays.count(p.decl)
                     ? env.arrays.count(p.decl) != 0
                     : env.vars.count(p) != 0;
  if (inScope && std::find(out.begin(), out.end(), p) == out.end())
    out.push_back(p);
}

// The places of `env` that `s` may assign, in order of first assignment:
// the values a return-free `if` yields.
void Lowerer::collectAssigned(const Stmt *s, const Env &env,
                              std::vector<Place> &out) {
  if (!s)
    return;
  const CExpr *target = nullptr;
  if (const auto *b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp())
    target = b->getLHS();
  else if (const auto *u = dyn_cast<UnaryOperator>(s);
           u && u->isIncrementDecrementOp())
    target = u->getSubExpr();
  if (target) {
    target = target->IgnoreParens();
    if (const auto *d = dyn_cast<DeclRefExpr>(target)) {
      if (const auto *v = dyn_cast<VarDecl>(d->getDecl()))
        addJoined({v, kWhole}, env, out);
    } else if (const auto *sub = dyn_cast<ArraySubscriptExpr>(target)) {
      if (const VarDecl *a = arrayBase(sub, false)) {
        Place p{a, kWhole};
        switch (resolveWrite(sub, a, cast<CExpr>(s), p)) {
        case Res::Element:
        case Res::Slot:
          addJoined(p, env, out);
          break;
        case Res::SiteTarget:
          addJoined({a, kSiteIdx}, env, out);
          addJoined({a, kSiteVal}, env, out);
          break;
        case Res::Skip:
          break;
        case Res::Direct:
          addJoined({a, kWhole}, env, out);
          break;
        }
      }
    }
  }
  if (const auto *c = dyn_cast<CallExpr>(s)) {
    if (const VarDecl *d = memoryWriteTarget(c)) // memset, memcpy, memmove
      addJoined({d, kWhole}, env, out);
    const FunctionDecl *callee = c->getDirectCallee();
    if (callee && (isDifferentiable(callee) || isCustom(callee)) && calleeWritesArrays(callee))
      for (unsigned i = 0; i < c->getNumArgs() && i < callee->getNumParams(); i++) {
        ParamClass cls;
        Type *t = nullptr;
        std::string problem;
        const VarDecl *a = wholeArrayArg(c->getArg(i));
        long long at, width;
        if (!a && stridedCallOutput(c->getArg(i), a, at, width)) { // its block
          for (long long q = at; q < at + width; q++)
            addJoined({a, kBlock0 - (int)q}, env, out);
          continue;
        }
        if (!a) // a view: the call writes into the array it views
          a = viewBase(c->getArg(i));
        if (a && classifyParam(callee->getParamDecl(i), cls, t, problem) &&
            (cls == PARAM_OUT_ARRAY || cls == PARAM_INOUT_ARRAY)) // the arrays it writes
          addJoined({a, kWhole}, env, out);
      }
  }
  for (const Stmt *c : s->children())
    collectAssigned(c, env, out);
}

Expr *Lowerer::lowerIf(const IfStmt *s, const Rest *next, Env env,
                       const Tail &tail) {
  std::vector<Binding> hoisted;
  hoistEffects(s->getCond(), env, hoisted);
  return wrapInLets(hoisted, lowerIfHoisted(s, next, std::move(env), tail));
}

Expr *Lowerer::lowerIfHoisted(const IfStmt *s, const Rest *next, Env env,
                              const Tail &tail) {
  Expr *cond = lowerCondition(s->getCond(), env);
  const Stmt *thenStmt = s->getThen();
  const Stmt *elseStmt = s->getElse();
  llvm::ArrayRef<const Stmt *> thenStmts(thenStmt);
  llvm::ArrayRef<const Stmt *> elseStmts;
  if (elseStmt)
    elseStmts = llvm::ArrayRef<const Stmt *>(elseStmt);

  // A constant condition (`if (!t)` after `t = malloc(...)`, see
  // lower_memory.cpp) runs one branch: the other is dead code, as in C.
  long long known;
  if (intConst(cond, known)) {
    Rest chosen{known ? thenStmts : elseStmts, next};
    return lowerSeq(&chosen, std::move(env), tail);
  }

  if (containsReturn(s) || containsLoopExit(s, false)) {
    Rest thenRest{thenStmts, next};
    Rest elseRest{elseStmts, next};
    Expr *t = lowerSeq(&thenRest, env, tail);
    Expr *e = lowerSeq(&elseRest, env, tail);
    return mkIf(cond, t, e, s->getIfLoc());
  }

  std::vector<Place> joined;
  collectAssigned(s, env, joined);
  Tail join{&joined, s->getIfLoc()};
  Rest thenOnly{thenStmts, nullptr};
  Rest elseOnly{elseStmts, nullptr};
  Expr *t = lowerSeq(&thenOnly, env, join);
  Expr *e = lowerSeq(&elseOnly, env, join);
  if (joined.empty()) // it changes nothing: lowered only for its errors
    return lowerSeq(next, std::move(env), tail);
  return bindJoined(joined, mkIf(cond, t, e, s->getIfLoc()), s->getIfLoc(),
                    next, std::move(env), tail);
}

// let x = <if> in rest, or for several places
// let branch = <if> in let x = get 0 branch in let y = get 1 branch in rest.
Expr *Lowerer::bindJoined(const std::vector<Place> &joined, Expr *value,
                          SourceLocation loc, const Rest *next, Env env,
                          const Tail &tail) {
  std::vector<Var *> vars;
  for (const Place &p : joined) {
    vars.push_back(newPlaceVar(p));
    if (p.elem == kWhole && arrays.count(p.decl)) {
      // a whole array stays whole: its writes are updates, which keep
      // its length (DESIGN 8.16)
      Expr *len = isWhole(p.decl, env) && env.arrays.at(p.decl).len
                      ? dup(arena, env.arrays.at(p.decl).len)
                      : nullptr;
      env.arrays[p.decl] = ArrayVal{vars.back(), len};
    } else
      env.vars[p] = vars.back();
  }
  Expr *body = lowerSeq(next, std::move(env), tail);
  if (vars.size() == 1)
    return mkLet(vars[0], value, body, loc);
  std::vector<Type *> types;
  for (Var *v : vars)
    types.push_back(v->type);
  Var *branch = var_new(arena, "branch",
                        ty_tuple(arena, (int)types.size(), types.data()));
  for (int i = (int)vars.size() - 1; i >= 0; i--)
    body = mkLet(vars[i], mkGet(i, mkVar(branch, loc), loc), body, loc);
  return mkLet(branch, value, body, loc);
}

// A statement that is an expression: assignments become lets, anything
// else computes a value nobody uses and is lowered only for its errors.
Expr *Lowerer::lowerExprStmt(const CExpr *e, const Rest *next, Env env,
                             const Tail &tail) {
  e = e->IgnoreParens();
  if (const auto *b = dyn_cast<BinaryOperator>(e); b && b->getOpcode() == clang::BO_Comma) {
    const Stmt *both[2] = {b->getLHS(), b->getRHS()};
    Rest pair{both, next};
    return lowerSeq(&pair, std::move(env), tail);
  }
  std::vector<Binding> hoisted;
  hoistEffects(e, env, hoisted, true);
  return wrapInLets(hoisted, lowerRootEffect(e, next, std::move(env), tail));
}

// The effect of an expression statement whose nested effects are hoisted.
Expr *Lowerer::lowerRootEffect(const CExpr *e, const Rest *next, Env env,
                               const Tail &tail) {
  SourceLocation loc = e->getExprLoc();
  if (Expr *m = lowerMemoryStmt(e, next, env, tail)) // free, memcpy, ...
    return m;
  const CExpr *target = nullptr;
  if (const auto *b = dyn_cast<BinaryOperator>(e); b && b->isAssignmentOp())
    target = b->getLHS()->IgnoreParens();
  else if (const auto *u = dyn_cast<UnaryOperator>(e);
           u && u->isIncrementDecrementOp())
    target = u->getSubExpr()->IgnoreParens();
  if (const auto *sub = dyn_cast_or_null<ArraySubscriptExpr>(target))
    return lowerElementWrite(e, sub, next, std::move(env), tail);

  if (target) {
    Place place = scalarTarget(target);
    std::vector<Binding> effects;
    if (const auto *b = dyn_cast<BinaryOperator>(e); b && b->isAssignmentOp())
      lowerEffects(b->getRHS(), env, effects); // a call that writes arrays
    Expr *old = nullptr;
    Expr *value = effectValue(e, place, env, old);
    return wrapInLets(effects, assignPlace(place, value, loc, next, std::move(env), tail));
  }
  const CExpr *value = e;
  if (const auto *c = dyn_cast<clang::CStyleCastExpr>(e);
      c && c->getCastKind() == clang::CK_ToVoid) {
    value = c->getSubExpr();
    // `(void)p;` of an array or pointer, said to silence -Wunused-parameter
    if (const auto *d = dyn_cast<DeclRefExpr>(value->IgnoreParenImpCasts());
        d && (d->getType()->isPointerType() || d->getType()->isArrayType()))
      return lowerSeq(next, std::move(env), tail);
  }
  std::vector<Binding> effects;
  lowerEffects(value, env, effects);
  if (const CallExpr *call = effectCallIn(value);
      !call || effectValues.count(call) == 0)
    lowerExpr(value, env);
  return wrapInLets(effects, lowerSeq(next, std::move(env), tail));
}

// The scalar place an assignment, compound assignment, ++ or -- writes.
Place Lowerer::scalarTarget(const CExpr *target) {
  SourceLocation tloc = target->getExprLoc();
  const auto *d = dyn_cast<DeclRefExpr>(target);
  const auto *v = d ? dyn_cast<VarDecl>(d->getDecl()) : nullptr;
  if (!v) {
    if (const auto *u = dyn_cast<UnaryOperator>(target);
        u && u->getOpcode() == clang::UO_Deref)
      fail(tloc, "pointer dereference '" + text(target) +
                     "' is not supported yet (write 'p[0]')");
    if (isa<clang::MemberExpr>(target))
      fail(tloc, "struct types are not supported");
    fail(tloc, "unsupported assignment target");
  }
  if (!v->hasLocalStorage())
    fail(tloc, "writes to global variable '" + v->getNameAsString() + "'");
  if (arrays.count(v) || v->getType()->isPointerType())
    fail(tloc, "assignment to pointer '" + v->getNameAsString() +
                   "' is not supported");
  return {v, kWhole};
}

// The new value of `place` written by e (an assignment, compound
// assignment, ++ or --), in the place's type; `oldValue` its value before.
Expr *Lowerer::effectValue(const CExpr *e, const Place &place, const Env &env,
                           Expr *&oldValue) {
  SourceLocation loc = e->getExprLoc();
  if (const auto *c = dyn_cast<clang::CompoundAssignOperator>(e)) {
    QualType lhsType = c->getLHS()->getType();
    oldValue = readPlace(place, loc, env);
    Expr *old = convert(dup(arena, oldValue), lhsType, c->getComputationLHSType(), loc);
    Prim p;
    if (!binaryPrim(BinaryOperator::getOpForCompoundAssignment(c->getOpcode()),
                    p))
      fail(loc, "operator '" + c->getOpcodeStr().str() + "' is not supported");
    Expr *result = markContract(mkPrim2(p, old, lowerExpr(c->getRHS(), env), loc),
                                nullptr, c->getRHS());
    return convert(result, c->getComputationResultType(), lhsType, loc);
  }
  if (const auto *b = dyn_cast<BinaryOperator>(e); b && b->getOpcode() == clang::BO_Assign)
    return lowerExpr(b->getRHS(), env); // already of the lhs type
  const auto *u = cast<UnaryOperator>(e);
  QualType type = u->getSubExpr()->getType();
  // C computes x + 1 in the promoted type: int for a _Bool.
  QualType promoted = isBool(type) ? ctx.IntTy : type;
  oldValue = readPlace(place, loc, env);
  Expr *old = convert(dup(arena, oldValue), type, promoted, loc);
  Expr *one = mkConst(scalarType(promoted), 1, loc);
  Expr *result = mkPrim2(u->isIncrementOp() ? P_ADD : P_SUB, old, one, loc);
  return convert(result, promoted, type, loc);
}

// ------------------------------------- side effects nested in expressions
//
// C lets assignments, compound assignments, ++ and -- stand inside an
// expression (`f -= (p = pow(p, 0.2))`, `x[i++]`, `y = (t = a, t * t)`).
// Before a statement's own effect is lowered, hoistEffects lowers the
// effects nested in it, in evaluation order (operands left to right, which
// is C's order wherever C fixes one: a program that depends on the order of
// unsequenced effects is undefined), binding each written place anew in
// `env`, and records the value of each such expression: the new value, or
// for a postfix ++ or -- the old one. lowerExpr reads the values back, only
// for the current statement (hoistEpoch): any other lowering of such an
// expression stays an error, never a stale value.
// `rootIsStatement`: root is an expression statement, whose own effect its
// statement lowers; any other root (an initialiser, a condition, a returned
// value) is hoisted whole.
void Lowerer::hoistEffects(const CExpr *root, Env &env, std::vector<Binding> &out,
                           bool rootIsStatement) {
  ++hoistEpoch;
  hoistWalk(root, rootIsStatement ? root : nullptr, false, env, out);
}

static bool isSideEffect(const CExpr *e) {
  if (const auto *b = dyn_cast<BinaryOperator>(e))
    return b->isAssignmentOp();
  const auto *u = dyn_cast<UnaryOperator>(e);
  return u && u->isIncrementDecrementOp();
}

// `conditional`: C evaluates e only under a condition (an operand of && ||
// or a branch of ?:), where hoisting would run the effect always.
void Lowerer::hoistWalk(const CExpr *e, const CExpr *root, bool conditional, Env &env,
                        std::vector<Binding> &out) {
  // a statement expression is an error anyway; the operand of sizeof and
  // _Alignof, and the unchosen ones of _Generic, are never evaluated
  if (!e || isa<clang::StmtExpr>(e) || isa<clang::UnaryExprOrTypeTraitExpr>(e) ||
      isa<clang::GenericSelectionExpr>(e))
    return;
  auto walk = [&](const Stmt *c, bool cond) {
    if (const auto *x = dyn_cast_or_null<CExpr>(c))
      hoistWalk(x, root, cond, env, out);
  };
  if (const auto *b = dyn_cast<BinaryOperator>(e); b && b->isLogicalOp()) {
    walk(b->getLHS(), conditional);
    walk(b->getRHS(), true);
    return;
  }
  if (const auto *c = dyn_cast<clang::AbstractConditionalOperator>(e)) {
    walk(c->getCond(), conditional);
    walk(c->getTrueExpr(), true);
    walk(c->getFalseExpr(), true);
    return;
  }
  for (const Stmt *c : e->children())
    walk(c, conditional);
  if (e != root && isSideEffect(e))
    hoistOne(e, conditional, env, out);
}

void Lowerer::hoistOne(const CExpr *e, bool conditional, Env &env,
                       std::vector<Binding> &out) {
  SourceLocation loc = e->getExprLoc();
  if (conditional)
    fail(loc, "assignment '" + text(e) + "' in an operand that C evaluates only "
              "under a condition (of '&&', '||' or '?:') is not supported");
  const CExpr *target = isa<BinaryOperator>(e)
                            ? cast<BinaryOperator>(e)->getLHS()->IgnoreParens()
                            : cast<UnaryOperator>(e)->getSubExpr()->IgnoreParens();
  if (isa<ArraySubscriptExpr>(target))
    fail(loc, "assignment to an array element inside an expression ('" + text(e) +
                  "') is not supported yet; write it as a statement of its own");
  Place place = scalarTarget(target);
  Expr *old = nullptr;
  Expr *value = effectValue(e, place, env, old);
  Var *var = newPlaceVar(place);
  noteZero(var, value);
  out.push_back({var, value, loc});
  env.vars[place] = var;
  const auto *u = dyn_cast<UnaryOperator>(e);
  Expr *result = u && u->isPostfix() ? old : mkVar(var, loc);
  sideValues[e] = {result, hoistEpoch};
}

// Is e (an assignment or ++/--) inside an expression, rather than a
// statement of its own or a loop's step?
bool Lowerer::nestedInExpression(const CExpr *e) {
  for (const clang::DynTypedNode &parent : ctx.getParents(*e)) {
    if (const auto *p = parent.get<CExpr>())
      return !isa<clang::ParenExpr>(p) || nestedInExpression(p);
    if (parent.get<clang::VarDecl>() || parent.get<clang::ReturnStmt>())
      return true;
    if (const auto *i = parent.get<IfStmt>())
      return i->getCond() == e;
    if (const auto *f = parent.get<ForStmt>())
      return f->getCond() == e;
  }
  return false;
}

// A float accumulator that starts at +0 sums exactly as C adds (see
// lower_loops.cpp): remember which variables hold the literal +0.
void Lowerer::noteZero(Var *v, const Expr *value) {
  if (value->kind == E_CONST && value->type && type_is_float(value->type) &&
      value->fval == 0 && !std::signbit(value->fval))
    zeroConst.insert(v);
}

Expr *Lowerer::assignPlace(const Place &p, Expr *value, SourceLocation loc,
                           const Rest *next, Env env, const Tail &tail) {
  Var *var = newPlaceVar(p);
  noteZero(var, value);
  env.vars[p] = var;
  return mkLet(var, value, lowerSeq(next, std::move(env), tail), loc);
}

// -------------------------------------------------------- expressions

Type *Lowerer::exprType(const CExpr *e) {
  if (Type *t = scalarType(e->getType()))
    return t;
  fail(e->getExprLoc(), typeProblem(e->getType(), "", ""));
}

Expr *Lowerer::lowerExpr(const CExpr *e, const Env &env) {
  // Sema already reported what is wrong here; lowering says nothing more.
  if (e->containsErrors())
    throw Unsupported{{e->getExprLoc(), ""}};
  e = e->IgnoreParens();
  if (auto it = sideValues.find(e);
      it != sideValues.end() && it->second.second == hoistEpoch)
    return dup(arena, it->second.first);
  if (const auto *c = dyn_cast<clang::ConstantExpr>(e))
    return lowerExpr(c->getSubExpr(), env);
  if (Expr *k = scratchNullTest(e)) // `!t` after `t = malloc(...)`
    return k;
  SourceLocation loc = e->getExprLoc();
  // Casts and calls check their types themselves, to say more than
  // "unsupported type".
  if (const auto *c = dyn_cast<CastExpr>(e))
    return lowerCast(c, env);
  if (const auto *c = dyn_cast<CallExpr>(e))
    return lowerCall(c, env);
  if (const auto *s = dyn_cast<ArraySubscriptExpr>(e))
    return lowerSubscriptRead(s, env);
  if (const auto *u = dyn_cast<UnaryOperator>(e)) {
    if (u->getOpcode() == clang::UO_AddrOf)
      fail(loc, "address-of '" + text(u) + "' is not supported");
    if (u->getOpcode() == clang::UO_Deref)
      fail(loc, "pointer dereference '" + text(u) +
                    "' is not supported yet (write 'p[0]')");
  }
  if (const auto *b = dyn_cast<BinaryOperator>(e);
      b && (b->getLHS()->getType()->isPointerType() ||
            b->getRHS()->getType()->isPointerType())) {
    if (b->getOpcode() == clang::BO_Sub && b->getLHS()->getType()->isPointerType() &&
        b->getRHS()->getType()->isPointerType())
      return lowerPointerDifference(b, env);
    if (b->isAdditiveOp() || b->isCompoundAssignmentOp())
      fail(loc, "pointer arithmetic '" + text(b) + "' is not supported yet");
    if (b->isComparisonOp())
      fail(loc, "pointer comparison '" + text(b) + "' is not supported");
  }
  if (const auto *d = dyn_cast<DeclRefExpr>(e))
    if (const auto *v = dyn_cast<VarDecl>(d->getDecl());
        v && v->getType()->isArrayType() && tableOf(v))
      fail(loc, "table '" + v->getNameAsString() +
                    "' used as a whole; only its elements can be read");
  if (const auto *d = dyn_cast<DeclRefExpr>(e))
    if (const auto *v = dyn_cast<VarDecl>(d->getDecl());
        v && (arrays.count(v) || v->getType()->isPointerType() ||
              v->getType()->isArrayType()))
      fail(loc, "use of array '" + v->getNameAsString() +
                    "' other than indexing it or passing it to a "
                    "differentiable function is not supported yet");
  Type *t = exprType(e);
  if (const auto *d = dyn_cast<DeclRefExpr>(e))
    return lowerDeclRef(d, env);
  if (const auto *i = dyn_cast<clang::IntegerLiteral>(e))
    return at(intConstant(i->getValue(), i->getType()->isUnsignedIntegerType(), t), loc);
  if (isa<clang::UnaryExprOrTypeTraitExpr>(e) || isa<clang::OffsetOfExpr>(e))
    if (Expr *k = foldConstant(e, t)) // sizeof, _Alignof, offsetof
      return at(k, loc);
  if (const auto *u = dyn_cast<clang::UnaryExprOrTypeTraitExpr>(e))
    return vlaSizeof(u, t, env);
  if (const auto *c = dyn_cast<clang::CharacterLiteral>(e))
    return mkInt((long long)c->getValue(), loc);
  if (const auto *f = dyn_cast<clang::FloatingLiteral>(e))
    return mkConst(t, toDouble(f->getValue()), loc);
  if (const auto *u = dyn_cast<UnaryOperator>(e))
    return lowerUnary(u, env);
  if (const auto *b = dyn_cast<BinaryOperator>(e))
    return lowerBinary(b, env);
  if (const auto *c = dyn_cast<clang::ConditionalOperator>(e))
    return mkIf(lowerCondition(c->getCond(), env),
                lowerExpr(c->getTrueExpr(), env),
                lowerExpr(c->getFalseExpr(), env), loc);
  fail(loc, unsupportedExpression(e));
}

Expr *Lowerer::readPlace(const Place &p, SourceLocation loc, const Env &env) {
  auto it = env.vars.find(p);
  if (it == env.vars.end())
    fail(loc, "unsupported use of '" + placeName(p) + "'");
  if (!it->second)
    fail(loc, "'" + placeName(p) + "' is read before it is assigned");
  auto poison = poisons.find(it->second);
  if (poison != poisons.end() && !poison->second.readMsg.empty())
    fail(loc, poison->second.readMsg);
  return mkVar(it->second, loc);
}

Expr *Lowerer::lowerDeclRef(const DeclRefExpr *d, const Env &env) {
  SourceLocation loc = d->getExprLoc();
  const clang::ValueDecl *decl = d->getDecl();
  if (const auto *v = dyn_cast<VarDecl>(decl))
    return v->hasLocalStorage()
               ? readPlace({v, kWhole}, loc, env)
               : lowerGlobalRead(v, exprType(d), loc);
  if (const auto *c = dyn_cast<clang::EnumConstantDecl>(decl))
    return mkInt(c->getInitVal().getSExtValue(), loc);
  fail(loc, "unsupported reference to '" + decl->getNameAsString() + "'");
}

// A global is state the derivative cannot see, unless it is a constant.
Expr *Lowerer::lowerGlobalRead(const VarDecl *v, Type *t, SourceLocation loc) {
  if (v->getType().isConstQualified())
    if (const CExpr *init = v->getAnyInitializer())
      if (Expr *k = foldConstant(init, t))
        return at(k, loc);
  fail(loc, "reads of global variable '" + v->getNameAsString() + "'");
}

// An integer constant of IR integer type t (the bits of v as C converts
// them to t).
Expr *Lowerer::intConstant(const llvm::APInt &v, bool isUnsigned, Type *t) {
  long long x = v.getBitWidth() > 64 ? 0
                : isUnsigned        ? (long long)v.getZExtValue()
                                    : v.getSExtValue();
  return ex_const_int(arena, t, x);
}

// The value of a constant expression as a constant of IR type `t`, or null.
Expr *Lowerer::foldConstant(const CExpr *e, Type *t) {
  CExpr::EvalResult r;
  if (e->isValueDependent() || !e->EvaluateAsRValue(r, ctx) || r.HasSideEffects)
    return nullptr;
  if (r.Val.isInt() && t->kind == TY_INT)
    return intConstant(r.Val.getInt(), r.Val.getInt().isUnsigned(), t);
  if (r.Val.isFloat() && type_is_float(t))
    return ex_const(arena, t, toDouble(r.Val.getFloat()));
  return nullptr;
}

Expr *Lowerer::lowerCast(const CastExpr *c, const Env &env) {
  SourceLocation loc = c->getExprLoc();
  const CExpr *sub = c->getSubExpr();
  switch (c->getCastKind()) {
  case clang::CK_LValueToRValue:
  case clang::CK_NoOp:
    return lowerExpr(sub, env);
  case clang::CK_IntegralToFloating:
  case clang::CK_FloatingCast:
  case clang::CK_FloatingToIntegral:
  case clang::CK_IntegralCast:
  case clang::CK_IntegralToBoolean:
  case clang::CK_FloatingToBoolean: {
    Type *to = exprType(c);
    // A converted constant is a constant: `x > 1` compares with 1.0, not
    // with to_f64 1, and constants of types outside the subset (2L, 1u,
    // sizeof x) are fine once converted to one inside it.
    if (Expr *k = foldConstant(c, to))
      return at(k, loc);
    return convert(lowerExpr(sub, env), sub->getType(), c->getType(), loc);
  }
  case clang::CK_ToVoid:
    fail(loc, "casts to void inside an expression are not supported");
  case clang::CK_ArrayToPointerDecay:
    return lowerExpr(sub, env); // says what is wrong with the array use
  case clang::CK_PointerToBoolean:
    fail(loc, "pointer used as a truth value ('" + text(c) +
                  "') is not supported");
  default:
    exprType(c); // pointer conversions say so
    fail(loc,
         std::string("unsupported conversion '") + c->getCastKindName() + "'");
  }
}

// `sizeof a` of a variable-length array `T a[n]` (T of constant size):
// n * sizeof(T). C takes n as the declaration evaluated it, so n must be
// a variable the function never writes, or a constant expression of such.
Expr *Lowerer::vlaSizeof(const clang::UnaryExprOrTypeTraitExpr *u, Type *t, const Env &env) {
  SourceLocation loc = u->getExprLoc();
  const clang::VariableArrayType *vla =
      u->getKind() == clang::UETT_SizeOf ? ctx.getAsVariableArrayType(u->getTypeOfArgument()) : nullptr;
  if (!vla || !vla->getSizeExpr() || ctx.getAsVariableArrayType(vla->getElementType()))
    fail(loc, "'" + text(u) + "' is not a constant; only the size of a type, of a "
                  "fixed-size object or of a one-dimensional variable-length array is "
                  "supported");
  const CExpr *n = vla->getSizeExpr();
  bool unchanged = !n->HasSideEffects(ctx);
  std::function<void(const clang::Stmt *)> check = [&](const clang::Stmt *s) {
    if (const auto *r = dyn_cast<DeclRefExpr>(s))
      unchanged = unchanged && (!isa<VarDecl>(r->getDecl()) || neverWritten(r->getDecl()));
    for (const clang::Stmt *c : s->children())
      if (c)
        check(c);
  };
  check(n);
  if (!unchanged)
    fail(loc, "'" + text(u) + "' of a variable-length array whose length '" + text(n) +
                  "' may change after its declaration; not supported");
  long long bytes = (long long)ctx.getTypeSizeInChars(vla->getElementType()).getQuantity();
  Expr *count = convert(lowerExpr(n, env), n->getType(), u->getType(), loc);
  return iMul(count, mkConst(t, (double)bytes, loc), loc);
}

// C's conversion of a scalar from type `from` to type `to`.
Expr *Lowerer::convert(Expr *x, QualType from, QualType to,
                       SourceLocation loc) {
  if (isBool(to) && !isBool(from))
    return truthValue(x, loc);
  Type *f = scalarType(from), *t = scalarType(to);
  if (!f || !t)
    fail(loc, typeProblem(f ? to : from, "", ""));
  if (type_eq(f, t))
    return x;
  return mkPrim1(prim_cast_to(t), x, loc);
}

// 0 or 1, as C's conversion to _Bool and the operands of && || give.
Expr *Lowerer::truthValue(Expr *x, SourceLocation loc) {
  if (x->type && type_is_float(x->type))
    return mkPrim2(P_NE, x, mkConst(x->type, 0, loc), loc);
  if (isBooleanValued(x))
    return x;
  return mkPrim2(P_NE, x, x->type ? mkConst(x->type, 0, loc) : mkInt(0, loc), loc);
}

// An int condition for E_IF, which takes any nonzero int as true.
Expr *Lowerer::lowerCondition(const CExpr *e, const Env &env) {
  Expr *x = lowerExpr(e, env);
  if (x->type && type_is_float(x->type))
    return truthValue(x, e->getExprLoc());
  return x;
}

Expr *Lowerer::lowerUnary(const UnaryOperator *u, const Env &env) {
  SourceLocation loc = u->getExprLoc();
  const CExpr *sub = u->getSubExpr();
  std::string op = UnaryOperator::getOpcodeStr(u->getOpcode()).str();
  switch (u->getOpcode()) {
  case clang::UO_Minus:
    return mkPrim1(P_NEG, lowerExpr(sub, env), loc);
  case clang::UO_Plus:
    return lowerExpr(sub, env);
  case clang::UO_Not:
    return mkPrim1(P_BNOT, lowerExpr(sub, env), loc);
  case clang::UO_LNot: {
    Expr *x = lowerExpr(sub, env);
    if (x->type && type_is_float(x->type))
      return mkPrim2(P_EQ, x, mkConst(x->type, 0, loc), loc);
    return mkPrim1(P_NOT, x, loc);
  }
  case clang::UO_PreInc:
  case clang::UO_PreDec:
  case clang::UO_PostInc:
  case clang::UO_PostDec:
    fail(loc, "'" + op + "' inside an expression is not supported");
  case clang::UO_Real:
  case clang::UO_Imag:
    fail(loc, "complex types are not supported");
  default:
    fail(loc, "operator '" + op + "' is not supported");
  }
}

// x + 0 where 0 is an accumulator's per-iteration start (see
// lower_loops.cpp) is x: a sum body then yields the increment itself.
// Integer 0 + x, x * 1 and 0 * x fold too, so that an index spelled
// `0 + 0 * R->nrows` is seen as the 0 it is.
Expr *Lowerer::mkPrim2(Prim p, Expr *x, Expr *y, SourceLocation loc) {
  if (p == P_ADD && isZeroVar(x))
    return y;
  if ((p == P_ADD || p == P_SUB) && isZeroVar(y))
    return x;
  if (p == P_SUB && isZeroVar(x))
    return at(ex_prim1(arena, P_NEG, y), loc);
  if (Expr *folded = foldIntegerIdentity(p, x, y))
    return folded;
  return at(ex_prim2(arena, p, x, y), loc);
}

// The operand that x p y equals, for integers of one type: both operands
// are pure (effects are hoisted before lowering), and integer 0 * x is 0
// even where x would overflow.
Expr *Lowerer::foldIntegerIdentity(Prim p, Expr *x, Expr *y) {
  if (!x->type || !y->type || x->type->kind != TY_INT || !type_eq(x->type, y->type))
    return nullptr;
  switch (p) {
  case P_ADD:
    return isIntConst(x, 0) ? y : isIntConst(y, 0) ? x : nullptr;
  case P_SUB:
    return isIntConst(y, 0) ? x : nullptr;
  case P_MUL:
    if (isIntConst(x, 0) || isIntConst(y, 1))
      return x;
    return isIntConst(y, 0) || isIntConst(x, 1) ? y : nullptr;
  default:
    return nullptr;
  }
}

Expr *Lowerer::lowerBinary(const BinaryOperator *b, const Env &env) {
  SourceLocation loc = b->getExprLoc();
  if (b->isAssignmentOp())
    fail(loc, "assignment inside an expression is not supported");
  if (b->getOpcode() == clang::BO_Comma) {
    lowerExpr(b->getLHS(), env); // its effects were hoisted; its value is dropped
    return lowerExpr(b->getRHS(), env);
  }
  if (b->isLogicalOp())
    return lowerLogical(b, env);
  Prim p;
  if (!binaryPrim(b->getOpcode(), p))
    fail(loc, "operator '" + b->getOpcodeStr().str() + "' is not supported");
  Expr *l = lowerExpr(b->getLHS(), env);
  Expr *r = lowerExpr(b->getRHS(), env);
  return markContract(mkPrim2(p, l, r, loc), b->getLHS(), b->getRHS());
}

// Is e, parentheses aside, a floating multiplication (no conversion in
// between)? clang forms llvm.fmuladd from such an operand of + or -.
static bool isFloatMul(const CExpr *e) {
  const auto *m = dyn_cast<BinaryOperator>(e->IgnoreParens());
  return m && m->getOpcode() == clang::BO_Mul && m->getType()->isRealFloatingType();
}

// Notes on an add or sub which operand C may fuse with it (see
// Expr.contract in ir.h): clang tries the left operand first.
Expr *Lowerer::markContract(Expr *sum, const CExpr *lhs, const CExpr *rhs) {
  if (sum->kind != E_PRIM || (sum->op != P_ADD && sum->op != P_SUB) || !sum->type ||
      !type_is_float(sum->type))
    return sum;
  if (lhs && isFloatMul(lhs) && sum->args[0]->kind == E_PRIM && sum->args[0]->op == P_MUL)
    sum->contract = 1;
  else if (isFloatMul(rhs) && sum->args[1]->kind == E_PRIM && sum->args[1]->op == P_MUL)
    sum->contract = 2;
  return sum;
}

// C evaluates the right operand only when needed; a strict P_AND would
// evaluate `y / x` in `x != 0 && y / x > 1`.
Expr *Lowerer::lowerLogical(const BinaryOperator *b, const Env &env) {
  SourceLocation loc = b->getExprLoc();
  Expr *l = lowerCondition(b->getLHS(), env);
  Expr *r = truthValue(lowerExpr(b->getRHS(), env), loc);
  long long known; // `!t || ...` after a malloc: one operand decides
  if (intConst(l, known))
    return b->getOpcode() == clang::BO_LAnd ? (known ? r : mkInt(0, loc))
                                            : (known ? mkInt(1, loc) : r);
  if (b->getOpcode() == clang::BO_LAnd)
    return mkIf(l, r, mkInt(0, loc), loc);
  return mkIf(l, mkInt(1, loc), r, loc);
}

Expr *Lowerer::lowerCall(const CallExpr *c, const Env &env) {
  SourceLocation loc = c->getBeginLoc();
  const FunctionDecl *callee = c->getDirectCallee();
  if (!callee)
    fail(loc, "calls through function pointers are not supported");
  std::string name = callee->getNameAsString();
  if (isCustom(callee))
    return lowerCustomCall(c, callee, env);
  if (isDifferentiable(callee))
    return lowerDifferentiableCall(c, callee, env);
  MathFunction m;
  if (lookupMathFunction(name, m))
    if (Expr *x = lowerMathCall(c, m, env))
      return x;
  // a call clang evaluates at compile time (NAN is __builtin_nanf(""))
  if (Type *t = scalarType(c->getType()))
    if (Expr *k = foldConstant(c, t))
      return at(k, loc);
  if (isMemoryCall(c)) // malloc, free, memcpy... where they cannot be lowered
    failMemoryCall(c);
  fail(loc, "call to '" + name + "' which is not differentiable");
}

// The int n when a lowered exponent of pow is n converted to a float type
// (`pow(x, n)`, `pow(x, 3)`) or a float constant of integer value
// (`pow(x, 2.0)`): pow(x, n) then has the derivative n x^(n-1), finite for
// x <= 0, which does not need log(x) as a general exponent's does.
static Expr *intExponent(Arena *arena, Expr *e) {
  if (e->kind == E_PRIM && (e->op == P_TO_F64 || e->op == P_TO_F32) &&
      e->args[0]->type && type_eq(e->args[0]->type, ty_int()))
    return e->args[0];
  if (e->kind == E_CONST && type_is_float(e->type) && std::trunc(e->fval) == e->fval &&
      std::fabs(e->fval) <= 2147483647.0) {
    Expr *n = ex_int(arena, (long long)e->fval);
    n->loc = e->loc;
    return n;
  }
  return nullptr;
}

// Null when the call does not have the standard signature (a user function
// that happens to be called `sin`).
Expr *Lowerer::lowerMathCall(const CallExpr *c, const MathFunction &m,
                             const Env &env) {
  Type *want = m.isFloat ? ty_f32() : ty_f64();
  const PrimInfo *pi = prim_info(m.prim);
  if ((int)c->getNumArgs() != pi->arity)
    return nullptr;
  Type *ret = scalarType(c->getType());
  if (!ret || !type_eq(ret, want))
    return nullptr;
  for (unsigned i = 0; i < c->getNumArgs(); i++) {
    // ldexp and scalbn take the exponent as an int
    Type *need = pi->cls == PC_MATH_INT && i == 1 ? ty_int() : want;
    Type *t = scalarType(c->getArg(i)->getType());
    if (!t || !type_eq(t, need))
      return nullptr;
  }
  std::vector<Expr *> args;
  for (const CExpr *a : c->arguments())
    args.push_back(lowerExpr(a, env));
  Prim op = m.prim;
  if (op == P_POW)
    if (Expr *n = intExponent(arena, args[1])) {
      op = P_POWI;
      args[1] = n;
    }
  return at(ex_prim(arena, op, (int)args.size(), args.data()), c->getBeginLoc());
}

} // namespace lowering_detail

LoweredFunction lowerFunction(const clang::FunctionDecl *fd, Arena *arena,
                              SourceLocs &locs) {
  if (usesStructs(fd))
    return lowerFlattened(fd, arena, locs);
  return lowering_detail::Lowerer(fd, arena, locs).run();
}

} // namespace chad
