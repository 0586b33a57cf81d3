/*
 * same_array.c: the C half of the C/Fortran layout test (tests/fortran/same_array.f90 is
 * the other). A C program holds u[j][i] (row-major, dims (ny, nx)) and writes it in C
 * order, rows j split over the ranks; the Fortran program holds A(i, j) with the same
 * values and writes it in Fortran order, dims (nx, ny). Both files must be h5diff-identical.
 *
 *   mpiexec -n 3 ./same_array c.h5
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "dah5_mpi.h"

enum { NX = 5, NY = 7 };

/* u[j][i], with 0-based i, j. The Fortran half uses A(i, j) = the same of (i - 1, j - 1). */
static double value(uint64_t i, uint64_t j) { return (double)i + 1000.0 * (double)j; }

static void check(int32_t status)
{
    if (status != DAH5_OK) {
        fprintf(stderr, "%s\n", dah5_last_error_message());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    uint64_t j0 = (uint64_t)NY * (uint64_t)rank / (uint64_t)size;
    uint64_t nj = (uint64_t)NY * (uint64_t)(rank + 1) / (uint64_t)size - j0;
    double *u = malloc(sizeof(double) * (nj * NX + 1));
    for (uint64_t j = 0; j < nj; j++)
        for (uint64_t i = 0; i < NX; i++)
            u[j * NX + i] = value(i, j0 + j);

    dah5_file *file = NULL;
    dah5_dataset *dset = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, argv[1], DAH5_TRUNC, &file));
    uint64_t dims[2] = {NY, NX};
    check(dah5_dataset_create(file, "u", DAH5_FLOAT64, 2, dims, NULL, &dset));
    uint64_t offset[2] = {j0, 0}, count[2] = {nj, NX};
    check(dah5_write_block(dset, offset, count, DAH5_FLOAT64, u, DAH5_COLLECTIVE));
    check(dah5_file_close(&file));
    free(u);
    MPI_Finalize();
    return 0;
}
