#!/usr/bin/env bash
# Instructions per dataset of the metadata loop (create a dataset of 4 float64, write one
# attribute, close it), dah5 against the same raw HDF5 calls, on 1 rank under callgrind:
# the difference between COUNT and 0 datasets, divided by COUNT, so that start-up and file
# create/close cancel out. Noise-free: it does not depend on the machine's load.
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
instructions() {
    valgrind --tool=callgrind --callgrind-out-file="$work/out" "$bench" metacost "$work" "$1" "$2" \
        >/dev/null 2>"$work/log" || { cat "$work/log" >&2; exit 1; }
    sed -n 's/^summary: //p' "$work/out"
}
for method in raw dah5; do
    base=$(instructions 0 "$method")
    loaded=$(instructions "$count" "$method")
    echo "$method: $(((loaded - base) / count)) instructions per dataset ($count datasets)"
done
