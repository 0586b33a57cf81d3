/*
 * out_of_step.c: programs whose ranks get out of step with a collective call, then go on the
 * way a library-based code does: the failing rank returns its error up the stack and every
 * rank meets in the caller's own MPI_Barrier, closes the file and calls MPI_Finalize. The job
 * must end (no MPI_Abort anywhere), every dah5 call returning within the collective timeout,
 * and the file must stay readable as of its last flush.
 *
 *   DAH5_COLLECTIVE_TIMEOUT=2 mpiexec -n N ./out_of_step PATH skip|forgot|late|closes|closeflush|closewrite [unflushed]
 *
 *   skip    rank 0 alone calls dah5_dataset_create; the others go straight to the barrier
 *   forgot  rank 0 writes with DAH5_COLLECTIVE, the others forgot the flag (independent);
 *           every rank writes a part of "before"
 *   late    rank 1 comes to dah5_dataset_create 4 s after the others gave up on it
 *   closes  rank 0 closes dataset "a", the others "b" (the closes differ)
 *   closeflush  rank 0 closes dataset "a", the others flush the file
 *   closewrite  rank 0 closes dataset "a", the others write to "b" with DAH5_COLLECTIVE
 *   unflushed: "before" is written but the file never flushed before things go wrong
 *
 * Rank 0 prints one line per rank: "rank R: <step> <status> (<seconds it took>s), ...".
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "dah5_mpi.h"
#include "steps.h"

static void note(const char *step, int32_t status, double since)
{
    char text[256];
    snprintf(text, sizeof text, "%s %s (%.1fs)", step, dah5_status_name(status), MPI_Wtime() - since);
    append_step(text);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 3 && argc != 4)
        MPI_Abort(MPI_COMM_WORLD, 2);
    const char *mode = argv[2];
    int flushed = argc == 3;
    dah5_file *file = NULL;
    dah5_dataset *before = NULL, *dset = NULL;
    uint64_t dims[1] = {8}, offset[1] = {0}, count[1] = {0};
    double values[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    /* A dataset written and flushed before anything goes wrong. */
    if (dah5_file_create_comm(MPI_COMM_WORLD, argv[1], DAH5_TRUNC, &file) != DAH5_OK ||
        dah5_dataset_create(file, "before", DAH5_FLOAT64, 1, dims, NULL, &before) != DAH5_OK)
        MPI_Abort(MPI_COMM_WORLD, 3);
    count[0] = rank == 0 ? 8 : 0;
    if (dah5_write_block(before, offset, count, DAH5_FLOAT64, rank == 0 ? values : NULL, 0) != DAH5_OK ||
        (flushed && dah5_file_flush(file) != DAH5_OK))
        MPI_Abort(MPI_COMM_WORLD, 4);
    dah5_dataset *a = NULL, *b = NULL;
    int closing = strncmp(mode, "close", 5) == 0;
    if (closing &&
        (dah5_dataset_create(file, "a", DAH5_FLOAT64, 1, dims, NULL, &a) != DAH5_OK ||
         dah5_dataset_create(file, "b", DAH5_FLOAT64, 1, dims, NULL, &b) != DAH5_OK))
        MPI_Abort(MPI_COMM_WORLD, 6);

    double start = MPI_Wtime();
    if (strcmp(mode, "skip") == 0) {
        if (rank == 0)
            note("create", dah5_dataset_create(file, "x", DAH5_FLOAT64, 1, dims, NULL, &dset), start);
    } else if (strcmp(mode, "forgot") == 0) {
        uint32_t flags = rank == 0 ? DAH5_COLLECTIVE : 0;
        /* Every rank a part of the 8 values (rank 0 the rest). */
        int size;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        uint64_t part = 8 / (uint64_t)size;
        offset[0] = rank == 0 ? 0 : 8 - part * (uint64_t)(size - rank);
        count[0] = rank == 0 ? 8 - part * (uint64_t)(size - 1) : part;
        note("write", dah5_write_block(before, offset, count, DAH5_FLOAT64, values + offset[0], flags), start);
    } else if (strcmp(mode, "closes") == 0) {
        note("dsclose", rank == 0 ? dah5_dataset_close(&a) : dah5_dataset_close(&b), start);
    } else if (strcmp(mode, "closeflush") == 0 || strcmp(mode, "closewrite") == 0) {
        if (rank == 0)
            note("dsclose", dah5_dataset_close(&a), start);
        else if (strcmp(mode, "closeflush") == 0)
            note("flush1", dah5_file_flush(file), start);
        else
            note("write1", dah5_write_block(b, offset, count, DAH5_FLOAT64, NULL, DAH5_COLLECTIVE), start);
    } else if (strcmp(mode, "late") == 0) {
        if (rank == 1)
            sleep(4);
        note("create", dah5_dataset_create(file, "x", DAH5_FLOAT64, 1, dims, NULL, &dset), start);
    } else {
        MPI_Abort(MPI_COMM_WORLD, 5);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* the caller's own collective */
    start = MPI_Wtime();
    note("flush", dah5_file_flush(file), start);
    start = MPI_Wtime();
    note("close", dah5_file_close(&file), start);
    print_every_rank_line();
    MPI_Finalize();
    return 0;
}
