/*
 * block_cyclic.c: a matrix distributed block-cyclically over a 2-D process grid, the layout
 * of ScaLAPACK and Elemental, written and read with many blocks per rank in one call each.
 *
 * The NROWS x NCOLS float64 matrix is cut into MB x NB tiles (smaller at the ends); tile
 * (ti, tj) belongs to the process at (ti mod P, tj mod Q) of the P x Q grid, rank
 * p * Q + q (BLACS' row-major grid). Each rank packs its tiles one after another, each in
 * row-major (C) order, and
 *   - dah5_darray_write_blocks writes all of them at once, after checking the tiles of
 *     every rank together (in bounds, disjoint, covering the matrix), and records each tile
 *     with the rank that wrote it (dah5_darray_blocks, dah5_darray_block_ranks);
 *   - dah5_read_blocks reads, collectively, the tiles of the transposed grid (Q x P), a
 *     different set of tiles, and every element is checked.
 *
 *   mpiexec -n 4 ./block_cyclic matrix.h5
 *
 * Element (i, j) holds 1000 * i + j, so any misplaced element shows.
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "dah5_mpi.h"

enum { NROWS = 13, NCOLS = 10, MB = 3, NB = 4 };

static void check(int32_t status, const char *what)
{
    if (status != DAH5_OK) {
        fprintf(stderr, "%s: %s\n%s\n", what, dah5_status_name(status), dah5_last_error_message());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static double value(uint64_t i, uint64_t j) { return 1000.0 * (double)i + (double)j; }

/* The tiles of grid position (p, q) of a P x Q grid: offsets and counts, nblocks x 2 each
 * (row-major over the tiles). Returns nblocks; the arrays are malloc'ed. */
static uint64_t tiles(int p, int q, int P, int Q, uint64_t **offsets, uint64_t **counts)
{
    const uint64_t row_tiles = (NROWS + MB - 1) / MB, col_tiles = (NCOLS + NB - 1) / NB;
    *offsets = malloc(sizeof(uint64_t) * 2 * row_tiles * col_tiles);
    *counts = malloc(sizeof(uint64_t) * 2 * row_tiles * col_tiles);
    uint64_t n = 0;
    for (uint64_t ti = (uint64_t)p; ti < row_tiles; ti += (uint64_t)P)
        for (uint64_t tj = (uint64_t)q; tj < col_tiles; tj += (uint64_t)Q) {
            uint64_t *offset = *offsets + 2 * n, *count = *counts + 2 * n;
            offset[0] = ti * MB;
            offset[1] = tj * NB;
            count[0] = offset[0] + MB <= NROWS ? MB : NROWS - offset[0];
            count[1] = offset[1] + NB <= NCOLS ? NB : NCOLS - offset[1];
            n++;
        }
    return n;
}

/* The elements of the tiles, packed: tile after tile, each row-major. */
static uint64_t packed_size(uint64_t n, const uint64_t *counts)
{
    uint64_t total = 0;
    for (uint64_t b = 0; b < n; b++)
        total += counts[2 * b] * counts[2 * b + 1];
    return total;
}

/* Fill (or, with `buf` read back, count the wrong elements of) the packed tiles. */
static uint64_t walk(uint64_t n, const uint64_t *offsets, const uint64_t *counts, double *buf,
                     int fill)
{
    uint64_t wrong = 0, at = 0;
    for (uint64_t b = 0; b < n; b++)
        for (uint64_t i = 0; i < counts[2 * b]; i++)
            for (uint64_t j = 0; j < counts[2 * b + 1]; j++, at++) {
                double want = value(offsets[2 * b] + i, offsets[2 * b + 1] + j);
                if (fill)
                    buf[at] = want;
                else
                    wrong += buf[at] != want;
            }
    return wrong;
}

/* Every block of the recorded table is a tile, written by the rank that owns it. */
static int table_matches(dah5_dataset *dset, int P, int Q)
{
    uint32_t n = 0;
    check(dah5_darray_blocks(dset, 0, &n, NULL, NULL), "number of blocks");
    uint64_t *offsets = malloc(sizeof(uint64_t) * 2 * (n + 1));
    uint64_t *counts = malloc(sizeof(uint64_t) * 2 * (n + 1));
    int32_t *ranks = malloc(sizeof(int32_t) * (n + 1));
    check(dah5_darray_blocks(dset, n, &n, offsets, counts), "blocks");
    check(dah5_darray_block_ranks(dset, n, &n, ranks), "block ranks");
    int ok = 1;
    uint32_t tiles_seen = 0;
    for (uint32_t b = 0; b < n; b++) {
        if (counts[2 * b] == 0 || counts[2 * b + 1] == 0)
            continue; /* a rank's empty entry, if the table keeps one */
        int p = (int)(offsets[2 * b] / MB % (uint64_t)P), q = (int)(offsets[2 * b + 1] / NB % (uint64_t)Q);
        ok &= ranks[b] == p * Q + q;
        tiles_seen++;
    }
    ok &= tiles_seen == ((NROWS + MB - 1) / MB) * ((NCOLS + NB - 1) / NB);
    printf("the file records %u tiles, each with its rank: %s\n", tiles_seen, ok ? "as dealt" : "WRONG");
    free(offsets);
    free(counts);
    free(ranks);
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        fprintf(stderr, "usage: block_cyclic FILE.h5\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *path = argv[1];
    int grid[2] = {0, 0};
    MPI_Dims_create(size, 2, grid);
    const int P = grid[0], Q = grid[1];
    if (rank == 0)
        printf("%d ranks (a %d x %d grid) write a %d x %d float64 matrix in %d x %d tiles to %s\n",
               size, P, Q, NROWS, NCOLS, MB, NB, path);

    uint64_t *offsets, *counts;
    uint64_t n = tiles(rank / Q, rank % Q, P, Q, &offsets, &counts);
    double *buf = malloc(sizeof(double) * (packed_size(n, counts) + 1));
    walk(n, offsets, counts, buf, 1);
    dah5_file *file = NULL;
    dah5_dataset *dset = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &file), "create");
    const uint64_t dims[2] = {NROWS, NCOLS};
    /* Collective: every rank's tiles in one call. */
    check(dah5_darray_write_blocks(file, "A", DAH5_FLOAT64, 2, dims, n, offsets, counts, buf, 0, NULL,
                                   &dset),
          "darray_write_blocks");
    printf("  rank %d at (%d, %d) wrote %llu tiles\n", rank, rank / Q, rank % Q, (unsigned long long)n);
    int ok = rank != 0 || table_matches(dset, P, Q);
    check(dah5_dataset_close(&dset), "close dataset");
    check(dah5_file_close(&file), "close");
    free(offsets);
    free(counts);
    free(buf);

    /* Read back the tiles of the transposed grid (Q x P), collectively. */
    check(dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDONLY, &file), "open");
    check(dah5_dataset_open(file, "A", &dset), "open dataset");
    n = tiles(rank / P, rank % P, Q, P, &offsets, &counts);
    buf = malloc(sizeof(double) * (packed_size(n, counts) + 1));
    check(dah5_read_blocks(dset, n, offsets, counts, DAH5_FLOAT64, buf, DAH5_COLLECTIVE), "read_blocks");
    uint64_t wrong = walk(n, offsets, counts, buf, 0), all_wrong = 0;
    check(dah5_dataset_close(&dset), "close dataset");
    check(dah5_file_close(&file), "close");
    free(offsets);
    free(counts);
    free(buf);

    MPI_Allreduce(&wrong, &all_wrong, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s\n", all_wrong == 0 && ok ? "block-cyclic OK" : "FAILED: some elements differ");
    MPI_Finalize();
    return all_wrong == 0 && ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
