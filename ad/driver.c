/* driver.c: the AD pipeline for one function (DESIGN.md section 4).
 *
 * lowered IR -> ANF -> inlining of the callees that have no reverse
 * halves -> unswitching of loops that choose arrays -> counters read
 * from the loop counter -> hoisting of reads no step of a loop changes ->
 * CSE, LICM and DCE of the primal -> fusion of consecutive loops ->
 * forward and
 * reverse CHAD (with linear maps) ->
 * linear-map elimination -> ANF -> simplify -> materialise zeros -> ANF ->
 * flatten if results -> simplify -> CSE -> loop-invariant code motion ->
 * CSE -> cancelling cotangent effects -> DCE -> split f$rev into f$aug
 * and f$bwd.
 * The type checker runs after every stage: in CHECK_AD mode while linear
 * maps may exist, in CHECK_FINAL mode after elimination, where a
 * linear-map-typed value anywhere is an error. */
#include <string.h>

#include "ad/ad.h"
#include "ad/transform.h"
#include "ad/util.h"

const char *ad_name(Module *m, const char *fname, const char *suffix) {
  return arena_printf(m->arena, "%s$%s", fname, suffix);
}

/* Derived code gets names distinct from every name in f, so that dumps
 * before re-normalisation read unambiguously. */
static void reserve_binders(NameSet *names, Expr *e) {
  for (; e->kind == E_LET; e = e->body) {
    nameset_reserve(names, e->var->name);
    reserve_binders(names, e->args[0]);
  }
  for (int i = 0; i < e->nargs; i++)
    reserve_binders(names, e->args[i]);
  if (expr_is_loop(e)) {
    nameset_reserve(names, e->var->name);
    if (e->var2)
      nameset_reserve(names, e->var2->name);
    reserve_binders(names, e->body);
  }
}

static void dump_func(const AdOptions *opt, const char *stage, const Func *f) {
  if (!opt || !opt->dump)
    return;
  fprintf(opt->dump, "== %s: %s ==\n", f->name, stage);
  print_func(opt->dump, f);
  fputc('\n', opt->dump);
}

static bool check_stage(Module *m, Func *f, CheckMode mode, const char *stage, Diag *err) {
  Diag d;
  if (check_func(m, f, mode, &d))
    return true;
  diag_set(err, d.loc, "internal error after %s of '%s': %s", stage, f->name, d.msg);
  return false;
}

/* Elimination and clean-up of one derived function, in place. */
static bool optimise(Module *m, Func *g, bool reverse, const AdOptions *opt, Diag *err) {
  g->body = anf_body(m, g, linmap_eliminate(m, g->body));
  if (!check_stage(m, g, CHECK_AD, "linear-map elimination", err))
    return false;
  g->body = simplify_expr(m, g->body);
  if (!check_stage(m, g, CHECK_AD, "simplification", err))
    return false;
  g->body = anf_body(m, g, reverse ? materialize_cotangents(m, g->body)
                                   : materialize_expr(m, g->body));
  if (!check_stage(m, g, CHECK_FINAL, "materialisation", err))
    return false;
  g->body = simplify_expr(m, anf_body(m, g, flatten_ifs(m, g->body)));
  dump_func(opt, "after linear-map optimisation", g);
  g->body = cse_expr(m, licm_expr(m, cse_expr(m, g->body)));
  g->body = dce_expr(m, order_reverse_steps(m, g, merge_accums(m, readd_expr(m, g->body))));
  if (!check_stage(m, g, CHECK_FINAL, "CSE", err))
    return false;
  dump_func(opt, "after CSE, LICM and DCE", g);
  return true;
}

/* A transformation of the primal before it is differentiated: when it
 * changed the body, the result is simplified, normalised to ANF, checked
 * and dumped, and replaces *fr. */
static bool primal_stage(Module *m, Func **fr, Expr *changed, const char *stage,
                         const char *dump, NameSet *names, const AdOptions *opt, Diag *err) {
  if (changed == (*fr)->body)
    return true;
  Func copy = **fr;
  copy.body = simplify_expr(m, anf_body(m, &copy, changed));
  Func *next = anf_func(m, &copy);
  if (!check_stage(m, next, CHECK_SOURCE, stage, err))
    return false;
  reserve_binders(names, next->body);
  dump_func(opt, dump, next);
  *fr = next;
  return true;
}

/* Branches and loops nested deeper than this are refused. Each level's
 * derivative still costs time proportional to the levels inside it, and
 * C compilers' own limits are near: clang overflows its stack parsing a
 * few thousand nested blocks. Real code stays far below. */
enum { MAX_NESTING = 1000 };

/* The first if or loop nested more than MAX_NESTING deep in e, or NULL. */
static const Expr *too_deep(const Expr *e, int depth) {
  for (; e->kind == E_LET; e = e->body) {
    const Expr *d = too_deep(e->args[0], depth);
    if (d)
      return d;
  }
  bool nests = e->kind == E_IF || expr_is_loop(e);
  if (nests && depth == MAX_NESTING)
    return e;
  for (int i = 0; i < e->nargs; i++) {
    const Expr *d = too_deep(e->args[i], depth + (nests && i > 0));
    if (d)
      return d;
  }
  return expr_is_loop(e) ? too_deep(e->body, depth + 1) : NULL;
}

/* The parameter of f that `a` names, through the variables the body binds
 * to it, its views and its elements (`rhs_of`), or NULL. */
static Var *param_behind(const Func *f, const VarMap *rhs_of, Expr *a) {
  for (int guard = 0; a && a->kind == E_VAR && guard < 100000; guard++) {
    for (int i = 0; i < f->nparams; i++)
      if (f->params[i] == a->var)
        return a->var;
    Expr *rhs = varmap_get(rhs_of, a->var);
    if (!rhs || (rhs->kind != E_VAR && rhs->kind != E_VIEW && rhs->kind != E_INDEX))
      return NULL;
    a = rhs->kind == E_VAR ? rhs : rhs->args[0];
  }
  return NULL;
}

typedef struct {
  const Module *m;
  const Func *f;
  VarMap rhs_of; /* every let of f's body */
  Diag *err;
  bool failed;
} InactiveArgs;

static void collect_lets(Expr *e, VarMap *rhs_of) {
  for (; e; e = e->kind == E_LET ? e->body : NULL) {
    Expr *r = e->kind == E_LET ? e->args[0] : e;
    if (e->kind == E_LET)
      varmap_put(rhs_of, e->var, r);
    for (int i = 0; i < r->nargs; i++)
      if (!expr_is_atom(r->args[i]))
        collect_lets(r->args[i], rhs_of);
    if (r->body && r->kind != E_LET)
      collect_lets(r->body, rhs_of);
    if (e->kind != E_LET)
      break;
  }
}

static void check_call_args(InactiveArgs *c, Expr *r) {
  Func *g = module_find(c->m, r->name);
  for (int i = 0; g && i < g->nparams && i < r->nargs && !c->failed; i++) {
    if (func_param_class(g, i) != PARAM_INACTIVE || !type_is_active(g->params[i]->type))
      continue; /* not a mark of the user's */
    Var *p = param_behind(c->f, &c->rhs_of, r->args[i]);
    int j = 0;
    while (p && c->f->params[j] != p)
      j++;
    if (!p || func_param_class(c->f, j) == PARAM_INACTIVE || !type_is_active(p->type))
      continue;
    const char *gname = g->name;
    if (strncmp(gname, "chad__flat_", 11) == 0)
      gname += 11; /* g with its struct parameters as leaves (`s_a` is s.a) */
    diag_set(c->err, r->loc,
             "'%s' is active but passed to parameter '%s' of '%s', which is marked "
             "CHAD_INACTIVE: its derivative would be lost; mark '%s' CHAD_INACTIVE too, or "
             "drop the mark on '%s'",
             p->name, g->params[i]->name, gname, p->name, g->params[i]->name);
    c->failed = true;
  }
}

static void walk_calls(InactiveArgs *c, Expr *e) {
  for (; e && !c->failed; e = e->kind == E_LET ? e->body : NULL) {
    Expr *r = e->kind == E_LET ? e->args[0] : e;
    if (r->kind == E_CALL)
      check_call_args(c, r);
    for (int i = 0; i < r->nargs; i++)
      if (!expr_is_atom(r->args[i]))
        walk_calls(c, r->args[i]);
    if (r->body && r->kind != E_LET)
      walk_calls(c, r->body);
    if (e->kind != E_LET)
      break;
  }
}

/* Loop fusions per function: each is a round of the pass, and chains of
 * more than a few loops over one range are rare. */
enum { MAX_FUSIONS = 16 };

/* The stages that reshape the primal before AD, each checked and dumped.
 * Requires f in ANF with unique binders; guarantees the same, with loops
 * unswitched (if `unswitch`), running picks carried as indices,
 * counters read from the loop counter,
 * invariant reads and values hoisted out of loops, and consecutive loops
 * fused where that changes nothing (unless opt->no_fuse). */
static bool primal_stages(Module *m, Func **fr, bool unswitch, NameSet *names,
                          const AdOptions *opt, Diag *err) {
  /* a loop choosing the same array at every step chooses once, before it
   * (ad/unswitch.c) */
  if (!((!unswitch || primal_stage(m, fr, unswitch_expr(m, (*fr)->body), "unswitching",
                                    "with loops unswitched", names, opt, err)) &&
         /* a loop keeping the last value a condition picked (a running
          * maximum) carries the index of that pick (ad/pick.c) */
         primal_stage(m, fr, pick_last_expr(m, (*fr)->body), "picks",
                      "with picked values carried as indices", names, opt, err) &&
         /* integers a loop carries and advances by a fixed amount are
          * read from its counter (ad/indvar.c) */
         primal_stage(m, fr, indvar_expr(m, (*fr)->body), "counters",
                      "with counters from the loop counter", names, opt, err) &&
         /* elements every step of a loop reads and none writes are read
          * once, before it (ad/hoist.c) */
         primal_stage(m, fr, hoist_reads(m, (*fr)->body), "hoisting",
                      "with invariant reads hoisted", names, opt, err) &&
         /* values every step computes alike (a trip count, an offset) are
          * computed once, before the loop: the reverse sweep then has them
          * without storing them per step */
         primal_stage(m, fr,
                      dce_expr(m, cse_primal_expr(m, licm_primal_expr(m, cse_primal_expr(m, (*fr)->body)))),
                      "invariant code motion", "with invariant values hoisted", names, opt,
                      err)))
    return false;
  /* consecutive loops over one range whose steps touch apart elements run
   * as one loop (ad/fuse.c), a pair per round: then reverse mode writes
   * one reverse loop for them */
  for (int round = 0; round < MAX_FUSIONS && !(opt && opt->no_fuse); round++) {
    /* on live code, as a dead projection would read as a use: the stage
     * before ends with DCE, a fusion leaves dead bindings. DCE makes new
     * variables, whose order decides the operand order CSE writes, so a
     * function with nothing to fuse is left exactly as it was. */
    Expr *live = round ? dce_expr(m, (*fr)->body) : (*fr)->body;
    Expr *fused = fuse_loops(m, live, opt ? opt->dump : NULL, (*fr)->name);
    /* after the last fusion, the dead bindings it left go too */
    if (!primal_stage(m, fr, fused, "loop fusion", "with loops fused", names, opt, err))
      return false;
    if (fused == live)
      return true;
  }
  return true;
}

/* Consecutive loops of f$rev over one range that touch their shared
 * arrays only at the counter run as one loop (ad/fuse_sweep.c), a pair
 * per round; buffers then touched by one step each become numbers
 * (ad/scalarize.c); then CSE and DCE over the fused steps (unless
 * opt->no_fuse). Runs on f$rev only, after its halves were split off: a
 * fused loop may join the primal and the reverse sweep. */
static bool fuse_stage(Module *m, Func *g, const AdOptions *opt, Diag *err) {
  Expr *body = g->body;
  for (int round = 0; round < MAX_FUSIONS; round++) {
    Expr *fused = fuse_sweeps(m, body, opt ? opt->dump : NULL, g->name);
    if (fused == body)
      break;
    body = anf_body(m, g, fused);
  }
  /* the buffers fused steps now touch at their own element alone are
   * numbers (ad/scalarize.c) */
  Expr *scalar = scalarize_buffers(m, body);
  if (scalar != body)
    body = anf_body(m, g, scalar);
  if (body == g->body)
    return true;
  g->body = dce_expr(m, cse_expr(m, body));
  if (!check_stage(m, g, CHECK_FINAL, "reverse loop fusion", err))
    return false;
  dump_func(opt, "with reverse loops fused", g);
  return true;
}

/* f$rev's last stage: the loops of its sweeps fused (unless
 * opt->no_fuse), then cotangent buffers that a sum fills from the start
 * built with their elements (ad/fill.c), after fusion and scalarisation
 * had their chance at them. */
static bool sweep_stage(Module *m, Func *g, const AdOptions *opt, Diag *err) {
  if (!(opt && opt->no_fuse) && !fuse_stage(m, g, opt, err))
    return false;
  Expr *filled = fill_buffers(m, g->body);
  if (filled == g->body)
    return true;
  g->body = dce_expr(m, filled);
  if (!check_stage(m, g, CHECK_FINAL, "filled buffers", err))
    return false;
  dump_func(opt, "with buffers filled", g);
  return true;
}

/* A parameter of f the user did not mark, passed (itself, a view or an
 * element of it) to a callee's parameter marked CHAD_INACTIVE: the mark
 * would silently drop its derivative through that call, so it is a located
 * error (a value merely computed from it is not followed). */
static bool check_inactive_args(const Module *m, Func *fa, Diag *err) {
  InactiveArgs c = {.m = m, .f = fa, .err = err};
  collect_lets(fa->body, &c.rhs_of);
  walk_calls(&c, fa->body);
  varmap_free(&c.rhs_of);
  return !c.failed;
}

bool ad_differentiate(Module *m, Func *f, const AdOptions *opt, Diag *err) {
  if (!check_func(m, f, CHECK_SOURCE, err))
    return false;
  const Expr *deep = too_deep(f->body, 0);
  if (deep) {
    diag_set(err, deep->loc,
             "branches and loops nest more than %d levels deep here (chad's limit)",
             MAX_NESTING);
    return false;
  }
  dump_func(opt, "lowered IR", f);
  Func *fa = anf_func(m, f);
  if (!check_stage(m, fa, CHECK_SOURCE, "ANF", err))
    return false;
  dump_func(opt, "ANF", fa);
  if (!check_inactive_args(m, fa, err))
    return false;

  NameSet names = {0};
  for (int i = 0; i < f->nparams; i++)
    nameset_reserve(&names, f->params[i]->name);
  reserve_binders(&names, fa->body);
  /* callees without reverse halves are differentiated as part of f, and
   * so are small callees, called in f's loops, whose halves would run
   * work again that those loops can store (DESIGN 8.55) */
  Func *fr = fa;
  InlinePolicy policy = {.small_storing = true, .dump = opt ? opt->dump : NULL,
                         .caller = f->name};
  Expr *inlined = ad_inline_calls(m, fa->body, &policy, err);
  if (!inlined) {
    nameset_free(&names);
    return false;
  }
  if (inlined != fa->body) {
    Func copy = *fa;
    /* the inlined callee's result tuple is projected at once: resolving
     * those projections lets reverse mode see an in-out array's versions
     * as one chain through the callee (their shared buffer) */
    copy.body = simplify_expr(m, anf_body(m, &copy, inlined));
    fr = anf_func(m, &copy);
    if (!check_stage(m, fr, CHECK_SOURCE, "inlining", err)) {
      nameset_free(&names);
      return false;
    }
    reserve_binders(&names, fr->body);
    dump_func(opt, "with callees inlined", fr);
  }
  Func *written = fr;
  if (!primal_stages(m, &fr, true, &names, opt, err)) {
    nameset_free(&names);
    return false;
  }
  Func *fwd = opt && opt->reverse_only ? NULL : ad_forward(m, fr, &names);
  if (opt && opt->forward_only) {
    nameset_free(&names);
    bool fok = check_stage(m, fwd, CHECK_AD, "forward CHAD", err);
    dump_func(opt, "forward derivative with linear maps", fwd);
    return fok && optimise(m, fwd, false, opt, err);
  }
  /* f$rev is split into halves for callers unless f writes arrays */
  bool split = !func_num_outputs(f) && !expr_contains(fr->body, E_ALLOC) &&
               !expr_contains(fr->body, E_UPDATE);
  bool store = !(opt && opt->recompute);
  bool eager = false;
  Func *rev = ad_reverse(m, fr, &names, "rev", store, opt ? opt->dump : NULL, &eager, err);
  /* should reverse mode refuse what the stages made, it gets the program
   * they make without unswitching, then the program as written: those
   * stages never cost a derivative. The stages rebound some of `written`'s
   * variables to new values (a tuple that lost a dead field) and the
   * checker typed the shared Var nodes for those, so `written` is typed
   * again before each retry. */
  for (int retry = 0; !rev && fr != written && retry < 2; retry++) {
    Func *again = written;
    if (!check_stage(m, written, CHECK_SOURCE, "inlining", err) ||
        (retry == 0 && !primal_stages(m, &again, false, &names, opt, err)))
      break;
    if (retry == 1 || again != fr) {
      fr = again;
      rev = ad_reverse(m, fr, &names, "rev", store, opt ? opt->dump : NULL, &eager, err);
    }
  }
  /* the halves cannot share an undo log (each is a function of its own):
   * when f$rev stores residuals there, or runs a sum's reverse in its
   * primal sweep, the halves come from an f$rev whose loops recompute */
  Func *for_halves = rev;
  if (rev && split && (eager || expr_contains(rev->body, E_LOGPUSH)))
    for_halves = ad_reverse(m, fr, &names, "rev_for_halves", false, NULL, NULL, err);
  nameset_free(&names);
  if (!rev || !for_halves)
    return false;

  bool ok = true;
  if (fwd) {
    ok = check_stage(m, fwd, CHECK_AD, "forward CHAD", err);
    dump_func(opt, "forward derivative with linear maps", fwd);
    ok = ok && optimise(m, fwd, false, opt, err);
  }
  ok = ok && check_stage(m, rev, CHECK_AD, "reverse CHAD", err);
  dump_func(opt, "reverse derivative with linear maps", rev);
  ok = ok && optimise(m, rev, true, opt, err);
  if (!ok)
    return false;
  if (func_num_outputs(f))
    return sweep_stage(m, rev, opt, err); /* callers cannot take output arrays
                                             yet: no halves needed */
  if (expr_contains(fr->body, E_ALLOC) || expr_contains(fr->body, E_UPDATE))
    return sweep_stage(m, rev, opt, err); /* the halves of a function that updates arrays (DESIGN 8.6)
                    are not built yet: its callers are refused in reverse
                    mode (ad/rev.c), f_rev itself is complete */
  if (for_halves != rev) {
    ok = check_stage(m, for_halves, CHECK_AD, "reverse CHAD", err) &&
         optimise(m, for_halves, true, opt, err);
    if (!ok)
      return false;
  }
  if (!ad_split(m, f, for_halves, err))
    return false;
  /* what f$rev stores on its log, the halves compute again (an eager
   * sum's halves only run its reverse later: nothing more), and so does
   * a costly sum, which a caller's loop would store (DESIGN 8.55) */
  f->halves_recompute = store && ((for_halves != rev && expr_contains(rev->body, E_LOGPUSH)) ||
                                  expr_any(fr->body, costly_sum));
  Func *aug = module_find(m, ad_name(m, f->name, "aug"));
  Func *bwd = module_find(m, ad_name(m, f->name, "bwd"));
  ok = check_stage(m, aug, CHECK_FINAL, "split", err) &&
       check_stage(m, bwd, CHECK_FINAL, "split", err);
  dump_func(opt, "primal half of reverse (for callers)", aug);
  dump_func(opt, "adjoint half of reverse (for callers)", bwd);
  return ok && sweep_stage(m, rev, opt, err);
}
