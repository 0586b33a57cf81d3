/*
 * darray_roundtrip.c: the dah5 demo. All ranks write one 2-D float64 array, split in row
 * blocks of uneven sizes (the last rank has none), into one dataset with dah5_darray_write,
 * which checks the blocks and records the decomposition in the file; then the job reopens
 * the file, shows the recorded blocks, reads the array back in column blocks, and checks
 * every element.
 *
 *   mpiexec -n 4 ./darray_roundtrip demo.h5           write rows, read back columns
 *   mpiexec -n 3 ./darray_roundtrip --read demo.h5    read columns only, any number of ranks
 *
 * Element (i, j) holds 100 * i + j, so any misplaced element shows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dah5_mpi.h"

enum { NROWS = 10, NCOLS = 6 };

static void check(int32_t status, const char *what)
{
    if (status != DAH5_OK) {
        fprintf(stderr, "%s: %s\n%s\n", what, dah5_status_name(status), dah5_last_error_message());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Split n items over `size` ranks with weights 1, 2, ... and none for the last rank of
 * several: uneven on purpose. */
static void split(uint64_t n, int rank, int size, uint64_t *start, uint64_t *len)
{
    uint64_t total = 0, before = 0;
    for (int r = 0; r < size; r++) {
        uint64_t w = (size > 1 && r == size - 1) ? 0 : (uint64_t)r + 1;
        if (r < rank)
            before += w;
        total += w;
    }
    uint64_t w = (size > 1 && rank == size - 1) ? 0 : (uint64_t)rank + 1;
    *start = n * before / total;
    *len = n * (before + w) / total - *start;
}

/* Print one line a rank, in rank order. */
static void say_in_order(const char *line, int rank, int size)
{
    char all[64 * 128];
    MPI_Gather(line, 128, MPI_CHAR, all, 128, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < size && r < 64; r++)
            printf("%s\n", all + r * 128);
}

static int read_columns(const char *path, int rank, int size)
{
    dah5_file *file = NULL;
    dah5_dataset *dset = NULL;
    check(dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDONLY, &file), "open");
    check(dah5_dataset_open(file, "field", &dset), "open dataset");
    uint64_t dims[2];
    check(dah5_dataset_dims(dset, 2, dims), "dims");
    uint32_t nblocks = 0;
    check(dah5_darray_blocks(dset, 0, &nblocks, NULL, NULL), "number of blocks");
    uint64_t *table = malloc(sizeof(uint64_t) * 4 * nblocks);
    check(dah5_darray_blocks(dset, nblocks, &nblocks, table, table + 2 * nblocks), "blocks");
    if (rank == 0) {
        printf("the file records how it was written, %u blocks:\n", nblocks);
        for (uint32_t b = 0; b < nblocks; b++)
            printf("  block %u: rows %2llu..%2llu\n", b, (unsigned long long)table[2 * b],
                   (unsigned long long)(table[2 * b] + table[2 * nblocks + 2 * b]));
        printf("%d ranks read it back in column blocks:\n", size);
    }
    free(table);

    uint64_t offset[2] = {0, 0}, count[2] = {dims[0], 0};
    split(dims[1], rank, size, &offset[1], &count[1]);
    double *block = malloc(sizeof(double) * (count[0] * count[1] + 1));
    /* Collective read: every rank calls, the empty one with a zero count. */
    check(dah5_read_block(dset, offset, count, DAH5_FLOAT64, block, DAH5_COLLECTIVE), "read");
    int wrong = 0;
    for (uint64_t i = 0; i < count[0]; i++)
        for (uint64_t j = 0; j < count[1]; j++)
            wrong += block[i * count[1] + j] != 100.0 * (double)i + (double)(offset[1] + j);
    char line[128];
    snprintf(line, sizeof line, "  rank %d read  columns %2llu..%2llu (%2llu x %llu): %s", rank,
             (unsigned long long)offset[1], (unsigned long long)(offset[1] + count[1]),
             (unsigned long long)count[0], (unsigned long long)count[1],
             wrong ? "WRONG VALUES" : count[1] ? "every element right" : "empty block");
    say_in_order(line, rank, size);
    free(block);
    check(dah5_dataset_close(&dset), "close dataset");
    check(dah5_file_close(&file), "close");
    int any;
    MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return any;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int read_only = argc > 2 && strcmp(argv[1], "--read") == 0;
    const char *path = argv[argc - 1];
    if (argc < 2) {
        fprintf(stderr, "usage: darray_roundtrip [--read] FILE.h5\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0)
        printf("%s\n", dah5_version_string());

    if (!read_only) {
        if (rank == 0)
            printf("%d ranks write a %d x %d float64 array in row blocks to %s:\n", size, NROWS, NCOLS, path);
        dah5_file *file = NULL;
        dah5_dataset *dset = NULL;
        check(dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &file), "create");
        uint64_t dims[2] = {NROWS, NCOLS};
        uint64_t offset[2] = {0, 0}, count[2] = {0, NCOLS};
        split(NROWS, rank, size, &offset[0], &count[0]);
        double *block = malloc(sizeof(double) * (count[0] * NCOLS + 1));
        for (uint64_t i = 0; i < count[0]; i++)
            for (uint64_t j = 0; j < NCOLS; j++)
                block[i * NCOLS + j] = 100.0 * (double)(offset[0] + i) + (double)j;
        /* Collective: the blocks are gathered and checked (inside, disjoint, covering the
         * array), the dataset created with the block table, and each rank's block written
         * (an independent write: no rank waits for another's data). */
        check(dah5_darray_write(file, "field", DAH5_FLOAT64, 2, dims, offset, count, block, 0, NULL, &dset),
              "darray_write");
        char line[128];
        snprintf(line, sizeof line, "  rank %d wrote rows    %2llu..%2llu (%llu x %2llu)%s", rank,
                 (unsigned long long)offset[0], (unsigned long long)(offset[0] + count[0]),
                 (unsigned long long)count[0], (unsigned long long)NCOLS, count[0] ? "" : ": empty block");
        say_in_order(line, rank, size);
        free(block);
        check(dah5_dataset_close(&dset), "close dataset");
        check(dah5_file_close(&file), "close");
    }
    int wrong = read_columns(path, rank, size);
    if (rank == 0)
        printf("%s\n", wrong ? "FAILED: some elements differ" : "round trip OK");
    MPI_Finalize();
    return wrong ? EXIT_FAILURE : EXIT_SUCCESS;
}
