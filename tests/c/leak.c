/*
 * leak.c: a program that forgets dah5_file_close before MPI_Finalize. dah5 closes the file
 * in MPI_Finalize's hook (MPI still works then), so the job ends and the data is complete.
 *
 *   mpiexec -n 3 ./leak PATH
 */
#include <stdio.h>

#include <mpi.h>

#include "dah5_mpi.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dah5_file *file = NULL;
    dah5_dataset *dset = NULL;
    uint64_t dims[1] = {(uint64_t)(4 * size)}, offset[1] = {(uint64_t)(4 * rank)}, count[1] = {4};
    double block[4];
    for (int i = 0; i < 4; i++)
        block[i] = 4.0 * rank + i;
    if (argc < 2 || dah5_file_create_comm(MPI_COMM_WORLD, argv[1], DAH5_TRUNC, &file) != DAH5_OK ||
        dah5_dataset_create(file, "x", DAH5_FLOAT64, 1, dims, NULL, &dset) != DAH5_OK ||
        dah5_write_block(dset, offset, count, DAH5_FLOAT64, block, 0) != DAH5_OK) {
        fprintf(stderr, "%s\n", dah5_last_error_message());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* No dah5_dataset_close, no dah5_file_close. */
    MPI_Finalize();
    printf("rank %d finalized\n", rank);
    return 0;
}
