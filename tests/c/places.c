/*
 * places.c: a path that names different files on different ranks (rank 1 works in the
 * subdirectory "other"). Every collective create or open of such a path fails on every rank
 * with the same status, at once, and touches neither file; the same calls from one directory
 * work. Prints "places OK" on each rank that saw all of that.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mpi.h>

#include "check.h"
#include "dah5_mpi.h"

static int failures;

/* A file of one dataset `name`, made by this rank alone. */
static void make_alone(const char *path, const char *name)
{
    dah5_file *file = NULL;
    dah5_dataset *ds = NULL;
    uint64_t dims[1] = {3};
    check(dah5_file_create_comm(MPI_COMM_SELF, path, DAH5_TRUNC, &file), "create alone");
    check(dah5_dataset_create(file, name, DAH5_FLOAT64, 1, dims, NULL, &ds), "dataset alone");
    check(dah5_dataset_close(&ds), "close dataset alone");
    check(dah5_file_close(&file), "close alone");
}

/* `status` must be an error, the same on every rank, and the handle must stay NULL. */
static void refused(const char *what, int32_t status, dah5_file *file)
{
    int rank, lowest, highest;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&status, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&status, &highest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (status == DAH5_OK || lowest != highest || file != NULL) {
        fprintf(stderr, "rank %d: %s gave %s (statuses %d..%d): %s\n", rank, what, dah5_status_name(status),
                lowest, highest, dah5_last_error_message());
        failures++;
    } else {
        printf("rank %d: %s: %s: %s\n", rank, what, dah5_status_name(status), dah5_last_error_message());
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        mkdir("other", 0755);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1 && chdir("other") != 0) {
        perror("chdir");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    dah5_file *file = NULL;
    int32_t status = dah5_file_create_comm(MPI_COMM_WORLD, "new.h5", DAH5_TRUNC, &file);
    refused("create in two directories", status, file);
    if (access("new.h5", F_OK) == 0) {
        fprintf(stderr, "rank %d: the refused create left new.h5\n", rank);
        failures++;
    }

    /* Only rank 0's directory has it. */
    if (rank == 0)
        make_alone("one.h5", "zero");
    MPI_Barrier(MPI_COMM_WORLD);
    status = dah5_file_open_comm(MPI_COMM_WORLD, "one.h5", DAH5_RDONLY, &file);
    refused("open where one rank has no such file", status, file);

    /* Both have one, each its own: a writer would write into both. */
    make_alone("both.h5", rank == 0 ? "zero" : "one");
    MPI_Barrier(MPI_COMM_WORLD);
    status = dah5_file_open_comm(MPI_COMM_WORLD, "both.h5", DAH5_RDWR, &file);
    refused("open of two different files for writing", status, file);

    /* From one directory, the same calls work. */
    if (rank == 1 && chdir("..") != 0) {
        perror("chdir");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    check(dah5_file_open_comm(MPI_COMM_WORLD, "both.h5", DAH5_RDWR, &file), "open from one directory");
    dah5_dataset *ds = NULL;
    uint64_t dims[1] = {2};
    check(dah5_dataset_create(file, "together", DAH5_FLOAT64, 1, dims, NULL, &ds), "dataset together");
    check(dah5_dataset_close(&ds), "close together");
    check(dah5_file_close(&file), "close both.h5");
    if (failures == 0)
        printf("rank %d: places OK\n", rank);
    MPI_Finalize();
    return failures != 0;
}
