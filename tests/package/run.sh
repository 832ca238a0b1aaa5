#!/bin/sh
# run.sh BUILD_DIR CLANG WORK: configures, builds and runs tests/package
# against the chad package in BUILD_DIR, compiled by CLANG.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$3"
cmake -S "$here" -B "$3" -Dchad_DIR="$1" -DCMAKE_C_COMPILER="$2" > "$3.log" 2>&1 || { cat "$3.log"; exit 1; }
cmake --build "$3" >> "$3.log" 2>&1 || { cat "$3.log"; exit 1; }
"$3/user"
