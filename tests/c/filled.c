/*
 * filled.c: another program fills the disk while a file has metadata HDF5 has not written
 * yet (a tmpfs of 4 MiB that tests/bad_input.rs mounts; here rank 0 plays the other
 * program, writing a filler file until the disk is full). Every call returns, the close
 * included, and the file opens with everything that returned DAH5_OK.
 *
 *   mpiexec -n N ./filled DIR/filled.h5 DIR/filler dataset|darrays
 *
 *   dataset  create "d" (8192 float64), no flush; disk filled; every rank writes its block
 *            of "d" (it fits in the blocks dah5 reserved), then the create of "e" is refused
 *            with NO_SPACE on every rank; close
 *   behind   as dataset, the blocks written behind the caller (DAH5_ASYNC), then
 *            dah5_file_wait: the write-behind thread's pwrite finds its blocks reserved too
 *   darrays  40 small darrays "a0".."a39" written, no flush; disk filled; close
 *
 * Rank 0 prints one line per rank: "rank R: <step> <status>, ...".
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "dah5_mpi.h"
#include "steps.h"

static void note(const char *step, int32_t status)
{
    char text[256];
    snprintf(text, sizeof text, "%s %s", step, dah5_status_name(status));
    append_step(text);
}

/* Write to `path` until the file system is full. */
static void fill_disk(const char *path)
{
    static char chunk[1 << 16];
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        MPI_Abort(MPI_COMM_WORLD, 7);
    while (write(fd, chunk, sizeof chunk) > 0)
        ;
    close(fd);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 4)
        MPI_Abort(MPI_COMM_WORLD, 2);
    const char *mode = argv[3];
    dah5_file *file = NULL;
    dah5_dataset *d = NULL, *e = NULL;
    static double values[8192];
    for (int i = 0; i < 8192; i++)
        values[i] = i;
    uint64_t n = 8192 / (uint64_t)size, dims[1] = {8192};
    uint64_t offset[1] = {n * (uint64_t)rank}, count[1] = {rank == size - 1 ? 8192 - n * (uint64_t)rank : n};
    note("create", dah5_file_create_comm(MPI_COMM_WORLD, argv[1], DAH5_TRUNC, &file));
    int behind = strcmp(mode, "behind") == 0;
    if (strcmp(mode, "dataset") == 0 || behind) {
        note("dataset", dah5_dataset_create(file, "d", DAH5_FLOAT64, 1, dims, NULL, &d));
    } else {
        for (int i = 0; i < 40; i++) {
            char name[16];
            snprintf(name, sizeof name, "a%d", i);
            uint64_t small[1] = {64}, at[1] = {rank == 0 ? 0 : 64}, part[1] = {rank == 0 ? 64 : 0};
            int32_t status = dah5_darray_write(file, name, DAH5_FLOAT64, 1, small, at, part, values, 0, NULL, &d);
            if (status != DAH5_OK || i == 39)
                note("darrays", status);
            dah5_dataset_close(&d);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        fill_disk(argv[2]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (strcmp(mode, "dataset") == 0 || behind) {
        note("write", dah5_write_block(d, offset, count, DAH5_FLOAT64, values + offset[0], behind ? DAH5_ASYNC : 0));
        if (behind)
            note("wait", dah5_file_wait(file));
        note("create-e", dah5_dataset_create(file, "e", DAH5_FLOAT64, 1, dims, NULL, &e));
    }
    note("close", dah5_file_close(&file));
    print_every_rank_line();
    MPI_Finalize();
    return 0;
}
