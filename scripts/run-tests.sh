#!/usr/bin/env bash
# run-tests.sh: set up and build (setup.sh), run every test (unit, IR,
# end-to-end, diagnostics, examples, install) with the plugin for clang 14;
# build the plugin for clang 15 and 16 and run the tests that depend on the
# clang; install all three into one prefix and check each is picked for its
# clang; in CI (as root, with CI=true) make their Debian packages, install
# them all into /usr, use and remove them (CTest install/debs); then build
# the C core once more with ASan+UBSan and run its tests.
# Exits non-zero if anything failed.
#
# usage: run-tests.sh [CMAKE ARGS...]: the arguments are handed to the
# configuration of each build of the plugin, e.g.
# -DCHAD_ADBENCH_DATA=DIR (a folder with ADBench's data/ layout: the GMM
# example is then also tested on its larger inputs; .ci/run passes it).
set -euo pipefail
cd "$(dirname "$0")/.."

# The package test changes the machine (packages into /usr and out again):
# CI only, where the machine is fresh and run as root. Elsewhere it is
# turned off explicitly, also in a build/ where CI turned it on before.
extra_versions=(15 16)
packages=OFF
if [ "$(id -u)" -eq 0 ] && [ "${CI:-}" = true ]; then
    packages=ON
fi
others=()
for v in "${extra_versions[@]}"; do
    others+=("$PWD/build-clang$v")
done
others_list=$(IFS=';'; echo "${others[*]}")
scripts/setup.sh -DCHAD_TEST_PACKAGES=$packages "-DCHAD_TEST_PACKAGE_BUILDS=$others_list" "$@"

status=0
ctest --test-dir build --output-on-failure -j2 -E '^install/debs$' || status=1

# The plugin for each further clang version: its own build, and the tests
# whose outcome can depend on the clang (end-to-end in c11, diagnostics,
# examples, benchmarks, header, package and install tests). Left out, as
# they are in build/ already: the core's tests, the long random-program and
# fuzzing batches, codesize, and the c99, c17 and sanitizer runs of e2e.
# Release: no debug info, which more than halves the time to compile the
# plugin against clang's headers.
long='^(gen/batch|fuzz/batch|e2e/codesize)$|^e2e/.*/(c99|c17|asan)$'
builds=(build)
for v in "${extra_versions[@]}"; do
    echo
    echo "=== plugin for clang $v (build-clang$v/)"
    log=build-clang$v/build.log
    mkdir -p "build-clang$v"
    if cmake -S . -B "build-clang$v" -DCHAD_CLANG="clang-$v" -DCHAD_CORE_TESTS=OFF \
             -DCMAKE_BUILD_TYPE=Release "$@" >"$log" 2>&1 &&
       cmake --build "build-clang$v" -j"$(nproc)" >>"$log" 2>&1; then
        ctest --test-dir "build-clang$v" --output-on-failure -j2 -E "$long" || status=1
        builds+=("build-clang$v")
    else
        cat "$log"
        echo "run-tests: the plugin for clang $v does not build"
        status=1
    fi
done

echo
echo "=== every version installed in one prefix (build-multi/)"
sh tests/install/multi.sh build-multi "${builds[@]}" || status=1

if [ "$packages" = ON ]; then
    echo
    echo "=== Debian packages of every version, installed together into /usr and removed"
    ctest --test-dir build --output-on-failure -R '^install/debs$' || status=1
fi

echo
echo "=== core with AddressSanitizer and UndefinedBehaviorSanitizer (build-asan/)"
cmake -S . -B build-asan -DCHAD_BUILD_PLUGIN=OFF -DCHAD_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build-asan -j"$(nproc)"
ctest --test-dir build-asan --output-on-failure -j2 || status=1

if [ "$status" -ne 0 ]; then
    echo "run-tests: FAILED"
else
    echo "run-tests: all passed"
fi
exit "$status"
