# dah5 build. `make` builds the library, the Fortran module and the examples;
# `make install PREFIX=...` makes an install tree usable with
# `mpicc prog.c $(pkg-config --cflags --libs dah5)` and
# `mpif90 prog.f90 $(pkg-config --cflags --libs dah5-fortran)`.
#
# On a cluster: load the MPI and parallel HDF5 modules first, or set HDF5_DIR to the
# parallel HDF5 install and put the MPI wrappers (mpicc) on PATH; see README.md.

# MPI=mpich (or MPI=openmpi) builds with Debian's wrappers of that MPI (mpicc.mpich) and its
# parallel HDF5 (HDF5_DIR); MPICH's build has a target directory of its own, target/mpich,
# since cargo does not rebuild the MPI bindings when MPICC changes. Without MPI, the
# default MPI's wrappers (mpicc, mpif90) and whatever HDF5_DIR/pkg-config find.
MPI ?=
ifneq ($(MPI),)
MULTIARCH := $(shell gcc -print-multiarch)
MPICC    ?= mpicc.$(MPI)
MPIFC    ?= mpif90.$(MPI)
HDF5_DIR ?= /usr/lib/$(MULTIARCH)/hdf5/$(MPI)
export MPICC HDF5_DIR
endif
ifeq ($(MPI),mpich)
CARGO_TARGET_DIR ?= $(CURDIR)/target/mpich
BUILD ?= build/mpich
endif
CARGO_TARGET_DIR ?= target
BUILD ?= build
export CARGO_TARGET_DIR

PREFIX  ?= /usr/local
PROFILE ?= release
CARGO   ?= cargo
MPICC   ?= mpicc
CFLAGS  ?= -std=c99 -O2 -Wall -Wextra -Werror
# The Fortran module is compiled with the MPI Fortran wrapper of the MPI HDF5 uses. (Not
# FC/FFLAGS: make predefines FC=f77.) MODDIR_FLAG is gfortran's; ifx/ifort use -module.
MPIFC   ?= mpif90
FORTRAN_FLAGS ?= -std=f2018 -O2 -Wall -Wextra -Werror
MODDIR_FLAG ?= -J
# The benchmark also calls HDF5 directly (its raw C baseline): the HDF5 of HDF5_DIR, else
# the one pkg-config knows.
ifneq ($(HDF5_DIR),)
HDF5_CFLAGS ?= -I$(HDF5_DIR)/include
HDF5_LIBS   ?= -L$(HDF5_DIR)/lib -Wl,-rpath,$(HDF5_DIR)/lib -lhdf5
endif
HDF5_CFLAGS ?= $(shell pkg-config --cflags hdf5 2>/dev/null)
HDF5_LIBS   ?= $(shell pkg-config --libs hdf5 2>/dev/null || echo -lhdf5)

VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
TARGET  := $(CARGO_TARGET_DIR)/$(PROFILE)
# cargo calls its debug profile "dev" but builds it into target/debug.
CARGO_PROFILE := $(if $(filter debug,$(PROFILE)),dev,$(PROFILE))
FORTRAN  := $(BUILD)/fortran
EXAMPLES := $(patsubst examples-c/%.c,$(BUILD)/examples/%,$(wildcard examples-c/*.c)) \
            $(patsubst examples-fortran/%.f90,$(BUILD)/examples/%,$(wildcard examples-fortran/*.f90))
LINK_DAH5 = -L$(TARGET) -Wl,-rpath,$(abspath $(TARGET)) -ldah5

.PHONY: all lib fortran examples install install-files header test demo bench clean

all: lib fortran examples

lib:
	$(CARGO) build --profile $(CARGO_PROFILE)

# The module dah5 (dah5.mod) and its code (libdah5_fortran.a), for the compiler in MPIFC.
fortran: $(FORTRAN)/libdah5_fortran.a

$(FORTRAN)/libdah5_fortran.a: fortran/dah5.f90
	@mkdir -p $(FORTRAN)
	$(MPIFC) $(FORTRAN_FLAGS) $(MODDIR_FLAG)$(FORTRAN) -c $< -o $(FORTRAN)/dah5.o
	ar rcs $@ $(FORTRAN)/dah5.o

examples: lib $(EXAMPLES)

$(BUILD)/examples/%: examples-c/%.c include/dah5.h include/dah5_mpi.h
	@mkdir -p $(BUILD)/examples
	$(MPICC) $(CFLAGS) -Iinclude $< $(LINK_DAH5) -o $@

$(BUILD)/examples/%: examples-fortran/%.f90 $(FORTRAN)/libdah5_fortran.a
	@mkdir -p $(BUILD)/examples
	$(MPIFC) $(FORTRAN_FLAGS) -I$(FORTRAN) $< -L$(FORTRAN) -ldah5_fortran $(LINK_DAH5) -o $@

install: lib install-files

# Copy an already built library (target/$(PROFILE)) and the Fortran module into $(PREFIX).
install-files: fortran
	install -d $(PREFIX)/bin $(PREFIX)/lib/pkgconfig $(PREFIX)/include
	install -m 755 $(TARGET)/dah5 $(PREFIX)/bin/dah5
	install -m 755 $(TARGET)/libdah5.so $(PREFIX)/lib/libdah5.so
	install -m 644 $(TARGET)/libdah5.a $(FORTRAN)/libdah5_fortran.a $(PREFIX)/lib/
	install -m 644 include/dah5.h include/dah5_mpi.h fortran/dah5.f90 $(FORTRAN)/dah5.mod \
		$(PREFIX)/include/
	for pc in dah5 dah5-fortran; do \
		sed -e 's|@PREFIX@|$(abspath $(PREFIX))|' -e 's|@VERSION@|$(VERSION)|' $$pc.pc.in \
			> $(PREFIX)/lib/pkgconfig/$$pc.pc; \
	done
	install -d $(PREFIX)/lib/cmake/dah5
	hdf5=$$(ldd $(TARGET)/libdah5.so | awk '/libhdf5/ && !/_hl/ { print $$3; exit }'); \
	for f in dah5Config dah5ConfigVersion; do \
		sed -e 's|@VERSION@|$(VERSION)|' -e "s|@HDF5_LIBRARY@|$$hdf5|" \
			-e "s|@MPICC@|$$(command -v $(MPICC))|" -e "s|@MPIFC@|$$(command -v $(MPIFC))|" \
			cmake/$$f.cmake.in > $(PREFIX)/lib/cmake/dah5/$$f.cmake; \
	done

# Regenerate include/dah5.h from src/ffi with the pinned cbindgen (then commit it).
header:
	DAH5_UPDATE_HEADER=1 $(CARGO) test --test header

test:
	$(CARGO) test

demo:
	./scripts/demo.sh

# `make bench`: see bench/run.sh for its settings.
bench:
	./bench/run.sh

# One bench binary per profile: each is linked (rpath) to its own target/<profile>.
$(BUILD)/bench-$(PROFILE)/bench: bench/bench.c bench/common.h include/dah5.h include/dah5_mpi.h lib
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -Iinclude $(HDF5_CFLAGS) $< $(LINK_DAH5) $(HDF5_LIBS) -o $@

# bench/blocks.c's peers: PnetCDF and parallel netCDF-4 (Debian's libpnetcdf-dev and
# libnetcdf-mpi-dev), which Debian builds on Open MPI, netCDF-4 also on its HDF5: linked in
# only with that stack (netCDF-4's HDF5 next to another one in one process would mix two
# libraries). With another stack blocks measures dah5 against raw HDF5 alone.
DEBIAN_OPENMPI_HDF5 := /usr/lib/$(shell gcc -print-multiarch)/hdf5/openmpi
NETCDF_MPI_DIR := /usr/lib/$(shell gcc -print-multiarch)/netcdf/mpi
ifeq ($(abspath $(HDF5_DIR)),$(DEBIAN_OPENMPI_HDF5))
ifneq ($(wildcard /usr/include/pnetcdf.h),)
PEERS_CFLAGS += -DHAVE_PNETCDF
PEERS_LIBS   += -lpnetcdf
endif
ifneq ($(wildcard $(NETCDF_MPI_DIR)/include/netcdf_par.h),)
PEERS_CFLAGS += -DHAVE_NETCDF4 -I$(NETCDF_MPI_DIR)/include
PEERS_LIBS   += -lnetcdf_mpi
endif
endif

$(BUILD)/bench-$(PROFILE)/blocks: bench/blocks.c bench/common.h include/dah5.h \
		include/dah5_mpi.h lib
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -Iinclude $(HDF5_CFLAGS) $(PEERS_CFLAGS) $< $(LINK_DAH5) $(HDF5_LIBS) \
		$(PEERS_LIBS) -o $@

# Writes behind compute: h5bench's VPIC-IO pattern through dah5, sync and DAH5_ASYNC.
$(BUILD)/bench-$(PROFILE)/write_behind: bench/write_behind.c bench/common.h bench/schedstat.h include/dah5.h include/dah5_mpi.h lib
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -Iinclude $(HDF5_CFLAGS) $< $(LINK_DAH5) $(HDF5_LIBS) -o $@

# Does MPI-IO's nonblocking write progress while the caller computes? Plain MPI, built with
# whichever MPICC (mpicc.openmpi or mpicc.mpich): see bench/iwrite_progress.c.
$(BUILD)/bench-$(PROFILE)/iwrite_progress: bench/iwrite_progress.c bench/schedstat.h
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) $< -o $@

# A darray's block table: each rank's peak memory and time (see bench/table_memory.c).
$(BUILD)/bench-$(PROFILE)/table_memory: bench/table_memory.c bench/common.h bench/schedstat.h include/dah5.h include/dah5_mpi.h lib
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -Iinclude $(HDF5_CFLAGS) $< $(LINK_DAH5) $(HDF5_LIBS) -o $@

# Selection construction alone: HDF5 only, one process.
$(BUILD)/bench-$(PROFILE)/selection: bench/selection.c bench/common.h include/dah5_mpi.h
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -Iinclude $(HDF5_CFLAGS) $< $(HDF5_LIBS) -o $@

# A node's subfile written at computed offsets or by an aggregator over shared memory.
# Plain MPI: see bench/node_subfile.c.
$(BUILD)/bench-$(PROFILE)/node_subfile: bench/node_subfile.c bench/schedstat.h
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) $< -o $@

clean:
	$(CARGO) clean
	rm -rf build
