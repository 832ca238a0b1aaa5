#!/usr/bin/env bash
# rename_syms.sh OBJ PREFIX: prefix every global symbol OBJ defines with
# PREFIX, in place.  ADBench's objective is linked into one program three
# times (plain, differentiated by chad, and chad's port), so each copy's
# functions need names of their own; renaming the object keeps the sources
# untouched.
set -euo pipefail
obj=$1 prefix=$2
map=$(mktemp)
trap 'rm -f "$map"' EXIT
nm --defined-only --extern-only "$obj" | awk -v p="$prefix" 'NF == 3 { print $3, p $3 }' >"$map"
objcopy --redefine-syms="$map" "$obj"
