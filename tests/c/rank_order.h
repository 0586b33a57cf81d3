/*
 * rank_order.h: rank 0 prints what every rank has to say, in rank order. Launchers may
 * split lines that ranks print at once into each other (MPICH 4.2's Hydra did), so the
 * test drivers never print from several ranks.
 */
#ifndef DAH5_TEST_RANK_ORDER_H
#define DAH5_TEST_RANK_ORDER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

/* Rank 0 prints every rank's `text` (any length), rank 0's first. Collective over
 * MPI_COMM_WORLD. */
static inline void print_in_rank_order(const char *text)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int length = (int)strlen(text);
    int *lengths = calloc((size_t)size, sizeof *lengths), *starts = calloc((size_t)size, sizeof *starts);
    MPI_Gather(&length, 1, MPI_INT, lengths, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int total = 0;
    for (int r = 0; r < size; r++) {
        starts[r] = total;
        total += lengths[r];
    }
    char *all = calloc((size_t)total + 1, 1);
    MPI_Gatherv(text, length, MPI_CHAR, all, lengths, starts, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        fputs(all, stdout);
        fflush(stdout);
    }
    free(all);
    free(starts);
    free(lengths);
}

#endif
