#!/usr/bin/env python3
"""code_sizes.py OBJ NAME: table rows of the object code of f, f_fwd and
f_rev for every f_rev that OBJ defines (compile_report.sh, issue 10).
code_sizes.py --versus NAME F_OBJ F G_OBJ G: one row, the call tree of G
(a hand-written reverse) against that of F.

Two measures. `f` alone is the symbol's size (nm -S): helpers clang inlined
into it count as its own, those it calls do not, while f_rev often inlines
the derivatives of the very callees f calls (ba.c's compute_reproj_error
calls project; its f_rev holds project's derivative). So the rows also give
each function's call tree: its size plus that of every function of the
object it calls, directly or not (relocations in its code, and direct
calls and jumps to a function's start, objdump -dr),
and the ratio of the trees, the code that runs for the gradient against
the code that runs for the value."""
import re
import subprocess
import sys


def read_object(obj):
    """The sizes of obj's functions (nm -S) and, for each, the functions of
    obj its code refers to (relocations, objdump -dr)."""
    size = {}
    for line in subprocess.run(["nm", "-S", "-t", "d", "--defined-only", obj],
                               capture_output=True, text=True, check=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "Tt":
            size[parts[3]] = int(parts[1])
    calls = {s: set() for s in size}
    current, target = None, None
    dump = subprocess.run(["objdump", "-dr", "--no-show-raw-insn", obj],
                          capture_output=True, text=True, check=True).stdout

    def note(callee):
        if current in calls and callee in size and callee != current:
            calls[current].add(callee)

    for line in dump.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            current, target = m.group(1), None
            continue
        # a relocation names the callee of the instruction before it; a
        # direct call or jump with none (to a static helper of the same
        # section) names its target, a function's start
        m = re.search(r"R_X86_64_\w+\s+([A-Za-z_][\w.$]*)", line)
        if m:
            note(m.group(1))
            target = None
            continue
        if target:
            note(target)
        m = re.search(r"\s(?:call|jmp)\s+[0-9a-f]+ <([A-Za-z_][\w.$]*)>", line)
        target = m.group(1) if m else None
    if target:
        note(target)
    return size, calls


def tree(size, calls, f):
    """f's size plus that of every function of its object it calls."""
    seen, todo = set(), [f]
    while todo:
        g = todo.pop()
        if g not in seen:
            seen.add(g)
            todo += calls.get(g, ())
    return sum(size[g] for g in seen)


def rows(obj, name):
    size, calls = read_object(obj)
    out = []
    for s in size:
        f = s[:-4] if s.endswith("_rev") else None
        if f is None or f not in size:
            continue
        fwd = size.get(f + "_fwd", 0)
        tf, ts = tree(size, calls, f), tree(size, calls, s)
        out.append("| %s | %s | %d | %d | %d | %.2f | %d | %d | %.2f |" % (
            name, f, size[f], fwd, size[s], size[s] / size[f], tf, ts, ts / tf))
    for r in sorted(out):
        print(r)


def versus(name, f_obj, f, g_obj, g):
    """One row: the tree of g (a hand-written reverse) against f's."""
    tf = tree(*read_object(f_obj), f)
    tg = tree(*read_object(g_obj), g)
    print("| %s | %s | %d | %s | %d | %.2f |" % (name, f, tf, g, tg, tg / tf))


def main():
    if sys.argv[1] == "--versus":
        versus(*sys.argv[2:7])
    else:
        rows(sys.argv[1], sys.argv[2])


if __name__ == "__main__":
    main()
