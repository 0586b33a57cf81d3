/*
 * check.h: the one failure handler of the MPI test drivers: a dah5 call that must succeed
 * and did not prints the rank, what it was doing, the status and the library's message,
 * and ends the job.
 */
#ifndef DAH5_TEST_CHECK_H
#define DAH5_TEST_CHECK_H

#include <stdio.h>

#include <mpi.h>

#include "dah5.h"

static inline void check(int32_t status, const char *what)
{
    if (status != DAH5_OK) {
        int rank = -1;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        fprintf(stderr, "rank %d: %s: %s: %s\n", rank, what, dah5_status_name(status), dah5_last_error_message());
        fflush(stderr);
        /* MPICH's Hydra ends the job at MPI_Abort and, on a loaded machine, now and then
         * before its proxy forwarded what the rank just printed: let it arrive first. */
        for (double until = MPI_Wtime() + 0.2; MPI_Wtime() < until;)
            ;
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

#endif
