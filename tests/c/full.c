/*
 * full.c: a file system with 4 MiB free (a tmpfs tests/bad_input.rs mounts). An 8 MiB dataset
 * is refused with DAH5_ERR_NO_SPACE on every rank before anything is written; a small one
 * that fits is written. Then two 2 MiB datasets are created before either is written: the
 * first reserves its space, so the second is refused (without the reservation both were
 * created, the writes ran out of space and the close hung). The first is written. Then
 * small written datasets with an attribute each fill the rest, until one is refused for
 * want of room for metadata; the file closes normally.
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
    uint64_t big[1] = {8 << 17}; /* 8 MiB of float64 */
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
        dah5_write_block(dset, offset, count, DAH5_FLOAT64, block, 0) != DAH5_OK) {
        fprintf(stderr, "rank %d: %s\n", rank, dah5_last_error_message());
        failures++;
    }
    uint64_t half[1] = {2 << 17}; /* 2 MiB of float64 each */
    dah5_dataset *first = NULL, *second = NULL;
    if (dah5_dataset_create(file, "first", DAH5_FLOAT64, 1, half, NULL, &first) != DAH5_OK) {
        fprintf(stderr, "rank %d: first: %s\n", rank, dah5_last_error_message());
        failures++;
    }
    int32_t refused = dah5_dataset_create(file, "second", DAH5_FLOAT64, 1, half, NULL, &second);
    if (refused != DAH5_ERR_NO_SPACE) {
        fprintf(stderr, "rank %d: second: %s: %s\n", rank, dah5_status_name(refused), dah5_last_error_message());
        failures++;
    }
    uint64_t share = half[0] / (uint64_t)size, at[1] = {share * (uint64_t)rank}, part[1] = {share};
    double *piece = calloc(share, sizeof *piece);
    for (uint64_t i = 0; i < share; i++)
        piece[i] = (double)(at[0] + i);
    if (dah5_write_block(first, at, part, DAH5_FLOAT64, piece, 0) != DAH5_OK) {
        fprintf(stderr, "rank %d: %s\n", rank, dah5_last_error_message());
        failures++;
    }
    /* Data and metadata running out: small datasets (written) with an attribute each, until
     * the disk no longer has room for their metadata. The last one is refused on every
     * rank (the create, or the attribute write of the last dataset), before HDF5 fails a
     * metadata write, and the file closes normally. */
    double steps[64]; /* an attribute's value is the same on every rank */
    for (int i = 0; i < 64; i++)
        steps[i] = i;
    uint64_t sdims[1] = {256 * (uint64_t)size}, soffset[1] = {256 * (uint64_t)rank}, scount[1] = {256};
    double sblock[256];
    for (int i = 0; i < 256; i++)
        sblock[i] = (double)(soffset[0] + (uint64_t)i);
    int32_t ran_out = DAH5_OK;
    int small = 0;
    for (; small < 10000 && ran_out == DAH5_OK; small++) {
        char name[32];
        snprintf(name, sizeof name, "small/%d", small);
        dah5_dataset *d = NULL;
        ran_out = dah5_dataset_create(file, name, DAH5_FLOAT64, 1, sdims, NULL, &d);
        if (ran_out == DAH5_OK)
            ran_out = dah5_write_block(d, soffset, scount, DAH5_FLOAT64, sblock, 0);
        if (ran_out == DAH5_OK)
            ran_out = dah5_attr_write(file, name, "step", DAH5_FLOAT64, 1, 64, steps);
        if (d != NULL && dah5_dataset_close(&d) != DAH5_OK)
            ran_out = DAH5_ERR_HDF5;
    }
    if (ran_out != DAH5_ERR_NO_SPACE) {
        fprintf(stderr, "rank %d: small dataset %d: %s: %s\n", rank, small - 1, dah5_status_name(ran_out),
                dah5_last_error_message());
        failures++;
    }
    if (dah5_file_close(&file) != DAH5_OK) {
        fprintf(stderr, "rank %d: close: %s\n", rank, dah5_last_error_message());
        failures++;
    }
    free(piece);
    free(block);
    printf("rank %d: second dataset %s\n", rank, dah5_status_name(refused));
    printf("rank %d: small dataset %d %s\n", rank, small - 1, dah5_status_name(ran_out));
    printf("rank %d: big dataset %s\n", rank, dah5_status_name(status));
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return total ? 1 : 0;
}
