/*
 * many_blocks.c: dah5_write_blocks and dah5_read_blocks on 1 or more ranks, each check
 * asserting the status and a piece of the message (expect.h). Every element is written
 * with the pattern of tests/c/pattern.h, so tests/many_blocks.rs checks each dataset
 * whole with h5py.
 *
 *   many_blocks DIR ORDER     (ORDER: c | f, the file handle's order)
 *
 * Datasets (storage dims): "tiles_ind" and "tiles_coll" (a 2-D block-cyclic matrix of
 * 3×5 tiles, tile (i, j) written by rank (i + j) % size, each rank's tiles given in a
 * scrambled order, independently / collectively); "runs" (1-D runs of 1–4 elements dealt
 * round-robin, each rank's in a scrambled order, collectively, as a climate model's run
 * list); "cube" (3-D slabs written by rank 0 only, in file order, in one call; the other
 * ranks pass nblocks = 0 collectively). Each is read back with dah5_read_blocks (the
 * tiles of another rank, collectively and not) and compared; "converted" (int32, written
 * from float64 with DAH5_CONVERT around an empty block, read back as int8). Then the
 * refusals: overlap,
 * out of bounds, NULL arrays, a conversion, one rank's bad block in a collective call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dah5_mpi.h"
#include "expect.h"
#include "pattern.h"

enum { TR = 3, TC = 5, NTR = 6, NTC = 4 }; /* tile rows, cols; tiles down, across */

#include "block_list.h"

/* The tiles rank `owner` writes, scrambled. */
static size_t tiles_of(int owner, uint64_t *offsets, uint64_t *counts)
{
    const uint64_t tile[2] = {TR, TC}, ntiles[2] = {NTR, NTC};
    return cyclic_tiles(owner, size, tile, ntiles, offsets, counts);
}

static dah5_dataset *create(dah5_file *file, const char *name, uint32_t ndims, const uint64_t *storage_dims)
{
    uint64_t dims[8];
    for (uint32_t d = 0; d < ndims; d++)
        dims[fortran ? ndims - 1 - d : d] = storage_dims[d];
    dah5_dataset *ds = NULL;
    ok(dah5_dataset_create(file, name, DAH5_FLOAT64, ndims, dims, NULL, &ds), name);
    return ds;
}

/* Write the blocks, read them back (with the given flags), compare. */
static void round_trip(dah5_dataset *ds, uint32_t ndims, const uint64_t *dims, size_t nblocks,
                       const uint64_t *offsets, const uint64_t *counts, uint32_t flags, const char *what)
{
    size_t n;
    double *buf = pack(ndims, dims, nblocks, offsets, counts, &n);
    expect_all(dah5_write_blocks(ds, nblocks, offsets, counts, DAH5_FLOAT64, buf, flags), DAH5_OK, NULL, what);
    double *back = calloc(n ? n : 1, sizeof *back);
    char read_what[200];
    snprintf(read_what, sizeof read_what, "%s, read back", what);
    expect_all(dah5_read_blocks(ds, nblocks, offsets, counts, DAH5_FLOAT64, back, flags), DAH5_OK, NULL,
               read_what);
    checks++;
    if (n && memcmp(buf, back, n * sizeof *buf) != 0) {
        fprintf(stderr, "rank %d: FAIL %s: the values read differ from those written\n", rank, read_what);
        failures++;
    }
    free(buf);
    free(back);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int32_t world = (int32_t)MPI_Comm_c2f(MPI_COMM_WORLD);
    if (argc < 3) {
        fprintf(stderr, "usage: mpiexec -n N many_blocks DIR c|f\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fortran = strcmp(argv[2], "f") == 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/many_blocks_%s.h5", argv[1], argv[2]);
    dah5_file *file = NULL;
    ok(dah5_file_create(world, path, DAH5_TRUNC | (fortran ? DAH5_ORDER_F : 0), &file), "create the file");

    /* ---- 2-D block-cyclic tiles ---- */
    uint64_t tdims[2] = {NTR * TR, NTC * TC};
    uint64_t offsets[2 * NTR * NTC * 4], counts[2 * NTR * NTC * 4];
    size_t n = tiles_of(rank, offsets, counts);
    dah5_dataset *ind = create(file, "tiles_ind", 2, tdims);
    dah5_dataset *coll = create(file, "tiles_coll", 2, tdims);
    round_trip(ind, 2, tdims, n, offsets, counts, DAH5_INDEPENDENT, "block-cyclic tiles, independent");
    round_trip(coll, 2, tdims, n, offsets, counts, DAH5_COLLECTIVE, "block-cyclic tiles, collective");
    /* The same blocks again, on another dataset of the same dims (the plan of the last
     * call is taken, core::recent_plans), and on a smaller one, where it must not be. */
    dah5_dataset *again = create(file, "tiles_again", 2, tdims);
    round_trip(again, 2, tdims, n, offsets, counts, DAH5_COLLECTIVE, "the same tiles on another dataset");
    uint64_t small_dims[2] = {NTR * TR - 1, NTC * TC};
    dah5_dataset *smaller = create(file, "smaller", 2, small_dims);
    size_t nsmall;
    double *tiles = pack(2, tdims, n, offsets, counts, &nsmall);
    int32_t status = dah5_write_blocks(smaller, n, offsets, counts, DAH5_FLOAT64, tiles, DAH5_COLLECTIVE);
    int owns_last_row = 0;
    for (size_t i = 0; i < n; i++)
        owns_last_row |= offsets[2 * i + (fortran ? 1 : 0)] == (NTR - 1) * TR;
    int any_out = 0;
    MPI_Allreduce(&owns_last_row, &any_out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    expect_all(status, any_out ? DAH5_ERR_OUT_OF_BOUNDS : DAH5_OK, NULL,
               "the same tiles on a dataset one row smaller: checked again");
    free(tiles);
    ok(dah5_dataset_close(&smaller), "close");
    ok(dah5_dataset_close(&again), "close");
    ok(dah5_file_flush(file), "flush");
    /* Another rank's tiles read by this one: what that rank wrote. */
    uint64_t other_offsets[2 * NTR * NTC], other_counts[2 * NTR * NTC];
    size_t m = tiles_of((rank + 1) % size, other_offsets, other_counts);
    double *got = calloc(NTR * TR * NTC * TC, sizeof *got);
    expect_all(dah5_read_blocks(coll, m, other_offsets, other_counts, DAH5_FLOAT64, got, DAH5_COLLECTIVE), DAH5_OK,
               NULL, "the next rank's tiles, collectively");
    compare(2, tdims, m, other_offsets, other_counts, got, "the next rank's tiles");
    free(got);

    /* ---- 1-D runs of 1..4 elements, dealt round-robin, scrambled ---- */
    uint64_t rdims[1] = {0};
    size_t nruns = 0, total_runs = 40 * (size_t)size;
    uint64_t *run_offsets = malloc(total_runs * sizeof *run_offsets), *run_counts = malloc(total_runs * sizeof *run_counts);
    size_t *order = malloc(total_runs * sizeof *order);
    for (size_t r = 0; r < total_runs; r++) {
        uint64_t len_r = 1 + r % 4;
        if ((int)(r % (size_t)size) == rank) {
            run_offsets[nruns] = rdims[0];
            run_counts[nruns++] = len_r;
        }
        rdims[0] += len_r;
    }
    scramble(order, nruns, 99u + (unsigned)rank);
    uint64_t *so = malloc(nruns * sizeof *so), *sc = malloc(nruns * sizeof *sc);
    for (size_t i = 0; i < nruns; i++) {
        so[i] = run_offsets[order[i]];
        sc[i] = run_counts[order[i]];
    }
    dah5_dataset *runs = create(file, "runs", 1, rdims);
    round_trip(runs, 1, rdims, nruns, so, sc, DAH5_COLLECTIVE, "scrambled 1-D runs, collective");

    /* ---- 3-D: rank 0 writes every slab, in file order; the others take part with nothing ---- */
    uint64_t cdims[3] = {4, 3, 5};
    uint64_t cube_offsets[3 * 4], cube_counts[3 * 4];
    for (size_t s = 0; s < 4; s++) {
        uint64_t off[3] = {s, 0, 0}, cnt[3] = {1, 3, 5};
        put(cube_offsets, cube_counts, s, 3, off, cnt);
    }
    dah5_dataset *cube = create(file, "cube", 3, cdims);
    round_trip(cube, 3, cdims, rank == 0 ? 4 : 0, cube_offsets, cube_counts, DAH5_COLLECTIVE,
               "3-D slabs from rank 0, nblocks = 0 elsewhere");

    /* ---- conversion and empty blocks, as for one block ---- */
    {
        uint64_t eight[1] = {8}, co[3] = {6, 2, 0}, cc[3] = {2, 0, 3};
        dah5_dataset *ints = NULL;
        ok(dah5_dataset_create(file, "converted", DAH5_INT32, 1, eight, NULL, &ints), "an int32 dataset");
        double from[5] = {60, 70, 0, 10, 20};
        /* Rank 0 writes the blocks [6, 8) and [0, 3) (the empty block between takes no
         * values), converting float64 to int32; the others nothing. */
        expect_all(dah5_write_blocks(ints, rank == 0 ? 3 : 0, co, cc, DAH5_FLOAT64, from,
                                     DAH5_COLLECTIVE | DAH5_CONVERT),
                   DAH5_OK, NULL, "float64 into int32 with DAH5_CONVERT, an empty block among them");
        double big[5] = {1, 2, 3e10, 4, 5};
        expect(dah5_write_blocks(ints, 3, co, cc, DAH5_FLOAT64, big, DAH5_INDEPENDENT | DAH5_CONVERT),
               DAH5_ERR_TYPE_MISMATCH, "3e10", "a value int32 cannot hold");
        ok(dah5_file_flush(file), "flush");
        int8_t small[5];
        expect(dah5_read_blocks(ints, 3, co, cc, DAH5_INT8, small, DAH5_CONVERT), DAH5_OK, NULL,
               "read back into int8");
        checks++;
        int8_t want[5] = {60, 70, 0, 10, 20};
        if (memcmp(small, want, sizeof want) != 0) {
            fprintf(stderr, "rank %d: FAIL converted values read back differ\n", rank);
            failures++;
        }
        ok(dah5_dataset_close(&ints), "close");
    }

    /* ---- refusals ---- */
    double scratch[64] = {0};
    uint64_t ov_off[6], ov_cnt[6];
    {
        uint64_t a[2] = {0, 0}, b[2] = {3, 5}, c[2] = {2, 4}, one[2] = {1, 1}, two[2] = {2, 2};
        put(ov_off, ov_cnt, 0, 2, a, one);
        put(ov_off, ov_cnt, 1, 2, b, one);
        put(ov_off, ov_cnt, 2, 2, c, two);
    }
    expect(dah5_write_blocks(ind, 3, ov_off, ov_cnt, DAH5_FLOAT64, scratch, DAH5_INDEPENDENT),
           DAH5_ERR_INVALID_ARGUMENT, "overlap", "overlapping blocks");
    expect(dah5_write_blocks(ind, 3, ov_off, ov_cnt, DAH5_FLOAT64, scratch, DAH5_INDEPENDENT),
           DAH5_ERR_INVALID_ARGUMENT, "block 1 (offset", "overlapping blocks named");
    expect(dah5_read_blocks(ind, 3, ov_off, ov_cnt, DAH5_FLOAT64, scratch, DAH5_INDEPENDENT),
           DAH5_ERR_INVALID_ARGUMENT, "block 2 (offset", "overlapping blocks read");
    {
        uint64_t a[2] = {0, 0}, far[2] = {NTR * TR - 1, NTC * TC - 1}, one[2] = {1, 1}, two[2] = {1, 2};
        put(ov_off, ov_cnt, 0, 2, a, one);
        put(ov_off, ov_cnt, 1, 2, far, two);
    }
    expect(dah5_write_blocks(ind, 2, ov_off, ov_cnt, DAH5_FLOAT64, scratch, DAH5_INDEPENDENT),
           DAH5_ERR_OUT_OF_BOUNDS, "block 1 (offset", "a block out of bounds named");
    expect(dah5_write_blocks(ind, 2, NULL, ov_cnt, DAH5_FLOAT64, scratch, DAH5_INDEPENDENT), DAH5_ERR_NULL_ARGUMENT,
           "offsets", "NULL offsets");
    expect(dah5_write_blocks(ind, 2, ov_off, NULL, DAH5_FLOAT64, scratch, DAH5_INDEPENDENT), DAH5_ERR_NULL_ARGUMENT,
           "counts", "NULL counts");
    expect(dah5_write_blocks(ind, 0, NULL, NULL, DAH5_FLOAT64, NULL, DAH5_INDEPENDENT), DAH5_OK, NULL,
           "no blocks, NULL arrays");
    expect(dah5_write_blocks(ind, 1, offsets, counts, DAH5_INT32, scratch, DAH5_INDEPENDENT), DAH5_ERR_TYPE_MISMATCH,
           "DAH5_CONVERT", "another mem_dtype without DAH5_CONVERT");
    /* One rank's bad block fails the collective call on every rank, nothing written. */
    {
        uint64_t bad[2] = {NTR * TR, 0}, one[2] = {1, 1};
        put(ov_off, ov_cnt, 0, 2, bad, one);
    }
    status = rank == size - 1
                         ? dah5_write_blocks(coll, 1, ov_off, ov_cnt, DAH5_FLOAT64, scratch, DAH5_COLLECTIVE)
                         : dah5_write_blocks(coll, 0, NULL, NULL, DAH5_FLOAT64, NULL, DAH5_COLLECTIVE);
    expect_all(status, DAH5_ERR_OUT_OF_BOUNDS, NULL, "one rank's block out of bounds, collectively");
    /* A collective call that one rank makes as dah5_write_block is a mismatch. */
    if (size > 1) {
        uint64_t zero[2] = {0, 0};
        status = rank == 0 ? dah5_write_block(coll, zero, zero, DAH5_FLOAT64, NULL, DAH5_COLLECTIVE)
                           : dah5_write_blocks(coll, 0, NULL, NULL, DAH5_FLOAT64, NULL, DAH5_COLLECTIVE);
        expect_all(status, DAH5_ERR_COLLECTIVE_MISMATCH, NULL, "dah5_write_block against dah5_write_blocks");
    }

    ok(dah5_dataset_close(&ind), "close");
    ok(dah5_dataset_close(&coll), "close");
    ok(dah5_dataset_close(&runs), "close");
    ok(dah5_dataset_close(&cube), "close");
    ok(dah5_file_close(&file), "close the file");
    free(run_offsets);
    free(run_counts);
    free(order);
    free(so);
    free(sc);

    int total;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("many_blocks: %d checks a rank, %d failures over %d ranks\n", checks, total, size);
    MPI_Finalize();
    return total ? 1 : 0;
}
