#!/usr/bin/env bash
# dah5 across two hosts that share a GlusterFS volume, both made on this machine by
# scripts/gluster-hosts.sh: each host is a network namespace with its own glusterd, brick and
# FUSE client (so its own client caches, as cluster nodes have), and every rank opens the same
# path through the client of its host. Open MPI starts the second host's daemon through
# gluster-hosts.sh's rsh agent and talks TCP over the hosts' bridge only; ranks are placed
# round-robin (rank r on host r % 2), and each rank notes its host. Checked, every value:
#   0. the check can fail: with Gluster's caches as shipped, atomic mode across hosts does
#      not see what the other host wrote (if it did, the hosts would share a cache, and
#      nothing below could catch a coherence bug);
# then with the caches MPI-IO needs (docs/gluster.md):
#   1. the demo: write on 4 ranks, read on 3;
#   2. a darray written on 4 ranks (2x2 blocks), read on 3 by partition and by its table;
#   3. a subfiled darray (one subfile a node: 2 here), read on 3, its VDS read by h5py;
#      and darrays of many blocks a rank (tests/c/darray_blocks.c), whose table rank 0
#      alone writes and every rank reads back;
#   4. atomic mode: what rank 0 (host 1) writes, rank 1 (host 2) reads after a barrier;
#   5. read after write: rank 0 writes independently, dah5_file_flush, every rank reads;
# h5py on host 2 reads every file. Needs root; removes everything it made, also on failure.
#   ./scripts/test-multihost.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export DAH5_MPI=openmpi # the rsh launcher is Open MPI's (MPICH's Hydra has its own)
. scripts/deps.sh
dah5_test_deps
make --no-print-directory -s examples CARGO="cargo -q"

if [[ $(id -u) -ne 0 ]]; then
    echo "test-multihost: needs root (ip netns, mount)" >&2
    exit 1
fi

hosts=$PWD/scripts/gluster-hosts.sh
export DAH5_GLUSTER_STATE=${DAH5_GLUSTER_STATE:-/var/tmp/dah5-gluster}
vol=$DAH5_GLUSTER_STATE/vol # the volume, on every host
work=$(mktemp -d /tmp/dah5-multihost.XXXXXX)
chmod 755 "$work"
cleanup() {
    local status=$?
    "$hosts" down || status=1
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT

say() { echo "multihost: $*"; }
for program in darray darray_blocks; do
    mpicc.openmpi -std=c99 -O2 -Iinclude -Itests/c "tests/c/$program.c" -L"$CARGO_TARGET_DIR/release" \
        -Wl,-rpath,"$CARGO_TARGET_DIR/release" -ldah5 -o "$work/$program"
done
# Each rank notes its host (its host name: dah5-gl1, dah5-gl2), then runs the program.
cat >"$work/on_host" <<EOF
#!/bin/sh
hostname > "$work/rank-\$OMPI_COMM_WORLD_RANK.\$1.host"
shift
exec "\$@"
EOF
chmod 755 "$work/on_host"
launch() { # launch NRANKS PHASE PROGRAM ARGS...: on host 1, ranks round-robin on the hosts
    local ranks=$1 phase=$2
    shift 2
    timeout -k 10 120 "$hosts" mpiexec "$ranks" "$work/on_host" "$phase" "$@"
}
on_both_hosts() { # PHASE: its ranks ran on both hosts
    local on
    on=$(cat "$work"/rank-*."$1".host | sort | uniq -c | tr -s ' \n' '  ')
    say "$1: ranks per host:$on"
    [[ $(cat "$work"/rank-*."$1".host | sort -u | wc -l) -eq 2 ]]
}
bytes() { # bytes through the bridge's port to host 1
    ip netns exec dah5-glsw sh -c 'cd /sys/class/net/port1/statistics && echo $(($(cat tx_bytes) + $(cat rx_bytes)))'
}
h5py_on_host_2() { "$hosts" run 2 /usr/bin/python3 "$@"; }

# 0. Gluster's caches as shipped: rank 1 must miss some of rank 0's atomic writes.
DAH5_GLUSTER_CACHE=default "$hosts" up 2
launch 2 control "$work/darray" atomic "$vol/control.h5" >"$work/control.out" 2>&1 || true
seen=$(sed -n 's/.*saw \([0-9]*\) of 100 values.*/\1/p' "$work/control.out")
say "0. caches as shipped: rank 1 (host 2) saw ${seen:-no} of 100 values rank 0 (host 1) wrote in atomic mode"
if [[ -z $seen ]] || ((seen == 100)); then
    cat "$work/control.out"
    say "the hosts do not have caches of their own: this test could not catch a coherence bug"
    exit 1
fi
on_both_hosts control

DAH5_GLUSTER_CACHE=off "$hosts" up 2
before=$(bytes)

# 1. The demo.
demo=$PWD/$BUILD/examples/darray_roundtrip
launch 4 demo-write "$demo" "$vol/demo.h5" | tee "$work/demo-write.out"
launch 3 demo-read "$demo" --read "$vol/demo.h5" | tee "$work/demo-read.out"
grep -q "round trip OK" "$work/demo-write.out"
grep -q "round trip OK" "$work/demo-read.out"
on_both_hosts demo-write
on_both_hosts demo-read

# 2. and 3. A darray and a subfiled darray, written on 4 ranks, read on 3.
for kind in darray subfiled; do
    write=write
    [[ $kind == subfiled ]] && write=write-subfiled
    launch 4 "$kind" "$work/darray" "$write" "$vol/$kind.h5" u float64 c 2x2 0 -1 12 10
    for read in read-partition read-table; do
        launch 3 "$kind-$read" "$work/darray" "$read" "$vol/$kind.h5" u float64 c |
            tee "$work/$kind-$read.out"
        grep -q "read 120 of 120 elements by .* on 3 ranks, 0 wrong" "$work/$kind-$read.out"
        on_both_hosts "$kind-$read"
    done
    on_both_hosts "$kind"
    h5py_on_host_2 "$PWD/tests/py/check_pattern.py" "$vol/$kind.h5" u float64 12 10
done
subfiles=$("$hosts" run 1 ls "$vol/subfiled.h5.d" | tr '\n' ' ')
say "3. the subfiled darray of 4 ranks on 2 hosts has the subfiles: $subfiles"
[[ $subfiles == "u.node0.h5 u.node1.h5 " ]]

# Many blocks a rank: rank 0 checks and writes the table, the others read their rows back
# from the file (each rank's check of its own rows), across hosts.
"$hosts" run 1 mkdir -p "$vol/blocks"
launch 4 blocks "$work/darray_blocks" "$vol/blocks" c | tee "$work/blocks.out"
grep -q "checks a rank, 0 failures over 4 ranks" "$work/blocks.out"
on_both_hosts blocks

# 4. Atomic mode across hosts.
launch 2 atomic "$work/darray" atomic "$vol/atomic.h5" | tee "$work/atomic.out"
grep -q "saw 100 of 100 values in atomic mode" "$work/atomic.out"
on_both_hosts atomic

# 5. Read after write across hosts, through dah5_file_flush.
launch 4 handoff "$work/darray" handoff "$vol/handoff.h5" | tee "$work/handoff.out"
[[ $(grep -c "after each flush: 0 stale elements" "$work/handoff.out") -eq 4 ]]
on_both_hosts handoff

crossed=$(($(bytes) - before))
say "$crossed bytes crossed between the hosts"
((crossed > 100000))
h5py_on_host_2 - "$vol/demo.h5" <<'EOF'
import sys
import h5py
import numpy as np
d = h5py.File(sys.argv[1], "r")["field"][()]
i, j = np.indices(d.shape)
assert (d == 100 * i + j).all(), d
print(f"multihost: h5py on host 2 reads the demo's {d.shape}: values match")
EOF
say "OK"
