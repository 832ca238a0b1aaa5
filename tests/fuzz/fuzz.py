#!/usr/bin/env python3
"""fuzz.py: robustness fuzzing of the chad clang plugin.

Feeds the plugin mutated C programs and checks that clang
  * never crashes (signal exit, "PLEASE submit a bug report", "Assertion",
    "Stack dump", "frontend command failed"),
  * never hangs (--timeout seconds per input; an input that times out
    while others compile beside it is run again alone at the end, and is a
    hang only if it times out there too),
  * reports every chad error at file:line:col, and
  * never accepts a function and then emits derivative code that does not
    compile (an error located in the generated <input>.chad.c).
When an input compiles and has annotated functions of only scalar double
parameters, it is optionally (--derivs, on by default for a fraction of the
inputs) linked and run: f_rev and f_fwd must agree with finite differences.

Inputs are mutations of the test corpus (tests/e2e, tests/diag, examples):
deleted, duplicated and swapped tokens, swapped operators, replaced types,
huge constants, injected unsupported constructs, and synthetic stress
programs (deep expressions, long else-if chains, nested ifs and loops, very
long functions, many functions, many parameters).

Reproducible: input i of a run depends only on (--seed, i). Regenerate one
input with --seed S --only i --print.

    tests/fuzz/fuzz.py --seed S --count N [--jobs 2]

Every crash / hang / unlocated error / bad generated code / wrong derivative
is saved under --crashes (default tests/fuzz/crashes/new/) with a .txt file
giving the command, the symptom and clang's output; crashes are reduced by
line deletion when cheap. A crash that plain clang (no plugin) also has is
clang's own bug: recorded under <crashes>/clang-only/, not counted as ours.

Findings whose kind and recipe/output match a line of --known (format:
`<kind> <python regex>`) are reported as known and do not fail the run.
Exit status: 0 when there is no new finding, 1 otherwise.
"""

import argparse
import concurrent.futures
import hashlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("CHAD_ROOT") or os.path.normpath(os.path.join(HERE, "..", ".."))

# ---------------------------------------------------------------------------
# Tokens

TOKEN_RE = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<pp>\#[^\n]*(?:\\\n[^\n]*)*)
  | (?P<str>"(?:\\.|[^"\\\n])*")
  | (?P<chr>'(?:\\.|[^'\\\n])*')
  | (?P<num>(?:0[xX][0-9a-fA-F.]+(?:[pP][+-]?\d+)?|\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)[uUlLfF]*)
  | (?P<id>[A-Za-z_]\w*)
  | (?P<op>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|[-+*/%&|^!~<>=?:;,.(){}\[\]])
  | (?P<other>.)
""", re.S | re.X)


class Tok:
    __slots__ = ("kind", "text")

    def __init__(self, kind, text):
        self.kind = kind
        self.text = text

    def __repr__(self):
        return "Tok(%s,%r)" % (self.kind, self.text)


def tokenize(src):
    toks = []
    for m in TOKEN_RE.finditer(src):
        toks.append(Tok(m.lastgroup, m.group()))
    return toks


def untokenize(toks):
    out = []
    prev = None
    for t in toks:
        # Keep two adjacent words (or a word and a number) apart, and
        # preprocessor lines on their own line.
        if prev is not None and prev.kind not in ("ws",) and t.kind != "ws":
            if (prev.kind in ("id", "num") and t.kind in ("id", "num")) or \
               t.kind == "pp" or prev.kind == "pp":
                out.append("\n" if t.kind == "pp" or prev.kind == "pp" else " ")
        out.append(t.text)
        prev = t
    return "".join(out)


def sig(toks):
    """Indices of significant (non-whitespace, non-comment) tokens."""
    return [i for i, t in enumerate(toks) if t.kind not in ("ws", "comment")]


# ---------------------------------------------------------------------------
# Finding the annotated functions of a file

MARKERS = {"differentiable", "CHAD_DIFFERENTIABLE"}
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else",
            "case", "default", "goto", "break", "continue", "typedef",
            "struct", "union", "enum", "_Generic", "_Alignof", "__attribute__"}


class Func:
    def __init__(self, name, start, lparen, rparen, lbrace, rbrace, annotated):
        self.name = name
        self.start = start      # token index where the declaration begins
        self.lparen = lparen
        self.rparen = rparen
        self.lbrace = lbrace
        self.rbrace = rbrace
        self.annotated = annotated


def marker_macros(toks):
    names = set()
    for t in toks:
        if t.kind == "pp":
            m = re.match(r"#\s*define\s+(\w+)\b(.*)", t.text, re.S)
            if m and ("differentiable" in m.group(2) or "CHAD_DIFFERENTIABLE" in m.group(2)):
                names.add(m.group(1))
    return names


def find_functions(toks):
    """Top-level function definitions: `... name ( ... ) {` at depth 0."""
    markers = MARKERS | marker_macros(toks)
    funcs = []
    s = sig(toks)
    depth = 0
    decl_start = 0
    k = 0
    while k < len(s):
        i = s[k]
        t = toks[i]
        if t.kind == "pp":
            decl_start = k + 1
            k += 1
            continue
        if depth == 0 and t.text in (";", "}"):
            decl_start = k + 1
        if t.text == "{":
            if depth == 0 and k > 0 and toks[s[k - 1]].text == ")":
                # Find the matching ( of that ).
                d = 0
                j = k - 1
                while j >= 0:
                    x = toks[s[j]].text
                    if x == ")":
                        d += 1
                    elif x == "(":
                        d -= 1
                        if d == 0:
                            break
                    j -= 1
                # Skip attribute parens: name must be an identifier.
                if j > 0 and toks[s[j - 1]].kind == "id" and toks[s[j - 1]].text not in KEYWORDS:
                    # Find matching }.
                    d = 0
                    e = k
                    while e < len(s):
                        x = toks[s[e]].text
                        if x == "{":
                            d += 1
                        elif x == "}":
                            d -= 1
                            if d == 0:
                                break
                        e += 1
                    if e < len(s):
                        ann = any(toks[s[q]].text in markers for q in range(decl_start, j))
                        funcs.append(Func(toks[s[j - 1]].text, s[decl_start] if decl_start < len(s) else s[j - 1],
                                          s[j], s[k - 1], s[k], s[e], ann))
            depth += 1
        elif t.text == "}":
            depth = max(0, depth - 1)
        k += 1
    return funcs


def param_names(toks, f):
    """(type, name) pairs of a function's parameters, best effort."""
    inner = [toks[i] for i in range(f.lparen + 1, f.rparen) if toks[i].kind not in ("ws", "comment")]
    params = []
    cur = []
    for t in inner + [Tok("op", ",")]:
        if t.text == ",":
            ids = [x for x in cur if x.kind == "id"]
            if ids:
                typ = " ".join(x.text for x in cur if x is not ids[-1])
                params.append((typ, ids[-1].text, "[" in [x.text for x in cur]))
            cur = []
        else:
            cur.append(t)
    return params


# ---------------------------------------------------------------------------
# Mutations

HUGE = ["1e308", "-1e308", "0x7fffffff", "-2147483648", "1e-320", "4.9e-324",
        "0x1p-1074", "1e309", "-0.0", "2147483648", "9223372036854775807",
        "18446744073709551615ULL", "0x7fffffffffffffff", "1.7976931348623157e308",
        "0.0", "0", "1e-308", "(0.0/0.0)", "(1.0/0.0)", "2.5e+300", "0x1.fffffffffffffp1023",
        "1e400", "-1", "255", "1000000000", "123456789012345678901234567890"]

BINOPS = ["+", "-", "*", "/", "%", "<", ">", "<=", ">=", "==", "!=", "&&", "||",
          "&", "|", "^", "<<", ">>", "=", "+=", "-=", "*=", "/=", ",", "?", ":"]
TYPES = ["double", "float", "int", "long", "long double", "double *", "unsigned",
         "_Bool", "char", "short", "long long", "const double", "volatile double",
         "_Complex double", "double _Complex", "__int128", "void", "struct S",
         "enum E", "double[3]", "signed char", "size_t", "double **", "const double *"]
ALLTOKENS = ["(", ")", "{", "}", "[", "]", ";", ",", "if", "else", "for", "while",
             "return", "double", "int", "x", "0", "1", "=", "+", "*", "-", "!",
             "&", "sizeof", "goto", "break", "continue", "static", "const",
             "__attribute__((differentiable))", "?", ":", "...", "do", "switch",
             "case", "default:", "->", ".", "++", "--", "~", "\"s\"", "'c'"]


def pick_var(rng, toks, f):
    """A variable name visible in f (parameter or local), or 'x'."""
    names = [p[1] for p in param_names(toks, f)]
    # Locals: `double name` / `int name` inside the body.
    s = [i for i in range(f.lbrace, f.rbrace) if toks[i].kind not in ("ws", "comment")]
    for a, b in zip(s, s[1:]):
        if toks[a].text in ("double", "float", "int", "long") and toks[b].kind == "id":
            names.append(toks[b].text)
    return rng.choice(names) if names else "x"


def double_vars(toks, f):
    out = [p[1] for p in param_names(toks, f) if p[0] in ("double", "float", "const double")]
    s = [i for i in range(f.lbrace, f.rbrace) if toks[i].kind not in ("ws", "comment")]
    for a, b in zip(s, s[1:]):
        if toks[a].text in ("double", "float") and toks[b].kind == "id":
            out.append(toks[b].text)
    return out


def statement_points(toks, f):
    """Token indices just after a `;`, `{` or `}` inside f's body."""
    return [i + 1 for i in range(f.lbrace, f.rbrace) if toks[i].text in (";", "{", "}")]


# Helpers the struct injections call: a struct result read inside
# expressions, and one whose pointer field is a view of its argument.
MK_FZ = ("struct V_fz { double x; double w[2]; };\n"
         "__attribute__((differentiable)) static struct V_fz mk_fz(double a) {\n"
         "  struct V_fz r = {a * a, {a + 1, 2 * a}};\n  return r;\n}\n"
         "__attribute__((differentiable)) static double nrm_fz(struct V_fz v) {\n"
         "  return v.x * 0.5 + v.w[0] * v.w[1];\n}\n")
VW_FZ = ("struct W_fz { const double *d; int n; };\n"
         "__attribute__((differentiable)) static struct W_fz vw_fz(const double *a, int k) {\n"
         "  struct W_fz r = {a + k, 3 - k};\n  return r;\n}\n")


def injections(rng, v, fname, nparams, args):
    """Statements (and optional file-level prefixes) that use unsupported or
    odd constructs.  v is a variable of the function."""
    n = rng.choice(["0", "-1", "1", "3", "(int)%s" % v, "2147483647", "100000000",
                    "0x7fffffff", "n", "(int)1e10", "-2147483648"])
    call_args = args if args else v
    inj = [
        ("while", "while (%s > 0) %s = %s - 1;" % (v, v, v), ""),
        ("while2", "{ int i_ = 0; while (i_ < 3) { %s = %s * 2; i_++; } }" % (v, v), ""),
        ("dowhile", "do { %s = %s + 1; } while (0);" % (v, v), ""),
        ("goto", "goto L_fz; L_fz: ;", ""),
        ("goto_back", "{ int c_ = 0; L_b: c_++; if (c_ < 3) goto L_b; }", ""),
        ("label_addr", "{ void *p_ = &&L_c; L_c: (void)p_; }", ""),
        ("ptr_arith", "{ double *p_ = &%s; p_ = p_ + 1; p_ = p_ - 1; %s = *p_; }" % (v, v), ""),
        ("ptr_deref", "{ double t_ = %s; double *p_ = &t_; *p_ = *p_ * 2; %s = t_; }" % (v, v), ""),
        ("ptr_cast", "%s = *(double *)(char *)&%s;" % (v, v), ""),
        ("printf", 'printf("%%g\\n", (double)%s);' % v, "#include <stdio.h>\n"),
        ("printf_noproto", 'printf("%%g\\n", (double)%s);' % v, ""),
        ("puts_expr", '%s = %s + puts("x");' % (v, v), "#include <stdio.h>\n"),
        ("global_read", "%s = %s + g_fz;" % (v, v), "double g_fz = 2.0;\n"),
        ("global_write", "g_fz = %s;" % v, "double g_fz;\n"),
        ("global_arr", "%s = %s * g_arr_fz[1];" % (v, v), "double g_arr_fz[4] = {1,2,3,4};\n"),
        ("static_local", "{ static double s_ = 0; s_ += %s; %s = s_; }" % (v, v), ""),
        ("struct", "{ struct S_fz { double a; double b; } s_ = { %s, 1.0 }; %s = s_.a * s_.b; }" % (v, v), ""),
        ("struct_global", "{ struct P_fz q_; q_.a = %s; %s = q_.a; }" % (v, v), "struct P_fz { double a; };\n"),
        ("union", "{ union { double d; long l; } u_; u_.d = %s; u_.l += 1; %s = u_.d; }" % (v, v), ""),
        ("recursion", "%s = %s + %s(%s);" % (v, v, fname, call_args), ""),
        ("recursion_ret", "if (%s > 100) return %s(%s);" % (v, fname, call_args), ""),
        ("vla", "{ double a_[%s]; a_[0] = %s; %s = a_[0]; }" % (n, v, v), ""),
        ("vla2", "{ int m_ = %s; double a_[m_]; for (int i_ = 0; i_ < m_; i_++) a_[i_] = %s; %s = a_[0]; }" % (n, v, v), ""),
        ("vla_sum", "{ double a_[%s]; for (int i_ = 0; i_ < %s; i_++) a_[i_] = %s * i_; double s_ = 0; for (int i_ = 0; i_ < %s; i_++) s_ += a_[i_]; %s = s_; }" % (n, n, v, n, v), ""),
        # issue 8: local arrays of structs, && in for conditions, a counter
        # read after a loop that breaks
        ("struct_local_array", "{ struct L_fz { double a; int k; double w[2]; } q_[3]; for (int i_ = 0; i_ < 3; i_++) { q_[i_].a = %s * i_; q_[i_].k = 2 - i_; q_[i_].w[i_ %% 2] = %s; q_[i_].w[(i_ + 1) %% 2] = 1; } q_[0] = q_[2]; %s = q_[2].a + q_[1].w[0] * q_[q_[1].k].a; }" % (v, v, v), ""),
        ("for_and", "{ double s_ = 0; for (int i_ = 0; i_ < 5 && s_ < 3; i_++) s_ += %s; %s = s_; }" % (v, v), ""),
        ("for_and_exit", "{ int k_; for (k_ = 0; k_ < 4 && %s > k_; k_++) ; %s = %s * k_; }" % (v, v, v), ""),
        ("zero_array", "{ double a_[0]; (void)a_; }", ""),
        ("huge_array", "{ double a_[100000000]; a_[5] = %s; %s = a_[5]; }" % (v, v), ""),
        ("cast_long", "%s = (long)%s;" % (v, v), ""),
        ("cast_long2", "{ long l_ = (long)%s; %s = %s + l_; }" % (v, v, v), ""),
        ("cast_int", "%s = (double)(int)%s * %s;" % (v, v, v), ""),
        ("cast_float", "%s = (float)%s;" % (v, v), ""),
        ("cast_ld", "%s = (long double)%s * 2;" % (v, v), ""),
        ("cast_uchar", "%s = (unsigned char)%s;" % (v, v), ""),
        ("cast_bool", "%s = (_Bool)%s + %s;" % (v, v, v), ""),
        ("complex", "{ _Complex double z_ = %s; z_ = z_ * z_; %s = __real__ z_; }" % (v, v), ""),
        ("complex2", "{ double _Complex z_ = %s + 1.0i; %s = __imag__ (z_ * z_); }" % (v, v), ""),
        ("int128", "{ __int128 w_ = (__int128)%s; %s = (double)w_; }" % (v, v), ""),
        ("ternary", "%s = %s > 0 ? %s : -%s;" % (v, v, v, v), ""),
        ("comma", "%s = (%s, %s * 2);" % (v, v, v), ""),
        ("incr", "%s++;" % v, ""),
        ("incr_expr", "%s = %s++ + ++%s;" % (v, v, v), ""),
        ("assign_expr", "%s = (%s += 1) * 2;" % (v, v), ""),
        ("chain_assign", "{ double a_, b_; a_ = b_ = %s; %s = a_ + b_; }" % (v, v), ""),
        ("switch", "switch ((int)%s) { case 0: %s = 1; break; default: %s = 2; }" % (v, v, v), ""),
        ("for_inf", "for (;;) { %s = %s + 1; if (%s > 10) break; }" % (v, v, v), ""),
        ("for_double", "for (double d_ = 0; d_ < %s; d_ += 1.0) %s = %s * 1.5;" % (v, v, v), ""),
        ("for_huge", "{ double s_ = 0; for (int i_ = 0; i_ < 2147483647; i_++) s_ += %s; %s = s_; }" % (v, v), ""),
        ("for_neg", "{ double s_ = 0; for (int i_ = 0; i_ < -5; i_++) s_ += %s; %s += s_; }" % (v, v), ""),
        ("for_nested3", "{ double s_ = 0; for (int i_ = 0; i_ < 3; i_++) for (int j_ = 0; j_ < 3; j_++) for (int k_ = 0; k_ < 3; k_++) s_ += %s * i_ * j_ * k_; %s = s_; }" % (v, v), ""),
        ("volatile", "{ volatile double q_ = %s; %s = q_; }" % (v, v), ""),
        ("register", "{ register double q_ = %s; %s = q_ * q_; }" % (v, v), ""),
        ("stmt_expr", "%s = ({ double q_ = %s; q_ * q_; });" % (v, v), ""),
        ("builtin_expect", "%s = __builtin_expect((long)%s, 1);" % (v, v), ""),
        ("builtin_inf", "%s = %s + __builtin_inf();" % (v, v), ""),
        ("builtin_nan", "%s = __builtin_nan(\"\") * %s;" % (v, v), ""),
        ("builtin_fabs", "%s = __builtin_fabs(%s);" % (v, v), ""),
        ("asm", "__asm__ volatile (\"\" : : : \"memory\");", ""),
        ("sizeof", "%s = %s * sizeof(%s);" % (v, v, v), ""),
        ("alignof", "%s = %s * _Alignof(double);" % (v, v), ""),
        ("generic", "%s = _Generic(%s, double: %s, default: 0);" % (v, v, v), ""),
        ("compound_lit", "%s = (double){%s} * 2;" % (v, v), ""),
        ("compound_arr", "%s = (double[]){%s, %s}[1];" % (v, v, v), ""),
        ("string", '%s = %s + "abc"[1];' % (v, v), ""),
        ("char", "%s = %s * 'a';" % (v, v), ""),
        ("div_zero", "%s = %s / 0;" % (v, v), ""),
        ("int_div_zero", "{ int z_ = 1 / 0; %s += z_; }" % v, ""),
        ("shift", "{ int z_ = 1 << 40; %s += z_; }" % v, ""),
        ("typeof", "{ __typeof__(%s) q_ = %s; %s = q_ * 3; }" % (v, v, v), ""),
        ("auto_type", "{ __auto_type q_ = %s; %s = q_ * 3; }" % (v, v), ""),
        ("atomic", "{ _Atomic double q_ = %s; %s = q_; }" % (v, v), ""),
        ("thread_local", "{ static _Thread_local double q_; q_ = %s; %s = q_; }" % (v, v), ""),
        ("attr_var", "{ __attribute__((differentiable)) double q_ = %s; %s = q_; }" % (v, v), ""),
        ("fnptr", "{ double (*fp_)(double) = 0; if (fp_) %s = fp_(%s); }" % (v, v), ""),
        ("fnptr_math", "{ double (*fp_)(double) = sin; %s = fp_(%s); }" % (v, v), "#include <math.h>\n"),
        ("setjmp", "{ jmp_buf jb_; if (setjmp(jb_)) %s = 0; }" % v, "#include <setjmp.h>\n"),
        ("va", "{ __builtin_va_list ap_; (void)ap_; }", ""),
        ("nested_fn", "double inner_(double q) { return q * 2; } %s = inner_(%s);" % (v, v), ""),
        ("return_void", "return;", ""),
        ("return_early", "if (%s > 0) return %s;" % (v, v), ""),
        ("return_comma", "return %s, %s;" % (v, v), ""),
        ("break_stray", "break;", ""),
        ("continue_stray", "continue;", ""),
        ("decl_no_init", "{ double q_; %s = q_ + %s; }" % (v, v), ""),
        ("shadow", "{ double %s = 1.0; (void)%s; }" % (v, v), ""),
        ("self_init", "{ double q_ = q_ * %s; %s = q_; }" % (v, v), ""),
        ("bitfield", "{ struct { int a : 3; } b_ = { 1 }; %s = %s * b_.a; }" % (v, v), ""),
        ("enum", "{ enum { A_ = 3, B_ } e_ = B_; %s = %s * e_; }" % (v, v), ""),
        ("math_weird", "%s = frexp(%s, 0) + ldexp(%s, 2);" % (v, v, v), "#include <math.h>\n"),
        ("math_more", "%s = tgamma(%s) + erf(%s) + atan2(%s, 1.0) + hypot(%s, %s) + fmod(%s, 2.0);" % (v, v, v, v, v, v, v), "#include <math.h>\n"),
        ("math_issue8", "%s = lgamma(%s) + fma(%s, 2, 1) + ldexp(%s, 2) + pow(%s, 3) + remainder(%s, 1.5);" % (v, v, v, v, v, v), "#include <math.h>\n"),
        ("math_ok", "%s = sin(%s) * exp(%s) + sqrt(%s * %s + 1) + pow(%s, 2) + log(%s * %s + 1);" % (v, v, v, v, v, v, v, v), "#include <math.h>\n"),
        ("malloc", "{ double *p_ = malloc(8); p_[0] = %s; %s = p_[0]; free(p_); }" % (v, v), "#include <stdlib.h>\n"),
        ("malloc_late", "{ double *p_; int k_ = 1; p_ = malloc(k_ * sizeof *p_); p_[0] = %s; %s = p_[0]; free(p_); }" % (v, v), "#include <stdlib.h>\n"),
        ("malloc_late_cond", "{ double *p_ = 0; if (%s > 0) p_ = malloc(8); else p_ = malloc(16); p_[0] = %s; %s = p_[0]; free(p_); }" % (v, v, v), "#include <stdlib.h>\n"),
        ("struct_ptr_field", "{ struct M_fz { int n; double *d; } m_ = {1, 0}, c_; double b_[2] = {0}; m_.d = b_; m_.d[1] = %s; c_ = m_; c_.d[0] = c_.d[1] * %s; %s = m_.d[0] + m_.n; }" % (v, v, v), ""),
        ("struct_local_ptr", "{ struct L_fz { double a; int k; } s_ = { %s, 2 }; struct L_fz *p_ = &s_; const struct L_fz *q_ = p_; p_->a *= q_->k; %s = q_->a; }" % (v, v), ""),
        ("struct_ptr_reassign", "{ struct R_fz { double a; } s_ = { %s }, t_ = { 1 }; struct R_fz *p_ = &s_; p_ = &t_; %s = p_->a; }" % (v, v), ""),
        ("struct_ptr_uninit", "{ struct U_fz { double a; } s_ = { %s }; struct U_fz *p_; p_ = &s_; %s = p_->a; }" % (v, v), ""),
        ("struct_array_local", "{ struct A_fz { double a; } s_[2] = { { %s }, { 1 } }; %s = s_[1].a + s_[0].a; }" % (v, v), ""),
        ("struct_array_global", "%s = %s * g_pts_fz[1].x + g_pts_fz[0].k;" % (v, v), "static const struct G_fz { double x; int k; } g_pts_fz[2] = { { 1, 2 }, { 3, 4 } };\n"),
        # issue 8: structs a call returns used inside expressions, views
        # returned in structs, pointer differences and pointer walks
        ("struct_call_value", "%s = mk_fz(%s).x * mk_fz(%s + 1).w[1] + mk_fz(%s).w[0];" % (v, v, v, v),
         MK_FZ),
        ("struct_call_nested", "%s = nrm_fz(mk_fz(nrm_fz(mk_fz(%s)))) * %s;" % (v, v, v), MK_FZ),
        ("struct_call_cond", "%s = %s > 0 ? mk_fz(%s).x : %s;" % (v, v, v, v), MK_FZ),
        ("struct_call_loop", "{ for (int i_ = 0; i_ < 3; i_++) %s = mk_fz(%s * i_).w[i_ %% 2] + %s; }" % (v, v, v),
         MK_FZ),
        ("struct_view_ret", "{ double b_[3] = {%s, 1, 2}; %s = vw_fz(b_, 1).d[1] * vw_fz(b_, 0).d[0] + vw_fz(b_, 2).n; }" % (v, v),
         VW_FZ),
        ("ptr_diff", "{ double b_[4] = {%s, 1, 2, 3}; const double *p_ = b_ + 2; %s = %s * (double)(p_ - b_) + p_[1]; }" % (v, v, v), ""),
        ("ptr_walk", "{ double b_[3] = {%s, 2, %s}; double s_ = 0; for (const double *p_ = b_; p_ < b_ + 3; p_++) s_ += *p_ * (double)(p_ - b_); %s = s_; }" % (v, v, v), ""),
        ("exit", "if (%s != %s) exit(1);" % (v, v), "#include <stdlib.h>\n"),
        ("abort", "if (%s != %s) __builtin_abort();" % (v, v), ""),
        ("unreachable", "if (%s != %s) __builtin_unreachable();" % (v, v), ""),
        ("pragma", "_Pragma(\"clang loop unroll(disable)\") for (int i_ = 0; i_ < 2; i_++) %s *= 2;" % v, ""),
        ("omp", "#pragma omp parallel for\nfor (int i_ = 0; i_ < 2; i_++) %s *= 2;\n" % v, ""),
        ("empty_stmts", ";;;{}{{}};", ""),
        ("huge_const", "%s = %s * %s;" % (v, v, rng.choice(HUGE)), ""),
        ("huge_const2", "%s = %s + %s - %s;" % (v, rng.choice(HUGE), v, rng.choice(HUGE)), ""),
        ("int_overflow", "{ int z_ = 2147483647; z_ = z_ + 1; %s *= z_; }" % v, ""),
        ("long_local", "{ long q_ = 5; %s = %s * q_; }" % (v, v), ""),
        ("unsigned_local", "{ unsigned q_ = 4294967295u; %s = %s * q_; }" % (v, v), ""),
        ("float_local", "{ float q_ = %s; %s = q_ * q_; }" % (v, v), ""),
        ("ld_local", "{ long double q_ = %s; %s = (double)(q_ * q_); }" % (v, v), ""),
        ("array_local", "{ double a_[3] = { %s, 2 * %s, 3 }; %s = a_[0] * a_[1] + a_[2]; }" % (v, v, v), ""),
        ("array_oob", "{ double a_[3] = { %s, 2, 3 }; %s = a_[5] + a_[-1]; }" % (v, v), ""),
        ("array_2d", "{ double a_[2][2] = { { %s, 1 }, { 2, %s } }; %s = a_[1][1] * a_[0][0]; }" % (v, v, v), ""),
        ("array_idx_double", "{ double a_[3] = { %s, 2, 3 }; %s = a_[(int)%s & 1]; }" % (v, v, v), ""),
        ("addr_param", "{ double *p_ = &%s; *p_ = 3; }" % v, ""),
        ("cond_assign", "if ((%s = %s * 2) > 1) %s = 0;" % (v, v, v), ""),
        ("logical", "%s = (%s > 0 && %s < 1) || !%s;" % (v, v, v, v), ""),
        ("bitwise_d", "%s = (double)((long)%s & 3);" % (v, v), ""),
        ("deep_if", "if (%s > 0) { if (%s > 1) { if (%s > 2) { %s = %s * 2; } else %s = 1; } }" % (v, v, v, v, v, v), ""),
        ("dead_code", "if (0) { %s = %s / 0.0; }" % (v, v), ""),
        ("while_false", "while (0) { %s = 1; }" % v, ""),
    ]
    return inj


def mutate_tokens(rng, toks, f):
    """One mutation. f: an annotated function to focus on, or None."""
    s = sig(toks)
    if not s:
        return "noop", toks
    if f is not None and rng.random() < 0.85:
        body = [i for i in s if f.lparen <= i <= f.rbrace]
        if body:
            s = body
    kind = rng.choice(["delete", "delete", "delete_run", "dup", "swap_op", "swap_op",
                       "replace_num", "replace_num", "replace_type", "insert_token",
                       "swap_tokens", "rename", "dup_line", "delete_line", "negate",
                       "wrap_paren", "replace_expr"])
    toks = list(toks)
    i = rng.choice(s)
    if kind == "delete":
        toks[i] = Tok("ws", " ")
    elif kind == "delete_run":
        j = s.index(i)
        for q in s[j:j + rng.randint(2, 8)]:
            toks[q] = Tok("ws", " ")
    elif kind == "dup":
        toks.insert(i, Tok(toks[i].kind, toks[i].text))
        toks.insert(i + 1, Tok("ws", " "))
    elif kind == "swap_op":
        ops = [q for q in s if toks[q].text in BINOPS]
        if ops:
            q = rng.choice(ops)
            toks[q] = Tok("op", rng.choice(BINOPS))
    elif kind == "replace_num":
        nums = [q for q in s if toks[q].kind == "num"]
        if nums:
            q = rng.choice(nums)
            toks[q] = Tok("num", rng.choice(HUGE))
    elif kind == "replace_type":
        tys = [q for q in s if toks[q].text in ("double", "float", "int", "long")]
        if tys:
            q = rng.choice(tys)
            toks[q] = Tok("id", rng.choice(TYPES))
    elif kind == "insert_token":
        toks.insert(i, Tok("other", " " + rng.choice(ALLTOKENS) + " "))
    elif kind == "swap_tokens":
        j = rng.choice(s)
        toks[i], toks[j] = toks[j], toks[i]
    elif kind == "rename":
        ids = [q for q in s if toks[q].kind == "id" and toks[q].text not in KEYWORDS]
        if len(ids) >= 2:
            a, b = rng.choice(ids), rng.choice(ids)
            toks[a] = Tok("id", toks[b].text)
    elif kind == "dup_line" or kind == "delete_line":
        # Statement-level: from a ; or { to the next ;
        j = s.index(i)
        end = j
        while end < len(s) and toks[s[end]].text not in (";", "}"):
            end += 1
        chunk = s[j:end + 1]
        if kind == "dup_line":
            ins = [Tok(toks[q].kind, toks[q].text) for q in chunk]
            pos = s[end] + 1 if end < len(s) else len(toks)
            toks[pos:pos] = [Tok("ws", " ")] + sum(([x, Tok("ws", " ")] for x in ins), [])
        else:
            for q in chunk:
                toks[q] = Tok("ws", " ")
    elif kind == "negate":
        ids = [q for q in s if toks[q].kind in ("id", "num") and toks[q].text not in KEYWORDS]
        if ids:
            q = rng.choice(ids)
            toks[q] = Tok("other", "(-%s)" % toks[q].text)
    elif kind == "wrap_paren":
        ids = [q for q in s if toks[q].kind in ("id", "num") and toks[q].text not in KEYWORDS]
        if ids:
            q = rng.choice(ids)
            w = rng.choice(["(%s)", "((double)%s)", "(%s * 1)", "(%s + 0)", "((int)%s)",
                            "(%s ? %s : %s)", "(1 ? %s : 0)", "(-(-%s))", "((long)%s)",
                            "(0, %s)", "(*&%s)", "(%s)[0]"])
            toks[q] = Tok("other", w.replace("%s", toks[q].text))
    elif kind == "replace_expr":
        nums = [q for q in s if toks[q].kind in ("num", "id") and toks[q].text not in KEYWORDS]
        if nums:
            q = rng.choice(nums)
            e = rng.choice(["sin(%s)", "exp(%s)", "sqrt(%s)", "log(%s)", "pow(%s, 3)",
                            "fabs(%s)", "tanh(%s)", "fmax(%s, 1)", "cos(%s) * %s",
                            "atan(%s)", "cbrt(%s)", "expm1(%s)", "log1p(%s)", "erf(%s)",
                            "lgamma(%s)", "tgamma(%s)", "exp2(%s)", "log2(%s)", "log10(%s)",
                            "erfc(%s)", "asinh(%s)", "atanh(%s)", "fma(%s, 2, 1)",
                            "ldexp(%s, 3)", "pow(%s, 2)", "copysign(%s, 1.5)", "fmod(%s, 2.5)",
                            "trunc(%s)"])
            toks[q] = Tok("other", e.replace("%s", toks[q].text))
    return kind, toks


def inject(rng, toks, f):
    """Insert an odd statement into annotated function f."""
    pts = statement_points(toks, f)
    v = pick_var(rng, toks, f)
    ps = param_names(toks, f)
    args = ", ".join(p[1] for p in ps)
    name, stmt, prefix = rng.choice(injections(rng, v, f.name, len(ps), args))
    # Prefer points before the last return, so the statement is not dead.
    pos = rng.choice(pts) if pts else f.lbrace + 1
    toks = list(toks)
    toks.insert(pos, Tok("other", "\n" + stmt + "\n"))
    if prefix:
        toks.insert(0, Tok("other", prefix))
    return "inject-" + name, toks


# ---------------------------------------------------------------------------
# Synthetic stress programs

def synth(rng):
    ann = "__attribute__((differentiable))"
    kind = rng.choice(["deep_paren", "deep_binop", "deep_unary", "deep_ternary",
                       "deep_call", "elseif", "nested_if", "nested_if_braced",
                       "nested_loops", "long_fn", "long_fn_locals", "many_fns",
                       "call_chain", "many_params", "long_loop_body",
                       "deep_assign", "huge_consts", "many_arrays",
                       "wide_expr", "deep_blocks", "loop_in_if_deep",
                       "struct_array", "heap_structs", "table_rows", "rows_params"])
    hdr = "#include <math.h>\n"
    if kind == "deep_paren":
        n = rng.choice([100, 250, 300, 1000, 5000])
        e = "x"
        for k in range(n):
            e = "(%s %s %s)" % (e, rng.choice("+-*"), rng.choice(["x", "1.0", "y", "0.5"]))
        src = "%s double f(double x, double y) { return %s; }\n" % (ann, e)
    elif kind == "deep_binop":
        n = rng.choice([1000, 10000, 50000])
        terms = " ".join("%s %s" % (rng.choice("+-*"), rng.choice(["x", "y", "1.5", "x*y"])) for _ in range(n))
        src = "%s double f(double x, double y) { return x %s; }\n" % (ann, terms)
    elif kind == "deep_unary":
        n = rng.choice([100, 1000, 10000])
        src = "%s double f(double x) { return %sx; }\n" % (ann, "- " * n)
    elif kind == "deep_ternary":
        n = rng.choice([100, 1000, 5000])
        e = " ".join("x > %d ? x * %d :" % (k, k) for k in range(n)) + " x"
        src = "%s double f(double x) { return %s; }\n" % (ann, e)
    elif kind == "deep_call":
        n = rng.choice([50, 200, 255, 1000])
        fn = rng.choice(["sin", "exp", "sqrt", "tanh", "g"])
        e = "x"
        for _ in range(n):
            e = "%s(%s)" % (fn, e)
        src = "%s double g(double x) { return x * 0.5; }\n%s double f(double x) { return %s; }\n" % (ann, ann, e)
    elif kind == "elseif":
        n = rng.choice([100, 1000, 10000])
        body = "if (x < 0) r = -x;\n" + "".join("else if (x < %d) r = x * %d;\n" % (k, k) for k in range(n)) + "else r = x;\n"
        src = "%s double f(double x) { double r = 0;\n%sreturn r; }\n" % (ann, body)
    elif kind == "nested_if":
        n = rng.choice([50, 200, 1000])
        body = "".join("if (x > %d) " % (-k) for k in range(n)) + "r = r * x;\n"
        src = "%s double f(double x) { double r = 1;\n%sreturn r; }\n" % (ann, body)
    elif kind == "nested_if_braced":
        n = rng.choice([50, 200, 255, 300])
        body = "".join("if (x > %d) { r = r + x;\n" % (-k) for k in range(n)) + "r = r * x;\n" + "}" * n + "\n"
        src = "%s double f(double x) { double r = 1;\n%sreturn r; }\n" % (ann, body)
    elif kind == "nested_loops":
        n = rng.choice([5, 10, 30, 100, 200])
        body = "".join("for (int i%d = 0; i%d < 2; i%d++)\n" % (k, k, k) for k in range(n)) + "s += a[i0] * a[i%d];\n" % (n - 1)
        src = "%s double f(const double *a) { double s = 0;\n%sreturn s; }\n" % (ann, body)
    elif kind == "loop_in_if_deep":
        n = rng.choice([10, 50, 100])
        body = "".join("if (a[0] > %d) for (int i%d = 0; i%d < n; i%d++) { s += a[i%d] * %d;\n" % (-k, k, k, k, k, k) for k in range(n)) + "}" * n + "\n"
        src = "%s double f(const double *a, int n) { double s = 0;\n%sreturn s; }\n" % (ann, body)
    elif kind == "long_fn":
        n = rng.choice([1000, 10000])
        body = "".join("t = t * %s + %s;\n" % (rng.choice(["x", "y", "0.999", "t"]), rng.choice(["x", "y", "1.0", "sin(t)"])) for _ in range(n))
        src = hdr + "%s double f(double x, double y) { double t = x;\n%sreturn t; }\n" % (ann, body)
    elif kind == "long_fn_locals":
        n = rng.choice([1000, 10000])
        body = "double t0 = x;\n" + "".join("double t%d = t%d * %s + %s;\n" % (k + 1, k, rng.choice(["x", "y", "0.5"]), "t%d" % rng.randint(0, k)) for k in range(n))
        src = "%s double f(double x, double y) {\n%sreturn t%d; }\n" % (ann, body, n)
    elif kind == "long_loop_body":
        n = rng.choice([500, 5000])
        body = "".join("s += a[i] * %s;\n" % rng.choice(["a[i]", "2.0", "a[0]", "s"]) for _ in range(n))
        src = "%s double f(const double *a, int n) { double s = 0;\nfor (int i = 0; i < n; i++) {\n%s}\nreturn s; }\n" % (ann, body)
    elif kind == "many_fns":
        n = rng.choice([100, 1000, 3000])
        src = "".join("%s double f%d(double x) { return x * %d + x * x; }\n" % (ann, k, k) for k in range(n))
    elif kind == "call_chain":
        n = rng.choice([100, 1000, 2000])
        src = "%s double f0(double x) { return x * x; }\n" % ann + "".join(
            "%s double f%d(double x) { return f%d(x) + x; }\n" % (ann, k + 1, k) for k in range(n))
    elif kind == "many_params":
        n = rng.choice([100, 1000, 5000])
        ps = ", ".join("double p%d" % k for k in range(n))
        es = " + ".join("p%d * p%d" % (k, (k + 1) % n) for k in range(n))
        src = "%s double f(%s) { return %s; }\n" % (ann, ps, es)
    elif kind == "deep_assign":
        n = rng.choice([100, 1000, 5000])
        decls = "double " + ", ".join("v%d" % k for k in range(n)) + ";\n"
        chain = " = ".join("v%d" % k for k in range(n)) + " = x;\n"
        src = "%s double f(double x) {\n%s%sreturn v0 * v%d; }\n" % (ann, decls, chain, n - 1)
    elif kind == "huge_consts":
        body = "".join("r = r * %s + x;\n" % h for h in HUGE)
        src = "%s double f(double x) { double r = 1;\n%sreturn r; }\n" % (ann, body)
    elif kind == "many_arrays":
        n = rng.choice([100, 1000])
        body = "".join("double a%d[4] = {x, %d, x, x};\n" % (k, k) for k in range(n)) + "return " + " + ".join("a%d[%d]" % (k, k % 4) for k in range(n)) + ";\n"
        src = "%s double f(double x) {\n%s}\n" % (ann, body)
    elif kind == "wide_expr":
        n = rng.choice([1000, 10000])
        src = "%s double f(double x) { return %s; }\n" % (ann, " + ".join("x*%d" % k for k in range(n)))
    elif kind == "struct_array":
        # an array of structs of many fields, read through a local pointer
        n = rng.choice([2, 50, 500])
        fields = " ".join("double f%d;" % k for k in range(n))
        terms = " + ".join("p->f%d * pts[(i + %d) %% n].f%d" % (k, k, (k * 7) % n) for k in range(n))
        src = ("struct S_fz { %s int k; double v[3]; };\n"
               "%s double f(const struct S_fz *pts, int n, double a) { double s = 0;\n"
               "for (int i = 0; i < n; i++) { const struct S_fz *p = &pts[i];\n"
               "s += a * (%s) + p->v[p->k %% 3] * p->k; }\nreturn s; }\n" % (fields, ann, terms))
    elif kind == "heap_structs":
        # an array of structs of many fields from malloc or calloc, or a
        # VLA of them, filled, read, freed
        n = rng.choice([2, 50, 300])
        fields = " ".join("double f%d;" % k for k in range(n))
        fill = " ".join("q[i].f%d = x[i] * %d.5;" % (k, k) for k in range(n))
        terms = " + ".join("q[i].f%d * q[(i + %d) %% m].f%d" % (k, k, (k * 3) % n) for k in range(n))
        decl = rng.choice(["struct H_fz *q = malloc((size_t)m * sizeof *q); if (!q) return 0;",
                           "struct H_fz *q = calloc((size_t)m, sizeof(struct H_fz)); if (q == NULL) return 0;",
                           "struct H_fz q[m]; (void)sizeof q;"])
        free = "free(q);" if "alloc" in decl else ""
        src = ("#include <stdlib.h>\nstruct H_fz { %s int k; };\n"
               "%s double f(const double *x, int m) { %s\n"
               "for (int i = 0; i < m; i++) { %s q[i].k = i; }\n"
               "double s = 0; for (int i = 0; i < m; i++) s += %s + q[i].k;\n%s return s; }\n"
               % (fields, ann, decl, fill, terms, free))
    elif kind == "table_rows":
        # a large 2-D constant table whose rows, views and flattened form
        # are passed to a differentiable callee
        rows, cols = rng.choice([(2, 3), (50, 8), (400, 16), (1000, 64)])
        vals = ", ".join("{%s}" % ", ".join("%d.25" % ((r * cols + c) % 17 - 8) for c in range(cols))
                         for r in range(rows))
        src = ("static const double T_fz[%d][%d] = {%s};\n"
               "%s static double dot_fz(const double *r, const double *x) { double s = 0;\n"
               "for (int j = 0; j < %d; j++) s += r[j] * x[j]; return s; }\n"
               "%s double f(const double *x) { double s = 0;\n"
               "for (int i = 0; i < %d; i++) s += dot_fz(T_fz[i], x) * x[i %% %d];\n"
               "return s + dot_fz((const double *)T_fz + %d, x) + dot_fz(&T_fz[0][0], x); }\n"
               % (rows, cols, vals, ann, cols, ann, rows, cols, (rows - 1) * cols))
    elif kind == "rows_params":
        # parameters that take rows of many lengths, passed on whole, at a
        # row and from a row on, read and updated in place
        cols = rng.choice([1, 2, 3, 16, 64, 255])
        src = ("%s static double row_fz(const double *r, const double *x) { double s = 0;\n"
               "for (int j = 0; j < %d; j++) s += r[j] * x[j %% 3]; return s; }\n"
               "%s static double rows_fz(const double (*A)[%d], const double *x, int n) {\n"
               "double s = 0; for (int i = 0; i < n; i++) s += row_fz(A[i], x) * A[i][i %% %d];\n"
               "return s; }\n"
               "%s static void scale_fz(double A[][%d], int n, double k) {\n"
               "for (int i = 0; i < n; i++) for (int j = 0; j < %d; j++) A[i][j] *= k + A[i][(j + 1) %% %d]; }\n"
               "%s double f(double A[][%d], const double *x, int n) {\n"
               "scale_fz(A, n, x[0]); double s = rows_fz(A, x, n);\n"
               "if (n > 1) s += rows_fz(A + 1, x, n - 1) * rows_fz(&A[1], x, 1) + (*A)[0];\n"
               "return s; }\n"
               % (ann, cols, ann, cols, cols, ann, cols, cols, cols, ann, cols))
    else:  # deep_blocks
        n = rng.choice([100, 255, 300, 1000])
        src = "%s double f(double x) { double r = x;\n%sr = r * x;\n%s return r; }\n" % (ann, "{" * n, "}" * n)
    return "synth-" + kind, src


# ---------------------------------------------------------------------------
# Corpus

def load_corpus(root):
    files = []
    for d in ("tests/e2e", "tests/diag", "examples"):
        p = os.path.join(root, d)
        if not os.path.isdir(p):
            continue
        for name in sorted(os.listdir(p)):
            if name.endswith(".c"):
                with open(os.path.join(p, name), errors="replace") as fh:
                    files.append((os.path.join(d, name), fh.read()))
    return files


def extract_functions(corpus):
    """(file, source text) of each annotated function, for cross-over."""
    out = []
    for name, src in corpus:
        toks = tokenize(src)
        for f in find_functions(toks):
            if f.annotated:
                out.append((name, untokenize(toks[f.start:f.rbrace + 1])))
    return out


def make_input(seed, index, corpus, fragments):
    rng = random.Random("%s:%d" % (seed, index))
    r = rng.random()
    if r < 0.05:
        recipe, src = synth(rng)
        if rng.random() < 0.3:
            toks = tokenize(src)
            fs = [f for f in find_functions(toks) if f.annotated]
            if fs:
                k, toks = inject(rng, toks, rng.choice(fs))
                recipe += "+" + k
                src = untokenize(toks)
        return recipe, src
    name, src = rng.choice(corpus)
    recipe = ["mut:" + name]
    toks = tokenize(src)
    if r < 0.12 and fragments:
        # Cross-over: a function from another file pasted in.
        fn, text = rng.choice(fragments)
        pos = rng.choice([0, len(toks)])
        toks.insert(pos, Tok("other", "\n" + text + "\n"))
        recipe.append("paste:" + fn)
    nmut = rng.choice([1, 1, 1, 2, 2, 3, 4, 6])
    for _ in range(nmut):
        fs = [f for f in find_functions(toks) if f.annotated]
        f = rng.choice(fs) if fs else None
        if f is not None and rng.random() < 0.4:
            k, toks = inject(rng, toks, f)
        else:
            k, toks = mutate_tokens(rng, toks, f)
        recipe.append(k)
    return ",".join(recipe), untokenize(toks)


# ---------------------------------------------------------------------------
# Running clang

FLAGS_BASE = ["-fno-caret-diagnostics", "-fno-color-diagnostics", "-fno-crash-diagnostics",
              "-ferror-limit=0", "-Wall", "-Wextra", "-pedantic"]
CRASH_MARKERS = ["PLEASE submit a bug report", "Assertion", "Stack dump",
                 "frontend command failed", "unable to execute command",
                 "LLVM ERROR", "UNREACHABLE executed", "Segmentation fault",
                 "Aborted", "terminate called", "std::bad_alloc"]


class Ctx:
    def __init__(self, args):
        self.clang = args.clang
        self.plugin = args.plugin
        self.timeout = args.timeout
        self.includes = ["-I" + os.path.join(ROOT, d) for d in ("include", "tests/e2e", "examples", "tests/diag")]


def run(cmd, timeout, cwd=None):
    """(returncode or None on timeout, output, seconds)."""
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         cwd=cwd, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        out, _ = p.communicate()
        rc = None
    return rc, out.decode("utf-8", "replace"), time.time() - t0


def compile_cmd(ctx, path, opts, plugin=True, out="/dev/null", extra=()):
    cmd = [ctx.clang]
    if plugin:
        cmd.append("-fplugin=" + ctx.plugin)
    return cmd + FLAGS_BASE + opts + ctx.includes + list(extra) + ["-c", path, "-o", out]


INFO_SUFFIX = "-after-user-error"
DIAG_RE = re.compile(r"^(?P<loc>.*?):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning|note|fatal error|remark): (?P<msg>.*)$")


def is_crash(rc, out):
    if rc is None:
        return False
    if rc < 0 or rc > 1:
        return True
    return any(m in out for m in CRASH_MARKERS)


def crash_signature(out):
    for line in out.splitlines():
        if "Assertion" in line:
            return re.sub(r"^.*?Assertion", "Assertion", line.strip())[:200]
    frames = []
    for line in out.splitlines():
        m = re.match(r"\s*#\d+ 0x[0-9a-f]+ (.*)$", line)
        if m and ("chad" in m.group(1)):
            fr = re.sub(r"\(/[^)]*\+0x[0-9a-f]+\)", "", m.group(1))
            fr = re.sub(r"\s+/\S+:\d+:\d+$", "", fr)
            frames.append(fr.strip()[:120])
            if len(frames) == 3:
                break
    if frames:
        return " | ".join(frames)
    for m in CRASH_MARKERS:
        if m in out:
            return m
    return "signal"


def classify(ctx, rc, out, secs, src_name):
    """List of (kind, detail) findings for one plugin compile."""
    finds = []
    if rc is None:
        return [("hang", "timeout after %.0fs" % secs)]
    if is_crash(rc, out):
        return [("crash", crash_signature(out))]
    user_error = False
    user_flags = set()
    for line in out.splitlines():
        m = DIAG_RE.match(line)
        if m and not m.group("loc").endswith(".chad.c"):
            if m.group("sev") in ("error", "fatal error") and "chad:" not in m.group("msg"):
                user_error = True
            user_flags.update(re.findall(r"\[(-W[\w-]+)", m.group("msg")))
    for line in out.splitlines():
        m = DIAG_RE.match(line)
        if "chad:" in line and (line.startswith("error") or "error: " in line or "warning: " in line):
            if not m or not m.group("loc"):
                finds.append(("unlocated", line.strip()[:200]))
                continue
        if m and m.group("loc").endswith(".chad.c") and m.group("sev") in ("error", "fatal error", "warning"):
            kind = "generated-" + m.group("sev").replace("fatal ", "")
            flags = re.findall(r"\[(-W[\w-]+)", m.group("msg"))
            # After an error in the user's own code the AST may be invalid,
            # and a warning the user's own code has too (division by zero,
            # overflow, ...) is only echoed by the recomputed primal: worth
            # knowing, not a failure.
            if user_error:
                kind += INFO_SUFFIX
            elif kind == "generated-warning" and flags and set(flags) <= user_flags:
                kind += "-echo"
            finds.append((kind, m.group("msg")[:200]))
    return finds


# ---------------------------------------------------------------------------
# Derivative check (optional)

FN_RE = re.compile(r"^\s*(static\s+)?(inline\s+)?double\s+(\w+)\s*\(\s*(double\s+\w+(?:\s*,\s*double\s+\w+)*)\s*\)\s*\{")


def deriv_targets(src):
    toks = tokenize(src)
    out = []
    for f in find_functions(toks):
        if not f.annotated:
            continue
        ps = param_names(toks, f)
        if not ps or len(ps) > 8 or any(p[0] != "double" or p[2] for p in ps):
            continue
        # Float rounding makes finite differences meaningless.
        if any(toks[i].text in ("float", "_Float16") for i in range(f.lbrace, f.rbrace)):
            continue
        # Return type double: the token before the name.
        s = sig(toks)
        j = s.index(f.lparen)
        if j < 2 or toks[s[j - 2]].text != "double":
            continue
        out.append((f.name, len(ps)))
    return out


def deriv_driver(targets):
    lines = ["\n#undef main",
             "#include <math.h>", "#include <stdio.h>",
             "static int chadfz_bad;",
             "static int chadfz_close(double a, double b, double tol) {",
             "  return fabs(a - b) <= tol * (1 + fabs(a) + fabs(b)); }",
             "/* a central difference of f with step h carries the rounding of f's values:",
             " * up to a few ulps of |f| over h (a large constant term makes this dominate) */",
             "static double chadfz_noise(double y, double h) { return 8 * 2.3e-16 * (1 + fabs(y)) / h; }"]
    calls = []
    for name, n in targets:
        xs = ", ".join("fz_x[%d]" % k for k in range(n))
        xh = ", ".join("fz_xh[%d]" % k for k in range(n))
        rev = ", ".join("fz_x[%d], &fz_g[%d]" % (k, k) for k in range(n))
        fwd = ", ".join("fz_x[%d], fz_dx[%d]" % (k, k) for k in range(n))
        lines += [
            "static void chadfz_%s(unsigned fz_seed) {" % name,
            "  double fz_x[%d], fz_g[%d], fz_xh[%d], fz_dx[%d];" % (n, n, n, n),
            "  for (int fz_p = 0; fz_p < 3; fz_p++) {",
            "    for (int fz_k = 0; fz_k < %d; fz_k++) { fz_seed = fz_seed * 1103515245u + 12345u; fz_x[fz_k] = 0.6 + (fz_seed >> 16) %% 1000 / 1000.0; fz_g[fz_k] = 0; fz_dx[fz_k] = 0; }" % n,
            "    double fz_y = %s(%s);" % (name, xs),
            "    if (!isfinite(fz_y) || fabs(fz_y) > 1e100) continue;",
            "    double fz_yr = %s_rev(%s, 1.0);" % (name, rev),
            "    if (!(fz_yr == fz_y) && !(isnan(fz_y) && isnan(fz_yr))) { printf(\"CHADFZ %s: f_rev returns %%.17g, f %%.17g\\n\", fz_yr, fz_y); chadfz_bad = 1; }" % name,
            "    for (int fz_k = 0; fz_k < %d; fz_k++) {" % n,
            "      double fz_fd[2];",
            "      for (int fz_s = 0; fz_s < 2; fz_s++) { double fz_h = (fz_s ? 2e-6 : 1e-6) * (1 + fabs(fz_x[fz_k]));",
            "        for (int fz_q = 0; fz_q < %d; fz_q++) fz_xh[fz_q] = fz_x[fz_q];" % n,
            "        fz_xh[fz_k] = fz_x[fz_k] + fz_h; double fz_yp = %s(%s);" % (name, xh),
            "        fz_xh[fz_k] = fz_x[fz_k] - fz_h; double fz_ym = %s(%s);" % (name, xh),
            "        fz_fd[fz_s] = (fz_yp - fz_ym) / (2 * fz_h); }",
            "      double fz_noise = chadfz_noise(fz_y, 1e-6 * (1 + fabs(fz_x[fz_k])));",
            "      if (!isfinite(fz_fd[0]) || !isfinite(fz_fd[1]) || !(fabs(fz_fd[0] - fz_fd[1]) <= 1e-4 * (1 + fabs(fz_fd[0]) + fabs(fz_fd[1])) + fz_noise)) continue;",
            "      if (!isfinite(fz_g[fz_k])) { printf(\"CHADFZ-NONFINITE %s: d/dx%%d at point %%d: rev %%.17g, finite differences %%.17g\\n\", fz_k, fz_p, fz_g[fz_k], fz_fd[0]); chadfz_bad |= 4; continue; }" % name,
            "      if (!(fabs(fz_g[fz_k] - fz_fd[0]) <= 1e-3 * (1 + fabs(fz_g[fz_k]) + fabs(fz_fd[0])) + fz_noise)) { printf(\"CHADFZ %s: d/dx%%d at point %%d: rev %%.17g, finite differences %%.17g\\n\", fz_k, fz_p, fz_g[fz_k], fz_fd[0]); chadfz_bad = 1; }" % name,
            "      for (int fz_q = 0; fz_q < %d; fz_q++) fz_dx[fz_q] = fz_q == fz_k;" % n,
            "      double fz_dr = 0; double fz_yf = %s_fwd(%s, &fz_dr);" % (name, fwd),
            "      if (!(fz_yf == fz_y)) { printf(\"CHADFZ %s: f_fwd returns %%.17g, f %%.17g\\n\", fz_yf, fz_y); chadfz_bad = 1; }" % name,
            "      if (!chadfz_close(fz_dr, fz_g[fz_k], 1e-9)) { printf(\"CHADFZ %s: d/dx%%d: fwd %%.17g, rev %%.17g\\n\", fz_k, fz_dr, fz_g[fz_k]); chadfz_bad = 1; }" % name,
            "    }",
            "  }",
            "}"]
        calls.append("  chadfz_%s(%du);" % (name, sum(map(ord, name)) % 1000 + 1))
    lines += ["int main(void) {"] + calls + ["  return chadfz_bad & 1 ? 3 : chadfz_bad ? 4 : 0;", "}"]
    return "\n".join(lines) + "\n"


UB_WARNINGS = re.compile(r"-Wdivision-by-zero|-Winteger-overflow|-Wshift-|uninitialized|-Warray-bounds|"
                         r"-Wreturn-type|-Wconstant-conversion|-Wliteral-range|-Wimplicit-int")


def input_has_ub(ctx, cmd, path, exe):
    """Whether the input itself has undefined behaviour at the points the
    driver ran (a VLA of zero elements, an element read past the end...),
    by UBSan: then f and its derivatives may legitimately disagree. Only a
    report located in the input counts, not one in the generated code."""
    ub_exe = exe + "-ubsan"
    rc, out, _ = run(cmd[:-4] + ["-fsanitize=undefined,address", path, "-o", ub_exe, "-lm"], 120)
    if rc != 0:
        return False
    rc, out, _ = run([ub_exe], 30)
    name = os.path.basename(path)
    return any(("runtime error" in l or "ERROR: AddressSanitizer" in l or "#0 " in l)
               and (name + ":") in l and ".chad.c" not in l for l in out.splitlines())


DRIVER_TIMEOUT = "derivative driver compile timed out"
# A driver checks at most this many functions, spread over the input: a
# checker is 25 lines, and one per function of a 3000-function input made
# the driver 84000 lines, slower to compile at -O0 than the input itself.
MAX_DRIVER_TARGETS = 48
# Alone, a compile that timed out under load gets this many times the
# per-input limit: CI machines run other tests beside the batch, and are
# slower than a workstation by a factor of two or more (input 118 of seed
# ci, a 10^4-statement function, took 7 s here and 17 s there). A real hang
# never ends, and a blow-up of superlinear cost still passes this limit.
ALONE_FACTOR = 3


def spread(items, most):
    """At most `most` of items, evenly spaced, first and last included."""
    if len(items) <= most:
        return items
    return [items[i * (len(items) - 1) // (most - 1)] for i in range(most)]


def check_derivs(ctx, src, opts, workdir, out="", timeout=None):
    """Findings from linking and running the derivative driver.  Skipped
    when clang warned about undefined behaviour (1 / 0, overflow, ...):
    then f and its derivatives may legitimately disagree."""
    if UB_WARNINGS.search(out):
        return [], False
    targets = spread(deriv_targets(src), MAX_DRIVER_TARGETS)
    if not targets:
        return [], False
    path = os.path.join(workdir, "d.c")
    with open(path, "w") as fh:
        fh.write("#define main chadfz_orig_main\n" + src + deriv_driver(targets))
    exe = os.path.join(workdir, "d.out")
    cmd = [ctx.clang, "-fplugin=" + ctx.plugin, "-fno-caret-diagnostics", "-fno-crash-diagnostics",
           "-w"] + [o for o in opts if o.startswith("-std")] + ["-O0"] + ctx.includes + [path, "-o", exe, "-lm"]
    rc, out, secs = run(cmd, timeout or ctx.timeout)
    if rc is None:
        return [("hang", DRIVER_TIMEOUT)], True
    if is_crash(rc, out):
        return [("crash", crash_signature(out))], True
    if rc != 0:
        return [], False  # the driver did not fit the program (renamed functions etc.)
    rc, out, secs = run([exe], 10)
    if rc == 3:
        first = [l for l in out.splitlines() if l.startswith("CHADFZ ")]
        if input_has_ub(ctx, cmd, path, exe):
            return [("input-ub", (first[0] if first else out)[:200])], True
        return [("wrong-derivative", (first[0] if first else out)[:200])], True
    if rc == 4:
        # A NaN or infinite gradient where finite differences are finite:
        # usually an infinite intermediate (x / 0 times 0), rarely a bug.
        first = [l for l in out.splitlines() if l.startswith("CHADFZ")]
        return [("nonfinite-derivative", (first[0] if first else out)[:200])], True
    return [], True


# ---------------------------------------------------------------------------
# Reduction (line deletion)

def reduce_lines(src, still_fails, budget):
    """ddmin-style line deletion under a time budget (seconds)."""
    lines = src.split("\n")
    t0 = time.time()
    chunk = max(1, len(lines) // 2)
    while chunk >= 1 and time.time() - t0 < budget:
        i = 0
        changed = False
        while i < len(lines) and time.time() - t0 < budget:
            cand = lines[:i] + lines[i + chunk:]
            if cand and still_fails("\n".join(cand)):
                lines = cand
                changed = True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Driver

class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {}
        self.findings = []   # (kind, detail, recipe, path, known)
        self.sigs = {}
        self.slowest = (0.0, "")
        self.timed_out = []  # inputs that hit the timeout: run again alone at the end

    def bump(self, k):
        with self.lock:
            self.counts[k] = self.counts.get(k, 0) + 1


def load_known(path):
    known = []
    if path and os.path.exists(path):
        with open(path) as fh:
            for line in fh:
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                kind, _, rx = line.partition(" ")
                known.append((kind, re.compile(rx.strip())))
    return known


def is_known(known, kind, text):
    return any(k == kind and rx.search(text) for k, rx in known)


def test_one(ctx, args, stats, known, index, corpus, fragments):
    recipe, src = make_input(args.seed, index, corpus, fragments)
    rng = random.Random("opts:%s:%d" % (args.seed, index))
    opts = [rng.choice(["-std=c99", "-std=c11", "-std=c17", "-std=c2x", "-std=gnu11"]),
            rng.choice(["-O0", "-O0", "-O1", "-O2"])]
    workdir = tempfile.mkdtemp(prefix="chadfz%d_" % index, dir=args.workdir)
    try:
        path = os.path.join(workdir, "fz%d.c" % index)
        with open(path, "w") as fh:
            fh.write(src)
        rc, out, secs = run(compile_cmd(ctx, path, opts), ctx.timeout)
        with stats.lock:
            if secs > stats.slowest[0]:
                stats.slowest = (secs, "%d %s" % (index, recipe))
        finds = classify(ctx, rc, out, secs, path)
        if rc is not None and secs > args.slow:
            stats.bump("slow(>%gs)" % args.slow)
        if args.log:
            with stats.lock:
                args.log.write("%d\t%s\t%.2f\t%s\t%s\n" % (index, rc, secs, recipe,
                                                          ";".join(k for k, _ in finds)))
                args.log.flush()
        if rc == 0:
            stats.bump("compiled")
        elif rc == 1 and not finds:
            stats.bump("chad-error" if "chad: cannot differentiate" in out else "c-error")
        derivs_ran = False
        if rc == 0 and not finds and args.derivs > 0 and rng.random() < args.derivs:
            dfinds, derivs_ran = check_derivs(ctx, src, opts, workdir, out)
            finds += dfinds
            if derivs_ran:
                stats.bump("derivs-checked")
        for kind, detail in finds:
            clang_only = False
            if kind == "hang" and not args.no_rerun and (rc is None or detail == DRIVER_TIMEOUT):
                # the parallel workers share the machine: judged alone later
                with stats.lock:
                    stats.timed_out.append((index, recipe, src, opts, detail, out))
                continue
            if kind in ("crash", "hang"):
                prc, pout, _ = run(compile_cmd(ctx, path, opts, plugin=False), ctx.timeout)
                if prc is None or is_crash(prc, pout):
                    clang_only = True
            text = recipe + "\n" + detail
            kn = is_known(known, kind, text)
            record(ctx, args, stats, index, recipe, src, opts, kind, detail, "exit status: %s\n%s" % (rc, out), clang_only, kn)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


SLOW_RATIO = 30  # a plugin compile this many times plain clang's is a hang


def rerun_timeouts(ctx, args, stats, known):
    """An input that timed out while other inputs compiled beside it is run
    again alone, with ALONE_FACTOR times the timeout: only if it times out
    alone is it a hang. Otherwise it counts as slow-under-load, with its time alone. A
    timeout on an input that plain clang needs more than a tenth of the
    limit for (at -O2, a function of 10^4 statements takes clang 10 s) is
    slow-input: not a hang of ours."""
    for index, recipe, src, opts, detail, out in sorted(stats.timed_out):
        if detail == DRIVER_TIMEOUT:
            # the input compiled; its derivative driver is compiled again alone
            with tempfile.TemporaryDirectory(dir=args.workdir) as td:
                t0 = time.time()
                finds, _ = check_derivs(ctx, src, opts, td, timeout=ALONE_FACTOR * ctx.timeout)
            if not any(k == "hang" for k, _ in finds):
                stats.bump("slow-under-load")
                if not args.quiet:
                    print("[slow-under-load] input %d (%s): driver %.1fs alone"
                          % (index, recipe[:100], time.time() - t0), flush=True)
                for kind, d in finds:
                    record(ctx, args, stats, index, recipe, src, opts, kind, d, out, False,
                           is_known(known, kind, recipe + "\n" + d))
                continue
            kn = is_known(known, "hang", recipe + "\n" + detail)
            record(ctx, args, stats, index, recipe, src, opts, "hang", detail + " (also alone)",
                   "exit status: 0\n" + out, False, kn)
            continue
        with tempfile.TemporaryDirectory(dir=args.workdir) as td:
            path = os.path.join(td, "fz%d.c" % index)
            with open(path, "w") as fh:
                fh.write(src)
            rc, out2, secs = run(compile_cmd(ctx, path, opts), ALONE_FACTOR * ctx.timeout)
            if rc is not None:
                stats.bump("slow-under-load")
                if not args.quiet:
                    print("[slow-under-load] input %d (%s): %.1fs alone" % (index, recipe[:100], secs), flush=True)
                continue
            prc, pout, psecs = run(compile_cmd(ctx, path, opts, plugin=False), ctx.timeout)
            clang_only = prc is None or is_crash(prc, pout)
            if not clang_only and psecs > ctx.timeout / 10:
                # clang alone needs a tenth of the limit for this input: the
                # derivatives are several times its code, and LLVM's time
                # grows faster than the code in one huge function. Slow,
                # not hung, if within SLOW_RATIO times plain clang's time.
                limit = min(SLOW_RATIO * psecs, 600)
                rc3, _, secs3 = run(compile_cmd(ctx, path, opts), limit)
                if rc3 is not None:
                    stats.bump("slow-input")
                    if not args.quiet:
                        print("[slow-input] input %d (%s): %.1fs, plain clang %.1fs (%.0fx)"
                              % (index, recipe[:100], secs3, psecs, secs3 / psecs), flush=True)
                    continue
                detail += " (and > %dx plain clang's %.1fs)" % (SLOW_RATIO, psecs)
        kn = is_known(known, "hang", recipe + "\n" + detail)
        record(ctx, args, stats, index, recipe, src, opts, "hang", detail + " (also alone)",
               "exit status: None\n" + out, clang_only, kn)


def record(ctx, args, stats, index, recipe, src, opts, kind, detail, out, clang_only, known):
    label = ("clang-only-" if clang_only else "") + kind
    stats.bump(label + (" (known)" if known else ""))
    key = (label, re.sub(r"\d+", "N", detail)[:120])
    with stats.lock:
        n = stats.sigs.get(key, 0)
        stats.sigs[key] = n + 1
        first = n == 0
    path = None
    if n < args.save_per_sig and not args.no_save:
        d = os.path.join(args.crashes, "clang-only") if clang_only else args.crashes
        os.makedirs(d, exist_ok=True)
        h = hashlib.sha1(src.encode()).hexdigest()[:8]
        base = "s%s_i%d_%s_%s" % (args.seed, index, kind, h)
        path = os.path.join(d, base + ".c")
        reduced = None
        if first and kind == "crash" and not clang_only and args.reduce_budget > 0 and src.count("\n") < 400:
            def still(cand):
                with tempfile.TemporaryDirectory(dir=args.workdir) as td:
                    p = os.path.join(td, "r.c")
                    with open(p, "w") as fh:
                        fh.write(cand)
                    rc, o, _ = run(compile_cmd(ctx, p, opts), min(ctx.timeout, 10))
                    return rc is not None and is_crash(rc, o) and crash_signature(o) == detail
            reduced = reduce_lines(src, still, args.reduce_budget)
        with open(path, "w") as fh:
            fh.write(reduced if reduced is not None else src)
        if reduced is not None:
            with open(os.path.join(d, base + ".orig.c"), "w") as fh:
                fh.write(src)
        with open(os.path.join(d, base + ".txt"), "w") as fh:
            fh.write("kind: %s%s\nrecipe: %s\nsymptom: %s\nregenerate: tests/fuzz/fuzz.py --seed %s --only %d --print\n"
                     "command: clang -fplugin=libchad.so %s %s -c %s\n\n--- clang output (plugin) ---\n%s\n"
                     % (label, " (known)" if known else "", recipe, detail, args.seed, index,
                        " ".join(FLAGS_BASE), " ".join(opts), base + ".c", out[-20000:]))
    with stats.lock:
        stats.findings.append((label, detail, recipe, path, known, index))
    if first and not args.quiet:
        print("[%s%s] input %d (%s): %s%s" % (label, " known" if known else "", index, recipe[:100], detail,
                                             (" -> " + path) if path else ""), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--start", type=int, default=0, help="first input index")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", type=int, help="run (or --print) only input number ONLY")
    ap.add_argument("--print", action="store_true", help="print the input(s) instead of running")
    ap.add_argument("--clang", default=os.environ.get("CHAD_CLANG", "/usr/lib/llvm-14/bin/clang"))
    ap.add_argument("--plugin", default=os.environ.get("CHAD_PLUGIN", os.path.join(ROOT, "build", "libchad.so")))
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--crashes", default=os.path.join(HERE, "crashes", "new"))
    ap.add_argument("--known", default=os.path.join(HERE, "crashes", "known.txt"))
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--derivs", type=float, default=0.5, help="fraction of compiled inputs whose derivatives are checked")
    ap.add_argument("--reduce-budget", type=float, default=120, help="seconds per crash reduction (0: off)")
    ap.add_argument("--save-per-sig", type=int, default=2)
    ap.add_argument("--no-save", action="store_true")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--slow", type=float, default=5, help="count compiles slower than this (seconds)")
    ap.add_argument("--no-rerun", action="store_true",
                    help="report a timeout as a hang at once, without running the input again alone")
    ap.add_argument("--log", type=argparse.FileType("w"), help="write one line per input: index, exit, seconds, recipe, findings")
    ap.add_argument("--replay", nargs="*", help="compile these files instead of generating inputs")
    args = ap.parse_args()

    corpus = load_corpus(ROOT)
    if not corpus:
        print("fuzz.py: no corpus under %s (set CHAD_ROOT)" % ROOT, file=sys.stderr)
        return 2
    fragments = extract_functions(corpus)
    indices = [args.only] if args.only is not None else list(range(args.start, args.start + args.count))

    if args.print:
        for i in indices:
            recipe, src = make_input(args.seed, i, corpus, fragments)
            sys.stdout.write("/* fuzz input %d, seed %s: %s */\n%s\n" % (i, args.seed, recipe, src))
        return 0

    if not os.path.exists(args.plugin):
        print("fuzz.py: plugin not found: %s" % args.plugin, file=sys.stderr)
        return 2
    ctx = Ctx(args)
    stats = Stats()
    known = load_known(args.known)
    own_workdir = args.workdir is None
    if own_workdir:
        args.workdir = tempfile.mkdtemp(prefix="chadfuzz_")

    if args.replay is not None:
        bad = 0
        for p in args.replay:
            opts = ["-std=c11", "-O0"]
            rc, out, secs = run(compile_cmd(ctx, p, opts), ctx.timeout)
            finds = classify(ctx, rc, out, secs, p)
            print("%s: %s" % (p, "; ".join("%s: %s" % f for f in finds) if finds else "ok (exit %s)" % rc))
            bad += bool(finds)
        if own_workdir:
            shutil.rmtree(args.workdir, ignore_errors=True)
        return 1 if bad else 0

    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        futs = [ex.submit(test_one, ctx, args, stats, known, i, corpus, fragments) for i in indices]
        done = 0
        for fut in concurrent.futures.as_completed(futs):
            exc = fut.exception()
            if exc is not None:
                stats.bump("harness-error")
                print("fuzz.py: harness error: %r" % exc, file=sys.stderr)
            done += 1
            if not args.quiet and done % 500 == 0:
                print("... %d/%d inputs, %.0fs, %s" % (done, len(indices), time.time() - t0,
                                                      dict(sorted(stats.counts.items()))), flush=True)
    rerun_timeouts(ctx, args, stats, known)
    if own_workdir:
        shutil.rmtree(args.workdir, ignore_errors=True)

    new = [f for f in stats.findings
           if not f[4] and not f[0].startswith("clang-only") and not f[0].endswith(INFO_SUFFIX)
           and not f[0].endswith("-echo") and f[0] not in ("nonfinite-derivative", "input-ub")]
    print("fuzz.py: seed %s, %d inputs in %.0fs: %s" % (args.seed, len(indices), time.time() - t0,
                                                       ", ".join("%s %d" % kv for kv in sorted(stats.counts.items()))))
    print("fuzz.py: slowest input %.1fs: %s" % stats.slowest)
    sigs = {}
    for label, detail, recipe, path, kn, idx in stats.findings:
        key = (label, re.sub(r"\d+", "N", detail)[:120], kn)
        sigs.setdefault(key, []).append((idx, path, detail, recipe))
    for (label, _, kn), items in sorted(sigs.items()):
        recipes = sorted(set(re.sub(r"^mut:[^,]*,?", "", it[3]) or it[3] for it in items))
        print("  %-22s x%-4d %s%s\n      e.g. input %d %s\n      recipes: %s" % (
            label, len(items), "[known] " if kn else "", items[0][2][:150], items[0][0], items[0][1] or "",
            " ".join(recipes)[:300]))
    if stats.counts.get("harness-error"):
        return 1
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
