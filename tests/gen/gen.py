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

Structs (README, "Structs"; DESIGN.md section 1), from their own random
stream so that a program without them is the one the seed gave before:
struct types with floating, integer, fixed-array, nested-struct and
pointer-to-T fields (a pointer field with an integer field holding its
length), named, typedef'd or anonymous-typedef'd; parameters by value, by
pointer to const and by pointer, whose fields are read (s.f, p->f,
(*p).f, p->in.f, p->v[i], p->q[i], *p->q) and, through pointers, written
as outputs; locals made from an initializer list (designated or not), a
copy, a whole assignment or field by field, then assigned and reassigned;
loops over array fields and over pointer fields up to their length; struct
results, their pointer fields views of an array parameter (`x + k`,
`&x[k]`, `(T *)(x + k)`: DESIGN.md 8.46, from the stream rvw), read by
callers field by field or inside expressions (`g(..).q[j]`); and calls
passing parameters, locals and nested fields by value or by address.  The harness (struct_harness) packs the structs and their
shadows as DESIGN.md section 1 says.

Reduction.  Every function, statement, expression node and test point has
an id; render() takes a State naming which ids are dropped and which
expression nodes are replaced by one of their children or by a constant.
run.py uses this for delta debugging.
"""
import argparse
import random
import re
import sys
import zlib

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
    dat = False  # a CHAD_INACTIVE array parameter
    rows = {}  # array parameter -> (row length C, how the body names it flat)


# ---------------------------------------------------------------------------
# Structs (DESIGN.md section 1, "The rest of C"; README, "Structs").

# integer fields (a pointer field's length is never a char: -Wchar-subscripts)
SINT = ["int", "int", "unsigned", "long", "size_t", "short", "char"]
# the integer types a returned struct may hold without its 64-bit ones
# (those travel as two doubles each, 8.30)
SINT_SMALL = ["int", "unsigned", "short", "char", "unsigned char"]
SLEN = ["int", "int", "unsigned", "long", "size_t", "short"]


class SType:
    """A struct type of floating type T.  fields: (kind, name, info) with kind
    'f' a T scalar, 'i' an integer (info: its C type), 'a' a T array
    (info: its length), 'n' a nested struct (info: its SType), 'p' a pointer
    to T data (info: (const, name of the integer field holding the length,
    the length the harness gives it)).  form: 'named' (struct gsK),
    'typedef' (typedef struct gsK {...} gsK_t; spelled either way) or
    'anon' (typedef struct {...} GsK;, as ADBench's Wishart)."""

    def __init__(self, idx, T, form, fields, group):
        self.idx, self.T, self.form, self.fields, self.group = idx, T, form, fields, group
        self.tag = "gs%d" % idx
        self.spells = {"named": ["struct " + self.tag],
                       "typedef": ["struct " + self.tag, self.tag + "_t"],
                       "anon": ["Gs%d" % idx]}[form]

    @property
    def has_ptr(self):
        return any(k == "p" or (k == "n" and i.has_ptr) for k, _, i in self.fields)

    @property
    def has_int(self):
        return any(k == "i" or (k == "n" and i.has_int) for k, _, i in self.fields)

    @property
    def has_wide_int(self):
        return any((k == "i" and i not in SINT_SMALL) or (k == "n" and i.has_wide_int)
                   for k, _, i in self.fields)

    @property
    def nested(self):
        return any(k == "n" for k, _, _ in self.fields)

    def leaves(self, prefix=""):
        """(path, kind, info) depth first in field order: kinds f, i, a, p."""
        out = []
        for k, nm, info in self.fields:
            if k == "n":
                out += info.leaves(prefix + nm + ".")
            elif k == "p":
                out.append((prefix + nm, k, (info[0], prefix + info[1], info[2])))
            else:
                out.append((prefix + nm, k, info))
        return out

    def lengths(self):
        """The paths of the integer fields that hold a pointer field's length."""
        return {info[1]: info[2] for _, k, info in self.leaves() if k == "p"}

    def definition(self):
        T = self.T
        decl = []
        k = 0
        while k < len(self.fields):
            kind, nm, info = self.fields[k]
            if kind == "f":
                # runs of floating fields in one declaration when grouped
                names = [nm]
                while (self.group and k + 1 < len(self.fields) and self.fields[k + 1][0] == "f"):
                    k += 1
                    names.append(self.fields[k][1])
                decl.append("%s %s;" % (T, ", ".join(names)))
            elif kind == "i":
                decl.append("%s %s;" % (info, nm))
            elif kind == "a":
                decl.append("%s %s[%d];" % (T, nm, info))
            elif kind == "n":
                decl.append("%s %s;" % (info.spells[-1], nm))
            else:
                decl.append("%s%s *%s;" % ("const " if info[0] else "", T, nm))
            k += 1
        body = " ".join(decl)
        if self.form == "named":
            return "struct %s { %s };" % (self.tag, body)
        if self.form == "typedef":
            return "typedef struct %s { %s } %s_t;" % (self.tag, body, self.tag)
        return "typedef struct { %s } Gs%d;" % (body, self.idx)


class SParam:
    """A struct parameter: mode 'val' (struct S s), 'cptr' (const struct S
    *p) or 'ptr' (struct S *p); acc: how the body reaches its fields (s.,
    p->, (*p).); outs: the leaves the body writes (through a pointer: f_fwd
    and f_rev treat them as outputs); ivals: the integer fields' values in
    the harness."""

    def __init__(self, name, st, mode, spell, acc, outs, ivals):
        self.name, self.st, self.mode, self.spell = name, st, mode, spell
        self.acc, self.outs, self.ivals = acc, outs, ivals
        # CHAD_INACTIVE (by value or const pointer, never written): no
        # shadow; the harness fills it with constants, and callers pass only
        # a struct of their own marked so
        self.inactive = False
        # floating leaves read and then written through the pointer: in-out
        # (DESIGN.md 1, 8.7), inputs and outputs of the harness both
        self.inouts = set()


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
    elif s.kind == "for":  # a header with expressions: `i < n && {0}`
        hdr = fmt_type(s.fmt, T).format(*[rx(e, T, st, instr, True) for e in s.exprs]) \
            if s.exprs else s.fmt
        out.append(pad + hdr + " {")
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
    ("sin({0})", "((@T)gk_sin({0}))"),
    ("cos({0})", "((@T)gk_cos({0}))"),
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
        self.blk_used = False  # gen_blk, a callee with a fixed-length output
        # and so do those about structs (types, parameters, locals, results)
        self.rst = random.Random(seed * 15485863 + 5)
        self.stypes = []
        # and so do those about array updates (DESIGN.md 8.13, 8.15, 8.16):
        # read-modify-writes of local arrays at computed indices, writes
        # under conditions and in while/do loops, in-out parameters, calls
        # that fill a local array
        self.ru = random.Random(seed * 32452843 + 7)
        # and so do those about CHAD_CUSTOM functions that write arrays
        self.rcw = random.Random(seed * 49979687 + 11)
        # and so do those about pointers swapped for double buffering
        self.rsw = random.Random(seed * 86028121 + 13)
        # and so do those about struct fields read and then written (in-out)
        self.rsi = random.Random(seed * 122949829 + 17)
        # and so do those about local structs with pointer fields (8.28)
        self.rlp = random.Random(seed * 141650939 + 19)
        # issue 8: array parameters declared as rows (const T a_r[][C])
        self.rrw = random.Random(seed * 198491317 + 29)
        # and so do those about arrays of structs and local pointers to
        # structs (8.30)
        self.rsa = random.Random(seed * 179424673 + 23)
        # and so do those about pointers walked and written through, loop
        # steps known at run time, and loops that call array-updating
        # callees (walks)
        self.rw = random.Random(seed * 49979687 + 13)
        # and so do those about swapped pointers given to callees that
        # write them (8.26's calls)
        self.rsc = random.Random(seed * 198491317 + 29)
        # and so do those about callees whose indices are affine in their
        # loop's counter, given views (u[i - 1] from i = 1, out[2 i + 1])
        self.raf = random.Random(seed * 217645177 + 31)
        # and so do those about row-major matrices updated in place by
        # loop nests (DESIGN.md 8.31, 8.32: reads no later write changes)
        self.rmx = random.Random(seed * 236887691 + 37)
        # a sum the return value reads linearly (DESIGN 8.35), its own stream
        self.rls = random.Random(seed * 256203161 + 41)
        # and so do those about arrays of structs written in place, chained
        # updates of their fields, and local arrays of structs with
        # initializers (8.30, lowering/lower_chains.cpp)
        self.rwa = random.Random(seed * 275604541 + 43)
        # and so do those about chained updates of local arrays' elements
        self.rch = random.Random(seed * 295075147 + 47)
        # and so do those about CHAD_INACTIVE arrays (data: no shadow)
        self.rdt = random.Random(seed * 314606891 + 53)
        # and so do those about callees that write v[n - 1] of a view
        self.rtl = random.Random(seed * 334214459 + 59)
        # local arrays of structs of variable length or from the heap
        self.rsh = random.Random(seed * 353868019 + 61)
        # CHAD_INACTIVE struct parameters (data: no shadow, never written)
        self.rin = random.Random(seed * 373587883 + 67)
        # struct results whose pointer fields are views of an array
        # parameter (DESIGN.md 8.46)
        self.rvw = random.Random(seed * 393342743 + 71)
        # the integer type idx points to (issue 8: pointers to every
        # integer type are inactive); a `const _Bool *idx` holds 0s and 1s
        self.rix = random.Random(seed * 393342743 + 71)
        # arrays a loop nest adds products to in place (ADBench's Qtimesx,
        # DESIGN.md 8.51: a reverse loop of independent steps runs forwards)
        self.rqx = random.Random(seed * 413158511 + 73)
        # a recurrence through the array an update block fills, then writes
        # at indices other than the counter (DESIGN.md 8.61: a scatter into
        # an array a loop carries lost its cotangent)
        self.rsc = random.Random(seed * 433494437 + 79)
        # top-level qualifiers on scalar and struct parameters (`const
        # double a0`, `const S s`: DESIGN.md 8.75, the wrappers' shadows)
        self.rcq = random.Random(seed * 452930459 + 83)
        # a callee given two adjacent slices of one scratch array to update
        # in a loop (ADBench's lstm_predict passing &s[i], &s[i + b] to
        # lstm_model; DESIGN.md 8.79: the reverse of each store-back is a
        # copy), drawn in the walk blocks' slice form
        self.rcl = random.Random(seed * 472882027 + 89)
        # a loop stepping two fresh state arrays in place, element by
        # element, and adding up an error of the new state in the same step
        # (a one-layer LSTM over a sequence; DESIGN.md 8.80: the sum stores
        # what it reads, so the loop saves nothing it overwrites)
        self.rts = random.Random(seed * 492876847 + 97)
        # a loop left by `break`, or bounded by `&&`, whose step calls a
        # callee given an array (DESIGN.md 8.81: the callee's derivative,
        # in a branch of a storing step, was dropped by DCE)
        self.rbk = random.Random(seed * 512927357 + 101)
        self.idx_type = "int"
        self.walk_used = False  # gen_relax and gen_fill, array-updating callees
        self.cell_used = False  # gen_cell, a callee updating two slices
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
            if a.fmt.split(" ")[0] == b.fmt.split(" ")[0] and not a.kids and not b.kids:
                b = self.float_cond(c)
            return X(self, "({0} %s {1})" % op, [a, b], t="b")
        if depth > 0 and r.random() < 0.1:
            return X(self, "!({0})", [self.cond(c, 0)], t="b")
        return self.float_cond(c)

    def float_cond(self, c):
        op, g = self.r.choice(CMP)
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

    def call(self, c, depth, g=None):
        r = self.r
        if g is None:
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
                args.append(rows_arg(g, name, (self.rv.choice(["&%s[1]", "%s + 1"]) % a) if view else a))
            elif kind == "idx":
                args.append("idx")
            elif kind == "cst":
                args.append("#0.75")
            elif kind == "dat":
                args.append(self.dat_arg(c.fn))
            elif kind == "n":
                args.append("n - 1" if view else "n")
            elif kind == "int":
                args.append(str(r.randint(0, 3)))
            elif kind in ("sval", "scptr", "sptr"):
                # a struct of the caller's: a parameter, a local, a nested
                # field, by value or by address
                v, a = self.rst.choice(self.struct_values(c.fn, p[2].st, kind == "sptr",
                                                          p[2].inactive))
                args.append(v if kind == "sval" else a)
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

    def linear_sum(self, c, body):
        """A sum over the arrays that the return value adds linearly (not
        through the tanh of every variable): its cotangent is known before
        it, so its reverse runs in the primal sweep (DESIGN 8.35). Half the
        time each step first fills a scratch array whole by a loop, which
        makes it private to the step (8.17). Returns the term to add."""
        fn = c.fn
        fn.nvar += 1
        iv, kv, sv = "li%d" % fn.nvar, "lk%d" % fn.nvar, "ls%d" % fn.nvar
        lv = self.newvar(fn)
        lc = c.sub(reads=c.reads + ["%s[%s]" % (a, iv) for a in fn.arrays], ints=c.ints + [iv])
        body.append(S(self, "raw", "@T %s = {0};" % lv, [self.expr(c, 1)], fixed=True))
        step = []
        if self.rls.random() < 0.5:
            body.append(S(self, "raw", "@T %s[3];" % sv, fixed=True))
            kc = lc.sub(ints=lc.ints + [kv])
            a = self.rls.choice(fn.arrays)
            step.append(S(self, "for", "for (int %s = 0; %s < 3; %s++)" % (kv, kv, kv),
                          body=[S(self, "raw", "%s[%s] = {0} * %s[%s] + (@T)%s * #0.25;"
                                  % (sv, kv, a, iv, kv), [self.expr(kc, 1)], fixed=True)],
                          fixed=True))
            lc = lc.sub(reads=lc.reads + ["%s[%d]" % (sv, q) for q in range(3)])
            reads = "%s[0] * %s[2] + %s[1]" % (sv, sv, sv)
        else:
            reads = "%s[%s] * %s[%s]" % (self.rls.choice(fn.arrays), iv, self.rls.choice(fn.arrays), iv)
        step.append(S(self, "raw", "%s += {0} + %s;" % (lv, reads), [self.expr(lc, 2)], fixed=True))
        body.append(S(self, "for", "for (%s %s = 0; %s < n; %s++)" % (fn.ity, iv, iv, iv), body=step,
                      fixed=True))
        return " %s #0.5 * %s" % (self.rls.choice(["+", "-"]), lv)

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
            # pairs of elements sometimes set by one chained assignment
            # (`t[1] = t[0] = ...`, lowering/lower_chains.cpp), own stream
            chained = self.rch.random() < 0.3
            k = 0
            while k < size:
                # fixed: an array is written before it is read (reductions keep that)
                if chained and k + 1 < size:
                    out.append(S(self, "raw", "%s[%d] = %s[%d] = {0};" % (t, k + 1, t, k),
                                 [self.expr(c, 2)], fixed=True))
                    k += 2
                    continue
                out.append(S(self, "raw", "%s[%d] = {0};" % (t, k), [self.expr(c, 2)], fixed=True))
                k += 1
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
                 "scaled", "skip", "brk", "while", "dowhile", "wbrk"]
        if fn.ret and not fn.out and not fn.souts:
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
            # the counter declared before the loop and read after it: where
            # the break left it, or n
            after = form == "brk" and self.rv.random() < 0.3
            if after:
                out.append(S(self, "raw", fn.ity + " %s;" % i, fixed=True))
                hdr = "for (%s = 0; %s < n; %s++)" % (i, i, i)
            out.append(S(self, "for", hdr, body=body))
            if after:
                out.append(S(self, "raw", "%s += (@T)%s * #0.25;" % (v, i)))
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
        elif form in ("sum", "ifsum", "step2", "scaled"):
            out.append(S(self, "raw", "@T %s = #0.0;" % v))
            hexprs = []
            if form == "scaled":
                # a multiple of the counter against the bound: the counter
                # stays below n, as the reads at it require
                conds = ["2 * %s < n", "%s * 2 + 1 < n", "3 * %s + 1 <= n"]
                if fn.ity == fn.sity:  # signed: no wrap-around below zero
                    conds.append("2 * %s - 1 < n - 1")
                cond = r.choice(conds) % i
                hdr = "for (" + fn.ity + " %s = 0; %s; %s++)" % (i, cond, i)
                body = [S(self, "raw", "%s += {0};" % v, [self.expr(lc, 2)])]
            elif form == "sum":
                # issue 8: a second bound or a test joined by &&
                pick = self.rv.random()
                if pick < 0.12:
                    hdr = "for (%s %s = 0; %s < n && %s < %d; %s++)" % (
                        fn.ity, i, i, i, self.rv.randint(1, 4), i)
                elif pick < 0.24 and fn.kinks < fn.max_kinks:
                    # C tests the parts in order: a test that reads at the
                    # counter comes after the bound, as C code must write it
                    first = self.rv.random() < 0.5
                    hexprs = [self.cond(c if first else lc, 0)]
                    test = "({0}) && %s < n" if first else "%s < n && ({0})"
                    hdr = "for (%s %s = 0; %s; %s++)" % (fn.ity, i, test % i, i)
                body = [S(self, "raw", "%s += {0};" % v, [self.expr(lc, 2)])]
            elif form == "step2":
                hdr = "for (" + fn.ity + " %s = 0; %s < n; %s += 2)" % (i, i, i)
                body = [S(self, "raw", "%s += {0};" % v, [self.expr(lc, 2)])]
            else:
                fn.kinks += 1
                body = [S(self, "if", exprs=[self.cond(lc, 0)],
                          body=[S(self, "raw", "%s += {0};" % v, [self.expr(lc, 2)])],
                          els=[S(self, "raw", "%s -= {0};" % v, [self.expr(lc, 1)])])]
            out.append(S(self, "for", hdr, exprs=hexprs if form == "sum" else [], body=body))
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
        return self.drawn_from(self.rm, self.scratch_block, c)

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
        # C89's style: declared without a value (or null) and allocated by
        # the first assignment, a statement apart (DESIGN.md 8.28)
        late = form != "vla" and r.random() < 0.3
        decl = "@T *%s = " % m
        if late:
            out.append(S(self, "raw", r.choice(["@T *%s;", "@T *%s = NULL;"]) % m, fixed=True))
            decl = "%s = " % m
        if form == "vla":
            out.append(S(self, "raw", "@T %s[n];" % m, fixed=True))
        elif form == "calloc":
            out.append(S(self, "raw", decl + "calloc(n, sizeof *%s);" % m, fixed=True))
        else:
            cast = r.choice(["", "(@T *)"])
            out.append(S(self, "raw", decl + "%smalloc(%s);" % (cast, size), fixed=True))
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
        if form == "vla" and self.rsh.random() < 0.5:
            # sizeof of the VLA: n elements (n is never written)
            out.append(S(self, "raw", "%s += (@T)(sizeof %s / sizeof %s[0]) * #0.125;" % (v, m, m),
                         fixed=True))
        if fn.T == "double" and self.rsh.random() < 0.2:
            # a pointer into a constant table, read at a computed index
            fn.nvar += 1
            tp = "tp%d" % fn.nvar
            out.append(S(self, "raw", "const double *%s = %s;" % (tp, self.rsh.choice(
                ["gen_tab + (n % 4)", "gen_tab2[n % 2]", "(const double *)gen_tab2 + 1"])), fixed=True))
            out.append(S(self, "raw", "%s += %s[1] * #0.5 + %s[0];" % (v, tp, tp), fixed=True))
        if form != "vla":
            out.append(S(self, "raw", "free(%s);" % m, fixed=True))
        c.vars.append(v)
        fn.mutable.append(v)
        return out

    def walks(self, c):
        """Pointers and loops as C walks memory: a loop whose step is known
        at run time; an index carried from one iteration to the next and
        read by a sum; a pointer stepped or reassigned through an input;
        pointers into a malloc'd buffer written through; a callee that
        updates (gen_relax) or fills (gen_fill) a whole array, called in a
        loop. Every draw comes from self.rw, as scratch() does with rm."""
        return self.drawn_from(self.rw, self.walk_block, c)

    def break_call(self, c):
        """v += a callee's value at each step of a loop that stops early:
        by `break` under a condition on the counter, or by `&&` in the
        loop's condition (both lower to a done flag and a branch)."""
        r = self.r
        fn = c.fn
        fn.nvar += 1
        i = "bi%d" % fn.nvar
        v = self.newvar(fn)
        g = r.choice([g for g in fn.callees if g.arrays])
        lc = c.sub(ints=c.ints + [i])
        call = self.call(lc, 2, g)
        stop = r.randint(1, 3)
        out = [S(self, "raw", "@T %s = #0.0;" % v, fixed=True)]
        if r.random() < 0.5:
            body = [S(self, "raw", "if (%s >= %d)\n    break;" % (i, stop), fixed=True),
                    S(self, "raw", "%s += #0.5 * {0};" % v, [call], fixed=True)]
            hdr = "for (%s %s = 0; %s < n; %s++)" % (fn.ity, i, i, i)
        else:
            body = [S(self, "raw", "%s += #0.5 * {0};" % v, [call], fixed=True)]
            hdr = "for (%s %s = 0; %s < n && %s < %d; %s++)" % (fn.ity, i, i, i, stop, i)
        out.append(S(self, "for", hdr, body=body, fixed=True))
        c.vars.append(v)
        fn.mutable.append(v)
        return out

    def walk_block(self, c):
        r = self.r
        fn = c.fn
        fn.nvar += 1
        k = fn.nvar
        i, j, p, m = "wi%d" % k, "wj%d" % k, "wp%d" % k, "wm%d" % k
        a = r.choice(fn.arrays)
        ity = fn.ity
        v = self.newvar(fn)
        out = [S(self, "raw", "@T %s = #0.0;" % v, fixed=True)]
        hdr = "for (" + ity + " %s = 0; %s < n; %s++)"
        form = r.choice(["rstep", "carried", "stepped", "reassigned", "halves", "relax", "fill",
                         "slice", "choice"])
        if form == "choice" and len(fn.arrays) < 2:
            form = "reassigned"
        if form == "choice":
            # a pointer only read through that moves from one array into
            # another (lstm_predict's xp)
            b = r.choice([x for x in fn.arrays if x != a])
            out.append(S(self, "raw", "const @T *%s = %s;" % (p, b), fixed=True))
            lc = c.sub(reads=c.reads + ["%s[0]" % p, "%s[%s]" % (a, i)], ints=c.ints + [i])
            out.append(S(self, "for", "for (" + ity + " %s = 1; %s < n; %s++)" % (i, i, i),
                         body=[S(self, "raw", "%s += %s[0] * {0};" % (v, p), [self.expr(lc, 2)],
                                 fixed=True),
                               S(self, "raw", "%s = &%s[%s - 1];" % (p, a, i), fixed=True)],
                         fixed=True))
            c.vars.append(v)
            fn.mutable.append(v)
            return out
        if form == "slice":
            # callees update and fill slices of scratch through views
            self.scratch_used = True
            self.walk_used = True
            suffix = "f" if fn.T == "float" else ""
            t = "wt%d" % k
            out.append(S(self, "raw", "@T *%s = calloc(2 * n, sizeof(@T));" % m, fixed=True))
            out.append(S(self, "raw", "gen_fill%s((int)n, %s, #0.5, &%s[n]);" % (suffix, a, m),
                         fixed=True))
            if self.rcl.random() < 0.5:
                # a scratch of two halves, made from the input, given to a
                # callee as two in-out slices at every step of a loop, then
                # read (nothing before the loop reads it in the reverse
                # sweep, so the loop saves nothing and each store-back's
                # reverse is a copy, DESIGN.md 8.79)
                self.cell_used = True
                cl, cj = "wc%d" % k, "wk%d" % k
                out.append(S(self, "raw", "@T *%s = calloc(2 * n, sizeof(@T));" % cl, fixed=True))
                # every element in order: the scratch is a fresh array (a
                # build), not a version another loop handed on
                out.append(S(self, "for", "for (" + ity + " %s = 0; %s < 2 * n; %s++)" % (cj, cj, cj),
                             body=[S(self, "raw", "%s[%s] = #0.5 * %s[%s %% n];" % (cl, cj, a, cj),
                                     fixed=True)],
                             fixed=True))
                out.append(S(self, "for", "for (int %s = 0; %s < 2; %s++)" % (t, t, t),
                             body=[S(self, "raw", "gen_cell%s((int)n, %s, &%s[0], &%s[n]);"
                                     % (suffix, a, cl, cl), fixed=True)],
                             fixed=True))
                out.append(S(self, "for", hdr % (cj, cj, cj),
                             body=[S(self, "raw", "%s += %s[%s] * %s[n + %s];" % (v, cl, cj, cl, cj),
                                     fixed=True)],
                             fixed=True))
                out.append(S(self, "raw", "free(%s);" % cl, fixed=True))
            steps = r.randint(1, 3)
            out.append(S(self, "for", "for (int %s = 0; %s < %d; %s++)" % (t, t, steps, t),
                         body=[S(self, "raw", "gen_relax%s((int)n, %s + (%s %% 2) * n, %s);"
                                 % (suffix, m, t, a), fixed=True)],
                         fixed=True))
            if self.raf.random() < 0.5:  # indices affine in the callee's counter
                out.append(S(self, "raw", "gen_smooth%s((int)n, &%s[%d]);"
                             % (suffix, m, self.raf.randint(0, 1) * 1), fixed=True))
            if self.raf.random() < 0.5:
                out.append(S(self, "raw", "gen_spread%s((int)(n / 2), %s, %s + %s);"
                             % (suffix, a, m, self.raf.choice(["1", "n / 2", "n"])), fixed=True))
            # v[n - 1] in the callee: its extent is n, for a view at the
            # start of the scratch or for a constant n (issue 9, 0547e51)
            if self.rtl.random() < 0.4:
                out.append(S(self, "raw", "gen_tail%s((int)n, %s);" % (suffix, m), fixed=True))
            if self.rtl.random() < 0.4:
                out.append(S(self, "raw", "gen_tail%s(2, &%s[n - 1]);" % (suffix, m), fixed=True))
            rd = c.sub(reads=c.reads + ["%s[%s]" % (m, j), "%s[n + %s]" % (m, j)], ints=c.ints + [j])
            out.append(S(self, "for", hdr % (j, j, j),
                         body=[S(self, "raw", "%s += %s[%s] * {0} + %s[n + %s];" % (v, m, j, m, j),
                                 [self.expr(rd, 1)], fixed=True)],
                         fixed=True))
            out.append(S(self, "raw", "free(%s);" % m, fixed=True))
            c.vars.append(v)
            fn.mutable.append(v)
            return out
        hdr = "for (" + ity + " %s = 0; %s < n; %s++)"
        if form == "rstep":
            st = "ws%d" % k
            out.append(S(self, "raw", "%s %s = (%s)(1 + n / 3);" % (ity, st, ity), fixed=True))
            lc = c.sub(reads=c.reads + ["%s[%s]" % (a, i)], ints=c.ints + [i])
            out.append(S(self, "for", "for (%s %s = 0; %s < n; %s += %s)" % (ity, i, i, i, st),
                         body=[S(self, "raw", "%s += {0};" % v, [self.expr(lc, 2)], fixed=True)],
                         fixed=True))
        elif form == "carried":
            # the sum reads the index the previous iteration left
            out.append(S(self, "raw", "%s %s = 0;" % (ity, j), fixed=True))
            lc = c.sub(reads=c.reads + ["%s[%s]" % (a, j), "%s[%s]" % (a, i)],
                       ints=c.ints + [i])
            out.append(S(self, "for", hdr % (i, i, i),
                         body=[S(self, "raw", "%s += %s[%s] * {0};" % (v, a, j), [self.expr(lc, 2)],
                                 fixed=True),
                               S(self, "raw", "%s = %s;" % (j, i), fixed=True)],
                         fixed=True))
        elif form in ("stepped", "reassigned"):
            # p trails the counter by one element
            out.append(S(self, "raw", "const @T *%s = %s;" % (p, a), fixed=True))
            lc = c.sub(reads=c.reads + ["%s[0]" % p, "%s[%s]" % (a, i)], ints=c.ints + [i])
            step = (r.choice(["%s++;", "%s += 1;", "%s = %s + 1;"]).replace("%s", p)
                    if form == "stepped" else "%s = &%s[%s];" % (p, a, i))
            out.append(S(self, "for", "for (" + ity + " %s = 1; %s < n; %s++)" % (i, i, i),
                         body=[S(self, "raw", "%s += %s[0] * {0};" % (v, p), [self.expr(lc, 2)],
                                 fixed=True),
                               S(self, "raw", step, fixed=True)],
                         fixed=True))
        elif form == "halves":
            # two pointers name the halves of one buffer, written through
            self.scratch_used = True
            lo, hi = "wl%d" % k, "wh%d" % k
            out.append(S(self, "raw", "@T *%s = malloc(2 * n * sizeof(@T));" % m, fixed=True))
            out.append(S(self, "raw", "@T *%s = &%s[0];" % (lo, m), fixed=True))
            out.append(S(self, "raw", "@T *%s = %s + n;" % (hi, m), fixed=True))
            lc = c.sub(reads=c.reads + ["%s[%s]" % (x, i) for x in fn.arrays], ints=c.ints + [i])
            out.append(S(self, "for", hdr % (i, i, i),
                         body=[S(self, "raw", "%s[%s] = {0};" % (lo, i), [self.expr(lc, 2)], fixed=True),
                               S(self, "raw", "%s[%s] = #0.5 * %s[%s] + {0};" % (hi, i, lo, i),
                                 [self.expr(lc, 1)], fixed=True)],
                         fixed=True))
            rd = c.sub(reads=c.reads + ["%s[%s]" % (m, j), "%s[n - 1 - %s]" % (hi, j)],
                       ints=c.ints + [j])
            out.append(S(self, "for", hdr % (j, j, j),
                         body=[S(self, "raw", "%s += %s[%s] * {0};" % (v, lo, j), [self.expr(rd, 1)],
                                 fixed=True)],
                         fixed=True))
            out.append(S(self, "raw", "free(%s);" % m, fixed=True))
        else:
            # a whole scratch array updated (gen_relax) or filled (gen_fill)
            # by a callee at every step of a loop
            self.scratch_used = True
            self.walk_used = True
            suffix = "f" if fn.T == "float" else ""
            t = "wt%d" % k
            out.append(S(self, "raw", "@T *%s = malloc(n * sizeof(@T));" % m, fixed=True))
            lc = c.sub(reads=c.reads + ["%s[%s]" % (x, i) for x in fn.arrays], ints=c.ints + [i])
            out.append(S(self, "for", hdr % (i, i, i),
                         body=[S(self, "raw", "%s[%s] = #0.5 * tanh({0});" % (m, i), [self.expr(lc, 2)],
                                 fixed=True)],
                         fixed=True))
            steps = r.randint(1, 3)
            if form == "relax":
                call = "gen_relax%s((int)n, %s, %s);" % (suffix, m, a)
                body = [S(self, "raw", call, fixed=True)]
                if r.random() < 0.5:
                    body.append(S(self, "raw", "%s[0] += #0.25;" % m, fixed=True))
            else:
                call = "gen_fill%s((int)n, %s, #0.5 + #0.25 * %s, %s);" % (suffix, a, t, m)
                body = [S(self, "raw", call, fixed=True)]
                rd = c.sub(reads=c.reads + ["%s[%s]" % (m, j)], ints=c.ints + [j])
                body.append(S(self, "for", hdr % (j, j, j),
                              body=[S(self, "raw", "%s += {0};" % v, [self.expr(rd, 1)], fixed=True)],
                              fixed=True))
            out.append(S(self, "for", "for (int %s = 0; %s < %d; %s++)" % (t, t, steps, t),
                         body=body, fixed=True))
            if self.rts.random() < 0.3:
                out += self.drawn_from(self.rts, lambda c: self.time_steps(c, k, m, a, v), c)
            rd = c.sub(reads=c.reads + ["%s[%s]" % (m, j)], ints=c.ints + [j])
            out.append(S(self, "for", hdr % (j, j, j),
                         body=[S(self, "raw", "%s += #0.5 * %s[%s] + {0};" % (v, m, j), [self.expr(rd, 1)],
                                 fixed=True)],
                         fixed=True))
            out.append(S(self, "raw", "free(%s);" % m, fixed=True))
        c.vars.append(v)
        fn.mutable.append(v)
        return out

    def time_steps(self, c, k, m, a, v):
        """Two state arrays made from the scratch m (every element in
        order: fresh arrays), stepped in place element by element for a
        few steps, and the error of one against the input a added to v at
        every step, after the inner loop."""
        r = self.r
        ity = c.fn.ity
        hs, cs, ti, si, ei = "th%d" % k, "tc%d" % k, "tt%d" % k, "ti%d" % k, "te%d" % k
        out = [S(self, "raw", "@T *%s = malloc(n * sizeof(@T));" % hs, fixed=True),
               S(self, "raw", "@T *%s = malloc(n * sizeof(@T));" % cs, fixed=True)]
        out.append(S(self, "for", "for (" + ity + " %s = 0; %s < n; %s++)" % (si, si, si),
                     body=[S(self, "raw", "%s[%s] = #0.5 * %s[%s];" % (hs, si, m, si), fixed=True),
                           S(self, "raw", "%s[%s] = #0.25 * %s[%s];" % (cs, si, a, si), fixed=True)],
                     fixed=True))
        cell = [S(self, "raw", "%s[%s] = #0.5 * %s[%s] + #0.25 * tanh(%s[%s] + %s[%s]);"
                  % (cs, si, cs, si, hs, si, a, si), fixed=True),
                S(self, "raw", "%s[%s] = #0.75 * tanh(%s[%s]);" % (hs, si, cs, si), fixed=True)]
        rd = c.sub(reads=c.reads + ["%s[%s]" % (hs, ei)], ints=c.ints + [ei])
        err = S(self, "raw", "%s += (%s[%s] - %s[%s]) * (%s[%s] - %s[%s]) * {0};"
                % (v, hs, ei, a, ei, hs, ei, a, ei), [self.expr(rd, 1)], fixed=True)
        out.append(S(self, "for", "for (int %s = 0; %s < %d; %s++)" % (ti, ti, r.randint(1, 3), ti),
                     body=[S(self, "for", "for (" + ity + " %s = 0; %s < n; %s++)" % (si, si, si),
                             body=cell, fixed=True),
                           S(self, "for", "for (" + ity + " %s = 0; %s < n; %s++)" % (ei, ei, ei),
                             body=[err], fixed=True)],
                     fixed=True))
        out.append(S(self, "raw", "free(%s);" % hs, fixed=True))
        out.append(S(self, "raw", "free(%s);" % cs, fixed=True))
        return out

    def drawn_from(self, stream, make, c):
        """make(c) with every draw, its expressions', custom calls' and
        views' included, from `stream`: the other streams, and so the rest
        of the program, are the seed's as before."""
        saved = self.r, self.rc, self.rv
        self.r = stream
        self.rc = random.Random(stream.random())
        self.rv = random.Random(stream.random())
        try:
            return make(c)
        finally:
            self.r, self.rc, self.rv = saved

    def updates(self, c):
        """Array updates (DESIGN.md 8.13, 8.15, 8.16): a local array (fixed
        size, VLA or malloc'd) filled at the counter, then written at
        computed indices in loops, reading elements written in earlier
        iterations (a read-modify-write, a triangular nest, writes under a
        condition, while and do loops), or filled by a call of a function
        with an output array; and the in-out parameter's updates. Every
        draw, the expressions' included, comes from self.ru: the other
        streams, and so the rest of the program, are the seed's as before."""
        saved = self.r, self.rc, self.rv
        self.r = self.ru
        self.rc = random.Random(self.ru.random())
        self.rv = random.Random(self.ru.random())
        try:
            out = []
            if c.fn.inout:
                out += self.inout_block(c)
            if not c.fn.inout or self.ru.random() < 0.5:
                out += self.update_block(c)
        finally:
            self.r, self.rc, self.rv = saved
        if self.rcw.random() < 0.25:
            out += self.custom_writes(c)
        if self.rsw.random() < 0.2:
            out += self.swaps(c)
        if self.rmx.random() < 0.25:
            out += self.matrix(c)
        if self.rqx.random() < 0.3:
            out += self.accumulating_nest(c)
        return out

    def accumulating_nest(self, c):
        """A local array filled at the counter, then added to in place by a
        nest (ADBench's Qtimesx): the inner loop, from 0, i or i + 1, adds
        to t at its counter a product of elements of the inputs, at a
        running counter or at i and j. Its reverse steps are independent
        and run forwards (DESIGN.md 8.51) unless the step also reads t,
        which a third of the nests do: at the outer counter (written by the
        inner loop when it starts at 0 or i), at the element before (a
        recurrence) or elsewhere; those must stay reversed. Every draw
        comes from self.rqx."""
        return self.drawn_from(self.rqx, self.accumulating_nest_block, c)

    def accumulating_nest_block(self, c):
        r = self.r
        fn = c.fn
        fn.nvar += 1
        k = fn.nvar
        t, i, j, q = "qt%d" % k, "qi%d" % k, "qj%d" % k, "qq%d" % k
        ity = fn.ity
        hdr = "for (" + ity + " %s = 0; %s < n; %s++)"
        v = self.newvar(fn)
        out = []
        alloc = r.choice(["fixed", "vla", "malloc"])
        if alloc == "fixed":
            out.append(S(self, "raw", "@T %s[8];" % t, fixed=True))
        elif alloc == "vla":
            out.append(S(self, "raw", "@T %s[n];" % t, fixed=True))
        else:
            self.scratch_used = True
            out.append(S(self, "raw", "@T *%s = malloc(n * sizeof *%s);" % (t, t), fixed=True))
        lc = c.sub(reads=c.reads + ["%s[%s]" % (a, i) for a in fn.arrays], ints=c.ints + [i])
        out.append(S(self, "for", hdr % (i, i, i), fixed=True,
                     body=[S(self, "raw", "%s[%s] = {0};" % (t, i), [self.expr(lc, 2)], fixed=True)]))
        lo = r.choice(["%s + 1" % i, "%s + 1" % i, i, "0"])
        # a counter a rectangular nest carries is a located error: such a
        # nest is flattened into one loop (lower_loops.cpp, inlineLoop)
        counter = fn.arrays and lo != "0" and r.random() < 0.5
        reads = ["%s[%s]" % (a, x) for a in fn.arrays for x in (i, j)]
        if counter:
            reads += ["%s[%s %% n]" % (a, q) for a in fn.arrays]
        jc = c.sub(reads=c.reads + reads, ints=c.ints + [i, j])
        factor = ("%s[%s %% n]" % (r.choice(fn.arrays), q) if counter else
                  "%s[%s]" % (r.choice(fn.arrays), i) if fn.arrays else "#0.5")
        step = "%s[%s] += %s * tanh({0})" % (t, j, factor)
        if r.random() < 1 / 3:
            # the step reads t: its reverse steps depend on each other
            at = r.choice([i, "(%s + n - 1) %% n" % j, "n - 1 - %s" % j, "0"])
            step += " * (#0.5 + #0.25 * %s[%s])" % (t, at.replace("%%", "%"))
        body = [S(self, "raw", step + ";", [self.expr(jc, 1)], fixed=True)]
        if counter:
            out.append(S(self, "raw", "%s %s = 0;" % (ity, q), fixed=True))
            body.append(S(self, "raw", "%s++;" % q, fixed=True))
        inner = S(self, "for", "for (%s %s = %s; %s < n; %s++)" % (ity, j, lo, j, j), fixed=True, body=body)
        out.append(S(self, "for", hdr % (i, i, i), fixed=True, body=[inner]))
        rd = c.sub(reads=c.reads + ["%s[%s]" % (t, j), "%s[n - 1 - %s]" % (t, j)], ints=c.ints + [j])
        out.append(S(self, "raw", "@T %s = #0.0;" % v, fixed=True))
        out.append(S(self, "for", hdr % (j, j, j), fixed=True,
                     body=[S(self, "raw", "%s += #0.5 * %s[%s] + {0};" % (v, t, j), [self.expr(rd, 2)],
                             fixed=True)]))
        if alloc == "malloc":
            out.append(S(self, "raw", "free(%s);" % t, fixed=True))
        c.vars.append(v)
        fn.mutable.append(v)
        return out

    def matrix(self, c):
        """A row-major n x n matrix (and one row more) updated in place by
        a nest over j, k (to j, j + 1 or n) and i (from 0, j, j + 1 or k),
        each step a contraction of one element read with two others at
        row-major indices drawn at random: some never written after the
        read (read again in the reverse, DESIGN.md 8.31), some the same at
        every step of the inner loop and never written in it (read before
        it, 8.32), most neither. Every draw comes from self.rmx."""
        return self.drawn_from(self.rmx, self.matrix_block, c)

    def matrix_block(self, c):
        r = self.r
        fn = c.fn
        fn.nvar += 1
        k = fn.nvar
        m, i, j, q, t = "mx%d" % k, "mxi%d" % k, "mxj%d" % k, "mxk%d" % k, "mxt%d" % k
        v = self.newvar(fn)
        out = []
        size = "n * n + n"
        malloced = r.random() >= 0.5
        if not malloced:
            out.append(S(self, "raw", "@T %s[%s];" % (m, size), fixed=True))
        else:
            self.scratch_used = True
            out.append(S(self, "raw", "@T *%s = malloc((%s) * sizeof *%s);" % (m, size, m), fixed=True))
        lc = c.sub(reads=c.reads + ["%s[%s %% n]" % (x, t) for x in fn.arrays], ints=c.ints + [t])
        out.append(S(self, "for", "for (%s %s = 0; %s < %s; %s++)" % (fn.ity, t, t, size, t),
                     fixed=True,
                     body=[S(self, "raw", "%s[%s] = #0.5 * tanh({0});" % (m, t), [self.expr(lc, 2)],
                             fixed=True)]))
        # indices stay within the n * n + n elements: q < n and i < n
        at = lambda f: f.replace("I", i).replace("J", j).replace("Q", q)
        writes = ["I * n + J", "J * n + I", "I * n + Q", "Q * n + I"]
        reads = ["I * n + Q", "J * n + Q", "Q * n + J", "I * n + J", "Q * n + I", "J * n + J",
                 "I * n + n - 1 - Q", "I * n + Q + 1", "I * n + n", "J * n + I"]
        w = at(r.choice(writes))
        r1, r2 = at(r.choice(reads)), at(r.choice(reads))
        qb = r.choice([j, j, "%s + 1" % j, "n"])
        il = r.choice(["0", j, "%s + 1" % j, q])
        ic = c.sub(reads=c.reads + ["%s[%s]" % (x, i) for x in fn.arrays], ints=c.ints + [i, j])
        step = S(self, "raw", "%s[%s] = #0.5 * %s[%s] + #0.25 * tanh(%s[%s] * %s[%s] + {0});"
                 % (m, w, m, w, m, r1, m, r2), [self.expr(ic, 1)], fixed=True)
        inner = S(self, "for", "for (%s %s = %s; %s < n; %s++)" % (fn.ity, i, il, i, i),
                  fixed=True, body=[step])
        mid = S(self, "for", "for (%s %s = 0; %s < %s; %s++)" % (fn.ity, q, q, qb, q),
                fixed=True, body=[inner])
        out.append(S(self, "for", "for (%s %s = 0; %s < n; %s++)" % (fn.ity, j, j, j),
                     fixed=True, body=[mid]))
        out.append(S(self, "raw", "@T %s = #0.0;" % v, fixed=True))
        out.append(S(self, "for", "for (%s %s = 0; %s < %s; %s++)" % (fn.ity, t, t, size, t),
                     fixed=True,
                     body=[S(self, "raw", "%s += #0.25 * %s[%s];" % (v, m, t), fixed=True)]))
        if malloced:
            out.append(S(self, "raw", "free(%s);" % m, fixed=True))
        c.vars.append(v)
        fn.mutable.append(v)
        return out

    def swaps(self, c):
        """Double buffering (DESIGN.md 8.26): two local arrays (fixed, VLA
        or malloc'd), pointers into them swapped after each step of a loop
        that writes one through a pointer and reads the other; the buffer a
        pointer ends in read after the loop. Every draw comes from self.rsw."""
        return self.drawn_from(self.rsw, self.swap_block, c)

    def swap_block(self, c):
        r = self.r
        fn = c.fn
        fn.nvar += 1
        k = fn.nvar
        a, b, p, q, t = "dba%d" % k, "dbb%d" % k, "dbp%d" % k, "dbq%d" % k, "dbt%d" % k
        i, j, s = "dbi%d" % k, "dbj%d" % k, "dbs%d" % k
        hdr = "for (" + fn.ity + " %s = 0; %s < n; %s++)"
        v = self.newvar(fn)
        out = []
        alloc = r.choice(["fixed", "vla", "malloc"])
        for arr in (a, b):
            if alloc == "fixed":
                out.append(S(self, "raw", "@T %s[8];" % arr, fixed=True))
            elif alloc == "vla":
                out.append(S(self, "raw", "@T %s[n];" % arr, fixed=True))
            else:
                self.scratch_used = True
                out.append(S(self, "raw", "@T *%s = malloc(n * sizeof *%s);" % (arr, arr), fixed=True))
        # the step as calls of callees that fill (gen_blend, a contraction:
        # gen_fill's squares overflowed floats in four steps) and update the
        # buffer the pointers name (a choice of calls), drawn from self.rsc
        calls = self.rsc.random() < 0.4
        lc = c.sub(reads=c.reads + ["%s[%s]" % (x, i) for x in fn.arrays], ints=c.ints + [i])
        init = [S(self, "raw", "%s[%s] = {0};" % (a, i), [self.expr(lc, 2)], fixed=True)]
        if calls:  # a callee may read either buffer: both start written
            init.append(S(self, "raw", "%s[%s] = #0.0;" % (b, i), fixed=True))
        out.append(S(self, "for", hdr % (i, i, i), fixed=True, body=init))
        out.append(S(self, "raw", "@T *%s = %s, *%s = %s;" % (p, a, q, b), fixed=True))
        rc = lc.sub(reads=lc.reads + ["%s[%s]" % (p, i), "%s[(%s + 1) %% n]" % (p, i)])
        step = S(self, "raw", "%s[%s] = #0.5 * %s[%s] + #0.25 * tanh({0});" % (q, i, p, i),
                 [self.expr(rc, 2)], fixed=True)
        if calls:
            self.walk_used = True
            suffix = "f" if fn.T == "float" else ""
            body = [S(self, "raw", "gen_blend%s((int)n, %s, %s);" % (suffix, p, q), fixed=True)]
            if self.rsc.random() < 0.5:
                body.append(S(self, "raw", "gen_relax%s((int)n, %s, %s);" % (suffix, q, p), fixed=True))
        else:
            body = [S(self, "for", hdr % (i, i, i), body=[step], fixed=True)]
        swap = [S(self, "raw", "@T *%s = %s;" % (t, p), fixed=True),
                S(self, "raw", "%s = %s;" % (p, q), fixed=True),
                S(self, "raw", "%s = %s;" % (q, t), fixed=True)]
        if r.random() < 0.3:  # swapped only on some steps
            swap = [S(self, "if", exprs=[X(self, "%s %% 2 == 0" % s, t="b")], body=swap, fixed=True)]
        out.append(S(self, "for", "for (int %s = 0; %s < %d; %s++)" % (s, s, r.randint(1, 4), s),
                     fixed=True, body=body + swap))
        out.append(S(self, "raw", "@T %s = #0.0;" % v, fixed=True))
        jc = c.sub(reads=c.reads + ["%s[%s]" % (x, j) for x in fn.arrays], ints=c.ints + [j])
        out.append(S(self, "for", hdr % (j, j, j), fixed=True,
                     body=[S(self, "raw", "%s += #0.5 * %s[%s] * tanh({0});" % (v, p, j),
                             [self.expr(jc, 2)], fixed=True)]))
        if alloc == "malloc":
            out.append(S(self, "raw", "free(%s);" % a, fixed=True))
            out.append(S(self, "raw", "free(%s);" % b, fixed=True))
        c.vars.append(v)
        fn.mutable.append(v)
        return out

    def custom_writes(self, c):
        """Calls of the CHAD_CUSTOM functions that write arrays (DESIGN.md
        8.25): gen_cu_sq fills an output, gen_cu_mix updates an in-out array
        and returns a value, on a local array (fixed, VLA or malloc'd),
        whole or at the view from element 1, once or in a loop that carries
        the array; then the array is read. Every draw comes from self.rcw."""
        return self.drawn_from(self.rcw, self.custom_writes_block, c)

    def custom_writes_block(self, c):
        r = self.r
        fn = c.fn
        fn.nvar += 1
        t, i, j = "cw%d" % fn.nvar, "ci%d" % fn.nvar, "cj%d" % fn.nvar
        hdr = "for (" + fn.ity + " %s = 0; %s < n; %s++)"
        v = self.newvar(fn)
        out = []
        alloc = r.choice(["fixed", "vla", "malloc"])
        if alloc == "fixed":
            out.append(S(self, "raw", "@T %s[8];" % t, fixed=True))
        elif alloc == "vla":
            out.append(S(self, "raw", "@T %s[n];" % t, fixed=True))
        else:
            self.scratch_used = True
            out.append(S(self, "raw", "@T *%s = malloc(n * sizeof *%s);" % (t, t), fixed=True))
        lc = c.sub(reads=c.reads + ["%s[%s]" % (a, i) for a in fn.arrays], ints=c.ints + [i])
        form = r.choice(["out", "inout", "loop"] if fn.arrays else ["inout", "loop"])
        if form == "out":
            out.append(S(self, "raw", "gen_cu_sq@S((int)n, {0}, %s, %s);" % (r.choice(fn.arrays), t),
                         [self.expr(c, 2)], fixed=True))
        else:
            out.append(S(self, "for", hdr % (i, i, i), fixed=True,
                         body=[S(self, "raw", "%s[%s] = {0};" % (t, i), [self.expr(lc, 2)], fixed=True)]))
            view = r.random() < 0.4
            arr, cnt = ("&%s[1]" % t, "(int)n - 1") if view else (t, "(int)n")
            call = "%s = gen_cu_mix@S(%s, #0.5 + #0.25 * tanh({0}), %s);" % (v, cnt, arr)
            out.append(S(self, "raw", "@T %s = #0.0;" % v, fixed=True))
            if form == "loop":
                k = "ck%d" % fn.nvar
                body = [S(self, "raw", call.replace("%s = " % v, "%s += " % v, 1), [self.expr(c, 1)],
                          fixed=True),
                        S(self, "raw", "%s[0] = sin(%s[0]);" % (t, t), fixed=True)]
                out.append(S(self, "for", "for (int %s = 0; %s < 3; %s++)" % (k, k, k), body=body,
                             fixed=True))
            else:
                out.append(S(self, "raw", call, [self.expr(c, 2)], fixed=True))
        if form == "out":
            out.append(S(self, "raw", "@T %s = #0.0;" % v, fixed=True))
        jc = c.sub(reads=c.reads + ["%s[%s]" % (a, j) for a in fn.arrays], ints=c.ints + [j])
        out.append(S(self, "for", hdr % (j, j, j), fixed=True,
                     body=[S(self, "raw", "%s += #0.5 * %s[%s] * tanh({0});" % (v, t, j),
                             [self.expr(jc, 2)], fixed=True)]))
        if alloc == "malloc":
            out.append(S(self, "raw", "free(%s);" % t, fixed=True))
        c.vars.append(v)
        fn.mutable.append(v)
        return out

    def inout_block(self, c):
        """The in-out parameter p: its first use reads it (p[i] += ...), so
        f_fwd's dp and f_rev's p_b are tangents and adjoints of its initial
        values on entry and of its final ones on exit (DESIGN.md 1, 8.7).
        Never dropped: p must stay written."""
        r = self.r
        fn = c.fn
        p = fn.inout
        fn.nvar += 1
        i = "pi%d" % fn.nvar
        hdr = "for (" + fn.ity + " %s = 0; %s < n; %s++)" % (i, i, i)
        rd = ["%s[%s]" % (a, i) for a in fn.arrays] + ["%s[%s]" % (p, i), "%s[(%s + 1) %% n]" % (p, i)]
        lc = c.sub(reads=c.reads + rd, ints=c.ints + [i])
        form = r.choice(["next", "mirror", "both"])
        body = []
        if form in ("next", "both"):
            body.append(S(self, "raw", "%s[%s] += #0.5 * tanh({0}) * %s[(%s + 1) %% n];" % (p, i, p, i),
                          [self.expr(lc, 2)], fixed=True))
        if form in ("mirror", "both"):
            body.append(S(self, "raw", "%s[n - 1 - %s] = #0.5 * %s[n - 1 - %s] + tanh({0});"
                          % (p, i, p, i), [self.expr(lc, 2)], fixed=True))
        out = [S(self, "for", hdr, body=body, fixed=True)]
        if r.random() < 0.4:
            out.append(S(self, "raw", "%s[0] *= #1.0 + #0.25 * tanh({0});" % p,
                         [self.expr(c.sub(reads=c.reads + ["%s[n - 1]" % p]), 1)], fixed=True))
        # later code reads it
        c.reads += ["%s[0]" % p, "%s[n - 1]" % p]
        return out

    def update_block(self, c):
        r = self.r
        fn = c.fn
        fn.nvar += 1
        t, i, j, k = "t%d" % fn.nvar, "ui%d" % fn.nvar, "uj%d" % fn.nvar, "uk%d" % fn.nvar
        ity = fn.ity
        hdr = "for (" + ity + " %s = 0; %s < n; %s++)"
        # callees with an output array that fits ours (n elements)
        outcallees = [g for g in self.funcs if g.T == fn.T and g.out and not g.sparams and
                      g.inout is None and (not g.has_idx or fn.has_idx) and (not g.dat or fn.dat)]
        if outcallees and r.random() < 0.6:
            form = r.choice(["call", "call", "callloop", "callpriv"])
        else:
            form = r.choice(["rmw", "rmw", "tri", "cond", "while", "do", "branch", "stride"])
        out = []
        v = self.newvar(fn)
        if form == "stride":
            # a block of m elements per iteration, t[m*i + c] for each c in
            # some order (DESIGN 8.19), then read back
            m = r.choice([2, 3])
            alloc = r.choice(["fixed", "vla", "malloc"])
            if alloc == "fixed":
                out.append(S(self, "raw", "@T %s[%d];" % (t, 8 * m), fixed=True))
            elif alloc == "vla":
                out.append(S(self, "raw", "@T %s[%d * n];" % (t, m), fixed=True))
            else:
                self.scratch_used = True
                out.append(S(self, "raw", "@T *%s = malloc(%d * n * sizeof *%s);" % (t, m, t), fixed=True))
            lc = c.sub(reads=c.reads + ["%s[%s]" % (a, i) for a in fn.arrays], ints=c.ints + [i])
            cs = list(range(m))
            r.shuffle(cs)
            call = None
            if fn.arrays and r.random() < 0.5:
                # elements 0 and 1 of each block by a callee's output at a
                # view: gen_blk writes exactly two (DESIGN 8.19)
                self.blk_used = True
                cs = [cc for cc in cs if cc >= 2]
                src = r.choice(["&%s[%s]", "%s + %s"]) % (r.choice(fn.arrays), i)
                dst = r.choice(["&%s[%d * %s]", "%s + %d * %s"]) % (t, m, i)
                call = S(self, "raw", "gen_blk%s(%s, %s);" % ("f" if fn.T == "float" else "", src, dst),
                         fixed=True)
            def at(cc):
                base = "%d * %s" % (m, i) if r.random() < 0.5 else "%s * %d" % (i, m)
                return base + (" + %d" % cc if cc else "")
            body = [S(self, "raw", "%s[%s] = {0};" % (t, at(cc)), [self.expr(lc, 2)], fixed=True)
                    for cc in cs]
            if call:
                body.insert(r.randrange(len(body) + 1), call)
            out.append(S(self, "for", hdr % (i, i, i), body=body, fixed=True))
            jc = c.sub(reads=c.reads + ["%s[%s]" % (a, j) for a in fn.arrays], ints=c.ints + [j])
            out.append(S(self, "raw", "@T %s = #0.0;" % v, fixed=True))
            out.append(S(self, "for", hdr % (j, j, j), fixed=True,
                         body=[S(self, "raw", "%s += #0.5 * %s[%d * %s + %d] * tanh({0});"
                                 % (v, t, m, j, r.randrange(m)), [self.expr(jc, 2)], fixed=True)]))
            if alloc == "malloc":
                out.append(S(self, "raw", "free(%s);" % t, fixed=True))
            c.vars.append(v)
            fn.mutable.append(v)
            return out
        if form == "callpriv":
            # scratch declared before the loop that every iteration fills
            # by a call before reading it, read by nothing after the loop
            # but free: private to the iterations (DESIGN 8.17)
            g = r.choice(outcallees)
            alloc = r.choice(["fixed", "vla", "malloc"])
            if alloc == "fixed":
                out.append(S(self, "raw", "@T %s[8];" % t, fixed=True))
            elif alloc == "vla":
                out.append(S(self, "raw", "@T %s[n];" % t, fixed=True))
            else:
                self.scratch_used = True
                out.append(S(self, "raw", "@T *%s = malloc(n * sizeof *%s);" % (t, t), fixed=True))
            lc = c.sub(reads=c.reads + ["%s[%s]" % (a, i) for a in fn.arrays], ints=c.ints + [i])
            rc = lc.sub(reads=lc.reads + ["%s[%s]" % (t, i), "%s[n - 1 - %s]" % (t, i), "%s[0]" % t])
            call = self.out_call(lc, g, r.choice([t, "&%s[0]" % t]))
            body = [call, S(self, "raw", "%s += #0.5 * %s[%s] + {0};" % (v, t, i), [self.expr(rc, 2)],
                            fixed=True)]
            out.append(S(self, "raw", "@T %s = #0.0;" % v, fixed=True))
            out.append(S(self, "for", hdr % (i, i, i), body=body, fixed=True))
            if alloc == "malloc":
                out.append(S(self, "raw", "free(%s);" % t, fixed=True))
            c.vars.append(v)
            fn.mutable.append(v)
            return out
        if form == "callloop":
            # a call filling an array local to a loop body (an array the
            # loop carries, written by a call, is a located error)
            g = r.choice(outcallees)
            decl = r.choice(["@T %s[8];", "@T %s[n];"]) % t
            lc = c.sub(reads=c.reads + ["%s[%s]" % (a, i) for a in fn.arrays], ints=c.ints + [i])
            rc = lc.sub(reads=lc.reads + ["%s[%s]" % (t, i), "%s[n - 1 - %s]" % (t, i), "%s[0]" % t])
            body = [S(self, "raw", decl, fixed=True), self.out_call(lc, g, t),
                    S(self, "raw", "%s += #0.5 * %s[%s] + {0};" % (v, t, i), [self.expr(rc, 2)],
                      fixed=True)]
            out.append(S(self, "raw", "@T %s = #0.0;" % v, fixed=True))
            out.append(S(self, "for", hdr % (i, i, i), body=body, fixed=True))
            c.vars.append(v)
            fn.mutable.append(v)
            return out
        alloc = r.choice(["fixed", "vla", "malloc"])
        if alloc == "fixed":
            out.append(S(self, "raw", "@T %s[8];" % t, fixed=True))
        elif alloc == "vla":
            out.append(S(self, "raw", "@T %s[n];" % t, fixed=True))
        else:
            self.scratch_used = True
            out.append(S(self, "raw", "@T *%s = %smalloc(n * sizeof *%s);" % (t, r.choice(["", "(@T *)"]), t),
                         fixed=True))
        lc = c.sub(reads=c.reads + ["%s[%s]" % (a, i) for a in fn.arrays], ints=c.ints + [i])
        if form == "call":
            # g(x, ..., t, n, ...) fills t; then t may be updated as well
            out.append(self.out_call(c, r.choice(outcallees), t))
            form = r.choice(["", "", "rmw", "cond"])
        elif form == "branch":
            # each branch of a condition fills t (DESIGN 8.18)
            if fn.kinks < fn.max_kinks:
                fn.kinks += 1
                cond = self.cond(c, 1)
            else:
                cond = X(self, "n %% 2 == %d" % r.randint(0, 1), t="b")
            fills = [S(self, "for", hdr % (i, i, i), fixed=True,
                       body=[S(self, "raw", "%s[%s] = {0};" % (t, i), [self.expr(lc, 2)], fixed=True)])
                     for _ in range(2)]
            out.append(S(self, "if", exprs=[cond], body=[fills[0]], els=[fills[1]], fixed=True))
            form = ""
        else:
            out.append(S(self, "for", hdr % (i, i, i), fixed=True,
                         body=[S(self, "raw", "%s[%s] = {0};" % (t, i), [self.expr(lc, 2)], fixed=True)]))
        # reads of the elements written so far, at the counter and elsewhere
        uc = lc.sub(reads=lc.reads + ["%s[%s]" % (t, i), "%s[(%s + 1) %% n]" % (t, i),
                                      "%s[n - 1 - %s]" % (t, i), "%s[0]" % t])

        def rmw(at, ctx):
            op = r.choice(["+=", "=", "-=", "*="])
            if op == "+=":
                return S(self, "raw", "%s[%s] += tanh({0});" % (t, at), [self.expr(ctx, 2)])
            if op == "=":
                return S(self, "raw", "%s[%s] = #0.5 * %s[%s] + tanh({0});" % (t, at, t, at),
                         [self.expr(ctx, 2)])
            if op == "-=":
                return S(self, "raw", "%s[%s] -= #0.25 * %s[%s] * tanh({0});" % (t, at, t, i),
                         [self.expr(ctx, 2)])
            return S(self, "raw", "%s[%s] *= #1.0 + #0.25 * tanh({0});" % (t, at), [self.expr(ctx, 2)])

        if form == "rmw":
            at = r.choice(["(%s + 1) %% n", "n - 1 - %s", "(%s * 3 + 1) %% n", "%s / 2"])
            at = at.replace("%s", i).replace("%%", "%")
            body = [rmw(at, uc)]
            if r.random() < 0.4:
                body.append(rmw(i, uc))
            out.append(S(self, "for", hdr % (i, i, i), body=body))
        elif form == "tri":
            jc = uc.sub(reads=uc.reads + ["%s[%s]" % (t, j)], ints=uc.ints + [j])
            inner = S(self, "for", "for (%s %s = %s + 1; %s < n; %s++)" % (ity, j, i, j, j),
                      body=[S(self, "raw", "%s[%s] = %s[%s] * tanh({0}) + #0.5 * %s[%s];"
                              % (t, j, t, j, t, i), [self.expr(jc, 2)])])
            out.append(S(self, "for", hdr % (i, i, i), body=[inner]))
        elif form == "cond":
            if fn.kinks < fn.max_kinks:
                cond = self.cond(uc, 1)
            else:
                cond = X(self, "%s %% 2 == %d" % (i, r.randint(0, 1)), t="b")
            then = [S(self, "raw", "%s[%s] = #0.5 * %s[(%s + 1) %% n] + tanh({0});" % (t, i, t, i),
                      [self.expr(uc, 2)])]
            els = [S(self, "raw", "%s[n - 1 - %s] -= #0.25 * tanh({0});" % (t, i), [self.expr(uc, 2)])]
            out.append(S(self, "for", hdr % (i, i, i), body=[S(self, "if", exprs=[cond], body=then, els=els)]))
        elif form in ("while", "do"):
            # the counter lives outside the loop, stepped at the end of the
            # body (never dropped)
            kc = c.sub(reads=c.reads + ["%s[%s]" % (t, k), "%s[(%s + 1) %% n]" % (t, k)],
                       ints=c.ints + [k])
            out.append(S(self, "raw", "%s %s = 0;" % (ity, k), fixed=True))
            at = r.choice(["(%s * 3 + 1) %% n", "(%s + 2) %% n", "n - 1 - %s"]).replace("%s", k).replace("%%", "%")
            body = [S(self, "raw", "%s[%s] = #0.5 * %s[%s] + tanh({0});" % (t, at, t, k), [self.expr(kc, 2)]),
                    S(self, "raw", "%s++;" % k, fixed=True)]
            if form == "while":
                out.append(S(self, "for", "while (%s < n)" % k, body=body))
            else:
                out.append(S(self, "do", "%s < n" % k, body=body))
        if self.rsc.random() < 0.3:
            out += self.drawn_from(self.rsc, lambda cc: self.carried_scatter(cc, t, i), c)
        # read back (never dropped)
        rd = c.sub(reads=c.reads + ["%s[%s]" % (t, j), "%s[n - 1 - %s]" % (t, j)], ints=c.ints + [j])
        out.append(S(self, "raw", "@T %s = #0.0;" % v, fixed=True))
        out.append(S(self, "for", hdr % (j, j, j), fixed=True,
                     body=[S(self, "raw", "%s += #0.5 * %s[%s] + {0};" % (v, t, j), [self.expr(rd, 2)],
                             fixed=True)]))
        if alloc == "malloc":
            out.append(S(self, "raw", "free(%s);" % t, fixed=True))
        c.vars.append(v)
        fn.mutable.append(v)
        return out

    def carried_scatter(self, c, t, i):
        """After an update block's stages: maybe a recurrence (t[i] from
        t[i - 1], a loop carrying t), then a loop adding into t at an index
        other than its counter (a scatter), as DESIGN.md 8.61's shape,
        sometimes under a condition."""
        r = self.r
        fn = c.fn
        lc = c.sub(reads=c.reads + ["%s[%s]" % (a, i) for a in fn.arrays], ints=c.ints + [i])
        out = []
        if r.random() < 0.7:
            out.append(S(self, "for", "for (" + fn.ity + " %s = 1; %s < n; %s++)" % (i, i, i), fixed=True,
                         body=[S(self, "raw", "%s[%s] = #0.5 * %s[%s - 1] * tanh({0}) + %s[%s];"
                                 % (t, i, t, i, t, i), [self.expr(lc, 2)], fixed=True)]))
        ats = ["n - 1 - %s", "(%s * 3 + 1) %% n"] + (["idx[%s]"] if fn.has_idx else [])
        at = r.choice(ats).replace("%s", i).replace("%%", "%")
        scatter = S(self, "for", "for (" + fn.ity + " %s = 0; %s < n; %s++)" % (i, i, i), fixed=True,
                    body=[S(self, "raw", "%s[%s] += tanh({0});" % (t, at), [self.expr(lc, 2)], fixed=True)])
        if r.random() < 0.3:
            # under a condition: the scatter is a branch's (no kink: the
            # test is on n)
            cond = X(self, "n %% 2 == %d" % r.randint(0, 1), t="b")
            scatter = S(self, "if", exprs=[cond], body=[scatter], els=[], fixed=True)
        out.append(scatter)
        return out

    def out_call(self, c, g, t):
        """A call of g (a function with an output array) writing t, as a
        statement (never dropped, its node never replaced: t must stay
        written)."""
        r = self.r
        args, kids = [], []
        for p in g.params:
            kind, name = p[0], p[1]
            if kind == "arr":
                args.append(rows_arg(g, name, r.choice(c.fn.arrays)))
            elif kind == "idx":
                args.append("idx")
            elif kind == "cst":
                args.append("#0.75")
            elif kind == "dat":
                args.append(self.dat_arg(c.fn))
            elif kind == "out":
                args.append(t)
            elif kind == "n":
                args.append("n")
            elif kind == "int":
                args.append(str(r.randint(0, 3)))
            else:
                args.append("{%d}" % len(kids))
                kids.append(self.expr(c, 1))
        c.fn.need = max(c.fn.need, g.need)
        call = X(self, "$CALL%s(%s)" % (g.name, ", ".join(args)), kids, t="call")
        return S(self, "raw", "{0};", [call], fixed=True)

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
        for sp in fn.sparams:
            # one leaf the body reads, if any (written ones are used anyway)
            for path, kind, info in sp.st.leaves():
                if path not in sp.outs:
                    items.append({"f": "%s%s", "i": "(@T)%s%s"}.get(kind, "%s%s[0]") % (sp.acc, path))
                    break
        for nm, st in fn.slocals:
            items.append("%s.%s" % (nm, [p for p, kind, _ in st.leaves() if kind == "f"][0]))
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

    # -- structs (all decisions from self.rst) -------------------------------
    def new_stype(self, T, ptr_ok=True, int_ok=True, nest_ok=True):
        rst = self.rst
        fields = [("f", "f%d" % q, None) for q in range(rst.randint(1, 3))]
        if int_ok and rst.random() < 0.4:
            fields.append(("i", "m0", rst.choice(SINT if int_ok is True else SINT_SMALL)))
        if rst.random() < 0.5:
            fields.append(("a", "v0", rst.randint(2, 3)))
        if nest_ok and rst.random() < 0.35:
            inner = [st for st in self.stypes if st.T == T and not st.has_ptr and not st.nested and
                     (int_ok or not st.has_int) and (int_ok is True or not st.has_wide_int)]
            if inner and rst.random() < 0.5:
                fields.append(("n", "in0", rst.choice(inner)))
            else:
                fields.append(("n", "in0", self.new_stype(T, False, int_ok, False)))
        if ptr_ok and rst.random() < 0.4:
            fields.append(("p", "q0", (rst.random() < 0.6, "nq0", rst.randint(1, 3))))
            fields.append(("i", "nq0", rst.choice(SLEN)))
        rst.shuffle(fields)
        st = SType(len(self.stypes), T, rst.choice(["named", "named", "typedef", "anon"]), fields,
                   rst.random() < 0.5)
        self.stypes.append(st)
        return st

    def pick_stype(self, T, ptr_ok=True, int_ok=True):
        rst = self.rst
        cands = [st for st in self.stypes if st.T == T and (ptr_ok or not st.has_ptr) and
                 (int_ok or not st.has_int) and (int_ok is True or not st.has_wide_int)]
        if cands and rst.random() < 0.6:
            return rst.choice(cands)
        return self.new_stype(T, ptr_ok, int_ok)

    def struct_params(self, fn):
        """Struct parameters of fn, inserted among the others."""
        rst = self.rst
        # mostly, the struct types an earlier function takes, so
        # that this one can call it passing its own structs
        plan = []
        callees = [g for g in self.funcs if g.T == fn.T and g.sparams and not g.souts and
                   all(sp.mode != "arr" for sp in g.sparams) and
                   g.sret is None and g.out is None and
                   (not g.arrays or (fn.arrays and (not g.has_idx or fn.has_idx)))]
        if callees and rst.random() < 0.85:
            plan = list(rst.choice(callees).sparams)
        for q in range(max(len(plan), rst.choice([0, 1, 1, 2, 2, 3]))):
            mode = rst.choice(["val", "val", "cptr", "cptr", "ptr"])
            # a struct to pass on to a callee's CHAD_INACTIVE one is marked too
            inactive = plan[q].inactive if q < len(plan) else (
                mode != "ptr" and self.rin.random() < 0.2)
            if q < len(plan):
                plan[q] = plan[q].st
            st = plan[q] if q < len(plan) else self.pick_stype(fn.T)
            name = ("st%d" if mode == "val" else "sp%d") % q
            if mode == "val":
                acc = name + "."
            else:
                acc = rst.choice([name + "->"] * 3 + ["(*%s)." % name])
            lens = st.lengths()
            outs, ivals = set(), {}
            for path, kind, info in st.leaves():
                if (q < len(plan) or inactive) and kind != "i":
                    pass  # a struct to pass on, or data: nothing written
                elif kind in ("f", "a") and mode == "ptr" and rst.random() < 0.5:
                    outs.add(path)
                elif kind == "p" and not info[0] and rst.random() < 0.5:
                    outs.add(path)
                elif kind == "i":
                    ivals[path] = lens.get(path, rst.randint(0, 3))
            sp = SParam(name, st, mode, rst.choice(st.spells), acc, outs, ivals)
            sp.inactive = inactive
            if (q >= len(plan) and not inactive and mode != "val" and not st.has_ptr and not outs and
                    self.rsa.random() < 0.3):
                # an array of structs, read only (DESIGN.md 8.30)
                sp.mode, sp.alen = "arr", self.rsa.randint(1, 3)
                sp.acc = self.rsa.choice([name + "->", name + "[0].", "(*%s)." % name])
                mode = "arr"
                if self.rwa.random() < 0.4:
                    # floating fields of every struct updated in place at
                    # the end (struct_outputs): in-out, DESIGN.md 1
                    for path, kind, info in st.leaves():
                        if kind == "f" and self.rwa.random() < 0.6:
                            sp.inouts.add(path)
            if mode == "ptr" and q >= len(plan) and not inactive:
                for path, kind, info in st.leaves():
                    if kind == "f" and path not in outs and self.rsi.random() < 0.3:
                        sp.inouts.add(path)
            fn.sparams.append(sp)
            fn.params.insert(rst.randint(0, len(fn.params)), ("s" + mode, name, sp))
        fn.souts = any(sp.outs or sp.inouts for sp in fn.sparams)

    def sreads(self, st, acc, outs=()):
        """Reads of the leaves of a struct value (C text) and its integers."""
        reads, ints = [], []
        for path, kind, info in st.leaves():
            if path in outs:
                continue
            if kind == "f":
                reads.append(acc + path)
            elif kind == "i":
                ints.append(acc + path)
            elif kind == "a":
                reads += ["%s%s[%d]" % (acc, path, k) for k in range(info)]
            elif kind == "p":
                reads += ["%s%s[%d]" % (acc, path, k) for k in range(info[2])]
                if self.rst.random() < 0.3:
                    reads.append("*%s%s" % (acc, path))
        return reads, ints

    def struct_values(self, fn, st, writable=False, inactive=False):
        """Struct values of type st the body may pass: (value, address);
        writable: only those whose address is not a pointer to const;
        inactive: True for a callee's CHAD_INACTIVE parameter (only the
        parameters marked so), False for an active one (not those), None
        for a copy (any)."""
        out = []

        def add(v, a, t, acc):
            if t is st:
                out.append((v, a))
            for k, nm, info in t.fields:
                if k == "n":
                    add(acc + nm, "&" + acc + nm, info, acc + nm + ".")

        for sp in fn.sparams:
            if sp.outs or sp.inouts or (writable and sp.mode == "cptr") or sp.mode == "arr":
                continue
            if inactive is not None and sp.inactive != inactive:
                continue
            if sp.mode == "val":
                add(sp.name, "&" + sp.name, sp.st, sp.acc)
            else:
                add("*" + sp.name, sp.name, sp.st, sp.acc)
        if inactive:
            return out
        for nm, t in fn.slocals:
            add(nm, "&" + nm, t, nm + ".")
        return out

    def dat_arg(self, fn):
        """What a call passes for a callee's CHAD_INACTIVE array (four
        elements read): the caller's own, or a file-scope const table, whole
        or at a view (its own stream)."""
        if fn.dat and self.rdt.random() < 0.6:
            return "dat"
        if fn.T == "float":
            return "gen_datf"
        k = self.rdt.randint(0, 4)
        return self.rdt.choice(["gen_dat", "gen_tab + %d" % k, "&gen_tab[%d]" % k,
                                "(const double *)gen_tab2 + %d" % (k % 3)])

    def callee_ok(self, fn, g):
        """g takes no struct, or only structs fn has (not written ones)."""
        if g.sret is not None or g.souts or any(sp.mode == "arr" for sp in g.sparams):
            return False
        return all(self.struct_values(fn, sp.st, sp.mode == "ptr", sp.inactive)
                   for sp in g.sparams)

    def struct_local(self, c):
        """A local struct: an initializer list (designated or not), a copy of
        another struct, a declaration then a whole assignment, or a
        declaration then every field assigned. A type with a pointer field
        (DESIGN.md 8.28) is copied (the copy reads the same data) or has
        its fields assigned, the pointer a local array's start."""
        rst = self.rst
        fn = c.fn
        fn.nvar += 1
        nm = "sl%d" % fn.nvar
        st = self.pick_stype(fn.T, ptr_ok=self.rlp.random() < 0.35)
        spell = rst.choice(st.spells)
        # (a copy of a marked struct with a pointer field points into data
        # with no adjoint: a callee's unmarked parameter cannot take it)
        srcs = self.struct_values(fn, st, inactive=False if st.has_ptr else None)
        if st.has_ptr:
            form = self.rlp.choice(["copy", "assign", "fields"] if srcs else ["fields"])
        else:
            form = rst.choice(["init", "desig", "copy", "assign", "fields"] if srcs else
                              ["init", "desig", "fields"])
        out = []
        backing = {}
        if not st.has_ptr and self.rlp.random() < 0.2:
            # issue 8: a local array of structs, every field of every
            # element assigned; each element is then a struct local
            # (read, copied, passed by value or by address)
            k = self.rlp.choice([2, 3])
            if self.rwa.random() < 0.5:
                # with an initializer, the last struct sometimes left to C's
                # zero
                kids = []
                given = k - (self.rwa.random() < 0.4)
                items = [self.init_list(c, st, kids, self.rwa.random() < 0.5) for _ in range(given)]
                out.append(S(self, "raw", "%s %s[%d] = {{%s}};" % (spell, nm, k, ", ".join(items)),
                             kids, fixed=True))
            else:
                # fixed, variable-length (its length a variable never
                # written), or from malloc / calloc (freed before the
                # function's last return)
                form = self.rsh.choice(["fixed", "fixed", "vla", "malloc", "calloc"])
                if form == "vla":
                    out.append(S(self, "raw", "int %s_n = %d;" % (nm, k), fixed=True))
                    out.append(S(self, "raw", "%s %s[%s_n];" % (spell, nm, nm), fixed=True))
                elif form == "malloc":
                    out.append(S(self, "raw", "%s *%s = malloc(%d * sizeof *%s);" % (spell, nm, k, nm),
                                 fixed=True))
                elif form == "calloc":
                    out.append(S(self, "raw", "%s *%s = calloc(%d, sizeof(%s));" % (spell, nm, k, spell),
                                 fixed=True))
                else:
                    out.append(S(self, "raw", "%s %s[%d];" % (spell, nm, k), fixed=True))
                if form in ("malloc", "calloc"):
                    fn.frees.append(nm)
                    self.scratch_used = True  # <stdlib.h>
                for e in range(k):
                    out += self.assign_fields(c, st, "%s[%d]." % (nm, e))
            for e in range(k):
                self.add_local(c, "%s[%d]" % (nm, e), st)
            return out
        if form == "fields":
            for path, kind, info in st.leaves():
                if kind == "p":  # the data the pointer field will point to
                    fn.nvar += 1
                    b = backing[path] = "sb%d" % fn.nvar
                    out.append(S(self, "raw", "@T %s[%d];" % (b, info[2]), fixed=True))
                    for k in range(info[2]):
                        out.append(S(self, "raw", "%s[%d] = {0};" % (b, k), [self.expr(c, 2)],
                                     fixed=True))
        if form in ("init", "desig"):
            kids = []
            fmt = self.init_list(c, st, kids, form == "desig")
            out.append(S(self, "raw", "%s %s = %s;" % (spell, nm, fmt), kids))
        elif form == "copy":
            out.append(S(self, "raw", "%s %s = %s;" % (spell, nm, rst.choice(srcs)[0])))
        elif form == "assign":
            out.append(S(self, "raw", "%s %s;" % (spell, nm)))
            out.append(S(self, "raw", "%s = %s;" % (nm, rst.choice(srcs)[0]), fixed=True))
        else:
            out.append(S(self, "raw", "%s %s;" % (spell, nm)))
            out += self.assign_fields(c, st, nm + ".", backing)
        self.add_local(c, nm, st)
        return out

    def add_local(self, c, nm, st):
        fn = c.fn
        reads, ints = self.sreads(st, nm + ".")
        c.reads += reads
        c.ints += ints
        fn.mutable += [nm + "." + path for path, kind, _ in st.leaves() if kind == "f"]
        fn.slocals.append((nm, st))

    def assign_fields(self, c, st, acc, backing=None):
        """Every leaf of a struct assigned, in field order (never dropped:
        a field is written before it is read); a pointer field the array
        backing names for it, its length field that array's length."""
        out = []
        lens = st.lengths()
        for path, kind, info in st.leaves():
            if kind == "f":
                out.append(S(self, "raw", "%s%s = {0};" % (acc, path), [self.expr(c, 2)], fixed=True))
            elif kind == "p":
                out.append(S(self, "raw", "%s%s = %s;" % (acc, path, backing[path]), fixed=True))
            elif kind == "i":
                v = lens[path] if path in lens else self.rst.randint(0, 3)
                out.append(S(self, "raw", "%s%s = %d;" % (acc, path, v), fixed=True))
            elif kind == "a":
                for k in range(info):
                    out.append(S(self, "raw", "%s%s[%d] = {0};" % (acc, path, k), [self.expr(c, 2)],
                                 fixed=True))
        return out

    def init_list(self, c, st, kids, desig):
        """An initializer for every field of st (C braces doubled for
        str.format), expressions appended to kids."""
        rst = self.rst
        items = []
        for kind, nm, info in st.fields:
            if kind == "f":
                v = "{%d}" % len(kids)
                kids.append(self.expr(c, 1))
            elif kind == "i":
                v = str(rst.randint(0, 3))
            elif kind == "a":
                vs = []
                for _ in range(info):
                    vs.append("{%d}" % len(kids))
                    kids.append(self.expr(c, 1))
                v = "{{" + ", ".join(vs) + "}}"
            elif kind == "n":
                v = self.init_list(c, info, kids, desig and rst.random() < 0.5)
            else:
                raise AssertionError("a local struct has no pointer field")
            items.append(".%s = %s" % (nm, v) if desig else v)
        if desig:
            rst.shuffle(items)
        return "{{" + ", ".join(items) + "}}"

    def struct_loop(self, c):
        """A loop over an array field, over the data of a pointer field up
        to its length field, or up to an integer field (ADBench's Wishart
        m): a sum or a contracting fold."""
        rst = self.rst
        fn = c.fn
        cands = []
        for sp in fn.sparams:
            lens = sp.st.lengths()
            for path, kind, info in sp.st.leaves():
                if (kind in ("a", "p") or (kind == "i" and path not in lens)) and path not in sp.outs:
                    cands.append((sp.acc, path, kind, info, sp.st))
        for nm, st in fn.slocals:
            for path, kind, info in st.leaves():
                if kind == "a":
                    cands.append((nm + ".", path, kind, info, st))
        if not cands:
            return []
        acc, path, kind, info, st = rst.choice(cands)
        fn.nvar += 1
        k = "c%d" % fn.nvar
        reads = ["%s%s[%s]" % (acc, path, k)] * 2
        if kind == "a":
            hdr = "for (int %s = 0; %s < %d; %s++)" % (k, k, info, k)
        elif kind == "i":
            # the counter has the field's type (char: promoted, never a
            # subscript)
            hdr = "for (%s %s = 0; %s < %s%s; %s++)" % (info, k, k, acc, path, k)
            reads = ["((@T)%s * #0.5)" % k]
        else:
            lty = [i for kd, nm, i in st.fields if nm == info[1]][0]
            hdr = "for (%s %s = 0; %s < %s%s; %s++)" % (lty, k, k, acc, info[1], k)
        lc = c.sub(reads=c.reads + reads, ints=c.ints + [k])
        v = self.newvar(fn)
        if rst.random() < 0.3:
            # a struct local of the loop body, made from the iteration's
            # values, one field updated, read by the sum
            st2 = self.pick_stype(fn.T, ptr_ok=False)
            fn.nvar += 1
            u = "sb%d" % fn.nvar
            kids = []
            fmt = self.init_list(lc, st2, kids, rst.random() < 0.3)
            body = [S(self, "raw", "%s %s = %s;" % (rst.choice(st2.spells), u, fmt), kids)]
            rd, it = self.sreads(st2, u + ".")
            lc = lc.sub(reads=lc.reads + rd, ints=lc.ints + it)
            f = rst.choice([p for p, kd, _ in st2.leaves() if kd == "f"])
            body.append(S(self, "raw", "%s.%s *= #1.0 + #0.25 * tanh({0});" % (u, f), [self.expr(lc, 1)]))
            body.append(S(self, "raw", "%s += {0};" % v, [self.expr(lc, 2)]))
            out = [S(self, "raw", "@T %s = #0.0;" % v), S(self, "for", hdr, body=body)]
        elif rst.random() < 0.6:
            out = [S(self, "raw", "@T %s = #0.0;" % v),
                   S(self, "for", hdr, body=[S(self, "raw", "%s += {0};" % v, [self.expr(lc, 2)])])]
        else:
            out = [S(self, "raw", "@T %s = {0};" % v, [self.expr(c, 1)]),
                   S(self, "for", hdr,
                     body=[S(self, "raw", "%s = #0.5 * %s + tanh({0});" % (v, v), [self.expr(lc, 2)])])]
        c.vars.append(v)
        fn.mutable.append(v)
        return out

    def struct_stmts(self, c):
        """Statements over structs at the top level of a body."""
        rst = self.rst
        fn = c.fn
        p = rst.random()
        scallees = [g for g in fn.callees if g.sparams]
        if getattr(fn, "rcallees", None) and rst.random() < 0.6:
            # a local struct made by a call: initialised, or assigned whole
            g = rst.choice(fn.rcallees)
            e = self.call(c, 2, g)
            fl = [path for path, kind, _ in g.sret.leaves() if kind in "fap"]
            if fl and rst.random() < 0.5:
                # a field of the result read inside an expression, `g(..).x`
                # (or an element of an array field): the call runs into a
                # temporary before the statement (structs.cpp, hoistCall)
                path = rst.choice(fl)
                kind, info = next((k, i) for pt, k, i in g.sret.leaves() if pt == path)
                if kind == "a":
                    path += "[%d]" % rst.randrange(info)
                if kind == "p":  # an element of a view (DESIGN.md 8.46)
                    path += "[%d]" % rst.randrange(info[2])
                rhs = self.expr(c, 2)  # before v exists: it may not read v
                v = self.newvar(fn)
                c.vars.append(v)
                fn.mutable.append(v)
                return [S(self, "raw", "@T %s = {0}.%s * {1};" % (v, path), [e, rhs])]
            fn.nvar += 1
            nm = "sl%d" % fn.nvar
            spell = rst.choice(g.sret.spells)
            if rst.random() < 0.5:
                out = [S(self, "raw", "%s %s = {0};" % (spell, nm), [e])]
            else:
                out = [S(self, "raw", "%s %s;" % (spell, nm)),
                       S(self, "raw", "%s = {0};" % nm, [e], fixed=True)]
            self.add_local(c, nm, g.sret)
            return out
        if scallees and rst.random() < 0.3:
            # a call passing structs, as a statement of its own
            v = self.newvar(fn)
            e = self.call(c, 2, rst.choice(scallees))
            c.vars.append(v)
            fn.mutable.append(v)
            return [S(self, "raw", "@T %s = {0};" % v, [e])]
        if p < 0.4 or not (fn.sparams or fn.slocals):
            return self.struct_local(c)
        if p < 0.75:
            out = self.struct_loop(c)
            if out:
                return out
        if fn.slocals and p < 0.9:
            nm, st = rst.choice(fn.slocals)
            arrs = [(path, info) for path, kind, info in st.leaves() if kind == "a"]
            if arrs and rst.random() < 0.6:
                # an element of a local's array field rewritten
                path, size = rst.choice(arrs)
                return [S(self, "raw", "%s.%s[%d] = {0};" % (nm, path, rst.randrange(size)),
                          [self.expr(c, 2)])]
            srcs = [v for v, _ in self.struct_values(fn, st, inactive=None) if v != nm]
            # not a struct with a pointer field: reassigned, the pointer
            # points into one of two arrays, which a callee that passes it
            # on to another cannot take (a located error, lower_extents.cpp's
            # choiceArgument; gen seed 40160)
            if srcs and not st.has_ptr:
                return [S(self, "raw", "%s = %s;" % (nm, rst.choice(srcs)))]
        return self.struct_local(c)

    def struct_outputs(self, c):
        """The leaves written through pointers, each once, at the end
        (never dropped); a written leaf may be read by the later ones."""
        fn = c.fn
        out = []
        reads = list(c.reads)
        for sp in fn.sparams:
            if sp.mode == "arr":
                if sp.inouts:
                    out.append(self.sarr_updates(c, sp, reads))
                continue
            for path, kind, info in sp.st.leaves():
                if path in sp.inouts:  # read, then written: in-out
                    lc = c.sub(reads=reads)
                    out.append(S(self, "raw", "%s%s = #0.5 * %s%s + {0} + #0.1 * tanh({1});"
                                 % (sp.acc, path, sp.acc, path), [self.expr(lc, 2), self.use_all(c)],
                                 fixed=True))
                    continue
                if path not in sp.outs:
                    continue
                lc = c.sub(reads=reads)
                if kind == "f":
                    w = "%s%s = {0} + #0.1 * tanh({1});" % (sp.acc, path)
                    if fn.kinks < fn.max_kinks and self.rst.random() < 0.25:
                        # written in both branches of an if
                        out.append(S(self, "if", exprs=[self.cond(lc, 1)], fixed=True,
                                     body=[S(self, "raw", w, [self.expr(lc, 2), self.use_all(c)],
                                             fixed=True)],
                                     els=[S(self, "raw", w, [self.expr(lc, 1), self.use_all(c)],
                                            fixed=True)]))
                    else:
                        out.append(S(self, "raw", w, [self.expr(lc, 2), self.use_all(c)], fixed=True))
                    reads.append(sp.acc + path)
                    continue
                if kind == "p" and info[2] == 1 and self.rst.random() < 0.5:
                    # the one element through *p->q
                    out.append(S(self, "raw", "*%s%s = {0} + #0.1 * tanh({1});" % (sp.acc, path),
                                 [self.expr(lc, 2), self.use_all(c)], fixed=True))
                    continue
                fn.nvar += 1
                k = "c%d" % fn.nvar
                if kind == "a":
                    hdr = "for (int %s = 0; %s < %d; %s++)" % (k, k, info, k)
                else:
                    lty = [i for kd, nm, i in sp.st.fields if nm == info[1]][0]
                    hdr = "for (%s %s = 0; %s < %s%s; %s++)" % (lty, k, k, sp.acc, info[1], k)
                lc = c.sub(reads=reads + ["(@T)%s" % k], ints=c.ints + [k])
                out.append(S(self, "for", hdr, fixed=True,
                             body=[S(self, "raw", "%s%s[%s] = {0} + #0.1 * tanh({1});" % (sp.acc, path, k),
                                     [self.expr(lc, 2), self.use_all(c)], fixed=True)]))
        return out

    def sarr_updates(self, c, sp, reads):
        """The in-out fields of an array of structs updated in place, in a
        loop over its structs; two of them sometimes by one chained
        assignment (`p[k].a = p[k].b = ...`: a's initial value unread)."""
        fn = c.fn
        fn.nvar += 1
        k = "c%d" % fn.nvar
        paths = [path for path, kind, _ in sp.st.leaves() if path in sp.inouts]
        lc = c.sub(reads=reads + ["(@T)%s" % k], ints=c.ints + [k])
        body = []
        if len(paths) >= 2 and self.rwa.random() < 0.5:
            a, b = paths[0], paths[1]
            body.append(S(self, "raw", "%s[%s].%s = %s[%s].%s = #0.5 * %s[%s].%s + {0} + #0.1 * tanh({1});"
                          % (sp.name, k, a, sp.name, k, b, sp.name, k, b),
                          [self.expr(lc, 2), self.use_all(c)], fixed=True))
            paths = paths[2:]
        for path in paths:
            op = self.rwa.choice(["= #0.5 * %s[%s].%s +" % (sp.name, k, path), "+=", "*= #0.5 +"])
            rhs = "{0} + #0.1 * tanh({1})"
            if op.startswith("*="):
                rhs = "#0.1 * tanh({0} + {1})"
            body.append(S(self, "raw", "%s[%s].%s %s %s;" % (sp.name, k, path, op, rhs),
                          [self.expr(lc, 2), self.use_all(c)], fixed=True))
        return S(self, "for", "for (int %s = 0; %s < %d; %s++)" % (k, k, sp.alen, k), fixed=True,
                 body=body)

    def struct_return(self, c):
        """The end of a function that returns a struct: a local, a struct
        parameter by value or an initializer list returned."""
        rst = self.rst
        fn = c.fn
        st = fn.sret
        srcs = [nm for nm, t in fn.slocals if t is st]
        # (a parameter's array field may not be written: a write into the
        # copy, which the plugin refuses)
        srcs += [sp.name for sp in fn.sparams if sp.mode == "val" and sp.st is st and
                 not sp.inactive and not any(kind == "a" for _, kind, _ in st.leaves())]
        out = []
        if fn.sret_views:
            # its pointer fields views of an array parameter (DESIGN.md
            # 8.46): every field assigned, a pointer `x + k` or `&x[k]`
            backing = {}
            for path, (a, k) in fn.sret_views.items():
                info = next(i for pt, kd, i in st.leaves() if pt == path)
                v = self.rvw.choice(["%s + %d" % (a, k), "&%s[%d]" % (a, k)] +
                                    ([a] if k == 0 else []))
                backing[path] = v if info[0] else "(@T *)(%s)" % v
            fn.nvar += 1
            nm = "sr%d" % fn.nvar
            out.append(S(self, "raw", "%s %s;" % (rst.choice(st.spells), nm), fixed=True))
            out += self.assign_fields(c, st, nm + ".", backing)
        elif srcs and rst.random() < 0.5:
            nm = rst.choice(srcs)
        else:
            fn.nvar += 1
            nm = "sr%d" % fn.nvar
            spell = rst.choice(st.spells)
            if rst.random() < 0.6:
                kids = []
                fmt = self.init_list(c, st, kids, rst.random() < 0.3)
                out.append(S(self, "raw", "%s %s = %s;" % (spell, nm, fmt), kids, fixed=True))
            else:
                out.append(S(self, "raw", "%s %s;" % (spell, nm), fixed=True))
                out += self.assign_fields(c, st, nm + ".")
        # every returned leaf depends on the inputs, as every element of an
        # output array does (output_stmts): an output the inputs do not
        # reach (`q[i] = 0.5` into `double *q`, or a returned struct's
        # constant field) is refused with an internal error in f_fwd (its
        # zero tangent is materialised as a scalar), a known plugin bug
        # not in lowering/structs.cpp
        v = self.newvar(fn)
        out.append(S(self, "raw", "@T %s = tanh({0});" % v, [self.use_all(c)], fixed=True))
        for path, kind, info in st.leaves():
            if kind in ("i", "p"):  # an integer field: exact, no tangent; a view
                continue
            for lv in ([path] if kind == "f" else ["%s[%d]" % (path, k) for k in range(info)]):
                out.append(S(self, "raw", "%s.%s = #0.5 * %s.%s + #0.1 * %s;" % (nm, lv, nm, lv, v),
                             fixed=True))
        out.append(S(self, "raw", "return %s;" % nm, fixed=True))
        return out

    # -- functions -----------------------------------------------------------
    def function(self, k, T, n):
        r = self.r
        fn = Func()
        fn.id = self.newid()
        fn.name = "f%d" % k
        fn.cq_draw = self.rcq.random()  # which parameters are `const` (signature)
        fn.T = T
        fn.n = n
        fn.idx_type = self.idx_type
        fn.nvar = 0
        fn.frees = []  # arrays of structs from the heap, freed before the return
        fn.kinks = 0
        fn.max_kinks = r.choice([0, 1, 2, 3]) if T == "double" else r.choice([0, 0, 1])
        fn.callees = [g for g in self.funcs if g.T == T and g.out is None and (not g.arrays or True)]
        fn.kind = "array" if r.random() < 0.55 else "scalar"
        fn.params = []
        fn.arrays, fn.scalars, fn.has_idx, fn.out, fn.out_written = [], [], False, None, False
        fn.intparam = None
        fn.allocs = False
        fn.need = 2  # array elements its body reads at constant indices (x[1])
        fn.sparams, fn.slocals, fn.souts, fn.sret = [], [], False, None
        fn.sret_views = {}
        fn.inout = None
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
        # issue 8: an array parameter declared as rows of C elements
        # (`const T a_r[][C]`, DESIGN.md 8.41), which the body names flat
        # as `a` from its first line; callers and the harness cast to rows
        fn.rows = {}
        for a in fn.arrays:
            if self.rrw.random() < 0.15:
                fn.rows[a] = (self.rrw.choice([1, 2, 3, 4]),
                              self.rrw.choice(["%s_r[0]", "&%s_r[0][0]", "(const $T *)%s_r",
                                               "*%s_r", "(const $T *)(%s_r + 0)"]))
        if fn.has_idx:
            fn.params.append(("idx", "idx"))
        if fn.out:
            fn.params.append(("out", fn.out))
        if fn.arrays:
            fn.params.append(("n", "n"))
        for s in fn.scalars:
            fn.params.append(("scal", s))
        # issue 8: a CHAD_INACTIVE scalar (data: no shadow); the harness and
        # callers pass a constant
        fn.cst = self.rv.random() < 0.15
        if fn.cst:
            fn.params.append(("cst", "c0"))
        # issue 8: a CHAD_INACTIVE array (data such as GMM's points: no
        # shadow); the harness and callers without one pass gen_dat
        fn.dat = self.rdt.random() < 0.15
        if fn.dat:
            fn.params.insert(self.rdt.randint(0, len(fn.params)), ("dat", "dat"))
        if fn.intparam:
            fn.params.insert(r.randint(0, len(fn.params)), ("int", fn.intparam[0]))
        # structs: parameters, a struct result, locals (their own stream)
        passers = [g for g in self.funcs if g.T == T and g.sparams and not g.souts and
                   g.sret is None and all(sp.mode != "arr" for sp in g.sparams)]
        fn.structy = self.rst.random() < (0.7 if passers else 0.45)
        if fn.structy:
            self.struct_params(fn)
            if self.rst.random() < 0.25:
                # integer fields too, of at most 32 bits (8.30)
                int_ok = "small" if self.rsa.random() < 0.5 else False
                if int_ok and self.rwa.random() < 0.4:
                    int_ok = True  # 64-bit fields too, as two doubles each
                # a pointer field: a view of a plain array parameter
                # (not rows), at an offset where its length fits
                bases = [a for a in fn.arrays if a not in fn.rows]
                views = bool(bases and self.rvw.random() < 0.4)
                if views:
                    int_ok = int_ok or "small"  # (a pointer field has its length)
                fn.sret = self.pick_stype(T, ptr_ok=views, int_ok=int_ok)
                for _ in range(4 if views else 0):
                    if fn.sret.has_ptr:
                        break
                    fn.sret = self.pick_stype(T, ptr_ok=True, int_ok=int_ok)
                fn.sret_views = {}
                if any(kind == "p" and info[2] > n for _, kind, info in fn.sret.leaves()):
                    fn.sret = self.pick_stype(T, ptr_ok=False, int_ok=int_ok)
                for path, kind, info in fn.sret.leaves():
                    if kind == "p":
                        fn.sret_views[path] = (self.rvw.choice(bases),
                                               self.rvw.randint(0, n - info[2]))
                fn.sret_spell = self.rst.choice(fn.sret.spells)
        # (not with struct parameters or a struct result: the function is
        # then flattened, and reverse mode refuses an in-out field, a
        # located error, DESIGN.md 8.7)
        if fn.kind == "array" and not fn.sparams and fn.sret is None and self.ru.random() < 0.3:
            # an in-out array parameter (DESIGN.md 8.7): read, then updated
            fn.inout = "p"
            fn.params.insert(self.ru.randint(0, len(fn.params)), ("inout", fn.inout))
        # callees: those without output or in-out arrays; array callees only
        # from array functions (they pass whole arrays), idx only if we have
        # it; struct callees only with the structs they take, not returning one;
        # a callee with an inactive array gets ours, or a file-scope table
        fn.callees = [g for g in self.funcs if g.T == T and g.out is None and g.inout is None and
                      (not g.arrays or (fn.arrays and (not g.has_idx or fn.has_idx))) and
                      self.callee_ok(fn, g)]
        # callees returning a struct (their result initialises or is
        # assigned to a local struct, whose fields are then read)
        fn.rcallees = [g for g in self.funcs if g.T == T and g.sret is not None and
                       not g.souts and g.out is None and g.inout is None and
                       (not g.arrays or (fn.arrays and (not g.has_idx or fn.has_idx))) and
                       all(sp.mode != "arr" and
                           self.struct_values(fn, sp.st, sp.mode == "ptr", sp.inactive)
                           for sp in g.sparams)]
        fn.ret = fn.out is None or r.random() < 0.6
        if fn.inout and fn.out is None and not fn.souts and self.ru.random() < 0.3:
            fn.ret = False  # the in-out array is the only output
        if fn.sret is not None:
            fn.ret = False
        elif fn.souts and fn.out is None and self.rst.random() < 0.3:
            fn.ret = False  # the struct's written fields are the only outputs
        fn.mutable = list(fn.scalars)
        ints = [fn.intparam[0]] if fn.intparam else []
        reads = ["%s[%d]" % (a, q) for a in fn.arrays for q in range(min(n, 2))]
        if fn.arrays and self.rv.random() < 0.3:
            # views: *a is a[0], *(a + n - 1) the last element
            reads += ["*%s" % fn.arrays[0], "*(%s + n - 1)" % fn.arrays[-1]]
        sarr_decls = []
        for sp in fn.sparams:
            rd, it = self.sreads(sp.st, sp.acc, sp.outs)
            reads += rd
            ints += it
            if sp.mode != "arr" and self.rsa.random() < 0.2:
                # a local pointer to the struct, read through (8.30)
                q = sp.name + "_a"
                sarr_decls.append("const %s *%s = %s%s;" % (sp.spell, q,
                                  "&" if sp.mode == "val" else "", sp.name))
                sarr_decls.append("(void)%s;" % q)
                rd, it = self.sreads(sp.st, q + "->", sp.outs)
                reads += rd
                ints += it
            for e in range(1, getattr(sp, "alen", 1)):
                # the other structs of an array of structs, indexed, at an
                # offset, or through a local pointer to the struct
                form = self.rsa.choice(["idx", "plus", "local"])
                if form == "local":
                    q = "%s_e%d" % (sp.name, e)
                    sarr_decls.append("const %s *%s = &%s[%d];" % (sp.spell, q, sp.name, e))
                    sarr_decls.append("(void)%s;" % q)
                    acc = q + "->"
                else:
                    acc = ("%s[%d]." if form == "idx" else "(%s + %d)->") % (sp.name, e)
                rd, it = self.sreads(sp.st, acc)
                reads += rd
                ints += it
            if sp.mode == "val" and not sp.inactive:
                # a struct passed by value is a copy: its floating fields
                # may be assigned
                fn.mutable += [sp.acc + path for path, kind, _ in sp.st.leaves() if kind == "f"]
        if fn.cst:
            reads.append("c0")
        if fn.dat:
            reads += ["dat[0]", "dat[%d]" % self.rdt.randint(1, 3)]
        c = Ctx(fn, fn.scalars, reads, ints)
        body = [S(self, "raw", d, [], fixed=True) for d in sarr_decls]
        if fn.cst:  # read by some expression, or not at all
            body.append(S(self, "raw", "(void)c0;", [], fixed=True))
        if fn.dat:
            body.append(S(self, "raw", "(void)dat;", [], fixed=True))
        for sp in fn.sparams:
            if sp.mode == "arr" and self.rsa.random() < 0.5:
                # a pointer walked through the array of structs (8.30)
                f = [path for path, kind, _ in sp.st.leaves() if kind == "f"][0]
                v = self.newvar(fn)
                if self.rsa.random() < 0.5:
                    loop = ("for (const %s *w = %s; w < %s + %d; w++)" %
                            (sp.spell, sp.name, sp.name, sp.alen))
                else:
                    loop = ("for (const %s *w = %s + %d; w >= %s; w--)" %
                            (sp.spell, sp.name, sp.alen - 1, sp.name))
                body.append(S(self, "raw", "@T %s = #0.25; %s %s = %s * #0.5 + sin(w->%s);"
                              % (v, loop, v, v, f), [], fixed=True))
                c.vars.append(v)
        if not fn.scalars:
            v = self.newvar(fn)
            body.append(S(self, "raw", "@T %s = {0};" % v, [self.expr(c, 1)], fixed=False))
            c.vars.append(v)
            fn.mutable.append(v)
        if fn.structy and (self.rst.random() < 0.5 or not (fn.sparams or fn.sret)):
            body.extend(self.struct_stmts(c))
        nst = r.randint(1, 4)
        for _ in range(nst):
            if fn.arrays and r.random() < 0.55:
                body.extend(self.array_loop(c))
            else:
                body.extend(self.scalar_stmts(c, 1, fn.ret and fn.out is None and not fn.souts, False))
            if fn.structy and self.rst.random() < 0.5:
                body.extend(self.struct_stmts(c))
        if fn.inout or (fn.arrays and self.ru.random() < 0.4):
            body.extend(self.updates(c))
        if fn.arrays and self.rm.random() < 0.3:
            body.extend(self.scratch(c))
        if fn.arrays and self.rw.random() < 0.3:
            body.extend(self.walks(c))
        if fn.arrays and self.rbk.random() < 0.6 and any(g.arrays for g in fn.callees):
            body.extend(self.drawn_from(self.rbk, self.break_call, c))
        if fn.out:
            body.extend(self.output_stmts(c))
        if fn.souts:
            body.extend(self.struct_outputs(c))
        if fn.ret:
            tail = self.linear_sum(c, body) if fn.arrays and self.rls.random() < 0.3 else ""
            if fn.frees:
                # the heap's arrays of structs freed after the value is made
                fn.nvar += 1
                v = "rf%d" % fn.nvar
                body.append(S(self, "raw", "@T %s = {0} + #0.1 * tanh({1})%s;" % (v, tail),
                              [self.expr(c, 2), self.use_all(c)], fixed=True))
                body += [S(self, "raw", "free(%s);" % m, fixed=True) for m in fn.frees]
                body.append(S(self, "raw", "return %s;" % v, fixed=True))
            else:
                body.append(S(self, "raw", "return {0} + #0.1 * tanh({1})%s;" % tail,
                              [self.expr(c, 2), self.use_all(c)], fixed=True))
        elif fn.sret is not None:
            body.extend(self.struct_return(c))
        elif fn.inout and fn.out is None and not fn.souts:
            # the in-out array is the only output: it reads every variable
            body.append(S(self, "raw", "%s[n - 1] += #0.1 * tanh({0});" % fn.inout, [self.use_all(c)],
                          fixed=True))
        fn.body = body
        return fn

    def program(self):
        r = self.r
        self.std = r.choice(["c11"] * 6 + ["c99", "c17"])
        self.n = r.randint(2, 5)
        self.idx = [r.randrange(self.n) for _ in range(self.n)]
        self.idx_type = self.rix.choice(["int"] * 6 + ["unsigned", "long", "size_t", "short",
                                                       "unsigned char", "int64_t", "uint16_t",
                                                       "_Bool"])
        if self.idx_type == "_Bool":
            self.idx = [v % 2 for v in self.idx]
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
#include <fenv.h>
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
/* sin of a large value turns faster than finite differences resolve (sin
 * of lgamma of a square reached 1e11): such a point is as untestable as a kink */
static inline double gk_sin(double v) { if (fabs(v) > 1e4) gk_note(0); return sin(v); }
static inline double gk_cos(double v) { if (fabs(v) > 1e4) gk_note(0); return cos(v); }
static inline int gk_lt(double a, double b) { gk_note(a - b); return a < b; }
static inline int gk_gt(double a, double b) { gk_note(a - b); return a > b; }
static inline int gk_le(double a, double b) { gk_note(a - b); return a <= b; }
static inline int gk_ge(double a, double b) { gk_note(a - b); return a >= b; }
#define GK_USE ((void)gk_fabs, (void)gk_cbrt, (void)gk_floor, (void)gk_ceil, (void)gk_round, \
                (void)gk_trunc, (void)gk_fmin, (void)gk_fmax, (void)gk_hypot, (void)gk_atan2, \
                (void)gk_lt, (void)gk_gt, (void)gk_le, (void)gk_ge, (void)gk_fmod, \
                (void)gk_ftrunc, (void)gk_remainder, (void)gk_copysign, (void)gk_fdim, \
                (void)gk_sin, (void)gk_cos)
"""

CHECK = r"""
/* Whether finite differences have settled at x: central differences at
 * steps 1, 1/8 and 1/64 of the checker's second smallest step (in double
 * down to its smallest, 1/4096 of fd_step) agree within 10 %, along a
 * random direction and along each coordinate. Where a function turns
 * faster than those steps resolve, no finite difference can check a
 * derivative, right or wrong: seed 3300's float f1 takes cos of a value
 * that moves by 1e9 per unit of x, its differences at steps 1e-2 .. 1e-9
 * wander, and only steps of 1e-11 (in a double copy) agree with f_fwd and
 * f_rev. This looks at the plain f only, never at chad's derivatives. */
static int gen_fd_settled(const struct gca_problem *p, const double *x) {
    const struct gc_tol *t = &gc_tols[p->prec];
    double dir[GCA_MAX], y[GCA_MAX], d[3][GCA_MAX];
    double h = t->fd_step * (p->prec == GC_DOUBLE ? 1.0 / 64 : 1.0 / 8);
    int i, j, k, r;
    gca_eval(p, x, y);
    for (r = -1; r < p->nin; r++) {
        for (i = 0; i < p->nin; i++)
            dir[i] = r < 0 ? gca_round(p->prec, gc_rand() * fmax(fabs(x[i]), t->fd_floor))
                           : i == r ? fmax(fabs(x[i]), t->fd_floor) : 0;
        for (k = 0; k < 3; k++)
            gca_central(p, x, dir, -1, h / (k == 0 ? 1 : k == 1 ? 8 : 64), d[k]);
        for (j = 0; j < p->nout; j++)
            for (k = 1; k < 3; k++)
                if (!(fabs(d[k][j] - d[0][j]) <= 0.1 * fmax(fabs(d[k][j]), fabs(d[0][j])) +
                                                    100 * t->grad_atol * (1 + fabs(y[j]))))
                    return 0;
    }
    return 1;
}

/* Draws points until nkeep are found away from kinks (gk_min >= thr) with
 * finite moderate outputs where finite differences settle, and f
 * overflows nowhere, and checks those whose keep flag is set. Where a
 * value inside f overflows, f can still be finite (c / (1.5 + g * g) with
 * g = inf is 0) while every derivative through it is inf / inf: seed
 * 65511's float f1 squares an argument of 1.3e11 twice. Such a point has
 * no derivative to check, any more than a kink. */
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
        feclearexcept(FE_OVERFLOW);
        gca_eval(p, x, y);
        ok = !fetestexcept(FE_OVERFLOW);
        for (j = 0; j < p->nout; j++)
            if (!(fabs(y[j]) < 1e6))
                ok = 0;
        if (!ok || !gen_fd_settled(p, x))
            continue;
        if (keep[got])
            gca_check(p, 1, x);
        got++;
    }
    if (got < nkeep)
        printf("skip %s: %d of %d points\n", p->name, got, nkeep);
}
"""


def rows_arg(g, param, a, writable=False):
    """Array a as g's parameter takes it: cast to rows when g declares it so."""
    if param not in g.rows:
        return a
    return "(%s%s (*)[%d])(%s)" % ("" if writable else "const ", g.T, g.rows[param][0], a)


def const_param(fn, nm):
    """Is scalar parameter nm declared `const` (DESIGN.md 8.75: the struct
    wrappers gave its shadow the qualifier)? A draw per function
    (fn.cq_draw) and the name decide, so that the annotated function and
    its plain copy agree; about one function in three has some. (Bodies
    write the fields of struct parameters passed by value, so those stay
    unqualified; tests/e2e/struct_const_params.c has `const S p`.)"""
    draw = getattr(fn, "cq_draw", 1.0)
    return draw < 0.35 and (zlib.crc32(nm.encode()) + int(draw * 1000)) % 2 == 0


def written_params(fn, lines):
    """The scalar parameters a rendered body assigns, increments or takes
    the address of: they cannot be `const`."""
    text = "\n".join(lines)
    out = set()
    for p in fn.params:
        nm = p[1]
        if re.search(r"(?<![\w.>])%s\s*(=(?!=)|\+=|-=|\*=|/=|\+\+|--)|(\+\+|--|&)\s*%s\b"
                     % (nm, nm), text):
            out.add(nm)
    return out


def signature(fn, name, annotated, written=frozenset()):
    T = fn.T
    ps = []
    for p in fn.params:
        kind, nm = p[0], p[1]
        if kind in ("sval", "scptr", "sptr", "sarr"):
            ps.append(("CHAD_INACTIVE " if annotated and p[2].inactive else "") +
                      {"sval": "%s %s", "scptr": "const %s *%s", "sptr": "%s *%s",
                       "sarr": "%s *%s" if p[2].inouts else "const %s *%s"}[kind]
                      % (p[2].spell, nm))
        elif kind == "arr" and nm in fn.rows:
            ps.append("const %s %s_r[][%d]" % (T, nm, fn.rows[nm][0]))
        elif kind == "arr":
            ps.append("const %s *%s" % (T, nm))
        elif kind == "idx":
            ps.append("const %s *idx" % fn.idx_type)
        elif kind == "cst":
            ps.append("%s%s %s" % ("CHAD_INACTIVE " if annotated else "", T, nm))
        elif kind == "dat":
            ps.append("%sconst %s *%s" % ("CHAD_INACTIVE " if annotated else "", T, nm))
        elif kind in ("out", "inout"):
            ps.append("%s *%s" % (T, nm))
        elif kind == "n":
            ps.append("%s %s" % (fn.ity, nm))
        elif kind == "int":
            ps.append("%s %s" % (fn.mty, nm))
        else:
            ps.append("%s%s %s" % ("const " if nm not in written and const_param(fn, nm) else "",
                                   T, nm))
    ret = T if fn.ret else "void"
    if fn.sret is not None:
        ret = fn.sret_spell
    attr = "CHAD_DIFFERENTIABLE\n" if annotated else "static "
    return "%s%s %s(%s)" % (attr, ret, name, ", ".join(ps))


def render_fn(fn, st, instr):
    out = []
    for a, (cols, form) in sorted(fn.rows.items()):
        flat = (form % a).replace("$T", fn.T).replace("$C", str(cols))
        out.append("    const %s *%s = %s;" % (fn.T, a, flat))
    for s in fn.body:
        rs(s, fn.T, st, instr, 1, out)
    out.append("}")
    head = signature(fn, ("gm_" if instr else "") + fn.name, not instr, written_params(fn, out))
    return "\n".join([head + " {"] + out)


def sarr_harness(sp, v, d, b, nin, nout, pre, post):
    """An array of structs: x continues with the floating leaves of each
    struct in turn, y with its in-out leaves (their final values; f_rev's
    shadow holds their seeds on entry and the adjoints of their initial
    values on exit); the shadows are arrays of structs, their integer
    fields 77 (f_rev must leave them so: an adjoint is made NaN if it does
    not)."""
    first, checks = nin, []
    for m in ("f", "wm", "fwd", "rev"):
        pre[m].append("%s %s[%d];" % (sp.spell, v, sp.alen))
    pre["fwd"].append("%s %s[%d];" % (sp.spell, d, sp.alen))
    pre["rev"].append("%s %s[%d];" % (sp.spell, b, sp.alen))
    for e in range(sp.alen):
        for path, kind, info in sp.st.leaves():
            if kind == "i":
                for m in ("f", "wm", "fwd", "rev"):
                    pre[m].append("%s[%d].%s = %d;" % (v, e, path, sp.ivals[path]))
                pre["fwd"].append("%s[%d].%s = 77;" % (d, e, path))
                pre["rev"].append("%s[%d].%s = 77;" % (b, e, path))
                checks.append("%s[%d].%s != 77" % (b, e, path))
                continue
            for k in range(1 if kind == "f" else info):
                lv = "%s[%d].%s" % ("%s", e, path if kind == "f" else "%s[%d]" % (path, k))
                for m in ("f", "wm", "fwd", "rev"):
                    pre[m].append((lv % v) + " = in[%d];" % nin)
                pre["fwd"].append((lv % d) + " = din[%d];" % nin)
                if path in sp.inouts:
                    pre["rev"].append((lv % b) + " = bout[%d];" % nout)
                    post["rev"].append("bin[%d] += %s;" % (nin, lv % b))
                    for m in ("f", "fwd", "rev"):
                        post[m].append("out[%d] = %s;" % (nout, lv % v))
                    post["fwd"].append("dout[%d] = %s;" % (nout, lv % d))
                    nout += 1
                else:
                    pre["rev"].append((lv % b) + " = bin[%d];" % nin)
                    post["rev"].append("bin[%d] = %s;" % (nin, lv % b))
                nin += 1
    if checks:
        post["rev"].append("if (%s) bin[%d] = NAN;" % (" || ".join(checks), first))
    return nin, nout


def inactive_harness(sp, v, j, pre):
    """A CHAD_INACTIVE struct parameter: constants in every mode, its
    pointer fields at a local array of constants, and no shadow."""
    T = sp.st.T
    for m in pre:
        pre[m].append("%s %s;" % (sp.spell, v))
    for q, (path, kind, info) in enumerate(sp.st.leaves()):
        if kind == "i":
            for m in pre:
                pre[m].append("%s.%s = %d;" % (v, path, sp.ivals[path]))
            continue
        if kind == "p":
            data = "gsk%d_%d" % (j, q)
            vals = ", ".join("%s(%.2f)" % ("(float)" if T == "float" else "", 0.3 + 0.45 * k - 0.2 * q)
                             for k in range(info[2]))
            for m in pre:
                pre[m].append("%s %s[%d] = {%s};" % (T, data, info[2], vals))
                pre[m].append("%s.%s = %s;" % (v, path, data))
            continue
        for k in range(1 if kind == "f" else info):
            lv = path if kind == "f" else "%s[%d]" % (path, k)
            for m in pre:
                pre[m].append("%s.%s = (%s)%.2f;" % (v, lv, T, 0.6 - 0.35 * k + 0.15 * q))


def struct_harness(fn, nin, nout):
    """The wrappers' side of struct parameters and results (DESIGN.md section
    1): x continues with every floating input leaf of the struct parameters
    (scalars, array fields, the data pointer fields point to), y with their
    written leaves, then the leaves of a struct result.  Shadows: f_fwd's
    hold the tangents (written leaves NaN, to be filled), f_rev's the
    adjoints to add into (pointer fields at the adjoint arrays) and, in
    written leaves, the seeds; integer fields of shadows hold 77, which
    must be ignored."""
    modes = ("f", "wm", "fwd", "rev")
    pre = {m: [] for m in modes}
    post = {m: [] for m in modes}
    args = {}
    T = fn.T
    for j, sp in enumerate(fn.sparams):
        v, d, b = "gsv%d" % j, "gsd%d" % j, "gsb%d" % j
        if sp.mode == "arr":
            nin, nout = sarr_harness(sp, v, d, b, nin, nout, pre, post)
            args[sp.name] = {"f": [v], "wm": [v], "fwd": [v, d], "rev": [v, b]}
            continue
        if sp.inactive:
            inactive_harness(sp, v, j, pre)
            ref = "&" if sp.mode != "val" else ""
            args[sp.name] = {m: [ref + v] for m in modes}
            continue
        for m in modes:
            pre[m].append("%s %s;" % (sp.spell, v))
        pre["fwd"].append("%s %s;" % (sp.spell, d))
        pre["rev"].append("%s %s;" % (sp.spell, b))
        for path, kind, info in sp.st.leaves():
            out = path in sp.outs
            if kind == "i":
                for m in modes:
                    pre[m].append("%s.%s = %d;" % (v, path, sp.ivals[path]))
                pre["fwd"].append("%s.%s = 77;" % (d, path))
                pre["rev"].append("%s.%s = 77;" % (b, path))
                continue
            if kind == "p":
                o = nout if out else nin
                arr = "out" if out else "in"
                for m in modes:
                    pre[m].append("%s.%s = %s + %d;" % (v, path, arr, o))
                pre["fwd"].append("%s.%s = d%s + %d;" % (d, path, arr, o))
                pre["rev"].append("%s.%s = b%s + %d;" % (b, path, arr, o))
                if out:
                    nout += info[2]
                else:
                    nin += info[2]
                continue
            if path in sp.inouts:  # its initial value in, its final value out
                for m in modes:
                    pre[m].append("%s.%s = in[%d];" % (v, path, nin))
                pre["fwd"].append("%s.%s = din[%d];" % (d, path, nin))
                pre["rev"].append("%s.%s = bout[%d];" % (b, path, nout))
                post["rev"].append("bin[%d] += %s.%s;" % (nin, b, path))
                for m in ("f", "fwd", "rev"):
                    post[m].append("out[%d] = %s.%s;" % (nout, v, path))
                post["fwd"].append("dout[%d] = %s.%s;" % (nout, d, path))
                nin += 1
                nout += 1
                continue
            size = 1 if kind == "f" else info
            for k in range(size):
                lv = path if kind == "f" else "%s[%d]" % (path, k)
                if out:
                    for m in modes:
                        pre[m].append("%s.%s = NAN;" % (v, lv))
                    pre["fwd"].append("%s.%s = NAN;" % (d, lv))
                    pre["rev"].append("%s.%s = bout[%d];" % (b, lv, nout))
                    for m in ("f", "fwd", "rev"):
                        post[m].append("out[%d] = %s.%s;" % (nout, v, lv))
                    post["fwd"].append("dout[%d] = %s.%s;" % (nout, d, lv))
                    nout += 1
                else:
                    for m in modes:
                        pre[m].append("%s.%s = in[%d];" % (v, lv, nin))
                    pre["fwd"].append("%s.%s = din[%d];" % (d, lv, nin))
                    pre["rev"].append("%s.%s = bin[%d];" % (b, lv, nin))
                    post["rev"].append("bin[%d] = %s.%s;" % (nin, b, lv))
                    nin += 1
        ref = "&" if sp.mode != "val" else ""
        args[sp.name] = {"f": [ref + v], "wm": [ref + v], "fwd": [ref + v, ref + d],
                         "rev": [ref + v, "&" + b]}
    if fn.sret is not None:
        for m in modes:
            pre[m].append("%s gsr;" % fn.sret_spell)
        pre["fwd"].append("%s gsdr;" % fn.sret_spell)
        pre["rev"].append("%s gsrb;" % fn.sret_spell)
        for path, kind, info in fn.sret.leaves():
            if kind == "p":
                # a view of an array parameter (DESIGN.md 8.46): its
                # elements are outputs; f_fwd's shadow points into the
                # array's tangents, and f_rev leaves the seeds of the data
                # to the caller, who adds them into the array's adjoint
                a, k = fn.sret_views[path]
                at = fn.arrays.index(a) * fn.n + k
                pre["fwd"].append("gsdr.%s = 0;" % path)
                pre["rev"].append("gsrb.%s = 0;" % path)
                for j in range(info[2]):
                    for m in ("f", "fwd", "rev"):
                        post[m].append("out[%d] = gsr.%s[%d];" % (nout, path, j))
                    post["fwd"].append("dout[%d] = gsdr.%s[%d];" % (nout, path, j))
                    post["rev"].append("bin[%d] += bout[%d];" % (at + j, nout))
                    nout += 1
                continue
            if kind == "i":
                # as f's in every mode; the shadow's is ignored
                pre["rev"].append("gsrb.%s = 77;" % path)
                pre["fwd"].append("gsdr.%s = 77;" % path)
                for m in ("f", "fwd", "rev"):
                    post[m].append("out[%d] = (double)gsr.%s;" % (nout, path))
                post["fwd"].append("dout[%d] = 0;" % nout)
                nout += 1
                continue
            for k in range(1 if kind == "f" else info):
                lv = path if kind == "f" else "%s[%d]" % (path, k)
                pre["rev"].append("gsrb.%s = bout[%d];" % (lv, nout))
                for m in ("f", "fwd", "rev"):
                    post[m].append("out[%d] = gsr.%s;" % (nout, lv))
                post["fwd"].append("dout[%d] = gsdr.%s;" % (nout, lv))
                nout += 1
        post["wm"].append("(void)gsr;")
    return {"nin": nin, "nout": nout, "pre": pre, "post": post, "args": args}


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
    sh = struct_harness(fn, nin, nout)
    nin, nout = sh["nin"], sh["nout"]
    if fn.inout:
        # the in-out array (DESIGN.md 1): its initial values are n more
        # inputs, its final ones n more outputs.  f_fwd gets the initial
        # values' tangents in gdp and leaves the final ones' there; f_rev
        # gets the seed for the final values in gpb and leaves the adjoint
        # of the initial ones, and gp holding f's final values.
        pin, pout = nin, nout
        nin += n
        nout += n
        for m in ("f", "wm", "fwd", "rev"):
            sh["pre"][m].append("%s gp[%d]; for (k = 0; k < %d; k++) gp[k] = in[%d + k];" % (T, n, n, pin))
        sh["pre"]["fwd"].append("%s gdp[%d]; for (k = 0; k < %d; k++) gdp[k] = din[%d + k];"
                                % (T, n, n, pin))
        sh["pre"]["rev"].append("%s gpb[%d]; for (k = 0; k < %d; k++) gpb[k] = bout[%d + k];"
                                % (T, n, n, pout))
        for m in ("f", "fwd", "rev"):
            sh["post"][m].append("for (k = 0; k < %d; k++) out[%d + k] = gp[k];" % (n, pout))
        sh["post"]["fwd"].append("for (k = 0; k < %d; k++) dout[%d + k] = gdp[k];" % (n, pout))
        sh["post"]["rev"].append("for (k = 0; k < %d; k++) bin[%d + k] += gpb[k];" % (n, pin))
        sh["args"][fn.inout] = {"f": ["gp"], "wm": ["gp"], "fwd": ["gp", "gdp"], "rev": ["gp", "gpb"]}

    def args(mode):
        a = []
        for p in fn.params:
            kind, nm = p[0], p[1]
            if kind in ("sval", "scptr", "sptr", "sarr", "inout"):
                a += sh["args"][nm][mode]
            elif kind == "arr":
                a.append(rows_arg(fn, nm, "in + %d" % off[nm]))
                if mode == "fwd":
                    a.append(rows_arg(fn, nm, "din + %d" % off[nm]))
                elif mode == "rev":
                    a.append(rows_arg(fn, nm, "bin + %d" % off[nm], writable=True))
            elif kind == "idx":
                a.append("gen_idx")
            elif kind == "cst":
                a.append("(%s)0.75" % T)
            elif kind == "dat":
                a.append("gen_dat" + ("f" if T == "float" else ""))
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
        if fn.sret is not None:
            if mode == "fwd":
                a.append("&gsdr")
            elif mode == "rev":
                a.append("gsrb")
        return ", ".join(a)

    def call(name, mode):
        c = "%s(%s)" % (name, args(mode))
        if fn.sret is not None:
            c = "gsr = " + c
        code = ("out[%d] = %s;" % (retslot, c)) if fn.ret else (c + ";")
        # the structs filled before the call, their outputs read after it
        return "\n    ".join(sh["pre"][mode] + [code] + sh["post"][mode])

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
    L.append("    " + call("gm_" + N, "wm"))
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
CHAD_CUSTOM void gen_cu_sq%(S)s(int n, %(T)s a, const %(T)s x[n], %(T)s out[n]);
void gen_cu_sq%(S)s_fwd(int n, %(T)s a, %(T)s da, const %(T)s *x, const %(T)s *dx, %(T)s *out, %(T)s *dout);
void gen_cu_sq%(S)s_rev(int n, %(T)s a, %(T)s *a_b, const %(T)s *x, %(T)s *x_b, %(T)s *out, const %(T)s *out_b);
CHAD_CUSTOM %(T)s gen_cu_mix%(S)s(int n, %(T)s s, %(T)s p[n]);
%(T)s gen_cu_mix%(S)s_fwd(int n, %(T)s s, %(T)s ds, %(T)s *p, %(T)s *dp, %(T)s *d_ret);
%(T)s gen_cu_mix%(S)s_rev(int n, %(T)s s, %(T)s *s_b, %(T)s *p, %(T)s *p_b, %(T)s ret_b);
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
/* out = a x^2 (an output); mix: returns the sum of p^2, then p[i] = s p[i]
 * + p[i - 1] from the top, p[0] = s p[0] (in-out) */
void gen_cu_sq%(S)s(int n, %(T)s a, const %(T)s x[n], %(T)s out[n]) {
    for (int i = 0; i < n; i++)
        out[i] = a * x[i] * x[i];
}
void gen_cu_sq%(S)s_fwd(int n, %(T)s a, %(T)s da, const %(T)s *x, const %(T)s *dx, %(T)s *out, %(T)s *dout) {
    for (int i = 0; i < n; i++)
        dout[i] = da * x[i] * x[i] + 2 * a * x[i] * dx[i];
    gen_cu_sq%(S)s(n, a, x, out);
}
void gen_cu_sq%(S)s_rev(int n, %(T)s a, %(T)s *a_b, const %(T)s *x, %(T)s *x_b, %(T)s *out, const %(T)s *out_b) {
    for (int i = 0; i < n; i++) {
        *a_b += out_b[i] * x[i] * x[i];
        x_b[i] += 2 * a * x[i] * out_b[i];
    }
    gen_cu_sq%(S)s(n, a, x, out);
}
%(T)s gen_cu_mix%(S)s(int n, %(T)s s, %(T)s p[n]) {
    %(T)s r = 0;
    for (int i = 0; i < n; i++)
        r += p[i] * p[i];
    for (int i = n - 1; i >= 1; i--)
        p[i] = s * p[i] + p[i - 1];
    p[0] = s * p[0];
    return r;
}
%(T)s gen_cu_mix%(S)s_fwd(int n, %(T)s s, %(T)s ds, %(T)s *p, %(T)s *dp, %(T)s *d_ret) {
    %(T)s dr = 0;
    for (int i = 0; i < n; i++)
        dr += 2 * p[i] * dp[i];
    for (int i = n - 1; i >= 1; i--)
        dp[i] = ds * p[i] + s * dp[i] + dp[i - 1];
    dp[0] = ds * p[0] + s * dp[0];
    *d_ret = dr;
    return gen_cu_mix%(S)s(n, s, p);
}
%(T)s gen_cu_mix%(S)s_rev(int n, %(T)s s, %(T)s *s_b, %(T)s *p, %(T)s *p_b, %(T)s ret_b) {
    for (int i = 0; i < n; i++)
        *s_b += p_b[i] * p[i];
    for (int i = 0; i < n; i++)
        p_b[i] = s * p_b[i] + (i + 1 < n ? p_b[i + 1] : 0) + 2 * p[i] * ret_b;
    return gen_cu_mix%(S)s(n, s, p);
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
    parts.append("static const %s gen_idx[%d] = {%s};" % (g.idx_type, g.n, ", ".join(map(str, g.idx))))
    parts.append(GEN_TABLES)
    if g.blk_used:
        parts.append(BLOCK_HELPERS)
    if g.walk_used:
        parts.append(WALK_HELPERS)
    if g.cell_used:
        parts.append(CELL_HELPERS)
    if g.stypes:
        parts.append("\n".join(t.definition() for t in g.stypes))
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

# A callee that writes a fixed number of elements of its output, called at
# views of a block written per loop iteration (DESIGN 8.19).
BLOCK_HELPERS = """CHAD_DIFFERENTIABLE
void gen_blk(const double *a, double *o) {
    o[0] = a[0] * a[0] + 0.5;
    o[1] = sin(a[0]) - 0.25 * a[0];
}

CHAD_DIFFERENTIABLE
void gen_blkf(const float *a, float *o) {
    o[0] = a[0] * a[0] + 0.5f;
    o[1] = sinf(a[0]) - 0.25f * a[0];
}"""

# Callees that update a whole array in place or fill it, called at every
# step of a loop (the loop carries the array whole: DESIGN 8.16).
WALK_HELPERS = """CHAD_DIFFERENTIABLE
void gen_relax(int n, double *u, const double *k) {
    for (int i = 0; i < n; i++)
        u[i] = u[i] + 0.25 * k[i] * sin(u[i]);
}

CHAD_DIFFERENTIABLE
void gen_relaxf(int n, float *u, const float *k) {
    for (int i = 0; i < n; i++)
        u[i] = u[i] + 0.25f * k[i] * sinf(u[i]);
}

/* a contraction, so that steps applied to swapped buffers stay finite */
CHAD_DIFFERENTIABLE
void gen_blend(int n, const double *x, double *out) {
    for (int i = 0; i < n; i++)
        out[i] = 0.5 * x[i] + 0.25 * tanh(x[i]);
}

CHAD_DIFFERENTIABLE
void gen_blendf(int n, const float *x, float *out) {
    for (int i = 0; i < n; i++)
        out[i] = 0.5f * x[i] + 0.25f * tanhf(x[i]);
}

CHAD_DIFFERENTIABLE
void gen_smooth(int n, double *u) {
    for (int i = 1; i < n; i++)
        u[i] += 0.25 * sin(u[i - 1]);
}

CHAD_DIFFERENTIABLE
void gen_smoothf(int n, float *u) {
    for (int i = 1; i < n; i++)
        u[i] += 0.25f * sinf(u[i - 1]);
}

CHAD_DIFFERENTIABLE
void gen_spread(int h, const double *x, double *out) {
    for (int i = 0; i < h; i++) {
        out[2 * i] = 0.5 * x[i];
        out[2 * i + 1] = x[i] * x[i];
    }
}

CHAD_DIFFERENTIABLE
void gen_spreadf(int h, const float *x, float *out) {
    for (int i = 0; i < h; i++) {
        out[2 * i] = 0.5f * x[i];
        out[2 * i + 1] = x[i] * x[i];
    }
}

CHAD_DIFFERENTIABLE
void gen_fill(int n, const double *x, double s, double *out) {
    for (int i = 0; i < n; i++)
        out[i] = s * x[i] * x[i];
}

CHAD_DIFFERENTIABLE
void gen_fillf(int n, const float *x, float s, float *out) {
    for (int i = 0; i < n; i++)
        out[i] = s * x[i] * x[i];
}

/* the last element of a view of n, updated from its first */
CHAD_DIFFERENTIABLE
void gen_tail(int n, double *v) {
    v[n - 1] = 0.5 * v[n - 1] + 0.25 * sin(v[0]);
}

CHAD_DIFFERENTIABLE
void gen_tailf(int n, float *v) {
    v[n - 1] = 0.5f * v[n - 1] + 0.25f * sinf(v[0]);
}"""

# an LSTM cell's shape: the hidden and cell slices updated in place, each
# read before it is written (DESIGN.md 8.21's value semantics hold)
CELL_HELPERS = """CHAD_DIFFERENTIABLE
void gen_cell(int n, const double *x, double *h, double *c) {
    for (int i = 0; i < n; i++)
        c[i] = 0.5 * c[i] + 0.25 * tanh(x[i] + h[i]);
    for (int i = 0; i < n; i++)
        h[i] = 0.75 * tanh(c[i]);
}

CHAD_DIFFERENTIABLE
void gen_cellf(int n, const float *x, float *h, float *c) {
    for (int i = 0; i < n; i++)
        c[i] = 0.5f * c[i] + 0.25f * tanhf(x[i] + h[i]);
    for (int i = 0; i < n; i++)
        h[i] = 0.75f * tanhf(c[i]);
}"""

GEN_TABLES = ("const double gen_tab[8] = {0.5, -1.25, 2.0, 0.125, -0.75, 1.5, 0.25, -2.0};\n"
              "const double gen_tab2[2][3] = {{1.0, -0.5, 0.25}, {2.0, 0.75, -1.0}};\n"
              "const double gen_dat[4] = {0.75, -0.5, 1.25, 0.375};\n"
              "const float gen_datf[4] = {0.75f, -0.5f, 1.25f, 0.375f};")


def render_plain(g, st):
    """Only the annotated functions: compiled without the plugin, under
    -Werror, by the reducer to reject candidates that are not valid C or
    that leave variables unused."""
    parts = ['#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n#include "chad.h"\n',
             GEN_TABLES, CUSTOM_DECLS] + ["\n".join(t.definition() for t in g.stypes)] * bool(g.stypes) \
        + [BLOCK_HELPERS] * g.blk_used + [WALK_HELPERS] * g.walk_used \
        + [CELL_HELPERS] * g.cell_used
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
