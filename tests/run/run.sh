#!/bin/sh
# run.sh CHAD_IRC CC FILE.ir MAIN.c OUTDIR
# The C that the core emits for FILE.ir (primal functions included),
# compiled with strict warnings together with a hand-written MAIN.c that
# checks values and derivatives, and run.
set -eu
irc=$1 cc=$2 ir=$3 main=$4 out=$5
mkdir -p "$out"
name=$(basename "$ir" .ir)
"$irc" --primal "$ir" > "$out/$name.c"
"$cc" -std=c99 -O1 -Wall -Wextra -Werror -o "$out/$name" "$out/$name.c" "$main" -lm
"$out/$name"
