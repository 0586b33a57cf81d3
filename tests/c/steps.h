/*
 * steps.h: the one line per rank that the step-by-step test drivers (out_of_step.c,
 * filled.c) fill with what each step returned, and its printing by rank 0.
 */
#ifndef DAH5_TEST_STEPS_H
#define DAH5_TEST_STEPS_H

#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "rank_order.h"

static char line[1024];

/* Append ", <text>" (or "<text>" first) to this rank's line. */
static inline void append_step(const char *text)
{
    size_t used = strlen(line);
    snprintf(line + used, sizeof line - used, "%s%s", used ? ", " : "", text);
}

/* Rank 0 prints every rank's line, "rank R: ...", in rank order. Collective over
 * MPI_COMM_WORLD. */
static inline void print_every_rank_line(void)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char prefixed[sizeof line + 32];
    snprintf(prefixed, sizeof prefixed, "rank %d: %s\n", rank, line);
    print_in_rank_order(prefixed);
}

#endif
