/*
 * killed.c: one rank is killed (SIGKILL) in the middle of a job, after a flush. mpiexec
 * must end the whole job (no orphans), and the file must reopen with the flushed data.
 *
 *   mpiexec -n 2 ./killed PATH
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "check.h"
#include "dah5_mpi.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dah5_file *file = NULL;
    dah5_dataset *flushed = NULL, *unflushed = NULL;
    uint64_t n = 1000, dims[1] = {n * (uint64_t)size}, offset[1] = {n * (uint64_t)rank}, count[1] = {n};
    double *block = malloc(n * sizeof *block);
    for (uint64_t i = 0; i < n; i++)
        block[i] = (double)(offset[0] + i);
    check(dah5_file_create_comm(MPI_COMM_WORLD, argv[1], DAH5_TRUNC, &file), "create");
    check(dah5_dataset_create(file, "flushed", DAH5_FLOAT64, 1, dims, NULL, &flushed), "dataset");
    check(dah5_write_block(flushed, offset, count, DAH5_FLOAT64, block, 0), "write");
    check(dah5_file_flush(file), "flush");
    check(dah5_dataset_create(file, "unflushed", DAH5_FLOAT64, 1, dims, NULL, &unflushed), "dataset 2");
    if (rank == size - 1)
        raise(SIGKILL); /* mid-job: the other ranks are in (or about to be in) a collective */
    check(dah5_write_block(unflushed, offset, count, DAH5_FLOAT64, block, DAH5_COLLECTIVE), "write 2");
    printf("rank %d got past the kill\n", rank);
    fflush(stdout);
    check(dah5_file_close(&file), "close");
    MPI_Finalize();
    return 0;
}
