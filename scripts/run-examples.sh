#!/usr/bin/env bash
# run-examples.sh: set up and build (setup.sh), then build and run the
# examples, which check their own results.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

# greeks and minimize are built by setup.sh; the array examples on demand.
cmake --build build --target example_logreg example_gmm

for example in greeks minimize logreg gmm; do
    echo
    echo "=== examples/$example.c"
    status=0
    build/examples/$example || status=$?
    if [ "$status" -eq 77 ]; then
        echo "(skipped: its data files are not there)"
    elif [ "$status" -ne 0 ]; then
        exit "$status"
    fi
done
