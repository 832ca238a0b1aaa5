#!/bin/sh
# ccache.sh BUILD CLANG WORK: under ccache, a changed plugin never serves an
# object the old one made. Installs BUILD into WORK/prefix and uses a
# private cache (WORK/ccache). Each step zeroes ccache's statistics, then
# counts hits and misses (ccache --print-stats):
#   chad-clang, CHAD_LAUNCHER=ccache: a compile misses, the same compile
#     hits; after the plugin is replaced by a different file of the same
#     size and time stamp (one byte of its .comment section changed:
#     ccache's own check of a -fplugin= file, by size and time, sees no
#     change) it misses, and after `touch` (a rebuilt plugin) too
#   CC='ccache chad-clang' with CCACHE_COMPILERCHECK='%compiler%
#     --chad-identity': the same
#   a compile that writes a header (-fplugin-arg-chad-header) is not cached:
#     the header is written every time
#   CMake with -DCMAKE_C_COMPILER_LAUNCHER=ccache (chad_differentiate puts
#     the plugin into the key): a build after `clean` hits, and misses once
#     the plugin changed; every program runs and checks its gradient
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$1 clang=$2 work=$3
if ! command -v ccache >/dev/null 2>&1; then
    echo "ccache not installed: skipped"
    exit 77
fi
unset CHAD_CLANG CHAD_LAUNCHER CCACHE_EXTRAFILES CCACHE_DISABLE CCACHE_COMPILERCHECK CCACHE_PREFIX
rm -rf "$work"
mkdir -p "$work/src"
prefix=$work/prefix
log=$work/log
export CCACHE_DIR="$work/ccache" CCACHE_CONFIGPATH="$work/ccache.conf"
: >"$CCACHE_CONFIGPATH"
PATH=$prefix/bin:$PATH
quiet() {
    echo "\$ $*" >>"$log"
    "$@" >>"$log" 2>&1 || { cat "$log"; echo "ccache.sh: failed: $*" >&2; exit 1; }
}
quiet cmake --install "$build" --prefix "$prefix"
plugin=$(echo "$prefix"/lib/chad/clang-*/libchad.so)
[ -f "$plugin" ] || { echo "ccache.sh: no plugin installed" >&2; exit 1; }
cp "$here/../package/user.c" "$here/../header/a.c" "$here/../header/b.c" "$work/src/"
cd "$work/src"

stat_of() { ccache --print-stats | awk -v k="$1" '$1 == k { print $2 }'; }
# expect WHAT HITS MISSES: the statistics since the last `ccache -z`
expect() {
    hits=$(($(stat_of direct_cache_hit) + $(stat_of preprocessed_cache_hit)))
    misses=$(stat_of cache_miss)
    if [ "$hits" != "$2" ] || [ "$misses" != "$3" ]; then
        cat "$log"
        echo "ccache.sh: $1: $hits hits and $misses misses, expected $2 and $3" >&2
        exit 1
    fi
    echo "$1: $hits hits, $misses misses, as expected"
    ccache -z >/dev/null
}
# a different plugin of the same size and time stamp
change_plugin() {
    touch -r "$plugin" "$work/stamp"
    python3 "$here/flip.py" "$plugin" >/dev/null
    touch -r "$work/stamp" "$plugin"
}

ccache -z >/dev/null
export CHAD_LAUNCHER=ccache
quiet chad-clang -O1 -c user.c -o user.o
expect "chad-clang, first compile" 0 1
quiet chad-clang -O1 -c user.c -o user.o
expect "chad-clang, same compile" 1 0
change_plugin
quiet chad-clang -O1 -c user.c -o user.o
expect "chad-clang, plugin replaced (same size and time)" 0 1
touch "$plugin"
quiet chad-clang -O1 -c user.c -o user.o
expect "chad-clang, plugin rebuilt (touched)" 0 1
quiet chad-clang user.o -o user
./user >/dev/null

# Writing a header: never served from the cache.
for i in 1 2; do
    rm -f a_chad.h
    quiet chad-clang -std=c11 -O1 -c a.c -o a.o -fplugin-arg-chad-header=a_chad.h
    [ -f a_chad.h ] || { echo "ccache.sh: compile $i did not write a_chad.h" >&2; exit 1; }
done
expect "chad-clang writing a header, twice (not cached)" 0 0
quiet chad-clang -std=c11 -O1 -c b.c -o b.o
expect "chad-clang, b.c including the header" 0 1
quiet chad-clang a.o b.o -o twofile
./twofile >/dev/null
unset CHAD_LAUNCHER

# ccache before the wrapper: the wrapper's identity includes the plugin.
export CCACHE_COMPILERCHECK='%compiler% --chad-identity'
quiet ccache chad-clang -O1 -c user.c -o user2.o
expect "ccache chad-clang, first compile" 0 1
quiet ccache chad-clang -O1 -c user.c -o user2.o
expect "ccache chad-clang, same compile" 1 0
change_plugin
quiet ccache chad-clang -O1 -c user.c -o user2.o
expect "ccache chad-clang, plugin replaced" 0 1
unset CCACHE_COMPILERCHECK

# CMake: chad_differentiate under CMAKE_C_COMPILER_LAUNCHER=ccache. The
# project has user.c, and a.c (writes a header: not cached) and b.c. Each
# build after the first starts from `clean`.
quiet cmake -S "$here/../install" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_C_COMPILER="$clang" -DCMAKE_C_COMPILER_LAUNCHER=ccache
cmake_build() {
    ccache -z >/dev/null
    quiet cmake --build "$work/cmake" --target clean
    quiet cmake --build "$work/cmake"
    "$work/cmake/user" >/dev/null
    "$work/cmake/twofile" >/dev/null
}
cmake_build
expect "CMake, first build (user.c, b.c; a.c not cached)" 0 2
cmake_build
expect "CMake, after clean" 2 0
change_plugin
cmake_build
expect "CMake, after clean, plugin replaced" 0 2
echo "1 passed, 0 failed"
