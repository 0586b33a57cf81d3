/*
 * hello_block.c: the smallest complete dah5 program. Every rank writes one row of a
 * (nranks x 4) float64 dataset, independently, then reads its neighbour's row back.
 *
 *   mpicc hello_block.c $(pkg-config --cflags --libs dah5) -o hello_block
 *   mpiexec -n 4 ./hello_block hello.h5
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "dah5_mpi.h"

/* Print dah5's message and stop the whole job: fine for an example. */
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
    const char *path = argc > 1 ? argv[1] : "hello.h5";

    /* Collective: every rank creates the file and the dataset, with the same arguments. */
    dah5_file *file = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &file), "create file");
    uint64_t dims[2] = {(uint64_t)size, 4};
    dah5_dataset *dset = NULL;
    check(dah5_dataset_create(file, "hello", DAH5_FLOAT64, 2, dims, NULL, &dset), "create dataset");

    /* Independent: each rank writes its own row. */
    double row[4];
    for (int j = 0; j < 4; j++)
        row[j] = rank * 10.0 + j;
    uint64_t offset[2] = {(uint64_t)rank, 0}, count[2] = {1, 4};
    check(dah5_write_block(dset, offset, count, DAH5_FLOAT64, row, DAH5_INDEPENDENT), "write");

    /* Make every rank's row visible to the others before reading them (collective). */
    check(dah5_file_flush(file), "flush");
    MPI_Barrier(MPI_COMM_WORLD);

    offset[0] = (uint64_t)((rank + 1) % size);
    double theirs[4];
    check(dah5_read_block(dset, offset, count, DAH5_FLOAT64, theirs, DAH5_INDEPENDENT), "read");
    int ok = theirs[3] == offset[0] * 10.0 + 3;
    printf("rank %d read row %d: %g %g %g %g %s\n", rank, (int)offset[0], theirs[0], theirs[1],
           theirs[2], theirs[3], ok ? "(as written)" : "(WRONG)");

    /* Collective: close the dataset, then the file. */
    check(dah5_dataset_close(&dset), "close dataset");
    check(dah5_file_close(&file), "close file");
    MPI_Finalize();
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
