/*
 * bad_input.c: every kind of bad input, on 2 or more ranks. Each check asserts the status
 * and a piece of the last-error message; collective checks assert that every rank got the
 * same status. Afterwards the file must still be valid (the test harness opens it with
 * h5py and h5dump).
 *
 *   bad_input DIR      (DIR: an empty scratch directory)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dah5_mpi.h"
#include "expect.h"
#include "pattern.h"

static int32_t WORLD;

int main(int argc, char **argv)
{
    /* ---- before MPI_Init: a clear status, no crash; versions work already ---- */
    dah5_file *early = NULL;
    int32_t before_init = dah5_file_create(0, "never.h5", 0, &early);
    const char *before_msg_ok = strstr(dah5_last_error_message(), "MPI is not initialized");
    /* The MPI_Comm wrappers too (MPI_Comm_c2f may not be called yet). */
    int32_t before_init_comm = dah5_file_create_comm(MPI_COMM_WORLD, "never.h5", 0, &early);
    /* "dah5 0.1.0; HDF5 2.2.0; ...": the HDF5 of the stack under test (tests/bad_input.rs). */
    const char *want = getenv("DAH5_HDF5_VERSION");
    char hdf5[64];
    snprintf(hdf5, sizeof hdf5, "; HDF5 %s;", want ? want : "(DAH5_HDF5_VERSION unset)");
    int version_ok = dah5_version() == DAH5_VERSION_NUMBER && strstr(dah5_version_string(), hdf5);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    WORLD = (int32_t)MPI_Comm_c2f(MPI_COMM_WORLD);
    if (argc < 2 || size < 2) {
        fprintf(stderr, "usage: mpiexec -n 2+ bad_input DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char path[4096], text[4096], missing[4096];
    snprintf(path, sizeof path, "%s/bad.h5", argv[1]);
    snprintf(text, sizeof text, "%s/not-hdf5.txt", argv[1]);
    snprintf(missing, sizeof missing, "%s/no/such/dir/x.h5", argv[1]);
    if (rank == 0) {
        FILE *f = fopen(text, "w");
        fputs("this is not an HDF5 file, just some text long enough to be read\n", f);
        fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    checks += 2;
    if (before_init != DAH5_ERR_MPI_NOT_INITIALIZED || before_init_comm != DAH5_ERR_MPI_NOT_INITIALIZED ||
        !before_msg_ok || early != NULL || !version_ok) {
        fprintf(stderr, "rank %d: FAIL before MPI_Init: %s, with MPI_Comm %s, version %s\n", rank,
                dah5_status_name(before_init), dah5_status_name(before_init_comm), dah5_version_string());
        failures++;
    }

    /* ---- files ---- */
    dah5_file *file = NULL, *other = NULL;
    expect_all(dah5_file_create(WORLD, NULL, 0, &file), DAH5_ERR_NULL_ARGUMENT, "path is NULL", "create path NULL");
    expect_all(dah5_file_create(WORLD, path, 0, NULL), DAH5_ERR_NULL_ARGUMENT, "file_out is NULL", "create file_out NULL");
    expect_all(dah5_file_create(WORLD, path, 0x8, &file), DAH5_ERR_INVALID_ARGUMENT, "unknown bits 0x8", "create unknown flag");
    expect(dah5_file_create(123456, path, 0, &file), DAH5_ERR_INVALID_ARGUMENT, "not a valid communicator", "bad comm");
    expect_all(dah5_file_create(WORLD, missing, 0, &file), DAH5_ERR_NOT_FOUND, "no/such/dir", "missing directory");
    expect_all(dah5_file_open(WORLD, missing, 0, &file), DAH5_ERR_NOT_FOUND, "relative to each rank's working directory",
               "open missing file");
    /* A common error is said in one line; HDF5's stack follows only when asked for. */
    checks++;
    if ((strchr(dah5_last_error_message(), '\n') != NULL) != (getenv("DAH5_ERROR_STACK") != NULL) ||
        (getenv("DAH5_ERROR_STACK") && !strstr(dah5_last_error_message(), "\nHDF5 error stack:\n  #000 H5Fopen()"))) {
        fprintf(stderr, "rank %d: FAIL the missing file's message, one line unless DAH5_ERROR_STACK: %s\n", rank,
                dah5_last_error_message());
        failures++;
    }
    expect_all(dah5_file_open(WORLD, text, DAH5_RDONLY, &file), DAH5_ERR_NOT_HDF5, "not-hdf5.txt", "open non-HDF5");
    expect_all(dah5_file_open(WORLD, path, DAH5_RDONLY | DAH5_RDWR, &file), DAH5_ERR_INVALID_ARGUMENT, "both", "RDONLY|RDWR");
    /* Hostile paths and files (truncated.h5 and random.bin are made by tests/bad_input.rs). */
    char truncated[4096], random[4096], longest[6000];
    snprintf(truncated, sizeof truncated, "%s/truncated.h5", argv[1]);
    snprintf(random, sizeof random, "%s/random.bin", argv[1]);
    expect_all(dah5_file_open(WORLD, truncated, DAH5_RDONLY, &file), DAH5_ERR_TRUNCATED, "truncated file", "truncated file");
    expect_all(dah5_file_open(WORLD, random, DAH5_RDWR, &file), DAH5_ERR_NOT_HDF5, "signature", "random bytes");
    expect_all(dah5_file_create(WORLD, argv[1], DAH5_TRUNC, &file), DAH5_ERR_INVALID_ARGUMENT, "is a directory",
               "a directory as path");
    memset(longest, 'a', 5000);
    longest[5000] = '\0';
    expect_all(dah5_file_create(WORLD, longest, DAH5_TRUNC, &file), DAH5_ERR_INVALID_ARGUMENT, "(PATH_MAX)",
               "a path over PATH_MAX (Open MPI would crash on it)");
    longest[300] = '\0';
    expect_all(dah5_file_open(WORLD, longest, 0, &file), DAH5_ERR_INVALID_ARGUMENT, "(NAME_MAX)",
               "a file name over NAME_MAX");
    dah5_file_options fo;
    ok(dah5_file_options_default(&fo), "file options default");
    fo.version = 99;
    expect_all(dah5_file_create_with(WORLD, path, 0, &fo, &file), DAH5_ERR_INVALID_ARGUMENT, "version = 99", "options version");
    ok(dah5_file_options_default(&fo), "file options default");
    fo.flags = 0x8000; /* no file option flag has this bit */
    expect_all(dah5_file_create_with(WORLD, path, 0, &fo, &file), DAH5_ERR_INVALID_ARGUMENT, "options->flags", "file option flag");
    /* HDF5's file locking off (H5Pset_file_locking) through the file options. */
    char unlocked[4096];
    snprintf(unlocked, sizeof unlocked, "%s/unlocked.h5", argv[1]);
    fo.flags = DAH5_NO_FILE_LOCKING;
    ok(dah5_file_create_with(WORLD, unlocked, DAH5_TRUNC, &fo, &file), "create without file locking");
    ok(dah5_file_close(&file), "close the file made without locking");
    /* One rank with a NULL path: every rank fails, the lowest failing rank is named. */
    expect_all(dah5_file_create(WORLD, rank == 1 ? NULL : path, 0, &file), DAH5_ERR_NULL_ARGUMENT,
               rank == 1 ? "path is NULL" : "rank 1 rejected", "NULL path on rank 1 only");
    /* Ranks disagreeing on the path: nothing is created. */
    char mine[4096];
    snprintf(mine, sizeof mine, "%s/rank%d.h5", argv[1], rank);
    expect_all(dah5_file_create(WORLD, mine, 0, &file), DAH5_ERR_COLLECTIVE_MISMATCH, "path differs: rank 0 ", "paths differ");
    if (file != NULL) {
        fprintf(stderr, "rank %d: FAIL file_out written on failure\n", rank);
        failures++;
    }

    ok(dah5_file_create(WORLD, path, 0, &file), "create");
    expect_all(dah5_file_create(WORLD, path, 0, &other), DAH5_ERR_ALREADY_EXISTS, NULL, "exclusive create of existing file");

    /* ---- datasets ---- */
    uint64_t dims[2] = {6, 4}, big[2] = {UINT64_MAX / 2, 4};
    dah5_dataset *ds = NULL, *d2 = NULL;
    expect(dah5_dataset_create(NULL, "x", DAH5_FLOAT64, 2, dims, NULL, &ds), DAH5_ERR_NULL_ARGUMENT, "file is NULL", "dataset file NULL");
    expect_all(dah5_dataset_create(file, NULL, DAH5_FLOAT64, 2, dims, NULL, &ds), DAH5_ERR_NULL_ARGUMENT, "name is NULL", "name NULL");
    expect_all(dah5_dataset_create(file, "x", DAH5_FLOAT64, 2, NULL, NULL, &ds), DAH5_ERR_NULL_ARGUMENT, "dims is NULL", "dims NULL");
    expect_all(dah5_dataset_create(file, "x", DAH5_FLOAT64, 2, dims, NULL, NULL), DAH5_ERR_NULL_ARGUMENT, "dataset_out is NULL", "dataset_out NULL");
    expect_all(dah5_dataset_create(file, "x", DAH5_FLOAT64, 0, dims, NULL, &ds), DAH5_ERR_INVALID_ARGUMENT, "ndims = 0", "ndims 0");
    expect_all(dah5_dataset_create(file, "x", DAH5_FLOAT64, 33, dims, NULL, &ds), DAH5_ERR_INVALID_ARGUMENT, "ndims = 33", "ndims 33");
    expect_all(dah5_dataset_create(file, "x", 99, 2, dims, NULL, &ds), DAH5_ERR_INVALID_ARGUMENT, "dtype = 99", "dtype 99");
    expect_all(dah5_dataset_create(file, "x", DAH5_FLOAT64, 2, big, NULL, &ds), DAH5_ERR_INVALID_ARGUMENT, "overflow", "dims overflow");
    expect_all(dah5_dataset_create(file, "", DAH5_FLOAT64, 2, dims, NULL, &ds), DAH5_ERR_INVALID_ARGUMENT, "name", "empty name");
    dah5_dataset_options dopt;
    ok(dah5_dataset_options_default(&dopt), "dataset options default");
    dopt.flags = 0x80;
    expect_all(dah5_dataset_create(file, "x", DAH5_FLOAT64, 2, dims, &dopt, &ds), DAH5_ERR_INVALID_ARGUMENT, "options->flags", "dataset option flag");
    expect_all(dah5_dataset_create(file, "x", DAH5_FLOAT64, rank == 1 ? 33 : 2, dims, NULL, &ds),
               DAH5_ERR_INVALID_ARGUMENT, rank == 1 ? "ndims = 33" : "rank 1 rejected", "ndims 33 on rank 1 only");
    uint64_t their[2] = {rank == 1 ? 16 : 8, 4};
    expect_all(dah5_dataset_create(file, "x", DAH5_FLOAT64, 2, their, NULL, &ds), DAH5_ERR_COLLECTIVE_MISMATCH,
               "dims differ: rank", "dims differ");
    expect_all(dah5_dataset_create(file, "x", DAH5_FLOAT64, 2, their, NULL, &ds), DAH5_ERR_COLLECTIVE_MISMATCH,
               "rank 1 (16, 4)", "the message names the ranks and their dims");
    expect_all(dah5_dataset_create(file, "x", rank == 1 ? DAH5_INT32 : DAH5_FLOAT64, 2, dims, NULL, &ds),
               DAH5_ERR_COLLECTIVE_MISMATCH, "dtype differs: rank", "dtypes differ");
    expect_all(dah5_dataset_create(file, rank == 1 ? "y" : "x", DAH5_FLOAT64, 2, dims, NULL, &ds),
               DAH5_ERR_COLLECTIVE_MISMATCH, "name differs: rank", "names differ");
    dah5_dataset_options chunked;
    ok(dah5_dataset_options_default(&chunked), "dataset options default");
    chunked.chunk_ndims = 2;
    chunked.chunk[0] = rank == 1 ? 3 : 2;
    chunked.chunk[1] = 4;
    expect_all(dah5_dataset_create(file, "x", DAH5_FLOAT64, 2, dims, &chunked, &ds),
               DAH5_ERR_COLLECTIVE_MISMATCH, "(2, 4), rank 1 (3, 4)", "chunking differs");
    if (ds != NULL) {
        fprintf(stderr, "rank %d: FAIL dataset_out written on failure\n", rank);
        failures++;
    }
    ok(dah5_dataset_create(file, "x", DAH5_FLOAT64, 2, dims, NULL, &ds), "create x");
    /* Ranks making different collective calls at the same point: rank 0 flushes while the
     * others set atomic mode. Both calls fail everywhere and nothing happens. */
    expect_all(rank == 0 ? dah5_file_flush(file) : dah5_file_set_atomic(file, 0), DAH5_ERR_COLLECTIVE_MISMATCH,
               "different collective calls: rank 0 dah5_file_flush, rank", "different calls on different ranks");
    /* A dataset close returns at once, and the other ranks' calls at that point are checked
     * against it as they make them. Rank 0 alone closes a dataset (first: the others wait in
     * a barrier) while the others flush: their flush fails at once, naming both calls. Rank
     * 0 learns it at its next collective call, which fails on every rank with nothing done,
     * so that every rank's calls stay paired; the dataset stays open until the file closes.
     * (On the shared-memory board, where a close does not wait; through MPI messages it
     * waits, and both calls fail at once.) */
    dah5_dataset *again = NULL, *p = NULL, *q = NULL;
    ok(dah5_dataset_open(file, "x", &again), "open x a second time");
    if (rank == 0)
        ok(dah5_dataset_close(&again), "close on rank 0 alone");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0)
        expect(dah5_file_flush(file), DAH5_ERR_COLLECTIVE_MISMATCH,
               "different collective calls: rank 0 dah5_dataset_close, rank", "a flush where rank 0 closed a dataset");
    expect_all(dah5_file_flush(file), DAH5_ERR_COLLECTIVE_MISMATCH,
               rank == 0 ? "earlier dah5_dataset_close of \"x\" (it returned at once" : "rank 0 rejected its arguments",
               "the closing rank's next call, after a close the others did not make");
    ok(dah5_file_flush(file), "flush once the ranks are in step again");
    /* Ranks closing different datasets: a rank that closes after every other rank did
     * learns it at once (its handle is left open), the others at their next call. */
    ok(dah5_dataset_create(file, "p", DAH5_FLOAT64, 2, dims, NULL, &p), "create p");
    ok(dah5_dataset_create(file, "q", DAH5_FLOAT64, 2, dims, NULL, &q), "create q");
    if (rank == 0)
        ok(dah5_dataset_close(&p), "close p on rank 0");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0) {
        int32_t closed = dah5_dataset_close(&q);
        if (closed != DAH5_OK)
            expect(closed, DAH5_ERR_COLLECTIVE_MISMATCH, "dataset differs: rank 0 \"p\", rank", "close q after every rank closed");
        expect(q == NULL ? DAH5_OK : DAH5_ERR_COLLECTIVE_MISMATCH, closed, NULL, "a close that failed leaves its handle");
    }
    expect_all(dah5_file_flush(file), DAH5_ERR_COLLECTIVE_MISMATCH, rank == 0 ? "dataset differs: rank 0 \"p\"" : NULL,
               "the next call after closes of different datasets");
    ok(dah5_file_flush(file), "flush once the ranks are in step again");
    double unit = 1.0;
    expect_all(rank == 0 ? dah5_attr_write_string(file, "/", "units", "m")
                         : dah5_attr_write(file, "/", "units", DAH5_FLOAT64, 0, 1, &unit),
               DAH5_ERR_COLLECTIVE_MISMATCH, "rank 0 dah5_attr_write_string, rank",
               "a string attribute on one rank, a number on the others");
    expect_all(dah5_dataset_create(file, "x", DAH5_FLOAT64, 2, dims, NULL, &d2), DAH5_ERR_ALREADY_EXISTS, "\"x\"", "dataset exists");
    expect_all(dah5_dataset_open(file, "nope", &d2), DAH5_ERR_NOT_FOUND, "\"nope\"", "open missing dataset");
    expect_all(dah5_dataset_open(file, NULL, &d2), DAH5_ERR_NULL_ARGUMENT, "name is NULL", "open name NULL");
    uint64_t got[2];
    expect(dah5_dataset_dims(ds, 1, got), DAH5_ERR_INVALID_ARGUMENT, "capacity = 1", "dims capacity");
    expect(dah5_dataset_dims(ds, 2, NULL), DAH5_ERR_NULL_ARGUMENT, "dims_out", "dims_out NULL");
    expect(dah5_dataset_dtype(ds, NULL), DAH5_ERR_NULL_ARGUMENT, "dtype_out", "dtype_out NULL");
    expect(dah5_dataset_ndims(NULL, NULL), DAH5_ERR_NULL_ARGUMENT, "dataset is NULL", "ndims dataset NULL");

    /* ---- blocks ---- */
    double row[4] = {1, 2, 3, 4};
    int32_t irow[4] = {1, 2, 3, 4};
    uint64_t off[2] = {(uint64_t)rank % 6, 0}, cnt[2] = {1, 4};
    uint64_t oob[2] = {5, 1}, wrap[2] = {0, UINT64_MAX};
    expect(dah5_write_block(NULL, off, cnt, DAH5_FLOAT64, row, 0), DAH5_ERR_NULL_ARGUMENT, "dataset is NULL", "write dataset NULL");
    expect(dah5_write_block(ds, NULL, cnt, DAH5_FLOAT64, row, 0), DAH5_ERR_NULL_ARGUMENT, "offset is NULL", "offset NULL");
    expect(dah5_write_block(ds, off, NULL, DAH5_FLOAT64, row, 0), DAH5_ERR_NULL_ARGUMENT, "count is NULL", "count NULL");
    expect(dah5_write_block(ds, off, cnt, DAH5_FLOAT64, NULL, 0), DAH5_ERR_NULL_ARGUMENT, "buf is NULL", "buf NULL");
    expect(dah5_read_block(ds, off, cnt, DAH5_FLOAT64, NULL, 0), DAH5_ERR_NULL_ARGUMENT, "buf is NULL", "read buf NULL");
    expect(dah5_write_block(ds, oob, cnt, DAH5_FLOAT64, row, 0), DAH5_ERR_OUT_OF_BOUNDS, "offset[1] + count[1] = 1 + 4 = 5 > dims[1] = 4", "out of bounds");
    expect(dah5_write_block(ds, wrap, cnt, DAH5_FLOAT64, row, 0), DAH5_ERR_OUT_OF_BOUNDS, "wraps", "wrapping offset");
    expect(dah5_write_block(ds, off, cnt, DAH5_INT32, irow, 0), DAH5_ERR_TYPE_MISMATCH, "DAH5_INT32 differs from the dtype DAH5_FLOAT64", "wrong dtype");
    expect(dah5_write_block(ds, off, cnt, 0, row, 0), DAH5_ERR_INVALID_ARGUMENT, "mem_dtype = 0", "dtype 0");
    expect(dah5_write_block(ds, off, cnt, DAH5_COMPLEX128, row, DAH5_CONVERT), DAH5_ERR_TYPE_MISMATCH, "cannot be converted", "complex to float");
    expect(dah5_write_block(ds, off, cnt, DAH5_FLOAT64, row, 0x40), DAH5_ERR_INVALID_ARGUMENT, "xfer_flags = 0x40", "unknown xfer flag");
    /* A collective transfer (its agreement carries an extra value) against a flush: the
     * reductions still match, and both calls fail everywhere. */
    expect_all(rank == 0 ? dah5_file_flush(file) : dah5_write_block(ds, off, cnt, DAH5_FLOAT64, row, DAH5_COLLECTIVE),
               DAH5_ERR_COLLECTIVE_MISMATCH, "different collective calls: rank 0 dah5_file_flush, rank",
               "a collective transfer on some ranks, a flush on rank 0");
    /* Collective with one bad rank: every rank fails, nothing moves. */
    expect_all(dah5_write_block(ds, rank == 1 ? oob : off, cnt, DAH5_FLOAT64, row, DAH5_COLLECTIVE),
               DAH5_ERR_OUT_OF_BOUNDS, rank == 1 ? "dims[1] = 4" : "rank 1 rejected", "collective, rank 1 out of bounds");
    /* Good writes: the pattern, rows split over ranks, some by conversion from int32. */
    for (uint64_t r = (uint64_t)rank; r < 6; r += (uint64_t)size) {
        double good[4];
        float narrow[4]; /* exact: the pattern needs at most 15 significant bits here */
        for (int j = 0; j < 4; j++) {
            pattern_value(DAH5_FLOAT64, r * 4 + (uint64_t)j, &good[j]);
            narrow[j] = (float)good[j];
        }
        uint64_t o[2] = {r, 0};
        if (r % 2 == 0)
            ok(dah5_write_block(ds, o, cnt, DAH5_FLOAT32, narrow, DAH5_CONVERT), "write float32 converted");
        else
            ok(dah5_write_block(ds, o, cnt, DAH5_FLOAT64, good, 0), "write");
    }
    uint64_t zero[2] = {6, 0}, none[2] = {0, 4};
    ok(dah5_write_block(ds, zero, none, DAH5_FLOAT64, NULL, 0), "empty block at the end, NULL buf");

    /* ---- values that do not fit: refused, never clamped ---- */
    {
        dah5_dataset *ints = NULL, *wide = NULL;
        uint64_t n[1] = {(uint64_t)size}, me[1] = {(uint64_t)rank}, one[1] = {1};
        ok(dah5_dataset_create(file, "ints", DAH5_INT32, 1, n, NULL, &ints), "create ints");
        ok(dah5_dataset_create(file, "wide", DAH5_FLOAT64, 1, n, NULL, &wide), "create wide");
        double seven = 7.9, huge = 3e10, nan = 0.0 / 0.0;
        ok(dah5_write_block(ints, me, one, DAH5_FLOAT64, &seven, DAH5_CONVERT), "7.9 into int32");
        expect(dah5_write_block(ints, me, one, DAH5_FLOAT64, &huge, DAH5_CONVERT), DAH5_ERR_TYPE_MISMATCH,
               "element 0 of buf (3e10) does not fit the dtype DAH5_INT32", "3e10 into int32");
        expect(dah5_write_block(ints, me, one, DAH5_FLOAT64, &nan, DAH5_CONVERT), DAH5_ERR_TYPE_MISMATCH,
               "does not fit", "NaN into int32");
        expect_all(dah5_write_block(ints, me, one, DAH5_FLOAT64, rank == 1 ? &huge : &seven, DAH5_COLLECTIVE | DAH5_CONVERT),
                   DAH5_ERR_TYPE_MISMATCH, rank == 1 ? "(3e10)" : "rank 1 rejected", "collective, 3e10 on rank 1");
        int32_t back = 0;
        ok(dah5_read_block(ints, me, one, DAH5_INT32, &back, 0), "read ints");
        checks++;
        if (back != 7) {
            fprintf(stderr, "rank %d: FAIL a refused write changed the value: %d\n", rank, back);
            failures++;
        }
        ok(dah5_write_block(wide, me, one, DAH5_FLOAT64, &huge, 0), "write 3e10");
        expect(dah5_read_block(wide, me, one, DAH5_INT32, &back, DAH5_CONVERT), DAH5_ERR_TYPE_MISMATCH,
               "holds 3e10, which mem_dtype DAH5_INT32 cannot hold", "read 3e10 into int32");
        float narrow = 0;
        ok(dah5_read_block(wide, me, one, DAH5_FLOAT32, &narrow, DAH5_CONVERT), "3e10 into float32 fits");
        ok(dah5_dataset_close(&ints), "close ints");
        ok(dah5_dataset_close(&wide), "close wide");
    }

    /* ---- last error ---- */
    expect(dah5_write_block(ds, oob, cnt, DAH5_FLOAT64, row, 0), DAH5_ERR_OUT_OF_BOUNDS, "dah5_write_block (rank", "message names function and rank");
    char small[8];
    size_t full = dah5_last_error(small, sizeof small);
    checks++;
    if (full != strlen(dah5_last_error_message()) || strlen(small) != 7 || strncmp(small, dah5_last_error_message(), 7) != 0) {
        fprintf(stderr, "rank %d: FAIL dah5_last_error truncation: %zu, \"%s\"\n", rank, full, small);
        failures++;
    }
    ok(dah5_dataset_ndims(ds, &(uint32_t){0}), "success leaves the message");
    expect(DAH5_OK, DAH5_OK, "dah5_write_block", "message kept after success");

    /* ---- handles ---- */
    dah5_dataset *copy = ds;
    ok(dah5_dataset_close(&ds), "close x");
    checks++;
    if (ds != NULL) {
        fprintf(stderr, "rank %d: FAIL close did not NULL the handle\n", rank);
        failures++;
    }
    ok(dah5_dataset_close(&ds), "close of NULL handle is a no-op");
    ok(dah5_dataset_close(NULL), "close(NULL) is a no-op");
    expect(dah5_dataset_close(&copy), DAH5_ERR_INVALID_HANDLE, "not an open dah5_dataset", "double close");
    expect(dah5_write_block(copy, off, cnt, DAH5_FLOAT64, row, 0), DAH5_ERR_INVALID_HANDLE, "not an open", "use after close");
    expect(dah5_dataset_dims((dah5_dataset *)file, 2, got), DAH5_ERR_INVALID_HANDLE, "dah5_dataset", "file handle as dataset");
    expect(dah5_file_flush((dah5_file *)(uintptr_t)0x1234), DAH5_ERR_INVALID_HANDLE, "0x1234", "made-up handle");
    ok(dah5_dataset_open(file, "x", &ds), "reopen x");
    ok(dah5_dataset_create(file, "grp/sub/y", DAH5_UINT8, 1, dims, NULL, &d2), "dataset in new groups");
    dah5_file *fcopy = file;
    ok(dah5_file_close(&file), "close file with datasets open");
    expect(dah5_dataset_ndims(ds, &(uint32_t){0}), DAH5_ERR_INVALID_HANDLE, "not an open", "dataset after its file closed");
    expect(dah5_file_close(&fcopy), DAH5_ERR_INVALID_HANDLE, "dah5_file", "double file close");

    /* ---- read-only ---- */
    ok(dah5_file_open(WORLD, path, DAH5_RDONLY, &file), "open read-only");
    ok(dah5_dataset_open(file, "x", &ds), "open x read-only");
    expect(dah5_write_block(ds, off, cnt, DAH5_FLOAT64, row, 0), DAH5_ERR_READ_ONLY, "read-only", "write to read-only file");
    expect_all(dah5_dataset_create(file, "z", DAH5_FLOAT64, 2, dims, NULL, &d2), DAH5_ERR_READ_ONLY, "read-only", "create in read-only file");
    double back[4];
    ok(dah5_read_block(ds, off, cnt, DAH5_FLOAT64, back, 0), "read");
    ok(dah5_file_close(&file), "close read-only");

    /* ---- MPI finalized: a clear status, no crash ---- */
    MPI_Barrier(MPI_COMM_WORLD);
    int total;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    expect(dah5_file_open(WORLD, path, DAH5_RDONLY, &file), DAH5_ERR_MPI_NOT_INITIALIZED, "finalized", "after MPI_Finalize");
    expect(dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDONLY, &file), DAH5_ERR_MPI_NOT_INITIALIZED, "finalized",
           "after MPI_Finalize, with MPI_Comm");
    if (rank == 0)
        printf("bad_input: %d checks a rank, %d failures over %d ranks\n", checks, total, size);
    return total || failures ? 1 : 0;
}
