#!/usr/bin/env bash
# chad_compile.sh CLANG PLUGIN SRC OBJ STATUS NAME PREFIX [FLAGS...]
# Compile SRC (an ADBench source annotated by annotate.py) with the chad
# plugin into OBJ, its global symbols prefixed by PREFIX, and write STATUS, a
# C file defining `const char NAME[]`: empty when chad compiled SRC, else the
# first error message.  Never fails on a chad error: today chad cannot yet
# compile ADBench's sources as written (issue 9), and the benchmark then
# prints "chad: not yet (<error>)" for the row instead of breaking the build.
set -euo pipefail
clang=$1 plugin=$2 src=$3 obj=$4 status=$5 name=$6 prefix=$7
shift 7
here=$(dirname "$0")
log=$obj.log
msg=
if "$clang" -fplugin="$plugin" "$@" -c "$src" -o "$obj" 2>"$log"; then
    "$here/rename_syms.sh" "$obj" "$prefix"
else
    # the first error, without the build directory's path
    msg=$(grep -m1 'error:' "$log" | sed -e 's|^.*/||' || true)
    [ -n "$msg" ] || msg="clang failed without an error line (see $log)"
    # an object with no symbols, so the program links without chad's code
    printf '' | "$clang" -x c -c - -o "$obj"
fi
esc=$(printf '%s' "$msg" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')
printf 'const char %s[] = "%s";\n' "$name" "$esc" >"$status"
