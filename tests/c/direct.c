/*
 * direct.c: the test driver for direct block mode (driven by tests/direct.rs). No MPI: the
 * parent process plays Julia's master, forked children play addprocs workers.
 *
 *   direct write PATH DSET DTYPE ORDER GRID OPTIONS D0 [D1 ...]
 *       the parent creates the dataset and its block table (dah5_direct_create), forks one
 *       child per cell of GRID ("2x2": one factor per dim), and the children write their
 *       blocks concurrently; then the parent reads everything back and checks it.
 *       OPTIONS: "-" or letters: l = DAH5_DIRECT_LOCK, k = the last child writes half its
 *       block and is killed (SIGKILL): every other block must be intact
 *   direct read PATH DSET DTYPE ORDER NPROC
 *       NPROC children each read a row range of an existing dataset and check it
 *   direct refuse PATH               the datasets of tests/py/make_refused.py are refused
 *   direct locked PATH               PATH is held locked (flock) by another process: adding a
 *                                    dataset fails with a message on locking, and works
 *                                    with DAH5_NO_FILE_LOCKING
 *
 * Data follows tests/c/pattern.h. One summary line on stdout; failures on stderr, exit 1.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dah5.h"
#include "pattern.h"

static int failures_g;

static void fail(const char *what, int32_t status)
{
    fprintf(stderr, "pid %d: %s: %s: %s\n", (int)getpid(), what, dah5_status_name(status),
            dah5_last_error_message());
    failures_g++;
}

static int ok(int32_t status, const char *what)
{
    if (status != DAH5_OK)
        fail(what, status);
    return status == DAH5_OK;
}

static uint32_t order_flag(const char *order) { return strcmp(order, "f") == 0 ? DAH5_ORDER_F : 0; }

static uint64_t elements(uint32_t ndims, const uint64_t *count)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < ndims; d++)
        n *= count[d];
    return n;
}

/* Read a block and compare with the pattern; returns wrong elements (or all, on error). */
static uint64_t verify(dah5_direct *dd, const struct dtype_info *t, uint32_t ndims, const uint64_t *dims,
                       const uint64_t *offset, const uint64_t *count, int forder)
{
    uint64_t n = elements(ndims, count);
    char *got = malloc(n * t->size + 1), *want = malloc(n * t->size + 1);
    uint64_t wrong = n;
    if (ok(dah5_direct_read_block(dd, offset, count, t->code, got), "read")) {
        pattern_fill(t->code, t->size, ndims, dims, offset, count, forder, want);
        wrong = 0;
        for (uint64_t e = 0; e < n; e++)
            wrong += memcmp(got + e * t->size, want + e * t->size, t->size) != 0;
    }
    free(got);
    free(want);
    return wrong;
}

/* A worker: open, write the block (or half of it, then die), sync, close. */
static int child_write(const char *path, const char *name, const struct dtype_info *t, uint32_t flags,
                       uint32_t ndims, const uint64_t *dims, const uint64_t *offset, const uint64_t *count,
                       int crash)
{
    dah5_direct *dd = NULL;
    if (!ok(dah5_direct_open(path, name, DAH5_RDWR | flags, &dd), "open"))
        return 1;
    uint64_t n = elements(ndims, count);
    char *buf = malloc(n * t->size + 1);
    int forder = (flags & DAH5_ORDER_F) != 0;
    pattern_fill(t->code, t->size, ndims, dims, offset, count, forder, buf);
    if (crash) {
        /* Half the block along its slowest dimension, then killed mid-job. */
        uint64_t half[DAH5_MAX_NDIMS];
        memcpy(half, count, ndims * sizeof *count);
        uint32_t slowest = forder ? ndims - 1 : 0;
        half[slowest] = count[slowest] / 2;
        uint64_t m = elements(ndims, half);
        char *part = malloc(m * t->size + 1);
        pattern_fill(t->code, t->size, ndims, dims, offset, half, forder, part);
        ok(dah5_direct_write_block(dd, offset, half, t->code, part), "write half");
        raise(SIGKILL);
    }
    int good = ok(dah5_direct_write_block(dd, offset, count, t->code, buf), "write") &&
               ok(dah5_direct_sync(dd), "sync") && ok(dah5_direct_close(&dd), "close");
    free(buf);
    return good ? 0 : 1;
}

static int write_mode(int argc, char **argv)
{
    const char *path = argv[2], *name = argv[3];
    const struct dtype_info *t = dtype_by_name(argv[4]);
    uint32_t oflag = order_flag(argv[5]), lock = strchr(argv[7], 'l') ? DAH5_DIRECT_LOCK : 0;
    int crash = strchr(argv[7], 'k') != NULL;
    uint32_t ndims = (uint32_t)(argc - 8);
    uint64_t dims[DAH5_MAX_NDIMS], grid[DAH5_MAX_NDIMS], cells = 1;
    char *g = argv[6];
    for (uint32_t d = 0; d < ndims; d++) {
        dims[d] = strtoull(argv[8 + d], NULL, 10);
        grid[d] = strtoull(g, &g, 10);
        g += *g == 'x';
        cells *= grid[d];
    }
    uint64_t *offsets = calloc(cells * ndims, 8), *counts = calloc(cells * ndims, 8);
    for (uint64_t c = 0; c < cells; c++)
        grid_block(ndims, dims, grid, c, offsets + c * ndims, counts + c * ndims);
    if (!ok(dah5_direct_create(path, name, t->code, ndims, dims, DAH5_TRUNC | oflag, (uint32_t)cells, offsets,
                               counts), "create"))
        return 1;
    pid_t *pids = calloc(cells, sizeof *pids);
    for (uint64_t c = 0; c < cells; c++) {
        fflush(stdout);
        pids[c] = fork();
        if (pids[c] == 0)
            _exit(child_write(path, name, t, oflag | lock, ndims, dims, offsets + c * ndims, counts + c * ndims,
                              crash && c == cells - 1));
    }
    int killed = 0;
    for (uint64_t c = 0; c < cells; c++) {
        int st = 0;
        waitpid(pids[c], &st, 0);
        if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && crash && c == cells - 1)
            killed++;
        else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "worker %llu failed (status %d)\n", (unsigned long long)c, st);
            failures_g++;
        }
    }
    /* The parent reads every block back (the crashed one is skipped: it is half written). */
    dah5_direct *dd = NULL;
    uint64_t wrong = 0;
    if (ok(dah5_direct_open(path, name, DAH5_RDONLY | oflag, &dd), "open to check")) {
        for (uint64_t c = 0; c < cells - (uint64_t)killed; c++)
            wrong += verify(dd, t, ndims, dims, offsets + c * ndims, counts + c * ndims, oflag != 0);
        dah5_direct_close(&dd);
    }
    if (wrong)
        fprintf(stderr, "%llu wrong elements\n", (unsigned long long)wrong), failures_g++;
    printf("%llu workers wrote %s, %d killed, %llu wrong elements\n", (unsigned long long)cells, name, killed,
           (unsigned long long)wrong);
    return 0;
}

static int read_mode(char **argv)
{
    const char *path = argv[2], *name = argv[3];
    const struct dtype_info *t = dtype_by_name(argv[4]);
    uint32_t oflag = order_flag(argv[5]);
    int nproc = atoi(argv[6]);
    dah5_direct *dd = NULL;
    int32_t dtype = 0;
    uint32_t ndims = 0;
    uint64_t dims[DAH5_MAX_NDIMS];
    if (!ok(dah5_direct_open(path, name, DAH5_RDONLY | oflag, &dd), "open") ||
        !ok(dah5_direct_shape(dd, &dtype, &ndims, DAH5_MAX_NDIMS, dims), "shape"))
        return 1;
    if (dtype != t->code)
        fprintf(stderr, "dtype %d, expected %d\n", dtype, t->code), failures_g++;
    dah5_direct_close(&dd);
    uint32_t slowest = oflag ? ndims - 1 : 0;
    for (int p = 0; p < nproc; p++) {
        fflush(stdout);
        if (fork() == 0) {
            uint64_t offset[DAH5_MAX_NDIMS] = {0}, count[DAH5_MAX_NDIMS];
            memcpy(count, dims, ndims * sizeof *dims);
            offset[slowest] = dims[slowest] * (uint64_t)p / (uint64_t)nproc;
            count[slowest] = dims[slowest] * (uint64_t)(p + 1) / (uint64_t)nproc - offset[slowest];
            dah5_direct *mine = NULL;
            uint64_t wrong = 1;
            if (ok(dah5_direct_open(path, name, DAH5_RDONLY | oflag, &mine), "open"))
                wrong = verify(mine, t, ndims, dims, offset, count, oflag != 0);
            _exit(wrong || failures_g ? 1 : 0);
        }
    }
    for (int p = 0; p < nproc; p++) {
        int st = 0;
        wait(&st);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            failures_g++;
    }
    printf("%d readers checked %s\n", nproc, name);
    return 0;
}

static int refuse_mode(char **argv)
{
    static const struct {
        const char *name, *needle;
    } cases[] = {
        {"chunked", "is not contiguous"},  {"compressed", "is not contiguous"},
        {"compact", "is not contiguous"},  {"external", "external files"},
        {"unallocated", "no storage allocated"}, {"bigendian", "foreign byte order"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dah5_direct *dd = NULL;
        int32_t status = dah5_direct_open(argv[2], cases[i].name, DAH5_RDWR, &dd);
        if (status != DAH5_ERR_INVALID_ARGUMENT || !strstr(dah5_last_error_message(), cases[i].needle)) {
            fprintf(stderr, "%s: %s: %s\n", cases[i].name, dah5_status_name(status), dah5_last_error_message());
            failures_g++;
        }
    }
    dah5_direct *dd = NULL;
    /* A missing file is NOT_FOUND, as on the MPI path, not an HDF5 error. */
    int32_t missing = dah5_direct_open("no-such-dir/missing.h5", "fine", DAH5_RDWR, &dd);
    if (missing != DAH5_ERR_NOT_FOUND || dd != NULL) {
        fprintf(stderr, "missing file: %s: %s\n", dah5_status_name(missing), dah5_last_error_message());
        failures_g++;
    }
    ok(dah5_direct_open(argv[2], "fine", DAH5_RDWR, &dd), "the contiguous one opens");
    double v = 1.0;
    uint64_t off[1] = {10}, cnt[1] = {1};
    if (dah5_direct_write_block(dd, off, cnt, DAH5_FLOAT64, &v) != DAH5_ERR_OUT_OF_BOUNDS)
        fprintf(stderr, "out-of-bounds write accepted\n"), failures_g++;
    if (dah5_direct_write_block(dd, (uint64_t[]){0}, cnt, DAH5_INT32, &v) != DAH5_ERR_TYPE_MISMATCH)
        fprintf(stderr, "wrong dtype accepted\n"), failures_g++;
    dah5_direct_close(&dd);
    if (dah5_direct_close(&dd) != DAH5_OK || dah5_direct_read_block(dd, off, cnt, DAH5_FLOAT64, &v) !=
                                                  DAH5_ERR_NULL_ARGUMENT)
        fprintf(stderr, "closed handle\n"), failures_g++;
    printf("refused %zu layouts\n", sizeof cases / sizeof cases[0]);
    return 0;
}

static int locked_mode(char **argv)
{
    uint64_t dims[1] = {4};
    int32_t status = dah5_direct_create(argv[2], "late", DAH5_FLOAT64, 1, dims, 0, 0, NULL, NULL);
    if (status == DAH5_OK || !strstr(dah5_last_error_message(), "DAH5_NO_FILE_LOCKING"))
        fprintf(stderr, "locked file: %s: %s\n", dah5_status_name(status), dah5_last_error_message()),
            failures_g++;
    ok(dah5_direct_create(argv[2], "late", DAH5_FLOAT64, 1, dims, DAH5_NO_FILE_LOCKING, 0, NULL, NULL),
       "create without file locking");
    dah5_direct *dd = NULL;
    ok(dah5_direct_open(argv[2], "late", DAH5_RDWR | DAH5_NO_FILE_LOCKING, &dd), "open without locking");
    dah5_direct_close(&dd);
    printf("locked file: %s, then without locking fine\n", dah5_status_name(status));
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 2 ? argv[1] : "";
    if (strcmp(mode, "write") == 0 && argc >= 9)
        write_mode(argc, argv);
    else if (strcmp(mode, "read") == 0 && argc == 7)
        read_mode(argv);
    else if (strcmp(mode, "refuse") == 0)
        refuse_mode(argv);
    else if (strcmp(mode, "locked") == 0)
        locked_mode(argv);
    else {
        fprintf(stderr, "usage: see the comment at the top of tests/c/direct.c\n");
        return 2;
    }
    return failures_g ? 1 : 0;
}
