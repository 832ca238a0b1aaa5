#!/usr/bin/env python3
"""code_sizes.py OBJ NAME: table rows of the object code of f, f_fwd and
f_rev for every f_rev that OBJ defines (compile_report.sh, issue 10).

Two measures. `f` alone is the symbol's size (nm -S): helpers clang inlined
into it count as its own, those it calls do not, while f_rev often inlines
the derivatives of the very callees f calls (ba.c's compute_reproj_error
calls project; its f_rev holds project's derivative). So the rows also give
each function's call tree: its size plus that of every function of the
object it calls, directly or not (relocations in its code, objdump -dr),
and the ratio of the trees, the code that runs for the gradient against
the code that runs for the value."""
import re
import subprocess
import sys


def main():
    obj, name = sys.argv[1], sys.argv[2]
    size = {}
    for line in subprocess.run(["nm", "-S", "-t", "d", "--defined-only", obj],
                               capture_output=True, text=True, check=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "Tt":
            size[parts[3]] = int(parts[1])
    calls = {s: set() for s in size}
    current = None
    dump = subprocess.run(["objdump", "-dr", "--no-show-raw-insn", obj],
                          capture_output=True, text=True, check=True).stdout
    for line in dump.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            current = m.group(1)
            continue
        m = re.search(r"R_X86_64_\w+\s+([A-Za-z_][\w.$]*)", line)
        if m and current in calls and m.group(1) in size and m.group(1) != current:
            calls[current].add(m.group(1))

    def tree(f):
        seen, todo = set(), [f]
        while todo:
            g = todo.pop()
            if g not in seen:
                seen.add(g)
                todo += calls.get(g, ())
        return sum(size[g] for g in seen)

    rows = []
    for s in size:
        f = s[:-4] if s.endswith("_rev") else None
        if f is None or f not in size:
            continue
        fwd = size.get(f + "_fwd", 0)
        rows.append("| %s | %s | %d | %d | %d | %.2f | %d | %d | %.2f |" % (
            name, f, size[f], fwd, size[s], size[s] / size[f], tree(f), tree(s),
            tree(s) / tree(f)))
    for r in sorted(rows):
        print(r)


if __name__ == "__main__":
    main()
