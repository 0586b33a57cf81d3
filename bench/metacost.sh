#!/usr/bin/env bash
# Instructions and L1 instruction-cache misses per dataset of the metadata loop (create a
# dataset of 4 float64, write one attribute, close it), dah5 against the same raw HDF5
# calls, on 1 rank under callgrind with its cache model: the difference between COUNT and 0
# datasets, divided by COUNT, so that start-up and file create/close cancel out.
# Noise-free: it does not depend on the machine's load. (HDF5's own path does not fit in
# the L1 instruction cache; every line of code dah5 adds to it is a miss at every call.)
#
#   ./bench/metacost.sh [COUNT]      (default 200; DAH5_CHECKS is passed through)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
dah5_test_deps
command -v valgrind >/dev/null || dah5_apt_install valgrind
count=${1:-200}
bench=$BUILD/bench-release/bench
make --no-print-directory -s "$bench" CARGO="cargo -q" PROFILE=release
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# "instructions I1-misses" of one run (callgrind's summary: Ir first, I1mr fourth).
costs() {
    valgrind --tool=callgrind --cache-sim=yes --callgrind-out-file="$work/out" \
        "$bench" metacost "$work" "$1" "$2" >/dev/null 2>"$work/log" || { cat "$work/log" >&2; exit 1; }
    sed -n 's/^summary: //p' "$work/out" | awk '{print $1, $4}'
}
for method in raw dah5; do
    read -r base_ir base_i1 < <(costs 0 "$method")
    read -r ir i1 < <(costs "$count" "$method")
    echo "$method: $(((ir - base_ir) / count)) instructions and $(((i1 - base_i1) / count)) L1i misses per dataset ($count datasets)"
done
