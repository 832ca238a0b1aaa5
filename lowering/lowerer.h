// lowerer.h: internal to lowering/: the state of lowering one function,
// shared by lower.cpp (signature, statements, expressions), lower_arrays.cpp
// (array parameters, local arrays, element reads and writes, calls that pass
// arrays), lower_tables.cpp (constant tables) and lower_loops.cpp (for
// loops and their IR forms).
//
// Places. Lowering keeps, for each C object in scope, its current SSA value
// (Env). A scalar place is a C variable, one element of an array that is
// scalar-replaced (every access has a constant index), the "slot" of an
// array that a loop builds element-wise (its element at the loop counter,
// inside the loop body), or the index/value pair of the accumulation a
// scatter-add is being lowered for. An array that is not scalar-replaced is
// one IR array value: the written prefix of the C array (elements
// [0, len) are the C elements, the rest were never written by the function).
//
// Poison. A value a target must not depend on (a loop-carried scalar seen
// from a build, an element read before it is written) is a Var bound to 0
// and registered with its message: reading it may fail at once, and any
// dependence that survives dead-code elimination is reported (see
// Lowerer::checkPoison).
#ifndef CHAD_LOWERING_LOWERER_H
#define CHAD_LOWERING_LOWERER_H

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "lowering/lower.h"
#include "lowering/math_functions.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"

namespace chad {
namespace lowering_detail {

// Clang and the IR both have an Expr and a Type: here `Expr` and `Type` are
// the IR's, Clang's are spelled CExpr and clang::Type.
using CExpr = clang::Expr;
using clang::ArraySubscriptExpr;
using clang::BinaryOperator;
using clang::cast;
using clang::CallExpr;
using clang::CastExpr;
using clang::CompoundStmt;
using clang::DeclRefExpr;
using clang::dyn_cast;
using clang::dyn_cast_or_null;
using clang::ForStmt;
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

// --------------------------------------------------------------- places

enum : int {
  kWhole = -1,   // the variable itself (a scalar, or a whole array)
  kSlot = -2,    // the element a loop builds at its counter
  kSiteIdx = -3, // the index of the scatter-add being lowered
  kSiteVal = -4, // the value it adds
  kDone = -5,    // 0 while a loop runs, 1 once it broke, 2 once it
                 // returned (decl: its counter)
  kRetVal = -6,  // the value a loop returned (decl: its counter)
  kExit = -7,    // a for counter's value after its loop: where the loop
                 // broke, else its final value (decl: the counter)
  kBlock0 = -16, // kBlock0 - c: element m*i + c of the block a loop builds
                 // at its counter i (Site::Strided, 0 <= c < kMaxStride)
};
constexpr int kMaxStride = 64;

struct Place {
  const VarDecl *decl;
  int elem; // kWhole, an element index >= 0, kSlot, kSiteIdx, kSiteVal
  bool operator<(const Place &o) const {
    return std::tie(decl, elem) < std::tie(o.decl, o.elem);
  }
  bool operator==(const Place &o) const {
    return decl == o.decl && elem == o.elem;
  }
};

struct ArrayVal {
  Var *value = nullptr; // null: nothing written yet
  Expr *len = nullptr;  // its length as an expression over SSA variables in
                        // scope (compared structurally), or null: (len value)
};

// The current SSA variable of each place in scope (null while declared but
// unassigned) and the current value of each array in scope. A
// scalar-replaced array is in `arrays` too (with no value), as a marker of
// scope; its elements are places in `vars`.
struct Env {
  std::map<Place, Var *> vars;
  std::map<const VarDecl *, ArrayVal> arrays;
  // The whole length of a local array (its declared size, an expression
  // over SSA variables in scope): an array whose value has this length is
  // whole, and writes to it are updates (DESIGN 8.16).
  std::map<const VarDecl *, Expr *> sizes;
};

enum class ArrayRole {
  In,    // a const array parameter: read only
  Out,   // an output array parameter: written from index 0 up
  Local, // a local array: written from index 0 up before it is read
  View,  // a local pointer into an array (`const double *row = A + i*m`):
         // an IR view of it, read only, assigned only where declared
  InOut, // an in-out array parameter (DESIGN 1, 8.7): holds its initial
         // contents, every write an update of the whole array
};

struct ArrayInfo {
  ArrayRole role = ArrayRole::Local;
  Type *elem = nullptr;          // f64, f32 or int
  Var *param = nullptr;          // In/Out parameters: the IR parameter
  bool scalarReplaced = false;   // every access has a constant index
  int numElems = 0;              // scalar-replaced: elements [0, numElems)
  long long fixedSize = -1;      // a local of constant size (all elements)
  long long cols = 0;            // two dimensions (R[rows][cols]): stored
                                 // flat, row-major, as C lays it out
  bool constIndexOnly = true;    // (pre-scan) every use is a constant index
};

// A constant table: a `const` array (file scope, `static const` or `const`
// local) of one or two dimensions whose initializer clang's constant
// evaluator can compute. It is not a place: reads never change it, so a
// read at constant indices is that constant, and a read at computed
// indices indexes one IR table (E_TABLE) bound at the function's entry.
struct TableInfo {
  Type *elem = nullptr;        // f64, f32 or an integer kind
  long long rows = 1, cols = 0; // two dimensions: rows x cols; one: cols
  bool twoDim = false;
  std::vector<Expr *> values;  // E_CONST, row-major
  Var *var = nullptr;          // bound at entry once read at a variable index
};

// The statements still to run: the rest of the innermost block, then the
// rest of the enclosing ones. Nodes live on the stack of the lowering.
struct Rest {
  llvm::ArrayRef<const Stmt *> stmts;
  const Rest *outer;
};

// Where control goes when the statements run out.
struct Tail {
  // null: off the end of the function (an error unless it returns void);
  // otherwise the end of a branch of a return-free `if` or of a loop body,
  // whose value is these places.
  const std::vector<Place> *joined;
  SourceLocation end;
  bool tuple = false; // the value is a tuple even of one place (fold state)
  // the end of a while or do body: the value is (tuple go state), go being
  // the loop's condition evaluated after the body (0 when leaving it)
  const CExpr *whileCond = nullptr;
};

// `let var = value` waiting for its body.
struct Binding {
  Var *var;
  Expr *value;
  SourceLocation loc;
};

struct Poison {
  std::string readMsg; // non-empty: reading it is an error at the read
  std::string flowMsg; // a target that depends on it is an error
  SourceLocation loc;  // where flowMsg is reported when no read is located
};

// ---------------------------------------------------------------- loops

// `for (init; counter CMP hi; step)`, validated; or a `while` or `do`
// loop, whose counter is one chad makes (the IR loop's index, which the
// source cannot name).
struct LoopHeader {
  const ForStmt *stmt = nullptr; // null for while and do
  const Stmt *body = nullptr;
  SourceLocation kw;                  // the `for`, `while` or `do`
  const CExpr *whileCond = nullptr;   // while and do: the condition
  bool isDo = false;                  // do: the body runs before the test
  const VarDecl *counter = nullptr;
  bool declaredInInit = false;
  const CExpr *lo = nullptr; // null: the counter's value before the loop
  const CExpr *hi = nullptr;
  clang::BinaryOperatorKind cmp = clang::BO_LT; // counter CMP hi
  long long step = 1;                           // nonzero; ±1 with stepExpr
  const CExpr *stepExpr = nullptr; // `i += s`: a step known at run time,
                                   // loop-invariant; step holds its sign
  long long offset = 0; // the condition tests scale*counter + offset CMP hi
  long long scale = 1;  // a positive constant
  // for: the condition's other conjuncts (`i < n && x[i] > 0`), tested at
  // the top of every iteration, where false is a `break`
  std::vector<const CExpr *> alsoWhile;
};

// A write to an element of an array declared outside the loop.
struct Site {
  // Update: none of the cheap patterns; the array is whole, carried in the
  // loop's fold (or while) state and written by updates (DESIGN 8.16)
  // Strided: y[m*i + c] for constants m, c (also a call's output array
  // `&y[m*i + c]`), every iteration writing the block y[m*i .. m*i + m)
  enum Kind { Slot, FlatSlot, Scatter, Update, Strided } kind = Slot;
  const VarDecl *array = nullptr;
  const CExpr *write = nullptr; // the assignment, compound assignment, ++/--
  const ArraySubscriptExpr *sub = nullptr;
  std::vector<const ForStmt *> path; // loops between the body and the write
  bool accumulate = false;           // += -= ++ -- or y[e] = y[e] + v
  bool plain = false;                // y[e] = v
  bool inWhile = false;              // in a while or do loop in the body
  bool twoDim = false;               // R[i][j] at a computed index
  // a callee's output array at a view `&y[e]` or `y + e` (sub is null,
  // write is the argument): it writes y[e .. e + width)
  const CallExpr *call = nullptr;
  long long width = 0; // the callee's fixed output length
  // a callee's output or in-out array passed whole (`g(y)`) or at a view
  // that is not a block per iteration (`g(&y[k])`): the loop carries y
  // whole and the call gives its new value or slice (Update)
  bool wholeCall = false;
};

// The IR of a loop's bounds, in the environment before the loop.
struct Bounds {
  Expr *lo = nullptr;       // the counter's first value (var or const)
  Expr *trip = nullptr;     // number of iterations (var or const)
  Expr *tripExpr = nullptr; // the same, as an expression over SSA values:
                            // compared structurally with array lengths
  Expr *hi = nullptr;       // the bound the counter is compared with (after
                            // the offset), in the comparison's type
  Expr *imin = nullptr;     // |step| == 1: the smallest counter value (when
                            // trip > 0), as an expression
  long long step = 1;       // the constant step, or the sign of stepExpr
  Expr *stepExpr = nullptr; // a run-time step (var or const, positive)
};

enum class TargetKind { None, Sum, Fold, Build, FlatBuild, Scatter };

// A loop being lowered: its classification, and the target whose IR loop
// is being made from its body.
struct LoopCtx {
  LoopHeader h;
  Bounds b;
  std::vector<Site> sites;                           // all classified sites
  std::map<const CExpr *, size_t> siteOf;            // write -> sites index
  std::map<const VarDecl *, Site::Kind> arrays;      // arrays it writes
  std::map<const VarDecl *, bool> slotSafe;          // old element in range
  // the target being lowered
  TargetKind target = TargetKind::None;
  const VarDecl *targetArray = nullptr; // Build, FlatBuild, Scatter
  const Site *targetSite = nullptr;     // Scatter
  // loops of the target's path lowered inline (one iteration each), with
  // the IR value of their counter
  std::map<const ForStmt *, Expr *> inlined;
  std::set<Place> keep;
  std::vector<Var *> *poisonSink = nullptr; // poison made by inlined loops
  // FlatSlot arrays: the inner loop that writes y[i*m + j]
  std::map<const VarDecl *, const ForStmt *> flatInner;
  // Strided arrays: the block length m
  std::map<const VarDecl *, long long> strides;
  // while a body is lowered: where its statements end (a `continue` ends
  // the iteration there, with the places' current values)
  const Tail *bodyTail = nullptr;
  // the body breaks out of the loop (or returns from the function): the IR
  // loop is a fold carrying the flag {counter, kDone} (and the value
  // {counter, kRetVal}), and iterations after the break do nothing
  bool hasBreak = false;
  bool hasReturn = false;
  // scratch arrays each iteration fills before reading, read by nothing
  // after the loop: unwritten at the start of every iteration, never
  // carried (lower_private.cpp)
  std::set<const VarDecl *> privates;
};

// One lowering of a loop body, for one target.
struct BodySpec {
  TargetKind kind = TargetKind::None;
  Var *index = nullptr;     // the IR loop's index
  Expr *counter = nullptr;  // the counter's value, or null: lo + index*step
  Var *state = nullptr;     // Fold: the state tuple
  std::vector<Place> statePlaces;  // Fold: read from `state`
  std::vector<Place> accumulators; // start each iteration at 0
  std::vector<Place> carried;      // poisoned: carried by another IR loop
  std::vector<Place> yields;       // the body's value
  const VarDecl *array = nullptr;  // Build, FlatBuild, Scatter
  const Site *site = nullptr;      // Scatter
  std::map<const ForStmt *, Expr *> inlined;
  std::set<Place> keep; // places the inlined loops must not poison
  // results
  std::vector<Var *> stateVars;   // Fold: bound to (get j state)
  std::vector<Var *> carriedVars; // the poison made for `carried`
};

// What a loop body does to places declared outside it.
struct ScanWrite {
  bool accumulateOnly = true;
  bool exactType = true; // every increment is computed in the place's type
  const CExpr *first = nullptr;
  std::vector<const CExpr *> sites;
  std::vector<std::vector<const ForStmt *>> paths; // of each site
};
struct ArrayRead {
  const VarDecl *array;
  const ArraySubscriptExpr *sub; // null: the whole array (a call argument)
  const CExpr *at;
  std::vector<const ForStmt *> path;
};
struct LoopScan {
  std::map<Place, ScanWrite> writes;
  std::vector<Place> order; // scalar places, in order of first write
  std::set<Place> otherReads;
  std::map<const VarDecl *, std::vector<Site>> sites; // arrays written
  std::vector<const VarDecl *> siteOrder;
  std::vector<ArrayRead> reads;
  std::set<const VarDecl *> written;  // every decl written in the loop
  std::set<const VarDecl *> declared; // every decl declared in the loop
  int inWhile = 0; // while and do loops around the statement being scanned
};

// How a subscript resolves in the current loop context.
enum class Res {
  Element,    // scalar place (decl, constant index)
  Slot,       // scalar place (decl, kSlot)
  SiteTarget, // the scatter-add being lowered
  Skip,       // a write another IR loop takes care of
  Direct,     // the array's value in the environment
};

// A rewrite of a function body's AST that lasts while the function is
// lowered: replace() records each slot it changes, and the destructor puts
// the nodes back, last first, and drops the parent map made of the
// rewritten body.
class BodyRewrite {
public:
  explicit BodyRewrite(clang::ASTContext &ctx) : ctx(ctx) {}
  BodyRewrite(const BodyRewrite &) = delete;
  BodyRewrite &operator=(const BodyRewrite &) = delete;
  ~BodyRewrite();

protected:
  void replace(Stmt *&slot, Stmt *with);
  void rewritten(); // after a pass over the body: parents are stale
  clang::ASTContext &ctx;

private:
  std::vector<std::pair<Stmt **, Stmt *>> undo;
};

bool constCastOnly(const clang::CastExpr *c, const clang::ASTContext &ctx);

// Replaces `*e` and `*(e + k)` by `e[0]` and `e[k]` in a function body,
// and drops casts that only change a pointer's const (lower_views.cpp).
class DerefRewrite : BodyRewrite {
public:
  using BodyRewrite::BodyRewrite;
  void apply(Stmt *body);

private:
  void walk(Stmt *s);
};

// A loop that bounds its counter: `for (i = c0; i < N; i++)` (or `<=`, or
// `i += c` for a constant c > 0), c0 a constant >= 0 (lower_extents.cpp).
struct CountedLoop {
  const clang::VarDecl *counter = nullptr;
  const CExpr *bound = nullptr;
  bool inclusive = false;
  long long start = 0; // c0
};
bool countedLoop(const clang::ForStmt *f, const clang::ASTContext &ctx, CountedLoop &out);
bool constantOf(const CExpr *e, const clang::ASTContext &ctx, long long &v);
bool assigns(const Stmt *s, const clang::VarDecl *v); // =, op=, ++, -- or &v

// Names each parameter C declares as rows (`double A[][3]`) flat in a
// function body while it is lowered: `A[i][j]` as `A[i*3 + j]`, a row
// `A[i]` as `A + i*3`; and drops casts between flat and rows pointers to
// the same numbers (lower_rows.cpp).
class RowsRewrite : BodyRewrite {
public:
  using BodyRewrite::BodyRewrite;
  void apply(const FunctionDecl *fd, Stmt *body);

private:
  const clang::ParmVarDecl *rowsParam(const CExpr *e) const;
  bool rowOf(CExpr *e, const clang::ParmVarDecl *&p, CExpr *&i) const;
  bool flattening(const clang::CStyleCastExpr *c) const;
  CExpr *asLong(CExpr *e);
  CExpr *binary(CExpr *a, CExpr *b, clang::BinaryOperatorKind op, QualType t, SourceLocation loc);
  CExpr *rowStart(const clang::ParmVarDecl *p, CExpr *i, SourceLocation loc);
  CExpr *flat(const clang::ParmVarDecl *p, SourceLocation loc);
  CExpr *pointer(const clang::ParmVarDecl *p, CExpr *start, clang::BinaryOperatorKind op,
                 SourceLocation loc);
  CExpr *rewrite(CExpr *e);
  void walk(Stmt *s);
  std::map<const clang::ParmVarDecl *, long long> rows; // row lengths
};

// Splits a statement whose value is that of an update of an array element
// into the update and a read of the element: `a[0] = a[1] = v;` as
// `{ a[1] = v; a[0] = a[1]; }`, `t = a[i]++;` as `{ t = a[i]; a[i]++; }`,
// so that every array update is a statement of its own, as the lowering of
// arrays wants. Only where the element's index has no side effects
// (reading it again is reading the same element) (lower_chains.cpp).
class ChainRewrite : BodyRewrite {
public:
  using BodyRewrite::BodyRewrite;
  void apply(Stmt *body);

private:
  void walk(Stmt *s);
  Stmt *split(Stmt *s);
};

// Moves, while a function is lowered, the declaration of a local pointer
// declared without a value (or null) to its first assignment, when that
// is a statement `p = e;` of the same block or of one around it, with no
// mention of p between: C89's `double *t; ... t = malloc(...);` is then
// `double *t = malloc(...);`, which the rest of lowering knows. Puts the
// nodes back when destroyed (lower_views.cpp).
class DeclSink {
public:
  explicit DeclSink(clang::ASTContext &ctx) : ctx(ctx) {}
  DeclSink(const DeclSink &) = delete;
  DeclSink &operator=(const DeclSink &) = delete;
  ~DeclSink();
  void apply(Stmt *body);

private:
  struct Pending {
    clang::VarDecl *var;
    Stmt **declSlot; // the DeclStmt that declares it
  };
  void visit(Stmt *s);
  void block(clang::CompoundStmt *c, std::vector<Pending> &pending);
  void sink(const Pending &p, Stmt **assignSlot, clang::Expr *value);
  void forget(const Stmt *s, std::vector<Pending> &pending);
  clang::ASTContext &ctx;
  std::vector<std::pair<Stmt **, Stmt *>> undo;
  std::vector<std::pair<clang::VarDecl *, clang::Expr *>> inits; // as they were
};

// Rewrites, while a function is lowered, each local pointer that only
// ever points into one array B (`double *row = &B[k]`, reassigned `row =
// B + j`, stepped `row++`) as an integer offset into B: a variable
// `row_at` of type ptrdiff_t, `row[j]` as `B[row_at + j]` and `row` as
// `B + row_at` (lower_views.cpp). Reads and writes through the pointer
// are then reads and writes of B, with C's aliasing. A root B is an array
// parameter, a local array or an allocated pointer (`isRoot`).
class AliasRewrite {
public:
  explicit AliasRewrite(clang::ASTContext &ctx) : ctx(ctx) {}
  AliasRewrite(const AliasRewrite &) = delete;
  AliasRewrite &operator=(const AliasRewrite &) = delete;
  ~AliasRewrite();
  void apply(const FunctionDecl *fd, Stmt *body);

private:
  struct Alias {
    const clang::VarDecl *root = nullptr; // the array it points into
    clang::VarDecl *offset = nullptr;     // its offset from root's start
    // a pointer that points into one of several arrays (`xp = x2;` then
    // `xp = &s[i];`, or swapped with another for double buffering): which
    // one (index into roots, shared by the pointers assigned one to another)
    std::vector<const clang::VarDecl *> roots;
    clang::VarDecl *which = nullptr;
    // a pointer of a group that only swaps its pointers (permuting): none
    // of its other such pointers points into the same root at any time
    bool distinct = false;
    const clang::VarDecl *group = nullptr;
  };
  // `p[j]` of a pointer into one of several arrays, rewritten as a choice:
  // the element `R_k[p_at + j]` of each root, for a write through it
  struct ChosenElem {
    const clang::VarDecl *pointer;
    std::vector<CExpr *> elems;
  };
  void resolveChoices(const std::map<const clang::VarDecl *, const clang::VarDecl *> &rootOf);
  CExpr *choose(const Alias &a, SourceLocation loc,
                const std::function<CExpr *(const clang::VarDecl *)> &of, QualType t);
  CExpr *intLiteral(long long v, QualType t, SourceLocation loc);
  long long rootIndex(const Alias &a, const CExpr *e);
  bool isRoot(const clang::VarDecl *v) const;
  const clang::VarDecl *baseOf(const CExpr *e) const;
  void collect(const Stmt *s);
  void resolve();
  CExpr *offsetOf(const CExpr *e);
  CExpr *ref(const clang::VarDecl *v, SourceLocation loc);
  CExpr *rvalue(const clang::VarDecl *v, SourceLocation loc);
  CExpr *asOffsetType(CExpr *e);
  CExpr *add(CExpr *a, CExpr *b, clang::BinaryOperatorKind op);
  CExpr *rootPointer(const clang::VarDecl *root, SourceLocation loc);
  const clang::VarDecl *aliasRef(const CExpr *e) const;
  void walk(Stmt *&s);
  Stmt *rewrite(Stmt *s);
  const clang::VarDecl *choiceSource(const CExpr *e) const;
  Stmt *chooseWrite(Stmt *s, const ChosenElem &c);
  Stmt *chooseCall(CallExpr *c);
  void collectSwaps(const Stmt *s);
  void markDistinct(const std::vector<const clang::VarDecl *> &cand,
                    const std::function<const clang::VarDecl *(const clang::VarDecl *)> &group);
  bool swapTriple(const Stmt *s1, const Stmt *s2, const Stmt *s3);
  bool alternatives(const CExpr *arg, const clang::VarDecl *&pointer, std::vector<CExpr *> &alts);
  void markStatements(const Stmt *s);
  void replace(Stmt *&slot, Stmt *with);

  clang::ASTContext &ctx;
  const FunctionDecl *fd = nullptr;
  std::map<const clang::VarDecl *, std::vector<const CExpr *>> defs; // values assigned
  std::set<const clang::VarDecl *> refused; // pointers that are not aliases
  std::map<const Stmt *, const clang::VarDecl *> choices; // `(p_in == k ? ...)` made, of p
  std::map<const Stmt *, ChosenElem> chosenElems;
  std::set<const Stmt *> stmtPos; // expressions that are statements of their own
  std::set<const CExpr *> swapped;  // values assigned by `t = a; a = b; b = t;`
  struct Swap {
    const clang::VarDecl *t, *a, *b;
  };
  std::vector<Swap> swaps;
  std::map<const clang::VarDecl *, const Stmt *> declScope; // the block declaring a pointer
  std::map<const clang::VarDecl *, Alias> aliases;
  std::vector<std::pair<Stmt **, Stmt *>> undo;
};

// Is v a local pointer initialised by malloc, calloc or realloc (scratch)?
bool isAllocatedPointer(const clang::VarDecl *v);

// Is the non-const floating pointer parameter i of CHAD_CUSTOM g in-out?
// The user says so by g_rev's seed for it (DESIGN.md section 1): `T *p_b`
// (consumed, then the adjoint of p's initial values) for in-out, `const T
// *y_b` for an output g overwrites. An output when g_rev is not declared
// (the call then reports the missing declaration).
bool customParamInOut(const clang::FunctionDecl *g, unsigned i);

// lower.cpp's type helpers
Type *irScalarType(QualType t);
long long rowLength(QualType t);
bool containsLoopExit(const Stmt *s, bool breaksOnly);
bool containsReturnStmt(const Stmt *s);
double toDouble(llvm::APFloat f); // exact for float and double
std::string irTypeProblem(QualType t, const std::string &role,
                          const std::string &name);

// ------------------------------------------------------------- IR helpers
// (ir_query.cpp)

// Same value for sure: the same tree over the same variables.
bool exprEq(const Expr *a, const Expr *b);
bool isIntConst(const Expr *e, long long v);
bool intConst(const Expr *e, long long &v);
// A deep copy (variables shared): stored expressions are copied at each use
// so that no node appears twice in a tree.
Expr *dup(Arena *a, const Expr *e);

// Free variables that the value of `e` depends on, skipping dead lets.
// `select` >= 0: at the end of the let spine, only that element of the
// final tuple counts. `liveLets` collects the let-bound variables found
// live; `firstUse` the first live reference of each variable.
struct Liveness {
  std::set<const Var *> free;
  std::set<const Var *> liveLets;
  std::map<const Var *, const Expr *> firstUse;
};
void liveness(const Expr *e, Liveness &out, int select = -1);
// Removes lets whose variable is unused (the IR is pure).
Expr *deadLets(Expr *e);

// --------------------------------------------------------------- lowerer

class Lowerer {
public:
  Lowerer(const FunctionDecl *fd, Arena *arena, SourceLocs &locs)
      : fd(fd), ctx(fd->getASTContext()), arena(arena), locs(locs) {}

  LoweredFunction run();

  // ---- lower.cpp
  [[noreturn]] void fail(SourceLocation loc, std::string what) {
    throw Unsupported{{loc, std::move(what)}};
  }
  std::string text(const Stmt *s); // source text, shortened
  std::string placeName(const Place &p);

  // signature
  Signature lowerSignature();
  Type *requireType(QualType t, SourceLocation loc, const char *role,
                    const clang::NamedDecl *named = nullptr);
  Var *newVar(const VarDecl *v);
  Var *newPlaceVar(const Place &p);
  Type *placeType(const Place &p);
  Env normalizeBoolParams(SourceLocation loc, std::vector<Binding> &entry);
  Expr *wrapInLets(const std::vector<Binding> &bindings, Expr *body);

  // statements
  Expr *lowerSeq(const Rest *rest, Env env, const Tail &tail);
  Expr *lowerStmt(const Stmt *s, const Rest *next, Env env, const Tail &tail);
  // leaving: the end of a loop body by break or return (a while's go is 0)
  Expr *finish(const Env &env, const Tail &tail, bool leaving = false);
  Expr *joinedValues(const Env &env, const Tail &tail);
  Expr *lowerDeclStmt(const clang::DeclStmt *s, const Rest *next, Env env,
                      const Tail &tail);
  void checkLocalVariable(const VarDecl *v);
  void checkLocalDeclaration(const clang::Decl *d);
  Expr *lowerReturn(const clang::ReturnStmt *r, Env env);
  Expr *returnValue(Expr *value, Env env, SourceLocation loc);
  Expr *leaveLoop(long long how, Env env, SourceLocation loc);
  Type *functionResultType();
  Expr *lowerIf(const IfStmt *s, const Rest *next, Env env, const Tail &tail);
  Expr *lowerIfHoisted(const IfStmt *s, const Rest *next, Env env,
                       const Tail &tail);
  Expr *bindJoined(const std::vector<Place> &joined, Expr *value,
                   SourceLocation loc, const Rest *next, Env env,
                   const Tail &tail);
  Expr *lowerExprStmt(const CExpr *e, const Rest *next, Env env,
                      const Tail &tail);
  Expr *lowerRootEffect(const CExpr *e, const Rest *next, Env env,
                        const Tail &tail);
  Expr *assignPlace(const Place &p, Expr *value, SourceLocation loc,
                    const Rest *next, Env env, const Tail &tail);
  void collectAssigned(const Stmt *s, const Env &env, std::vector<Place> &out);
  void addJoined(const Place &p, const Env &env, std::vector<Place> &out);

  // side effects nested in expressions (hoisted before their statement)
  void hoistEffects(const CExpr *root, Env &env, std::vector<Binding> &out,
                    bool rootIsStatement = false);
  void hoistWalk(const CExpr *e, const CExpr *root, bool conditional, Env &env,
                 std::vector<Binding> &out);
  void hoistOne(const CExpr *e, bool conditional, Env &env,
                std::vector<Binding> &out);
  Place scalarTarget(const CExpr *target);
  Expr *effectValue(const CExpr *e, const Place &place, const Env &env,
                    Expr *&oldValue);
  bool nestedInExpression(const CExpr *e);

  // expressions
  Expr *lowerExpr(const CExpr *e, const Env &env);
  Type *exprType(const CExpr *e);
  Expr *readPlace(const Place &p, SourceLocation loc, const Env &env);
  Expr *lowerDeclRef(const DeclRefExpr *d, const Env &env);
  Expr *lowerGlobalRead(const VarDecl *v, Type *t, SourceLocation loc);
  Expr *lowerCast(const CastExpr *c, const Env &env);
  Expr *foldConstant(const CExpr *e, Type *t);
  Expr *intConstant(const llvm::APInt &v, bool isUnsigned, Type *t);
  Expr *lowerUnary(const UnaryOperator *u, const Env &env);
  Expr *lowerBinary(const BinaryOperator *b, const Env &env);
  Expr *lowerLogical(const BinaryOperator *b, const Env &env);
  Expr *lowerCall(const CallExpr *c, const Env &env);
  Expr *lowerMathCall(const CallExpr *c, const MathFunction &m,
                      const Env &env);
  Expr *lowerCondition(const CExpr *e, const Env &env);
  Expr *truthValue(Expr *x, SourceLocation loc);
  Expr *convert(Expr *x, QualType from, QualType to, SourceLocation loc);

  // ---- lower_arrays.cpp
  void classifyParams(Signature &s);
  bool classifyParam(const clang::ParmVarDecl *p, ParamClass &cls, Type *&type,
                     std::string &problem);
  Type *resultType(const FunctionDecl *f, bool forCall);
  void prescanArrays(const Stmt *body);
  void registerLocalArray(const VarDecl *v);
  void registerPointerView(const VarDecl *v);
  void lowerPointerDecl(const VarDecl *v, Env &env, std::vector<Binding> &out);
  void checkPointerUse(const Stmt *s);
  const VarDecl *viewBase(const CExpr *e);
  Expr *lowerArrayRef(const CExpr *e, const Env &env, const VarDecl *&base);
  Expr *offsetInRoot(const CExpr *e, const Env &env, const VarDecl *&root);
  struct ViewRoot;
  ViewRoot inRoot(const VarDecl *base, const Expr *view, SourceLocation loc);
  Expr *lowerPointerDifference(const clang::BinaryOperator *b, const Env &env);
  Expr *lowerReturnedView(const clang::BinaryOperator *b, const std::string &field,
                          const Env &env);
  Expr *viewArgument(const CExpr *a, Type *want, const clang::ParmVarDecl *p,
                     const std::string &callee, const Env &env, const VarDecl *&base);
  void noteCallee(const FunctionDecl *callee, SourceLocation loc);
  void requireElemType(const CExpr *a, const VarDecl *d, Type *want,
                       const clang::ParmVarDecl *p, const std::string &callee);
  const VarDecl *arrayBase(const ArraySubscriptExpr *s, bool required);
  const VarDecl *arrayDecl(const CExpr *e); // a DeclRef to a known array

  // ---- lower_private.cpp
  enum class Touch {
    None,  // does not name the array
    Fills, // first fills it whole: a call's output array, or a loop
           // writing d[i] at every i below d's length
    Inner, // names it only in nested loops, each keeping it private
    Other, // reads it, writes part of it, or uses it under a condition
  };
  bool mentions(const Stmt *s, const VarDecl *d);
  const VarDecl *wholeArrayArg(const CExpr *e);
  const VarDecl *rowOf(const CExpr *e); // lower_views.cpp
  bool fillsWhole(const Stmt *s, const VarDecl *d);
  bool neverWritten(const clang::ValueDecl *v);
  bool allocationCount(const VarDecl *d, const CExpr *&count, long long &constant);
  bool sameCount(const CExpr *bound, const VarDecl *d);
  bool loopFillsWhole(const clang::ForStmt *f, const VarDecl *d);
  Touch firstTouch(const Stmt *s, const VarDecl *d);
  bool usedAfter(const Stmt *loop, const VarDecl *d);
  std::set<const VarDecl *> privateArrays(const LoopHeader &h, const Env &env);
  Expr *scaledBound(Expr *H, Type *t, long long a, clang::BinaryOperatorKind cmp,
                    std::vector<Binding> &pre, SourceLocation loc);
  Env privateScope(LoopCtx &lc, const Env &env);
  bool constIndex(const CExpr *idx, long long &v);
  const CExpr *rowIndex(const ArraySubscriptExpr *s, const VarDecl *d);
  bool constElement(const ArraySubscriptExpr *s, const VarDecl *d,
                    long long &v);
  Expr *lowerElementIndex(const ArraySubscriptExpr *s, const VarDecl *d,
                          const Env &env);
  void initOutputs(Env &env, std::vector<Binding> &entry, SourceLocation loc);
  void lowerLocalArrayDecl(const VarDecl *v, Env &env,
                            std::vector<Binding> &bindings);
  Res resolveRead(const ArraySubscriptExpr *s, const VarDecl *d,
                  const Env &env, Place &place);
  Res resolveWrite(const ArraySubscriptExpr *s, const VarDecl *d,
                   const CExpr *write, Place &place);
  LoopCtx *ownerOf(const VarDecl *d);
  Expr *lowerSubscriptRead(const ArraySubscriptExpr *s, const Env &env);
  Expr *boolElementAsInt(Expr *e, SourceLocation loc);
  Expr *arrayValue(const VarDecl *d, SourceLocation loc, const Env &env,
                   const char *what);
  Expr *lenOf(const ArrayVal &v);
  Expr *emptyArray(Type *elem);
  Expr *lowerElementWrite(const CExpr *write, const ArraySubscriptExpr *lhs,
                          const Rest *next, Env env, const Tail &tail);
  Expr *directWrite(const VarDecl *d, const ArraySubscriptExpr *lhs,
                    const CExpr *write, const Rest *next, Env env,
                    const Tail &tail);
  Expr *updateWrite(const VarDecl *d, const ArraySubscriptExpr *lhs,
                    const CExpr *write, std::vector<Binding> bindings,
                    const Rest *next, Env env, const Tail &tail);
  bool isWhole(const VarDecl *d, const Env &env);
  void makeWhole(const VarDecl *d, Env &env, std::vector<Binding> &out,
                 SourceLocation loc);
  bool carriedInPlace(const VarDecl *d);
  bool provablyBelow(const CExpr *idx, const Expr *len);
  bool isArrayPlace(const Place &p);
  Expr *lenCopy(const ArrayVal &a);
  bool fillsInOrder(const LoopCtx &lc, const LoopScan &sc, const VarDecl *d);
  void startFilled(const LoopCtx &lc, const VarDecl *d, Env &env, std::vector<Binding> &pre);
  std::vector<Place> carriedArrays(LoopCtx &lc, LoopScan &sc, Env &env,
                                   std::vector<Binding> &pre);
  Expr *writtenValue(const CExpr *write, const std::function<Expr *()> &old,
                     const Env &env);
  Expr *accumulatedValue(const CExpr *write, QualType elemType,
                         const Env &env);
  Expr *outputResult(Expr *value, const Env &env, SourceLocation loc);
  bool calleeWritesArrays(const FunctionDecl *callee);
  Expr *lowerDifferentiableCall(const CallExpr *c, const FunctionDecl *callee,
                                const Env &env);
  std::vector<Expr *> lowerCallArgs(const CallExpr *c,
                                    const FunctionDecl *callee, const Env &env);

  // ---- lower_memory.cpp (scratch memory: malloc, calloc, realloc, free,
  // memset, memcpy, memmove; DESIGN.md 8.14)
  bool registerScratch(const VarDecl *v);
  void lowerScratchDecl(const VarDecl *v, Env &env, std::vector<Binding> &out);
  Expr *lowerMemoryStmt(const CExpr *e, const Rest *next, Env &env,
                        const Tail &tail);
  Expr *scratchNullTest(const CExpr *e);
  bool isSelfRealloc(const Stmt *s);
  void scanMemoryCall(const CallExpr *c, const Env &env);
  [[noreturn]] void failMemoryCall(const CallExpr *c);
  bool isMemoryCall(const CallExpr *c);
  const VarDecl *memoryWriteTarget(const CallExpr *c);
  Expr *elementCount(std::vector<const CExpr *> sizeArgs, QualType elem,
                     const std::string &of, const Env &env);
  Expr *lowerFree(const CallExpr *c, const Rest *next, Env env,
                  const Tail &tail);
  Expr *lowerFill(const CallExpr *c, const Rest *next, Env env,
                  const Tail &tail);
  Expr *lowerRealloc(const clang::BinaryOperator *a, const Rest *next, Env env,
                     const Tail &tail);
  const VarDecl *fillTarget(const CExpr *dst, const Env *env, Expr **offset);
  void requireUnusedAfter(const VarDecl *d, const Rest *next,
                          SourceLocation at, const char *what);

  // ---- lower_custom.cpp
  Expr *lowerCustomCall(const CallExpr *c, const FunctionDecl *callee,
                        const Env &env);
  Signature customSignature(const FunctionDecl *g, SourceLocation callLoc);
  void registerCustom(const CallExpr *c, const FunctionDecl *callee);
  Expr *customExtent(const CallExpr *call, unsigned param, const Env &env);
  Expr *customOutput(const CallExpr *call, unsigned param, Type *elem, const Env &env);
  void checkCustomDerivative(const FunctionDecl *g, const Signature &sig,
                             bool reverse, SourceLocation callLoc);
  void effectCall(const CallExpr *c, Env &env, std::vector<Binding> &out);
  const CallExpr *effectCallIn(const CExpr *e);
  void lowerEffects(const CExpr *e, Env &env, std::vector<Binding> &out);

  // ---- lower_tables.cpp
  const TableInfo *tableOf(const VarDecl *v);
  bool tableInit(const CExpr *init, long long n, long long cols, TableInfo &t);
  Expr *lowerTableRead(const ArraySubscriptExpr *s, const Env &env);
  Expr *vlaSizeof(const clang::UnaryExprOrTypeTraitExpr *u, Type *t, const Env &env);
  Expr *tableValue(const VarDecl *v, SourceLocation loc);
  Expr *tableRef(const CExpr *a, const Env &env, Type *&elem, std::string &name);
  Expr *tableArgument(const CExpr *a, Type *want, const clang::ParmVarDecl *p,
                      const std::string &callee, const Env &env);
  Expr *tableBindings(Expr *body);

  // ---- lower_loops.cpp
  Expr *lowerFor(const ForStmt *s, const Rest *next, Env env,
                 const Tail &tail);
  Expr *lowerWhile(const Stmt *s, const Rest *next, Env env, const Tail &tail);
  LoopHeader whileHeader(const Stmt *s);
  Expr *initialState(const std::vector<Place> &state, Expr *body,
                     const BodySpec &spec, LoopScan &sc, const Env &env,
                     SourceLocation loc);
  Expr *afterLoop(const LoopCtx &lc, std::vector<Binding> &pre,
                  std::vector<Binding> &post, Env out, const Rest *next,
                  const Tail &tail, SourceLocation loc);
  LoopHeader parseHeader(const ForStmt *s, const Env *env);
  const CExpr *boundConjunct(const CExpr *cond, LoopHeader &h);
  Bounds lowerBounds(const LoopHeader &h, const Env &env,
                     std::vector<Binding> &pre);
  LoopScan scanLoop(const LoopHeader &h, const Env &env);
  void scanStmt(const Stmt *s, std::vector<const ForStmt *> &path,
                const LoopHeader &h, const Env &env, LoopScan &out);
  void scanWrite(const CExpr *write, const CExpr *lhs, const CExpr *rhs,
                 bool accumulate, std::vector<const ForStmt *> &path,
                 const LoopHeader &h, const Env &env, LoopScan &out);
  void classifyArrays(LoopCtx &lc, LoopScan &scan, const Env &env);
  // ---- lower_strided.cpp
  bool stridedIndex(const CExpr *idx, const VarDecl *counter, long long &m,
                    long long &c);
  const VarDecl *viewOffset(const CExpr *a, std::vector<const CExpr *> &parts);
  bool stridedView(const CExpr *a, const VarDecl *counter, long long &m,
                   long long &c);
  long long fixedOutputLength(const FunctionDecl *callee, unsigned param,
                              int depth = 0);
  // ---- lower_extents.cpp
  // An argument at a view that the callee writes: the slice [off, end) of
  // base, the callee's parameter, and its place in the call's outputs.
  struct Slice {
    const VarDecl *base;
    Expr *off;         // bound to a variable
    Expr *rawOff;      // as written, and where the slice ends (null: not
    Expr *end;         // known structurally), for telling slices apart
    const CExpr *arg;
    unsigned param;
    size_t out;
  };
  // an extent `scale * bound + plus` (bound null: the constant plus)
  struct ExtentBound {
    const CExpr *bound;
    long long scale, plus;
    // an element at `scale * m + plus - 1` of a parameter m: below 0 for
    // small m, which C allows where the view is inside an array
    bool atParameter = false;
  };
  bool extentBounds(const FunctionDecl *def, unsigned param, std::vector<ExtentBound> &out);
  Expr *calleeIntExpr(const CExpr *e, const CallExpr *call, const Env &env);
  Expr *callExtent(const CallExpr *call, unsigned param, const Env &env,
                   Expr **plain = nullptr);
  bool readsBeforeWrites(const FunctionDecl *def, unsigned in, unsigned out);
  bool writesParam(const Stmt *s, const clang::ParmVarDecl *p);
  bool writtenViewElsewhere(const CallExpr *call, unsigned param);
  Expr *choiceArgument(const CallExpr *call, unsigned param, const CExpr *a, const Env &env,
                       std::vector<Binding> &out,
                       std::vector<std::pair<const VarDecl *, unsigned>> &readOnly);
  void storeSlice(const VarDecl *d, Expr *off, Var *r, Env &env, std::vector<Binding> &out,
                  SourceLocation loc);
  void sliceArgument(const CallExpr *call, unsigned param, const CExpr *a, bool inOut, Env &env,
                     std::vector<Binding> &out, std::vector<Expr *> &args,
                     std::vector<const VarDecl *> &outs, std::vector<Slice> &slices);
  void checkSlices(const CallExpr *call, const std::vector<Slice> &slices,
                   const std::vector<std::pair<const VarDecl *, unsigned>> &readOnly,
                   const std::vector<std::pair<const VarDecl *, bool>> &passed);
  void scanCallOutputs(const CallExpr *call, std::vector<const ForStmt *> &path,
                       const Env &env, LoopScan &sc);
  bool classifyStrided(LoopCtx &lc, const VarDecl *d, std::vector<Site> &sites,
                       size_t reads);
  Expr *stridedTarget(LoopCtx &lc, const VarDecl *d, const Env &entry,
                      const std::vector<Place> &accs,
                      const std::vector<Place> &state,
                      std::vector<Binding> &pre, ArrayVal &result);
  bool stridedCallOutput(const CExpr *a, const VarDecl *&d, long long &c,
                         long long &width);
  bool isFlatPattern(const CExpr *idx, const LoopHeader &outer,
                     const LoopHeader &inner);
  void requireInvariant(const CExpr *e, const LoopScan &scan,
                        const LoopHeader &h, SourceLocation at,
                        const std::string &what);
  bool invariantIn(const CExpr *e, const LoopScan &scan, const LoopHeader &h);
  bool headerInvariantIn(const LoopHeader &inner, const LoopScan &scan, const LoopHeader &h);
  Expr *lowerLoopBody(LoopCtx &lc, BodySpec &spec, const Env &entry);
  Expr *buildTarget(LoopCtx &lc, const VarDecl *d, Site::Kind kind,
                    const Env &entry, const std::vector<Place> &accs,
                    const std::vector<Place> &state,
                    std::vector<Binding> &pre, ArrayVal &result);
  bool exactSum(LoopCtx &lc, const LoopScan &sc, const Place &p,
                const Env &entry, std::vector<const ForStmt *> &path);
  Expr *sumBody(LoopCtx &lc, const Env &entry,
                const std::vector<Place> &group,
                const std::vector<const ForStmt *> &path,
                const std::vector<Place> &accs,
                const std::vector<Place> &state, std::vector<Binding> &pre,
                BodySpec &spec, Expr *&trip);
  Expr *settleFold(LoopCtx &lc, const Env &entry, std::vector<Place> &state,
                   const std::vector<Place> &accs, BodySpec &spec,
                   const Rest *next, const Tail &tail);
  Expr *scatterTarget(LoopCtx &lc, const Site &site, const Env &entry,
                      const ArrayVal &base, const std::vector<Place> &accs,
                      const std::vector<Place> &state,
                      std::vector<Binding> &pre);
  Expr *inlineLoop(const ForStmt *s, LoopCtx &owner, const Rest *next, Env env,
                   const Tail &tail);
  bool neededAfter(const Place &p, const Rest *next, const Tail &tail);
  Var *makePoison(Type *t, const char *name, Poison p,
                  std::vector<Binding> &bindings, SourceLocation loc);
  Expr *oldElement(const ArrayVal &old, Expr *at, bool guarded,
                   SourceLocation loc);
  Expr *lowerIndex(const CExpr *idx, const Env &env);
  bool sameAst(const CExpr *a, const CExpr *b);
  bool sameLvalue(const CExpr *a, const CExpr *b);
  void checkPoison(const Expr *body, const std::set<const Var *> *only,
                   int select);

  // located builders (int helpers fold constants)
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
  Expr *mkPrim2(Prim p, Expr *x, Expr *y, SourceLocation loc);
  Expr *foldIntegerIdentity(Prim p, Expr *x, Expr *y);
  Expr *markContract(Expr *sum, const CExpr *lhs, const CExpr *rhs);
  Expr *mkIf(Expr *c, Expr *t, Expr *e, SourceLocation loc) {
    Expr *x = at(ex_if(arena, c, t, e), loc);
    if (!x->type)
      x->type = e->type;
    return x;
  }
  Expr *mkLet(Var *v, Expr *rhs, Expr *body, SourceLocation loc) {
    return at(ex_let(arena, v, rhs, body), loc);
  }
  Expr *mkGet(int i, Expr *tuple, SourceLocation loc) {
    return at(ex_get(arena, i, tuple), loc);
  }
  Expr *mkTuple(std::vector<Expr *> xs, SourceLocation loc) {
    return at(ex_tuple(arena, (int)xs.size(), xs.data()), loc);
  }
  Expr *kInt(Type *t, long long v, SourceLocation loc);
  Expr *toKind(Expr *x, Type *t, SourceLocation loc);
  Expr *counterAt(const Bounds &b, Expr *k, SourceLocation loc);
  Expr *floatTrip(Expr *from, Expr *to, Expr *c, bool strict,
                  SourceLocation loc);
  Expr *iAdd(Expr *a, Expr *b, SourceLocation loc);
  Expr *iSub(Expr *a, Expr *b, SourceLocation loc);
  Expr *iMul(Expr *a, Expr *b, SourceLocation loc);
  Expr *iDiv(Expr *a, Expr *b, SourceLocation loc);
  Expr *iMax(Expr *a, Expr *b, SourceLocation loc);
  Expr *iMod(Expr *a, Expr *b, SourceLocation loc);
  Expr *iCmp(Prim p, Expr *a, Expr *b, SourceLocation loc);
  Expr *simpleOrBound(Expr *e, const char *name, std::vector<Binding> &pre,
                      SourceLocation loc);
  bool isZeroVar(const Expr *e);

  const FunctionDecl *fd;
  clang::ASTContext &ctx;
  DeclSink sinks{ctx};       // `double *t; t = e;` as `double *t = e;` (undone last)
  RowsRewrite flatRows{ctx}; // `A[i][j]` of rows `double A[][3]` as `A[i*3 + j]`
  DerefRewrite derefs{ctx}; // `*p` as `p[0]` while this function is lowered
  ChainRewrite chains{ctx};  // `a[0] = a[1] = v;` as two statements
  AliasRewrite aliases{ctx}; // pointers into one array as offsets (undone first)
  Arena *arena;
  SourceLocs &locs;
  Env paramEnv;
  std::vector<CalleeUse> callees;
  std::vector<Signature> customs; // CHAD_CUSTOM callees, distinct
  std::vector<const FunctionDecl *> customDecls; // their canonical decls
  long statementsLowered = 0;
  long bodiesLowered = 0;
  static constexpr long kMaxStatementsLowered = 200000;

  // arrays
  std::map<const VarDecl *, ArrayInfo> arrays;
  // A local pointer bound to a view: the array it points into, through
  // other views, and its offset there (an int over SSA variables in scope
  // where it is declared, hence wherever it is), for `p - q`.
  struct ViewRoot {
    const VarDecl *root = nullptr;
    Expr *offset = nullptr;
  };
  std::map<const VarDecl *, ViewRoot> viewRoots;
  std::vector<const VarDecl *> outputs; // output parameters, in order
  std::map<Place, Var *> initialElem;   // scalar-replaced outputs: unwritten
  bool returnsVoid = false;
  Type *cReturnType = nullptr; // the C result's IR type (unit for void)

  // tables (a null entry: not a table); the ones read at a variable index,
  // in order of first such read
  std::map<const VarDecl *, std::unique_ptr<TableInfo>> tables;
  std::vector<const VarDecl *> tablesBound;

  // local pointers initialised by malloc, calloc or realloc (arrays of role
  // Local, see lower_memory.cpp)
  std::set<const VarDecl *> scratchArrays;

  // loops
  std::vector<LoopCtx *> loops; // being lowered, outermost first
  std::map<const Var *, Poison> poisons;
  std::set<const Var *> zeroVars; // accumulators' per-iteration zero
  std::set<const Var *> zeroConst; // bound to the literal +0 of the C code
  void noteZero(Var *v, const Expr *value);
  // calls that write arrays, lowered at statement level: their C value
  std::map<const CallExpr *, Expr *> effectValues;
  // the value of each side effect hoisted out of an expression, and the
  // statement (epoch) it was hoisted for: only the current one is read
  std::map<const CExpr *, std::pair<Expr *, long>> sideValues;
  long hoistEpoch = 0;
};

} // namespace lowering_detail
} // namespace chad

#endif
