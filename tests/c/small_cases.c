/*
 * small_cases.c: what each rank gets for values that do not fit a conversion, unreadable
 * environment variables, a large numeric attribute, names that cannot be datasets, and
 * handles used after MPI_Finalize. Each check asserts the status and a piece of the
 * message; collective calls assert that every rank got the same status. Afterwards the
 * test opens CASE.h5 with h5py.
 *
 *   mpiexec -n 2|3 ./small_cases CASE DIR     CASE: convert, env, attr, names, finalized
 *
 * Prints "small_cases CASE: N checks a rank, F failures over R ranks"; exit 1 on a failure.
 */
#define _POSIX_C_SOURCE 200112L /* setenv */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "check.h"
#include "dah5_mpi.h"
#include "expect.h"

static void same(int equal, const char *what)
{
    checks++;
    if (!equal) {
        fprintf(stderr, "rank %d: FAIL %s\n", rank, what);
        failures++;
    }
}

/* ---- conversions: a value the memory type cannot hold is refused, read or written ---- */

/* The stored float64 values, element by element. */
enum { NAN_AT, MINUS_NAN_AT, INF_AT, MINUS_INF_AT, BIG_AT, FRACTION_AT, MINUS_HALF_AT, EDGE_AT, HUGE_AT, NSPECIAL };

static void special_values(double *v)
{
    v[NAN_AT] = NAN;
    v[MINUS_NAN_AT] = -NAN;
    v[INF_AT] = INFINITY;
    v[MINUS_INF_AT] = -INFINITY;
    v[BIG_AT] = 3e9;
    v[FRACTION_AT] = 1.5;
    v[MINUS_HALF_AT] = -0.5;
    v[EDGE_AT] = 2147483647.5;
    v[HUGE_AT] = 1e39;
}

/* Read element `at` of `ds` into `mem_dtype`, independently: `want` the status. */
static void read_one(dah5_dataset *ds, uint64_t at, int32_t mem_dtype, void *out, int32_t want, const char *text,
                     const char *what)
{
    uint64_t off[1] = {at}, one[1] = {1};
    expect(dah5_read_block(ds, off, one, mem_dtype, out, DAH5_CONVERT), want, text, what);
}

static void convert(dah5_file *file)
{
    double v[NSPECIAL];
    special_values(v);
    uint64_t n[1] = {NSPECIAL}, zero[1] = {0}, none[1] = {0};
    dah5_dataset *special = NULL;
    ok(dah5_dataset_create(file, "special", DAH5_FLOAT64, 1, n, NULL, &special), "create special");
    ok(dah5_write_block(special, zero, rank == 0 ? n : none, DAH5_FLOAT64, rank == 0 ? v : NULL, DAH5_COLLECTIVE),
       "write the special values");
    ok(dah5_file_flush(file), "flush");
    MPI_Barrier(MPI_COMM_WORLD);

    /* NaN and -NaN into every integer width: refused (HDF5 gave INT_MIN, 0, INT64_MIN). */
    int32_t i32 = 7;
    uint8_t u8 = 7;
    int64_t i64 = 7;
    float f32 = 0;
    const int nans[2] = {NAN_AT, MINUS_NAN_AT};
    for (int k = 0; k < 2; k++) {
        read_one(special, nans[k], DAH5_INT32, &i32, DAH5_ERR_TYPE_MISMATCH, "holds NaN, which mem_dtype DAH5_INT32",
                 k ? "read -NaN into int32" : "read NaN into int32");
        read_one(special, nans[k], DAH5_UINT8, &u8, DAH5_ERR_TYPE_MISMATCH, "holds NaN, which mem_dtype DAH5_UINT8",
                 k ? "read -NaN into uint8" : "read NaN into uint8");
        read_one(special, nans[k], DAH5_INT64, &i64, DAH5_ERR_TYPE_MISMATCH, "holds NaN, which mem_dtype DAH5_INT64",
                 k ? "read -NaN into int64" : "read NaN into int64");
    }
    /* What was refused before stays refused. */
    read_one(special, INF_AT, DAH5_INT32, &i32, DAH5_ERR_TYPE_MISMATCH, "holds inf", "read +Inf into int32");
    read_one(special, MINUS_INF_AT, DAH5_INT64, &i64, DAH5_ERR_TYPE_MISMATCH, "holds -inf", "read -Inf into int64");
    read_one(special, BIG_AT, DAH5_INT32, &i32, DAH5_ERR_TYPE_MISMATCH, "holds 3e9", "read 3e9 into int32");
    read_one(special, HUGE_AT, DAH5_FLOAT32, &f32, DAH5_ERR_TYPE_MISMATCH, "holds 1e39, which mem_dtype DAH5_FLOAT32",
             "read 1e39 into float32");
    /* What fits once the fraction is dropped (as in a C cast, and as writes take it). */
    read_one(special, FRACTION_AT, DAH5_INT32, &i32, DAH5_OK, NULL, "read 1.5 into int32");
    same(i32 == 1, "1.5 read as int32 is 1");
    read_one(special, MINUS_HALF_AT, DAH5_UINT8, &u8, DAH5_OK, NULL, "read -0.5 into uint8");
    same(u8 == 0, "-0.5 read as uint8 is 0");
    read_one(special, EDGE_AT, DAH5_INT32, &i32, DAH5_OK, NULL, "read 2147483647.5 into int32");
    same(i32 == 2147483647, "2147483647.5 read as int32 is 2147483647");
    read_one(special, NAN_AT, DAH5_FLOAT32, &f32, DAH5_OK, NULL, "read NaN into float32");
    same(isnan(f32), "NaN read as float32 is NaN");
    read_one(special, INF_AT, DAH5_FLOAT32, &f32, DAH5_OK, NULL, "read +Inf into float32");
    same(isinf(f32) && f32 > 0, "+Inf read as float32 is +Inf");

    /* Collective: the last rank reads NaN, the others 1.5: every rank gets the status. */
    uint64_t mine[1] = {rank == size - 1 ? NAN_AT : FRACTION_AT}, one[1] = {1};
    char last[64];
    snprintf(last, sizeof last, "rank %d", size - 1);
    expect_all(dah5_read_block(special, mine, one, DAH5_INT32, &i32, DAH5_COLLECTIVE | DAH5_CONVERT),
               DAH5_ERR_TYPE_MISMATCH, rank == size - 1 ? "holds NaN" : last, "collective read, NaN on the last rank");
    ok(dah5_read_block(special, zero, none, DAH5_INT32, NULL, DAH5_COLLECTIVE | DAH5_CONVERT),
       "a collective read after it, nothing to read");

    /* Integers that do not fit a narrower integer, read. */
    int64_t wide[4] = {300, -1, (int64_t)1 << 40, 5};
    uint64_t four[1] = {4};
    dah5_dataset *ints = NULL;
    ok(dah5_dataset_create(file, "wide_ints", DAH5_INT64, 1, four, NULL, &ints), "create wide_ints");
    ok(dah5_write_block(ints, zero, rank == 0 ? four : none, DAH5_INT64, rank == 0 ? wide : NULL, DAH5_COLLECTIVE),
       "write wide_ints");
    ok(dah5_file_flush(file), "flush");
    MPI_Barrier(MPI_COMM_WORLD);
    int8_t i8 = 0;
    uint64_t u64 = 0;
    read_one(ints, 0, DAH5_INT8, &i8, DAH5_ERR_TYPE_MISMATCH, "holds 300, which mem_dtype DAH5_INT8", "read 300 into int8");
    read_one(ints, 1, DAH5_UINT8, &u8, DAH5_ERR_TYPE_MISMATCH, "holds -1", "read -1 into uint8");
    read_one(ints, 1, DAH5_UINT64, &u64, DAH5_ERR_TYPE_MISMATCH, "holds -1", "read -1 into uint64");
    read_one(ints, 2, DAH5_INT32, &i32, DAH5_ERR_TYPE_MISMATCH, "holds 1099511627776", "read 2^40 into int32");
    read_one(ints, 1, DAH5_INT8, &i8, DAH5_OK, NULL, "read -1 into int8");
    same(i8 == -1, "-1 read as int8 is -1");

    /* Writes: refused before anything is written, NaN of either sign included. */
    dah5_dataset *narrow = NULL, *bytes = NULL, *singles = NULL;
    uint64_t me[1] = {(uint64_t)rank}, ranks[1] = {(uint64_t)size};
    ok(dah5_dataset_create(file, "int32s", DAH5_INT32, 1, ranks, NULL, &narrow), "create int32s");
    ok(dah5_dataset_create(file, "uint8s", DAH5_UINT8, 1, ranks, NULL, &bytes), "create uint8s");
    ok(dah5_dataset_create(file, "float32s", DAH5_FLOAT32, 1, ranks, NULL, &singles), "create float32s");
    int32_t seven = 7;
    ok(dah5_write_block(narrow, me, one, DAH5_INT32, &seven, DAH5_COLLECTIVE), "write 7 into int32s");
    for (int k = 0; k < 2; k++)
        expect_all(dah5_write_block(narrow, me, one, DAH5_FLOAT64, &v[nans[k]], DAH5_COLLECTIVE | DAH5_CONVERT),
                   DAH5_ERR_TYPE_MISMATCH, "(NaN) does not fit the dtype DAH5_INT32",
                   k ? "write -NaN into int32" : "write NaN into int32");
    expect_all(dah5_write_block(narrow, me, one, DAH5_FLOAT64, &v[INF_AT], DAH5_COLLECTIVE | DAH5_CONVERT),
               DAH5_ERR_TYPE_MISMATCH, "(inf) does not fit", "write +Inf into int32");
    expect_all(dah5_write_block(narrow, me, one, DAH5_FLOAT64, &v[BIG_AT], DAH5_COLLECTIVE | DAH5_CONVERT),
               DAH5_ERR_TYPE_MISMATCH, "(3e9) does not fit", "write 3e9 into int32");
    expect_all(dah5_write_block(narrow, me, one, DAH5_INT64, &wide[2], DAH5_COLLECTIVE | DAH5_CONVERT),
               DAH5_ERR_TYPE_MISMATCH, "(1099511627776) does not fit", "write 2^40 from int64 into int32");
    expect_all(dah5_write_block(bytes, me, one, DAH5_INT64, &wide[0], DAH5_COLLECTIVE | DAH5_CONVERT),
               DAH5_ERR_TYPE_MISMATCH, "(300) does not fit the dtype DAH5_UINT8", "write 300 from int64 into uint8");
    expect_all(dah5_write_block(singles, me, one, DAH5_FLOAT64, &v[HUGE_AT], DAH5_COLLECTIVE | DAH5_CONVERT),
               DAH5_ERR_TYPE_MISMATCH, "(1e39) does not fit the dtype DAH5_FLOAT32", "write 1e39 into float32");
    ok(dah5_write_block(bytes, me, one, DAH5_FLOAT64, &v[MINUS_HALF_AT], DAH5_COLLECTIVE | DAH5_CONVERT),
       "write -0.5 into uint8 (0)");
    ok(dah5_write_block(singles, me, one, DAH5_FLOAT64, &v[NAN_AT], DAH5_COLLECTIVE | DAH5_CONVERT),
       "write NaN into float32");

    /* A darray written with NaN in the last rank's block, read back converted: the same,
     * through the dataset and through the subfiles of a subfiled darray. */
    const char *darrays[2] = {"darray", "subfiled"};
    for (int k = 0; k < 2; k++) {
        dah5_dataset *d = NULL;
        double block[2] = {rank, rank == size - 1 ? NAN : rank + 0.5};
        uint64_t dims[1] = {2 * (uint64_t)size}, off[1] = {2 * (uint64_t)rank}, cnt[1] = {2};
        ok(dah5_darray_write(file, darrays[k], DAH5_FLOAT64, 1, dims, off, cnt, block,
                             k ? DAH5_DARRAY_SUBFILED : DAH5_COLLECTIVE, NULL, &d),
           "darray write with NaN on the last rank");
        ok(dah5_dataset_close(&d), "close the darray");
        ok(dah5_file_flush(file), "flush");
        MPI_Barrier(MPI_COMM_WORLD);
        ok(dah5_dataset_open(file, darrays[k], &d), "open the darray");
        int32_t back[2] = {0, 0};
        expect(dah5_read_block(d, off, cnt, DAH5_INT32, back, DAH5_CONVERT), rank == size - 1 ? DAH5_ERR_TYPE_MISMATCH : DAH5_OK,
               "holds NaN", k ? "subfiled darray read into int32" : "darray read into int32");
        expect_all(dah5_read_block(d, off, cnt, DAH5_INT32, back, DAH5_CONVERT | DAH5_COLLECTIVE), DAH5_ERR_TYPE_MISMATCH,
                   rank == size - 1 ? "holds NaN" : last,
                   k ? "subfiled darray read into int32, collective" : "darray read into int32, collective");
        ok(dah5_dataset_close(&d), "close the darray");
    }
    ok(dah5_dataset_close(&special), "close special");
    ok(dah5_dataset_close(&ints), "close wide_ints");
    ok(dah5_dataset_close(&narrow), "close int32s");
    ok(dah5_dataset_close(&bytes), "close uint8s");
    ok(dah5_dataset_close(&singles), "close float32s");
}

/* ---- environment variables: a value dah5 cannot read is refused at create and open ---- */

struct bad_setting {
    const char *variable, *value, *accepted;
};

static const struct bad_setting BAD_SETTINGS[] = {
    {"DAH5_COLLECTIVE_TIMEOUT", "abc", "seconds"},
    {"DAH5_COLLECTIVE_TIMEOUT", "-5", "seconds"},
    {"DAH5_COLLECTIVE_TIMEOUT", "1e300", "seconds"},
    {"DAH5_CHECKS", "garbage", "on or off"},
    {"DAH5_SHARED_MEMORY", "maybe", "on or off"},
    {"DAH5_ERROR_STACK", "sometimes", "on or off"},
    {"DAH5_MAX_PIECE_BYTES", "lots", "positive number of bytes"},
    {"HDF5_DO_MPI_FILE_SYNC", "yes", "TRUE, 1, FALSE or 0"},
    {"DAH5_TEST_RANKS_PER_NODE", "0", "positive number of ranks"},
};

static void env(dah5_file **file, const char *path)
{
    dah5_file *never = NULL;
    for (size_t i = 0; i < sizeof BAD_SETTINGS / sizeof BAD_SETTINGS[0]; i++) {
        const struct bad_setting *s = &BAD_SETTINGS[i];
        /* Every other one on the last rank alone: the others must not be left out of step. */
        int alone = i % 2 == 1, mine = !alone || rank == size - 1;
        if (mine)
            setenv(s->variable, s->value, 1);
        char named[128], what[160], other[64];
        snprintf(named, sizeof named, "%s=\"%s\"", s->variable, s->value);
        snprintf(other, sizeof other, "rank %d rejected", size - 1);
        snprintf(what, sizeof what, "create with %s%s", named, alone ? " on the last rank" : "");
        expect_all(dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &never), DAH5_ERR_INVALID_ARGUMENT,
                   mine ? named : other, what);
        if (mine) {
            expect(DAH5_ERR_INVALID_ARGUMENT, DAH5_ERR_INVALID_ARGUMENT, s->accepted, "the message says what is accepted");
            unsetenv(s->variable);
        }
        same(never == NULL, "no handle made");
    }
    /* Open reads them too. */
    setenv("DAH5_CHECKS", "of", 1);
    expect_all(dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDONLY, &never), DAH5_ERR_INVALID_ARGUMENT,
               "DAH5_CHECKS=\"of\"", "open with DAH5_CHECKS=\"of\"");
    unsetenv("DAH5_CHECKS");
    /* Every accepted spelling works: the file is made, written and read back. */
    setenv("DAH5_COLLECTIVE_TIMEOUT", " 30 ", 1);
    setenv("DAH5_CHECKS", "ON", 1);
    setenv("DAH5_SHARED_MEMORY", "off", 1);
    setenv("DAH5_ERROR_STACK", "0", 1);
    setenv("DAH5_MAX_PIECE_BYTES", "16", 1);
    setenv("HDF5_DO_MPI_FILE_SYNC", "0", 1);
    ok(dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, file), "create with good values of every variable");
    setenv("DAH5_CHECKS", "", 1);
    setenv("DAH5_ERROR_STACK", "yes", 1);
    dah5_dataset *ds = NULL;
    uint64_t dims[1] = {4 * (uint64_t)size}, off[1] = {4 * (uint64_t)rank}, cnt[1] = {4};
    double mine[4] = {4 * rank, 4 * rank + 1, 4 * rank + 2, 4 * rank + 3};
    ok(dah5_dataset_create(*file, "x", DAH5_FLOAT64, 1, dims, NULL, &ds), "create x");
    ok(dah5_write_block(ds, off, cnt, DAH5_FLOAT64, mine, DAH5_COLLECTIVE), "write x in pieces of 16 bytes");
    ok(dah5_dataset_close(&ds), "close x");
}

/* ---- a numeric attribute larger than an object header holds ---- */

#define BIG_COUNT 131072 /* float64: 1 MiB */

static void attr(dah5_file *file)
{
    static double big[BIG_COUNT];
    for (int i = 0; i < BIG_COUNT; i++)
        big[i] = i;
    dah5_dataset *ds = NULL;
    uint64_t dims[1] = {(uint64_t)size};
    ok(dah5_dataset_create(file, "x", DAH5_FLOAT64, 1, dims, NULL, &ds), "create x");
    double small = 2.5;
    ok(dah5_attr_write(file, "x", "table", DAH5_FLOAT64, 0, 1, &small), "a small attribute first");
    /* Where the file's format keeps large attributes apart (HDF5 2.x's default), they are
     * stored; elsewhere (HDF5 1.10 and 1.14) refused before HDF5 is called, naming the limit
     * and the way out, and the attribute of that name is left as it was. */
    int dense = getenv("SMALL_CASES_DENSE") != NULL;
    int32_t want = dense ? DAH5_OK : DAH5_ERR_UNSUPPORTED;
    const char *said = "64 KiB";
    expect_all(dah5_attr_write(file, "/", "big", DAH5_FLOAT64, 1, BIG_COUNT, big), want, said, "1 MiB float64 on the root");
    expect(want, want, "as a dataset", "the message says what to do instead");
    expect_all(dah5_attr_write(file, "x", "table", DAH5_FLOAT64, 1, BIG_COUNT, big), want, said,
               "1 MiB float64 replacing a scalar on a dataset");
    expect_all(dah5_attr_write(file, "x", "fits", DAH5_FLOAT64, 1, 8000, big), DAH5_OK, NULL, "64000 bytes fit");
    expect_all(dah5_attr_write(file, "x", "complex", DAH5_COMPLEX128, 1, BIG_COUNT / 2, big), want, said,
               "1 MiB complex128");
    /* A string is kept outside the object header: 1 MiB works everywhere. */
    char *text = malloc(BIG_COUNT * 8 + 1);
    memset(text, 'a', BIG_COUNT * 8);
    text[BIG_COUNT * 8] = '\0';
    ok(dah5_attr_write_string(file, "/", "text", text), "a 1 MiB string");
    free(text);
    double back = 0;
    int32_t dtype = 0;
    uint64_t count = 0;
    ok(dah5_attr_info(file, "x", "table", &dtype, &count), "info of x.table");
    if (!dense) {
        ok(dah5_attr_read(file, "x", "table", DAH5_FLOAT64, 1, &back, &count), "read x.table");
        same(count == 1 && back == 2.5, "the refused write left the old value");
    } else
        same(count == BIG_COUNT, "the large value replaced it");
    ok(dah5_dataset_close(&ds), "close x");
}

/* ---- names that cannot be datasets say what is wrong with the name ---- */

static void names(dah5_file *file)
{
    uint64_t dims[1] = {(uint64_t)size}, off[1] = {(uint64_t)rank}, one[1] = {1};
    double value = rank, unit = 1.0;
    dah5_dataset *ds = NULL, *never = NULL;
    ok(dah5_dataset_create(file, "x", DAH5_FLOAT64, 1, dims, NULL, &ds), "create x");
    ok(dah5_write_block(ds, off, one, DAH5_FLOAT64, &value, DAH5_COLLECTIVE), "write x");
    struct {
        const char *name;
        int32_t create, open;
        const char *says;
    } cases[] = {
        {".", DAH5_ERR_INVALID_ARGUMENT, DAH5_ERR_INVALID_ARGUMENT, "name \".\" "},
        {"g/./y", DAH5_ERR_INVALID_ARGUMENT, DAH5_ERR_INVALID_ARGUMENT, "name \"g/./y\" "},
        {"a//b", DAH5_ERR_INVALID_ARGUMENT, DAH5_ERR_INVALID_ARGUMENT, "two '/' in a row"},
        {"x/sub", DAH5_ERR_INVALID_ARGUMENT, DAH5_ERR_NOT_FOUND, "\"x\" is a dataset"},
        {"/x/sub/deeper", DAH5_ERR_INVALID_ARGUMENT, DAH5_ERR_NOT_FOUND, "\"/x\" is a dataset"},
        {"dah5_blocks", DAH5_ERR_INVALID_ARGUMENT, DAH5_ERR_NOT_FOUND, "dah5_blocks"},
        {"/dah5_blocks/y", DAH5_ERR_INVALID_ARGUMENT, DAH5_ERR_NOT_FOUND, "/dah5_blocks"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char what[128];
        snprintf(what, sizeof what, "dataset create \"%s\"", cases[i].name);
        expect_all(dah5_dataset_create(file, cases[i].name, DAH5_FLOAT64, 1, dims, NULL, &never), cases[i].create,
                   cases[i].says, what);
        snprintf(what, sizeof what, "dataset open \"%s\"", cases[i].name);
        expect_all(dah5_dataset_open(file, cases[i].name, &never), cases[i].open, cases[i].says, what);
        snprintf(what, sizeof what, "darray write \"%s\"", cases[i].name);
        expect_all(dah5_darray_write(file, cases[i].name, DAH5_FLOAT64, 1, dims, off, one, &value, 0, NULL, &never),
                   cases[i].create, cases[i].says, what);
        snprintf(what, sizeof what, "darray create \"%s\"", cases[i].name);
        expect_all(dah5_darray_create(file, cases[i].name, DAH5_FLOAT64, 1, dims, off, one, 0, NULL, &never),
                   cases[i].create, cases[i].says, what);
        snprintf(what, sizeof what, "attribute on \"%s\"", cases[i].name);
        expect_all(dah5_attr_write(file, cases[i].name, "units", DAH5_FLOAT64, 0, 1, &unit), cases[i].open,
                   cases[i].says, what);
        snprintf(what, sizeof what, "attribute info on \"%s\"", cases[i].name);
        int32_t dtype;
        uint64_t count;
        expect(dah5_attr_info(file, cases[i].name, "units", &dtype, &count), cases[i].open, cases[i].says, what);
        same(never == NULL, "no handle made");
    }
    /* The truth where it is the truth, said about the name (not about files). */
    expect_all(dah5_dataset_create(file, "x", DAH5_FLOAT64, 1, dims, NULL, &never), DAH5_ERR_ALREADY_EXISTS,
               "dataset \"x\" exists already", "dataset create of an existing name");
    expect_all(dah5_dataset_open(file, "nope", &never), DAH5_ERR_NOT_FOUND, "no object \"nope\"", "open a missing dataset");
    expect_all(dah5_dataset_open(file, "g/nope", &never), DAH5_ERR_NOT_FOUND, "\"g\"", "open under a missing group");
    expect_all(dah5_darray_write(file, "x", DAH5_FLOAT64, 1, dims, off, one, &value, 0, NULL, &never), DAH5_ERR_ALREADY_EXISTS,
               "dataset \"x\" exists already", "darray write over an existing dataset");
    /* The block table of a darray: the darray's own name is fine, and the table is there. */
    ok(dah5_darray_write(file, "d", DAH5_FLOAT64, 1, dims, off, one, &value, 0, NULL, &never), "darray d");
    ok(dah5_dataset_close(&never), "close d");
    expect_all(dah5_darray_write(file, "d", DAH5_FLOAT64, 1, dims, off, one, &value, 0, NULL, &never),
               DAH5_ERR_ALREADY_EXISTS, "dataset \"d\" exists already", "darray d again");
    {
        /* Names HDF5 and dah5 take: a group path, and a leading '/'. */
        dah5_dataset *fine = NULL;
        ok(dah5_dataset_create(file, "/g/h/y", DAH5_FLOAT64, 1, dims, NULL, &fine), "create /g/h/y");
        ok(dah5_attr_write(file, "g/h", "units", DAH5_FLOAT64, 0, 1, &unit), "attribute on group g/h");
        ok(dah5_dataset_close(&fine), "close /g/h/y");
        ok(dah5_dataset_open(file, "g/h/y", &fine), "open g/h/y");
        ok(dah5_dataset_close(&fine), "close g/h/y");
    }
    ok(dah5_dataset_close(&ds), "close x");
}

/* ---- handles after MPI_Finalize: MPI_NOT_INITIALIZED, as the docs say ---- */

static void finalized(const char *path)
{
    dah5_file *file = NULL, *closed = NULL;
    dah5_dataset *ds = NULL, *closed_ds = NULL;
    uint64_t dims[1] = {(uint64_t)size}, off[1] = {(uint64_t)rank}, one[1] = {1};
    double value = rank;
    check(dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &file), "create");
    check(dah5_dataset_create(file, "x", DAH5_FLOAT64, 1, dims, NULL, &ds), "create x");
    check(dah5_write_block(ds, off, one, DAH5_FLOAT64, &value, DAH5_COLLECTIVE), "write x");
    check(dah5_dataset_create(file, "y", DAH5_FLOAT64, 1, dims, NULL, &closed_ds), "create y");
    dah5_dataset *y = closed_ds;
    check(dah5_dataset_close(&y), "close y");
    check(dah5_file_close(&file), "close");
    check(dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDONLY, &file), "open");
    check(dah5_dataset_open(file, "x", &ds), "open x");
    check(dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDONLY, &closed), "open a second time");
    dah5_file *c = closed;
    check(dah5_file_close(&c), "close the second");
    /* `file` and `ds` are left open: MPI_Finalize closes them (one warning line a rank). */
    int total;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    failures = total;
    MPI_Finalize();
    const char *says = "MPI has been finalized";
    double back;
    uint32_t nd;
    uint64_t got[1];
    int32_t dtype;
    uint64_t count;
    expect(dah5_file_flush(file), DAH5_ERR_MPI_NOT_INITIALIZED, says, "flush a file MPI_Finalize closed");
    expect(dah5_read_block(ds, off, one, DAH5_FLOAT64, &back, 0), DAH5_ERR_MPI_NOT_INITIALIZED, says,
           "read a dataset MPI_Finalize closed");
    expect(dah5_dataset_ndims(ds, &nd), DAH5_ERR_MPI_NOT_INITIALIZED, says, "ndims (local)");
    expect(dah5_dataset_dims(ds, 1, got), DAH5_ERR_MPI_NOT_INITIALIZED, says, "dims (local)");
    expect(dah5_attr_info(file, "/", "none", &dtype, &count), DAH5_ERR_MPI_NOT_INITIALIZED, says, "attr info (local)");
    expect(dah5_dataset_open(file, "x", &ds), DAH5_ERR_MPI_NOT_INITIALIZED, says, "dataset open");
    expect(dah5_dataset_close(&ds), DAH5_ERR_MPI_NOT_INITIALIZED, says, "dataset close");
    expect(dah5_file_close(&file), DAH5_ERR_MPI_NOT_INITIALIZED, says, "file close");
    /* Handles closed before MPI_Finalize, and made-up ones, say the same. */
    expect(dah5_file_close(&closed), DAH5_ERR_MPI_NOT_INITIALIZED, says, "a closed file's handle");
    expect(dah5_dataset_ndims(closed_ds, &nd), DAH5_ERR_MPI_NOT_INITIALIZED, says, "a closed dataset's handle");
    expect(dah5_file_flush((dah5_file *)(uintptr_t)0x1234), DAH5_ERR_MPI_NOT_INITIALIZED, says, "a made-up handle");
    /* NULL is still the caller's mistake, and a NULL handle's close a no-op. */
    expect(dah5_file_flush(NULL), DAH5_ERR_NULL_ARGUMENT, "file is NULL", "flush(NULL)");
    dah5_file *null_file = NULL;
    ok(dah5_file_close(&null_file), "close of a NULL handle");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3 || size < 2) {
        fprintf(stderr, "usage: mpiexec -n 2+ small_cases convert|env|attr|names|finalized DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *what = argv[1];
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.h5", argv[2], what);
    if (strcmp(what, "finalized") == 0) {
        finalized(path);
        if (rank == 0)
            printf("small_cases %s: %d checks a rank, %d failures over %d ranks\n", what, checks, failures, size);
        return failures ? 1 : 0;
    }
    dah5_file *file = NULL;
    if (strcmp(what, "env") == 0)
        env(&file, path);
    else {
        check(dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &file), "create");
        if (strcmp(what, "convert") == 0)
            convert(file);
        else if (strcmp(what, "attr") == 0)
            attr(file);
        else if (strcmp(what, "names") == 0)
            names(file);
        else {
            fprintf(stderr, "small_cases: unknown case %s\n", what);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (file)
        ok(dah5_file_close(&file), "close");
    int total;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("small_cases %s: %d checks a rank, %d failures over %d ranks\n", what, checks, total, size);
    MPI_Finalize();
    return total ? 1 : 0;
}
