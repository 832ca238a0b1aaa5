#!/bin/sh
# selfcontained.sh SOURCE_DIR: the repository refers to nothing outside
# itself. Greps every tracked file (git ls-files) for the names of the
# shared folders beside the checkout and for absolute paths into the
# machine it was developed on, and fails listing what it finds. The one
# exception is .ci/run, which hands those folders to the tests as
# arguments. (The patterns are spelt in pieces so that this file does not
# match itself.)
set -eu
cd "$1"
git="git -c safe.directory=$(pwd)"
if ! $git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "not a git checkout: skipped"
    exit 77
fi
d=.
s=shared
found=$($git grep -n -I -F -e "$d./$s" -e "/work""/" -e "$s/bench" -e "$s/adbench" \
    -- . ':(exclude).ci/run' || true)
files=$($git ls-files | wc -l)
if [ -n "$found" ]; then
    printf '%s\n' "$found"
    echo "selfcontained.sh: references outside the repository (above); only .ci/run may have them" >&2
    exit 1
fi
echo "$files tracked files, no reference outside the repository"
