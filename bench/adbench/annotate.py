#!/usr/bin/env python3
"""annotate.py SRC OUT: copy a C file, adding __attribute__((differentiable))
in front of every top-level function definition and changing nothing else
(issue 10: a user of chad adds the attribute and nothing else).

Line numbers are kept (the attribute goes on the definition's first line), so
chad's diagnostics point at the same lines as in SRC.  A top-level line that
starts a declarator `type name(` is a definition when the first `{` or `;`
after it, at depth 0, is a `{`."""
import re
import sys

DECL = re.compile(r'^(?:static\s+|inline\s+)*[A-Za-z_][A-Za-z_0-9]*(?:\s+const)?[\s*]+[A-Za-z_][A-Za-z_0-9]*\s*\(')


def strip_comments_and_strings(text):
    """Blank out comments and literals (keeping newlines) so braces in them do not count."""
    pattern = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', re.S)
    return pattern.sub(lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text)


def definition_lines(text):
    """Indices of the lines that start a top-level function definition."""
    clean = strip_comments_and_strings(text)
    lines = clean.split('\n')
    found, depth = [], 0
    for i, line in enumerate(lines):
        if depth == 0 and not line.startswith('#') and DECL.match(line):
            rest = '\n'.join(lines[i:])
            first = min((p for p in (rest.find('{'), rest.find(';')) if p >= 0), default=-1)
            if first >= 0 and rest[first] == '{':
                found.append(i)
        depth += line.count('{') - line.count('}')
    return found


def main():
    src, out = sys.argv[1], sys.argv[2]
    with open(src, encoding='utf-8') as f:
        text = f.read()
    lines = text.split('\n')
    for i in definition_lines(text):
        lines[i] = '__attribute__((differentiable)) ' + lines[i]
    with open(out, 'w', encoding='utf-8') as f:
        f.write('\n'.join(lines))


if __name__ == '__main__':
    main()
