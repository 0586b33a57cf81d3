#!/usr/bin/env bash
# A GlusterFS volume shared by two (or three) hosts made on this machine, for the multi-host
# test (scripts/test-multihost.sh), where each host has a GlusterFS client of its own, with
# its caches, as cluster nodes do. Needs root and Debian's glusterfs-server/-client
# (installed with apt-get when missing). See docs/gluster.md.
#
#   scripts/gluster-hosts.sh up [N]          N = 2 (default) or 3 hosts; replaces what is up
#   scripts/gluster-hosts.sh down            stops and removes everything `up` made
#   scripts/gluster-hosts.sh run I CMD...    runs CMD on host I (1..N), the volume at $VOL
#   scripts/gluster-hosts.sh agent ADDR CMD...   the same by address: an rsh agent for
#                                            Open MPI (--mca plm_rsh_agent "THIS agent")
#   scripts/gluster-hosts.sh mpiexec N ARGS...   Open MPI's mpiexec on host 1, N ranks placed
#                                            round-robin on the hosts (rank r on host
#                                            1 + r % hosts), TCP between them; ARGS: more
#                                            mpiexec options, then the program
#   scripts/gluster-hosts.sh gluster I ARGS...   the gluster CLI of host I's glusterd
#   scripts/gluster-hosts.sh status
#
# Host I is the network namespace dah5-glI, address 198.18.1.I/24, joined to the others by a
# bridge in a namespace of its own (dah5-glsw). On each host glusterd runs in a mount
# namespace of its own where its state, run, log and config directories are bind mounts of
# $STATE/dah5-glI/{lib,run,log,etc} (so the daemons do not share /var/lib/glusterd,
# /run/gluster, ...); its CLI socket is $STATE/dah5-glI/run/glusterd.socket. Each host has a
# brick ($STATE/dah5-glI/brick, on the root file system, hence `force`) of the distributed
# volume `dah5`, and a FUSE client of its own, started in its network namespace and mounted
# in the main mount namespace at $STATE/mnt/dah5-glI. `run`/`agent` start CMD in the host's
# network namespace, with its host name (a UTS namespace) and a mount namespace where that
# host's client is bind mounted at the one path $VOL = $STATE/vol, so every rank opens the
# same file name through the client of the host it runs on.
#
#   DAH5_GLUSTER_STATE=/var/tmp/dah5-gluster   where everything lives (a disk file system:
#                                              bricks need trusted.* extended attributes)
#   DAH5_GLUSTER_CACHE=off | default           off (the default here): what MPI-IO needs
#                                              across hosts, no client caching (FUSE direct
#                                              I/O, attribute and entry timeouts 0;
#                                              quick-read, md-cache, io-cache, read-ahead,
#                                              write-behind, ... off); default: Gluster's
#                                              client caches as shipped (a host reads stale
#                                              data for ~1 s after another wrote and
#                                              fsynced, and atomic mode misses writes)
set -euo pipefail

state=${DAH5_GLUSTER_STATE:-/var/tmp/dah5-gluster}
cache=${DAH5_GLUSTER_CACHE:-off}
net=198.18.1
volume=dah5
sw=dah5-glsw
prefix=dah5-gl
vol=$state/vol
self=$(readlink -f "$0")

say() { echo "gluster-hosts: $*" >&2; }
die() {
    say "$*"
    exit 1
}
now() { date +%s%3N; } # milliseconds
since() {
    local ms=$(($(now) - $1))
    printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100))
}

nhosts() { cat "$state/hosts" 2>/dev/null || echo 0; }

# gcli I ARGS...: the gluster CLI against host I's glusterd, through its unix socket (the
# CLI needs no network namespace), with host I's /var/lib/glusterd (the CLI writes
# geo-replication/gsyncd_template.conf there).
gcli() {
    local d=$state/$prefix$1
    shift
    # shellcheck disable=SC2016  # expanded by the inner sh
    unshare --mount --propagation private sh -c 'mount --bind "$0/lib" /var/lib/glusterd &&
        exec gluster --mode=script --log-file="$0/log/cli.log" \
            --glusterd-sock="$0/run/glusterd.socket" "$@"' "$d" "$@"
}

# in_host I CMD...: CMD on host I (see the header).
in_host() {
    local i=$1 h=$prefix$1
    shift
    [[ -d $state/mnt/$h ]] || die "no host $i (is it up?)"
    # shellcheck disable=SC2016  # expanded by the inner sh
    ip netns exec "$h" unshare --uts sh -c \
        'hostname "$0" && mount --bind "$1" "$2" && shift 2 && exec "$@"' \
        "$h" "$state/mnt/$h" "$vol" "$@"
}

# wait_for SECONDS WHAT CMD...: runs CMD every 0.2 s until it succeeds.
wait_for() {
    local limit=$1 what=$2 t0
    shift 2
    t0=$(now)
    until "$@" >/dev/null 2>&1; do
        if (($(now) - t0 > limit * 1000)); then
            "$@" || true
            die "$what: not after ${limit}s"
        fi
        sleep 0.2
    done
}

peers_connected() { # every host sees N-1 peers connected
    local i n=$1
    for ((i = 1; i <= n; i++)); do
        [[ $(gcli "$i" peer status | grep -c "Peer in Cluster (Connected)") -eq $((n - 1)) ]] || return 1
    done
}

bricks_online() {
    [[ $(gcli 1 volume status "$volume" detail | grep -c '^Online.*: Y') -eq $1 ]]
}

down() {
    local h m pids
    # The FUSE clients: unmounting ends them.
    for m in "$state"/mnt/*; do
        mountpoint -q "$m" 2>/dev/null || continue
        umount "$m" 2>/dev/null || umount -l "$m"
    done
    # Every process on the hosts (glusterd, bricks, clients, leftovers of a test), then the
    # hosts (the veth pairs go with them).
    local all=""
    for h in $(ip netns list | awk '{print $1}' | grep -E "^(${prefix}[0-9]+|$sw)$" || true); do
        pids=$(ip netns pids "$h" 2>/dev/null || true)
        all+=" $pids"
        if [[ -n $pids ]]; then
            # shellcheck disable=SC2086  # one pid a word
            kill $pids 2>/dev/null || true
            for _ in $(seq 50); do
                pids=$(ip netns pids "$h" 2>/dev/null || true)
                [[ -z $pids ]] && break
                sleep 0.1
            done
            # shellcheck disable=SC2086
            [[ -z $pids ]] || kill -9 $pids 2>/dev/null || true
        fi
        ip netns del "$h"
    done
    # Wait (up to 10 s) until they are gone, reaped too (the daemons' parent is init), so that
    # `pgrep gluster` finds nothing after `down`.
    local p
    for p in $all; do
        for _ in $(seq 100); do
            [[ -e /proc/$p ]] || break
            sleep 0.1
        done
    done
    # A client killed before its unmount leaves its mount behind ("Transport endpoint is not
    # connected").
    for m in "$state"/mnt/* "$vol"; do
        if mountpoint -q "$m" 2>/dev/null || [[ $(stat -c %i "$m" 2>&1) == *"not connected"* ]]; then
            umount -l "$m" 2>/dev/null || true
        fi
    done
    if [[ -e $state ]]; then
        # Never rm -rf through a mount.
        if findmnt -rn -o TARGET | grep -q "^$state"; then
            die "still mounted under $state: $(findmnt -rn -o TARGET | grep "^$state" | tr '\n' ' ')"
        fi
        rm -rf "$state"
    fi
}

up() {
    local n=${1:-2} i h d t0 t1
    [[ $n == 2 || $n == 3 ]] || die "up: 2 or 3 hosts, not '$n'"
    case $cache in off | default) ;; *) die "DAH5_GLUSTER_CACHE must be off or default" ;; esac
    if ! command -v glusterd >/dev/null || ! command -v mount.glusterfs >/dev/null; then
        say "installing glusterfs-server glusterfs-client"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq glusterfs-server glusterfs-client >/dev/null
    fi
    down
    # shellcheck disable=SC2154  # status is set in the trap
    trap 'status=$?; if ((status)); then say "up failed ($status): removing what it made"; down || true; fi' EXIT
    t0=$(now)
    mkdir -p "$state/mnt" "$vol"
    chmod 755 "$state" "$state/mnt" "$vol"
    echo "$n" >"$state/hosts"

    # The network: a bridge in its own namespace, a veth pair from it to each host.
    ip netns add "$sw"
    ip -n "$sw" link set lo up
    ip -n "$sw" link add br0 type bridge
    ip -n "$sw" link set br0 up
    for ((i = 1; i <= n; i++)); do
        h=$prefix$i
        ip netns add "$h"
        ip -n "$h" link set lo up
        ip link add "eth$i" netns "$h" type veth peer name "port$i" netns "$sw"
        ip -n "$sw" link set "port$i" master br0 up
        ip -n "$h" addr add "$net.$i/24" dev "eth$i"
        ip -n "$h" link set "eth$i" up
    done

    # glusterd on each host, bound to its address, in a mount namespace where its
    # directories are its own.
    mkdir -p /run/gluster # /run may be a tmpfs that lost it
    for ((i = 1; i <= n; i++)); do
        h=$prefix$i
        d=$state/$h
        mkdir -p "$d"/{lib,run,log,etc,brick} "$state/mnt/$h"
        cp -a /var/lib/glusterd/groups "$d/lib/" # the hooks (samba, ctdb, ...) stay out
        cat >"$d/etc/glusterd.vol" <<EOF
volume management
    type mgmt/glusterd
    option working-directory /var/lib/glusterd
    option transport-type socket
    option transport.socket.bind-address $net.$i
    option transport.socket.keepalive-time 10
    option transport.socket.keepalive-interval 2
    option transport.socket.read-fail-log off
    option transport.socket.listen-port 24007
    option ping-timeout 0
    option event-threads 1
    option max-port 60999
    option glusterd-sockfile /run/gluster/glusterd.socket
end-volume
EOF
        # shellcheck disable=SC2016  # expanded by the inner sh
        ip netns exec "$h" unshare --mount --propagation private sh -c '
            mount --bind "$0/lib" /var/lib/glusterd &&
            mount --bind "$0/run" /run/gluster &&
            mount --bind "$0/log" /var/log/glusterfs &&
            mount --bind "$0/etc" /etc/glusterfs &&
            exec glusterd -p /run/gluster/glusterd.pid' "$d"
    done
    for ((i = 1; i <= n; i++)); do
        wait_for 30 "glusterd of host $i" gcli "$i" pool list
    done
    say "$n glusterd up in $(since "$t0")s"

    t1=$(now)
    for ((i = 2; i <= n; i++)); do
        gcli 1 peer probe "$net.$i" >/dev/null
    done
    wait_for 30 "peers" peers_connected "$n"
    local bricks=()
    for ((i = 1; i <= n; i++)); do
        bricks+=("$net.$i:$state/$prefix$i/brick/b")
    done
    gcli 1 volume create "$volume" "${bricks[@]}" force >/dev/null
    if [[ $cache != default ]]; then
        local o
        for o in quick-read stat-prefetch io-cache read-ahead readdir-ahead open-behind \
            write-behind nl-cache; do
            gcli 1 volume set "$volume" "performance.$o" off >/dev/null
        done
    fi
    gcli 1 volume start "$volume" >/dev/null
    wait_for 30 "bricks" bricks_online "$n"
    say "volume $volume (${n} bricks) started in $(since "$t1")s"

    # A FUSE client on each host: its network namespace, the main mount namespace.
    t1=$(now)
    local opts
    for ((i = 1; i <= n; i++)); do
        h=$prefix$i
        opts=log-file=$state/$h/log/fuse.log
        [[ $cache != default ]] && opts+=,direct-io-mode=enable,attribute-timeout=0,entry-timeout=0,negative-timeout=0
        nsenter --net="/run/netns/$h" mount -t glusterfs -o "$opts" "$net.$i:/$volume" "$state/mnt/$h"
        [[ $(findmnt -n -o FSTYPE "$state/mnt/$h") == fuse.glusterfs ]] || die "host $i: no glusterfs mount"
    done
    say "$n clients mounted in $(since "$t1")s"

    # Each host reads what host 1 wrote.
    in_host 1 sh -c "echo written-on-host-1 >\"$vol/.probe\""
    for ((i = 2; i <= n; i++)); do
        [[ $(in_host "$i" cat "$vol/.probe") == written-on-host-1 ]] || die "host $i does not read host 1's file"
    done
    in_host 1 rm "$vol/.probe"
    say "up in $(since "$t0")s: hosts ${prefix}1..$n ($net.1..$n), volume $volume at $vol on each (cache: $cache)"
    trap - EXIT
}

status() {
    local n i
    n=$(nhosts)
    ((n)) || {
        echo "gluster-hosts: down"
        return
    }
    for ((i = 1; i <= n; i++)); do
        echo "== host $i ($prefix$i, $net.$i)"
        ip netns pids "$prefix$i" | xargs -r ps -o pid=,args= -p | cut -c1-150
        findmnt -n "$state/mnt/$prefix$i" || true
    done
    gcli 1 volume status "$volume" || true
}

[[ $(id -u) -eq 0 ]] || die "needs root (ip netns, mount)"
cmd=${1:-}
shift || true
case $cmd in
up) up "$@" ;;
down) down ;;
status) status ;;
run)
    [[ $# -ge 2 ]] || die "run I CMD..."
    in_host "$@"
    ;;
agent) # Open MPI's rsh agent: agent [rsh options] ADDR CMD... (CMD is one shell string)
    while [[ ${1:-} == -* ]]; do shift; done
    addr=$1
    shift
    [[ $addr =~ ^$net\.([0-9]+)$ ]] || [[ $addr =~ ^$prefix([0-9]+)$ ]] || die "agent: unknown host $addr"
    in_host "${BASH_REMATCH[1]}" /bin/sh -c "$*"
    ;;
mpiexec)
    [[ $# -ge 2 ]] || die "mpiexec N ARGS..."
    ranks=$1
    shift
    (($(nhosts))) || die "the hosts are not up"
    for ((i = 1; i <= $(nhosts); i++)); do echo "$net.$i slots=2"; done >"$state/hostfile"
    # (OMPI_MCA_btl: scripts/deps.sh turns TCP off for one host; here it is the transport.)
    in_host 1 env -u OMPI_MCA_btl mpiexec.openmpi -n "$ranks" --map-by node \
        --hostfile "$state/hostfile" --mca plm_rsh_agent "$self agent" \
        --mca btl tcp,vader,self --mca btl_tcp_if_include "$net.0/24" \
        --mca oob_tcp_if_include "$net.0/24" "$@"
    ;;
gluster) gcli "$@" ;;
*)
    sed -n '2,/^set -euo/p' "$self" | sed '$d' | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
