#!/usr/bin/env bash
# Build parallel HDF5 from the sources the crate hdf5-metno-src bundles (HDF5 2.2.0 in
# 0.10.4) with one of Debian's MPIs, and print the install prefix. Use it to test dah5
# against an HDF5 that Debian does not ship:
#
#   DAH5_HDF5_DIR=$(./scripts/hdf5-source.sh openmpi) ./scripts/test.sh
#   DAH5_MPI=mpich DAH5_HDF5_DIR=$(./scripts/hdf5-source.sh mpich) ./scripts/test.sh
#
# The install is cached by crate version and MPI under $DAH5_CACHE (default /var/cache/dah5
# as root, where the tests' unprivileged user can load it; ~/.cache/dah5 otherwise), so a
# second run does not rebuild. Needs what scripts/deps.sh installs for
# that MPI, plus zlib (installed here) and CMake >= 3.26 (Debian 12 has 3.25: the PyPI
# package, in a venv of its own). Progress goes to stderr, the prefix alone to stdout.
#
# On a cluster you do not need this: `module load hdf5/2.x` (parallel) and pass its prefix
# as DAH5_HDF5_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
mpi=${1:-openmpi}
case $mpi in
openmpi | mpich) ;;
*)
    echo "hdf5-source: the MPI is openmpi or mpich, not '$mpi'" >&2
    exit 2
    ;;
esac
export DAH5_MPI=$mpi
. scripts/deps.sh
dah5_apt_install $(dah5_stack_packages) zlib1g-dev python3-venv curl >&2

crate=hdf5-metno-src version=0.10.4 hdf5=2.2.0
# crates.io's checksum of the .crate file (its index, "cksum").
sha256=69c883c565498492954e344c482f8622525e58c7a71100dd9498c4940da82885
if [[ $(id -u) -eq 0 ]]; then
    cache=${DAH5_CACHE:-/var/cache/dah5}
else
    cache=${DAH5_CACHE:-$HOME/.cache/dah5}
fi
prefix=$cache/hdf5-$hdf5-$crate-$version-$mpi
if [[ -e $prefix/.complete ]]; then
    echo "$prefix"
    exit 0
fi

work=$cache/build-hdf5-$hdf5-$mpi
rm -rf "$work" "$prefix"
mkdir -p "$work"
log=$work.log
echo "hdf5-source: building HDF5 $hdf5 ($crate $version) with $mpi into $prefix (log: $log)" >&2
build() { # every step chained: `set -e` does not apply inside a function called with ||
    curl -sSfL -o "$work/src.crate" \
        "https://static.crates.io/crates/$crate/$crate-$version.crate" &&
        echo "$sha256  $work/src.crate" | sha256sum -c --quiet &&
        tar -xzf "$work/src.crate" -C "$work" &&
        cmake_from_pypi &&
        # The crate has src/, hl/ and utils/ but no tools/, test/ or fortran/: those are off.
        "$cmake" -S "$work/$crate-$version/ext/hdf5" -B "$work/build" \
            -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$(command -v "mpicc.$mpi")" \
            -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib \
            -DHDF5_ENABLE_PARALLEL=ON -DHDF5_BUILD_HL_LIB=ON -DHDF5_ENABLE_ZLIB_SUPPORT=ON \
            -DHDF5_BUILD_TOOLS=OFF -DHDF5_BUILD_EXAMPLES=OFF -DHDF5_BUILD_FORTRAN=OFF \
            -DHDF5_BUILD_CPP_LIB=OFF -DHDF5_BUILD_JAVA=OFF -DBUILD_TESTING=OFF \
            -DBUILD_STATIC_LIBS=OFF &&
        "$cmake" --build "$work/build" -j "$(nproc)" &&
        "$cmake" --install "$work/build"
}
# HDF5 2.x needs CMake >= 3.26.
cmake=$cache/cmake-venv/bin/cmake
cmake_from_pypi() {
    "$cmake" --version 2>/dev/null | grep -q 'version 3\.31\.6' && return
    rm -rf "$cache/cmake-venv" &&
        /usr/bin/python3 -m venv "$cache/cmake-venv" &&
        "$cache/cmake-venv/bin/pip" install --disable-pip-version-check --no-cache-dir -q \
            cmake==3.31.6
}
build >"$log" 2>&1 || {
    tail -n 40 "$log" >&2
    exit 1
}
grep -q '^#define H5_HAVE_PARALLEL 1' "$prefix/include/H5pubconf.h" || {
    echo "hdf5-source: $prefix is not a parallel build (see $log)" >&2
    exit 1
}
rm -rf "$work"
touch "$prefix/.complete"
echo "$prefix"
