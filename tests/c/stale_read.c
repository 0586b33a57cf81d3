/*
 * stale_read.c: reads of a compressed (chunked, filtered) dataset see what was written last,
 * after the documented visibility points (dah5_file_flush and a barrier). Every rank first
 * reads the whole dataset (so HDF5 holds its chunks), then the chunks are overwritten by a
 * collective write in which each rank writes the chunk of its right neighbour, then every
 * rank reads the whole dataset again, independently and collectively. Round r of values is
 * 1000 r + i. Each rank prints one line: "rank R: round 1 independent OK, ...".
 *
 *   mpiexec -n N ./stale_read PATH
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "check.h"
#include "dah5_mpi.h"

#define CHUNK 64

/* Every rank reads all of it; returns the number of elements not of round `round`. */
static int wrong_elements(dah5_dataset *dset, uint64_t n, int round, uint32_t flags)
{
    double *all = malloc(n * sizeof *all);
    uint64_t offset[1] = {0}, count[1] = {n};
    check(dah5_read_block(dset, offset, count, DAH5_FLOAT64, all, flags), "read");
    int wrong = 0;
    for (uint64_t i = 0; i < n; i++)
        wrong += all[i] != 1000.0 * round + (double)i;
    free(all);
    return wrong;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    uint64_t n = (uint64_t)CHUNK * (uint64_t)size;
    dah5_file *file = NULL;
    dah5_dataset *dset = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, argv[1], DAH5_TRUNC, &file), "create");
    dah5_dataset_options opts;
    check(dah5_dataset_options_default(&opts), "options");
    opts.deflate_level = 4;
    opts.chunk_ndims = 1;
    opts.chunk[0] = CHUNK;
    uint64_t dims[1] = {n};
    check(dah5_dataset_create(file, "z", DAH5_FLOAT64, 1, dims, &opts, &dset), "dataset");
    double block[CHUNK];
    char line[512];
    int used = snprintf(line, sizeof line, "rank %d:", rank);
    for (int round = 1; round <= 3; round++) {
        /* Round 1: each rank its own chunk; later rounds: its right neighbour's. */
        int target = round == 1 ? rank : (rank + round - 1) % size;
        uint64_t offset[1] = {(uint64_t)target * CHUNK}, count[1] = {CHUNK};
        for (int i = 0; i < CHUNK; i++)
            block[i] = 1000.0 * round + (double)(offset[0] + (uint64_t)i);
        check(dah5_write_block(dset, offset, count, DAH5_FLOAT64, block, DAH5_COLLECTIVE), "write");
        check(dah5_file_flush(file), "flush");
        MPI_Barrier(MPI_COMM_WORLD);
        int ind = wrong_elements(dset, n, round, 0);
        int coll = wrong_elements(dset, n, round, DAH5_COLLECTIVE);
        used += snprintf(line + used, sizeof line - (size_t)used, " round %d independent %s, collective %s;",
                         round, ind ? "STALE" : "OK", coll ? "STALE" : "OK");
        MPI_Barrier(MPI_COMM_WORLD);
    }
    printf("%s\n", line);
    check(dah5_file_close(&file), "close");
    MPI_Finalize();
    return 0;
}
