#!/bin/sh
# run.sh CLANG PLUGIN INCLUDE WORK: the plugin's header option
# (-fplugin-arg-chad-header). Compiles a.c with it, then b.c (C) and
# caller.cpp (C++, by the clang++ beside CLANG) against the header it wrote,
# all under -Wall -Wextra -pedantic -Werror, links each with a.o and runs it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
clang=$1 plugin=$2 include=$3 work=$4
name=$(basename "$clang")
clangxx=$(dirname "$clang")/$(printf '%s' "$name" | sed 's/^clang/clang++/')
warn="-Wall -Wextra -pedantic -Werror -O1"
rm -rf "$work"
mkdir -p "$work"
cd "$work"

"$clang" -fplugin="$plugin" -fplugin-arg-chad-header=a_chad.h -std=c11 $warn \
    -I"$include" -c "$here/a.c" -o a.o
grep -q 'extern "C"' a_chad.h
if grep -q 'sq_' a_chad.h; then
    echo "run.sh: the derivatives of static sq are in the header" >&2
    exit 1
fi
"$clang" -std=c11 $warn -I. -c "$here/b.c" -o b.o
"$clang" a.o b.o -o b -lm
./b
"$clangxx" -std=c++11 $warn -I. -c "$here/caller.cpp" -o caller.o
"$clangxx" a.o caller.o -o caller -lm
./caller

# With reverse-only the header declares f_rev alone, as the object defines.
"$clang" -fplugin="$plugin" -fplugin-arg-chad-header=rev_chad.h -fplugin-arg-chad-reverse-only \
    -std=c11 $warn -I"$include" -c "$here/a.c" -o rev.o
if grep -q '_fwd' rev_chad.h || ! grep -q '_rev' rev_chad.h; then
    echo "run.sh: the reverse-only header must declare f_rev and no f_fwd" >&2
    exit 1
fi
if nm rev.o | grep -q '_fwd'; then
    echo "run.sh: reverse-only defined an f_fwd" >&2
    exit 1
fi
