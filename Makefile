# dah5 build. `make` builds the library and the examples; `make install PREFIX=...` makes
# an install tree usable with `mpicc prog.c $(pkg-config --cflags --libs dah5)`.
#
# On a cluster: load the MPI and parallel HDF5 modules first, or set HDF5_DIR to the
# parallel HDF5 install and put the MPI wrappers (mpicc) on PATH; see README.md.

PREFIX  ?= /usr/local
PROFILE ?= release
CARGO   ?= cargo
MPICC   ?= mpicc
CFLAGS  ?= -std=c99 -O2 -Wall -Wextra -Werror

VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
TARGET  := target/$(PROFILE)
# cargo calls its debug profile "dev" but builds it into target/debug.
CARGO_PROFILE := $(if $(filter debug,$(PROFILE)),dev,$(PROFILE))
EXAMPLES := $(patsubst examples-c/%.c,build/examples/%,$(wildcard examples-c/*.c))

.PHONY: all lib examples install install-files header test demo bench clean

all: lib examples

lib:
	$(CARGO) build --profile $(CARGO_PROFILE)

examples: lib $(EXAMPLES)

build/examples/%: examples-c/%.c include/dah5.h include/dah5_mpi.h
	@mkdir -p build/examples
	$(MPICC) $(CFLAGS) -Iinclude $< -L$(TARGET) -Wl,-rpath,$(abspath $(TARGET)) -ldah5 -o $@

install: lib install-files

# Copy an already built library (target/$(PROFILE)) into $(PREFIX).
install-files:
	install -d $(PREFIX)/lib/pkgconfig $(PREFIX)/include
	install -m 755 $(TARGET)/libdah5.so $(PREFIX)/lib/libdah5.so
	install -m 644 $(TARGET)/libdah5.a $(PREFIX)/lib/libdah5.a
	install -m 644 include/dah5.h include/dah5_mpi.h $(PREFIX)/include/
	sed -e 's|@PREFIX@|$(abspath $(PREFIX))|' -e 's|@VERSION@|$(VERSION)|' dah5.pc.in \
		> $(PREFIX)/lib/pkgconfig/dah5.pc

# Regenerate include/dah5.h from src/ffi with the pinned cbindgen (then commit it).
header:
	DAH5_UPDATE_HEADER=1 $(CARGO) test --test header

test:
	$(CARGO) test

demo:
	./scripts/demo.sh

clean:
	$(CARGO) clean
	rm -rf build
