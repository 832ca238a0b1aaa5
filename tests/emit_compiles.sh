#!/bin/sh
# emit_compiles.sh CHAD_IRC CC FILE.ir OUTDIR
# The C that the core emits for every function of FILE.ir (with the primal
# functions, so the unit is complete) must compile cleanly under strict
# warnings in every C standard the contract names.
set -eu
irc=$1 cc=$2 ir=$3 out=$4
mkdir -p "$out"
c="$out/$(basename "$ir" .ir).c"
"$irc" --primal "$ir" > "$c"
for std in c99 c11 c17; do
  "$cc" -std=$std -Wall -Wextra -pedantic -Werror -c "$c" -o "$c.$std.o"
done
echo "$ir: emitted C compiles cleanly (c99, c11, c17)"
