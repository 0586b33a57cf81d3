/*
 * big_table.c: block tables far past what attributes hold (driven by tests/blocks.rs).
 *
 *   big_table create PATH P0 P1 P2
 *       one process, no MPI: dah5_direct_create records a P0 x P1 x P2 grid of 2x2x2
 *       blocks over a (2 P0, 2 P1, 2 P2) int8 array (100,000 blocks for 50 40 50)
 *   big_table hypercube PATH NDIMS
 *       one process: 2^8 blocks of a 32-dim array cut in two along its first 8 dims
 *   big_table read PATH DSET
 *       every rank opens the file through MPI and gets the whole table back with
 *       dah5_darray_blocks; each block must be the one its formula says
 *
 * Block i of the grid is (i / (P1 P2), i / P2 % P1, i % P2) times 2; of the hypercube,
 * bit d of i is its offset in dim d. Prints one line per process on success.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "check.h"
#include "dah5_mpi.h"

#define HYPER_NDIMS 32
#define HYPER_CUT 8

/* Block i of a grid (dims 3) or of the hypercube: its offset and count. */
static void block_of(const uint64_t *grid, uint32_t ndims, uint64_t i, uint64_t *offset,
                     uint64_t *count)
{
    if (ndims == 3) {
        offset[0] = 2 * (i / (grid[1] * grid[2]));
        offset[1] = 2 * (i / grid[2] % grid[1]);
        offset[2] = 2 * (i % grid[2]);
        count[0] = count[1] = count[2] = 2;
        return;
    }
    for (uint32_t d = 0; d < ndims; d++) {
        offset[d] = d < HYPER_CUT ? (i >> d) & 1 : 0;
        count[d] = 1;
    }
}

static int create(const char *path, const uint64_t *grid, uint32_t ndims)
{
    uint64_t nblocks = ndims == 3 ? grid[0] * grid[1] * grid[2] : 1u << HYPER_CUT;
    uint64_t dims[HYPER_NDIMS];
    for (uint32_t d = 0; d < ndims; d++)
        dims[d] = ndims == 3 ? 2 * grid[d] : (d < HYPER_CUT ? 2 : 1);
    uint64_t *offsets = malloc(nblocks * ndims * sizeof *offsets);
    uint64_t *counts = malloc(nblocks * ndims * sizeof *counts);
    for (uint64_t i = 0; i < nblocks; i++)
        block_of(grid, ndims, i, offsets + i * ndims, counts + i * ndims);
    check(dah5_direct_create(path, "big", DAH5_INT8, ndims, dims, DAH5_TRUNC, (uint32_t)nblocks,
                             offsets, counts),
          "direct_create");
    free(offsets);
    free(counts);
    printf("recorded %llu blocks of %u dims\n", (unsigned long long)nblocks, ndims);
    return 0;
}

static int read_back(const char *path, const char *name)
{
    MPI_Init(NULL, NULL);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    dah5_file *file = NULL;
    dah5_dataset *ds = NULL;
    check(dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDONLY, &file), "open");
    check(dah5_dataset_open(file, name, &ds), "dataset_open");
    uint32_t ndims = 0, nblocks = 0;
    uint64_t dims[HYPER_NDIMS], grid[3];
    check(dah5_dataset_ndims(ds, &ndims), "ndims");
    check(dah5_dataset_dims(ds, ndims, dims), "dims");
    for (uint32_t d = 0; d < 3 && d < ndims; d++)
        grid[d] = dims[d] / 2;
    check(dah5_darray_blocks(ds, 0, &nblocks, NULL, NULL), "blocks count");
    uint64_t *offsets = malloc((size_t)nblocks * ndims * sizeof *offsets);
    uint64_t *counts = malloc((size_t)nblocks * ndims * sizeof *counts);
    check(dah5_darray_blocks(ds, nblocks, &nblocks, offsets, counts), "blocks");
    uint64_t wrong = 0, offset[HYPER_NDIMS], count[HYPER_NDIMS];
    for (uint64_t i = 0; i < nblocks; i++) {
        block_of(grid, ndims, i, offset, count);
        wrong += memcmp(offset, offsets + i * ndims, ndims * sizeof *offset) != 0 ||
                 memcmp(count, counts + i * ndims, ndims * sizeof *count) != 0;
    }
    free(offsets);
    free(counts);
    check(dah5_dataset_close(&ds), "dataset close");
    check(dah5_file_close(&file), "close");
    printf("rank %d: %u blocks of %u dims read back, %llu wrong\n", rank, nblocks, ndims,
           (unsigned long long)wrong);
    MPI_Finalize();
    return wrong != 0;
}

int main(int argc, char **argv)
{
    if (argc == 6 && strcmp(argv[1], "create") == 0) {
        uint64_t grid[3] = {strtoull(argv[3], NULL, 10), strtoull(argv[4], NULL, 10),
                            strtoull(argv[5], NULL, 10)};
        return create(argv[2], grid, 3);
    }
    if (argc == 3 && strcmp(argv[1], "hypercube") == 0)
        return create(argv[2], NULL, HYPER_NDIMS);
    if (argc == 4 && strcmp(argv[1], "read") == 0)
        return read_back(argv[2], argv[3]);
    fprintf(stderr, "usage: see the comment at the top of big_table.c\n");
    return 2;
}
