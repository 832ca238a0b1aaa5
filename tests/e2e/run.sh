#!/bin/sh
# run.sh: one end-to-end test = compile a C file with the chad plugin, then
# run the program.  Either step failing fails the test (CTest runs this).
# usage: run.sh CLANG PLUGIN SOURCE EXECUTABLE [compiler flags...]
set -eu
clang=$1
plugin=$2
src=$3
exe=$4
shift 4
"$clang" -fplugin="$plugin" "$@" "$src" -o "$exe" -lm
exec "$exe"
