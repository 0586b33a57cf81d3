/*
 * behind_fails.c: a write behind (DAH5_ASYNC) that fails after its call returned, for real:
 * the last rank may not write past 4 MiB of any file (RLIMIT_FSIZE, SIGXFSZ ignored), and
 * its block of "big" lies beyond, so its pwrite fails with EFBIG on the write-behind thread.
 * Every rank's write returns DAH5_OK; the last rank's dah5_file_wait returns the failure
 * naming the dataset; the flush and the close fail on every rank; the file stays valid,
 * with the other ranks' blocks and "small" (written before) in it.
 *
 *   mpiexec -n N ./behind_fails PATH      (N >= 2)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <mpi.h>

#include "dah5_mpi.h"
#include "expect.h"
#include "pattern.h"

enum { N = 1 << 20 }; /* 8 MiB a rank */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 2 || size < 2) {
        fprintf(stderr, "usage: mpiexec -n N ./behind_fails PATH (N >= 2)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int last = size - 1;
    dah5_file *file = NULL;
    ok(dah5_file_create_comm(MPI_COMM_WORLD, argv[1], DAH5_TRUNC, &file), "create");
    uint64_t small_dims[1] = {(uint64_t)size}, one[1] = {1}, at[1] = {(uint64_t)rank};
    double mine = rank;
    dah5_dataset *small = NULL, *big = NULL;
    ok(dah5_dataset_create(file, "small", DAH5_FLOAT64, 1, small_dims, NULL, &small), "create small");
    ok(dah5_write_block(small, at, one, DAH5_FLOAT64, &mine, DAH5_ASYNC), "small behind");
    ok(dah5_file_wait(file), "small: wait");
    expect_all(dah5_file_flush(file), DAH5_OK, NULL, "flush small");

    uint64_t dims[1] = {(uint64_t)size * N}, offset[1] = {(uint64_t)rank * N}, count[1] = {N};
    ok(dah5_dataset_create(file, "big", DAH5_FLOAT64, 1, dims, NULL, &big), "create big");
    double *buf = malloc((size_t)N * sizeof *buf);
    for (uint64_t i = 0; i < N; i++)
        pattern_value(DAH5_FLOAT64, offset[0] + i, &buf[i]);
    if (rank == last) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit limit = {4u << 20, RLIM_INFINITY};
        if (setrlimit(RLIMIT_FSIZE, &limit) != 0) {
            perror("setrlimit");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    ok(dah5_write_block(big, offset, count, DAH5_FLOAT64, buf, DAH5_ASYNC), "big behind: returns at once");
    ok(dah5_dataset_close(&big), "close big in flight");
    if (rank == last)
        expect(dah5_file_wait(file), DAH5_ERR_IO, "\"big\"", "the failed write behind, at the wait");
    else
        ok(dah5_file_wait(file), "wait: this rank's write is in");
    expect_all(dah5_file_flush(file), DAH5_ERR_IO, "an earlier write to this file failed",
               "flush: the failure on every rank");
    ok(dah5_dataset_close(&small), "close small");
    expect_all(dah5_file_close(&file), DAH5_ERR_IO, "an earlier write to this file failed",
               "close: the failure on every rank");
    free(buf);

    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("behind_fails: %d checks, %d failures\n", checks, all);
    MPI_Finalize();
    return all != 0;
}
