/*
 * prefixed.c: one file named as ROMIO lets a job name it, PREFIX DIR/x.h5 ("nfs:/scratch/x.h5"),
 * written and read by every rank, and what dah5 does where MPI-IO does not make one rank's
 * writes visible to the others at once (ROMIO's NFS driver in MPICH 4.1 and later says
 * romio_visibility_immediate=false; HDF5_DO_MPI_FILE_SYNC=1 says the same to HDF5 and dah5):
 *
 *  - a dataset larger than DIR's free space is DAH5_ERR_NO_SPACE (dah5's own statvfs of DIR);
 *  - an independent dah5_write_block is DAH5_ERR_UNSUPPORTED on the rank that tries, naming
 *    the cause and the way out, and writes nothing, where writes are not visible at once;
 *    where they are, it works;
 *  - collective writes, in two rounds, each followed by dah5_file_flush: every rank reads its
 *    neighbour's rows of the round just written (read after write across ranks);
 *  - dah5_darray_write with flag 0 (an independent transfer unless the file system needs a
 *    collective one) and a subfiled darray, whose subfiles go to DIR/x.h5.d/.
 *
 * Rank 0 prints what the MPI says of the file system ("visibility hint: false|true|none") and
 * dah5's verdict ("writes visible at once: yes|no"); tests/prefixed.rs checks the file with
 * h5py and runs dah5 info and dah5 merge on the prefixed names.
 *
 * With "one-rank-sync", rank 0 alone sets HDF5_DO_MPI_FILE_SYNC=1 (the ranks would then
 * disagree on which writes must be collective): the create must be DAH5_ERR_COLLECTIVE_MISMATCH
 * on every rank, naming the variable, and make no file.
 *
 *   mpiexec -n N prefixed PREFIX DIR [one-rank-sync]
 */
#define _POSIX_C_SOURCE 200112L /* setenv */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "check.h"
#include "dah5_mpi.h"

enum { ROWS = 4, COLS = 3 };

static int rank, size;

/* The value of element (i, j) of the whole (ROWS * size, COLS) array in round `round`. */
static double value(uint64_t i, uint64_t j, int round)
{
    return 1000.0 * round + (double)(i * COLS + j) + 0.25;
}

static void fill(double *rows, int owner, int round)
{
    for (uint64_t i = 0; i < ROWS; i++)
        for (uint64_t j = 0; j < COLS; j++)
            rows[i * COLS + j] = value((uint64_t)owner * ROWS + i, j, round);
}

/* Fail the job unless `rows` hold `owner`'s rows of `round`. */
static void expect_rows(const double *rows, int owner, int round, const char *what)
{
    double want[ROWS * COLS];
    fill(want, owner, round);
    for (int k = 0; k < ROWS * COLS; k++)
        if (rows[k] != want[k]) {
            fprintf(stderr, "rank %d: FAIL %s: element %d of rank %d's rows is %g, not %g\n", rank, what, k,
                    owner, rows[k], want[k]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
}

/* The MPI's own word on the file system of `path`: its romio_visibility_immediate hint. */
static void mpi_visibility_hint(const char *path, char *hint, int len)
{
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                      MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: FAIL MPI_File_open(%s)\n", rank, path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Info info;
    int found = 0;
    MPI_File_get_info(fh, &info);
    MPI_Info_get(info, "romio_visibility_immediate", len - 1, hint, &found);
    if (!found)
        snprintf(hint, (size_t)len, "none");
    MPI_Info_free(&info);
    MPI_File_close(&fh);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3 && !(argc == 4 && strcmp(argv[3], "one-rank-sync") == 0)) {
        fprintf(stderr, "usage: mpiexec -n N prefixed PREFIX DIR [one-rank-sync]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char path[4096], probe[4096];
    snprintf(path, sizeof path, "%s%s/x.h5", argv[1], argv[2]);
    snprintf(probe, sizeof probe, "%s%s/probe.bin", argv[1], argv[2]);
    if (argc == 4) {
        if (rank == 0)
            setenv("HDF5_DO_MPI_FILE_SYNC", "1", 1);
        dah5_file *file = NULL;
        int32_t status = dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &file);
        if (status != DAH5_ERR_COLLECTIVE_MISMATCH || !strstr(dah5_last_error_message(), "HDF5_DO_MPI_FILE_SYNC") ||
            file != NULL) {
            fprintf(stderr, "rank %d: FAIL HDF5_DO_MPI_FILE_SYNC on rank 0 alone: %s: %s\n", rank,
                    dah5_status_name(status), dah5_last_error_message());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (rank == 0)
            printf("prefixed: mismatch OK on %d ranks\n", size);
        MPI_Finalize();
        return 0;
    }

    char hint[32];
    mpi_visibility_hint(probe, hint, (int)sizeof hint);
    const char *sync = getenv("HDF5_DO_MPI_FILE_SYNC");
    int deferred = sync ? (strcmp(sync, "1") == 0 || strcmp(sync, "TRUE") == 0) : strcmp(hint, "false") == 0;
    if (rank == 0)
        printf("visibility hint: %s\nwrites visible at once: %s\n", hint, deferred ? "no" : "yes");

    dah5_file *file = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &file), "create the prefixed file");

    /* dah5's free-space check looks at DIR, not at a directory named "nfs:". */
    dah5_dataset *huge = NULL;
    const uint64_t huge_dims[1] = {UINT64_C(1) << 50};
    int32_t status = dah5_dataset_create(file, "huge", DAH5_FLOAT64, 1, huge_dims, NULL, &huge);
    if (status != DAH5_ERR_NO_SPACE || !strstr(dah5_last_error_message(), argv[2])) {
        fprintf(stderr, "rank %d: FAIL an 8 PiB dataset: %s: %s\n", rank, dah5_status_name(status),
                dah5_last_error_message());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    dah5_dataset *u = NULL;
    const uint64_t dims[2] = {(uint64_t)ROWS * (uint64_t)size, COLS};
    check(dah5_dataset_create(file, "u", DAH5_FLOAT64, 2, dims, NULL, &u), "create u");
    const uint64_t offset[2] = {(uint64_t)rank * ROWS, 0}, count[2] = {ROWS, COLS};
    double mine[ROWS * COLS], theirs[ROWS * COLS];

    /* Round 1 independently: refused where writes are not visible at once. */
    fill(mine, rank, 1);
    status = dah5_write_block(u, offset, count, DAH5_FLOAT64, mine, DAH5_INDEPENDENT);
    const char *message = dah5_last_error_message();
    if (deferred ? status != DAH5_ERR_UNSUPPORTED || !strstr(message, "romio_visibility_immediate=false") ||
                       !strstr(message, "DAH5_COLLECTIVE") || strstr(message, "MPI_File_sync is required")
                 : status != DAH5_OK) {
        fprintf(stderr, "rank %d: FAIL an independent write (%s): %s: %s\n", rank,
                deferred ? "refused where writes are not visible at once" : "works", dah5_status_name(status),
                message);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    /* Two collective rounds; after each flush every rank reads its neighbour's rows. */
    const int neighbour = (rank + 1) % size;
    const uint64_t their_offset[2] = {(uint64_t)neighbour * ROWS, 0};
    for (int round = 1; round <= 2; round++) {
        fill(mine, rank, round);
        check(dah5_write_block(u, offset, count, DAH5_FLOAT64, mine, DAH5_COLLECTIVE), "collective write");
        check(dah5_file_flush(file), "flush");
        memset(theirs, 0, sizeof theirs);
        check(dah5_read_block(u, their_offset, count, DAH5_FLOAT64, theirs, DAH5_INDEPENDENT), "read");
        expect_rows(theirs, neighbour, round, "the neighbour's rows after the flush");
    }
    check(dah5_dataset_close(&u), "close u");

    /* Darrays: flag 0, and subfiled (each rank's block in DIR/x.h5.d/). */
    fill(mine, rank, 3);
    dah5_dataset *d = NULL, *s = NULL;
    check(dah5_darray_write(file, "d", DAH5_FLOAT64, 2, dims, offset, count, mine, 0, NULL, &d), "darray d");
    check(dah5_file_flush(file), "flush d");
    memset(theirs, 0, sizeof theirs);
    check(dah5_read_block(d, their_offset, count, DAH5_FLOAT64, theirs, DAH5_INDEPENDENT), "read d");
    expect_rows(theirs, neighbour, 3, "the neighbour's rows of darray d");
    check(dah5_dataset_close(&d), "close d");
    fill(mine, rank, 4);
    check(dah5_darray_write(file, "s", DAH5_FLOAT64, 2, dims, offset, count, mine, DAH5_DARRAY_SUBFILED, NULL, &s),
          "subfiled darray s");
    check(dah5_dataset_close(&s), "close s");
    check(dah5_file_close(&file), "close");
    if (rank == 0)
        printf("prefixed: OK on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
