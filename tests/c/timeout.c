/*
 * timeout.c: rank 1 never makes a collective call the others make. With
 * DAH5_COLLECTIVE_TIMEOUT=2 the others get DAH5_ERR_COLLECTIVE_TIMEOUT after about 2 s
 * (instead of waiting forever) and a roll call of up to 2 s more, naming rank 1 as the one
 * that never arrived; a further collective call on the file fails at once, and the job
 * ends with MPI_Abort, as the message says to. The file was flushed before: it stays
 * readable.
 *
 *   DAH5_COLLECTIVE_TIMEOUT=2 mpiexec -n 3 ./timeout PATH
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "dah5_mpi.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    dah5_file *file = NULL;
    dah5_dataset *dset = NULL;
    /* The ranks that make the call report through this communicator, without rank 1. */
    MPI_Comm callers;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 1, rank, &callers);
    if (dah5_file_create_comm(MPI_COMM_WORLD, argv[1], DAH5_TRUNC, &file) != DAH5_OK ||
        dah5_file_flush(file) != DAH5_OK)
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (rank == 1) {
        /* Skips the dataset create, and waits for the others to end the job. */
        MPI_Barrier(MPI_COMM_WORLD);
        return 3;
    }
    uint64_t dims[1] = {8};
    time_t start = time(NULL);
    int32_t status = dah5_dataset_create(file, "x", DAH5_FLOAT64, 1, dims, NULL, &dset);
    long waited = (long)(time(NULL) - start);
    int named = strstr(dah5_last_error_message(), "waited 2 s") != NULL &&
                strstr(dah5_last_error_message(), ": rank 1 never arrived") != NULL;
    int32_t again = dah5_file_flush(file);
    int at_once = strstr(dah5_last_error_message(), "earlier collective call on this file timed out") != NULL;
    /* Into a file of the rank's own, not only stdout: the launcher may not forward a line
     * printed just before MPI_Abort (MPICH's Hydra lost rank 0's once). */
    char report[32];
    snprintf(report, sizeof report, "report.%d", rank);
    FILE *out = fopen(report, "w");
    if (out == NULL)
        MPI_Abort(MPI_COMM_WORLD, 6);
    fprintf(out, "rank %d: %s after %ld s, message %s; then %s%s\n", rank, dah5_status_name(status), waited,
            named ? "names the timeout" : "WRONG", dah5_status_name(again), at_once ? " at once" : "");
    fclose(out);
    MPI_Barrier(callers);
    if (rank == 0)
        MPI_Abort(MPI_COMM_WORLD, 7);
    MPI_Barrier(MPI_COMM_WORLD); /* never matched: the abort ends the job */
    return 0;
}
