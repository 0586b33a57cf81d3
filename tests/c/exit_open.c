/*
 * exit_open.c: a rank leaves the program with a file open while the other ranks wait, the
 * way ported codes do: exit() after an error, a return from main without MPI_Finalize.
 * The job must end as it does without dah5 (MPI ends it), with a line on stderr naming the
 * open file, and the file must open as of its last flush.
 *
 *   mpiexec -n N ./exit_open PATH exit|return|all-exit|early WAIT
 *
 *   exit      the last rank calls exit(3)
 *   behind    the last rank starts a write behind (DAH5_ASYNC) of "unflushed", then calls
 *             exit(3) without waiting for it
 *   early     the last rank calls exit(3) right after the create, before any flush
 *   return    the last rank returns 0 from main without MPI_Finalize
 *   all-exit  every rank calls exit(0) without MPI_Finalize
 *   WAIT      what the other ranks do meanwhile: allreduce (their own MPI_Allreduce) or
 *             flush (a dah5 collective call)
 *
 * Before leaving (but early), every rank has written and flushed "flushed" (8 float64 0..7)
 * and created "unflushed" without a flush.
 */
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "check.h"
#include "dah5_mpi.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 4)
        MPI_Abort(MPI_COMM_WORLD, 2);
    const char *mode = argv[2], *wait = argv[3];
    dah5_file *file = NULL;
    dah5_dataset *flushed = NULL, *unflushed = NULL;
    uint64_t dims[1] = {8}, offset[1] = {0}, count[1] = {rank == 0 ? 8 : 0};
    double values[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    check(dah5_file_create_comm(MPI_COMM_WORLD, argv[1], DAH5_TRUNC, &file), "create");
    int early = strcmp(mode, "early") == 0;
    if (early && rank == size - 1)
        exit(3);
    if (early)
        goto wait;
    check(dah5_dataset_create(file, "flushed", DAH5_FLOAT64, 1, dims, NULL, &flushed), "dataset");
    check(dah5_write_block(flushed, offset, count, DAH5_FLOAT64, values, DAH5_COLLECTIVE), "write");
    check(dah5_file_flush(file), "flush");
    check(dah5_dataset_create(file, "unflushed", DAH5_FLOAT64, 1, dims, NULL, &unflushed), "dataset 2");

    int leaves = strcmp(mode, "all-exit") == 0 || rank == size - 1;
    if (leaves) {
        if (strcmp(mode, "return") == 0)
            return 0;
        if (strcmp(mode, "behind") == 0)
            check(dah5_write_block(unflushed, offset, dims, DAH5_FLOAT64, values, DAH5_ASYNC), "write behind");
        exit(strcmp(mode, "all-exit") == 0 ? 0 : 3);
    }
wait:
    if (strcmp(wait, "allreduce") == 0) {
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else {
        dah5_file_flush(file);
    }
    fprintf(stderr, "rank %d: not reached: the job went on without the rank that left\n", rank);
    MPI_Finalize();
    return 0;
}
