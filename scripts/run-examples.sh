#!/usr/bin/env bash
# run-examples.sh: set up and build (setup.sh), then run the examples, which
# check their own results.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

for example in greeks minimize; do
    echo
    echo "=== examples/$example.c"
    build/examples/$example
done
