#!/bin/sh
# run.sh BUILD CLANG WORK: installs BUILD into the scratch prefix WORK/prefix
# and builds a user project from there in three ways, each run and checked
# (user.c checks a gradient, twofile a gradient through the generated header):
#   CMake        find_package(chad), compiled by CLANG (tests/install/CMakeLists.txt)
#   pkg-config   make PKG=chad-clang-N and PKG=chad (tests/install/Makefile)
#   wrapper      make CC=chad-clang, and chad-clang as a plain compiler
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$1 clang=$2 work=$3
prefix=$work/prefix
log=$work/log
unset CHAD_CLANG
rm -rf "$work"
mkdir -p "$work/pc" "$work/pc-generic" "$work/wrap"
major=$("$clang" -dumpversion)
major=${major%%.*}

# Runs "$@" with its output in the log; shows the log if it fails.
quiet() {
    echo "\$ $*" >>"$log"
    "$@" >>"$log" 2>&1 || { cat "$log"; echo "run.sh: failed: $*" >&2; exit 1; }
}

quiet cmake --install "$build" --prefix "$prefix"
for f in bin/chad-clang lib/chad/chad-cache-env include/chad.h lib/cmake/chad/chadConfig.cmake \
         lib/pkgconfig/chad.pc share/man/man1/chad-clang.1 bin/chad-clang-$major \
         lib/chad/clang-$major/libchad.so lib/chad/clang-$major/chad-clang \
         lib/chad/clang-$major/compiler lib/pkgconfig/chad-clang-$major.pc; do
    [ -f "$prefix/$f" ] || { echo "run.sh: $f not installed" >&2; exit 1; }
done

echo "== CMake"
quiet cmake -S "$here" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$clang"
quiet cmake --build "$work/cmake"
"$work/cmake/user"
"$work/cmake/twofile"

echo "== pkg-config"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
(cd "$work/pc" && quiet make -f "$here/Makefile" SRC="$here" PKG="chad-clang-$major")
"$work/pc/user"
"$work/pc/twofile"
(cd "$work/pc-generic" && quiet make -f "$here/Makefile" SRC="$here" PKG=chad)
"$work/pc-generic/user"
"$work/pc-generic/twofile"

echo "== chad-clang"
PATH=$prefix/bin:$PATH
(cd "$work/wrap" && quiet make -f "$here/Makefile" SRC="$here" CC=chad-clang)
"$work/wrap/user"
"$work/wrap/twofile"
# What configure scripts ask of a compiler: a version, preprocessing alone
# (chad.h found, the attribute seen), and a link of objects alone.
quiet chad-clang --version
chad-clang -E "$here/../package/user.c" | grep -q '__attribute__((differentiable))'
(cd "$work/wrap" && quiet chad-clang user.o -o user-linked && ./user-linked >/dev/null)
[ "$(CHAD_CLANG=$major chad-clang -dM -E - </dev/null | grep __clang_major__)" = "#define __clang_major__ $major" ]
if CHAD_CLANG=999 chad-clang --version >/dev/null 2>&1; then
    echo "run.sh: CHAD_CLANG=999 did not fail" >&2
    exit 1
fi
echo "1 passed, 0 failed"
