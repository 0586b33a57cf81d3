/*
 * table_room.c: dah5_darray_write_blocks whose data fits the disk but whose block table
 * does not (a tmpfs of 4 MiB tests/bad_input.rs mounts: 500,000 one-byte blocks over the
 * ranks, 0.5 MB of data and a 12 MB table): DAH5_ERR_NO_SPACE on every rank, nothing
 * created, and the close returns. (Before, rank 0's write of the table failed alone, the
 * status was DAH5_ERR_IO, and the close hung in HDF5.) Then a darray of a few blocks that
 * fits.
 *
 *   mpiexec -n 2 ./table_room DIR/t.h5
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "dah5_mpi.h"
#include "steps.h"

enum { BLOCKS = 500000 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char text[160];
    dah5_file *file = NULL;
    int32_t status = dah5_file_create_comm(MPI_COMM_WORLD, argv[1], DAH5_TRUNC, &file);
    snprintf(text, sizeof text, "create %s", dah5_status_name(status));
    append_step(text);
    /* Element i is rank i % size's one-element block. */
    size_t n = 0;
    uint64_t *offsets = malloc(BLOCKS * sizeof *offsets), *counts = malloc(BLOCKS * sizeof *counts);
    uint8_t *values = malloc(BLOCKS);
    for (uint64_t i = (uint64_t)rank; i < BLOCKS; i += (uint64_t)size, n++) {
        offsets[n] = i;
        counts[n] = 1;
        values[n] = (uint8_t)i;
    }
    uint64_t dims[1] = {BLOCKS};
    dah5_dataset *ds = NULL;
    status = dah5_darray_write_blocks(file, "big", DAH5_UINT8, 1, dims, n, offsets, counts, values, 0, NULL, &ds);
    snprintf(text, sizeof text, "big table %s", dah5_status_name(status));
    append_step(text);
    uint64_t small[1] = {(uint64_t)size}, one_offset[1] = {(uint64_t)rank}, one[1] = {1};
    status = dah5_darray_write_blocks(file, "small", DAH5_UINT8, 1, small, 1, one_offset, one, values, 0, NULL, &ds);
    snprintf(text, sizeof text, "small table %s", dah5_status_name(status));
    append_step(text);
    if (status == DAH5_OK)
        dah5_dataset_close(&ds);
    snprintf(text, sizeof text, "close %s", dah5_status_name(dah5_file_close(&file)));
    append_step(text);
    print_every_rank_line();
    free(offsets);
    free(counts);
    free(values);
    MPI_Finalize();
    return 0;
}
