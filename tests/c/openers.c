/*
 * openers.c: other openers of one file (tests/openers.rs runs each case). Every value is
 * 10000 * round + i (float64, dims {4096}, each rank its even share); each rank prints one
 * line per call it checks, "rank R: WHAT: STATUS_NAME[, round K][: message]", where round
 * 0 is all zeros and -1 a mix. The test reads those lines; this program asserts nothing
 * but the calls that set a case up (check.h ends the job if one fails).
 *
 *   mpiexec -n 2 ./openers MODE DIR [ROUND]
 *
 *   write DIR      (a) writer: shared.h5 with "packed" (chunked, deflated) and "plain"
 *                  (contiguous), attribute "round" on the root; round 1, flush, pause 1;
 *                  round 2, flush, pause 2; close. A pause: rank 0 creates DIR/readyN and
 *                  waits (at most 60 s) for DIR/goN.
 *   read DIR       (a) reader job: opens shared.h5 read-only at pause 1 and reads; reads
 *                  again at pause 2, after the writer's flush; closes, reopens, reads.
 *   twice DIR      (b) twice.h5 open for writing, then opened again in this job: read-write,
 *                  created with DAH5_TRUNC, read-only; then after the first handle's close.
 *   first DIR      (c) job A: race.h5 created, "first" written and flushed, pause 1, round 2
 *                  flushed, closed.
 *   second DIR     (c) job B, at A's pause 1: race.h5 created with DAH5_TRUNC, opened
 *                  read-write, opened read-only.
 *   truncated DIR  (d) cut.h5 written and closed, opened read-only and read, truncated to
 *                  half by rank 0, read again, closed, opened again.
 *   subfiled DIR R (e) sub.h5 with the subfiled darray "x" of round R.
 *   readsub DIR    (e) sub.h5 opened read-only, "x" opened and read whole by every rank.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "check.h"
#include "dah5_mpi.h"
#include "rank_order.h"

#define N 4096

static int rank, size;
static const char *dir;
/* What this rank's calls returned, a line each (see `say`). */
static char said[65536];

/* The first line of the last error's message. */
static void first_line(char *out, size_t len)
{
    snprintf(out, len, "%s", dah5_last_error_message());
    out[strcspn(out, "\n")] = '\0';
}

/* One line of what a call returned; `round` < -1 leaves the round out. */
static int32_t say(const char *what, int32_t status, int round)
{
    char message[1024] = "";
    if (status != DAH5_OK)
        first_line(message, sizeof message);
    char shown[32] = "";
    if (status == DAH5_OK && round >= -1)
        snprintf(shown, sizeof shown, ", round %d", round);
    size_t used = strlen(said);
    snprintf(said + used, sizeof said - used, "rank %d: %s: %s%s%s%s\n", rank, what, dah5_status_name(status),
             shown, *message ? ": " : "", message);
    return status;
}

static void path_of(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", dir, name);
}

/* The round of `n` values at `offset`: 0 all zeros, -1 a mix. */
static int round_of(const double *v, uint64_t offset, uint64_t n)
{
    for (int round = 0; round <= 3; round++) {
        uint64_t i = 0;
        while (i < n && v[i] == (round ? 10000.0 * round + (double)(offset + i) : 0.0))
            i++;
        if (i == n)
            return round;
    }
    return -1;
}

static void fill(double *v, uint64_t offset, uint64_t n, int round)
{
    for (uint64_t i = 0; i < n; i++)
        v[i] = 10000.0 * round + (double)(offset + i);
}

/* This rank's share of the N elements. */
static void share(uint64_t *offset, uint64_t *count)
{
    offset[0] = N * (uint64_t)rank / (uint64_t)size;
    count[0] = N * (uint64_t)(rank + 1) / (uint64_t)size - offset[0];
}

static void touch(const char *name)
{
    char path[4096];
    path_of(path, sizeof path, name);
    FILE *f = fopen(path, "w");
    if (f == NULL || fclose(f) != 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
}

/* Rank 0 waits (at most 60 s) until DIR/name exists; the others wait with it. */
static void wait_for(const char *name)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        char path[4096];
        path_of(path, sizeof path, name);
        for (int waited = 0; access(path, F_OK) != 0 && waited < 6000; waited++)
            nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank 0 says it reached pause n and waits for the go. */
static void pause_for(int n)
{
    char ready[32], go[32];
    snprintf(ready, sizeof ready, "ready%d", n);
    snprintf(go, sizeof go, "go%d", n);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        touch(ready);
    wait_for(go);
}

/* Every rank reads the whole dataset (`flags`: 0 or DAH5_COLLECTIVE). */
static void read_whole(dah5_dataset *dset, uint32_t flags, const char *what)
{
    double *all = calloc(N, sizeof *all);
    uint64_t offset[1] = {0}, count[1] = {N};
    int32_t status = dah5_read_block(dset, offset, count, DAH5_FLOAT64, all, flags);
    say(what, status, round_of(all, 0, N));
    free(all);
}

/* This rank reads its own share. */
static void read_share(dah5_dataset *dset, const char *what)
{
    uint64_t offset[1], count[1];
    share(offset, count);
    double *mine = calloc(count[0], sizeof *mine);
    int32_t status = dah5_read_block(dset, offset, count, DAH5_FLOAT64, mine, 0);
    say(what, status, round_of(mine, offset[0], count[0]));
    free(mine);
}

static void read_round_attr(dah5_file *file, const char *what)
{
    int32_t round = -1;
    uint64_t got = 0;
    int32_t status = dah5_attr_read(file, "/", "round", DAH5_INT32, 1, &round, &got);
    say(what, status, round);
}

static void write_share(dah5_dataset *dset, int round)
{
    uint64_t offset[1], count[1];
    share(offset, count);
    double *mine = malloc(count[0] * sizeof *mine);
    fill(mine, offset[0], count[0], round);
    check(dah5_write_block(dset, offset, count, DAH5_FLOAT64, mine, DAH5_COLLECTIVE), "write");
    free(mine);
}

static void write_round(dah5_file *file, dah5_dataset **dsets, int ndsets, int round)
{
    for (int d = 0; d < ndsets; d++)
        write_share(dsets[d], round);
    check(dah5_attr_write(file, "/", "round", DAH5_INT32, 0, 1, &round), "attribute");
}

static void create_plain(dah5_file *file, const char *name, dah5_dataset **out)
{
    uint64_t dims[1] = {N};
    check(dah5_dataset_create(file, name, DAH5_FLOAT64, 1, dims, NULL, out), "dataset");
}

static void create_packed(dah5_file *file, const char *name, dah5_dataset **out)
{
    dah5_dataset_options opts;
    check(dah5_dataset_options_default(&opts), "options");
    opts.deflate_level = 1;
    opts.chunk_ndims = 1;
    opts.chunk[0] = N / 4;
    uint64_t dims[1] = {N};
    check(dah5_dataset_create(file, name, DAH5_FLOAT64, 1, dims, &opts, out), "dataset");
}

static void close_all(dah5_file **file, dah5_dataset **dsets, int ndsets)
{
    for (int d = 0; d < ndsets; d++)
        check(dah5_dataset_close(&dsets[d]), "dataset close");
    check(dah5_file_close(file), "close");
}

/* (a) the writer: two rounds, each flushed, a pause after each. */
static void writer(void)
{
    char path[4096];
    path_of(path, sizeof path, "shared.h5");
    dah5_file *file = NULL;
    dah5_dataset *dsets[2] = {NULL, NULL};
    check(dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &file), "create");
    create_packed(file, "packed", &dsets[0]);
    create_plain(file, "plain", &dsets[1]);
    for (int round = 1; round <= 2; round++) {
        write_round(file, dsets, 2, round);
        check(dah5_file_flush(file), "flush");
        pause_for(round);
    }
    close_all(&file, dsets, 2);
}

/* (a) the reader job: opened before the writer's last flush, read after it. */
static void reader(void)
{
    char path[4096];
    path_of(path, sizeof path, "shared.h5");
    wait_for("ready1");
    dah5_file *file = NULL;
    dah5_dataset *packed = NULL, *plain = NULL, *again = NULL;
    check(dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDONLY, &file), "open");
    check(dah5_dataset_open(file, "packed", &packed), "open packed");
    check(dah5_dataset_open(file, "plain", &plain), "open plain");
    read_whole(packed, DAH5_COLLECTIVE, "before: packed collective");
    read_whole(plain, 0, "before: plain independent");
    read_round_attr(file, "before: attribute");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        touch("go1");
    wait_for("ready2");
    read_whole(packed, DAH5_COLLECTIVE, "after: packed collective");
    read_share(packed, "after: packed independent");
    read_whole(plain, DAH5_COLLECTIVE, "after: plain collective");
    read_share(plain, "after: plain independent");
    read_round_attr(file, "after: attribute");
    if (say("after: dataset open", dah5_dataset_open(file, "plain", &again), -2) == DAH5_OK)
        check(dah5_dataset_close(&again), "close");
    check(dah5_dataset_close(&packed), "close packed");
    check(dah5_dataset_close(&plain), "close plain");
    say("after: close", dah5_file_close(&file), -2);
    check(dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDONLY, &file), "reopen");
    check(dah5_dataset_open(file, "packed", &packed), "reopen packed");
    read_whole(packed, DAH5_COLLECTIVE, "reopened: packed collective");
    read_round_attr(file, "reopened: attribute");
    check(dah5_dataset_close(&packed), "close packed");
    check(dah5_file_close(&file), "close");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        touch("go2");
}

/* (b) the same file opened again in this job while open for writing. */
static void twice(void)
{
    char path[4096];
    path_of(path, sizeof path, "twice.h5");
    dah5_file *file = NULL, *other = NULL;
    dah5_dataset *a = NULL, *b = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &file), "create");
    create_plain(file, "a", &a);
    write_round(file, &a, 1, 1);
    check(dah5_file_flush(file), "flush");
    if (say("second handle: open DAH5_RDWR", dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDWR, &other), -2) ==
        DAH5_OK) {
        /* What today's code lets happen: a dataset and an attribute through it. */
        create_plain(other, "b", &b);
        write_share(b, 1);
        int32_t mark = 7;
        check(dah5_attr_write(other, "/", "b_attr", DAH5_INT32, 0, 1, &mark), "attribute b_attr");
        check(dah5_dataset_close(&b), "close b");
        say("second handle: close", dah5_file_close(&other), -2);
    }
    if (say("second handle: create DAH5_TRUNC", dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &other),
            -2) == DAH5_OK)
        say("second handle: close", dah5_file_close(&other), -2);
    say("second handle: create", dah5_file_create_comm(MPI_COMM_WORLD, path, 0, &other), -2);
    if (say("second handle: open DAH5_RDONLY", dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDONLY, &other),
            -2) == DAH5_OK)
        say("second handle: close", dah5_file_close(&other), -2);
    write_round(file, &a, 1, 2);
    check(dah5_dataset_close(&a), "close a");
    say("first handle: close", dah5_file_close(&file), -2);
    if (say("after the close: open DAH5_RDWR", dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDWR, &other), -2) ==
        DAH5_OK)
        say("after the close: close", dah5_file_close(&other), -2);
}

/* (c) job A: writes race.h5, pausing with it open. */
static void first(void)
{
    char path[4096];
    path_of(path, sizeof path, "race.h5");
    dah5_file *file = NULL;
    dah5_dataset *dset = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &file), "create");
    create_plain(file, "first", &dset);
    write_round(file, &dset, 1, 1);
    check(dah5_file_flush(file), "flush");
    pause_for(1);
    write_round(file, &dset, 1, 2);
    check(dah5_file_flush(file), "flush");
    check(dah5_dataset_close(&dset), "close first");
    say("first: close", dah5_file_close(&file), -2);
}

/* (c) job B: creates and opens race.h5 while job A has it open. */
static void second(void)
{
    char path[4096];
    path_of(path, sizeof path, "race.h5");
    wait_for("ready1");
    dah5_file *file = NULL;
    dah5_dataset *dset = NULL;
    if (say("second: create DAH5_TRUNC", dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &file), -2) ==
        DAH5_OK) {
        create_plain(file, "second", &dset);
        write_round(file, &dset, 1, 1);
        check(dah5_dataset_close(&dset), "close second");
        say("second: close", dah5_file_close(&file), -2);
    }
    if (say("second: open DAH5_RDWR", dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDWR, &file), -2) == DAH5_OK)
        say("second: close", dah5_file_close(&file), -2);
    if (say("second: open DAH5_RDONLY", dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDONLY, &file), -2) ==
        DAH5_OK)
        say("second: close", dah5_file_close(&file), -2);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        touch("go1");
}

/* (d) a file truncated under an open reader. */
static void truncated(void)
{
    char path[4096];
    path_of(path, sizeof path, "cut.h5");
    dah5_file *file = NULL;
    dah5_dataset *dsets[2] = {NULL, NULL};
    check(dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &file), "create");
    create_plain(file, "plain", &dsets[0]);
    create_packed(file, "packed", &dsets[1]);
    write_round(file, dsets, 2, 1);
    close_all(&file, dsets, 2);
    check(dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDONLY, &file), "open");
    check(dah5_dataset_open(file, "plain", &dsets[0]), "open plain");
    check(dah5_dataset_open(file, "packed", &dsets[1]), "open packed");
    read_whole(dsets[0], DAH5_COLLECTIVE, "before: plain collective");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        FILE *f = fopen(path, "rb");
        if (f == NULL || fseek(f, 0, SEEK_END) != 0)
            MPI_Abort(MPI_COMM_WORLD, 2);
        long half = ftell(f) / 2;
        if (fclose(f) != 0 || truncate(path, half) != 0)
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    read_whole(dsets[0], DAH5_COLLECTIVE, "after: plain collective");
    read_share(dsets[0], "after: plain independent");
    read_whole(dsets[1], 0, "after: packed independent");
    read_round_attr(file, "after: attribute");
    check(dah5_dataset_close(&dsets[0]), "close plain");
    check(dah5_dataset_close(&dsets[1]), "close packed");
    say("after: close", dah5_file_close(&file), -2);
    if (say("reopened", dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDONLY, &file), -2) == DAH5_OK)
        check(dah5_file_close(&file), "close");
}

/* (e) the subfiled darray "x" of round `round`. */
static void subfiled(int round)
{
    char path[4096];
    path_of(path, sizeof path, "sub.h5");
    uint64_t dims[1] = {N}, offset[1], count[1];
    share(offset, count);
    double *mine = malloc(count[0] * sizeof *mine);
    fill(mine, offset[0], count[0], round);
    dah5_file *file = NULL;
    dah5_dataset *dset = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &file), "create");
    check(dah5_darray_write(file, "x", DAH5_FLOAT64, 1, dims, offset, count, mine, DAH5_DARRAY_SUBFILED, NULL, &dset),
          "darray");
    close_all(&file, &dset, 1);
    free(mine);
}

/* (e) sub.h5 read back whole by every rank. */
static void readsub(void)
{
    char path[4096];
    path_of(path, sizeof path, "sub.h5");
    dah5_file *file = NULL;
    dah5_dataset *dset = NULL;
    check(dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDONLY, &file), "open");
    if (say("dataset open", dah5_dataset_open(file, "x", &dset), -2) == DAH5_OK) {
        read_whole(dset, 0, "whole");
        read_share(dset, "share");
        check(dah5_dataset_close(&dset), "close x");
    }
    check(dah5_file_close(&file), "close");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) {
        fprintf(stderr, "usage: openers MODE DIR [ROUND]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *mode = argv[1];
    dir = argv[2];
    if (!strcmp(mode, "write"))
        writer();
    else if (!strcmp(mode, "read"))
        reader();
    else if (!strcmp(mode, "twice"))
        twice();
    else if (!strcmp(mode, "first"))
        first();
    else if (!strcmp(mode, "second"))
        second();
    else if (!strcmp(mode, "truncated"))
        truncated();
    else if (!strcmp(mode, "subfiled") && argc > 3)
        subfiled(atoi(argv[3]));
    else if (!strcmp(mode, "readsub"))
        readsub();
    else {
        fprintf(stderr, "openers: unknown mode %s\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    print_in_rank_order(said);
    MPI_Finalize();
    return 0;
}
