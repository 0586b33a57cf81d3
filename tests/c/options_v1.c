/*
 * options_v1.c: a program built against dah5.h 0.1, whose option structs were version 1
 * (declared here as that header declared them), still works with this library:
 * dah5_*_options_init writes only the version 1 bytes, the library reads only those and
 * takes its defaults for the rest, and a version it does not know is refused on every rank.
 * Each rank prints one line: "rank R: v1 options OK".
 *
 *   mpiexec -n N ./options_v1 PATH
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>

#include "check.h"
#include "dah5_mpi.h"

/* dah5.h 0.1's structs (version 1). */
typedef struct {
    uint32_t version;
    uint32_t reserved;
    uint64_t alignment_threshold;
    uint64_t alignment;
} file_options_v1;

typedef struct {
    uint32_t version;
    uint32_t flags;
} dataset_options_v1;

/* The v1 struct, and bytes after it that init must leave alone. */
struct guarded_file {
    file_options_v1 options;
    unsigned char after[64];
};

struct guarded_dataset {
    dataset_options_v1 options;
    unsigned char after[64];
};

static int untouched(const unsigned char *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (bytes[i] != 0xab)
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *path = argc > 1 ? argv[1] : "v1.h5";
    int failures = 0;

    struct guarded_file fo;
    memset(&fo, 0xab, sizeof fo);
    check(dah5_file_options_init((dah5_file_options *)&fo.options, 1), "file options init v1");
    /* alignment 0: the library chooses it from the file system (see "auto.h5" below). */
    if (fo.options.version != 1 || fo.options.alignment != 0 || !untouched(fo.after, sizeof fo.after)) {
        fprintf(stderr, "rank %d: file options init v1 wrote %u, %llu, or past the struct\n", rank,
                fo.options.version, (unsigned long long)fo.options.alignment);
        failures++;
    }
    fo.options.alignment_threshold = 1;
    fo.options.alignment = 3 << 20; /* 3 MiB: no default gives it */

    struct guarded_dataset dso;
    memset(&dso, 0xab, sizeof dso);
    check(dah5_dataset_options_init((dah5_dataset_options *)&dso.options, 1), "dataset options init v1");
    if (dso.options.version != 1 || dso.options.flags != 0 || !untouched(dso.after, sizeof dso.after)) {
        fprintf(stderr, "rank %d: dataset options init v1 wrote past the struct\n", rank);
        failures++;
    }
    dso.options.flags = DAH5_FILL_ZEROS;

    dah5_file *file = NULL;
    check(dah5_file_create_with(dah5_comm_handle(MPI_COMM_WORLD), path, DAH5_TRUNC,
                                (const dah5_file_options *)&fo.options, &file),
          "create with v1 options");
    dah5_dataset *ds = NULL;
    uint64_t dims[1] = {(uint64_t)size * 4};
    check(dah5_dataset_create(file, "zeros", DAH5_FLOAT64, 1, dims,
                              (const dah5_dataset_options *)&dso.options, &ds),
          "create with v1 dataset options");

    /* A version newer than the library's, or 0, is refused on every rank, and nothing is made. */
    for (uint32_t version = 0; version <= DAH5_DATASET_OPTIONS_VERSION + 1; version += DAH5_DATASET_OPTIONS_VERSION + 1) {
        dah5_dataset_options unknown;
        check(dah5_dataset_options_init(&unknown, DAH5_DATASET_OPTIONS_VERSION), "init");
        unknown.version = version;
        dah5_dataset *never = NULL;
        int32_t status = dah5_dataset_create(file, "never", DAH5_FLOAT64, 1, dims, &unknown, &never);
        if (status != DAH5_ERR_INVALID_ARGUMENT || never != NULL
            || !strstr(dah5_last_error_message(), "versions 1 to")) {
            fprintf(stderr, "rank %d: version %u gave %s: %s\n", rank, version, dah5_status_name(status),
                    dah5_last_error_message());
            failures++;
        }
        dah5_dataset_options out;
        if (dah5_dataset_options_init(&out, version) != DAH5_ERR_INVALID_ARGUMENT) {
            fprintf(stderr, "rank %d: init of version %u was accepted\n", rank, version);
            failures++;
        }
    }
    check(dah5_dataset_close(&ds), "close dataset");
    check(dah5_file_close(&file), "close file");

    /* The alignment left to the library, every object aligned (threshold 1). */
    check(dah5_file_options_init((dah5_file_options *)&fo.options, 1), "file options init v1");
    fo.options.alignment_threshold = 1;
    check(dah5_file_create_with(dah5_comm_handle(MPI_COMM_WORLD), "auto.h5", DAH5_TRUNC,
                                (const dah5_file_options *)&fo.options, &file),
          "create with the alignment left to the library");
    check(dah5_dataset_create(file, "auto", DAH5_FLOAT64, 1, dims, NULL, &ds), "create auto");
    check(dah5_dataset_close(&ds), "close auto");
    check(dah5_file_close(&file), "close auto.h5");

    /* An alignment past 4 GiB is refused on every rank, and no file is made. */
    check(dah5_file_options_init((dah5_file_options *)&fo.options, 1), "file options init v1");
    fo.options.alignment = 1ULL << 45;
    int32_t status = dah5_file_create_with(dah5_comm_handle(MPI_COMM_WORLD), "far.h5", DAH5_TRUNC,
                                           (const dah5_file_options *)&fo.options, &file);
    if (status != DAH5_ERR_INVALID_ARGUMENT || file != NULL
        || !strstr(dah5_last_error_message(), "options.alignment") || access("far.h5", F_OK) == 0) {
        fprintf(stderr, "rank %d: alignment 2^45 gave %s: %s\n", rank, dah5_status_name(status),
                dah5_last_error_message());
        failures++;
    }

    /* Reopened for writing, v1.h5 (its objects 3 MiB apart) gets a small dataset: its disk
     * use grows by about that, not by the holes between the aligned objects. */
    struct stat before, after;
    MPI_Barrier(MPI_COMM_WORLD);
    stat(path, &before);
    MPI_Barrier(MPI_COMM_WORLD);
    check(dah5_file_open(dah5_comm_handle(MPI_COMM_WORLD), path, DAH5_RDWR, &file), "reopen v1.h5");
    uint64_t few[1] = {16};
    check(dah5_dataset_create(file, "added", DAH5_FLOAT64, 1, few, NULL, &ds), "create added");
    check(dah5_dataset_close(&ds), "close added");
    check(dah5_file_close(&file), "close reopened v1.h5");
    /* Rank 0 gives back what it reserved ahead inside its close: after it, for every rank. */
    MPI_Barrier(MPI_COMM_WORLD);
    stat(path, &after);
    long long grown = ((long long)after.st_blocks - (long long)before.st_blocks) * 512;
    if (grown > 256 << 10) {
        fprintf(stderr, "rank %d: a reopen and a 128-byte dataset took %lld bytes of disk more\n",
                rank, grown);
        failures++;
    }
    if (failures == 0)
        printf("rank %d: v1 options OK\n", rank);
    MPI_Finalize();
    return failures != 0;
}
