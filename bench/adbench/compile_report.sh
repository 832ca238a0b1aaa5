#!/usr/bin/env bash
# compile_report.sh CLANG PLUGIN INCLUDE_DIR C_DIR EXAMPLES_DIR
# The compile-time and code-size part of adbench's report (issue 10): for
# ADBench's sources (annotated by annotate.py, as the benchmark builds them)
# and the repository's examples, the median over 5 runs of `clang -O2 -c`
# without and with the plugin, and the object code of f, f_fwd and f_rev
# (symbol sizes, nm -S) for every function the plugin differentiated.
# Without the plugin the examples compile with -w: their calls of f_rev
# then have no declaration, which C11 clang 14 only warns about.
set -euo pipefail
clang=$1 plugin=$2 include=$3 cdir=$4 examples=$5
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs=5

# median wall time in ms of the command given, over $runs runs; fails
# when the command fails
median_ms() {
    local times=() i start end
    for ((i = 0; i < runs; i++)); do
        start=$(date +%s%N)
        "$@" >/dev/null 2>&1 || return 1
        end=$(date +%s%N)
        times+=($(((end - start) / 1000000)))
    done
    printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p"
}

# f, f_fwd and f_rev sizes in bytes, alone and with their call trees
sizes() {
    python3 "$here/code_sizes.py" "$1" "$2"
}

# one source: plain and plugin compile times, then its sizes
one() {
    local name=$1 plain_src=$2 plugin_src=$3 plain_flags=$4
    shift 4
    local obj=$tmp/plugin.o t_plain t_plugin t_rev err
    # shellcheck disable=SC2086 # plain_flags is a list of flags
    t_plain=$(median_ms "$clang" -O2 $plain_flags "$@" -c "$plain_src" -o "$tmp/plain.o") || t_plain=fails
    if "$clang" -fplugin="$plugin" -O2 "$@" -c "$plugin_src" -o "$obj" 2>"$tmp/err"; then
        t_plugin=$(median_ms "$clang" -fplugin="$plugin" -O2 "$@" -c "$plugin_src" -o "$obj")
        t_rev=$(median_ms "$clang" -fplugin="$plugin" -fplugin-arg-chad-reverse-only -O2 "$@" \
            -c "$plugin_src" -o "$tmp/rev.o") || t_rev=fails
        awk -v n="$name" -v a="$t_plain" -v b="$t_plugin" -v r="$t_rev" \
            'BEGIN { printf "| %s | %s | %s | %.2f | %s | %.2f |\n", n, a, b, (a > 0 ? b / a : 0),
                     r, (a > 0 && r != "fails" ? r / a : 0) }' >>"$tmp/times"
        sizes "$obj" "$name" >>"$tmp/sizes"
    else
        err=$(grep -m1 'error:' "$tmp/err" | sed -e 's|^.*/||' || true)
        printf '| %s | %s | chad: not yet (%s) | | | |\n' "$name" "$t_plain" "$err" >>"$tmp/times"
    fi
}

: >"$tmp/times"
: >"$tmp/sizes"
if [ -n "$cdir" ]; then
    for p in gmm ba lstm; do
        python3 "$here/annotate.py" "$cdir/$p/$p.c" "$tmp/$p.c"
        one "ADBench $p/$p.c" "$cdir/$p/$p.c" "$tmp/$p.c" "" "-I$cdir/$p"
    done
else
    echo "(no ADBench C folder: its sources are skipped)"
fi
for src in "$examples"/*.c; do
    one "examples/$(basename "$src")" "$src" "$src" "-w" "-I$include"
done

echo "clang -O2 -c, median of $runs runs (ms; shared machine: noisy):"
echo
echo "| source | without plugin | with plugin | ratio | reverse-only | ratio |"
echo "|---|---:|---:|---:|---:|---:|"
cat "$tmp/times"
echo
echo "Object code (bytes, nm -S, -O2; helpers inlined into f count as f's;"
echo "tree: the function and every function of the object it calls, directly"
echo "or not, as f_rev often inlines the derivatives of the callees f calls):"
echo
echo "| source | function | f | f_fwd | f_rev | f_rev / f | f tree | f_rev tree | tree ratio |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
cat "$tmp/sizes"

# The hand-written reverses the benchmark checks against chad's
# (hand_ba.c, hand_lstm.c): the yardstick for the rows above.
if [ -n "$cdir" ]; then
    echo
    echo "Hand-written reverses (bench/adbench/hand_*.c, -O2), their call trees"
    echo "against f's (compare chad's f_rev tree above):"
    echo
    echo "| source | f | f tree | hand-written | its tree | ratio |"
    echo "|---|---|---:|---|---:|---:|"
    for p in ba:compute_reproj_error:hand_reproj_row lstm:lstm_model:hand_lstm_model_rev; do
        IFS=: read -r src f hand <<<"$p"
        if "$clang" -O2 -I"$cdir/$src" -c "$cdir/$src/$src.c" -o "$tmp/adb_$src.o" 2>/dev/null &&
            "$clang" -O2 -std=c11 -I"$here" -c "$here/hand_$src.c" -o "$tmp/hand_$src.o" 2>/dev/null; then
            python3 "$here/code_sizes.py" --versus "ADBench $src/$src.c" "$tmp/adb_$src.o" "$f" \
                "$tmp/hand_$src.o" "$hand"
        else
            echo "| ADBench $src/$src.c | $f | | $hand | did not compile | |"
        fi
    done
fi
