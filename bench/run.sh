#!/usr/bin/env bash
# run.sh: compile a C file with the chad plugin, then run the program (one
# CTest test for the examples and benchmarks; either step failing fails it).
# usage: run.sh CLANG PLUGIN SOURCE EXECUTABLE [compiler flags...] [-- program arguments...]
set -euo pipefail
clang=$1 plugin=$2 src=$3 exe=$4
shift 4
flags=()
while (($#)) && [[ $1 != -- ]]; do
    flags+=("$1")
    shift
done
(($#)) && shift # the --
"$clang" -fplugin="$plugin" "${flags[@]}" "$src" -o "$exe" -lm
exec "$exe" "$@"
