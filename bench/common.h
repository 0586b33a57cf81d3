/*
 * common.h: what the bench programs (bench.c, blocks.c, selection.c) share: the checks, the
 * timing with each rank's wait for a CPU, the CSV row, the shuffled order of a round, the
 * data paths and buffers, and raw HDF5's property lists as dah5 sets them up. One program
 * includes it once (its globals are the program's).
 */
#ifndef DAH5_BENCH_COMMON_H
#define DAH5_BENCH_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>
#include <mpi.h>

#include "dah5_mpi.h"

/* This process's rank, the number of ranks, the data directory (a program that uses none of
 * them, selection.c, still compiles without a warning). */
#define BENCH_MAYBE_UNUSED __attribute__((unused))
static int rank_g BENCH_MAYBE_UNUSED, size_g BENCH_MAYBE_UNUSED;
static char dir_g[4096] BENCH_MAYBE_UNUSED;

static inline void check(int32_t status, const char *what)
{
    if (status != DAH5_OK) {
        fprintf(stderr, "rank %d: %s: %s: %s\n", rank_g, what, dah5_status_name(status),
                dah5_last_error_message());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static inline void check_mpi(int code, const char *what)
{
    if (code != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: %s failed (%d)\n", rank_g, what, code);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static inline void check_h5(long long code, const char *what)
{
    if (code < 0) {
        fprintf(stderr, "rank %d: %s failed\n", rank_g, what);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static inline double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A moment of this thread: the wall clock, and its time so far waiting for a CPU while
 * runnable (/proc/thread-self/schedstat; 0 where the kernel keeps none). */
struct moment {
    double wall, waiting;
};

static inline struct moment moment_now(void)
{
    struct moment m = {now(), 0};
    unsigned long long on_cpu = 0, waiting = 0;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    if (!f)
        return m;
    if (fscanf(f, "%llu %llu", &on_cpu, &waiting) == 2)
        m.waiting = (double)waiting * 1e-9;
    fclose(f);
    return m;
}

/* One timed operation: its wall time, and the largest fraction of it any rank waited for
 * a CPU. */
struct timing {
    double seconds, waited;
};

/* The operation between `a` and `b` (collective: the fraction is the ranks' largest). */
static inline struct timing between(struct moment a, struct moment b)
{
    double seconds = b.wall - a.wall, mine = 0, most = 0;
    if (seconds > 0)
        mine = (b.waiting - a.waiting) / seconds;
    MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return (struct timing){seconds, most};
}

/* Time `op(arg)` between barriers, after sync(2). */
static inline struct timing time_op(void (*op)(void *), void *arg)
{
    sync();
    MPI_Barrier(MPI_COMM_WORLD);
    struct moment start = moment_now();
    op(arg);
    MPI_Barrier(MPI_COMM_WORLD);
    return between(start, moment_now());
}

/* One CSV row (rank 0 prints), `size` as the CSV above says. */
static inline void row(const char *protocol, const char *method, int round, struct timing t,
                unsigned long long size)
{
    if (rank_g == 0)
        printf("%s,%s,%d,%.6f,%llu,%.4f\n", protocol, method, round, t.seconds, size, t.waited);
}

/* Round `round`'s order of `n` methods: a shuffle seeded by the round, the same on every
 * rank, so that no method always runs after the same one. */
static inline void shuffled(int *order, int n, int round)
{
    unsigned long long state = 0x9e3779b97f4a7c15ULL * (unsigned long long)(round + 1);
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        int j = (int)((state >> 33) % (unsigned long long)(i + 1));
        int k = order[i];
        order[i] = order[j];
        order[j] = k;
    }
}

static inline const char *path(const char *name)
{
    static char buf[8][4352];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, 4352, "%s/%s", dir_g, name);
    return p;
}

/* A buffer as NumPy allocates a big array: 2 MiB aligned, transparent huge pages asked for
 * (madvise). Page size changes copy speed by about a third here, so every method, C or
 * Python, gets the same kind of memory. */
static inline double *buffer(uint64_t bytes)
{
    void *p = NULL;
    size_t huge = 2 << 20, len = (bytes + huge - 1) / huge * huge;
    if (posix_memalign(&p, huge, len ? len : huge) != 0) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    madvise(p, len, MADV_HUGEPAGE);
    return p;
}

/* File access as dah5 sets it up for a parallel file (collective metadata, 1 MiB alignment). */
static inline hid_t raw_fapl(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    check_h5(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), "fapl");
    H5Pset_all_coll_metadata_ops(fapl, 1);
    H5Pset_coll_metadata_write(fapl, 1);
    H5Pset_alignment(fapl, 1 << 20, 1 << 20);
    return fapl;
}

/* Dataset creation as dah5 makes a fixed-size dataset: contiguous, its space allocated at
 * create, no fill. */
static inline hid_t raw_dcpl(void)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_layout(dcpl, H5D_CONTIGUOUS);
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    return dcpl;
}

#endif
