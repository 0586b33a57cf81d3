/*
 * darray.c: the test driver for distributed arrays, attributes, compression, time series,
 * atomic mode and MPI hints (driven by tests/darray.rs, files checked by h5py).
 *
 *   darray write PATH DSET DTYPE ORDER GRID DEFLATE EMPTY D0 [D1 ...]
 *       every rank but EMPTY (-1: none) writes one block of a GRID ("2x2", "4x1x1": one
 *       factor per dim, product = ranks writing) with dah5_darray_write; DEFLATE 0..9
 *   darray read-table PATH DSET DTYPE ORDER
 *       the stored blocks, dealt round-robin to the ranks, read and checked
 *   darray read-partition PATH DSET DTYPE ORDER
 *       each rank reads its dah5_darray_partition block; together they cover the array
 *   darray bad PATH CASE          overlap | outside | gap | partial | independent-compressed
 *   darray attrs PATH             attributes of every dtype and strings, read back
 *   darray series PATH STEPS      an extendible (t, 6, 5) float64 series grown step by step
 *   darray atomic PATH            rank 0 writes, barrier, rank 1 reads: always seen
 *   darray handoff PATH           read after write through dah5_file_flush: every round
 *                                 each rank reads, rank 0 writes new values independently,
 *                                 flush, each rank reads them (across hosts in
 *                                 scripts/test-multihost.sh)
 *   darray hints PATH             MPI hints and metadata tuning; a bad hint is refused; a
 *                                 plain dataset (no table) reads back by partition
 *   darray rollback PATH RANK     with DAH5_TEST_FAULT=STEP@RANK set for the job: a darray
 *                                 write whose STEP fails on RANK fails on every rank and
 *                                 leaves nothing behind
 *
 * Data follows tests/c/pattern.h (value of the linear index in C order). Prints one line
 * per rank on success; on any failed check prints it on stderr and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "check.h"
#include "dah5_mpi.h"
#include "pattern.h"
#include "rank_order.h"

static int rank_g, size_g, failures_g;

/* A check that counts a failure instead of stopping. */
static void expect(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "rank %d: FAILED: %s (last error: %s)\n", rank_g, what,
                dah5_last_error_message());
        failures_g++;
    }
}

static void expect_status(int32_t got, int32_t want, const char *needle, const char *what)
{
    char line[512];
    snprintf(line, sizeof line, "%s: got %s, want %s", what, dah5_status_name(got),
             dah5_status_name(want));
    expect(got == want, line);
    if (got != DAH5_OK && needle) {
        snprintf(line, sizeof line, "%s: message contains \"%s\"", what, needle);
        expect(strstr(dah5_last_error_message(), needle) != NULL, line);
    }
}

static uint32_t order_flag(const char *order) { return strcmp(order, "f") == 0 ? DAH5_ORDER_F : 0; }

/* Read the block and compare with the pattern; returns wrong elements. */
static uint64_t verify(dah5_dataset *ds, const struct dtype_info *t, uint32_t ndims,
                       const uint64_t *dims, const uint64_t *offset, const uint64_t *count,
                       int forder, uint32_t xfer)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < ndims; d++)
        n *= count[d];
    char *got = malloc(n * t->size + 1), *want = malloc(n * t->size + 1);
    check(dah5_read_block(ds, offset, count, t->code, n ? got : NULL, xfer), "read_block");
    pattern_fill(t->code, t->size, ndims, dims, offset, count, forder, want);
    uint64_t wrong = 0;
    for (uint64_t e = 0; e < n; e++)
        wrong += memcmp(got + e * t->size, want + e * t->size, t->size) != 0;
    free(got);
    free(want);
    return wrong;
}

/* Write the darray: whole with dah5_darray_write ("write", "write-subfiled"), or declared
 * with dah5_darray_create and written in two dah5_write_block steps ("create-subfiled",
 * which also checks that a write outside the rank's block is refused). */
static int write_mode(int argc, char **argv, const char *how)
{
    const char *path = argv[2], *name = argv[3];
    const struct dtype_info *t = dtype_by_name(argv[4]);
    int forder = order_flag(argv[5]) != 0;
    uint32_t ndims = (uint32_t)(argc - 9);
    uint64_t dims[DAH5_MAX_NDIMS], grid[DAH5_MAX_NDIMS], offset[DAH5_MAX_NDIMS] = {0},
             count[DAH5_MAX_NDIMS] = {0};
    char *g = argv[6];
    for (uint32_t d = 0; d < ndims; d++) {
        dims[d] = strtoull(argv[9 + d], NULL, 10);
        grid[d] = strtoull(g, &g, 10);
        g += *g == 'x';
    }
    int empty = atoi(argv[8]);
    if (rank_g != empty) {
        uint64_t cell = (uint64_t)(empty >= 0 && rank_g > empty ? rank_g - 1 : rank_g);
        grid_block(ndims, dims, grid, cell, offset, count);
    }
    uint64_t n = 1;
    for (uint32_t d = 0; d < ndims; d++)
        n *= count[d];
    char *buf = malloc(n * t->size + 1);
    pattern_fill(t->code, t->size, ndims, dims, offset, count, forder, buf);

    dah5_file *file = NULL;
    dah5_dataset *ds = NULL;
    int32_t status = dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDWR | order_flag(argv[5]), &file);
    if (status == DAH5_ERR_NOT_FOUND)
        status = dah5_file_create_comm(MPI_COMM_WORLD, path, order_flag(argv[5]), &file);
    check(status, "file");
    dah5_dataset_options opts;
    check(dah5_dataset_options_default(&opts), "options");
    opts.deflate_level = (uint32_t)atoi(argv[7]);
    if (opts.deflate_level)
        opts.flags |= DAH5_SHUFFLE;
    if (strcmp(how, "create-subfiled") == 0) {
        check(dah5_darray_create(file, name, t->code, ndims, dims, offset, count, DAH5_DARRAY_SUBFILED, NULL, &ds),
              "darray_create");
        /* The block in two steps along dimension 0 (in the handle's order): the first half of
         * its rows... */
        uint64_t half[DAH5_MAX_NDIMS], rest_offset[DAH5_MAX_NDIMS], rest[DAH5_MAX_NDIMS];
        memcpy(half, count, sizeof count);
        memcpy(rest, count, sizeof count);
        memcpy(rest_offset, offset, sizeof offset);
        uint32_t split = forder ? ndims - 1 : 0; /* the slowest dimension: contiguous halves */
        half[split] = count[split] / 2;
        rest[split] = count[split] - half[split];
        rest_offset[split] = offset[split] + half[split];
        uint64_t first = n / (count[split] ? count[split] : 1) * half[split];
        check(dah5_write_block(ds, offset, half, t->code, first ? buf : NULL, 0), "write first half");
        check(dah5_write_block(ds, rest_offset, rest, t->code, n - first ? buf + first * t->size : NULL, 0),
              "write second half");
        /* ...and a write outside this rank's block is refused (the next rank's block). */
        uint64_t one[DAH5_MAX_NDIMS];
        for (uint32_t d = 0; d < ndims; d++)
            one[d] = 1;
        uint64_t elsewhere[DAH5_MAX_NDIMS] = {0};
        elsewhere[split] = (offset[split] + count[split]) % dims[split];
        if (n && (elsewhere[split] < offset[split] || elsewhere[split] >= offset[split] + count[split]))
            expect_status(dah5_write_block(ds, elsewhere, one, t->code, buf, 0), DAH5_ERR_OUT_OF_BOUNDS,
                          "own block", "a write outside the rank's subfiled block");
        /* Not complete until closed: dah5 refuses to read it. */
        if (n)
            expect_status(dah5_read_block(ds, offset, one, t->code, buf, 0), DAH5_ERR_INVALID_ARGUMENT,
                          "not complete", "a read before the close");
    } else {
        uint32_t flags = strcmp(how, "write-subfiled") == 0 ? DAH5_DARRAY_SUBFILED : 0;
        check(dah5_darray_write(file, name, t->code, ndims, dims, offset, count, n ? buf : NULL, flags,
                                flags ? NULL : &opts, &ds),
              "darray_write");
    }
    uint32_t nblocks = 0;
    check(dah5_darray_blocks(ds, 0, &nblocks, NULL, NULL), "darray_blocks");
    expect(nblocks == (uint32_t)size_g, "one block per rank in the table");
    if (strcmp(how, "write") != 0) /* subfiled: the flush fsyncs the node's subfile too */
        check(dah5_file_flush(file), "flush");
    if (strcmp(how, "create-subfiled") == 0 && getenv("DAH5_TEST_FAULT")) {
        /* A rank whose subfile failed (on purpose): every rank's close says so. */
        expect_status(dah5_dataset_close(&ds), DAH5_ERR_IO, "incomplete",
                      "the close of a subfiled darray with a failed subfile");
        expect(ds == NULL, "the handle is closed all the same");
        printf("rank %d: darray left incomplete\n", rank_g);
    } else if (strcmp(how, "create-subfiled") == 0) {
        check(dah5_dataset_close(&ds), "dataset_close (marks the subfiled darray complete)");
    }
    check(dah5_file_close(&file), "close");
    printf("rank %d: wrote block offset[0] %llu count[0] %llu of %s\n", rank_g,
           (unsigned long long)offset[0], (unsigned long long)count[0], name);
    free(buf);
    return 0;
}

static dah5_dataset *open_for_read(const char *path, const char *name, const char *order, dah5_file **file)
{
    dah5_dataset *ds = NULL;
    check(dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDONLY | order_flag(order), file), "open");
    check(dah5_dataset_open(*file, name, &ds), "dataset_open");
    return ds;
}

static int read_mode(char **argv, int by_table)
{
    const struct dtype_info *t = dtype_by_name(argv[4]);
    int forder = order_flag(argv[5]) != 0;
    dah5_file *file = NULL;
    dah5_dataset *ds = open_for_read(argv[2], argv[3], argv[5], &file);
    uint32_t ndims;
    uint64_t dims[DAH5_MAX_NDIMS];
    check(dah5_dataset_ndims(ds, &ndims), "ndims");
    check(dah5_dataset_dims(ds, DAH5_MAX_NDIMS, dims), "dims");
    uint64_t wrong = 0, elements = 0, total = 1;
    for (uint32_t d = 0; d < ndims; d++)
        total *= dims[d];
    if (by_table) {
        uint32_t nblocks = 0;
        check(dah5_darray_blocks(ds, 0, &nblocks, NULL, NULL), "blocks count");
        uint64_t *offsets = calloc((size_t)nblocks * ndims, 8), *counts = calloc((size_t)nblocks * ndims, 8);
        if (nblocks > 1) {
            int32_t small = dah5_darray_blocks(ds, nblocks - 1, &nblocks, offsets, counts);
            expect_status(small, DAH5_ERR_INVALID_ARGUMENT, "capacity", "blocks with too small a capacity");
        }
        check(dah5_darray_blocks(ds, nblocks, &nblocks, offsets, counts), "blocks");
        for (uint32_t b = (uint32_t)rank_g; b < nblocks; b += (uint32_t)size_g) {
            wrong += verify(ds, t, ndims, dims, offsets + b * ndims, counts + b * ndims, forder, 0);
            uint64_t n = 1;
            for (uint32_t d = 0; d < ndims; d++)
                n *= counts[b * ndims + d];
            elements += n;
        }
        free(offsets);
        free(counts);
    } else {
        uint64_t offset[DAH5_MAX_NDIMS], count[DAH5_MAX_NDIMS], n = 1;
        check(dah5_darray_partition(ds, rank_g, size_g, offset, count), "partition");
        for (uint32_t d = 0; d < ndims; d++)
            n *= count[d];
        wrong += verify(ds, t, ndims, dims, offset, count, forder, DAH5_COLLECTIVE);
        elements += n;
        expect_status(dah5_darray_partition(ds, size_g, size_g, offset, count), DAH5_ERR_INVALID_ARGUMENT,
                      "rank", "partition for a rank out of range");
    }
    check(dah5_file_close(&file), "close");
    uint64_t all_elements = 0, all_wrong = 0;
    MPI_Allreduce(&elements, &all_elements, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&wrong, &all_wrong, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    expect(all_elements == total, "the blocks read cover the array exactly once");
    expect(all_wrong == 0, "every element read equals the pattern");
    if (rank_g == 0)
        printf("read %llu of %llu elements by %s on %d ranks, %llu wrong\n",
               (unsigned long long)all_elements, (unsigned long long)total,
               by_table ? "table" : "partition", size_g, (unsigned long long)all_wrong);
    return 0;
}

/* Rejected decompositions of a (8, 6) int32 array: same status on every rank, nothing
 * created. Needs at least 2 ranks. */
static int bad_mode(char **argv)
{
    const char *path = argv[2], *which = argv[3];
    dah5_file *file = NULL;
    dah5_dataset *ds = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &file), "create");
    uint64_t dims[2] = {8, 6}, offset[2], count[2];
    /* A valid row split, then spoiled on rank 1 (overlap, outside) or rank 0 (gap). */
    offset[0] = 8 * (uint64_t)rank_g / (uint64_t)size_g;
    count[0] = 8 * (uint64_t)(rank_g + 1) / (uint64_t)size_g - offset[0];
    offset[1] = 0;
    count[1] = 6;
    int32_t want = DAH5_ERR_INVALID_ARGUMENT;
    const char *needle = NULL;
    uint32_t flags = 0;
    dah5_dataset_options opts;
    check(dah5_dataset_options_default(&opts), "options");
    if (strcmp(which, "overlap") == 0) {
        if (rank_g == 1)
            offset[0] -= 1, count[0] += 1;
        needle = "rank 0's block offset [0, 0] count [";
    } else if (strcmp(which, "outside") == 0) {
        if (rank_g == 1)
            offset[1] = 1;
        want = DAH5_ERR_OUT_OF_BOUNDS;
        needle = "rank 1's block offset";
    } else if (strcmp(which, "gap") == 0) {
        if (rank_g == 0)
            count[0] = 0;
        needle = "DAH5_DARRAY_PARTIAL";
    } else if (strcmp(which, "partial") == 0) {
        if (rank_g == 0)
            count[0] = 0;
        flags = DAH5_DARRAY_PARTIAL;
        want = DAH5_OK;
    } else if (strcmp(which, "subfiled-compressed") == 0) {
        opts.deflate_level = 4;
        flags = DAH5_DARRAY_SUBFILED;
        needle = "DAH5_DARRAY_SUBFILED takes no chunks, compression";
    } else {
        want = DAH5_OK; /* independent-compressed: a valid darray first */
    }
    uint64_t n = count[0] * count[1];
    int32_t *buf = calloc(n + 1, 4);
    pattern_fill(DAH5_INT32, 4, 2, dims, offset, count, 0, buf);
    int32_t status = dah5_darray_write(file, "bad", DAH5_INT32, 2, dims, offset, count, n ? buf : NULL,
                                       flags, &opts, &ds);
    expect_status(status, want, needle, which);
    /* The message after its "dah5_darray_write (rank r of n): ", which every rank must
     * have alike (the blocks are checked on rank 0 and its verdict sent to all). */
    char message[1024] = "";
    const char *said = strstr(dah5_last_error_message(), "): ");
    if (status != DAH5_OK)
        snprintf(message, sizeof message, ": %s", said ? said + 3 : "?");
    if (want != DAH5_OK) {
        /* Nothing was created: the name is still free. */
        dah5_dataset *again = NULL;
        expect_status(dah5_dataset_open(file, "bad", &again), DAH5_ERR_NOT_FOUND, NULL,
                      "the rejected dataset does not exist");
    } else {
        check(dah5_dataset_close(&ds), "close dataset");
    }
    if (strcmp(which, "independent-compressed") == 0) {
        opts.deflate_level = 4;
        check(dah5_dataset_create(file, "z", DAH5_INT32, 2, dims, &opts, &ds), "create compressed");
        expect_status(dah5_write_block(ds, offset, count, DAH5_INT32, n ? buf : NULL, DAH5_INDEPENDENT),
                      DAH5_ERR_INVALID_ARGUMENT, "DAH5_COLLECTIVE", "independent write of a compressed dataset");
        check(dah5_write_block(ds, offset, count, DAH5_INT32, n ? buf : NULL, DAH5_COLLECTIVE), "collective");
        expect(verify(ds, &DTYPES[2], 2, dims, offset, count, 0, 0) == 0, "compressed values read back");
    }
    check(dah5_file_close(&file), "close");
    free(buf);
    /* The lines are long, and a launcher may split lines printed at once into each other. */
    char line[1200];
    snprintf(line, sizeof line, "rank %d: %s: %s%s\n", rank_g, which, dah5_status_name(status), message);
    print_in_rank_order(line);
    return 0;
}

/* One scalar and one 3-element array of every dtype, on "/", a group and a dataset, and
 * strings; read back (all ranks, then rank 1 alone), and the error cases. */
static int attrs_mode(char **argv)
{
    dah5_file *file = NULL;
    dah5_dataset *ds = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, argv[2], DAH5_TRUNC, &file), "create");
    uint64_t dims[1] = {4};
    check(dah5_dataset_create(file, "grp/data", DAH5_FLOAT64, 1, dims, NULL, &ds), "dataset");
    const char *objects[3] = {"/", "grp", "grp/data"};
    char name[64];
    unsigned char buf[3 * 16], got[3 * 16];
    for (int o = 0; o < 3; o++)
        for (size_t i = 0; i < sizeof DTYPES / sizeof DTYPES[0]; i++) {
            const struct dtype_info *t = &DTYPES[i];
            for (uint64_t k = 0; k < 3; k++)
                pattern_value(t->code, 7 + k, buf + k * t->size);
            snprintf(name, sizeof name, "scalar_%s", t->name);
            check(dah5_attr_write(file, objects[o], name, t->code, 0, 1, buf), name);
            snprintf(name, sizeof name, "array_%s", t->name);
            check(dah5_attr_write(file, objects[o], name, t->code, 1, 3, buf), name);
        }
    const char *text = "tempête ☂ 42";
    for (int o = 0; o < 3; o++)
        check(dah5_attr_write_string(file, objects[o], "title", text), "string");
    /* Replacing an attribute keeps one, with the new value. */
    check(dah5_attr_write_string(file, "/", "title", text), "replace");
    /* Reads: every rank, and then rank 1 alone (a local call). */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && rank_g != 1 % size_g)
            continue;
        for (int o = 0; o < 3; o++)
            for (size_t i = 0; i < sizeof DTYPES / sizeof DTYPES[0]; i++) {
                const struct dtype_info *t = &DTYPES[i];
                for (uint64_t k = 0; k < 3; k++)
                    pattern_value(t->code, 7 + k, buf + k * t->size);
                int32_t dtype = 0;
                uint64_t count = 0;
                snprintf(name, sizeof name, "array_%s", t->name);
                check(dah5_attr_info(file, objects[o], name, &dtype, &count), "info");
                expect(dtype == t->code && count == 3, "attr_info of an array");
                check(dah5_attr_read(file, objects[o], name, t->code, 3, got, &count), name);
                expect(count == 3 && memcmp(got, buf, 3 * t->size) == 0, "array values");
                snprintf(name, sizeof name, "scalar_%s", t->name);
                check(dah5_attr_read(file, objects[o], name, t->code, 1, got, &count), name);
                expect(count == 1 && memcmp(got, buf, t->size) == 0, "scalar value");
            }
        char small[8], big[64];
        size_t len = 0;
        int32_t dtype = 0;
        uint64_t count = 0;
        check(dah5_attr_info(file, "grp", "title", &dtype, &count), "string info");
        expect(dtype == DAH5_STRING && count == strlen(text), "string info says DAH5_STRING and its length");
        check(dah5_attr_read_string(file, "grp/data", "title", big, sizeof big, &len), "read string");
        expect(len == strlen(text) && strcmp(big, text) == 0, "string value");
        expect_status(dah5_attr_read_string(file, "/", "title", small, sizeof small, &len),
                      DAH5_ERR_INVALID_ARGUMENT, "len = 8", "string into a small buffer");
        expect_status(dah5_attr_read(file, "/", "array_float64", DAH5_FLOAT64, 2, got, &count),
                      DAH5_ERR_INVALID_ARGUMENT, "room for 2", "array into a small buffer");
        expect_status(dah5_attr_read(file, "/", "array_float64", DAH5_INT32, 3, got, &count),
                      DAH5_ERR_TYPE_MISMATCH, "float64", "array read as another dtype");
        expect_status(dah5_attr_read(file, "/", "nothing", DAH5_INT32, 3, got, &count),
                      DAH5_ERR_NOT_FOUND, "does not exist", "missing attribute");
        expect_status(dah5_attr_info(file, "nowhere", "title", &dtype, &count), DAH5_ERR_NOT_FOUND, NULL,
                      "attribute of a missing object");
    }
    /* Collective checks: ranks disagreeing on a value; a bad shape on one rank. */
    double mine = rank_g == 0 ? 1.0 : 2.0;
    expect_status(dah5_attr_write(file, "/", "differs", DAH5_FLOAT64, 0, 1, &mine),
                  size_g > 1 ? DAH5_ERR_COLLECTIVE_MISMATCH : DAH5_OK, NULL, "ranks writing different values");
    expect_status(dah5_attr_write(file, "/", "shape", DAH5_FLOAT64, rank_g == 0 ? 2 : 0, 1, &mine),
                  DAH5_ERR_INVALID_ARGUMENT, NULL, "ndims 2 on rank 0");
    check(dah5_file_close(&file), "close");
    printf("rank %d: attributes checked\n", rank_g);
    return 0;
}

/* A (t, 6, 5) float64 series: created empty with max dims (UNLIMITED, 6, 5), grown one step
 * at a time; each rank writes its rows of the new step. */
static int series_mode(char **argv)
{
    int steps = atoi(argv[3]);
    dah5_file *file = NULL;
    dah5_dataset *ds = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, argv[2], DAH5_TRUNC, &file), "create");
    dah5_dataset_options opts;
    check(dah5_dataset_options_default(&opts), "options");
    opts.max_ndims = 3;
    opts.max_dims[0] = DAH5_UNLIMITED;
    opts.max_dims[1] = 6;
    opts.max_dims[2] = 5;
    uint64_t dims[3] = {0, 6, 5};
    check(dah5_dataset_create(file, "series", DAH5_FLOAT64, 3, dims, &opts, &ds), "create series");
    for (int t = 0; t < steps; t++) {
        dims[0] = (uint64_t)t + 1;
        check(dah5_dataset_extend(ds, 3, dims), "extend");
        uint64_t offset[3] = {(uint64_t)t, 6 * (uint64_t)rank_g / (uint64_t)size_g, 0};
        uint64_t count[3] = {1, 6 * (uint64_t)(rank_g + 1) / (uint64_t)size_g - offset[1], 5};
        double step[30];
        pattern_fill(DAH5_FLOAT64, 8, 3, (uint64_t[]){(uint64_t)steps, 6, 5}, offset, count, 0, step);
        check(dah5_write_block(ds, offset, count, DAH5_FLOAT64, count[1] ? step : NULL, 0), "write step");
    }
    uint64_t got[3];
    check(dah5_dataset_dims(ds, 3, got), "dims");
    expect(got[0] == (uint64_t)steps, "the series has every step");
    /* Beyond max dims on one rank: out of bounds on all, nothing changed. */
    uint64_t too_wide[3] = {(uint64_t)steps, rank_g == size_g - 1 ? 7 : 6, 5};
    expect_status(dah5_dataset_extend(ds, 3, too_wide), DAH5_ERR_OUT_OF_BOUNDS,
                  size_g == 1 || rank_g == size_g - 1 ? "exceeds the maximum 6" : "rejected its arguments",
                  "extend beyond max dims on the last rank");
    /* Shrinking would discard steps: refused on every rank, nothing changed (h5py checks
     * every step afterwards). */
    uint64_t fewer[3] = {(uint64_t)steps - 1, 6, 5};
    expect_status(dah5_dataset_extend(ds, 3, fewer), DAH5_ERR_INVALID_ARGUMENT, "only grows a dataset",
                  "extend to fewer steps");
    check(dah5_dataset_dims(ds, 3, got), "dims after the refused shrink");
    expect(got[0] == (uint64_t)steps, "the series still has every step");
    uint64_t fixed[1] = {4};
    dah5_dataset *plain = NULL;
    check(dah5_dataset_create(file, "fixed", DAH5_FLOAT64, 1, fixed, NULL, &plain), "fixed");
    fixed[0] = 5;
    expect_status(dah5_dataset_extend(plain, 1, fixed), DAH5_ERR_OUT_OF_BOUNDS, "only datasets created with max_dims grow",
                  "extend a fixed dataset");
    check(dah5_file_close(&file), "close");
    printf("rank %d: %d steps\n", rank_g, steps);
    return 0;
}

/* Atomic mode: a value rank 0 writes is what rank 1 reads after a barrier, every time. */
static int atomic_mode(char **argv)
{
    dah5_file_options fo;
    check(dah5_file_options_default(&fo), "options");
    fo.flags = DAH5_ATOMIC;
    dah5_file *file = NULL;
    dah5_dataset *ds = NULL;
    check(dah5_file_create_with_comm(MPI_COMM_WORLD, argv[2], DAH5_TRUNC, &fo, &file), "create");
    uint64_t dims[1] = {16}, offset[1] = {3}, count[1] = {1};
    check(dah5_dataset_create(file, "cell", DAH5_INT64, 1, dims, NULL, &ds), "dataset");
    int seen = 0, rounds = 50;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) /* the setter, off and on again */
            check(dah5_file_set_atomic(file, 0), "atomic off"), check(dah5_file_set_atomic(file, 1), "atomic on");
        for (int64_t round = 0; round < rounds; round++) {
            int64_t value = 1000 * (pass + 1) + round;
            if (rank_g == 0)
                check(dah5_write_block(ds, offset, count, DAH5_INT64, &value, 0), "write");
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank_g == 1 % size_g) {
                int64_t got = -1;
                check(dah5_read_block(ds, offset, count, DAH5_INT64, &got, 0), "read");
                seen += got == value;
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    expect_status(dah5_file_set_atomic(file, 2), DAH5_ERR_INVALID_ARGUMENT, "atomic = 2", "atomic = 2");
    check(dah5_file_close(&file), "close");
    if (rank_g == 1 % size_g) {
        expect(seen == 2 * rounds, "every value written by rank 0 was seen by rank 1");
        printf("rank %d: saw %d of %d values in atomic mode\n", rank_g, seen, 2 * rounds);
    }
    return 0;
}

static int handoff_mode(char **argv)
{
    enum { ROWS = 64, COLS = 1000, ROUNDS = 5 }; /* 512,000 bytes: pages, and a part of one */
    dah5_file *file = NULL;
    dah5_dataset *ds = NULL;
    check(dah5_file_create_with_comm(MPI_COMM_WORLD, argv[2], DAH5_TRUNC, NULL, &file), "create");
    uint64_t dims[2] = {ROWS, COLS}, offset[2] = {0, 0};
    check(dah5_dataset_create(file, "handoff", DAH5_INT64, 2, dims, NULL, &ds), "dataset");
    int64_t *values = malloc(sizeof *values * ROWS * COLS);
    long stale = 0;
    for (int64_t round = 1; round <= ROUNDS; round++) {
        /* Read first, so that whatever this rank's host caches holds the old values. */
        check(dah5_read_block(ds, offset, dims, DAH5_INT64, values, 0), "read before the write");
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank_g == 0) {
            for (int64_t i = 0; i < ROWS * COLS; i++)
                values[i] = 1000000 * round + i;
            check(dah5_write_block(ds, offset, dims, DAH5_INT64, values, 0), "write");
        }
        check(dah5_file_flush(file), "flush");
        check(dah5_read_block(ds, offset, dims, DAH5_INT64, values, 0), "read after the flush");
        for (int64_t i = 0; i < ROWS * COLS; i++)
            stale += values[i] != 1000000 * round + i;
    }
    free(values);
    check(dah5_dataset_close(&ds), "close dataset");
    check(dah5_file_close(&file), "close");
    expect(stale == 0, "each round's values, written by rank 0, read after the flush");
    printf("rank %d: read %d rounds written by rank 0 after each flush: %ld stale elements\n",
           rank_g, ROUNDS, stale);
    return 0;
}

static int hints_mode(char **argv)
{
    dah5_file_options fo;
    check(dah5_file_options_default(&fo), "options");
    fo.mpi_hints = "romio_cb_write=enable; cb_buffer_size=1048576;romio_ds_write=disable";
    fo.meta_block_size = 65536;
    fo.metadata_cache_bytes = 4 << 20;
    dah5_file *file = NULL;
    dah5_dataset *ds = NULL;
    check(dah5_file_create_with_comm(MPI_COMM_WORLD, argv[2], DAH5_TRUNC, &fo, &file), "create with hints");
    uint64_t dims[1] = {64}, offset[1], count[1];
    offset[0] = 64 * (uint64_t)rank_g / (uint64_t)size_g;
    count[0] = 64 * (uint64_t)(rank_g + 1) / (uint64_t)size_g - offset[0];
    double buf[64];
    pattern_fill(DAH5_FLOAT64, 8, 1, dims, offset, count, 0, buf);
    check(dah5_dataset_create(file, "h", DAH5_FLOAT64, 1, dims, NULL, &ds), "dataset");
    check(dah5_write_block(ds, offset, count, DAH5_FLOAT64, buf, DAH5_COLLECTIVE), "write");
    check(dah5_file_close(&file), "close");
    check(dah5_file_open_with_comm(MPI_COMM_WORLD, argv[2], DAH5_RDONLY, &fo, &file), "open with hints");
    check(dah5_dataset_open(file, "h", &ds), "open");
    expect(verify(ds, &DTYPES[9], 1, dims, offset, count, 0, DAH5_COLLECTIVE) == 0, "values with hints");
    /* A plain dataset has no block table, and reads back by partition all the same. */
    uint32_t nblocks = 0;
    expect_status(dah5_darray_blocks(ds, 0, &nblocks, NULL, NULL), DAH5_ERR_NOT_FOUND, "no block table",
                  "blocks of a plain dataset");
    uint64_t part_offset[1], part_count[1];
    check(dah5_darray_partition(ds, size_g - 1 - rank_g, size_g, part_offset, part_count), "partition");
    expect(verify(ds, &DTYPES[9], 1, dims, part_offset, part_count, 0, 0) == 0, "partition of a plain dataset");
    check(dah5_file_close(&file), "close");
    fo.mpi_hints = rank_g == size_g - 1 ? "romio_cb_write" : "romio_cb_write=enable";
    expect_status(dah5_file_open_with_comm(MPI_COMM_WORLD, argv[2], DAH5_RDONLY, &fo, &file),
                  DAH5_ERR_INVALID_ARGUMENT, NULL, "a hint without a value on the last rank");
    printf("rank %d: hints checked\n", rank_g);
    return 0;
}

/* A darray write that fails after its dataset was created (the step DAH5_TEST_FAULT names,
 * on rank `failing`): the same status on every rank, no handle, and no dataset left. */
static int rollback_mode(char **argv)
{
    int failing = atoi(argv[3]);
    dah5_file *file = NULL;
    dah5_dataset *ds = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, argv[2], DAH5_TRUNC, &file), "create");
    uint64_t dims[2] = {2 * (uint64_t)size_g, 3}, offset[2] = {2 * (uint64_t)rank_g, 0}, count[2] = {2, 3};
    double block[6] = {0};
    uint32_t flags = strcmp(argv[4], "subfiled") == 0 ? DAH5_DARRAY_SUBFILED : 0;
    int32_t status = dah5_darray_write(file, "lost", DAH5_FLOAT64, 2, dims, offset, count, block, flags, NULL, &ds);
    expect_status(status, DAH5_ERR_IO, rank_g == failing ? "failed on purpose" : "failed on another rank",
                  "a darray write with a failing step");
    expect(ds == NULL, "no handle from a failed darray write");
    expect_status(dah5_dataset_open(file, "lost", &ds), DAH5_ERR_NOT_FOUND, "\"lost\"", "nothing left behind");
    check(dah5_file_close(&file), "close");
    printf("rank %d: rolled back\n", rank_g);
    return 0;
}

/* A small netCDF-like file around a subfiled darray, for dah5 merge: a root attribute, a
 * coordinate variable lat(8), the subfiled darray temp(lat, lon) of 8 x 6 float64 written by
 * rows (ranks beyond 8 empty) with two attributes, and a plain dataset. */
static int named_mode(char **argv)
{
    dah5_file *file = NULL;
    dah5_dataset *lat = NULL, *temp = NULL, *plain = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, argv[2], DAH5_TRUNC, &file), "create");
    check(dah5_attr_write_string(file, "/", "title", "merge test"), "root attribute");
    uint64_t dims[2] = {8, 6}, offset[2] = {0, 0}, count[2] = {0, 6};
    double lats[8];
    for (int i = 0; i < 8; i++)
        lats[i] = -70.0 + 20.0 * i;
    check(dah5_dataset_create(file, "lat", DAH5_FLOAT64, 1, dims, NULL, &lat), "lat");
    uint64_t zero = 0, all = rank_g == 0 ? 8 : 0;
    check(dah5_write_block(lat, &zero, &all, DAH5_FLOAT64, all ? lats : NULL, 0), "lat values");
    offset[0] = 8 * (uint64_t)rank_g / (uint64_t)size_g;
    count[0] = 8 * (uint64_t)(rank_g + 1) / (uint64_t)size_g - offset[0];
    double buf[48];
    pattern_fill(DAH5_FLOAT64, 8, 2, dims, offset, count, 0, buf);
    check(dah5_darray_write(file, "temp", DAH5_FLOAT64, 2, dims, offset, count, count[0] ? buf : NULL,
                            DAH5_DARRAY_SUBFILED, NULL, &temp),
          "subfiled temp");
    const char *names[2] = {"lat", "lon"};
    check(dah5_dataset_set_dim_names(temp, 2, names), "dim names");
    check(dah5_attr_write_string(file, "temp", "units", "K"), "units");
    double scale = 0.5;
    check(dah5_attr_write(file, "temp", "scale_factor", DAH5_FLOAT64, 0, 1, &scale), "scale");
    int32_t steps[3] = {1, 2, 3};
    check(dah5_dataset_create(file, "grp/steps", DAH5_INT32, 1, (uint64_t[]){3}, NULL, &plain), "steps");
    uint64_t three = rank_g == 0 ? 3 : 0;
    check(dah5_write_block(plain, &zero, &three, DAH5_INT32, three ? steps : NULL, 0), "steps values");
    check(dah5_file_close(&file), "close");
    printf("rank %d: wrote the named file\n", rank_g);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_g);
    MPI_Comm_size(MPI_COMM_WORLD, &size_g);
    const char *mode = argc > 2 ? argv[1] : "";
    if ((strcmp(mode, "write") == 0 || strcmp(mode, "write-subfiled") == 0 ||
         strcmp(mode, "create-subfiled") == 0) && argc >= 10)
        write_mode(argc, argv, mode);
    else if (strcmp(mode, "read-table") == 0 && argc == 6)
        read_mode(argv, 1);
    else if (strcmp(mode, "read-partition") == 0 && argc == 6)
        read_mode(argv, 0);
    else if (strcmp(mode, "bad") == 0 && argc == 4)
        bad_mode(argv);
    else if (strcmp(mode, "attrs") == 0)
        attrs_mode(argv);
    else if (strcmp(mode, "series") == 0 && argc == 4)
        series_mode(argv);
    else if (strcmp(mode, "atomic") == 0)
        atomic_mode(argv);
    else if (strcmp(mode, "handoff") == 0)
        handoff_mode(argv);
    else if (strcmp(mode, "hints") == 0)
        hints_mode(argv);
    else if (strcmp(mode, "named") == 0 && argc == 3)
        named_mode(argv);
    else if (strcmp(mode, "rollback") == 0 && argc == 5)
        rollback_mode(argv);
    else {
        fprintf(stderr, "usage: see the comment at the top of tests/c/darray.c\n");
        failures_g++;
    }
    int failures = 0;
    MPI_Allreduce(&failures_g, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return failures ? 1 : 0;
}
