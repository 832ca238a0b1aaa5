#!/usr/bin/env python3
"""run.py: generate, compile with the chad plugin, run and check random programs.

    run.py --count N --start S [--jobs J] [--no-reduce]

Seed S..S+N-1: gen.py's program for each seed is compiled with
`clang -fplugin=libchad.so -std=<c99|c11|c17> -Wall -Wextra -pedantic -Werror
-O1` and run (its main() checks every function with gradcheck.h).  Each
outcome is one of

    ok               compiled, every check passed
    plugin-crash     clang died (signal, stack dump) while running the plugin
    chad-error       a located chad error: the generator only produces supported
                     code, so this is a bug in the plugin (an internal error,
                     or a construct the README says is supported) or in the
                     generator (an unsupported construct): the message says which
    werror           a warning under -Werror: in generated code (<file>.chad.c,
                     a plugin bug) or in the test program (a generator bug)
    compile-error    any other compile error (a generator bug)
    wrong-derivative the program ran and a check failed
    runtime-crash    the program died on a signal or timed out
    float-noise      only float gradients failed, within twice the finite-
                     difference tolerance (not a failure)
    fold-noise       only primal values differed (f_fwd/f_rev vs f), and the
                     same program passes at -O0: clang evaluated part of f at
                     compile time at -O1 (not a failure)

A failure is reduced (unless --no-reduce) by delta debugging over the
generator's tree: functions, then statements, then expression nodes (replaced
by a child or a constant), then test points are dropped while the failure
keeps the same signature.  The reduced program is written to
tests/gen/regress/seed-S.c, which CTest compiles and runs like an e2e test.
Seeds listed in regress/KNOWN_FAILURES (known, reported, unfixed bugs) are
reported but do not make the exit status nonzero.
"""
import argparse
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import gen  # noqa: E402

OPTS = None


def default_plugin():
    for p in (os.environ.get("CHAD_PLUGIN"), os.path.join(ROOT, "build", "libchad.so")):
        if p and os.path.exists(p):
            return p
    return os.path.join(ROOT, "build", "libchad.so")


def default_clang():
    for p in (os.environ.get("CHAD_CLANG"), "/usr/lib/llvm-14/bin/clang", shutil.which("clang-14"),
              shutil.which("clang")):
        if p and os.path.exists(p):
            return p
    return "clang"


def read_known():
    known = {}
    path = os.path.join(HERE, "regress", "KNOWN_FAILURES")
    if os.path.exists(path):
        for line in open(path):
            line = line.split("#", 1)[0].strip()
            m = re.match(r"seed-(\d+)", line)
            if m:
                known[int(m.group(1))] = line
    return known


NOISE_RE = re.compile(r"^FAIL (\w+) at .*: (duality|seed -2\.5|adjoints must accumulate)")
FD_RE = re.compile(r"^FAIL (\w+) at .*finite differences.*\(error ([0-9.e+-]+) > tol ([0-9.e+-]+)\)")


def float_noise(line, float_funcs):
    """A float function failing only an identity that holds up to rounding
    (duality, seed scaling, accumulation), with finite differences passing:
    rounding amplified by cancellation inside the function (the tolerance of
    gradcheck.h is relative to the result, not to the terms that cancelled),
    not a derivative bug.  Counted and listed apart, not a failure."""
    m = NOISE_RE.match(line)
    if m:
        return m.group(1) in float_funcs
    # A float gradient off from finite differences by less than twice the
    # tolerance: float finite differences are noisy; a wrong derivative is
    # off by far more (and fails the double programs too).
    m = FD_RE.match(line)
    return bool(m) and m.group(1) in float_funcs and float(m.group(2)) < 2 * float(m.group(3))


PRIMAL_RE = re.compile(r"output \d+: f_(fwd|rev) gives \S+, f gives ")


def compile_and_run(src_text, std, wd, name="prog", float_funcs=(), opt="-O1"):
    """Returns (class, detail)."""
    src = os.path.join(wd, name + ".c")
    exe = os.path.join(wd, name)
    with open(src, "w") as f:
        f.write(src_text)
    cmd = [OPTS.clang, "-fplugin=" + OPTS.plugin, "-I", os.path.join(ROOT, "include"),
           "-I", os.path.join(ROOT, "tests", "e2e"), "-std=" + std, "-Wall", "-Wextra", "-pedantic",
           "-Werror", opt, src, "-o", exe, "-lm"]
    try:
        p = subprocess.run(cmd, cwd=wd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "plugin-crash", "compiler timed out (120 s)"
    err = p.stderr
    if p.returncode != 0:
        if p.returncode < 0 or "due to signal" in err or "Stack dump" in err or "PLEASE submit" in err:
            first = next((l for l in err.splitlines() if "error" in l.lower() or "signal" in l), "")
            return "plugin-crash", first.strip()[:300]
        errs = [l for l in err.splitlines() if "error:" in l]
        chad = [l for l in errs if "chad:" in l]
        if chad:
            return "chad-error", chad[0].split("error:", 1)[1].strip()[:400]
        werr = [l for l in errs if "-Werror" in l]
        if werr:
            where = "generated code" if ".chad.c" in werr[0] else "test program"
            return "werror", "%s: %s" % (where, werr[0].split("error:", 1)[1].strip()[:300])
        return "compile-error", (errs[0] if errs else err.strip()[:300])
    try:
        r = subprocess.run([exe], cwd=wd, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "runtime-crash", "timed out (60 s)"
    if r.returncode < 0:
        return "runtime-crash", "signal %d" % -r.returncode
    if r.returncode != 0:
        fails = [l for l in r.stdout.splitlines() if l.startswith("FAIL") and " at " in l]
        if fails and float_funcs and all(float_noise(l, float_funcs) for l in fails):
            return "float-noise", fails[0][:400]
        if fails and opt != "-O0" and any(PRIMAL_RE.search(l) for l in fails) and all(
                PRIMAL_RE.search(l) or float_noise(l, float_funcs) for l in fails):
            # f_fwd/f_rev must give f's value exactly, and do when clang
            # compiles all three as written; at -O1 it may fold f's
            # computation at compile time (calls with constant arguments,
            # fused multiply-adds, libm) and run the derivatives' copy at
            # run time. The tie-breaker: the same program at -O0.
            cls0, detail0 = compile_and_run(src_text, std, wd, name + "-O0", float_funcs, "-O0")
            if cls0 in ("ok", "float-noise"):
                return "fold-noise", fails[0][:400]
        if fails:
            return "wrong-derivative", fails[0][:400]
        return "runtime-crash", "exit status %d: %s" % (r.returncode, r.stdout[-200:])
    return "ok", ""


def signature(cls, detail):
    """What must stay the same while reducing."""
    if cls == "chad-error":
        d = re.sub(r"'f\d+(\$\w+)?'", "'F'", detail)
        d = re.sub(r"\(.*", "", d)  # types and the like change as code shrinks
        return cls, d[:80]
    if cls == "werror":
        m = re.search(r"\[-W[^\]]*\]", detail)
        return cls, detail.split(":")[0] + (m.group(0) if m else "")
    if cls == "wrong-derivative":
        return cls, ""
    return cls, ""


# ---------------------------------------------------------------------------
# Reduction

def live_nodes(g, st):
    """Functions, statements, expression nodes and points still present."""
    funcs, stmts, exprs, points = [], [], [], []

    def walk_x(x):
        r = st.repl.get(x.id)
        if r is not None:
            if r != "c":
                walk_x(x.kids[r])
            return
        exprs.append(x)
        for k in x.kids:
            walk_x(k)

    def walk_s(s):
        if s.id in st.drop and not s.fixed:
            return
        if not s.fixed:
            stmts.append(s)
        for e in s.exprs:
            walk_x(e)
        for b in s.body + s.els:
            walk_s(b)

    for fn in g.funcs:
        if fn.id in st.drop:
            continue
        funcs.append(fn)
        for s in fn.body:
            walk_s(s)
        points += [p for p in fn.point_ids if p not in st.drop]
    return funcs, stmts, exprs, points


def valid_c(g, st, std, wd):
    """The candidate's annotated functions are clean C without the plugin."""
    src = os.path.join(wd, "plain.c")
    with open(src, "w") as f:
        f.write(gen.render_plain(g, st))
    p = subprocess.run([OPTS.clang, "-fsyntax-only", "-I", os.path.join(ROOT, "include"), "-std=" + std,
                        "-Wall", "-Wextra", "-pedantic", "-Werror", "-Wuninitialized", src],
                       capture_output=True, text=True)
    return p.returncode == 0


def reduce_failure(g, std, sig, wd, budget):
    st = gen.State()
    t0 = time.time()
    tries = [0]

    def still_fails(cand):
        tries[0] += 1
        if not (sig[0] == "werror" and sig[1].startswith("test program")) and not valid_c(g, cand, std, wd):
            return False
        cls, detail = compile_and_run(gen.render(g, cand), std, wd, "red")
        return signature(cls, detail) == sig

    def try_drop_chunks(ids):
        nonlocal st
        changed = False
        n = len(ids)
        chunk = max(1, n // 2)
        while chunk >= 1 and ids:
            i = 0
            while i < len(ids):
                if time.time() - t0 > budget:
                    return changed
                part = ids[i:i + chunk]
                cand = st.copy()
                cand.drop.update(part)
                if still_fails(cand):
                    st = cand
                    ids = ids[:i] + ids[i + chunk:]
                    changed = True
                else:
                    i += chunk
            if chunk == 1:
                break
            chunk //= 2
        return changed

    progress = True
    while progress and time.time() - t0 <= budget:
        progress = False
        funcs, stmts, exprs, points = live_nodes(g, st)
        # keep at least one function
        if len(funcs) > 1:
            progress |= try_drop_chunks([f.id for f in reversed(funcs)])
        funcs, stmts, exprs, points = live_nodes(g, st)
        progress |= try_drop_chunks([s.id for s in stmts])
        funcs, stmts, exprs, points = live_nodes(g, st)
        for x in exprs:
            if time.time() - t0 > budget:
                break
            if st.repl.get(x.id) is not None:
                continue
            opts = [k for k, c in enumerate(x.kids) if c.t == x.t]
            if x.t == "f" and x.fmt != "#0.5":
                opts.append("c")
            for o in opts:
                cand = st.copy()
                cand.repl[x.id] = o
                if still_fails(cand):
                    st = cand
                    progress = True
                    break
        funcs, stmts, exprs, points = live_nodes(g, st)
        if len(points) > 1:
            progress |= try_drop_chunks(points[1:] if sig[0] == "wrong-derivative" else points)
    return st, tries[0], time.time() - t0


# ---------------------------------------------------------------------------

def one(seed):
    t0 = time.time()
    g = gen.generate(seed)
    wd = tempfile.mkdtemp(prefix="chadgen-%d-" % seed, dir=OPTS.tmp)
    try:
        ff = set(f.name for f in g.funcs if f.T == "float")
        cls, detail = compile_and_run(gen.render(g), g.std, wd, float_funcs=ff)
        res = {"seed": seed, "cls": cls, "detail": detail, "std": g.std, "time": time.time() - t0}
        if cls not in ("ok", "float-noise", "fold-noise") and OPTS.reduce and seed not in OPTS.known:
            sig = signature(cls, detail)
            st, tries, dt = reduce_failure(g, g.std, sig, wd, OPTS.reduce_budget)
            text = gen.render(g, st)
            cls2, detail2 = compile_and_run(text, g.std, wd, "final")
            os.makedirs(OPTS.regress, exist_ok=True)
            path = os.path.join(OPTS.regress, "seed-%d.c" % seed)
            header = ("/* Reduced from tests/gen/gen.py --seed %d (-std=%s) by run.py: %d tries, %.0f s.\n"
                      " * %s: %s\n */\n" % (seed, g.std, tries, dt, cls2,
                                            detail2.replace("*/", "* /")))
            with open(path, "w") as f:
                f.write(header + text)
            res.update(reduced=path, rcls=cls2, rdetail=detail2)
        return res
    finally:
        if not OPTS.keep:
            shutil.rmtree(wd, ignore_errors=True)


def init(opts):
    global OPTS
    OPTS = opts


def main():
    ap = argparse.ArgumentParser(description="Random program campaign for chad.")
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--start", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--plugin", default=default_plugin())
    ap.add_argument("--clang", default=default_clang())
    ap.add_argument("--no-reduce", dest="reduce", action="store_false")
    ap.add_argument("--reduce-budget", type=float, default=180, help="seconds per failure")
    ap.add_argument("--regress", default=os.path.join(HERE, "regress"))
    ap.add_argument("--tmp", default=None)
    ap.add_argument("--keep", action="store_true", help="keep work directories")
    ap.add_argument("--quiet", action="store_true")
    opts = ap.parse_args()
    opts.known = read_known()
    if not os.path.exists(opts.plugin):
        sys.exit("run.py: plugin %s not found (--plugin or CHAD_PLUGIN)" % opts.plugin)
    if opts.tmp:
        os.makedirs(opts.tmp, exist_ok=True)
    t0 = time.time()
    seeds = range(opts.start, opts.start + opts.count)
    counts, failures, known_hit = {}, [], []
    times = []
    with multiprocessing.Pool(opts.jobs, initializer=init, initargs=(opts,)) as pool:
        for k, res in enumerate(pool.imap_unordered(one, seeds)):
            counts[res["cls"]] = counts.get(res["cls"], 0) + 1
            times.append(res["time"])
            if res["cls"] in ("float-noise", "fold-noise"):
                print("%s seed %d: %s" % (res["cls"], res["seed"], res["detail"][:200]), flush=True)
            elif res["cls"] != "ok":
                tag = "KNOWN " if res["seed"] in opts.known else ""
                line = "%s%s seed %d (-std=%s): %s" % (tag, res["cls"], res["seed"], res["std"], res["detail"])
                if "reduced" in res:
                    line += "\n    reduced -> %s (%s: %s)" % (os.path.relpath(res["reduced"], ROOT),
                                                            res["rcls"], res["rdetail"][:200])
                print(line, flush=True)
                (known_hit if res["seed"] in opts.known else failures).append(res)
            if not opts.quiet and (k + 1) % 100 == 0:
                print("... %d/%d programs, %.0f s" % (k + 1, opts.count, time.time() - t0), flush=True)
    wall = time.time() - t0
    print("run.py: %d programs (seeds %d..%d), %.1f s wall, %.2f s per program (compile+run, one core)"
          % (opts.count, opts.start, opts.start + opts.count - 1, wall, sum(times) / max(1, len(times))))
    print("run.py: " + ", ".join("%s %d" % kv for kv in sorted(counts.items())))
    if known_hit:
        print("run.py: %d known failure(s) (regress/KNOWN_FAILURES): %s"
              % (len(known_hit), " ".join(str(r["seed"]) for r in known_hit)))
    if failures:
        print("run.py: %d NEW failure(s): seeds %s; reproduce: tests/gen/gen.py --seed S"
              % (len(failures), " ".join(str(r["seed"]) for r in failures)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
