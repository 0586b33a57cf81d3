#!/usr/bin/env bash
# The demo and the whole suite on Debian 13 (trixie: HDF5 1.14, Open MPI 5, MPICH 4.2), in a
# chroot made with debootstrap from Debian's archive, with the host's Rust toolchain mounted
# read-only. Needs root. Everything it mounts is unmounted on exit, also on failure.
#
#   ./scripts/test-debian13.sh                 both MPIs (openmpi, then mpich)
#   ./scripts/test-debian13.sh mpich           one of them
#   DAH5_CHROOT=/var/tmp/trixie ./scripts/test-debian13.sh
#                                              keep the chroot there and reuse it next time
#                                              (default: a fresh one, removed at the end)
set -euo pipefail
cd "$(dirname "$0")/.."
stacks=("$@")
((${#stacks[@]})) || stacks=(openmpi mpich)

if [[ $(id -u) -ne 0 ]]; then
    echo "test-debian13: needs root (debootstrap, mount, chroot)" >&2
    exit 1
fi
if ! command -v debootstrap >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi

# Outside root's home: the tests run programs as an unprivileged user too.
keep=${DAH5_CHROOT:+yes}
root=${DAH5_CHROOT:-$(mktemp -d /var/tmp/dah5-debian13.XXXXXX)}
mkdir -p "$root"
chmod 755 "$root"
sysroot=$(rustc --print sysroot)

mounted=()
cleanup() {
    local status=$?
    # Processes left inside (an MPI launcher of a failed test) would keep the mounts busy.
    for proc in /proc/[0-9]*; do
        [[ $(readlink "$proc/root" 2>/dev/null) == "$root" ]] && kill -9 "${proc#/proc/}" 2>/dev/null
    done
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}"
    done
    if [[ -z $keep ]]; then
        rm -rf --one-file-system "$root"
    fi
    exit "$status"
}
trap cleanup EXIT

mount_in() { # mount_in TARGET MOUNT-ARGS...: mount, remember, and keep it out of the host's
    local target=$root/$1
    shift
    mkdir -p "$target"
    mount "$@" "$target"
    mounted+=("$target")
    mount --make-rprivate "$target"
}

if [[ ! -e $root/etc/debian_version ]]; then
    echo "test-debian13: debootstrap trixie into $root" >&2
    debootstrap --variant=minbase trixie "$root" http://deb.debian.org/debian >"$root.log" 2>&1 ||
        {
            tail -n 20 "$root.log" >&2
            exit 1
        }
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
# No service starts inside the chroot.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"

mount_in proc -t proc proc
mount_in sys --bind /sys
mount_in dev --bind /dev
mount_in dev/pts --bind /dev/pts
mount_in dev/shm -t tmpfs tmpfs
mount_in opt/rust --bind "$sysroot"
mount -o remount,bind,ro "$root/opt/rust"

# The work tree as it is (committed or not), without build products.
rm -rf "$root/src/dah5"
mkdir -p "$root/src/dah5"
git ls-files -z --cached --others --exclude-standard |
    tar --null -T - -cf - | tar -xf - -C "$root/src/dah5"

in_chroot() {
    chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 CI="${CI:-}" \
        http_proxy="${http_proxy:-}" https_proxy="${https_proxy:-}" no_proxy="${no_proxy:-}" \
        PATH=/opt/rust/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        CARGO_HOME=/opt/cargo-home "$@"
}
# The chroot trusts the certificate authorities the host was given (a site's TLS proxy).
mkdir -p "$root/usr/local/share/ca-certificates"
cp -r /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
in_chroot bash -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq ca-certificates git >/dev/null && update-ca-certificates >/dev/null 2>&1'

for mpi in "${stacks[@]}"; do
    echo "== Debian 13, $mpi: demo, then the suite ==" >&2
    start=$SECONDS
    in_chroot DAH5_MPI="$mpi" bash -euc 'cd /src/dah5
        ./scripts/demo.sh >/tmp/demo.out 2>&1 || { cat /tmp/demo.out; exit 1; }
        grep "round trip OK" /tmp/demo.out
        ./scripts/test.sh'
    echo "== Debian 13, $mpi: passed in $((SECONDS - start)) s ==" >&2
done
