#!/usr/bin/env python3
"""gen.py: random differentiable C programs for chad (issue 4).

`gen.py --seed S` prints one self-contained C file: N annotated functions in
the subset chad supports (README, "Supported C subset"), and a main() that
checks each of them with tests/e2e/gradcheck.h (gca_check: exact primal,
finite differences with Richardson extrapolation, duality, seed scaling,
accumulation) at a few random points.  The same seed gives the same program.

Domain.  Every operation is written so that it is defined and smooth on all
of R, whatever its argument: log(1.5 + e*e), asin(0.5*tanh(e)), e / (1.5 +
f*f), exp(tanh(e)), ...  The remaining non-smooth operations (comparisons,
fabs, fmin/fmax, floor/ceil/round, (int) casts, cbrt at 0, hypot at 0,
atan2's cut) are kinks or jumps.  For them the program also contains an
uninstrumented-by-chad copy of each function (gm_NAME) in which every such
operation records its distance to the kink (gk_* helpers).  main() draws
random points and keeps only those whose distance to every kink reached is
above a threshold larger than the finite-difference steps, and whose outputs
are finite and moderate; so a reported failure is a real derivative bug.

Reduction.  Every function, statement, expression node and test point has
an id; render() takes a State naming which ids are dropped and which
expression nodes are replaced by one of their children or by a constant.
run.py uses this for delta debugging.
"""
import argparse
import random
import re
import sys

MATH = ("sqrt exp log log1p expm1 pow sin cos tan asin acos atan atan2 sinh cosh tanh "
        "fabs fmin fmax hypot erf cbrt floor ceil round lgamma tgamma exp2 log2 log10 fma "
        "fmod remainder copysign fdim trunc rint nearbyint erfc asinh acosh atanh ldexp "
        "scalbn").split()
MATH_RE = re.compile(r"\b(" + "|".join(MATH) + r")\(")
LIT_RE = re.compile(r"#(-?\d+\.\d+)")


class State:
    """What the reducer has removed: ids dropped, expression replacements."""

    def __init__(self, drop=(), repl=None):
        self.drop = set(drop)
        self.repl = dict(repl or {})

    def copy(self):
        return State(self.drop, self.repl)


class X:
    """An expression node: fmt (C, with {0}.. for the children), ifmt (the
    instrumented form, for gm_ copies; None: same), t: 'f' floating or 'b'
    condition."""
    __slots__ = ("id", "fmt", "ifmt", "kids", "t")

    def __init__(self, prog, fmt, kids=(), ifmt=None, t="f"):
        self.id = prog.newid()
        self.fmt, self.ifmt, self.kids, self.t = fmt, ifmt, list(kids), t


class S:
    """A statement: kind 'raw' (fmt with expression children), 'if' (cond,
    then, else lists), 'for' (header, body list: also while loops) or 'do'
    (condition, body list).  fixed: never dropped."""

    def __init__(self, prog, kind, fmt="", exprs=(), body=None, els=None, fixed=False):
        self.id = prog.newid()
        self.kind, self.fmt, self.exprs = kind, fmt, list(exprs)
        self.body, self.els, self.fixed = body or [], els or [], fixed


class Func:
    pass


def fmt_type(template, T):
    """Float forms: sqrtf, 1.5f, float casts."""
    if T == "float":
        template = MATH_RE.sub(lambda m: m.group(1) + "f(", template)
        template = LIT_RE.sub(lambda m: m.group(1) + "f", template)
    else:
        template = LIT_RE.sub(lambda m: m.group(1), template)
    # @S: the suffix of a custom function's float form (gen_cu_sp, gen_cu_spf)
    return template.replace("@T", T).replace("@S", "f" if T == "float" else "")


def rx(x, T, st, instr, calls_gm):
    r = st.repl.get(x.id)
    if r is not None:
        if r == "c":
            return fmt_type("#0.5", T)
        return rx(x.kids[r], T, st, instr, calls_gm)
    f = x.ifmt if (instr and x.ifmt is not None) else x.fmt
    if instr and calls_gm:
        f = f.replace("$CALL", "gm_")
    else:
        f = f.replace("$CALL", "")
    f = fmt_type(f, T)
    # Children are rendered fully and substituted afterwards.
    return f.format(*[rx(k, T, st, instr, calls_gm) for k in x.kids])


def rs(s, T, st, instr, ind, out):
    if s.id in st.drop and not s.fixed:
        return
    pad = "    " * ind
    if s.kind == "raw":
        f = fmt_type(s.fmt, T)
        out.append(pad + f.format(*[rx(e, T, st, instr, True) for e in s.exprs]))
    elif s.kind == "if":
        c = rx(s.exprs[0], T, st, instr, True)
        out.append(pad + "if (%s) {" % c)
        for b in s.body:
            rs(b, T, st, instr, ind + 1, out)
        live_else = [b for b in s.els if b.id not in st.drop or b.fixed]
        if live_else:
            out.append(pad + "} else {")
            for b in s.els:
                rs(b, T, st, instr, ind + 1, out)
        out.append(pad + "}")
    elif s.kind == "for":
        out.append(pad + s.fmt + " {")
        for b in s.body:
            rs(b, T, st, instr, ind + 1, out)
        out.append(pad + "}")
    elif s.kind == "do":  # fmt: the condition
        out.append(pad + "do {")
        for b in s.body:
            rs(b, T, st, instr, ind + 1, out)
        out.append(pad + "} while (%s);" % s.fmt)


# ---------------------------------------------------------------------------
# Expression templates.  {0}, {1}: operands; #1.5: a literal (1.5f in float
# functions); math names get the f suffix in float functions.  The second
# form, when present, is the instrumented one (distance to the kink).

UNARY = [
    ("sqrt(#1.5 + {0} * {0})", None),
    ("sqrt(#2.0 + sin({0}))", None),
    ("exp(tanh({0}))", None),
    ("exp(#0.5 * sin({0}))", None),
    ("log(#1.5 + {0} * {0})", None),
    ("log(#2.0 + cos({0}))", None),
    ("log1p({0} * {0})", None),
    ("log1p(#0.5 * tanh({0}))", None),
    ("expm1(tanh({0}))", None),
    ("pow(#1.5 + {0} * {0}, #0.75)", None),
    ("pow(#2.0 + sin({0}), #-1.5)", None),
    ("pow(#1.25 + tanh({0}), #3.0)", None),
    ("sin({0})", None),
    ("cos({0})", None),
    ("tan(#0.5 * tanh({0}))", None),
    ("asin(#0.5 * tanh({0}))", None),
    ("acos(#0.5 * tanh({0}))", None),
    ("atan({0})", None),
    ("sinh(#2.0 * tanh({0}))", None),
    ("cosh(tanh({0}))", None),
    ("tanh({0})", None),
    ("erf({0})", None),
    ("cbrt(#1.5 + {0} * {0})", None),
    ("cbrt({0})", "((@T)gk_cbrt({0}))"),
    ("fabs({0})", "((@T)gk_fabs({0}))"),
    ("floor({0})", "((@T)gk_floor({0}))"),
    ("ceil({0})", "((@T)gk_ceil({0}))"),
    ("round({0})", "((@T)gk_round({0}))"),
    ("(@T)(int)(#3.0 * tanh({0}))", "((@T)gk_trunc(#3.0 * tanh({0})))"),
    ("(-{0})", None),
    # issue 8: the gamma functions between their poles, the rest on R
    ("lgamma(#1.5 + {0} * {0})", None),
    ("lgamma(#-0.5 + #0.25 * tanh({0}))", None),
    ("tgamma(#1.5 + tanh({0}))", None),
    ("tgamma(#-1.5 + #0.25 * tanh({0}))", None),
    ("exp2(tanh({0}))", None),
    ("log2(#1.5 + {0} * {0})", None),
    ("log10(#2.0 + sin({0}))", None),
    ("erfc({0})", None),
    ("asinh({0})", None),
    ("acosh(#1.5 + {0} * {0})", None),
    ("atanh(#0.5 * tanh({0}))", None),
    ("ldexp({0}, 3)", None),
    ("scalbn({0}, -2)", None),
    ("pow({0}, 3)", None),
    ("pow({0}, 2)", None),
    ("pow(#1.5 + {0} * {0}, -2)", None),
    ("trunc({0})", "((@T)gk_ftrunc({0}))"),
    ("rint({0})", "((@T)gk_round({0}))"),
    ("nearbyint({0})", "((@T)gk_round({0}))"),
]
KINKY_UNARY = {"cbrt({0})", "fabs({0})", "floor({0})", "ceil({0})", "round({0})",
               "trunc({0})", "rint({0})", "nearbyint({0})",
               "(@T)(int)(#3.0 * tanh({0}))"}
BINARY = [
    ("({0} + {1})", None), ("({0} + {1})", None), ("({0} - {1})", None),
    ("({0} * {1})", None), ("({0} * {1})", None),
    ("{0} / (#1.5 + {1} * {1})", None),
    ("{0} / (#2.0 + cos({1}))", None),
    ("pow(#1.5 + {0} * {0}, #0.5 * tanh({1}))", None),
    ("atan2({0}, #1.5 + tanh({1}))", None),
    ("atan2({0}, {1})", "((@T)gk_atan2({0}, {1}))"),
    ("hypot({0}, {1})", "((@T)gk_hypot({0}, {1}))"),
    ("hypot({0}, #0.5 + {1} * {1})", None),
    ("fmin({0}, {1})", "((@T)gk_fmin({0}, {1}))"),
    ("fmax({0}, {1})", "((@T)gk_fmax({0}, {1}))"),
    ("fma({0}, {1}, {0})", None),
    ("fma({0}, #1.5, {1})", None),
    ("fmod({0}, #1.5 + {1} * {1})", "((@T)gk_fmod({0}, #1.5 + {1} * {1}))"),
    ("remainder({0}, #1.5 + {1} * {1})", "((@T)gk_remainder({0}, #1.5 + {1} * {1}))"),
    ("copysign({0}, {1})", "((@T)gk_copysign({0}, {1}))"),
    ("fdim({0}, {1})", "((@T)gk_fdim({0}, {1}))"),
]
KINKY_BINARY = {"atan2({0}, {1})", "hypot({0}, {1})", "fmin({0}, {1})", "fmax({0}, {1})",
                "fmod({0}, #1.5 + {1} * {1})", "remainder({0}, #1.5 + {1} * {1})",
                "copysign({0}, {1})", "fdim({0}, {1})"}
CMP = [("<", "gk_lt"), (">", "gk_gt"), ("<=", "gk_le"), (">=", "gk_ge")]
CONSTS = ["0.5", "1.25", "2.0", "0.75", "3.0", "0.1", "1.5", "0.25"]


class Ctx:
    """What an expression may read: scalar variables, array reads (C text
    already formed, e.g. x[i]), integer expressions for conditions."""

    def __init__(self, fn, vars_, reads=(), ints=()):
        self.fn, self.vars, self.reads, self.ints = fn, list(vars_), list(reads), list(ints)

    def sub(self, reads=None, ints=None, vars_=None):
        return Ctx(self.fn, self.vars if vars_ is None else vars_,
                   self.reads if reads is None else reads, self.ints if ints is None else ints)


class Gen:
    def __init__(self, seed):
        self.seed = seed
        self.r = random.Random(seed)
        # Decisions about CHAD_CUSTOM calls draw from their own stream, so
        # that a program without one is the program the seed gave before.
        self.rc = random.Random(seed * 7919 + 1)
        # and so do those about pointers into arrays (views)
        self.rv = random.Random(seed * 104729 + 3)
        # and everything about scratch memory (malloc, calloc, VLAs, memset,
        # memcpy, free): a block of it is drawn wholly from this stream
        self.rm = random.Random(seed * 1299709 + 5)
        self.scratch_used = False
        self.next_id = 0
        self.funcs = []

    def newid(self):
        self.next_id += 1
        return self.next_id

    # -- expressions -------------------------------------------------------
    def leaf(self, c):
        r = self.r
        opts = []
        if c.vars:
            opts += ["v"] * 4
        if c.reads:
            opts += ["a"] * 4
        opts += ["k"]
        if c.ints and r.random() < 0.1:
            i = r.choice(c.ints)
            # integer arithmetic in the variable's own type: bitwise
            # operators, shifts, unsigned wrap-around and remainders
            form = r.choice(["%s", "%s", "(%s ^ 5) & 3", "(%s << 2) %% 7u", "%s * 3u - 1u > 4u",
                             "(%s | 8) >> 1", "~%s & 0x3", "(%s + 0UL) %% 3",
                             "gen_tab[(%s) %% 8]", "gen_tab2[(%s) %% 2][1]"])
            return X(self, "((@T)(" + form % i + ") * #0.25)")
        k = r.choice(opts)
        if k == "v":
            return X(self, r.choice(c.vars))
        if k == "a":
            return X(self, r.choice(c.reads))
        return X(self, "#" + r.choice(CONSTS))

    def expr(self, c, depth):
        r = self.r
        if depth > 0 and self.rc.random() < 0.05:
            return self.custom_call(c, depth)
        if depth <= 0 or r.random() < 0.25:
            return self.leaf(c)
        p = r.random()
        kinky_ok = c.fn.kinks < c.fn.max_kinks
        if p < 0.35:
            while True:
                fmt, ifmt = r.choice(UNARY)
                if fmt not in KINKY_UNARY or kinky_ok:
                    break
            if fmt in KINKY_UNARY:
                c.fn.kinks += 1
            return X(self, fmt, [self.expr(c, depth - 1)], ifmt)
        if p < 0.8:
            while True:
                fmt, ifmt = r.choice(BINARY)
                if fmt not in KINKY_BINARY or kinky_ok:
                    break
            if fmt in KINKY_BINARY:
                c.fn.kinks += 1
            a, b = self.expr(c, depth - 1), self.expr(c, depth - 1)
            for _ in range(3):
                if a.kids or b.kids or a.fmt != b.fmt:
                    break
                b = self.expr(c, depth - 1)  # avoid x - x: cancellation to 0
            return X(self, fmt, [a, b], ifmt)
        if p < 0.88 and kinky_ok:
            return X(self, "({0} ? {1} : {2})",
                     [self.cond(c, 1), self.expr(c, depth - 1), self.expr(c, depth - 1)])
        if p < 0.96 and c.fn.callees:
            return self.call(c, depth)
        return X(self, "(#%s * {0})" % r.choice(CONSTS), [self.expr(c, depth - 1)])

    def cond(self, c, depth):
        r = self.r
        c.fn.kinks += 1
        if c.ints and r.random() < 0.2:
            i = r.choice(c.ints)
            return X(self, "%s %s %d" % (i, r.choice(["<", ">", "<=", ">="]), r.randint(0, 3)), t="b")
        if depth > 0 and r.random() < 0.2:
            op = r.choice(["&&", "||"])
            a, b = self.cond(c, 0), self.cond(c, 0)
            # two int comparisons of one variable joined by && or || can be
            # always true or false (m > 1 || m <= 1): clang then warns, and
            # -Werror rejects the test program itself; join with a float one
            for _ in range(3):
                if not (a.fmt.split(" ")[0] == b.fmt.split(" ")[0] and not a.kids and not b.kids):
                    break
                b = self.cond(c, 0)
            return X(self, "({0} %s {1})" % op, [a, b], t="b")
        if depth > 0 and r.random() < 0.1:
            return X(self, "!({0})", [self.cond(c, 0)], t="b")
        op, g = r.choice(CMP)
        return X(self, "{0} %s {1}" % op, [self.expr(c, 1), self.expr(c, 1)],
                 ifmt="%s({0}, {1})" % g, t="b")

    def custom_call(self, c, depth):
        """A call of one of the CHAD_CUSTOM functions of CUSTOM_LIB: an
        active scalar, an integer and an inactive constant, or a kernel on
        two whole arrays."""
        rc = self.rc
        kinds = ["sp", "wave"] + (["dot"] if c.fn.arrays else [])
        k = rc.choice(kinds)
        if k == "sp":
            return X(self, "gen_cu_sp@S({0})", [self.expr(c, depth - 1)])
        if k == "wave":
            count = rc.choice(c.ints) if c.ints and rc.random() < 0.5 else str(rc.randint(0, 3))
            return X(self, "gen_cu_wave@S({0}, %s, #%s)" % (count, rc.choice(CONSTS)),
                     [self.expr(c, depth - 1)])
        a, b = rc.choice(c.fn.arrays), rc.choice(c.fn.arrays)
        return X(self, "(#0.25 * gen_cu_dot@S(%s, %s, (int)n))" % (a, b))

    def call(self, c, depth):
        r = self.r
        g = r.choice(c.fn.callees)
        args, kids = [], []
        # a view of the caller's arrays from element 1 on, with n - 1 for
        # its length (idx would index past it), when g's reads at constant
        # indices still fit: g needs g.need elements, the caller then one more
        view = (g.arrays and not g.has_idx and self.rv.random() < 0.3) and g.need + 1 <= self.n
        if g.arrays:
            c.fn.need = max(c.fn.need, g.need + (1 if view else 0))
        for p in g.params:
            kind, name = p[0], p[1]
            if kind == "arr":
                a = r.choice(c.fn.arrays)
                args.append((self.rv.choice(["&%s[1]", "%s + 1"]) % a) if view else a)
            elif kind == "idx":
                args.append("idx")
            elif kind == "n":
                args.append("n - 1" if view else "n")
            elif kind == "int":
                args.append(str(r.randint(0, 3)))
            else:
                args.append("{%d}" % len(kids))
                kids.append(self.expr(c, max(0, depth - 2)))
        return X(self, "$CALL%s(%s)" % (g.name, ", ".join(args)), kids)

    # -- statements ----------------------------------------------------------
    def assign(self, c, target, depth=2):
        r = self.r
        if r.random() < 0.25:
            # effects inside expressions: an assignment as a value, the
            # comma operator (t is a fresh temporary, so nothing is
            # unsequenced)
            t = self.newvar(c.fn)
            e = self.expr(c, depth)
            if r.random() < 0.5:
                return S(self, "raw", "@T %s; %s += (%s = tanh({0})) * #0.5; %s -= %s * #0.25;"
                         % (t, target, t, target, t), [e])
            return S(self, "raw", "@T %s; %s = #0.5 * %s + (%s = tanh({0}), %s * %s);"
                     % (t, target, target, t, t, t), [e])
        op = r.choice(["=", "=", "+=", "-=", "*=", "/="])
        e = self.expr(c, depth)
        if op == "*=":
            return S(self, "raw", "%s *= (#1.0 + #0.25 * tanh({0}));" % target, [e])
        if op == "/=":
            return S(self, "raw", "%s /= (#1.5 + {0} * {0});" % target, [e])
        if op == "=" and (r.random() < 0.5 or (not e.kids and e.fmt == target)):
            # keep the magnitude of reassigned state bounded
            return S(self, "raw", "%s = #0.5 * %s + tanh({0});" % (target, target), [e])
        return S(self, "raw", "%s %s {0};" % (target, op), [e])

    def newvar(self, fn):
        fn.nvar += 1
        return "v%d" % fn.nvar

    def scalar_stmts(self, c, count, allow_return, in_loop):
        """Statements over scalars (in a function body or a loop body)."""
        r = self.r
        fn = c.fn
        out = []
        for _ in range(count):
            p = r.random()
            if p < 0.3 or not c.vars:
                v = self.newvar(fn)
                out.append(S(self, "raw", "@T %s = {0};" % v, [self.expr(c, 2)]))
                c.vars.append(v)
                fn.mutable.append(v)
            elif p < 0.55:
                out.append(self.assign(c, r.choice(fn.mutable)))
            elif p < 0.7 and fn.kinks < fn.max_kinks:
                cond = self.cond(c, 1)
                then = [self.assign(c, r.choice(fn.mutable))]
                els = [self.assign(c, r.choice(fn.mutable))] if r.random() < 0.6 else []
                out.append(S(self, "if", exprs=[cond], body=then, els=els))
            elif p < 0.78 and allow_return and not in_loop and fn.kinks < fn.max_kinks:
                out.append(S(self, "if", exprs=[self.cond(c, 1)],
                             body=[S(self, "raw", "return {0};", [self.expr(c, 2)])]))
            elif p < 0.86 and not in_loop:
                out.extend(self.local_array(c))
            elif p < 0.94 and not in_loop and len(fn.mutable) >= 1:
                out.extend(self.scalar_fold(c))
            else:
                out.append(self.assign(c, r.choice(fn.mutable)))
        return out

    def local_array(self, c):
        r = self.r
        fn = c.fn
        fn.nvar += 1
        t = "t%d" % fn.nvar
        size = r.randint(2, 4)
        out = [S(self, "raw", "@T %s[%d];" % (t, size))]
        if r.random() < 0.5:
            for k in range(size):
                # fixed: an array is written before it is read (reductions keep that)
                out.append(S(self, "raw", "%s[%d] = {0};" % (t, k), [self.expr(c, 2)], fixed=True))
        else:
            kv = "k%d" % fn.nvar
            reads = c.reads + ["(@T)%s" % kv]
            if fn.arrays and size <= fn.n:
                reads += ["%s[%s]" % (a, kv) for a in fn.arrays]
            body = [S(self, "raw", "%s[%s] = {0};" % (t, kv), [self.expr(c.sub(reads=reads), 2)])]
            out.append(S(self, "for", "for (int %s = 0; %s < %d; %s++)" % (kv, kv, size, kv), body=body))
        # read it back: a sum over it, or constant indices
        v = self.newvar(fn)
        if r.random() < 0.5:
            kv = "j%d" % fn.nvar
            out.append(S(self, "raw", "@T %s = #0.0;" % v))
            body = [S(self, "raw", "%s += {0};" % v,
                      [self.expr(c.sub(reads=["%s[%s]" % (t, kv)]), 2)])]
            out.append(S(self, "for", "for (int %s = 0; %s < %d; %s++)" % (kv, kv, size, kv), body=body))
        else:
            reads = ["%s[%d]" % (t, k) for k in range(size)]
            out.append(S(self, "raw", "@T %s = {0};" % v, [self.expr(c.sub(reads=reads), 2)]))
        c.vars.append(v)
        fn.mutable.append(v)
        return out

    def scalar_fold(self, c):
        """A loop with carried scalar state over a constant trip count."""
        r = self.r
        fn = c.fn
        fn.nvar += 1
        iv = "s%d" % fn.nvar
        trips = r.randint(2, 4)
        a = r.choice(fn.mutable)
        b = r.choice(fn.mutable)
        ints = c.ints + [iv]
        lc = c.sub(ints=ints)
        body = []
        if a != b and r.random() < 0.6:
            u = "u%d" % fn.nvar
            body.append(S(self, "raw", "@T %s = %s;" % (u, a)))
            body.append(S(self, "raw", "%s = #0.5 * %s + #0.25 * tanh({0});" % (a, b),
                          [self.expr(lc, 1)]))
            body.append(S(self, "raw", "%s = %s - #0.25 * %s * {0};" % (b, b, u),
                          [self.expr(lc.sub(vars_=lc.vars + [u]), 1)]))
        else:
            # contracting update: carried state stays bounded over the trips
            body.append(S(self, "raw", "%s = #0.5 * %s + tanh({0});" % (a, a), [self.expr(lc, 1)]))
        return [S(self, "for", "for (int %s = 0; %s < %d; %s++)" % (iv, iv, trips, iv), body=body)]

    def array_loop(self, c):
        """One of the array loop forms over the function's arrays."""
        r = self.r
        fn = c.fn
        fn.nvar += 1
        i, j = "i%d" % fn.nvar, "j%d" % fn.nvar

        def reads_at(iv, extra=True):
            rd = ["%s[%s]" % (a, iv) for a in fn.arrays]
            if extra:
                rd += ["%s[n - 1 - %s]" % (a, iv) for a in fn.arrays[:1]]
                if fn.has_idx:
                    rd += ["%s[idx[%s]]" % (a, iv) for a in fn.arrays[:1]]
                if self.rv.random() < 0.3:
                    rd += ["*(%s + %s)" % (a, iv) for a in fn.arrays[-1:]]
                if fn.out_written:
                    rd += ["%s[%s]" % (fn.out, iv)]
            return rd

        lc = c.sub(reads=c.reads + reads_at(i), ints=c.ints + [i])
        forms = ["sum", "sum", "fold2", "max", "prod", "nested", "horner", "ifsum", "step2",
                 "skip", "brk", "while", "dowhile", "wbrk"]
        if fn.ret and not fn.out:
            forms.append("ret")
        form = r.choice(forms)
        out = []
        v = self.newvar(fn)
        hdr = "for (" + fn.ity + " %s = 0; %s < n; %s++)" % (i, i, i)
        if form == "ret":
            # return from inside the loop (its condition is a kink)
            fn.kinks += 1
            out.append(S(self, "raw", "@T %s = #0.0;" % v))
            add = S(self, "raw", "%s += {0};" % v, [self.expr(lc, 2)])
            ret = S(self, "if", exprs=[self.cond(lc, 0)],
                    body=[S(self, "raw", "return %s * #0.5 + {0};" % v, [self.expr(lc, 1)])])
            out.append(S(self, "for", hdr, body=[add, ret]))
        elif form in ("skip", "brk"):
            # continue skips the rest of an iteration; break ends the loop
            # (its condition is a kink: the points keep away from it)
            fn.kinks += 1
            out.append(S(self, "raw", "@T %s = #0.0;" % v))
            jump = S(self, "if", exprs=[self.cond(lc, 0)],
                     body=[S(self, "raw", "continue;" if form == "skip" else "break;", fixed=True)])
            add = S(self, "raw", "%s += {0};" % v, [self.expr(lc, 2)])
            body = [jump, add] if form == "skip" else [add, jump]
            out.append(S(self, "for", hdr, body=body))
        elif form in ("while", "dowhile", "wbrk"):
            # while and do loops: the counter lives outside the loop and is
            # stepped at the end of the body (never dropped by the reducer);
            # wbrk leaves an endless loop by break, its condition a kink
            out.append(S(self, "raw", fn.ity + " %s = 0;" % i, fixed=True))
            out.append(S(self, "raw", "@T %s = #0.0;" % v))
            add = S(self, "raw", "%s = %s * #0.75 + {0};" % (v, v), [self.expr(lc, 2)])
            step = S(self, "raw", "%s++;" % i, fixed=True)
            if form == "while":
                out.append(S(self, "for", "while (%s < n)" % i, body=[add, step]))
            elif form == "dowhile":
                out.append(S(self, "do", "%s < n" % i, body=[add, step]))
            else:
                fn.kinks += 1
                stop = S(self, "raw", "if (%s >= n) break;" % i, fixed=True)
                jump = S(self, "if", exprs=[self.cond(lc, 0)],
                         body=[S(self, "raw", "break;", fixed=True)])
                out.append(S(self, "for", "while (1)", body=[stop, add, jump, step]))
        elif form in ("sum", "ifsum", "step2"):
            out.append(S(self, "raw", "@T %s = #0.0;" % v))
            if form == "sum":
                body = [S(self, "raw", "%s += {0};" % v, [self.expr(lc, 2)])]
            elif form == "step2":
                hdr = "for (" + fn.ity + " %s = 0; %s < n; %s += 2)" % (i, i, i)
                body = [S(self, "raw", "%s += {0};" % v, [self.expr(lc, 2)])]
            else:
                fn.kinks += 1
                body = [S(self, "if", exprs=[self.cond(lc, 0)],
                          body=[S(self, "raw", "%s += {0};" % v, [self.expr(lc, 2)])],
                          els=[S(self, "raw", "%s -= {0};" % v, [self.expr(lc, 1)])])]
            out.append(S(self, "for", hdr, body=body))
        elif form == "fold2":
            w = self.newvar(fn)
            u = "u%d" % fn.nvar
            out.append(S(self, "raw", "@T %s = {0};" % v, [self.expr(c, 1)]))
            out.append(S(self, "raw", "@T %s = #0.5;" % w))
            body = [S(self, "raw", "@T %s = %s;" % (u, v)),
                    S(self, "raw", "%s = #0.5 * %s + #0.25 * tanh({0});" % (v, w), [self.expr(lc, 2)]),
                    S(self, "raw", "%s = %s - #0.25 * %s * {0};" % (w, w, u), [self.expr(lc, 1)])]
            out.append(S(self, "for", hdr, body=body))
            c.vars.append(w)
            fn.mutable.append(w)
        elif form == "max":
            fn.kinks += 1
            # the tracked value must depend on i, or every later step is a tie
            e = X(self, "(%s[%s] + {0})" % (fn.arrays[0], i), [self.expr(lc, 1)])
            out.append(S(self, "raw", "@T %s = %s[0];" % (v, fn.arrays[0])))
            hdr = "for (" + fn.ity + " %s = 1; %s < n; %s++)" % (i, i, i)
            body = [S(self, "if", exprs=[X(self, "{0} > %s" % v, [e], ifmt="gk_gt({0}, %s)" % v, t="b")],
                      body=[S(self, "raw", "%s = {0};" % v, [e])])]
            out.append(S(self, "for", hdr, body=body))
        elif form == "prod":
            out.append(S(self, "raw", "@T %s = #1.0;" % v))
            body = [S(self, "raw", "%s *= #1.0 + #0.25 * tanh({0});" % v, [self.expr(lc, 2)])]
            out.append(S(self, "for", hdr, body=body))
        elif form == "nested":
            out.append(S(self, "raw", "@T %s = #0.0;" % v))
            rd = c.reads + reads_at(i, False) + ["%s[%s]" % (a, j) for a in fn.arrays]
            nc = c.sub(reads=rd, ints=c.ints + [i, j])
            jlo = r.choice(["%s + 1" % i, "0", i])
            inner = S(self, "for", "for (" + fn.ity + " %s = %s; %s < n; %s++)" % (j, jlo, j, j),
                      body=[S(self, "raw", "%s += {0};" % v, [self.expr(nc, 2)])])
            out.append(S(self, "for", hdr, body=[inner]))
        elif form == "horner":
            out.append(S(self, "raw", "@T %s = #0.0;" % v))
            hdr = "for (" + fn.sity + " %s = n - 1; %s >= 0; %s--)" % (i, i, i)
            body = [S(self, "raw", "%s = %s * #0.5 + {0};" % (v, v), [self.expr(lc, 2)])]
            out.append(S(self, "for", hdr, body=body))
        c.vars.append(v)
        fn.mutable.append(v)
        return out

    def scratch(self, c):
        """Scratch memory (DESIGN.md 8.14): an array of n elements from
        malloc, calloc or a VLA, filled (at the counter, by a scatter-add
        after calloc or memset, or by memcpy and memmove), read back by a
        sum and freed, all in one block so that no path leaks it. Every
        draw, the expressions' included, comes from self.rm: the main
        stream, and so the rest of the program, is the seed's as before."""
        saved = self.r, self.rc, self.rv
        self.r = self.rm
        self.rc = random.Random(self.rm.random()) # custom calls and views
        self.rv = random.Random(self.rm.random()) # in its expressions
        try:
            return self.scratch_block(c)
        finally:
            self.r, self.rc, self.rv = saved

    def scratch_block(self, c):
        r = self.r
        fn = c.fn
        self.scratch_used = True
        fn.nvar += 1
        m, i, j = "m%d" % fn.nvar, "mi%d" % fn.nvar, "mj%d" % fn.nvar
        size = r.choice(["n * sizeof *%s" % m, "sizeof(@T) * n", "n * sizeof(@T)",
                         "sizeof(%s[0]) * n" % m, "(size_t)n * sizeof(@T)"])
        form = r.choice(["malloc", "calloc", "vla", "memset", "memcpy"])
        fn.allocs = fn.allocs or form in ("calloc", "memset")
        hdr = "for (" + fn.ity + " %s = 0; %s < n; %s++)"
        lc = c.sub(reads=c.reads + ["%s[%s]" % (a, i) for a in fn.arrays], ints=c.ints + [i])
        out = []
        if form == "vla":
            out.append(S(self, "raw", "@T %s[n];" % m, fixed=True))
        elif form == "calloc":
            out.append(S(self, "raw", "@T *%s = calloc(n, sizeof *%s);" % (m, m), fixed=True))
        else:
            cast = r.choice(["", "(@T *)"])
            out.append(S(self, "raw", "@T *%s = %smalloc(%s);" % (m, cast, size), fixed=True))
        if form != "vla" and r.random() < 0.3:
            # the null test: dead code to chad, which assumes success
            out.append(S(self, "raw", "if (!%s) abort();" % m, fixed=True))
        if form == "memset":
            out.append(S(self, "raw", "memset(%s, 0, %s);" % (m, size), fixed=True))
        if form in ("calloc", "memset") and fn.has_idx and r.random() < 0.6:
            body = [S(self, "raw", "%s[idx[%s]] += {0};" % (m, i), [self.expr(lc, 2)], fixed=True)]
        elif form == "memcpy":
            src = r.choice(fn.arrays)
            body = None
            out.append(S(self, "raw", "memcpy(%s, %s, %s);" % (m, src, size), fixed=True))
            if r.random() < 0.5:
                out.append(S(self, "raw", "memmove(%s + 1, %s, (n - 1) * sizeof *%s);" % (m, m, m),
                             fixed=True))
        else:
            body = [S(self, "raw", "%s[%s] = {0};" % (m, i), [self.expr(lc, 2)], fixed=True)]
        if body:
            out.append(S(self, "for", hdr % (i, i, i), body=body, fixed=True))
        v = self.newvar(fn)
        rd = c.sub(reads=c.reads + ["%s[%s]" % (m, j), "%s[n - 1 - %s]" % (m, j)],
                   ints=c.ints + [j])
        out.append(S(self, "raw", "@T %s = #0.0;" % v, fixed=True))
        out.append(S(self, "for", hdr % (j, j, j),
                     body=[S(self, "raw", "%s += #0.5 * %s[%s] + {0};" % (v, m, j), [self.expr(rd, 2)],
                             fixed=True)],
                     fixed=True))
        if form != "vla":
            out.append(S(self, "raw", "free(%s);" % m, fixed=True))
        c.vars.append(v)
        fn.mutable.append(v)
        return out

    def use_all(self, c):
        """A sum reading every variable and parameter, so that nothing is
        unused (-Werror); each term is a leaf the reducer may replace."""
        fn = c.fn
        items = list(c.vars)
        for a in fn.arrays:
            items.append("%s[n - 1]" % a)
        if fn.has_idx:
            items.append("%s[idx[0]]" % fn.arrays[0])
        if fn.intparam:
            items.append("(@T)%s" % fn.intparam[0])
        kids = [X(self, it) for it in items]
        return X(self, "(" + " + ".join("{%d}" % k for k in range(len(kids))) + ")", kids)

    def output_stmts(self, c):
        r = self.r
        fn = c.fn
        fn.nvar += 1
        i = "i%d" % fn.nvar
        rd = ["%s[%s]" % (a, i) for a in fn.arrays] + ["%s[n - 1 - %s]" % (fn.arrays[0], i)]
        if fn.has_idx:
            rd.append("%s[idx[%s]]" % (fn.arrays[0], i))
        lc = c.sub(reads=c.reads + rd, ints=c.ints + [i])
        out = []
        if fn.has_idx and r.random() < 0.5:
            out.append(S(self, "for", "for (" + fn.ity + " %s = 0; %s < n; %s++)" % (i, i, i),
                         body=[S(self, "raw", "%s[%s] = #0.0;" % (fn.out, i), fixed=True)], fixed=True))
            out.append(S(self, "for", "for (" + fn.ity + " %s = 0; %s < n; %s++)" % (i, i, i),
                         body=[S(self, "raw", "%s[idx[%s]] += {0} + #0.1 * tanh({1});" % (fn.out, i),
                                 [self.expr(lc, 2), self.use_all(c)])],
                         fixed=True))
        else:
            out.append(S(self, "for", "for (" + fn.ity + " %s = 0; %s < n; %s++)" % (i, i, i),
                         body=[S(self, "raw", "%s[%s] = {0} + #0.1 * tanh({1});" % (fn.out, i),
                                 [self.expr(lc, 2), self.use_all(c)],
                                 fixed=True)], fixed=True))
        fn.out_written = True
        return out

    # -- functions -----------------------------------------------------------
    def function(self, k, T, n):
        r = self.r
        fn = Func()
        fn.id = self.newid()
        fn.name = "f%d" % k
        fn.T = T
        fn.n = n
        fn.nvar = 0
        fn.kinks = 0
        fn.max_kinks = r.choice([0, 1, 2, 3]) if T == "double" else r.choice([0, 0, 1])
        fn.callees = [g for g in self.funcs if g.T == T and g.out is None and (not g.arrays or True)]
        fn.kind = "array" if r.random() < 0.55 else "scalar"
        fn.params = []
        fn.arrays, fn.scalars, fn.has_idx, fn.out, fn.out_written = [], [], False, None, False
        fn.intparam = None
        fn.allocs = False
        fn.need = 2  # array elements its body reads at constant indices (x[1])
        if fn.kind == "array":
            fn.arrays = ["x"] + (["w"] if r.random() < 0.4 else [])
            fn.has_idx = r.random() < 0.35
            fn.out = "y" if r.random() < 0.4 else None
            nsc = r.choice([0, 0, 1, 2])
        else:
            nsc = r.randint(1, 4)
        fn.scalars = ["a%d" % q for q in range(nsc)]
        if r.random() < 0.2:
            fn.intparam = ("m", r.randint(0, 3))
        # the type of n and of the loop counters: every integer type C has
        # (a decreasing loop to 0 needs a signed counter)
        fn.ity = r.choice(["int"] * 6 + ["unsigned", "long", "size_t", "unsigned long",
                                         "long long", "unsigned long long", "short",
                                         "unsigned short", "ptrdiff_t", "int64_t", "uint32_t"])
        fn.sity = fn.ity if fn.ity in ("int", "long", "long long", "short", "ptrdiff_t",
                                       "int64_t") else "long"
        fn.mty = r.choice(["int"] * 3 + ["unsigned", "long", "size_t", "char"])
        # parameter order: arrays, idx, out, n, scalars, int (shuffled a little)
        for a in fn.arrays:
            fn.params.append(("arr", a))
        if fn.has_idx:
            fn.params.append(("idx", "idx"))
        if fn.out:
            fn.params.append(("out", fn.out))
        if fn.arrays:
            fn.params.append(("n", "n"))
        for s in fn.scalars:
            fn.params.append(("scal", s))
        if fn.intparam:
            fn.params.insert(r.randint(0, len(fn.params)), ("int", fn.intparam[0]))
        # callees: those without output arrays; array callees only from array
        # functions (they pass whole arrays), idx only if we have it
        # (not those whose scratch is an alloc, calloc's or a whole memset's:
        # their callers are refused in reverse mode, DESIGN.md 8.14)
        fn.callees = [g for g in self.funcs if g.T == T and g.out is None and
                      (not g.arrays or (fn.arrays and (not g.has_idx or fn.has_idx))) and
                      not g.allocs]
        fn.ret = fn.out is None or r.random() < 0.6
        fn.mutable = list(fn.scalars)
        ints = [fn.intparam[0]] if fn.intparam else []
        reads = ["%s[%d]" % (a, q) for a in fn.arrays for q in range(min(n, 2))]
        if fn.arrays and self.rv.random() < 0.3:
            # views: *a is a[0], *(a + n - 1) the last element
            reads += ["*%s" % fn.arrays[0], "*(%s + n - 1)" % fn.arrays[-1]]
        c = Ctx(fn, fn.scalars, reads, ints)
        body = []
        if not fn.scalars:
            v = self.newvar(fn)
            body.append(S(self, "raw", "@T %s = {0};" % v, [self.expr(c, 1)], fixed=False))
            c.vars.append(v)
            fn.mutable.append(v)
        nst = r.randint(1, 4)
        for _ in range(nst):
            if fn.arrays and r.random() < 0.55:
                body.extend(self.array_loop(c))
            else:
                body.extend(self.scalar_stmts(c, 1, fn.ret and fn.out is None, False))
        if fn.arrays and self.rm.random() < 0.3:
            body.extend(self.scratch(c))
        if fn.out:
            body.extend(self.output_stmts(c))
        if fn.ret:
            body.append(S(self, "raw", "return {0} + #0.1 * tanh({1});",
                          [self.expr(c, 2), self.use_all(c)], fixed=True))
        fn.body = body
        return fn

    def program(self):
        r = self.r
        self.std = r.choice(["c11"] * 6 + ["c99", "c17"])
        self.n = r.randint(2, 5)
        self.idx = [r.randrange(self.n) for _ in range(self.n)]
        self.npts = 3
        nf = r.randint(1, 4)
        T = "float" if r.random() < 0.25 else "double"
        for k in range(nf):
            if r.random() < 0.15:
                T = "float" if T == "double" else "double"
            fn = self.function(k, T, self.n)
            self.funcs.append(fn)
            fn.point_ids = [self.newid() for _ in range(self.npts)]
        return self


# ---------------------------------------------------------------------------
# Rendering

PRELUDE = r"""/* Generated by tests/gen/gen.py --seed %(seed)d: do not edit by hand. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include "chad.h"
#include "gradcheck.h"

/* Distance to the nearest kink reached by the gm_ copies (see gen.py). */
static double gk_min;
static inline void gk_note(double v) {
    v = fabs(v);
    if (!(v >= gk_min))
        gk_min = v;
}
static inline double gk_fabs(double v) { gk_note(v); return fabs(v); }
static inline double gk_cbrt(double v) { gk_note(v); return cbrt(v); }
static inline double gk_floor(double v) { gk_note(v - nearbyint(v)); return floor(v); }
static inline double gk_ceil(double v) { gk_note(v - nearbyint(v)); return ceil(v); }
static inline double gk_round(double v) { gk_note(v - floor(v) - 0.5); return round(v); }
static inline double gk_trunc(double v) { gk_note(v - nearbyint(v)); return (double)(int)v; }
static inline double gk_ftrunc(double v) { gk_note(v - nearbyint(v)); return trunc(v); }
static inline double gk_fmin(double a, double b) { gk_note(a - b); return fmin(a, b); }
static inline double gk_fmax(double a, double b) { gk_note(a - b); return fmax(a, b); }
static inline double gk_hypot(double a, double b) { gk_note(hypot(a, b)); return hypot(a, b); }
static inline double gk_atan2(double a, double b) {
    gk_note(hypot(a, b));
    if (b < 0)
        gk_note(a);
    return atan2(a, b);
}
/* fmod jumps where a/b is an integer, remainder where it is half one */
static inline double gk_fmod(double a, double b) { gk_note(remainder(a, b)); return fmod(a, b); }
static inline double gk_remainder(double a, double b) {
    gk_note(fabs(remainder(a, b)) - fabs(b) / 2);
    return remainder(a, b);
}
static inline double gk_copysign(double a, double b) {
    gk_note(a);
    gk_note(b);
    return copysign(a, b);
}
static inline double gk_fdim(double a, double b) { gk_note(a - b); return fdim(a, b); }
static inline int gk_lt(double a, double b) { gk_note(a - b); return a < b; }
static inline int gk_gt(double a, double b) { gk_note(a - b); return a > b; }
static inline int gk_le(double a, double b) { gk_note(a - b); return a <= b; }
static inline int gk_ge(double a, double b) { gk_note(a - b); return a >= b; }
#define GK_USE ((void)gk_fabs, (void)gk_cbrt, (void)gk_floor, (void)gk_ceil, (void)gk_round, \
                (void)gk_trunc, (void)gk_fmin, (void)gk_fmax, (void)gk_hypot, (void)gk_atan2, \
                (void)gk_lt, (void)gk_gt, (void)gk_le, (void)gk_ge, (void)gk_fmod, \
                (void)gk_ftrunc, (void)gk_remainder, (void)gk_copysign, (void)gk_fdim)
"""

CHECK = r"""
/* Draws points until nkeep are found away from kinks (gk_min >= thr) with
 * finite moderate outputs, and checks those whose keep flag is set. */
static void gen_check(const struct gca_problem *p, void (*m)(const double *), const unsigned char *keep,
                      int nkeep, double thr) {
    double x[GCA_MAX], y[GCA_MAX];
    int got = 0, tries = 0, j, ok;
    while (got < nkeep && tries < 300) {
        tries++;
        gca_random(x, p->nin, -1.5, 1.5);
        for (j = 0; j < p->nin; j++)
            x[j] = gca_round(p->prec, x[j]);
        gk_min = INFINITY;
        m(x);
        if (!(gk_min >= thr))
            continue;
        gca_eval(p, x, y);
        ok = 1;
        for (j = 0; j < p->nout; j++)
            if (!(fabs(y[j]) < 1e6))
                ok = 0;
        if (!ok)
            continue;
        if (keep[got])
            gca_check(p, 1, x);
        got++;
    }
    if (got < nkeep)
        printf("skip %s: %d of %d points\n", p->name, got, nkeep);
}
"""


def signature(fn, name, annotated):
    T = fn.T
    ps = []
    for kind, nm in fn.params:
        if kind == "arr":
            ps.append("const %s *%s" % (T, nm))
        elif kind == "idx":
            ps.append("const int *idx")
        elif kind == "out":
            ps.append("%s *%s" % (T, nm))
        elif kind == "n":
            ps.append("%s %s" % (fn.ity, nm))
        elif kind == "int":
            ps.append("%s %s" % (fn.mty, nm))
        else:
            ps.append("%s %s" % (T, nm))
    ret = T if fn.ret else "void"
    attr = "CHAD_DIFFERENTIABLE\n" if annotated else "static "
    return "%s%s %s(%s)" % (attr, ret, name, ", ".join(ps))


def render_fn(fn, st, instr):
    out = [signature(fn, ("gm_" if instr else "") + fn.name, not instr) + " {"]
    for s in fn.body:
        rs(s, fn.T, st, instr, 1, out)
    out.append("}")
    return "\n".join(out)


def wrappers(g, fn):
    """gca wrappers: x = arrays (n each) then scalars; y = out (n) then ret."""
    T, n = fn.T, g.n
    nin = n * len(fn.arrays) + len(fn.scalars)
    nout = (n if fn.out else 0) + (1 if fn.ret else 0)
    off = {}
    o = 0
    for a in fn.arrays:
        off[a] = o
        o += n
    for s in fn.scalars:
        off[s] = o
        o += 1
    retslot = n if fn.out else 0

    def args(mode):
        a = []
        for kind, nm in fn.params:
            if kind == "arr":
                a.append("in + %d" % off[nm])
                if mode == "fwd":
                    a.append("din + %d" % off[nm])
                elif mode == "rev":
                    a.append("bin + %d" % off[nm])
            elif kind == "idx":
                a.append("gen_idx")
            elif kind == "out":
                a.append("out")
                if mode == "fwd":
                    a.append("dout")
                elif mode == "rev":
                    a.append("bout")
            elif kind == "n":
                a.append(str(n))
            elif kind == "int":
                a.append(str(fn.intparam[1]))
            else:
                a.append("in[%d]" % off[nm])
                if mode == "fwd":
                    a.append("din[%d]" % off[nm])
                elif mode == "rev":
                    a.append("&bin[%d]" % off[nm])
        if fn.ret:
            if mode == "fwd":
                a.append("&dout[%d]" % retslot)
            elif mode == "rev":
                a.append("bout[%d]" % retslot)
        return ", ".join(a)

    def call(name, mode):
        c = "%s(%s)" % (name, args(mode))
        return ("out[%d] = %s;" % (retslot, c)) if fn.ret else (c + ";")

    N = fn.name
    L = []
    dec = "%s in[%d], out[%d]" % (T, nin, nout)
    L.append("static void %s_w(const double *x, double *y, void *c) {" % N)
    L.append("    %s; int k; (void)c;" % dec)
    L.append("    for (k = 0; k < %d; k++) in[k] = (%s)x[k];" % (nin, T))
    L.append("    for (k = 0; k < %d; k++) out[k] = NAN;" % nout)
    L.append("    " + call(N, "f"))
    L.append("    for (k = 0; k < %d; k++) y[k] = out[k];" % nout)
    L.append("}")
    L.append("static void %s_wm(const double *x) {" % N)
    L.append("    %s; int k;" % dec)
    L.append("    for (k = 0; k < %d; k++) in[k] = (%s)x[k];" % (nin, T))
    L.append("    " + call("gm_" + N, "f"))
    L.append("    (void)out;")
    L.append("}")
    L.append("static void %s_wfwd(const double *x, const double *dx, double *y, double *dy, void *c) {" % N)
    L.append("    %s, din[%d], dout[%d]; int k; (void)c;" % (dec, nin, nout))
    L.append("    for (k = 0; k < %d; k++) { in[k] = (%s)x[k]; din[k] = (%s)dx[k]; }" % (nin, T, T))
    L.append("    for (k = 0; k < %d; k++) out[k] = dout[k] = NAN;" % nout)
    L.append("    " + call(N + "_fwd", "fwd"))
    L.append("    for (k = 0; k < %d; k++) { y[k] = out[k]; dy[k] = dout[k]; }" % nout)
    L.append("}")
    L.append("static void %s_wrev(const double *x, double *xb, double *y, const double *yb, void *c) {" % N)
    L.append("    %s, bin[%d], bout[%d]; int k; (void)c;" % (dec, nin, nout))
    L.append("    for (k = 0; k < %d; k++) { in[k] = (%s)x[k]; bin[k] = (%s)xb[k]; }" % (nin, T, T))
    L.append("    for (k = 0; k < %d; k++) { out[k] = NAN; bout[k] = (%s)yb[k]; }" % (nout, T))
    L.append("    " + call(N + "_rev", "rev"))
    L.append("    for (k = 0; k < %d; k++) xb[k] = bin[k];" % nin)
    L.append("    for (k = 0; k < %d; k++) y[k] = out[k];" % nout)
    L.append("}")
    return "\n".join(L), nin, nout


# CHAD_CUSTOM functions with hand-written derivatives (DESIGN.md section 1),
# double and float forms: declared before the generated functions, defined
# after main(), as a library's would be elsewhere.
CUSTOM_DECLS = ""
CUSTOM_DEFS = ""
for _T, _S in (("double", ""), ("float", "f")):
    _d = {"T": _T, "S": _S}
    CUSTOM_DECLS += """
CHAD_CUSTOM %(T)s gen_cu_sp%(S)s(%(T)s x);
%(T)s gen_cu_sp%(S)s_fwd(%(T)s x, %(T)s dx, %(T)s *d_ret);
%(T)s gen_cu_sp%(S)s_rev(%(T)s x, %(T)s *x_b, %(T)s ret_b);
CHAD_CUSTOM %(T)s gen_cu_wave%(S)s(%(T)s x, int k, CHAD_INACTIVE %(T)s c);
%(T)s gen_cu_wave%(S)s_fwd(%(T)s x, %(T)s dx, int k, %(T)s c, %(T)s *d_ret);
%(T)s gen_cu_wave%(S)s_rev(%(T)s x, %(T)s *x_b, int k, %(T)s c, %(T)s ret_b);
CHAD_CUSTOM %(T)s gen_cu_dot%(S)s(const %(T)s *a, const %(T)s *b, int n);
%(T)s gen_cu_dot%(S)s_fwd(const %(T)s *a, const %(T)s *da, const %(T)s *b, const %(T)s *db, int n, %(T)s *d_ret);
%(T)s gen_cu_dot%(S)s_rev(const %(T)s *a, %(T)s *a_b, const %(T)s *b, %(T)s *b_b, int n, %(T)s ret_b);
""" % _d
    CUSTOM_DEFS += """
/* softplus, c sin(k x) + x^2 / 2, and the dot product, with derivatives */
%(T)s gen_cu_sp%(S)s(%(T)s x) { return x > 0 ? x + log1p%(S)s(exp%(S)s(-x)) : log1p%(S)s(exp%(S)s(x)); }
%(T)s gen_cu_sp%(S)s_fwd(%(T)s x, %(T)s dx, %(T)s *d_ret) {
    *d_ret = dx / (1 + exp%(S)s(-x));
    return gen_cu_sp%(S)s(x);
}
%(T)s gen_cu_sp%(S)s_rev(%(T)s x, %(T)s *x_b, %(T)s ret_b) {
    *x_b += ret_b / (1 + exp%(S)s(-x));
    return gen_cu_sp%(S)s(x);
}
%(T)s gen_cu_wave%(S)s(%(T)s x, int k, %(T)s c) { return c * sin%(S)s((%(T)s)k * x) + x * x / 2; }
%(T)s gen_cu_wave%(S)s_fwd(%(T)s x, %(T)s dx, int k, %(T)s c, %(T)s *d_ret) {
    *d_ret = (c * (%(T)s)k * cos%(S)s((%(T)s)k * x) + x) * dx;
    return gen_cu_wave%(S)s(x, k, c);
}
%(T)s gen_cu_wave%(S)s_rev(%(T)s x, %(T)s *x_b, int k, %(T)s c, %(T)s ret_b) {
    *x_b += (c * (%(T)s)k * cos%(S)s((%(T)s)k * x) + x) * ret_b;
    return gen_cu_wave%(S)s(x, k, c);
}
%(T)s gen_cu_dot%(S)s(const %(T)s *a, const %(T)s *b, int n) {
    %(T)s s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}
%(T)s gen_cu_dot%(S)s_fwd(const %(T)s *a, const %(T)s *da, const %(T)s *b, const %(T)s *db, int n, %(T)s *d_ret) {
    *d_ret = gen_cu_dot%(S)s(da, b, n) + gen_cu_dot%(S)s(a, db, n);
    return gen_cu_dot%(S)s(a, b, n);
}
%(T)s gen_cu_dot%(S)s_rev(const %(T)s *a, %(T)s *a_b, const %(T)s *b, %(T)s *b_b, int n, %(T)s ret_b) {
    for (int i = 0; i < n; i++) {
        a_b[i] += b[i] * ret_b;
        b_b[i] += a[i] * ret_b;
    }
    return gen_cu_dot%(S)s(a, b, n);
}
""" % _d


def render(g, st=None):
    st = st or State()
    parts = [PRELUDE % {"seed": g.seed}, CUSTOM_DECLS]
    if g.scratch_used:
        parts.insert(1, MEMORY_INCLUDES)
    parts.append("static const int gen_idx[%d] = {%s};" % (g.n, ", ".join(map(str, g.idx))))
    parts.append(GEN_TABLES)
    live = [f for f in g.funcs if f.id not in st.drop]
    for fn in live:
        parts.append(render_fn(fn, st, False))
        parts.append(render_fn(fn, st, True))
    parts.append(CHECK)
    mains = []
    for fn in live:
        w, nin, nout = wrappers(g, fn)
        parts.append(w)
        keep = ", ".join("0" if pid in st.drop else "1" for pid in fn.point_ids)
        thr = "0.05" if fn.T == "double" else "0.3"
        mains.append("    {\n        static const unsigned char keep[] = {%s};\n"
                     "        struct gca_problem p = {0};\n"
                     "        p.name = \"%s\", p.nin = %d, p.nout = %d, p.prec = %s;\n"
                     "        p.f = %s_w, p.fwd = %s_wfwd, p.rev = %s_wrev;\n"
                     "        gen_check(&p, %s_wm, keep, %d, %s);\n    }"
                     % (keep, fn.name, nin, nout, "GC_FLOAT" if fn.T == "float" else "GC_DOUBLE",
                        fn.name, fn.name, fn.name, fn.name, len(fn.point_ids), thr))
    parts.append("int main(void) {\n    gc_seed = %dUL;\n    (void)gen_idx;\n    GK_USE;\n%s\n    return gc_summary();\n}\n"
                 % (g.seed * 7919 + 17, "\n".join(mains)))
    parts.append(CUSTOM_DEFS)
    return "\n\n".join(parts)


MEMORY_INCLUDES = "#include <stdlib.h>\n#include <string.h>"

GEN_TABLES = ("const double gen_tab[8] = {0.5, -1.25, 2.0, 0.125, -0.75, 1.5, 0.25, -2.0};\n"
              "const double gen_tab2[2][3] = {{1.0, -0.5, 0.25}, {2.0, 0.75, -1.0}};")


def render_plain(g, st):
    """Only the annotated functions: compiled without the plugin, under
    -Werror, by the reducer to reject candidates that are not valid C or
    that leave variables unused."""
    parts = ['#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n#include "chad.h"\n',
             GEN_TABLES, CUSTOM_DECLS]
    if g.scratch_used:
        parts.insert(1, MEMORY_INCLUDES)
    for fn in g.funcs:
        if fn.id not in st.drop:
            parts.append(render_fn(fn, st, False))
    return "\n\n".join(parts) + "\n"


def generate(seed):
    return Gen(seed).program()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    a = ap.parse_args()
    g = generate(a.seed)
    sys.stdout.write(render(g))
    sys.stderr.write("std=%s\n" % g.std)


if __name__ == "__main__":
    main()
