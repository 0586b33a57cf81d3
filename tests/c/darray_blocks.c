/*
 * darray_blocks.c: dah5_darray_write_blocks and dah5_darray_create_blocks on 1 or more
 * ranks, each check asserting the status and a piece of the message on every rank
 * (expect.h). Values follow tests/c/pattern.h, so tests/darray_blocks.rs checks each
 * array whole with h5py, and its table (schema 3, each block's rank).
 *
 *   darray_blocks DIR ORDER     (ORDER: c | f, the file handle's order)
 *
 * Darrays (storage dims): "cyclic" 18×20, 3×5 tiles dealt block-cyclically, written in one
 * call (collectively in F order, independently in C order), its table read back (blocks
 * and ranks) and the array read N→M by partitions;
 * "runs", 1-D runs of 1–4 elements dealt round-robin to every rank but rank 0 (which has
 * none), scrambled: created, then written with dah5_write_blocks collectively; "big",
 * 100,000 one-element blocks (element i is rank i % size's), written independently.
 * Refused, on every rank, nothing created: blocks of two ranks that overlap (both named),
 * blocks that leave a gap without DAH5_DARRAY_PARTIAL, DAH5_DARRAY_SUBFILED.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dah5_mpi.h"
#include "expect.h"
#include "block_list.h"

enum { BIG = 100000 };

/* Handle-order dims of storage-order dims. */
static void handle_dims(uint32_t ndims, const uint64_t *storage, uint64_t *out)
{
    for (uint32_t d = 0; d < ndims; d++)
        out[fortran ? ndims - 1 - d : d] = storage[d];
}

/* The table of `ds`: nblocks as expected, the ranks in rank order, and as many rows of
 * each rank as `per_rank(r)` says. */
static void check_table(dah5_dataset *ds, uint32_t want, size_t (*per_rank)(int))
{
    uint32_t nblocks = 0;
    ok(dah5_darray_block_ranks(ds, 0, &nblocks, NULL), "the table's size");
    checks++;
    if (nblocks != want) {
        fprintf(stderr, "rank %d: FAIL the table has %u blocks, not %u\n", rank, nblocks, want);
        failures++;
        return;
    }
    int32_t *ranks = malloc(nblocks * sizeof *ranks);
    ok(dah5_darray_block_ranks(ds, nblocks, &nblocks, ranks), "the table's ranks");
    expect(dah5_darray_block_ranks(ds, nblocks - 1, &nblocks, ranks), DAH5_ERR_INVALID_ARGUMENT, "capacity",
           "ranks with too little room");
    size_t at = 0;
    for (int r = 0; r < size; r++)
        for (size_t k = 0; k < per_rank(r); k++, at++)
            if (at >= nblocks || ranks[at] != r) {
                fprintf(stderr, "rank %d: FAIL table row %zu: rank %d, want %d\n", rank, at,
                        at < nblocks ? ranks[at] : -1, r);
                failures++;
                free(ranks);
                return;
            }
    free(ranks);
}

static const uint64_t TILE[2] = {3, 5}, NTILES[2] = {6, 4};

static size_t tiles_per_rank(int r)
{
    uint64_t o[2 * 24], c[2 * 24];
    return cyclic_tiles(r, size, TILE, NTILES, o, c);
}

static size_t big_per_rank(int r) { return BIG / (size_t)size + ((size_t)r < BIG % (size_t)size); }

/* The runs of rank `r`: run k (1 + k % 4 elements) is rank 1 + k % (size - 1)'s, or
 * rank 0's on one rank. Fills the handle-order blocks (if not NULL); returns their
 * number and the array length in *len. */
static size_t runs_of(int r, uint64_t *offsets, uint64_t *counts, uint64_t *len)
{
    size_t n = 0;
    *len = 0;
    for (size_t k = 0; k < 30 * (size_t)size; k++) {
        int owner = size == 1 ? 0 : 1 + (int)(k % (size_t)(size - 1));
        if (owner == r && offsets) {
            offsets[n] = *len;
            counts[n] = 1 + k % 4;
        }
        n += owner == r;
        *len += 1 + k % 4;
    }
    return n;
}

static size_t runs_per_rank(int r)
{
    uint64_t len;
    return runs_of(r, NULL, NULL, &len);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int32_t world = (int32_t)MPI_Comm_c2f(MPI_COMM_WORLD);
    if (argc < 3) {
        fprintf(stderr, "usage: mpiexec -n N darray_blocks DIR c|f\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fortran = strcmp(argv[2], "f") == 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/darray_blocks_%s.h5", argv[1], argv[2]);
    dah5_file *file = NULL;
    ok(dah5_file_create(world, path, DAH5_TRUNC | (fortran ? DAH5_ORDER_F : 0), &file), "create the file");

    /* ---- block-cyclic tiles in one call ---- */
    uint64_t cdims[2] = {18, 20}, hdims[2];
    handle_dims(2, cdims, hdims);
    uint64_t offsets[2 * 24], counts[2 * 24];
    size_t n = cyclic_tiles(rank, size, TILE, NTILES, offsets, counts), len;
    double *buf = pack(2, cdims, n, offsets, counts, &len);
    dah5_dataset *cyclic = NULL;
    expect_all(dah5_darray_write_blocks(file, "cyclic", DAH5_FLOAT64, 2, hdims, n, offsets, counts, buf,
                                        fortran ? DAH5_COLLECTIVE : 0, NULL, &cyclic),
               DAH5_OK, NULL, "block-cyclic darray");
    free(buf);
    check_table(cyclic, 24, tiles_per_rank);
    uint32_t nblocks = 0;
    uint64_t table_offsets[2 * 24], table_counts[2 * 24];
    ok(dah5_darray_blocks(cyclic, 24, &nblocks, table_offsets, table_counts), "the table's blocks");
    /* The table's rows of this rank are its blocks, in the order it gave them. */
    size_t first = 0;
    for (int r = 0; r < rank; r++)
        first += tiles_per_rank(r);
    checks++;
    if (memcmp(table_offsets + 2 * first, offsets, n * 2 * sizeof *offsets) != 0 ||
        memcmp(table_counts + 2 * first, counts, n * 2 * sizeof *counts) != 0) {
        fprintf(stderr, "rank %d: FAIL the table's rows of this rank differ from its blocks\n", rank);
        failures++;
    }
    ok(dah5_file_flush(file), "flush");
    /* N→M: read by partitions of 1, size and size + 1 readers. */
    for (int readers = 1; readers <= size + 1; readers += size) {
        uint64_t off[2], cnt[2];
        ok(dah5_darray_partition(cyclic, rank % readers, readers, off, cnt), "partition");
        double *got = malloc(cdims[0] * cdims[1] * sizeof *got);
        expect_all(dah5_read_block(cyclic, off, cnt, DAH5_FLOAT64, got, DAH5_COLLECTIVE), DAH5_OK, NULL,
                   "read a partition");
        compare(2, cdims, 1, off, cnt, got, "a partition of the block-cyclic darray");
        free(got);
    }
    ok(dah5_dataset_close(&cyclic), "close");

    /* ---- E3SM-style runs: created, then written in one collective call; rank 0 has none ---- */
    uint64_t rdims[1];
    size_t nruns = runs_of(rank, NULL, NULL, &rdims[0]);
    uint64_t *ro = malloc((nruns + 1) * sizeof *ro), *rc = malloc((nruns + 1) * sizeof *rc);
    runs_of(rank, ro, rc, &rdims[0]);
    size_t *order = malloc((nruns + 1) * sizeof *order);
    scramble(order, nruns, 31u + (unsigned)rank);
    uint64_t *so = malloc((nruns + 1) * sizeof *so), *sc = malloc((nruns + 1) * sizeof *sc);
    for (size_t i = 0; i < nruns; i++) {
        so[i] = ro[order[i]];
        sc[i] = rc[order[i]];
    }
    dah5_dataset *runs = NULL;
    expect_all(dah5_darray_create_blocks(file, "runs", DAH5_FLOAT64, 1, rdims, nruns, so, sc, 0, NULL, &runs),
               DAH5_OK, NULL, "a darray of runs, created");
    buf = pack(1, rdims, nruns, so, sc, &len);
    expect_all(dah5_write_blocks(runs, nruns, so, sc, DAH5_FLOAT64, buf, DAH5_COLLECTIVE), DAH5_OK, NULL,
               "its runs written in one collective call");
    free(buf);
    check_table(runs, (uint32_t)(30 * size), runs_per_rank);
    ok(dah5_dataset_close(&runs), "close");

    /* ---- 100,000 one-element blocks ---- */
    uint64_t bdims[1] = {BIG};
    size_t nbig = big_per_rank(rank);
    uint64_t *bo = malloc(nbig * sizeof *bo), *bc = malloc(nbig * sizeof *bc);
    for (size_t k = 0; k < nbig; k++) {
        bo[k] = (uint64_t)rank + k * (uint64_t)size;
        bc[k] = 1;
    }
    buf = pack(1, bdims, nbig, bo, bc, &len);
    dah5_dataset *big = NULL;
    expect_all(dah5_darray_write_blocks(file, "big", DAH5_FLOAT64, 1, bdims, nbig, bo, bc, buf, 0, NULL, &big),
               DAH5_OK, NULL, "100,000 blocks");
    check_table(big, BIG, big_per_rank);
    ok(dah5_dataset_close(&big), "close");
    free(buf);

    /* ---- refused on every rank, nothing created ---- */
    dah5_dataset *ds = NULL;
    uint64_t ten[1] = {10}, one_off[1] = {(uint64_t)rank * 3}, one_cnt[1] = {4};
    if (size > 1) {
        expect_all(dah5_darray_create_blocks(file, "overlap", DAH5_FLOAT64, 1, ten, rank < 2, one_off, one_cnt,
                                             DAH5_DARRAY_PARTIAL, NULL, &ds),
                   DAH5_ERR_INVALID_ARGUMENT, "rank 0's block 0 (offset [0] count [4]) and rank 1's block 0",
                   "two ranks' blocks that overlap");
        expect_all(dah5_dataset_open(file, "overlap", &ds), DAH5_ERR_NOT_FOUND, NULL, "nothing was created");
    }
    uint64_t two[1] = {2 * (uint64_t)size}, gap_off[1] = {2 * (uint64_t)rank}, gap_cnt[1] = {1};
    expect_all(dah5_darray_create_blocks(file, "gap", DAH5_FLOAT64, 1, two, 1, gap_off, gap_cnt, 0, NULL, &ds),
               DAH5_ERR_INVALID_ARGUMENT, "DAH5_DARRAY_PARTIAL", "blocks that leave a gap");
    expect_all(dah5_darray_create_blocks(file, "sub", DAH5_FLOAT64, 1, two, 1, gap_off, gap_cnt,
                                         DAH5_DARRAY_SUBFILED | DAH5_DARRAY_PARTIAL, NULL, &ds),
               DAH5_ERR_INVALID_ARGUMENT, "one block a rank", "subfiled");
    /* ---- edge cases ---- */
    /* An empty block anywhere is legal, in the darray and in a transfer. */
    {
        uint64_t eo[2] = {2 * (uint64_t)rank, 100}, ec[2] = {2, 0};
        expect_all(dah5_darray_create_blocks(file, "empty_out", DAH5_FLOAT64, 1, two, 2, eo, ec, 0, NULL, &ds),
                   DAH5_OK, NULL, "an empty block outside the dims");
        double v[2] = {1, 2};
        expect_all(dah5_write_blocks(ds, 2, eo, ec, DAH5_FLOAT64, v, DAH5_COLLECTIVE), DAH5_OK, NULL,
                   "its blocks written");
        ok(dah5_dataset_close(&ds), "close");
    }
    /* A compressed partial darray where no rank has a block: the default chunks, an empty
     * table that reads back. */
    {
        dah5_dataset_options opts;
        ok(dah5_dataset_options_init(&opts, DAH5_DATASET_OPTIONS_VERSION), "options");
        opts.deflate_level = 4;
        expect_all(dah5_darray_write_blocks(file, "none", DAH5_FLOAT64, 1, ten, 0, NULL, NULL, NULL,
                                            DAH5_DARRAY_PARTIAL, &opts, &ds),
                   DAH5_OK, NULL, "a compressed darray without blocks");
        uint32_t none = 1;
        ok(dah5_darray_blocks(ds, 0, &none, NULL, NULL), "its empty table");
        checks++;
        if (none != 0) {
            fprintf(stderr, "rank %d: FAIL the empty table has %u blocks\n", rank, none);
            failures++;
        }
        ok(dah5_dataset_close(&ds), "close");
    }
    /* nblocks no memory can hold, on the last rank: refused, not an abort, on every rank. */
    {
        uint64_t lone[1] = {0};
        uint64_t nb = rank == size - 1 ? (uint64_t)1 << 45 : 0;
        expect_all(dah5_darray_create_blocks(file, "huge", DAH5_FLOAT64, 1, ten, nb, lone, lone,
                                             DAH5_DARRAY_PARTIAL, NULL, &ds),
                   DAH5_ERR_INVALID_ARGUMENT, NULL, "nblocks = 2^45");
        if (rank == size - 1)
            expect(dah5_darray_create_blocks(file, "huge", DAH5_FLOAT64, 1, ten, nb, lone, lone,
                                             DAH5_DARRAY_PARTIAL, NULL, &ds),
                   DAH5_ERR_INVALID_ARGUMENT, "cannot be held in memory", "nblocks = 2^45, the message");
        else
            expect(dah5_darray_create_blocks(file, "huge", DAH5_FLOAT64, 1, ten, nb, lone, lone,
                                             DAH5_DARRAY_PARTIAL, NULL, &ds),
                   DAH5_ERR_INVALID_ARGUMENT, NULL, "nblocks = 2^45 elsewhere");
    }
    /* A subfiled darray: dah5_write_blocks moves its rank's one block, or none. */
    {
        uint64_t so1[1] = {2 * (uint64_t)rank}, sc1[1] = {2};
        expect_all(dah5_darray_create(file, "sub_ok", DAH5_FLOAT64, 1, two, so1, sc1, DAH5_DARRAY_SUBFILED, NULL,
                                      &ds),
                   DAH5_OK, NULL, "a subfiled darray");
        double v[2] = {3, 4};
        expect_all(dah5_write_blocks(ds, 0, NULL, NULL, DAH5_FLOAT64, NULL, DAH5_COLLECTIVE), DAH5_OK, NULL,
                   "no block, collectively, on a subfiled darray");
        expect_all(dah5_write_blocks(ds, 1, so1, sc1, DAH5_FLOAT64, v, DAH5_COLLECTIVE), DAH5_OK, NULL,
                   "its one block");
        ok(dah5_dataset_close(&ds), "close");
    }
    ok(dah5_file_close(&file), "close the file");
    free(ro);
    free(rc);
    free(so);
    free(sc);
    free(order);
    free(bo);
    free(bc);

    int total;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("darray_blocks: %d checks a rank, %d failures over %d ranks\n", checks, total, size);
    MPI_Finalize();
    return total ? 1 : 0;
}
