#!/bin/sh
# debs.sh WORK BUILD...: the Debian packages of the builds BUILD... (one per
# clang version), installed together into /usr and removed again.
#
#   cpack -G DEB in each build (into WORK/deb-*): chad-clang-N and
#     chad-common; every build's chad-common must be the same (control
#     fields, file list, checksums), and no file may be in two packages
#   apt-get install -y of chad-common and every chad-clang-N, after a dry
#     run (-s) showed that apt installs nothing else, so it downloads nothing
#   for each version N: user.c built and run (it checks a gradient) with
#     CHAD_CLANG=N /usr/bin/chad-clang, with chad-clang-N, with
#     pkg-config's chad-clang-N.pc, and by CMake (find_package(chad) from
#     /usr, tests/install/CMakeLists.txt, user and twofile) compiled by clang N
#   apt-get purge, then no path of theirs (dpkg -L) may be left but the
#     directories that were there before
#
# It changes the machine: it runs only as root, and only when CI=true or
# CHAD_TEST_PACKAGES=1 is in the environment (else exit 77, skipped). It
# refuses to start when a chad package is installed, or when a file of the
# packages exists already, and removes the packages it installed whatever
# happens (trap). scripts/run-tests.sh runs it in CI (CTest install/debs).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$1
shift
nbuilds=$#

if [ "${CI:-}" != true ] && [ "${CHAD_TEST_PACKAGES:-}" != 1 ]; then
    echo "debs.sh: skipped: it installs packages into /usr; runs when CI=true or CHAD_TEST_PACKAGES=1"
    exit 77
fi
if [ "$(id -u)" -ne 0 ] || ! command -v dpkg >/dev/null 2>&1; then
    echo "debs.sh: skipped: needs root and dpkg"
    exit 77
fi

fail() {
    echo "debs.sh: $*" >&2
    exit 1
}

# The chad packages dpkg knows of (installed, or half so).
ours() {
    dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' 'chad-common' 'chad-clang-*' 2>/dev/null |
        awk '$1 !~ /^.n/ { print $2 }'
}
[ -z "$(ours)" ] || fail "chad packages are installed already ($(ours | tr '\n' ' ')): remove them first"

export DEBIAN_FRONTEND=noninteractive
apt=" -q -o DPkg::Lock::Timeout=120"
cleanup() {
    left=$(ours)
    if [ -n "$left" ]; then
        echo "debs.sh: removing" "$(echo $left)"
        # shellcheck disable=SC2086
        apt-get purge -y $apt $left >>"$log" 2>&1 || dpkg --purge $left >>"$log" 2>&1 || true
    fi
}
rm -rf "$work"
mkdir -p "$work"
log=$work/log
: >"$log"
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# Runs "$@" with its output in the log; shows the log if it fails.
quiet() {
    echo "\$ $*" >>"$log"
    "$@" >>"$log" 2>&1 || { cat "$log"; fail "failed: $*"; }
}

echo "== packages"
i=0
for build in "$@"; do
    i=$((i + 1))
    quiet cpack -G DEB -B "$work/deb-$i" --config "$build/CPackConfig.cmake"
done
ls "$work"/deb-*/*.deb
# One chad-clang-N per build, all versions different; the chad-commons equal.
versions=
debs=
for d in "$work"/deb-*; do
    set -- "$d"/chad-clang-*.deb
    [ "$#" -eq 1 ] && [ -f "$1" ] || fail "$d: not one chad-clang-N package"
    v=$(dpkg-deb -f "$1" Package)
    v=${v#chad-clang-}
    case " $versions " in *" $v "*) fail "two builds for clang $v" ;; esac
    versions="$versions $v"
    debs="$debs $1"
    [ "$(dpkg-deb -f "$1" Depends)" = "chad-common (= $(dpkg-deb -f "$1" Version)), clang-$v, libc6" ] ||
        fail "chad-clang-$v depends on: $(dpkg-deb -f "$1" Depends)"
    [ -z "$(dpkg-deb -f "$1" Conflicts)" ] || fail "chad-clang-$v conflicts: $(dpkg-deb -f "$1" Conflicts)"
    set -- "$d"/chad-common_*.deb
    [ "$#" -eq 1 ] && [ -f "$1" ] || fail "$d: not one chad-common package"
    { dpkg-deb -f "$1"
      dpkg-deb -c "$1" | awk '{ print $1, $2, $3, $6 }'
      dpkg-deb --ctrl-tarfile "$1" | tar -xOf - ./md5sums; } >"$d/common.txt"
    if [ -z "${common:-}" ]; then
        common=$1
        first=$d/common.txt
    else
        cmp -s "$first" "$d/common.txt" ||
            { diff "$first" "$d/common.txt" >&2 || true; fail "chad-common differs between builds"; }
    fi
done
debs="$common$debs"
echo "chad-common the same from all $nbuilds builds; chad-clang-N for N =$versions"

# The paths the packages hold: no file in two, none there before; the
# directories there before must stay.
for deb in $debs; do
    dpkg-deb -c "$deb" | awk '{ p = $6; sub(/^\./, "", p); sub(/\/$/, "", p); if (p != "") print substr($1, 1, 1), p }'
done >"$work/paths"
dup=$(awk '$1 != "d" { print $2 }' "$work/paths" | sort | uniq -d)
[ -z "$dup" ] || fail "files in two packages: $dup"
: >"$work/before"
while read -r type path; do
    if [ -e "$path" ] || [ -L "$path" ]; then
        [ "$type" = d ] && [ -d "$path" ] || fail "$path exists already: the packages would replace it"
        echo "$path" >>"$work/before"
    fi
done <"$work/paths"

echo "== apt-get install"
# A dry run first: apt must have nothing else to install (nothing to fetch).
# shellcheck disable=SC2086
apt-get install -s $apt $debs >"$work/dry-run" 2>&1 || { cat "$work/dry-run"; fail "apt-get install -s failed"; }
others=$(awk '$1 == "Inst" && $2 !~ /^chad-(common|clang-[0-9]+)$/ { print $2 }' "$work/dry-run")
[ -z "$others" ] || fail "apt-get would install other packages too (not offline): $others"
# shellcheck disable=SC2086
quiet apt-get install -y $apt $debs
n=$(ours | wc -l)
[ "$n" -eq $((nbuilds + 1)) ] || fail "$n chad packages installed, not $((nbuilds + 1))"
for p in $(ours); do
    dpkg -L "$p"
done | grep -v '^/\.$' | sort -u >"$work/installed"
dpkg -l 'chad-*' | grep '^ii'

echo "== user programs"
src=$here/../package/user.c
unset CHAD_CLANG
for v in $versions; do
    d=$work/user-$v
    mkdir -p "$d"
    want="#define __clang_major__ $v"
    [ "$(CHAD_CLANG=$v /usr/bin/chad-clang -dM -E - </dev/null | grep __clang_major__)" = "$want" ] ||
        fail "CHAD_CLANG=$v chad-clang is not clang $v"
    [ "$("/usr/bin/chad-clang-$v" -dM -E - </dev/null | grep __clang_major__)" = "$want" ] ||
        fail "chad-clang-$v is not clang $v"
    quiet env CHAD_CLANG="$v" /usr/bin/chad-clang -O1 "$src" -o "$d/wrapper"
    quiet "/usr/bin/chad-clang-$v" -O1 "$src" -o "$d/wrapper-$v"
    # shellcheck disable=SC2046
    quiet "$(pkg-config --variable=clang "chad-clang-$v")" -O1 \
        $(pkg-config --cflags "chad-clang-$v") "$src" $(pkg-config --libs "chad-clang-$v") -o "$d/pkg-config"
    pkg-config --cflags "chad-clang-$v" | grep -q -- "-fplugin=/usr/lib/pkgconfig/../../lib/chad/clang-$v/libchad.so" ||
        fail "chad-clang-$v.pc: $(pkg-config --cflags "chad-clang-$v")"
    quiet cmake -S "$here" -B "$d/cmake" -DCMAKE_C_COMPILER="clang-$v"
    grep -qx 'chad_DIR:PATH=/usr/lib/cmake/chad' "$d/cmake/CMakeCache.txt" ||
        fail "find_package(chad) did not find /usr/lib/cmake/chad: $(grep chad_DIR "$d/cmake/CMakeCache.txt")"
    quiet cmake --build "$d/cmake"
    grep -q -- "-fplugin=/usr/lib/chad/clang-$v/libchad.so" "$d/cmake/CMakeFiles/user.dir/flags.make" ||
        fail "CMake did not compile with the plugin for clang $v"
    for prog in wrapper wrapper-$v pkg-config cmake/user cmake/twofile; do
        "$d/$prog" >"$d/out" || { cat "$d/out"; fail "clang $v: $prog failed"; }
    done
    echo "clang $v: chad-clang (CHAD_CLANG=$v), chad-clang-$v, chad-clang-$v.pc and find_package(chad): gradients checked"
done
# Without CHAD_CLANG, chad-clang and chad.pc's compiler take the newest.
newest=0
for v in $versions; do
    [ "$v" -le "$newest" ] || newest=$v
done
[ "$(/usr/bin/chad-clang -dM -E - </dev/null | grep __clang_major__)" = "#define __clang_major__ $newest" ] ||
    fail "chad-clang does not default to the newest clang, $newest"
# shellcheck disable=SC2046,SC2086
quiet "$(pkg-config --variable=clang chad)" -O1 $(pkg-config --cflags chad) "$src" \
    $(pkg-config --libs chad) -o "$work/chad-pc"
"$work/chad-pc" >/dev/null || fail "chad.pc: user failed"
echo "chad-clang and chad.pc: clang $newest by default"

echo "== apt-get purge"
# shellcheck disable=SC2046,SC2086
quiet apt-get purge -y $apt $(ours)
[ -z "$(ours)" ] || fail "still installed: $(ours)"
left=
while read -r path; do
    if [ -e "$path" ] || [ -L "$path" ]; then
        grep -qx -- "$path" "$work/before" || left="$left $path"
    fi
done <"$work/installed"
[ -z "$left" ] || fail "left after removal:$left"
while read -r path; do
    [ -d "$path" ] || fail "$path was there before and is gone"
done <"$work/before"
echo "removed: no file left ($(wc -l <"$work/installed") paths checked)"
echo "1 passed, 0 failed"
