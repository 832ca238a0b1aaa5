#!/usr/bin/env bash
# run.sh: compile a C file with the chad plugin, then run the program (one
# CTest test for the examples and benchmarks; either step failing fails it).
# usage: run.sh CLANG PLUGIN SOURCE EXECUTABLE [compiler flags...] [-- program arguments...]
# Libraries among the flags (-lname, path.so, path.a) go after the source.
set -euo pipefail
clang=$1 plugin=$2 src=$3 exe=$4
shift 4
flags=()
libs=()
while (($#)) && [[ $1 != -- ]]; do
    case $1 in
    -l* | *.so | *.so.* | *.a) libs+=("$1") ;;
    *) flags+=("$1") ;;
    esac
    shift
done
(($#)) && shift # the --
"$clang" -fplugin="$plugin" "${flags[@]}" "$src" "${libs[@]}" -o "$exe" -lm
exec "$exe" "$@"
