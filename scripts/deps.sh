#!/usr/bin/env bash
# The MPI stack dah5 is built and tested on, and what it needs from Debian/Ubuntu. Sourced by
# demo.sh, test.sh and bench/run.sh.
#
#   DAH5_MPI=openmpi (default) or mpich    which MPI, with Debian's parallel HDF5 built on it
#   DAH5_HDF5_DIR=/prefix                  another parallel HDF5 built with that MPI (one
#                                          built by scripts/hdf5-source.sh, or a cluster's
#                                          `module load hdf5/2.x`): built against it into
#                                          target and build directories of its own
#
# dah5_install_deps installs the stack's packages (apt-get as root, sudo otherwise);
# dah5_test_deps adds what the tests use besides (the other MPI for the ABI-mismatch tests,
# h5py, mpi4py, cmake, procps); dah5_stack exports the build and launch settings.
#
# On a cluster, do not run these: load your modules instead, e.g.
#   module load cray-mpich cray-hdf5-parallel     (or openmpi hdf5/parallel; names differ)
#   export HDF5_DIR=/path/to/parallel/hdf5        (if pkg-config does not find it)
#   export MPICC=cc                               (the MPI C wrapper HDF5 was built with)
# then `make`; see README.md, "Supported stacks".
set -euo pipefail

export DAH5_MPI=${DAH5_MPI:-openmpi}
case $DAH5_MPI in
openmpi | mpich) ;;
*)
    echo "dah5: DAH5_MPI must be openmpi or mpich, not '$DAH5_MPI'" >&2
    exit 2
    ;;
esac

# What building and running the demo needs, per MPI (Debian 12 and 13 have the same names).
dah5_stack_packages() {
    local common=(libclang-dev pkg-config hdf5-tools gcc g++ gfortran make)
    case $DAH5_MPI in
    openmpi) echo "${common[@]}" libhdf5-openmpi-dev openmpi-bin libopenmpi-dev ;;
    mpich) echo "${common[@]}" libhdf5-mpich-dev mpich libmpich-dev ;;
    esac
}

# What the tests and the benchmark use on top: both MPIs (a test links a program built with
# the other one), Debian's h5py and mpi4py (built on Open MPI), python3-venv/-dev to build
# mpi4py for MPICH, matplotlib (bench plot), cmake (the CMake package test), procps (pgrep),
# iproute2 (the multi-host test's network namespaces), and the readers every file is opened
# with besides h5py and h5dump: ncdump, netCDF4-python, xarray with both of its HDF5 engines;
# the many-block bench's peers (bench/blocks.c): PnetCDF and parallel netCDF-4, both built
# by Debian on Open MPI (netCDF-4 on its HDF5), used with that stack only.
DAH5_TEST_PACKAGES=(
    libhdf5-openmpi-dev openmpi-bin libopenmpi-dev mpich libmpich-dev
    python3-h5py-mpi python3-mpi4py python3-numpy python3-matplotlib python3-venv python3-dev
    cmake procps iproute2 strace
    netcdf-bin python3-netcdf4 python3-xarray python3-h5netcdf
    libpnetcdf-dev libnetcdf-mpi-dev
)

dah5_apt_install() {
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if ((${#missing[@]})); then
        echo "dah5: installing ${missing[*]}" >&2
        local sudo=""
        [[ $(id -u) -eq 0 ]] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
            "${missing[@]}" >/dev/null
    fi
    if ! command -v cargo >/dev/null; then
        echo "dah5: cargo (Rust >= 1.85) is needed; install it with rustup (https://rustup.rs)" >&2
        exit 1
    fi
}

dah5_install_deps() {
    # shellcheck disable=SC2046  # one word per package
    dah5_apt_install $(dah5_stack_packages)
    dah5_stack
}

dah5_test_deps() {
    # shellcheck disable=SC2046
    dah5_apt_install $(dah5_stack_packages) "${DAH5_TEST_PACKAGES[@]}"
    dah5_stack
    dah5_mpi4py
    dah5_julia_parser
}

# tree-sitter and its Julia grammar from PyPI, in a venv of their own (build/tools-venv, the
# same for both MPIs), for the test that parses the Julia package (Julia itself is not
# installed): sets DAH5_TOOLS_PYTHON.
dah5_julia_parser() {
    local venv=$PWD/build/tools-venv
    if [[ ! -e $venv/tree-sitter-0.26.1 ]]; then
        echo "dah5: installing tree-sitter and tree-sitter-julia from PyPI into $venv" >&2
        rm -rf "$venv"
        /usr/bin/python3 -m venv "$venv"
        "$venv/bin/pip" install --disable-pip-version-check --no-cache-dir -q \
            tree-sitter==0.26.1 tree-sitter-julia==0.23.1 >&2
        touch "$venv/tree-sitter-0.26.1"
    fi
    export DAH5_TOOLS_PYTHON=$venv/bin/python3
}

# Build settings (read by the Makefile, cargo's MPI and HDF5 crates, and tests/common) and
# launch settings for the chosen MPI.
dah5_stack() {
    local multiarch tree=""
    multiarch=$(gcc -print-multiarch)
    export MPICC=mpicc.$DAH5_MPI
    export HDF5_DIR=/usr/lib/$multiarch/hdf5/$DAH5_MPI
    if [[ -n ${DAH5_HDF5_DIR:-} ]]; then
        export HDF5_DIR=$DAH5_HDF5_DIR
        # Its own directories (named by version and prefix): cargo does not rebuild the
        # HDF5 bindings when HDF5_DIR changes. The rpath makes libdah5 load this HDF5, not
        # the system's.
        tree=/hdf5-$(dah5_hdf5_version)-$(printf %s "$HDF5_DIR" | cksum | cut -d' ' -f1)
        local rpath="-C link-arg=-Wl,-rpath,$HDF5_DIR/lib"
        # Once (the bench's tests source this again): other flags would rebuild everything.
        [[ " ${RUSTFLAGS:-} " == *" $rpath "* ]] || export RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }$rpath"
    fi
    # The version the tests expect dah5_version_string() to report (tests/bad_input.rs).
    DAH5_HDF5_VERSION=$(dah5_hdf5_version)
    export DAH5_HDF5_VERSION
    # The tests' tools (tests/common/mod.rs, mpi_tool).
    export DAH5_MPICC=mpicc.$DAH5_MPI DAH5_MPICXX=mpicxx.$DAH5_MPI DAH5_MPIF90=mpif90.$DAH5_MPI
    export DAH5_MPIEXEC=mpiexec.$DAH5_MPI
    # Open MPI with Debian's HDF5 is the default build (target/, build/); MPICH's and another
    # HDF5's have directories of their own.
    if [[ $DAH5_MPI == mpich ]]; then
        export CARGO_TARGET_DIR=$PWD/target$tree/mpich BUILD=build$tree/mpich
    else
        export CARGO_TARGET_DIR=$PWD/target$tree BUILD=build$tree
    fi
    export MPIFC=$DAH5_MPIF90
    dah5_mpi_env
}

# The version of the HDF5 in HDF5_DIR, from its header ("2.2.0").
dah5_hdf5_version() {
    local header=$HDF5_DIR/include/H5public.h
    if [[ ! -e $header ]]; then
        echo "dah5: HDF5_DIR=$HDF5_DIR has no include/H5public.h: not an HDF5 install" >&2
        exit 1
    fi
    awk '/^#define H5_VERS_(MAJOR|MINOR|RELEASE)[ \t]/ { v = v (v == "" ? "" : ".") $3 }
        END { print v }' "$header"
}

# Fail unless the shared library $1 loads the libhdf5 of HDF5_DIR (a stale rpath, or an
# LD_LIBRARY_PATH pointing elsewhere, would test another HDF5 than the one asked for).
dah5_check_linked_hdf5() {
    local linked want
    linked=$(ldd "$1" | awk '$1 ~ /^libhdf5/ && $1 !~ /_hl/ { print $3; exit }')
    want=$(readlink -f "$HDF5_DIR/lib/libhdf5.so")
    if [[ -z $linked || $(readlink -f "$linked") != "$want" ]]; then
        echo "dah5: $1 loads HDF5 from '${linked:-nowhere}', not $want (HDF5_DIR=$HDF5_DIR)" >&2
        exit 1
    fi
    echo "dah5: $(basename "$1") loads HDF5 $DAH5_HDF5_VERSION from $linked" >&2
}

# Open MPI refuses to run as root, and more ranks than cores, unless told (4.x reads the
# OMPI_ variables, 5.x's launcher PRRTE its own); containers and CI machines often are root
# with 2 cores. On one host, shared memory carries the messages: without TCP, Open MPI 5 does
# not warn on every rank of an IPv4+IPv6 host. MPICH's Hydra needs none of this.
dah5_mpi_env() {
    if [[ $(id -u) -eq 0 ]]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
    export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
    export PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe OMPI_MCA_btl=^tcp
}

# mpi4py and parallel h5py for the stack (the Julia-like test drives dah5 from Python under
# mpiexec; the benchmark compares with h5py): Debian's are built on Open MPI, so MPICH gets
# its own, built from PyPI with mpicc.mpich and Debian's HDF5 for MPICH (whatever HDF5 dah5
# is built against: h5py is a reader of its own) in a venv that still sees Debian's numpy.
# Checkers that only read files use Debian's /usr/bin/python3.
dah5_mpi4py() {
    if [[ $DAH5_MPI == openmpi ]]; then
        export DAH5_MPI_PYTHON=/usr/bin/python3
        return
    fi
    local venv=$PWD/build/mpich/venv hdf5
    hdf5=/usr/lib/$(gcc -print-multiarch)/hdf5/mpich
    if [[ ! -e $venv/built-for-mpich ]]; then
        echo "dah5: building mpi4py and h5py for MPICH in $venv (log: $venv.log)" >&2
        rm -rf "$venv"
        /usr/bin/python3 -m venv --system-site-packages "$venv"
        # mpi4py first (ignoring Debian's), then h5py built against it and Debian's numpy
        # (with current build tools; on Python 3.11 Debian's numpy.distutils needs the
        # standard library's distutils); -O1 without debug info: MPI.c alone takes minutes
        # and gigabytes at -O2 -g. Versions known to build on Debian 12 and 13.
        local pip=(env CFLAGS="-O1 -g0" "$venv/bin/pip" install --no-cache-dir
            --disable-pip-version-check) distutils=local
        /usr/bin/python3 -c 'import sys; sys.exit(sys.version_info >= (3, 12))' && distutils=stdlib
        if ! {
            MPICC=mpicc.mpich "${pip[@]}" --ignore-installed --no-binary=mpi4py mpi4py==4.1.2 &&
                "${pip[@]}" --upgrade "cython>=3,<4" pkgconfig "setuptools>=77" wheel &&
                SETUPTOOLS_USE_DISTUTILS=$distutils CC=mpicc.mpich HDF5_MPI=ON HDF5_DIR=$hdf5 \
                    "${pip[@]}" \
                    --no-build-isolation --no-binary=h5py h5py==3.16.0
        } > "$venv.log" 2>&1; then
            tail -n 30 "$venv.log" >&2
            exit 1
        fi
        touch "$venv/built-for-mpich"
    fi
    export DAH5_MPI_PYTHON=$venv/bin/python3
}
