/*
 * full.c: a file system with 2 MiB free (a tmpfs tests/bad_input.rs mounts). A 4 MiB dataset
 * is refused with DAH5_ERR_NO_SPACE on every rank before anything is written; one that fits
 * is written and closed normally.
 *
 *   mpiexec -n 2 ./full DIR/full.h5
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dah5_mpi.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, failures = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dah5_file *file = NULL;
    dah5_dataset *dset = NULL;
    if (dah5_file_create_comm(MPI_COMM_WORLD, argv[1], DAH5_TRUNC, &file) != DAH5_OK) {
        fprintf(stderr, "%s\n", dah5_last_error_message());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    uint64_t big[1] = {4 << 17}; /* 4 MiB of float64 */
    int32_t status = dah5_dataset_create(file, "big", DAH5_FLOAT64, 1, big, NULL, &dset);
    if (status != DAH5_ERR_NO_SPACE || !strstr(dah5_last_error_message(), "bytes free (statvfs)")) {
        fprintf(stderr, "rank %d: big dataset: %s: %s\n", rank, dah5_status_name(status), dah5_last_error_message());
        failures++;
    }
    uint64_t n = 1 << 14, dims[1] = {n * (uint64_t)size}, offset[1] = {n * (uint64_t)rank}, count[1] = {n};
    double *block = malloc(n * sizeof *block);
    for (uint64_t i = 0; i < n; i++)
        block[i] = (double)(offset[0] + i);
    if (dah5_dataset_create(file, "fits", DAH5_FLOAT64, 1, dims, NULL, &dset) != DAH5_OK ||
        dah5_write_block(dset, offset, count, DAH5_FLOAT64, block, 0) != DAH5_OK ||
        dah5_file_close(&file) != DAH5_OK) {
        fprintf(stderr, "rank %d: %s\n", rank, dah5_last_error_message());
        failures++;
    }
    printf("rank %d: big dataset %s\n", rank, dah5_status_name(status));
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return total ? 1 : 0;
}
