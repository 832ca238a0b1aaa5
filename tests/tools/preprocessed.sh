#!/bin/sh
# preprocessed.sh MODE CLANG PLUGIN INCLUDE WORK: the derivatives survive
# compiling in two steps, preprocessing first. Every tests/e2e/*.c is built
# under -std=c11 -Wall -Wextra -pedantic -Werror and run (each checks its
# gradients), in one of two ways:
#   save-temps   clang -fplugin=... -save-temps: the driver preprocesses to
#                a .i, then compiles that
#   distcc       distcc's model: `clang -E` on this machine, then
#                `clang -fplugin=... -c file.i` in another directory, with
#                no include path (the .i must need no header), then link
# A .i is compiled without header search: the attribute must be in it and
# the generated code must not #include anything it cannot find.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mode=$1 clang=$2 plugin=$3 include=$4 work=$5
e2e=$here/../e2e
# clang 15 and 16 warn under -pedantic about the line markers of any .i
# file (-Wgnu-line-marker, which clang 14 does not know): clang's matter,
# not chad's, so that warning is left out.
base_flags="-std=c11 -O1 -Wall -Wextra -pedantic -Werror -Wno-unknown-warning-option -Wno-gnu-line-marker"
rm -rf "$work"
mkdir -p "$work/local" "$work/remote"
n=0
for src in "$e2e"/*.c; do
    name=$(basename "$src" .c)
    # a file that tests forward-only or reverse-only (tests/e2e/CMakeLists.txt)
    flags=$base_flags
    only=$(grep -o -m1 'chad-e2e: [a-z]*-only' "$src" | sed 's/^chad-e2e: //' || true)
    if [ -n "$only" ]; then
        flags="$flags -fplugin-arg-chad-$only"
    fi
    case $mode in
    save-temps)
        (cd "$work/local" &&
            "$clang" -fplugin="$plugin" -save-temps $flags -I"$include" -I"$e2e" \
                "$src" -o "$name" -lm)
        [ -f "$work/local/$name.i" ] || { echo "$name: no $name.i" >&2; exit 1; }
        exe=$work/local/$name ;;
    distcc)
        # distcc preprocesses with the whole command line, plugin included
        "$clang" -fplugin="$plugin" $flags -I"$include" -I"$e2e" -E "$src" -o "$work/local/$name.i"
        grep -q '__attribute__((differentiable))' "$work/local/$name.i" ||
            { echo "$name.i: the attribute did not survive preprocessing" >&2; exit 1; }
        cp "$work/local/$name.i" "$work/remote/"
        (cd "$work/remote" && "$clang" -fplugin="$plugin" $flags -c "$name.i" -o "$name.o")
        "$clang" "$work/remote/$name.o" -o "$work/remote/$name" -lm
        exe=$work/remote/$name ;;
    *)
        echo "preprocessed.sh: unknown mode $mode" >&2
        exit 2 ;;
    esac
    "$exe" >"$work/$name.out" 2>&1 || { cat "$work/$name.out"; echo "$name: FAILED ($mode)" >&2; exit 1; }
    n=$((n + 1))
done
echo "$mode: $n programs built from preprocessed C, each run and checked"
