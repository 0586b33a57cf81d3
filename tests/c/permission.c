/*
 * permission.c: create a file where this (non-root) user may not write. Every rank must get
 * DAH5_ERR_PERMISSION; exits 0 when they do.
 *
 *   mpiexec -n 2 ./permission LOCKED_DIR/x.h5
 */
#include <stdio.h>

#include <mpi.h>

#include "dah5_mpi.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, good, all;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    dah5_file *file = NULL;
    int32_t status = argc > 1 ? dah5_file_create_comm(MPI_COMM_WORLD, argv[1], DAH5_TRUNC, &file) : -99;
    good = status == DAH5_ERR_PERMISSION && file == NULL;
    printf("rank %d: %s\n", rank, dah5_status_name(status));
    MPI_Allreduce(&good, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Finalize();
    return all ? 0 : 1;
}
