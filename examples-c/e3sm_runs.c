/*
 * e3sm_runs.c: a climate model's decomposition, as E3SM, CESM and MPAS give it to PIO: each
 * rank holds a list of short runs of the flattened index of a variable, in no particular
 * order. Here the variable is T(NLEV, NCOL) (C order, flattened index lev * NCOL + col), cut
 * into runs of 1 to 4 elements dealt out to the ranks by a hash, each rank's list shuffled.
 *
 *   - dah5_darray_create_blocks makes the darray from every rank's runs (a run that crosses
 *     the end of a level is two blocks, one on each level), checking them all together;
 *   - dah5_write_blocks writes each rank's runs in one collective transfer;
 *   - dah5_read_blocks reads, collectively, the runs of the next rank, and every element is
 *     checked.
 *
 *   mpiexec -n 4 ./e3sm_runs runs.h5
 *
 * T(lev, col) holds 100 * lev + col, so any misplaced element shows.
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "dah5_mpi.h"

enum { NLEV = 8, NCOL = 30, MAX_RUN = 4 };

static void check(int32_t status, const char *what)
{
    if (status != DAH5_OK) {
        fprintf(stderr, "%s: %s\n%s\n", what, dah5_status_name(status), dah5_last_error_message());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* A small deterministic generator: every rank draws the same runs. */
static uint64_t next(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return *state >> 33;
}

/* The runs of `rank` (flattened start and length), shuffled. Returns how many. */
static uint64_t runs_of(int rank, int size, uint64_t *starts, uint64_t *lengths)
{
    uint64_t state = 31, n = 0;
    for (uint64_t at = 0; at < NLEV * NCOL;) {
        uint64_t length = 1 + next(&state) % MAX_RUN;
        if (length > NLEV * NCOL - at)
            length = NLEV * NCOL - at;
        if ((int)(next(&state) % (uint64_t)size) == rank) {
            starts[n] = at;
            lengths[n] = length;
            n++;
        }
        at += length;
    }
    uint64_t mix = 7 + (uint64_t)rank;
    for (uint64_t i = n; i > 1; i--) { /* Fisher-Yates: no particular order */
        uint64_t k = next(&mix) % i, start = starts[i - 1], length = lengths[i - 1];
        starts[i - 1] = starts[k];
        lengths[i - 1] = lengths[k];
        starts[k] = start;
        lengths[k] = length;
    }
    return n;
}

/* The runs as blocks of T: offsets and counts, nblocks x 2, a run split where it crosses
 * the end of a level. Returns nblocks. */
static uint64_t blocks_of(uint64_t nruns, const uint64_t *starts, const uint64_t *lengths,
                          uint64_t *offsets, uint64_t *counts)
{
    uint64_t n = 0;
    for (uint64_t r = 0; r < nruns; r++)
        for (uint64_t at = starts[r], end = starts[r] + lengths[r]; at < end; n++) {
            uint64_t lev = at / NCOL, col = at % NCOL;
            uint64_t length = end - at < NCOL - col ? end - at : NCOL - col;
            offsets[2 * n] = lev;
            offsets[2 * n + 1] = col;
            counts[2 * n] = 1;
            counts[2 * n + 1] = length;
            at += length;
        }
    return n;
}

/* Fill (or, with `buf` read back, count the wrong elements of) the packed blocks. */
static uint64_t walk(uint64_t n, const uint64_t *offsets, const uint64_t *counts, double *buf,
                     int fill)
{
    uint64_t wrong = 0, at = 0;
    for (uint64_t b = 0; b < n; b++)
        for (uint64_t c = 0; c < counts[2 * b + 1]; c++, at++) {
            double want = 100.0 * (double)offsets[2 * b] + (double)(offsets[2 * b + 1] + c);
            if (fill)
                buf[at] = want;
            else
                wrong += buf[at] != want;
        }
    return wrong;
}

/* The blocks of `rank`'s runs: *offsets, *counts and *buf malloc'ed. Returns nblocks. */
static uint64_t decomposition(int rank, int size, uint64_t **offsets, uint64_t **counts, double **buf)
{
    uint64_t *starts = malloc(sizeof(uint64_t) * NLEV * NCOL);
    uint64_t *lengths = malloc(sizeof(uint64_t) * NLEV * NCOL);
    uint64_t nruns = runs_of(rank, size, starts, lengths);
    /* At most one more block than runs per level crossed. */
    *offsets = malloc(sizeof(uint64_t) * 2 * (nruns + NLEV + 1));
    *counts = malloc(sizeof(uint64_t) * 2 * (nruns + NLEV + 1));
    uint64_t n = blocks_of(nruns, starts, lengths, *offsets, *counts), elements = 0;
    for (uint64_t r = 0; r < nruns; r++)
        elements += lengths[r];
    *buf = malloc(sizeof(double) * (elements + 1));
    free(starts);
    free(lengths);
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        fprintf(stderr, "usage: e3sm_runs FILE.h5\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *path = argv[1];
    const uint64_t dims[2] = {NLEV, NCOL};
    uint64_t *offsets, *counts;
    double *buf;
    uint64_t n = decomposition(rank, size, &offsets, &counts, &buf);
    walk(n, offsets, counts, buf, 1);

    dah5_file *file = NULL;
    dah5_dataset *dset = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &file), "create");
    /* Collective: the blocks of every rank are checked together and recorded. */
    check(dah5_darray_create_blocks(file, "T", DAH5_FLOAT64, 2, dims, n, offsets, counts, 0, NULL, &dset),
          "darray_create_blocks");
    /* One collective transfer of all of this rank's runs. */
    check(dah5_write_blocks(dset, n, offsets, counts, DAH5_FLOAT64, buf, DAH5_COLLECTIVE), "write_blocks");
    uint64_t most = 0, fewest = 0;
    MPI_Allreduce(&n, &most, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&n, &fewest, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d ranks wrote T(%d, %d) as %llu to %llu blocks each (their runs, cut at the ends of"
               " levels), in no particular order\n",
               size, NLEV, NCOL, (unsigned long long)fewest, (unsigned long long)most);
    check(dah5_dataset_close(&dset), "close dataset");
    check(dah5_file_close(&file), "close");
    free(offsets);
    free(counts);
    free(buf);

    /* Read back the next rank's runs, collectively. */
    check(dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDONLY, &file), "open");
    check(dah5_dataset_open(file, "T", &dset), "open dataset");
    n = decomposition((rank + 1) % size, size, &offsets, &counts, &buf);
    check(dah5_read_blocks(dset, n, offsets, counts, DAH5_FLOAT64, buf, DAH5_COLLECTIVE), "read_blocks");
    uint64_t wrong = walk(n, offsets, counts, buf, 0), all_wrong = 0;
    check(dah5_dataset_close(&dset), "close dataset");
    check(dah5_file_close(&file), "close");
    free(offsets);
    free(counts);
    free(buf);

    MPI_Allreduce(&wrong, &all_wrong, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s\n", all_wrong == 0 ? "e3sm runs OK" : "FAILED: some elements differ");
    MPI_Finalize();
    return all_wrong == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
