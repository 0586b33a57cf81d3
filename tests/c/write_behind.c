/*
 * write_behind.c: writes behind the caller (DAH5_ASYNC) on 1 or more ranks, each check
 * asserting the status and a piece of the message (expect.h). tests/write_behind.rs then
 * checks every value with h5py.
 *
 *   write_behind DIR ORDER END     (ORDER: c | f; END: wait | flush | close)
 *
 * In DIR/write_behind_ORDER_END.h5:
 *   "step_S" (S = 0..3), float64 of size × N elements, and "id_S", int32: h5bench's VPIC
 *     steps. Each rank writes its block of both from two buffers it reuses every step, with
 *     DAH5_ASYNC, closes the datasets at once (their writes in flight), writes an attribute,
 *     waits (dah5_file_wait) and refills the buffers for the next step. Element l of step S
 *     holds l + S / 4 (and int32 l * 10 + S).
 *   "tiles", float64 (storage dims 12 × 20): block-cyclic 3 × 5 tiles by dah5_write_blocks
 *     with DAH5_ASYNC, read back at once by the same rank (the read waits for the writes
 *     it meets), then rank r reads rank r+1's tiles after a flush. Pattern of pattern.h.
 *   "overwritten", float64 (size × N): a write behind, then a synchronous write of the same
 *     block, which must land after it: the file holds the synchronous values (pattern).
 *   "atomic", float64 (size × N), written behind in atomic mode (made at once): rank r+1
 *     reads rank r's block after a barrier, without a flush. Pattern.
 *   "columns", float64 (storage dims 2048 × 512·size): rank r's block is columns
 *     512r .. 512r + 511, written behind by even ranks and at once by odd ranks, at the
 *     same time: MPI-IO's data sieving (ROMIO) reads the rows between an odd rank's runs
 *     and writes them back, which must not undo an even rank's write behind. Pattern.
 *   "last", float64 (size × N): written behind, then the file's END: dah5_file_wait then
 *     close, dah5_file_flush then close, or close with the writes in flight. Pattern.
 * Then the refusals: collective, a chunked dataset, another mem_dtype, a read with
 * DAH5_ASYNC, a read-only file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dah5_mpi.h"
#include "expect.h"
#include "pattern.h"

enum { N = 1000, STEPS = 4, TR = 3, TC = 5, NTR = 4, NTC = 4 };

#include "block_list.h"

static dah5_dataset *create(dah5_file *file, const char *name, int32_t dtype, uint32_t ndims,
                            const uint64_t *storage_dims, const dah5_dataset_options *options)
{
    uint64_t dims[8];
    for (uint32_t d = 0; d < ndims; d++)
        dims[fortran ? ndims - 1 - d : d] = storage_dims[d];
    dah5_dataset *ds = NULL;
    ok(dah5_dataset_create(file, name, dtype, ndims, dims, options, &ds), name);
    return ds;
}

/* This rank's block of a 1-D dataset of size × N. */
static uint64_t first(void) { return (uint64_t)rank * N; }

/* The pattern values of rank `owner`'s 1-D block. */
static void fill_pattern(double *buf, int owner)
{
    for (uint64_t i = 0; i < N; i++)
        pattern_value(DAH5_FLOAT64, (uint64_t)owner * N + i, &buf[i]);
}

static void same(const double *got, const double *want, size_t n, const char *what)
{
    checks++;
    if (memcmp(got, want, n * sizeof *got) != 0) {
        fprintf(stderr, "rank %d: FAIL %s: the values read differ from those written\n", rank, what);
        failures++;
    }
}

/* h5bench's steps: two datasets a step from two reused buffers, written behind. */
static void steps(dah5_file *file)
{
    uint64_t dims[1] = {(uint64_t)size * N}, off[1] = {first()}, cnt[1] = {N};
    double *x = malloc(N * sizeof *x);
    int32_t *id = malloc(N * sizeof *id);
    for (int s = 0; s < STEPS; s++) {
        for (uint64_t i = 0; i < N; i++) {
            x[i] = (double)(first() + i) + s / 4.0;
            id[i] = (int32_t)((first() + i) * 10 + (uint64_t)s);
        }
        char name[32];
        snprintf(name, sizeof name, "step_%d", s);
        dah5_dataset *xs = create(file, name, DAH5_FLOAT64, 1, dims, NULL);
        snprintf(name, sizeof name, "id_%d", s);
        dah5_dataset *ids = create(file, name, DAH5_INT32, 1, dims, NULL);
        ok(dah5_write_block(xs, off, cnt, DAH5_FLOAT64, x, DAH5_ASYNC), "step: x behind");
        ok(dah5_write_block(ids, off, cnt, DAH5_INT32, id, DAH5_ASYNC), "step: id behind");
        /* Metadata goes on while the data moves. */
        ok(dah5_dataset_close(&xs), "step: close x in flight");
        ok(dah5_dataset_close(&ids), "step: close id in flight");
        double t = s;
        ok(dah5_attr_write(file, "/", name, DAH5_FLOAT64, 0, 1, &t), "step: attribute in flight");
        ok(dah5_file_wait(file), "step: wait");
    }
    ok(dah5_file_wait(file), "a second wait: nothing in flight");
    free(x);
    free(id);
}

/* dah5_write_blocks behind, read back at once, then another rank's after a flush. */
static void tiles(dah5_file *file)
{
    uint64_t tdims[2] = {NTR * TR, NTC * TC}, tile[2] = {TR, TC}, ntiles[2] = {NTR, NTC};
    uint64_t offsets[2 * NTR * NTC], counts[2 * NTR * NTC];
    size_t n = cyclic_tiles(rank, size, tile, ntiles, offsets, counts), elements;
    dah5_dataset *ds = create(file, "tiles", DAH5_FLOAT64, 2, tdims, NULL);
    double *buf = pack(2, tdims, n, offsets, counts, &elements);
    ok(dah5_write_blocks(ds, n, offsets, counts, DAH5_FLOAT64, buf, DAH5_ASYNC), "tiles behind");
    double *back = calloc(NTR * TR * NTC * TC, sizeof *back);
    ok(dah5_read_blocks(ds, n, offsets, counts, DAH5_FLOAT64, back, 0), "tiles read back while in flight");
    same(back, buf, elements, "tiles read back while in flight");
    expect_all(dah5_file_flush(file), DAH5_OK, NULL, "flush: every rank's writes in");
    free(buf);
    uint64_t other_offsets[2 * NTR * NTC], other_counts[2 * NTR * NTC];
    size_t m = cyclic_tiles((rank + 1) % size, size, tile, ntiles, other_offsets, other_counts);
    ok(dah5_read_blocks(ds, m, other_offsets, other_counts, DAH5_FLOAT64, back, 0), "the next rank's tiles");
    compare(2, tdims, m, other_offsets, other_counts, back, "the next rank's tiles after a flush");
    free(back);
    ok(dah5_dataset_close(&ds), "close tiles");
}

/* A synchronous write of the bytes a write behind is moving lands after it. */
static void overwritten(dah5_file *file)
{
    uint64_t dims[1] = {(uint64_t)size * N}, off[1] = {first()}, cnt[1] = {N};
    dah5_dataset *ds = create(file, "overwritten", DAH5_FLOAT64, 1, dims, NULL);
    double *behind = malloc(N * sizeof *behind), *now = malloc(N * sizeof *now);
    for (int i = 0; i < N; i++)
        behind[i] = -1.0;
    fill_pattern(now, rank);
    ok(dah5_write_block(ds, off, cnt, DAH5_FLOAT64, behind, DAH5_ASYNC), "overwritten: behind");
    ok(dah5_write_block(ds, off, cnt, DAH5_FLOAT64, now, 0), "overwritten: at once, the same block");
    ok(dah5_file_wait(file), "overwritten: wait");
    free(behind);
    free(now);
    ok(dah5_dataset_close(&ds), "close overwritten");
}

/* Columns side by side, written behind and at once by neighbours (see the top). */
static void columns(dah5_file *file)
{
    enum { ROWS = 2048, COLS = 512 };
    uint64_t dims[2] = {ROWS, (uint64_t)COLS * size}, offsets[2] = {0, (uint64_t)COLS * rank};
    uint64_t counts[2] = {ROWS, COLS};
    dah5_dataset *ds = create(file, "columns", DAH5_FLOAT64, 2, dims, NULL);
    if (fortran) {
        uint64_t o = offsets[0], c = counts[0];
        offsets[0] = offsets[1], offsets[1] = o, counts[0] = counts[1], counts[1] = c;
    }
    size_t n;
    double *buf = pack(2, dims, 1, offsets, counts, &n);
    MPI_Barrier(MPI_COMM_WORLD);
    ok(dah5_write_block(ds, offsets, counts, DAH5_FLOAT64, buf, rank % 2 ? 0 : DAH5_ASYNC),
       "columns: behind beside at once");
    expect_all(dah5_file_flush(file), DAH5_OK, NULL, "columns: flush");
    free(buf);
    ok(dah5_dataset_close(&ds), "close columns");
}

/* In atomic mode a write behind is made at once: seen by another rank after a barrier. */
static void atomic(dah5_file *file)
{
    uint64_t dims[1] = {(uint64_t)size * N}, off[1] = {first()}, cnt[1] = {N};
    expect_all(dah5_file_set_atomic(file, 1), DAH5_OK, NULL, "atomic on");
    dah5_dataset *ds = create(file, "atomic", DAH5_FLOAT64, 1, dims, NULL);
    double *mine = malloc(N * sizeof *mine), *got = malloc(N * sizeof *got), *want = malloc(N * sizeof *want);
    fill_pattern(mine, rank);
    ok(dah5_write_block(ds, off, cnt, DAH5_FLOAT64, mine, DAH5_ASYNC), "atomic: behind, made at once");
    /* The buffer is the caller's again at once: spoil it. */
    memset(mine, 0, N * sizeof *mine);
    MPI_Barrier(MPI_COMM_WORLD);
    int prev = (rank + size - 1) % size;
    uint64_t prev_off[1] = {(uint64_t)prev * N};
    ok(dah5_read_block(ds, prev_off, cnt, DAH5_FLOAT64, got, 0), "atomic: the previous rank's block");
    fill_pattern(want, prev);
    same(got, want, N, "atomic: the previous rank's block after a barrier");
    expect_all(dah5_file_set_atomic(file, 0), DAH5_OK, NULL, "atomic off");
    free(mine);
    free(got);
    free(want);
    ok(dah5_dataset_close(&ds), "close atomic");
}

static void refusals(dah5_file *file)
{
    uint64_t dims[1] = {(uint64_t)size * N}, off[1] = {first()}, cnt[1] = {N};
    double *buf = malloc(N * sizeof *buf);
    fill_pattern(buf, rank);
    dah5_dataset *plain = create(file, "refused", DAH5_FLOAT64, 1, dims, NULL);
    expect_all(dah5_write_block(plain, off, cnt, DAH5_FLOAT64, buf, DAH5_ASYNC | DAH5_COLLECTIVE),
               DAH5_ERR_INVALID_ARGUMENT, "this rank's alone", "async and collective");
    float *f = malloc(N * sizeof *f);
    expect(dah5_write_block(plain, off, cnt, DAH5_FLOAT32, f, DAH5_ASYNC | DAH5_CONVERT),
           DAH5_ERR_INVALID_ARGUMENT, "without conversion", "async with another mem_dtype");
    expect(dah5_read_block(plain, off, cnt, DAH5_FLOAT64, buf, DAH5_ASYNC), DAH5_ERR_INVALID_ARGUMENT,
           "reads are synchronous", "a read with DAH5_ASYNC");
    uint64_t out[1] = {(uint64_t)size * N};
    expect(dah5_write_block(plain, out, cnt, DAH5_FLOAT64, buf, DAH5_ASYNC), DAH5_ERR_OUT_OF_BOUNDS, NULL,
           "async out of bounds");
    ok(dah5_dataset_close(&plain), "close refused");
    dah5_dataset_options options;
    dah5_dataset_options_init(&options, DAH5_DATASET_OPTIONS_VERSION);
    options.chunk_ndims = 1;
    options.chunk[0] = N;
    dah5_dataset *chunked = create(file, "chunked", DAH5_FLOAT64, 1, dims, &options);
    expect(dah5_write_block(chunked, off, cnt, DAH5_FLOAT64, buf, DAH5_ASYNC), DAH5_ERR_INVALID_ARGUMENT,
           "is not contiguous", "async on a chunked dataset");
    ok(dah5_write_block(chunked, off, cnt, DAH5_FLOAT64, buf, DAH5_COLLECTIVE), "the chunked dataset, collectively");
    ok(dah5_dataset_close(&chunked), "close chunked");
    free(f);
    free(buf);
}

/* Write "last" behind and end the file as END says. */
static void last(dah5_file *file, const char *end)
{
    uint64_t dims[1] = {(uint64_t)size * N}, off[1] = {first()}, cnt[1] = {N};
    dah5_dataset *ds = create(file, "last", DAH5_FLOAT64, 1, dims, NULL);
    double *buf = malloc(N * sizeof *buf);
    fill_pattern(buf, rank);
    ok(dah5_write_block(ds, off, cnt, DAH5_FLOAT64, buf, DAH5_ASYNC), "last: behind");
    ok(dah5_dataset_close(&ds), "close last in flight");
    if (strcmp(end, "wait") == 0)
        ok(dah5_file_wait(file), "last: wait");
    else if (strcmp(end, "flush") == 0)
        expect_all(dah5_file_flush(file), DAH5_OK, NULL, "last: flush with writes in flight");
    expect_all(dah5_file_close(&file), DAH5_OK, NULL, "close the file");
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int32_t world = (int32_t)MPI_Comm_c2f(MPI_COMM_WORLD);
    if (argc < 4) {
        fprintf(stderr, "usage: mpiexec -n N write_behind DIR c|f wait|flush|close\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fortran = strcmp(argv[2], "f") == 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/write_behind_%s_%s.h5", argv[1], argv[2], argv[3]);
    dah5_file *file = NULL;
    ok(dah5_file_create(world, path, DAH5_TRUNC | (fortran ? DAH5_ORDER_F : 0), &file), "create the file");
    steps(file);
    tiles(file);
    overwritten(file);
    columns(file);
    atomic(file);
    refusals(file);
    last(file, argv[3]);

    ok(dah5_file_open(world, path, DAH5_RDONLY | (fortran ? DAH5_ORDER_F : 0), &file), "open read-only");
    dah5_dataset *ds = NULL;
    ok(dah5_dataset_open(file, "last", &ds), "open last");
    uint64_t off[1] = {first()}, cnt[1] = {N};
    double buf[N];
    expect(dah5_write_block(ds, off, cnt, DAH5_FLOAT64, buf, DAH5_ASYNC), DAH5_ERR_READ_ONLY, "read-only",
           "async on a read-only file");
    ok(dah5_dataset_close(&ds), "close");
    ok(dah5_file_close(&file), "close read-only");

    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("write_behind %s %s: %d checks, %d failures\n", argv[2], argv[3], checks, all);
    MPI_Finalize();
    return all != 0;
}
