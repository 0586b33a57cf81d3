/*
 * node_subfile.c: how the ranks of one node best write the node's one subfile (a subfiled
 * darray's, docs/subfiled.md), plain MPI and POSIX (no HDF5, no dah5):
 *
 *   offsets     each rank pwrites its block at its computed offset of the node's file
 *               (what dah5 does, through parallel HDF5 on the node's communicator);
 *   aggregator  the node's ranks copy their blocks into one MPI_Win_allocate_shared
 *               window, and node rank 0 writes it alone (the window made and freed in
 *               each round, as a darray write would; its share of the time is shown).
 *
 *   mpiexec -n N node_subfile DIR MIB ROUNDS
 *
 * Each round writes a new file (removed before) and ends when every rank is done (the
 * slowest rank's time); "fsync" rounds then fsync it (each writer its part, the
 * aggregator the whole). Prints one line per method and ending: the median time, its
 * bandwidth, and the median CPU wait of a round summed over the ranks (schedstat.h: time
 * runnable but waiting for a CPU, which a 2-core VM shows when ranks outnumber cores).
 */
#define _XOPEN_SOURCE 700 /* pwrite, fdatasync */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schedstat.h"

enum method { OFFSETS, AGGREGATOR };

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void write_all(int fd, const char *buf, size_t len, off_t at)
{
    while (len > 0) {
        ssize_t n = pwrite(fd, buf, len, at);
        if (n <= 0) {
            perror("pwrite");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        buf += n, len -= (size_t)n, at += n;
    }
}

/* One round: returns the slowest rank's seconds; *window_s: the aggregator's window
 * made and freed, *waited: the CPU wait of the round, summed over the ranks. */
static double round_of(enum method m, MPI_Comm node, const char *path, char *block,
                       size_t bytes, int sync, double *window_s, double *waited)
{
    int rank, size;
    MPI_Comm_rank(node, &rank);
    MPI_Comm_size(node, &size);
    if (rank == 0)
        unlink(path);
    MPI_Barrier(node);
    double cpu0 = waited_all(NULL), t0 = MPI_Wtime(), window = 0;
    if (m == OFFSETS) {
        int fd = open(path, O_WRONLY | O_CREAT, 0644);
        write_all(fd, block, bytes, (off_t)rank * (off_t)bytes);
        if (sync)
            fdatasync(fd);
        close(fd);
    } else {
        char *base;
        MPI_Win win;
        double w0 = MPI_Wtime();
        MPI_Win_allocate_shared(rank == 0 ? (MPI_Aint)(bytes * (size_t)size) : 0, 1,
                                MPI_INFO_NULL, node, &base, &win);
        MPI_Aint len;
        int unit;
        char *all;
        MPI_Win_shared_query(win, 0, &len, &unit, &all);
        window = MPI_Wtime() - w0;
        MPI_Win_fence(0, win);
        memcpy(all + (size_t)rank * bytes, block, bytes);
        MPI_Win_fence(0, win);
        if (rank == 0) {
            int fd = open(path, O_WRONLY | O_CREAT, 0644);
            write_all(fd, all, bytes * (size_t)size, 0);
            if (sync)
                fdatasync(fd);
            close(fd);
        }
        w0 = MPI_Wtime();
        MPI_Win_free(&win);
        window += MPI_Wtime() - w0;
    }
    double mine = MPI_Wtime() - t0, cpu = waited_all(NULL) - cpu0, slowest;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, node);
    MPI_Allreduce(&cpu, waited, 1, MPI_DOUBLE, MPI_SUM, node);
    MPI_Allreduce(&window, window_s, 1, MPI_DOUBLE, MPI_MAX, node);
    return slowest;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 4) {
        fprintf(stderr, "usage: node_subfile DIR MIB ROUNDS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t bytes = (size_t)atol(argv[2]) << 20;
    int rounds = atoi(argv[3]);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int rank, size;
    MPI_Comm_rank(node, &rank);
    MPI_Comm_size(node, &size);
    char path[4096];
    snprintf(path, sizeof path, "%s/node_subfile.dat", argv[1]);
    char *block = malloc(bytes);
    memset(block, 'a' + rank, bytes);
    const char *names[] = {"offsets", "aggregator"};
    double *t = malloc(sizeof *t * (size_t)rounds), *w = malloc(sizeof *w * (size_t)rounds);
    double *cpu = malloc(sizeof *cpu * (size_t)rounds);
    for (int sync = 0; sync <= 1; sync++)
        for (int m = OFFSETS; m <= AGGREGATOR; m++) {
            double unused_w, unused_cpu; /* a warm-up round */
            round_of((enum method)m, node, path, block, bytes, sync, &unused_w, &unused_cpu);
            for (int r = 0; r < rounds; r++)
                t[r] = round_of((enum method)m, node, path, block, bytes, sync, &w[r], &cpu[r]);
            double s = median(t, rounds), ws = median(w, rounds), c = median(cpu, rounds);
            if (rank == 0)
                printf("| %d | %zu | %s | %s | %.4f | %.0f | %.4f | %.4f |\n", size, bytes >> 20,
                       sync ? "fsync" : "new", names[m], s,
                       (double)(bytes >> 20) * size / s, m == AGGREGATOR ? ws : 0.0, c);
        }
    if (rank == 0)
        unlink(path);
    free(block), free(t), free(w), free(cpu);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
