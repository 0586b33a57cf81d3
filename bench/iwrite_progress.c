/*
 * iwrite_progress.c: does this MPI's nonblocking file write make progress while the caller
 * computes without calling MPI? (Plain MPI, no HDF5 and no dah5: it tells what a write
 * behind compute can expect from MPI-IO itself.)
 *
 *   mpiexec -n 2 iwrite_progress DIR [MIB_PER_RANK=256] [ROUNDS=3]
 *
 * Each round, each rank writes its own MIB region of one new file (rank * MIB), first
 * synchronously (MPI_File_write_at: its time S, the ranks' largest), then twice with
 * MPI_File_iwrite_at followed by "compute" for S without any MPI call, then MPI_Wait:
 *   spin:  a busy loop reading clock_gettime (the core stays busy);
 *   sleep: usleep (the core is free).
 * If the write progresses during the compute, MPI_Wait returns at once; if the call itself
 * does the write, iwrite_at takes S; if nothing happens until MPI_Wait, the wait takes S.
 * Also reported: this process's CPU wait (ns runnable but not running, the second field of
 * /proc/self/schedstat: the main thread; and the sum over /proc/self/task/ (all threads,
 * MPI-IO's helper threads included) and the number of threads after the call.
 *
 * Output (rank 0, CSV after a '#' header): mpi,round,mode,seconds of the call, of the
 * compute, of MPI_Wait, total, the sync write's seconds, CPU wait of the main thread and of
 * all threads in seconds (the ranks' largest), threads after the call (the ranks' largest).
 * Every measurement starts after sync(2) and a barrier, on a new file.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "schedstat.h"

static int rank_g, size_g;
static char dir_g[4096];

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void check_mpi(int code, const char *what)
{
    if (code != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: %s failed (%d)\n", rank_g, what, code);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static const char *path(const char *name)
{
    static char buf[4352];
    snprintf(buf, sizeof buf, "%s/%s", dir_g, name);
    return buf;
}

static MPI_File open_new(const char *name)
{
    MPI_File fh;
    if (rank_g == 0)
        unlink(path(name));
    MPI_Barrier(MPI_COMM_WORLD);
    check_mpi(MPI_File_open(MPI_COMM_WORLD, path(name), MPI_MODE_CREATE | MPI_MODE_WRONLY,
                            MPI_INFO_NULL, &fh),
              "MPI_File_open");
    sync();
    MPI_Barrier(MPI_COMM_WORLD);
    return fh;
}

static double max_of(double x)
{
    double m;
    MPI_Allreduce(&x, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

/* The busy "compute": no MPI call, only the clock. */
static void spin(double seconds)
{
    double end = now() + seconds;
    volatile unsigned long long k = 0;
    while (now() < end)
        k++;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_g);
    MPI_Comm_size(MPI_COMM_WORLD, &size_g);
    if (argc < 2) {
        if (rank_g == 0)
            fprintf(stderr, "usage: iwrite_progress DIR [MIB_PER_RANK] [ROUNDS]\n");
        MPI_Finalize();
        return 1;
    }
    snprintf(dir_g, sizeof dir_g, "%s", argv[1]);
    long long mib = argc > 2 ? atoll(argv[2]) : 256;
    int rounds = argc > 3 ? atoi(argv[3]) : 3;
    size_t bytes = (size_t)mib << 20;
    char *buf = NULL;
    if (posix_memalign((void **)&buf, 2 << 20, bytes) != 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    madvise(buf, bytes, MADV_HUGEPAGE);
    for (size_t i = 0; i < bytes; i++)
        buf[i] = (char)(i * 7 + (size_t)rank_g);
    MPI_Offset off = (MPI_Offset)bytes * rank_g;
    int count = (int)(bytes / 8); /* MPI_DOUBLE elements: 256 MiB fits an int count */

    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(version, &len);
    char mpi[64];
    snprintf(mpi, sizeof mpi, "%s", strstr(version, "Open MPI") ? "openmpi" : strstr(version, "MPICH") ? "mpich" : "other");
    if (rank_g == 0) {
        char *nl = strchr(version, '\n');
        if (nl)
            *nl = 0;
        printf("# %s; %d ranks, %lld MiB a rank, %d rounds, dir %s\n", version, size_g, mib, rounds, dir_g);
        printf("# mpi,round,mode,call_s,compute_s,wait_s,total_s,sync_write_s,cpu_wait_main_s,cpu_wait_all_s,threads\n");
    }
    MPI_Status st;
    for (int round = 0; round <= rounds; round++) { /* round 0: a warm-up */
        /* The synchronous write: S. */
        MPI_File fh = open_new("iwrite_sync.bin");
        double w0 = waited_in("/proc/self/schedstat"), a0 = waited_all(NULL), t0 = now();
        check_mpi(MPI_File_write_at(fh, off, buf, count, MPI_DOUBLE, &st), "MPI_File_write_at");
        double t1 = now();
        int threads;
        double w1 = waited_in("/proc/self/schedstat"), a1 = waited_all(&threads);
        MPI_File_close(&fh);
        double sync_s = max_of(t1 - t0);
        double wm = max_of(w1 - w0), wa = max_of(a1 - a0), th = max_of(threads);
        if (rank_g == 0 && round > 0)
            printf("%s,%d,sync,%.4f,0,0,%.4f,%.4f,%.4f,%.4f,%.0f\n", mpi, round, sync_s, sync_s, sync_s,
                   wm, wa, th);
        for (int mode = 0; mode < 2; mode++) {
            fh = open_new(mode ? "iwrite_sleep.bin" : "iwrite_spin.bin");
            MPI_Request req;
            w0 = waited_in("/proc/self/schedstat");
            a0 = waited_all(NULL);
            t0 = now();
            check_mpi(MPI_File_iwrite_at(fh, off, buf, count, MPI_DOUBLE, &req), "MPI_File_iwrite_at");
            t1 = now();
            /* Count the threads while the write is under way (a helper thread may end at
             * MPI_Wait). */
            waited_all(&threads);
            if (mode == 0)
                spin(sync_s);
            else
                usleep((useconds_t)(sync_s * 1e6));
            double t2 = now();
            check_mpi(MPI_Wait(&req, &st), "MPI_Wait");
            double t3 = now();
            w1 = waited_in("/proc/self/schedstat");
            a1 = waited_all(NULL);
            MPI_File_close(&fh);
            double call = max_of(t1 - t0), compute = max_of(t2 - t1), wait = max_of(t3 - t2),
                   total = max_of(t3 - t0);
            wm = max_of(w1 - w0);
            wa = max_of(a1 - a0);
            th = max_of(threads);
            if (rank_g == 0 && round > 0)
                printf("%s,%d,%s,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.0f\n", mpi, round,
                       mode ? "iwrite_sleep" : "iwrite_spin", call, compute, wait, total, sync_s, wm, wa, th);
        }
        fflush(stdout);
    }
    if (rank_g == 0) {
        unlink(path("iwrite_sync.bin"));
        unlink(path("iwrite_spin.bin"));
        unlink(path("iwrite_sleep.bin"));
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
