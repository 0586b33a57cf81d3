/*
 * table_memory.c: what a darray of many blocks costs each rank to check and record its
 * block table. Every rank writes its share of NBLOCKS 4 x 4 tiles of a 2-D float64 array
 * (tile t is rank t % size's, so each rank has NBLOCKS / size tiles spread over the array)
 * with one dah5_darray_write_blocks a round, ROUNDS rounds (a dataset each). Printed by
 * rank 0: the peak RSS (VmHWM) of rank 0 and the largest of the other ranks, before the
 * first call and after the last, then each round's time (the slowest rank's) and its CPU
 * wait (the most any rank's threads waited for a CPU: /proc/self/task/ * /schedstat).
 *
 *   mpiexec -n 16 --oversubscribe table_memory [DIR=. [NBLOCKS=100000 [ROUNDS=3]]]
 */
#include "common.h"
#include "schedstat.h"

#define TILE 4

/* This process's peak resident set (VmHWM), in MiB. */
static double peak_mib(void)
{
    char line[256];
    double kib = 0;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %lf kB", &kib) == 1)
            break;
    fclose(f);
    return kib / 1024;
}

/* Rank 0's value and the largest of the other ranks' (0 with one rank), on rank 0. */
static void rank0_and_others(double mine, double *rank0, double *others)
{
    double *all = malloc(sizeof(double) * (size_t)size_g);
    check_mpi(MPI_Gather(&mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD),
              "MPI_Gather");
    if (rank_g == 0) {
        *rank0 = all[0];
        *others = 0;
        for (int r = 1; r < size_g; r++)
            *others = all[r] > *others ? all[r] : *others;
    }
    free(all);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_g);
    MPI_Comm_size(MPI_COMM_WORLD, &size_g);
    const char *dir = argc > 1 ? argv[1] : ".";
    uint64_t nblocks = argc > 2 ? strtoull(argv[2], NULL, 10) : 100000;
    int rounds = argc > 3 ? atoi(argv[3]) : 3;
    /* A grid of tiles as square as nblocks allows: rows x cols = nblocks. */
    uint64_t rows = 1;
    for (uint64_t r = 1; r * r <= nblocks; r++)
        if (nblocks % r == 0)
            rows = r;
    uint64_t cols = nblocks / rows, dims[2] = {rows * TILE, cols * TILE};

    uint64_t mine = 0;
    for (uint64_t t = (uint64_t)rank_g; t < nblocks; t += (uint64_t)size_g)
        mine++;
    uint64_t *offsets = malloc(sizeof(uint64_t) * 2 * (mine + 1));
    uint64_t *counts = malloc(sizeof(uint64_t) * 2 * (mine + 1));
    double *data = malloc(sizeof(double) * TILE * TILE * (mine + 1));
    uint64_t b = 0;
    for (uint64_t t = (uint64_t)rank_g; t < nblocks; t += (uint64_t)size_g, b++) {
        offsets[2 * b] = t / cols * TILE;
        offsets[2 * b + 1] = t % cols * TILE;
        counts[2 * b] = counts[2 * b + 1] = TILE;
        for (int e = 0; e < TILE * TILE; e++)
            data[b * TILE * TILE + (uint64_t)e] = (double)t;
    }

    char path[4200];
    snprintf(path, sizeof path, "%s/table_memory.h5", dir);
    dah5_file *file = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &file), "create");
    double before = peak_mib(), before0 = 0, before_others = 0;
    rank0_and_others(before, &before0, &before_others);
    double *times = calloc((size_t)rounds, sizeof(double));
    double *waits = calloc((size_t)rounds, sizeof(double));
    for (int round = 0; round < rounds; round++) {
        char name[32];
        snprintf(name, sizeof name, "tiles%d", round);
        MPI_Barrier(MPI_COMM_WORLD);
        double wait0 = waited_all(NULL), t0 = now();
        dah5_dataset *dataset = NULL;
        check(dah5_darray_write_blocks(file, name, DAH5_FLOAT64, 2, dims, mine, offsets,
                                       counts, data, 0, NULL, &dataset),
              "dah5_darray_write_blocks");
        double took = now() - t0, waited = waited_all(NULL) - wait0;
        check(dah5_dataset_close(&dataset), "dah5_dataset_close");
        MPI_Reduce(&took, &times[round], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&waited, &waits[round], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    }
    double after0 = 0, after_others = 0;
    rank0_and_others(peak_mib(), &after0, &after_others);
    check(dah5_file_close(&file), "close");
    if (rank_g == 0) {
        printf("%d ranks, %llu blocks (%llu x %llu tiles of %d x %d), %llu a rank\n", size_g,
               (unsigned long long)nblocks, (unsigned long long)rows,
               (unsigned long long)cols, TILE, TILE, (unsigned long long)mine);
        printf("peak RSS (VmHWM) MiB: rank 0 %.1f -> %.1f, other ranks (max) %.1f -> %.1f\n",
               before0, after0, before_others, after_others);
        for (int round = 0; round < rounds; round++)
            printf("round %d: %.3f s (CPU wait, most of any rank: %.3f s)\n", round,
                   times[round], waits[round]);
        remove(path);
    }
    free(times);
    free(waits);
    free(offsets);
    free(counts);
    free(data);
    MPI_Finalize();
    return 0;
}
