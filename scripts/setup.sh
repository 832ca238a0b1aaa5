#!/usr/bin/env bash
# setup.sh: make a Debian (bookworm) machine ready to build chad, then build
# it into build/.  Installs only the packages that are missing, with apt-get,
# so a second run costs no more than the incremental build.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(clang-14 llvm-14-dev libclang-14-dev cmake g++ make libcunit1-dev valgrind python3)

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

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)"
