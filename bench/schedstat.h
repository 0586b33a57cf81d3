/*
 * schedstat.h: how long threads waited for a CPU, from the kernel's schedstat files: what
 * bench/iwrite_progress.c (MPI only) and bench/write_behind.c (with a write-behind thread)
 * share. Plain C and POSIX, no HDF5 or dah5.
 */
#ifndef DAH5_BENCH_SCHEDSTAT_H
#define DAH5_BENCH_SCHEDSTAT_H

#include <dirent.h>
#include <stdio.h>

/* Seconds runnable but waiting for a CPU, from a schedstat file (second field). */
static double waited_in(const char *file)
{
    unsigned long long on_cpu = 0, waiting = 0;
    FILE *f = fopen(file, "r");
    if (!f)
        return 0;
    if (fscanf(f, "%llu %llu", &on_cpu, &waiting) != 2)
        waiting = 0;
    fclose(f);
    return (double)waiting * 1e-9;
}

/* The CPU wait of every thread of this process, and how many threads there are. (A thread
 * that ended between two readings drops out of the sum: the figures are taken with the
 * threads that MPI-IO started still alive, or with none started.) */
static double waited_all(int *threads)
{
    double sum = 0;
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return 0;
    struct dirent *e;
    char file[300];
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(file, sizeof file, "/proc/self/task/%s/schedstat", e->d_name);
        sum += waited_in(file);
        n++;
    }
    closedir(d);
    if (threads)
        *threads = n;
    return sum;
}

#endif
