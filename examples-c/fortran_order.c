/*
 * fortran_order.c: writing a column-major (Fortran/Julia) array with DAH5_ORDER_F.
 *
 * The program holds A(nx, ny) in column-major order: A(i, j) is at a[i + nx * j], and every
 * rank owns some columns j. With DAH5_ORDER_F every dims/offset/count is given in that
 * order, (nx, ny); dah5 stores HDF5 dims (ny, nx) with the same bytes, exactly as HDF5's
 * Fortran API and HDF5.jl do, so h5py and h5dump show the transpose and Julia/Fortran
 * readers get A back. No element is moved or copied.
 *
 *   mpiexec -n 3 ./fortran_order forder.h5
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "dah5_mpi.h"

enum { NX = 4, NY = 6 };

static void check(int32_t status, const char *what)
{
    if (status != DAH5_OK) {
        fprintf(stderr, "%s: %s\n%s\n", what, dah5_status_name(status), dah5_last_error_message());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *path = argc > 1 ? argv[1] : "forder.h5";

    /* Columns j0 .. j0 + nj of A are this rank's (1-based in Fortran: j0 + 1 ..). */
    uint64_t j0 = (uint64_t)NY * (uint64_t)rank / (uint64_t)size;
    uint64_t nj = (uint64_t)NY * (uint64_t)(rank + 1) / (uint64_t)size - j0;
    double *a = malloc(sizeof(double) * (NX * nj + 1));
    for (uint64_t j = 0; j < nj; j++)
        for (uint64_t i = 0; i < NX; i++)
            a[i + NX * j] = 10.0 * (double)(i + 1) + (double)(j0 + j + 1); /* A(i,j) = 10 i + j, 1-based */

    dah5_file *file = NULL;
    dah5_dataset *dset = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC | DAH5_ORDER_F, &file), "create");
    uint64_t dims[2] = {NX, NY}; /* Fortran order: (nx, ny) */
    check(dah5_dataset_create(file, "A", DAH5_FLOAT64, 2, dims, NULL, &dset), "create dataset");
    uint64_t offset[2] = {0, j0}, count[2] = {NX, nj};
    check(dah5_write_block(dset, offset, count, DAH5_FLOAT64, a, 0), "write");
    check(dah5_dataset_close(&dset), "close dataset");
    check(dah5_file_close(&file), "close");

    /* Reopen in C order: the same dataset has dims (ny, nx). */
    check(dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDONLY, &file), "open");
    check(dah5_dataset_open(file, "A", &dset), "open dataset");
    uint64_t c_dims[2];
    check(dah5_dataset_dims(dset, 2, c_dims), "dims");
    /* Row j of the C view is column j of A. */
    double row[NX];
    uint64_t c_off[2] = {j0, 0}, c_cnt[2] = {nj ? 1 : 0, NX};
    check(dah5_read_block(dset, c_off, c_cnt, DAH5_FLOAT64, row, 0), "read");
    int ok = nj == 0 || (row[0] == a[0] && row[NX - 1] == a[NX - 1]);
    if (rank == 0)
        printf("wrote A(%d, %d) in Fortran order; HDF5 (C order) dims are (%llu, %llu)\n", NX, NY,
               (unsigned long long)c_dims[0], (unsigned long long)c_dims[1]);
    printf("rank %d: columns %llu..%llu of A; C-order row %llu = column %llu of A: %s\n", rank,
           (unsigned long long)(j0 + 1), (unsigned long long)(j0 + nj), (unsigned long long)j0,
           (unsigned long long)(j0 + 1), ok ? "same values" : "DIFFERENT");
    check(dah5_dataset_close(&dset), "close dataset");
    check(dah5_file_close(&file), "close");
    free(a);
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Finalize();
    return all_ok && c_dims[0] == NY && c_dims[1] == NX ? EXIT_SUCCESS : EXIT_FAILURE;
}
