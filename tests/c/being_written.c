/*
 * being_written.c: a file that other processes read while this job writes it. The job
 * writes and flushes dataset "first", then writes dataset "second" without a flush, and
 * pauses; then flushes, and pauses again; then closes. At each pause rank 0 creates
 * DIR/readyN and waits (at most 60 s) until the test has read the file and created DIR/goN.
 *
 *   mpiexec -n 2 ./being_written DIR
 *
 * Element i of each dataset is i (float64), dims (1000 * ranks).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "check.h"
#include "dah5_mpi.h"

/* Rank 0 says it has reached pause `n` and waits for the go; the others wait with it. */
static void pause_for_readers(const char *dir, int rank, int n)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        char ready[4096], go[4096];
        snprintf(ready, sizeof ready, "%s/ready%d", dir, n);
        snprintf(go, sizeof go, "%s/go%d", dir, n);
        FILE *f = fopen(ready, "w");
        if (f == NULL || fclose(f) != 0)
            MPI_Abort(MPI_COMM_WORLD, 2);
        int waited = 0;
        while (access(go, F_OK) != 0 && waited++ < 6000)
            nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    uint64_t n = 1000, dims[1] = {n * (uint64_t)size}, offset[1] = {n * (uint64_t)rank}, count[1] = {n};
    double *block = malloc(n * sizeof *block);
    for (uint64_t i = 0; i < n; i++)
        block[i] = (double)(offset[0] + i);
    char path[4096];
    snprintf(path, sizeof path, "%s/written.h5", argv[1]);
    dah5_file *file = NULL;
    dah5_dataset *first = NULL, *second = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &file), "create");
    check(dah5_dataset_create(file, "first", DAH5_FLOAT64, 1, dims, NULL, &first), "dataset first");
    check(dah5_write_block(first, offset, count, DAH5_FLOAT64, block, 0), "write first");
    check(dah5_file_flush(file), "flush");
    check(dah5_dataset_create(file, "second", DAH5_FLOAT64, 1, dims, NULL, &second), "dataset second");
    check(dah5_write_block(second, offset, count, DAH5_FLOAT64, block, 0), "write second");
    pause_for_readers(argv[1], rank, 1);
    check(dah5_file_flush(file), "flush");
    pause_for_readers(argv[1], rank, 2);
    check(dah5_file_close(&file), "close");
    free(block);
    if (rank == 0)
        printf("being_written: wrote, paused before and after the flush, closed\n");
    MPI_Finalize();
    return 0;
}
