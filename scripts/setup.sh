#!/usr/bin/env bash
# setup.sh [CMAKE ARGS...]: make a Debian (bookworm) machine ready to build
# chad, then build it, for clang 14, into build/, configured with the
# arguments given (e.g. -DCHAD_ADBENCH_DATA=DIR).  Installs only the
# packages that are missing, with apt-get, so a second run costs no more
# than the incremental build.
set -euo pipefail
cd "$(dirname "$0")/.."

# clang 14 builds build/; 15 and 16 are the other versions Debian packages,
# for which run-tests.sh builds and tests the plugin too (16's sanitizer
# runtimes are a package of their own).
packages=(clang-14 llvm-14-dev libclang-14-dev
          clang-15 llvm-15-dev libclang-15-dev
          clang-16 llvm-16-dev libclang-16-dev libclang-rt-16-dev
          cmake g++ make pkg-config libcunit1-dev valgrind python3
          ccache libnlopt-dev libgsl-dev
          libadolc-dev gnuplot-nox binutils)
# libadolc-dev and gnuplot-nox (gnuplot without X11) serve bench/adbench:
# ADOL-C is one of the tools it compares, gnuplot draws its charts;
# binutils (nm, objdump) measures the object code of f and f_rev.

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done

if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        sudo=(sudo)
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -q
    "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
fi

cmake -S . -B build -DCHAD_CLANG=clang-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
cmake --build build -j"$(nproc)"
