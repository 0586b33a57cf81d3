#!/usr/bin/env bash
# A darray written across two hosts (scripts/gluster-hosts.sh: network namespaces, 2 ranks a
# host, Open MPI over TCP between them) as one shared file, as subfiles per node (dah5's
# DAH5_DARRAY_SUBFILED) and as subfiles per rank (the same with DAH5_TEST_RANKS_PER_NODE=1:
# a node a rank, the layout before subfiles per node), into new files ("new": create, write,
# close; "fsync": with dah5_file_flush before the close), on the GlusterFS volume (client
# caches off, as MPI-IO needs) and on the local disk, which both hosts see. Prints the
# markdown table of medians (seconds, MB/s, and the largest CPU wait of any rank as a share
# of the time) and writes $OUT/hosts.csv and hosts.md. Needs root.
#
#   DAH5_BENCH_HOSTS_MIB   MiB a rank (64)        DAH5_BENCH_HOSTS_ROUNDS  rounds (7, + a warm-up)
#   DAH5_BENCH_OUT         build/bench
set -euo pipefail
cd "$(dirname "$0")/.."
export DAH5_MPI=openmpi # the rsh launcher is Open MPI's
. scripts/deps.sh
dah5_test_deps
mib=${DAH5_BENCH_HOSTS_MIB:-64}
rounds=${DAH5_BENCH_HOSTS_ROUNDS:-7}
out=${DAH5_BENCH_OUT:-$BUILD/bench}
bench=$BUILD/bench-release/bench
make --no-print-directory -s "$bench" CARGO="cargo -q"
mkdir -p "$out"

hosts=$PWD/scripts/gluster-hosts.sh
export DAH5_GLUSTER_STATE=${DAH5_GLUSTER_STATE:-/var/tmp/dah5-gluster}
local_dir=$(mktemp -d /var/tmp/dah5-bench-hosts.XXXXXX)
chmod 755 "$local_dir"
cleanup() {
    local status=$?
    "$hosts" down || status=1
    rm -rf "$local_dir"
    exit "$status"
}
trap cleanup EXIT
DAH5_GLUSTER_CACHE=off "$hosts" up 2

csv=$out/hosts.csv
echo "fs,ranks_per_node,protocol,method,round,seconds,bytes,waited" >"$csv"
for fs in gluster local; do
    dir=$DAH5_GLUSTER_STATE/vol/bench
    [[ $fs == local ]] && dir=$local_dir/data
    "$hosts" run 1 mkdir -p "$dir"
    for per_node in 2 1; do
        knob=()
        [[ $per_node == 1 ]] && knob=(-x DAH5_TEST_RANKS_PER_NODE=1)
        timeout -k 10 1800 "$hosts" mpiexec 4 "${knob[@]}" \
            "$PWD/$bench" layouts "$dir" "$mib" "$rounds" |
            grep -v '^protocol' | sed "s/^/$fs,$per_node,/" >>"$csv"
    done
done

/usr/bin/python3 - "$csv" "$out/hosts.md" "$mib" <<'EOF'
import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["round"] != "0"]
names = {("dah5_darray", "2"): "one shared file", ("dah5_subfiled", "2"): "subfiles per node",
         ("dah5_subfiled", "1"): "subfiles per rank"}
lines = [f"| file system | protocol | layout | median s | MB/s | CPU wait (median) |",
         "|---|---|---|---|---|---|"]
for fs in ("gluster", "local"):
    for protocol in ("new", "fsync"):
        for (method, per_node), name in names.items():
            sel = [r for r in rows if (r["fs"], r["protocol"], r["method"], r["ranks_per_node"]) ==
                   (fs, protocol, method, per_node)]
            if not sel:
                continue
            t = statistics.median(float(r["seconds"]) for r in sel)
            wait = statistics.median(float(r["waited"]) for r in sel)
            mb = int(sel[0]["bytes"]) / t / 1e6
            lines.append(f"| {'GlusterFS' if fs == 'gluster' else 'local disk'} | {protocol} | {name} "
                         f"| {t:.3f} | {mb:.0f} | {wait:.1%} |")
table = "\n".join(lines)
open(sys.argv[2], "w").write(table + "\n")
print(f"4 ranks on 2 hosts, {sys.argv[3]} MiB a rank, {len(set(r['round'] for r in rows))} rounds:")
print(table)
EOF
