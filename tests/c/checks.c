/*
 * checks.c: DAH5_CHECKS=off (and the file option DAH5_NO_CHECKS) leaves out the cross-rank
 * agreement, nothing else.
 *
 *   mpiexec -n N ./checks off PATH     a complete program with the checks off: datasets,
 *                                      attributes, independent and collective blocks, read
 *                                      back; a bad argument on every rank is still refused
 *                                      on every rank. "rank R: checks off OK"
 *   mpiexec -n N ./checks mixed PATH   rank 0 alone sets DAH5_CHECKS=off: the ranks' file
 *                                      options differ, so the create is refused on every
 *                                      rank. "rank R: mixed checks refused"
 */
#define _POSIX_C_SOURCE 200112L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "check.h"
#include "dah5_mpi.h"

#define N 8 /* elements a rank */

static int failures;

static void expect(int32_t got, int32_t want, const char *needle, const char *what)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (got != want || (needle && !strstr(dah5_last_error_message(), needle))) {
        fprintf(stderr, "rank %d: %s: got %s, want %s (with \"%s\"): %s\n", rank, what, dah5_status_name(got),
                dah5_status_name(want), needle ? needle : "", dah5_last_error_message());
        failures++;
    }
}

static void checks_off(const char *path, int rank, int size)
{
    dah5_file *file = NULL;
    dah5_dataset *ds = NULL;
    uint64_t dims[1] = {(uint64_t)size * N}, off[1] = {(uint64_t)rank * N}, cnt[1] = {N};
    double mine[N], all[N * 64];
    for (int i = 0; i < N; i++)
        mine[i] = rank * N + i;
    check(dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &file), "create");
    check(dah5_dataset_create(file, "x", DAH5_FLOAT64, 1, dims, NULL, &ds), "dataset");
    double units = 2.5;
    check(dah5_attr_write(file, "x", "scale", DAH5_FLOAT64, 0, 1, &units), "attr");
    check(dah5_attr_write_string(file, "/", "title", "checks off"), "string attr");
    check(dah5_write_block(ds, off, cnt, DAH5_FLOAT64, mine, DAH5_INDEPENDENT), "write");
    check(dah5_dataset_close(&ds), "close x");
    check(dah5_dataset_create(file, "y", DAH5_FLOAT64, 1, dims, NULL, &ds), "dataset y");
    check(dah5_write_block(ds, off, cnt, DAH5_FLOAT64, mine, DAH5_COLLECTIVE), "collective write");
    check(dah5_file_flush(file), "flush");
    MPI_Barrier(MPI_COMM_WORLD);
    uint64_t whole[1] = {0};
    check(dah5_read_block(ds, whole, dims, DAH5_FLOAT64, all, DAH5_COLLECTIVE), "collective read");
    for (int i = 0; i < size * N; i++)
        if (all[i] != i) {
            fprintf(stderr, "rank %d: y[%d] = %g\n", rank, i, all[i]);
            failures++;
            break;
        }
    /* The same bad argument on every rank: each rank's own check still refuses it. */
    dah5_dataset *never = NULL;
    expect(dah5_dataset_create(file, "z", 99, 1, dims, NULL, &never), DAH5_ERR_INVALID_ARGUMENT, "dtype",
           "bad dtype with the checks off");
    check(dah5_dataset_close(&ds), "close y");
    /* A darray: rank 0 checks the gathered blocks and tells every rank, checks off too. */
    check(dah5_darray_write(file, "d", DAH5_FLOAT64, 1, dims, off, cnt, mine, 0, NULL, &ds), "darray");
    uint32_t nblocks = 0;
    check(dah5_darray_blocks(ds, 0, &nblocks, NULL, NULL), "darray blocks");
    if (nblocks != (uint32_t)size) {
        fprintf(stderr, "rank %d: the darray's table has %u blocks\n", rank, nblocks);
        failures++;
    }
    check(dah5_dataset_close(&ds), "close d");
    uint64_t first[1] = {0};
    expect(dah5_darray_write(file, "e", DAH5_FLOAT64, 1, dims, first, cnt, mine, 0, NULL, &never),
           DAH5_ERR_INVALID_ARGUMENT, "overlap",
           "overlapping darray blocks with the checks off");
    check(dah5_file_close(&file), "close");
    if (failures == 0)
        printf("rank %d: checks off OK\n", rank);
}

static void mixed(const char *path, int rank)
{
    if (rank == 0)
        setenv("DAH5_CHECKS", "off", 1);
    dah5_file *file = NULL;
    expect(dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &file), DAH5_ERR_COLLECTIVE_MISMATCH,
           "options.checks differ", "create with the checks off on rank 0 alone");
    if (file != NULL)
        failures++;
    if (failures == 0)
        printf("rank %d: mixed checks refused\n", rank);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3 || size > 64) {
        fprintf(stderr, "usage: checks off|mixed PATH (at most 64 ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (strcmp(argv[1], "off") == 0)
        checks_off(argv[2], rank, size);
    else
        mixed(argv[2], rank);
    MPI_Finalize();
    return failures != 0;
}
