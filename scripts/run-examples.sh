#!/usr/bin/env bash
# run-examples.sh [CMAKE ARGS...]: set up and build (setup.sh, which hands
# it the arguments), then build and run the examples, which check their own
# results.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh "$@"

# greeks is built by setup.sh; the others on demand.
cmake --build build --target example_minimize example_logreg example_fit example_gmm

for example in greeks minimize logreg fit gmm; do
    echo
    echo "=== examples/$example.c"
    status=0
    build/examples/$example || status=$?
    if [ "$status" -eq 77 ]; then
        echo "(skipped)"
    elif [ "$status" -ne 0 ]; then
        exit "$status"
    fi
done
