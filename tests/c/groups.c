/*
 * groups.c: dah5_group_create on 2 or more ranks. Each check asserts the status and a
 * piece of the last-error message on every rank (expect.h): a nested group made with its
 * parents; a path that exists (a group, a dataset) refused on every rank; a path through
 * a dataset; bad paths (NULL, empty, "/", trailing '/', "//", ".", not UTF-8, dah5's own
 * group); one rank's bad path; ranks passing different paths; a group create against
 * another call; a read-only file; the checks off. tests/groups.rs then reads groups.h5
 * with h5py and h5dump, and merges it with `dah5 merge`.
 *
 *   groups DIR      (DIR: an empty scratch directory)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dah5_mpi.h"
#include "expect.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int32_t world = (int32_t)MPI_Comm_c2f(MPI_COMM_WORLD);
    if (argc < 2 || size < 2) {
        fprintf(stderr, "usage: mpiexec -n 2+ groups DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/groups.h5", argv[1]);
    dah5_file *file = NULL;
    ok(dah5_file_create(world, path, DAH5_TRUNC, &file), "create the file");

    /* ---- made, with the missing groups above ---- */
    expect_all(dah5_group_create(file, "/a/b/c"), DAH5_OK, NULL, "a nested group and its parents");
    expect_all(dah5_group_create(file, "a/b/d"), DAH5_OK, NULL, "a sibling under existing parents, no leading '/'");
    expect_all(dah5_group_create(file, "lone"), DAH5_OK, NULL, "a group at the root");
    expect_all(dah5_group_create(file, "\xcf\x80/\xc3\xbc"), DAH5_OK, NULL, "UTF-8 names");
    ok(dah5_attr_write_string(file, "lone", "note", "empty"), "an attribute on an empty group");
    ok(dah5_attr_write_string(file, "a/b", "level", "two"), "an attribute on a group that holds only groups");

    /* ---- a path that exists: ALREADY_EXISTS on every rank, nothing changed ---- */
    expect_all(dah5_group_create(file, "a/b"), DAH5_ERR_ALREADY_EXISTS, "a group \"a/b\" exists already",
               "an existing group");
    expect_all(dah5_group_create(file, "/a/b/c"), DAH5_ERR_ALREADY_EXISTS, "dah5_group_create (rank",
               "an existing group, the message names the call");
    dah5_dataset *ds = NULL;
    uint64_t dims[1] = {(uint64_t)size};
    ok(dah5_dataset_create(file, "a/x", DAH5_INT32, 1, dims, NULL, &ds), "a dataset a/x");
    expect_all(dah5_group_create(file, "a/x"), DAH5_ERR_ALREADY_EXISTS, "a dataset \"a/x\" exists already",
               "an existing dataset's path");
    expect_all(dah5_group_create(file, "a/x/y"), DAH5_ERR_INVALID_ARGUMENT,
               "group \"a/x/y\" cannot be made: \"a/x\" is a dataset, not a group", "a path through a dataset");
    expect_all(dah5_dataset_create(file, "lone", DAH5_INT32, 1, dims, NULL, &ds), DAH5_ERR_ALREADY_EXISTS,
               "a group \"lone\" exists already", "a dataset where a group is");

    /* ---- bad paths: the same errors as datasets' names ---- */
    expect(dah5_group_create(NULL, "g"), DAH5_ERR_NULL_ARGUMENT, "file is NULL", "file NULL");
    expect(dah5_group_create((dah5_file *)(uintptr_t)0x1234, "g"), DAH5_ERR_INVALID_HANDLE, "0x1234", "a made-up handle");
    expect_all(dah5_group_create(file, NULL), DAH5_ERR_NULL_ARGUMENT, "path is NULL", "path NULL");
    expect_all(dah5_group_create(file, ""), DAH5_ERR_INVALID_ARGUMENT, "\"\" is not a group name", "empty path");
    expect_all(dah5_group_create(file, "/"), DAH5_ERR_INVALID_ARGUMENT, "not end in '/'", "the root group");
    expect_all(dah5_group_create(file, "g/"), DAH5_ERR_INVALID_ARGUMENT, "not end in '/'", "a trailing '/'");
    expect_all(dah5_group_create(file, "g//h"), DAH5_ERR_INVALID_ARGUMENT, "two '/' in a row", "an empty component");
    expect_all(dah5_group_create(file, "g/./h"), DAH5_ERR_INVALID_ARGUMENT, "\".\" is not a name", "a \".\" component");
    expect_all(dah5_group_create(file, "g\xff"), DAH5_ERR_INVALID_ARGUMENT, "path is not valid UTF-8", "not UTF-8");
    expect_all(dah5_group_create(file, "dah5_blocks"), DAH5_ERR_INVALID_ARGUMENT, "is dah5's own", "dah5's tables group");
    expect_all(dah5_group_create(file, "/dah5_blocks/g"), DAH5_ERR_INVALID_ARGUMENT, "is dah5's own",
               "under dah5's tables group");
    expect_all(dah5_group_create(file, rank == 1 ? NULL : "one"), DAH5_ERR_NULL_ARGUMENT,
               rank == 1 ? "path is NULL" : "rank 1 rejected", "a NULL path on rank 1 only");

    /* ---- ranks out of step: nothing made ---- */
    char mine[32];
    snprintf(mine, sizeof mine, "r%d", rank);
    expect_all(dah5_group_create(file, mine), DAH5_ERR_COLLECTIVE_MISMATCH, "path differs: rank 0 \"r0\", rank 1 \"r1\"",
               "ranks pass different paths");
    expect_all(rank == 0 ? dah5_group_create(file, "g") : dah5_file_flush(file), DAH5_ERR_COLLECTIVE_MISMATCH,
               "different collective calls: rank 0 dah5_group_create, rank", "a group create against a flush");
    ok(dah5_file_close(&file), "close");

    /* ---- read-only: READ_ONLY on every rank ---- */
    ok(dah5_file_open(world, path, DAH5_RDONLY, &file), "open read-only");
    expect_all(dah5_group_create(file, "ro"), DAH5_ERR_READ_ONLY, "read-only", "a group in a read-only file");
    ok(dah5_file_close(&file), "close read-only");

    /* ---- the checks off: still made (nothing agreed first) ---- */
    dah5_file_options options;
    ok(dah5_file_options_default(&options), "file options");
    options.flags = DAH5_NO_CHECKS;
    ok(dah5_file_open_with(world, path, DAH5_RDWR, &options, &file), "open with the checks off");
    expect_all(dah5_group_create(file, "unchecked/g"), DAH5_OK, NULL, "a group with the checks off");
    expect_all(dah5_group_create(file, "unchecked/g"), DAH5_ERR_ALREADY_EXISTS, "a group \"unchecked/g\" exists already",
               "an existing group with the checks off");
    ok(dah5_file_close(&file), "close");

    MPI_Barrier(MPI_COMM_WORLD);
    int total;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("groups: %d checks a rank, %d failures over %d ranks\n", checks, total, size);
    MPI_Finalize();
    return total ? 1 : 0;
}
