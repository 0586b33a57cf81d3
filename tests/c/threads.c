/*
 * threads.c: dah5 from two threads per rank (MPI_THREAD_MULTIPLE).
 *
 *   mpiexec -n N ./threads DIR files|query
 *
 *   files  each thread has its own file on its own duplicate of MPI_COMM_WORLD and makes 5
 *          rounds of create, dataset "x", collective write, dataset "y" written behind
 *          (DAH5_ASYNC), close with it in flight; the ranks' threads race to their
 *          collective calls in any order. Rank 0 prints "files: 10 rounds".
 *   query  rank 0's main thread waits in a collective write that the last rank joins 3 s
 *          late, while rank 0's second thread asks the dataset's ndims, dims and dtype:
 *          they must not wait for the write. Rank 0 prints "query: S s" (the longest) and
 *          whether the queries ended "before" or "after" the write returned.
 */
#define _DEFAULT_SOURCE /* usleep */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "check.h"
#include "dah5_mpi.h"

#define ROUNDS 5
#define N 64

static int rank, size;
static const char *dir;

struct worker {
    int id;
    MPI_Comm comm;
};

static void *rounds(void *arg)
{
    struct worker *w = arg;
    char path[4096];
    snprintf(path, sizeof path, "%s/thread%d.h5", dir, w->id);
    double values[N];
    for (int i = 0; i < N; i++)
        values[i] = w->id * 1000 + rank * N + i;
    for (int round = 0; round < ROUNDS; round++) {
        dah5_file *file = NULL;
        dah5_dataset *dset = NULL;
        uint64_t dims[1] = {(uint64_t)N * (uint64_t)size}, offset[1] = {(uint64_t)N * (uint64_t)rank},
                 count[1] = {N};
        check(dah5_file_create_comm(w->comm, path, DAH5_TRUNC, &file), "create");
        check(dah5_dataset_create(file, "x", DAH5_FLOAT64, 1, dims, NULL, &dset), "dataset");
        check(dah5_write_block(dset, offset, count, DAH5_FLOAT64, values, DAH5_COLLECTIVE), "write");
        check(dah5_dataset_create(file, "y", DAH5_FLOAT64, 1, dims, NULL, &dset), "dataset y");
        check(dah5_write_block(dset, offset, count, DAH5_FLOAT64, values, DAH5_ASYNC), "write behind");
        check(dah5_file_close(&file), "close");
    }
    return NULL;
}

static dah5_dataset *shared_dataset;
static double longest_query;
static atomic_int write_returned, queries_ended_before_write;

static void *queries(void *arg)
{
    (void)arg;
    usleep(500000); /* the main thread is waiting in its write by now */
    for (int i = 0; i < 100; i++) {
        double start = MPI_Wtime();
        uint32_t ndims = 0;
        uint64_t dims[1] = {0};
        int32_t dtype = 0;
        check(dah5_dataset_ndims(shared_dataset, &ndims), "ndims");
        check(dah5_dataset_dims(shared_dataset, 1, dims), "dims");
        check(dah5_dataset_dtype(shared_dataset, &dtype), "dtype");
        if (ndims != 1 || dims[0] != (uint64_t)N * (uint64_t)size || dtype != DAH5_FLOAT64) {
            fprintf(stderr, "rank %d: wrong answers %u %lu %d\n", rank, ndims, (unsigned long)dims[0], dtype);
            MPI_Abort(MPI_COMM_WORLD, 4);
        }
        double took = MPI_Wtime() - start;
        if (took > longest_query)
            longest_query = took;
    }
    queries_ended_before_write = !write_returned;
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3 || provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "usage, or no MPI_THREAD_MULTIPLE (%d)\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    dir = argv[1];
    if (strcmp(argv[2], "files") == 0) {
        struct worker workers[2];
        pthread_t threads[2];
        for (int t = 0; t < 2; t++) {
            workers[t].id = t;
            MPI_Comm_dup(MPI_COMM_WORLD, &workers[t].comm);
        }
        for (int t = 0; t < 2; t++)
            pthread_create(&threads[t], NULL, rounds, &workers[t]);
        for (int t = 0; t < 2; t++)
            pthread_join(threads[t], NULL);
        for (int t = 0; t < 2; t++)
            MPI_Comm_free(&workers[t].comm);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            printf("files: %d rounds\n", 2 * ROUNDS);
    } else {
        char path[4096];
        snprintf(path, sizeof path, "%s/query.h5", dir);
        dah5_file *file = NULL;
        uint64_t dims[1] = {(uint64_t)N * (uint64_t)size}, offset[1] = {(uint64_t)N * (uint64_t)rank},
                 count[1] = {N};
        double values[N] = {0};
        check(dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &file), "create");
        check(dah5_dataset_create(file, "x", DAH5_FLOAT64, 1, dims, NULL, &shared_dataset), "dataset");
        pthread_t asker;
        if (rank == 0)
            pthread_create(&asker, NULL, queries, NULL);
        if (rank == size - 1)
            sleep(3);
        check(dah5_write_block(shared_dataset, offset, count, DAH5_FLOAT64, values, DAH5_COLLECTIVE), "write");
        write_returned = 1;
        if (rank == 0)
            pthread_join(asker, NULL);
        check(dah5_file_close(&file), "close");
        if (rank == 0)
            printf("query: %.3f s, %s the write returned\n", longest_query,
                   queries_ended_before_write ? "before" : "after");
    }
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
