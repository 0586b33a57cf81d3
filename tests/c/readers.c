/*
 * readers.c: one file with everything dah5 writes, for the readers nobody here wrote
 * (driven by tests/readers.rs; checked by tests/py/readers.py and the netCDF tools).
 *
 *   readers PATH ORDER     ORDER c or f: the handle's order, so every dims argument
 *                          (names included) is reversed in f; the file is the same
 *   readers PATH bad       (2+ ranks) names refused on every rank with nothing changed: different
 *                          on one rank, malformed, of another length than the dataset of
 *                          that name, given twice; then u (4, 3) named (rows, cols)
 *
 * Storage (C-order) contents, every value the pattern of tests/c/pattern.h:
 *   /            attributes title (string) and levels (int32 [3])
 *   /lat, /lon   float64 (6), (8): coordinate variables, written by rank 0
 *   /temp        float64 darray (lat 6, lon 8), a slab of lat rows per rank; attribute units
 *   /ocean/salt  int32 darray (depth 3, lat 6, lon 8), deflate 4, collective
 *   /series      float32 (time, x 5), time unlimited, grown one step at a time to 4
 * with the dimension names in parentheses (dah5_dataset_set_dim_names).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "check.h"
#include "dah5_mpi.h"
#include "pattern.h"

enum { NZ = 3, NY = 6, NX = 8, NT = 4, NS = 5 };

static int rank_g, size_g, forder_g;

/* The handle's order of storage-order values (reversed in f). */
static void handle_order(uint32_t n, const uint64_t *storage, uint64_t *out)
{
    for (uint32_t d = 0; d < n; d++)
        out[d] = forder_g ? storage[n - 1 - d] : storage[d];
}

static void name_dims(dah5_dataset *ds, uint32_t n, const char *const *storage_names)
{
    const char *names[3];
    for (uint32_t d = 0; d < n; d++)
        names[d] = forder_g ? storage_names[n - 1 - d] : storage_names[d];
    check(dah5_dataset_set_dim_names(ds, n, names), "set_dim_names");
}

/* Rank r's share of `n` rows. */
static void rows_of(uint64_t n, uint64_t *start, uint64_t *count)
{
    *start = n * (uint64_t)rank_g / (uint64_t)size_g;
    *count = n * (uint64_t)(rank_g + 1) / (uint64_t)size_g - *start;
}

/* Write a darray of `n` storage dims whose slab of `split`-dim rows is this rank's. */
static dah5_dataset *darray(dah5_file *file, const char *name, int32_t dtype, size_t esize,
                            uint32_t n, const uint64_t *storage_dims, uint32_t split,
                            const dah5_dataset_options *options, uint32_t flags)
{
    uint64_t so[3] = {0}, sc[3], dims[3], offset[3], count[3];
    memcpy(sc, storage_dims, n * sizeof *sc);
    rows_of(storage_dims[split], &so[split], &sc[split]);
    handle_order(n, storage_dims, dims);
    handle_order(n, so, offset);
    handle_order(n, sc, count);
    void *buf = malloc(NZ * NY * NX * 8);
    pattern_fill(dtype, esize, n, dims, offset, count, forder_g, buf);
    dah5_dataset *ds = NULL;
    check(dah5_darray_write(file, name, dtype, n, dims, offset, count, buf, flags, options, &ds),
          name);
    free(buf);
    return ds;
}

/* A 1-D float64 coordinate variable of length n, written by rank 0 alone. */
static void coordinate(dah5_file *file, const char *name, uint64_t n)
{
    dah5_dataset *ds = NULL;
    double values[NX];
    check(dah5_dataset_create(file, name, DAH5_FLOAT64, 1, &n, NULL, &ds), name);
    uint64_t offset = 0, count = rank_g == 0 ? n : 0;
    pattern_fill(DAH5_FLOAT64, 8, 1, &n, &offset, &count, 0, values);
    check(dah5_write_block(ds, &offset, &count, DAH5_FLOAT64, values, 0), name);
    check(dah5_dataset_close(&ds), "close");
}

static void series(dah5_file *file)
{
    dah5_dataset_options options;
    check(dah5_dataset_options_init(&options, DAH5_DATASET_OPTIONS_VERSION), "options");
    uint64_t storage[2] = {1, NS}, max[2] = {DAH5_UNLIMITED, NS}, dims[2];
    options.max_ndims = 2;
    handle_order(2, max, options.max_dims);
    handle_order(2, storage, dims);
    dah5_dataset *ds = NULL;
    check(dah5_dataset_create(file, "series", DAH5_FLOAT32, 2, dims, &options, &ds), "series");
    name_dims(ds, 2, (const char *const[]){"time", "x"});
    uint64_t full[2] = {NT, NS};
    for (uint64_t t = 0; t < NT; t++) {
        uint64_t now[2] = {t + 1, NS}, so[2] = {t, 0}, sc[2] = {1, 0}, all[2];
        rows_of(NS, &so[1], &sc[1]);
        uint64_t offset[2], count[2];
        handle_order(2, now, dims);
        handle_order(2, so, offset);
        handle_order(2, sc, count);
        handle_order(2, full, all);
        check(dah5_dataset_extend(ds, 2, dims), "extend");
        float values[NS];
        pattern_fill(DAH5_FLOAT32, 4, 2, all, offset, count, forder_g, values);
        check(dah5_write_block(ds, offset, count, DAH5_FLOAT32, values, 0), "series step");
    }
    check(dah5_dataset_close(&ds), "close");
}

/* The same status, and a message naming `needle`, on every rank. */
static void refused(int32_t status, int32_t want, const char *needle, const char *what)
{
    if (status != want || strstr(dah5_last_error_message(), needle) == NULL) {
        fprintf(stderr, "rank %d: %s: got %s (%s), want %s naming \"%s\"\n", rank_g, what,
                dah5_status_name(status), dah5_last_error_message(), dah5_status_name(want),
                needle);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void bad_names(const char *path)
{
    dah5_file *file = NULL;
    dah5_dataset *u = NULL, *v = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &file), "create");
    check(dah5_dataset_create(file, "u", DAH5_INT32, 2, (const uint64_t[]){4, 3}, NULL, &u), "u");
    check(dah5_dataset_create(file, "v", DAH5_INT32, 1, (const uint64_t[]){5}, NULL, &v), "v");
    const char *differ[2] = {"rows", rank_g == size_g - 1 ? "other" : "cols"};
    refused(dah5_dataset_set_dim_names(u, 2, differ), DAH5_ERR_COLLECTIVE_MISMATCH, "names",
            "names differing on the last rank");
    refused(dah5_dataset_set_dim_names(u, 2, (const char *const[]){"rows", "a/b"}),
            DAH5_ERR_INVALID_ARGUMENT, "not a dimension name", "a name with '/'");
    refused(dah5_dataset_set_dim_names(u, 2, (const char *const[]){"v", "cols"}),
            DAH5_ERR_INVALID_ARGUMENT, "exists with dims [5]", "v is of length 5, not 4");
    refused(dah5_dataset_set_dim_names(u, 1, (const char *const[]){"rows"}),
            DAH5_ERR_INVALID_ARGUMENT, "1 names", "one name for two dims");
    check(dah5_dataset_set_dim_names(u, 2, (const char *const[]){"rows", "cols"}), "names");
    refused(dah5_dataset_set_dim_names(u, 2, (const char *const[]){"rows", "cols"}),
            DAH5_ERR_INVALID_ARGUMENT, "already has a name", "named twice");
    check(dah5_dataset_close(&u), "close");
    check(dah5_dataset_close(&v), "close");
    check(dah5_file_close(&file), "close");
    printf("rank %d of %d: bad names refused everywhere\n", rank_g, size_g);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_g);
    MPI_Comm_size(MPI_COMM_WORLD, &size_g);
    if (argc != 3) {
        fprintf(stderr, "usage: readers PATH c|f\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (strcmp(argv[2], "bad") == 0) {
        bad_names(argv[1]);
        MPI_Finalize();
        return 0;
    }
    forder_g = strcmp(argv[2], "f") == 0;
    dah5_file *file = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, argv[1], DAH5_TRUNC | (forder_g ? DAH5_ORDER_F : 0),
                                &file),
          "create");
    check(dah5_attr_write_string(file, "/", "title", "dah5 for every reader"), "title");
    int32_t levels[3] = {10, 20, 30};
    check(dah5_attr_write(file, "/", "levels", DAH5_INT32, 1, 3, levels), "levels");
    coordinate(file, "lat", NY);
    coordinate(file, "lon", NX);

    dah5_dataset *temp = darray(file, "temp", DAH5_FLOAT64, 8, 2, (const uint64_t[]){NY, NX}, 0,
                                NULL, 0);
    name_dims(temp, 2, (const char *const[]){"lat", "lon"});
    check(dah5_attr_write_string(file, "temp", "units", "K"), "units");
    check(dah5_dataset_close(&temp), "close");

    dah5_dataset_options options;
    check(dah5_dataset_options_init(&options, DAH5_DATASET_OPTIONS_VERSION), "options");
    options.deflate_level = 4;
    dah5_dataset *salt = darray(file, "ocean/salt", DAH5_INT32, 4, 3,
                                (const uint64_t[]){NZ, NY, NX}, 1, &options, DAH5_COLLECTIVE);
    name_dims(salt, 3, (const char *const[]){"depth", "lat", "lon"});
    check(dah5_dataset_close(&salt), "close");

    series(file);
    check(dah5_file_close(&file), "close");
    printf("rank %d of %d: wrote %s in %s order\n", rank_g, size_g, argv[1], forder_g ? "F" : "C");
    MPI_Finalize();
    return 0;
}
