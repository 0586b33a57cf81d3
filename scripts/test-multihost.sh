#!/usr/bin/env bash
# dah5 across two hosts, made on this machine: two network namespaces joined by a veth pair
# (addresses only inside them, in 198.18.0.0/24, the range set aside for network tests).
# Open MPI starts its daemon on the second host through an rsh agent that runs
# `ip netns exec HOST ...`, and its messages go over TCP on the veth pair only. The demo
# writes with 4 ranks (2 a host) and reads with 3; the interface counters show the traffic
# crossed, each rank says which host it ran on, and h5py checks the file. Needs root; removes
# everything it made on exit, also on failure.
#   ./scripts/test-multihost.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export DAH5_MPI=openmpi # the rsh launcher is Open MPI's (MPICH's Hydra has its own)
. scripts/deps.sh
dah5_test_deps
make --no-print-directory -s examples CARGO="cargo -q"

if [[ $(id -u) -ne 0 ]]; then
    echo "test-multihost: needs root (ip netns)" >&2
    exit 1
fi

net=198.18.0
hosts=(dah5-host1 dah5-host2)
links=(dah5-veth1 dah5-veth2)
work=$(mktemp -d /tmp/dah5-multihost.XXXXXX)
chmod 755 "$work"

cleanup() {
    local status=$?
    for host in "${hosts[@]}"; do
        ip netns pids "$host" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
        ip netns del "$host" 2>/dev/null || true # takes its end of the veth pair along
    done
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT

for host in "${hosts[@]}"; do
    ip netns del "$host" 2>/dev/null || true
    ip netns add "$host"
    ip -n "$host" link set lo up
done
ip link add "${links[0]}" netns "${hosts[0]}" type veth peer name "${links[1]}" netns "${hosts[1]}"
for i in 0 1; do
    ip -n "${hosts[i]}" addr add "$net.$((i + 1))/24" dev "${links[i]}"
    ip -n "${hosts[i]}" link set "${links[i]}" up
done

# The rsh agent: `agent HOST COMMAND...` runs COMMAND on HOST, as ssh would. Each host has
# a host name of its own (a UTS namespace): Open MPI takes ranks with the same host name for
# neighbours that share memory.
cat >"$work/agent" <<EOF
#!/bin/sh
host=\$1
shift
case \$host in
$net.1) netns=${hosts[0]} ;;
$net.2) netns=${hosts[1]} ;;
*) echo "agent: unknown host \$host" >&2; exit 1 ;;
esac
exec ip netns exec "\$netns" unshare --uts /bin/sh -c "hostname \$netns; \$*"
EOF
# Each rank notes its host (its network namespace), then runs the program.
cat >"$work/on_host" <<EOF
#!/bin/sh
ip netns identify > "$work/rank-\$OMPI_COMM_WORLD_RANK.\$1.host"
shift
exec "\$@"
EOF
chmod 755 "$work/agent" "$work/on_host"
printf '%s.1 slots=2\n%s.2 slots=2\n' "$net" "$net" >"$work/hostfile"

bytes() { # bytes sent and received on host 1's end of the pair
    local dir=/sys/class/net/${links[0]}/statistics
    ip netns exec "${hosts[0]}" sh -c "echo \$((\$(cat $dir/tx_bytes) + \$(cat $dir/rx_bytes)))"
}
unset OMPI_MCA_btl # dah5_mpi_env turns TCP off for one host; here it is the transport
launch() { # launch NRANKS PHASE PROGRAM ARGS...
    local ranks=$1 phase=$2
    shift 2
    ip netns exec "${hosts[0]}" unshare --uts sh -c 'hostname "$0"; exec "$@"' "${hosts[0]}" \
        timeout -k 10 120 mpiexec.openmpi -n "$ranks" \
        --hostfile "$work/hostfile" --mca plm_rsh_agent "$work/agent" \
        --mca btl tcp,vader,self --mca btl_tcp_if_include "$net.0/24" \
        --mca oob_tcp_if_include "$net.0/24" \
        "$work/on_host" "$phase" "$@"
}

file=$work/multihost.h5
before=$(bytes)
launch 4 write "$PWD/$BUILD/examples/darray_roundtrip" "$file" | tee "$work/write.out"
launch 3 read "$PWD/$BUILD/examples/darray_roundtrip" --read "$file" | tee "$work/read.out"
crossed=$(($(bytes) - before))

grep -q "round trip OK" "$work/write.out"
grep -q "round trip OK" "$work/read.out"
for phase in write read; do
    on=$(cat "$work"/rank-*."$phase".host | sort | uniq -c | tr -s ' \n' '  ')
    echo "multihost: $phase ranks per host:$on"
    [[ $(cat "$work"/rank-*."$phase".host | sort -u | wc -l) -eq 2 ]]
done
echo "multihost: $crossed bytes crossed the veth pair"
((crossed > 10000))
/usr/bin/python3 - "$file" <<'EOF'
import sys
import h5py
import numpy as np
d = h5py.File(sys.argv[1], "r")["field"][()]
i, j = np.indices(d.shape)
assert (d == 100 * i + j).all(), d
print(f"multihost: h5py reads {d.shape} written across two hosts: values match")
EOF
echo "multihost: OK"
