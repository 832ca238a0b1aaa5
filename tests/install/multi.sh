#!/bin/sh
# multi.sh WORK BUILD...: installs the builds BUILD... (one per clang
# version) into the one prefix WORK/prefix, then checks that each version's
# plugin is the one used for that version: by chad-clang under CHAD_CLANG=N
# and as chad-clang-N, and by find_package(chad) for a project compiled by
# clang N (tests/install/CMakeLists.txt, built and run); and that plain
# chad-clang takes the newest, whatever the order of the installs.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$1
shift
prefix=$work/prefix
rm -rf "$work"
mkdir -p "$work"
unset CHAD_CLANG
PATH=$prefix/bin:$PATH

for build in "$@"; do
    cmake --install "$build" --prefix "$prefix" >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
done
for dir in "$prefix"/lib/chad/clang-*; do
    v=${dir##*/clang-}
    read -r clang <"$dir/compiler"
    want="#define __clang_major__ $v"
    [ "$(CHAD_CLANG=$v chad-clang -dM -E - </dev/null | grep __clang_major__)" = "$want" ]
    [ "$(chad-clang-$v -dM -E - </dev/null | grep __clang_major__)" = "$want" ]
    cmake -S "$here" -B "$work/cmake-$v" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_C_COMPILER="$clang" >"$work/log" 2>&1 &&
        cmake --build "$work/cmake-$v" >>"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
    "$work/cmake-$v/user" >/dev/null
    "$work/cmake-$v/twofile" >/dev/null
    echo "clang $v: chad-clang, chad-clang-$v and find_package(chad) use the plugin for clang $v"
    [ "${newest:-0}" -ge "$v" ] || newest=$v
done
[ "$(chad-clang -dM -E - </dev/null | grep __clang_major__)" = "#define __clang_major__ $newest" ]
echo "chad-clang: clang $newest by default"
