// lower.cpp: Clang AST -> IR for one function (see lower.h).
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
//    value is the variables its branches assign (the join); the rest follows
//    once, after `let`s that rebind those variables.
//  * An `if` with a return inside is `if c then (then; rest) else (else;
//    rest)`: the rest is copied when both branches can fall through, the
//    price of having no join points in the IR.
#include "lowering/lower.h"

#include <algorithm>
#include <map>

#include "lowering/differentiable.h"
#include "lowering/math_functions.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/Type.h"

namespace chad {
namespace {

// Clang and the IR both have an Expr and a Type: in this file `Expr` and
// `Type` are the IR's, Clang's are spelled CExpr and clang::Type.
using CExpr = clang::Expr;
using clang::BinaryOperator;
using clang::CallExpr;
using clang::CastExpr;
using clang::CompoundStmt;
using clang::DeclRefExpr;
using clang::dyn_cast;
using clang::FunctionDecl;
using clang::IfStmt;
using clang::isa;
using clang::QualType;
using clang::SourceLocation;
using clang::Stmt;
using clang::UnaryOperator;
using clang::VarDecl;

// Thrown at the first unsupported construct and caught in Lowerer::run
// only: no exception ever crosses a clang frame.
struct Unsupported {
  LowerError error;
};

// The current SSA variable of each C variable in scope; null while the C
// variable is declared but not yet assigned.
using Env = std::map<const VarDecl *, Var *>;

// The statements still to run: the rest of the innermost block, then the
// rest of the enclosing ones. Nodes live on the stack of the lowering.
struct Rest {
  llvm::ArrayRef<const Stmt *> stmts;
  const Rest *outer;
};

// Where control goes when the statements run out.
struct Tail {
  // null: off the end of the function, which is an error; otherwise the end
  // of a branch of a return-free `if`, whose value is these variables.
  const std::vector<const VarDecl *> *joined;
  SourceLocation end; // the closing brace, for "missing return"
};

// `let var = value` waiting for its body.
struct Binding {
  Var *var;
  Expr *value;
  SourceLocation loc;
};

// ------------------------------------------------------------ types

// The IR type of a C type inside the subset, or null.
Type *scalarType(QualType t) {
  const clang::Type *c = t.getCanonicalType().getTypePtr();
  // An enum is its integer type, which clang makes unsigned int when no
  // enumerator is negative: such an enum is outside the subset, else its
  // comparisons would be unsigned.
  if (const auto *e = dyn_cast<clang::EnumType>(c))
    return e->getDecl()->isComplete()
               ? scalarType(e->getDecl()->getIntegerType())
               : nullptr;
  const auto *b = dyn_cast<clang::BuiltinType>(c);
  if (!b)
    return nullptr;
  switch (b->getKind()) {
  case clang::BuiltinType::Double:
    return ty_f64();
  case clang::BuiltinType::Float:
    return ty_f32();
  case clang::BuiltinType::Int:
  case clang::BuiltinType::Bool: // a 0/1 int; conversions to it are explicit
    return ty_int();
  default:
    return nullptr;
  }
}

bool isBool(QualType t) { return t.getCanonicalType()->isBooleanType(); }

// Why `t` is outside the subset. `role` says where it was met
// ("parameter type", "return type", "variable type", "type").
std::string typeProblem(QualType t, const char *role) {
  QualType c = t.getCanonicalType();
  if (c->isPointerType() || c->isBlockPointerType())
    return "pointers are not supported yet";
  if (c->isArrayType())
    return "arrays are not supported yet";
  if (c->isStructureType())
    return "struct types are not supported";
  if (c->isUnionType())
    return "union types are not supported";
  if (c->isAnyComplexType())
    return "complex types are not supported";
  if (c->isVectorType())
    return "vector types are not supported";
  std::string spelled = t.getUnqualifiedType().getAsString();
  std::string canonical = c.getUnqualifiedType().getAsString();
  if (const auto *e = c->getAs<clang::EnumType>())
    canonical = e->getDecl()->getIntegerType().getAsString();
  std::string msg = std::string("unsupported ") + role + " '" + spelled + "'";
  if (spelled != canonical)
    msg += " (aka '" + canonical + "')";
  return msg;
}

double toDouble(llvm::APFloat f) {
  bool lost = false;
  f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return f.convertToDouble();
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

// The variable an assignment, compound assignment or ++/-- writes, if it is
// a plain variable (other targets are rejected when lowered).
const VarDecl *writtenVariable(const Stmt *s) {
  const CExpr *target = nullptr;
  if (const auto *b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp())
    target = b->getLHS();
  else if (const auto *u = dyn_cast<UnaryOperator>(s);
           u && u->isIncrementDecrementOp())
    target = u->getSubExpr();
  if (!target)
    return nullptr;
  if (const auto *d = dyn_cast<DeclRefExpr>(target->IgnoreParens()))
    return dyn_cast<VarDecl>(d->getDecl());
  return nullptr;
}

// The variables of `env` (declared before `s`) that `s` may assign, in
// order of first assignment: the values a return-free `if` yields.
void collectAssigned(const Stmt *s, const Env &env,
                     std::vector<const VarDecl *> &out) {
  if (!s)
    return;
  if (const VarDecl *v = writtenVariable(s))
    if (env.count(v) && std::find(out.begin(), out.end(), v) == out.end())
      out.push_back(v);
  for (const Stmt *c : s->children())
    collectAssigned(c, env, out);
}

llvm::ArrayRef<const Stmt *> statementsOf(const CompoundStmt *b) {
  return llvm::ArrayRef<const Stmt *>(b->body_begin(), b->body_end());
}

std::string unsupportedStatement(const Stmt *s) {
  if (isa<clang::ForStmt>(s) || isa<clang::WhileStmt>(s) ||
      isa<clang::DoStmt>(s))
    return "loops are not supported yet";
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
  if (isa<clang::ArraySubscriptExpr>(e))
    return "arrays are not supported yet";
  if (isa<clang::MemberExpr>(e))
    return "struct types are not supported";
  if (isa<clang::StmtExpr>(e))
    return "statement expressions are not supported";
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

// ------------------------------------------------------------ lowerer

class Lowerer {
public:
  Lowerer(const FunctionDecl *fd, Arena *arena, SourceLocs &locs)
      : fd(fd), ctx(fd->getASTContext()), arena(arena), locs(locs) {}

  LoweredFunction run();

private:
  [[noreturn]] void fail(SourceLocation loc, std::string what) {
    throw Unsupported{{loc, std::move(what)}};
  }

  // signature
  Signature lowerSignature();
  Type *requireType(QualType t, SourceLocation loc, const char *role);
  Var *newVar(const VarDecl *v);
  Env normalizeBoolParams(SourceLocation loc, std::vector<Binding> &entry);
  Expr *wrapInLets(const std::vector<Binding> &bindings, Expr *body);

  // statements
  Expr *lowerSeq(const Rest *rest, Env env, const Tail &tail);
  Expr *lowerStmt(const Stmt *s, const Rest *next, Env env, const Tail &tail);
  Expr *finish(const Env &env, const Tail &tail);
  Expr *lowerDeclStmt(const clang::DeclStmt *s, const Rest *next, Env env,
                      const Tail &tail);
  Type *checkLocalVariable(const VarDecl *v);
  void checkLocalDeclaration(const clang::Decl *d);
  Expr *lowerReturn(const clang::ReturnStmt *r, const Env &env);
  Expr *lowerIf(const IfStmt *s, const Rest *next, Env env, const Tail &tail);
  Expr *bindJoined(const std::vector<const VarDecl *> &joined, Expr *value,
                   SourceLocation loc, const Rest *next, Env env,
                   const Tail &tail);
  Expr *lowerExprStmt(const CExpr *e, const Rest *next, Env env,
                      const Tail &tail);
  Expr *assign(const VarDecl *v, Expr *value, SourceLocation loc,
               const Rest *next, Env env, const Tail &tail);
  const VarDecl *assignmentTarget(const CExpr *lhs);

  // expressions
  Expr *lowerExpr(const CExpr *e, const Env &env);
  Type *exprType(const CExpr *e);
  Expr *readVariable(const VarDecl *v, SourceLocation loc, const Env &env);
  Expr *lowerDeclRef(const DeclRefExpr *d, Type *t, const Env &env);
  Expr *lowerGlobalRead(const VarDecl *v, Type *t, SourceLocation loc);
  Expr *lowerCast(const CastExpr *c, const Env &env);
  Expr *foldConstant(const CExpr *e, Type *t);
  Expr *lowerUnary(const UnaryOperator *u, const Env &env);
  Expr *lowerBinary(const BinaryOperator *b, const Env &env);
  Expr *lowerLogical(const BinaryOperator *b, const Env &env);
  Expr *lowerCall(const CallExpr *c, const Env &env);
  Expr *lowerMathCall(const CallExpr *c, const MathFunction &m, const Env &env);
  Expr *lowerDifferentiableCall(const CallExpr *c, const FunctionDecl *callee,
                                const Env &env);
  Expr *lowerCondition(const CExpr *e, const Env &env);
  Expr *truthValue(Expr *x, SourceLocation loc);
  Expr *convert(Expr *x, QualType from, QualType to, SourceLocation loc);

  // located builders
  Expr *at(Expr *e, SourceLocation loc) {
    e->loc = locs.toIR(loc);
    return e;
  }
  Expr *mkInt(long long v, SourceLocation loc) {
    return at(ex_int(arena, v), loc);
  }
  Expr *mkConst(Type *t, double v, SourceLocation loc) {
    return at(ex_const(arena, t, v), loc);
  }
  Expr *mkVar(Var *v, SourceLocation loc) { return at(ex_var(arena, v), loc); }
  Expr *mkPrim1(Prim p, Expr *x, SourceLocation loc) {
    return at(ex_prim1(arena, p, x), loc);
  }
  Expr *mkPrim2(Prim p, Expr *x, Expr *y, SourceLocation loc) {
    return at(ex_prim2(arena, p, x, y), loc);
  }
  Expr *mkIf(Expr *c, Expr *t, Expr *e, SourceLocation loc) {
    return at(ex_if(arena, c, t, e), loc);
  }
  Expr *mkLet(Var *v, Expr *rhs, Expr *body, SourceLocation loc) {
    return at(ex_let(arena, v, rhs, body), loc);
  }

  const FunctionDecl *fd;
  clang::ASTContext &ctx;
  Arena *arena;
  SourceLocs &locs;
  Env paramEnv;
  std::vector<CalleeUse> callees;
  long statementsLowered = 0;
  static constexpr long kMaxStatementsLowered = 200000;
};

LoweredFunction Lowerer::run() {
  LoweredFunction out;
  try {
    out.sig = lowerSignature();
    out.signatureOk = true;
    const auto *body = llvm::dyn_cast_or_null<CompoundStmt>(fd->getBody());
    if (!body)
      fail(fd->getLocation(), "unsupported function body");
    Rest rest{statementsOf(body), nullptr};
    Tail tail{nullptr, body->getRBracLoc()};
    std::vector<Binding> entry;
    Env env = normalizeBoolParams(body->getLBracLoc(), entry);
    out.body = wrapInLets(entry, lowerSeq(&rest, std::move(env), tail));
    out.callees = callees;
  } catch (const Unsupported &u) {
    out.body = nullptr;
    out.error = u.error;
  }
  return out;
}

// ---------------------------------------------------------- signature

Type *Lowerer::requireType(QualType t, SourceLocation loc, const char *role) {
  if (Type *ir = scalarType(t))
    return ir;
  fail(loc, typeProblem(t, role));
}

Var *Lowerer::newVar(const VarDecl *v) {
  std::string name = v->getName().str();
  if (const auto *p = dyn_cast<clang::ParmVarDecl>(v); p && name.empty())
    name = "unnamed_" + std::to_string(p->getFunctionScopeIndex()); // C2x
  return var_new(arena, name.c_str(), scalarType(v->getType()));
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
    Expr *value = mkPrim2(P_NE, mkVar(paramEnv.at(p), loc), mkInt(0, loc), loc);
    entry.push_back({v, value, loc});
    env[p] = v;
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
  QualType ret = fd->getReturnType();
  if (ret->isVoidType())
    fail(fd->getLocation(), "function returns void");
  SourceLocation retLoc = fd->getReturnTypeSourceRange().getBegin();
  s.ret = requireType(ret, retLoc.isValid() ? retLoc : fd->getLocation(),
                      "return type");
  for (const clang::ParmVarDecl *p : fd->parameters()) {
    requireType(p->getType(), p->getLocation(), "parameter type");
    Var *v = newVar(p);
    paramEnv[p] = v;
    s.params.push_back(v);
  }
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
                            "after each one is copied per path)");
  if (const auto *b = dyn_cast<CompoundStmt>(s)) {
    Rest inner{statementsOf(b), next};
    return lowerSeq(&inner, std::move(env), tail);
  }
  if (isa<clang::NullStmt>(s))
    return lowerSeq(next, std::move(env), tail);
  if (const auto *d = dyn_cast<clang::DeclStmt>(s))
    return lowerDeclStmt(d, next, std::move(env), tail);
  if (const auto *r = dyn_cast<clang::ReturnStmt>(s))
    return lowerReturn(r, env); // what follows a return never runs
  if (const auto *i = dyn_cast<IfStmt>(s))
    return lowerIf(i, next, std::move(env), tail);
  if (const auto *a = dyn_cast<clang::AttributedStmt>(s))
    return lowerStmt(a->getSubStmt(), next, std::move(env), tail);
  if (const auto *e = dyn_cast<CExpr>(s))
    return lowerExprStmt(e, next, std::move(env), tail);
  fail(s->getBeginLoc(), unsupportedStatement(s));
}

Expr *Lowerer::finish(const Env &env, const Tail &tail) {
  if (!tail.joined)
    fail(tail.end, "missing return");
  std::vector<Expr *> values;
  for (const VarDecl *v : *tail.joined) {
    Var *current = env.at(v);
    // Unassigned on this path: any value will do, C would read garbage.
    values.push_back(current ? ex_var(arena, current)
                             : ex_const(arena, scalarType(v->getType()), 0));
  }
  if (values.size() == 1)
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

Type *Lowerer::checkLocalVariable(const VarDecl *v) {
  if (v->isStaticLocal() || v->getTSCSpec() != clang::TSCS_unspecified)
    fail(v->getLocation(), "static local variables are not supported");
  if (v->hasExternalStorage())
    fail(v->getLocation(), "extern declarations inside functions are not "
                           "supported");
  return requireType(v->getType(), v->getLocation(), "variable type");
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
    if (!v->getInit()) {
      env[v] = nullptr;
      continue;
    }
    Expr *value = lowerExpr(v->getInit(), env);
    Var *var = newVar(v);
    env[v] = var;
    bindings.push_back({var, value, v->getLocation()});
  }
  return wrapInLets(bindings, lowerSeq(next, std::move(env), tail));
}

Expr *Lowerer::lowerReturn(const clang::ReturnStmt *r, const Env &env) {
  // Sema already converted the value to the return type.
  const CExpr *value = r->getRetValue();
  if (!value)
    fail(r->getBeginLoc(), "missing return value");
  return lowerExpr(value, env);
}

Expr *Lowerer::lowerIf(const IfStmt *s, const Rest *next, Env env,
                       const Tail &tail) {
  Expr *cond = lowerCondition(s->getCond(), env);
  const Stmt *thenStmt = s->getThen();
  const Stmt *elseStmt = s->getElse();
  llvm::ArrayRef<const Stmt *> thenStmts(thenStmt);
  llvm::ArrayRef<const Stmt *> elseStmts;
  if (elseStmt)
    elseStmts = llvm::ArrayRef<const Stmt *>(elseStmt);

  if (containsReturn(s)) {
    Rest thenRest{thenStmts, next};
    Rest elseRest{elseStmts, next};
    Expr *t = lowerSeq(&thenRest, env, tail);
    Expr *e = lowerSeq(&elseRest, env, tail);
    return mkIf(cond, t, e, s->getIfLoc());
  }

  std::vector<const VarDecl *> joined;
  collectAssigned(s, env, joined);
  Tail join{&joined, SourceLocation()};
  Rest thenOnly{thenStmts, nullptr};
  Rest elseOnly{elseStmts, nullptr};
  Expr *t = lowerSeq(&thenOnly, env, join);
  Expr *e = lowerSeq(&elseOnly, env, join);
  if (joined.empty()) // it changes nothing: lowered only for its errors
    return lowerSeq(next, std::move(env), tail);
  return bindJoined(joined, mkIf(cond, t, e, s->getIfLoc()), s->getIfLoc(),
                    next, std::move(env), tail);
}

// let x = <if> in rest, or for several variables
// let branch = <if> in let x = get 0 branch in let y = get 1 branch in rest.
Expr *Lowerer::bindJoined(const std::vector<const VarDecl *> &joined,
                          Expr *value, SourceLocation loc, const Rest *next,
                          Env env, const Tail &tail) {
  if (joined.size() == 1) {
    Var *v = newVar(joined[0]);
    env[joined[0]] = v;
    return mkLet(v, value, lowerSeq(next, std::move(env), tail), loc);
  }
  std::vector<Type *> types;
  for (const VarDecl *v : joined)
    types.push_back(scalarType(v->getType()));
  Var *branch = var_new(arena, "branch",
                        ty_tuple(arena, (int)types.size(), types.data()));
  std::vector<Var *> vars;
  for (const VarDecl *v : joined) {
    vars.push_back(newVar(v));
    env[v] = vars.back();
  }
  Expr *body = lowerSeq(next, std::move(env), tail);
  for (int i = (int)vars.size() - 1; i >= 0; i--)
    body = mkLet(vars[i], at(ex_get(arena, i, mkVar(branch, loc)), loc), body,
                 loc);
  return mkLet(branch, value, body, loc);
}

// A statement that is an expression: assignments become lets, anything
// else computes a value nobody uses and is lowered only for its errors.
Expr *Lowerer::lowerExprStmt(const CExpr *e, const Rest *next, Env env,
                             const Tail &tail) {
  e = e->IgnoreParens();
  SourceLocation loc = e->getExprLoc();
  if (const auto *c = dyn_cast<clang::CompoundAssignOperator>(e)) {
    const VarDecl *v = assignmentTarget(c->getLHS());
    QualType lhsType = c->getLHS()->getType();
    Expr *old = convert(readVariable(v, loc, env), lhsType,
                        c->getComputationLHSType(), loc);
    Prim p;
    if (!binaryPrim(BinaryOperator::getOpForCompoundAssignment(c->getOpcode()),
                    p))
      fail(loc, "operator '" + c->getOpcodeStr().str() + "' is not supported");
    Expr *result = mkPrim2(p, old, lowerExpr(c->getRHS(), env), loc);
    Expr *value = convert(result, c->getComputationResultType(), lhsType, loc);
    return assign(v, value, loc, next, std::move(env), tail);
  }
  if (const auto *b = dyn_cast<BinaryOperator>(e)) {
    if (b->getOpcode() == clang::BO_Assign) {
      const VarDecl *v = assignmentTarget(b->getLHS());
      Expr *value = lowerExpr(b->getRHS(), env); // already of the lhs type
      return assign(v, value, loc, next, std::move(env), tail);
    }
    if (b->getOpcode() == clang::BO_Comma) {
      const Stmt *both[2] = {b->getLHS(), b->getRHS()};
      Rest pair{both, next};
      return lowerSeq(&pair, std::move(env), tail);
    }
  }
  if (const auto *u = dyn_cast<UnaryOperator>(e);
      u && u->isIncrementDecrementOp()) {
    const VarDecl *v = assignmentTarget(u->getSubExpr());
    QualType type = u->getSubExpr()->getType();
    // C computes x + 1 in the promoted type: int for a _Bool.
    QualType promoted = isBool(type) ? ctx.IntTy : type;
    Expr *old = convert(readVariable(v, loc, env), type, promoted, loc);
    Expr *one = mkConst(scalarType(promoted), 1, loc);
    Expr *result = mkPrim2(u->isIncrementOp() ? P_ADD : P_SUB, old, one, loc);
    return assign(v, convert(result, promoted, type, loc), loc, next,
                  std::move(env), tail);
  }
  if (const auto *c = dyn_cast<clang::CStyleCastExpr>(e);
      c && c->getCastKind() == clang::CK_ToVoid)
    lowerExpr(c->getSubExpr(), env);
  else
    lowerExpr(e, env);
  return lowerSeq(next, std::move(env), tail);
}

Expr *Lowerer::assign(const VarDecl *v, Expr *value, SourceLocation loc,
                      const Rest *next, Env env, const Tail &tail) {
  Var *var = newVar(v);
  env[v] = var;
  return mkLet(var, value, lowerSeq(next, std::move(env), tail), loc);
}

const VarDecl *Lowerer::assignmentTarget(const CExpr *lhs) {
  const CExpr *t = lhs->IgnoreParens();
  SourceLocation loc = t->getExprLoc();
  if (const auto *d = dyn_cast<DeclRefExpr>(t))
    if (const auto *v = dyn_cast<VarDecl>(d->getDecl())) {
      if (v->hasLocalStorage())
        return v;
      fail(loc, "writes to global variable '" + v->getNameAsString() + "'");
    }
  if (const auto *u = dyn_cast<UnaryOperator>(t);
      u && u->getOpcode() == clang::UO_Deref)
    fail(loc, "pointers are not supported yet");
  if (isa<clang::ArraySubscriptExpr>(t) || isa<clang::MemberExpr>(t))
    fail(loc, unsupportedExpression(t));
  fail(loc, "unsupported assignment target");
}

// -------------------------------------------------------- expressions

Type *Lowerer::exprType(const CExpr *e) {
  if (Type *t = scalarType(e->getType()))
    return t;
  fail(e->getExprLoc(), typeProblem(e->getType(), "type"));
}

Expr *Lowerer::lowerExpr(const CExpr *e, const Env &env) {
  // Sema already reported what is wrong here; lowering says nothing more.
  if (e->containsErrors())
    throw Unsupported{{e->getExprLoc(), ""}};
  e = e->IgnoreParens();
  if (const auto *c = dyn_cast<clang::ConstantExpr>(e))
    return lowerExpr(c->getSubExpr(), env);
  SourceLocation loc = e->getExprLoc();
  // Casts and calls check their types themselves, to say more than
  // "unsupported type".
  if (const auto *c = dyn_cast<CastExpr>(e))
    return lowerCast(c, env);
  if (const auto *c = dyn_cast<CallExpr>(e))
    return lowerCall(c, env);
  if (const auto *u = dyn_cast<UnaryOperator>(e);
      u &&
      (u->getOpcode() == clang::UO_AddrOf || u->getOpcode() == clang::UO_Deref))
    fail(loc, "pointers are not supported yet");
  Type *t = exprType(e);
  if (const auto *d = dyn_cast<DeclRefExpr>(e))
    return lowerDeclRef(d, t, env);
  if (const auto *i = dyn_cast<clang::IntegerLiteral>(e))
    return mkInt(i->getValue().getSExtValue(), loc);
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

Expr *Lowerer::readVariable(const VarDecl *v, SourceLocation loc,
                            const Env &env) {
  auto it = env.find(v);
  if (it == env.end())
    fail(loc, "unsupported use of '" + v->getNameAsString() + "'");
  if (!it->second)
    fail(loc, "'" + v->getNameAsString() + "' is read before it is assigned");
  return mkVar(it->second, loc);
}

Expr *Lowerer::lowerDeclRef(const DeclRefExpr *d, Type *t, const Env &env) {
  SourceLocation loc = d->getExprLoc();
  const clang::ValueDecl *decl = d->getDecl();
  if (const auto *v = dyn_cast<VarDecl>(decl))
    return v->hasLocalStorage() ? readVariable(v, loc, env)
                                : lowerGlobalRead(v, t, loc);
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

// The value of a constant expression as a constant of IR type `t`, or null.
Expr *Lowerer::foldConstant(const CExpr *e, Type *t) {
  CExpr::EvalResult r;
  if (e->isValueDependent() || !e->EvaluateAsRValue(r, ctx) || r.HasSideEffects)
    return nullptr;
  if (r.Val.isInt() && t->kind == TY_INT)
    return ex_int(arena, r.Val.getInt().getSExtValue());
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
    fail(loc, "arrays are not supported yet");
  default:
    exprType(c); // pointer conversions say so
    fail(loc,
         std::string("unsupported conversion '") + c->getCastKindName() + "'");
  }
}

// C's conversion of a scalar from type `from` to type `to`.
Expr *Lowerer::convert(Expr *x, QualType from, QualType to,
                       SourceLocation loc) {
  if (isBool(to) && !isBool(from))
    return truthValue(x, loc);
  Type *f = scalarType(from), *t = scalarType(to);
  if (!f || !t)
    fail(loc, typeProblem(f ? to : from, "type"));
  if (type_eq(f, t))
    return x;
  switch (t->kind) {
  case TY_F64:
    return mkPrim1(P_TO_F64, x, loc);
  case TY_F32:
    return mkPrim1(P_TO_F32, x, loc);
  default:
    return mkPrim1(P_TO_INT, x, loc);
  }
}

// 0 or 1, as C's conversion to _Bool and the operands of && || give.
Expr *Lowerer::truthValue(Expr *x, SourceLocation loc) {
  if (x->type && type_is_float(x->type))
    return mkPrim2(P_NE, x, mkConst(x->type, 0, loc), loc);
  if (isBooleanValued(x))
    return x;
  return mkPrim2(P_NE, x, mkInt(0, loc), loc);
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

Expr *Lowerer::lowerBinary(const BinaryOperator *b, const Env &env) {
  SourceLocation loc = b->getExprLoc();
  if (b->isAssignmentOp())
    fail(loc, "assignment inside an expression is not supported");
  if (b->getOpcode() == clang::BO_Comma)
    fail(loc, "the comma operator inside an expression is not supported");
  if (b->isLogicalOp())
    return lowerLogical(b, env);
  Prim p;
  if (!binaryPrim(b->getOpcode(), p))
    fail(loc, "operator '" + b->getOpcodeStr().str() + "' is not supported");
  Expr *l = lowerExpr(b->getLHS(), env);
  Expr *r = lowerExpr(b->getRHS(), env);
  return mkPrim2(p, l, r, loc);
}

// C evaluates the right operand only when needed; a strict P_AND would
// evaluate `y / x` in `x != 0 && y / x > 1`.
Expr *Lowerer::lowerLogical(const BinaryOperator *b, const Env &env) {
  SourceLocation loc = b->getExprLoc();
  Expr *l = lowerCondition(b->getLHS(), env);
  Expr *r = truthValue(lowerExpr(b->getRHS(), env), loc);
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
  if (isDifferentiable(callee))
    return lowerDifferentiableCall(c, callee, env);
  MathFunction m;
  if (lookupMathFunction(name, m))
    if (Expr *x = lowerMathCall(c, m, env))
      return x;
  fail(loc, "call to '" + name + "' which is not differentiable");
}

// Null when the call does not have the standard signature (a user function
// that happens to be called `sin`).
Expr *Lowerer::lowerMathCall(const CallExpr *c, const MathFunction &m,
                             const Env &env) {
  Type *want = m.isFloat ? ty_f32() : ty_f64();
  if ((int)c->getNumArgs() != prim_info(m.prim)->arity)
    return nullptr;
  Type *ret = scalarType(c->getType());
  if (!ret || !type_eq(ret, want))
    return nullptr;
  for (const CExpr *a : c->arguments()) {
    Type *t = scalarType(a->getType());
    if (!t || !type_eq(t, want))
      return nullptr;
  }
  std::vector<Expr *> args;
  for (const CExpr *a : c->arguments())
    args.push_back(lowerExpr(a, env));
  return at(ex_prim(arena, m.prim, (int)args.size(), args.data()),
            c->getBeginLoc());
}

Expr *Lowerer::lowerDifferentiableCall(const CallExpr *c,
                                       const FunctionDecl *callee,
                                       const Env &env) {
  SourceLocation loc = c->getBeginLoc();
  std::string name = callee->getNameAsString();
  if (!callee->getType()->getAs<clang::FunctionProtoType>())
    fail(loc, "call to '" + name + "' which has no prototype");
  if (callee->isVariadic())
    fail(loc, "call to '" + name + "': variadic functions are not supported");
  if (callee->getReturnType()->isVoidType())
    fail(loc, "call to '" + name + "' which returns void");
  Type *ret = exprType(c);
  std::vector<Expr *> args;
  for (const CExpr *a : c->arguments())
    args.push_back(lowerExpr(a, env)); // converted to the parameter types
  const FunctionDecl *canonical = callee->getCanonicalDecl();
  bool seen = false;
  for (const CalleeUse &u : callees)
    seen = seen || u.callee == canonical;
  if (!seen)
    callees.push_back({canonical, loc});
  Expr *call = ex_call(arena, name.c_str(), (int)args.size(), args.data());
  call->type = ret;
  return at(call, loc);
}

} // namespace

LoweredFunction lowerFunction(const clang::FunctionDecl *fd, Arena *arena,
                              SourceLocs &locs) {
  return Lowerer(fd, arena, locs).run();
}

} // namespace chad
