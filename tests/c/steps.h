/*
 * steps.h: the one line per rank that the step-by-step test drivers (out_of_step.c,
 * filled.c) fill with what each step returned, and its printing by rank 0.
 */
#ifndef DAH5_TEST_STEPS_H
#define DAH5_TEST_STEPS_H

#include <stdio.h>
#include <string.h>

#include <mpi.h>

static char line[1024];

/* Append ", <text>" (or "<text>" first) to this rank's line. */
static inline void append_step(const char *text)
{
    size_t used = strlen(line);
    snprintf(line + used, sizeof line - used, "%s%s", used ? ", " : "", text);
}

/* Rank 0 prints every rank's line, "rank R: ...": launchers may split lines that ranks
 * print at once. Collective over MPI_COMM_WORLD. */
static inline void print_every_rank_line(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static char lines[64][sizeof line];
    MPI_Gather(line, sizeof line, MPI_CHAR, lines, sizeof line, MPI_CHAR, 0, MPI_COMM_WORLD);
    for (int r = 0; rank == 0 && r < size && r < 64; r++)
        printf("rank %d: %s\n", r, lines[r]);
    fflush(stdout);
}

#endif
