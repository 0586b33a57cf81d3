/*
 * expect.h: the assertions of the check-by-check test drivers (bad_input.c,
 * small_cases.c): each asserts a status and a piece of the last-error message, counts the
 * check, and counts a failure (reported on stderr) instead of ending the job. Set
 * EXPECT_VERBOSE=1 to have rank 0 print every check.
 */
#ifndef DAH5_TEST_EXPECT_H
#define DAH5_TEST_EXPECT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dah5.h"

static int rank, size, failures, checks;

/* Assert `status == want` and that the message contains `text` (if not NULL, and the
 * call failed). */
static void expect(int32_t status, int32_t want, const char *text, const char *what)
{
    checks++;
    const char *msg = status != DAH5_OK ? dah5_last_error_message() : "";
    if (getenv("EXPECT_VERBOSE") && rank == 0)
        printf("%-58s %-28s %s\n", what, dah5_status_name(status), msg);
    if (status != want || (status != DAH5_OK && text && !strstr(msg, text))) {
        fprintf(stderr, "rank %d: FAIL %s: got %s, want %s (message must contain \"%s\"): %s\n", rank, what,
                dah5_status_name(status), dah5_status_name(want), text ? text : "", msg);
        failures++;
    }
}

/* Assert also that every rank got the same status (for collective calls). */
static void expect_all(int32_t status, int32_t want, const char *text, const char *what)
{
    expect(status, want, text, what);
    int lo, hi;
    MPI_Allreduce(&status, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&status, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (lo != hi) {
        fprintf(stderr, "rank %d: FAIL %s: ranks got different statuses %d..%d\n", rank, what, lo, hi);
        failures++;
    }
}

static void ok(int32_t status, const char *what) { expect(status, DAH5_OK, NULL, what); }

#endif
