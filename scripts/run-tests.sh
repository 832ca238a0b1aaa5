#!/usr/bin/env bash
# run-tests.sh: set up and build (setup.sh), run every test (unit, IR,
# end-to-end, diagnostics, examples), then build the C core once more with
# ASan+UBSan and run its tests.  Exits non-zero if anything failed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

status=0
ctest --test-dir build --output-on-failure -j2 || status=1

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
