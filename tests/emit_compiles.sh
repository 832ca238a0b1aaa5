#!/bin/sh
# emit_compiles.sh CHAD_IRC CC FILE.ir OUTDIR
# The C that the core emits for every function of FILE.ir (with the primal
# functions, so the unit is complete) must compile cleanly under strict
# warnings in every C standard the contract names. A line
# `; emit-lacks: F TEXT` (`; emit-has: F TEXT`) of FILE.ir says that the
# definition of F in the emitted C must not hold (must hold) TEXT;
# `; emit-count: F N TEXT` that it holds TEXT on exactly N lines.
set -eu
irc=$1 cc=$2 ir=$3 out=$4
mkdir -p "$out"
c="$out/$(basename "$ir" .ir).c"
"$irc" --primal "$ir" > "$c"
for std in c99 c11 c17; do
  "$cc" -std=$std -Wall -Wextra -pedantic -Werror -c "$c" -o "$c.$std.o"
done
echo "$ir: emitted C compiles cleanly (c99, c11, c17)"
grep -E '^; emit-(lacks|has|count): ' "$ir" | while IFS= read -r spec; do
  kind=${spec#; emit-}
  kind=${kind%%:*}
  rest=${spec#*: }
  fn=${rest%% *}
  text=${rest#* }
  if [ "$kind" = count ]; then
    want=${text%% *}
    text=${text#* }
  fi
  body=$(awk -v f="$fn" 'index($0, " " f "(") && /[{]$/ && !/^ / { on = 1 }
                          on { print }
                          on && /^}$/ { exit }' "$c")
  if [ -z "$body" ]; then
    echo "$ir: no definition of $fn in the emitted C"
    exit 1
  fi
  if [ "$kind" = count ]; then
    got=$(printf '%s\n' "$body" | grep -cF -- "$text" || true)
    if [ "$got" != "$want" ]; then
      echo "$ir: $fn holds '$text' on $got lines, not $want"
      exit 1
    fi
    echo "$ir: $fn holds '$text' on $want lines"
    continue
  fi
  if printf '%s\n' "$body" | grep -qF -- "$text"; then found=yes; else found=no; fi
  if [ "$kind" = lacks ] && [ $found = yes ]; then
    echo "$ir: $fn holds '$text'"
    exit 1
  fi
  if [ "$kind" = has ] && [ $found = no ]; then
    echo "$ir: $fn does not hold '$text'"
    exit 1
  fi
  echo "$ir: $fn $kind '$text'"
done
