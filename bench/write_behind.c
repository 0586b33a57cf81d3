/*
 * write_behind.c: writes behind compute (issue 32). h5bench's VPIC-IO write pattern through
 * dah5, with emulated compute between the steps, written synchronously and with DAH5_ASYNC.
 *
 *   write_behind DIR measure PARTICLES STEPS ROUNDS ORDER
 *   write_behind DIR round PARTICLES STEPS ROUND KIND ORDER STEP_WRITE FACTOR...
 *
 * The pattern (h5bench_patterns/h5bench_write.c, CONTIG_CONTIG_1D, as its sample
 * sync-write-1d-contig-contig): each of STEPS time steps is a group Timestep_S with 8 1-D
 * variables x, y, z, px, py, pz (float32), id_1 (int32), id_2 (float32); each rank writes
 * one contiguous block of PARTICLES elements at rank * PARTICLES of each (independent).
 * ORDER h5bench: as h5bench, the 8 dah5_dataset_create, then the 8 dah5_write_block, and
 * the datasets of step S closed at the start of step S + 2 (DELAYED_CLOSE_TIMESTEPS 2), the
 * rest before the flush; ORDER each: dah5_dataset_create, dah5_write_block and
 * dah5_dataset_close one variable after the other. Between two steps (not after the last,
 * as h5bench) the ranks "compute" for FACTOR x STEP_WRITE seconds: KIND sleep (usleep, as
 * h5bench's emulated compute, which leaves the core free) or spin (a busy loop on the clock,
 * every core busy). At the end dah5_file_flush (h5bench's H5Fflush: the data goes to
 * storage) and dah5_file_close. A new file every time (the old one removed before the timer
 * starts), after sync(2) and a barrier.
 *
 * Modes: dah5_sync (xfer_flags 0) and dah5_async (DAH5_ASYNC: the write starts on dah5's
 * background thread and the call returns; before the next step's writes, where an
 * application would overwrite its buffers, dah5_file_wait; the flush and close complete
 * the rest).
 *
 * measure: ROUNDS (plus a warm-up) of dah5_sync without compute; prints their rows and
 * "# behind_step_write,SECONDS": the median over the rounds of a step's write time (its
 * dataset closes, group, 8 creates and writes; the ranks' largest, averaged over the
 * steps). run.sh passes it back as STEP_WRITE.
 * round: for each FACTOR, dah5_sync and dah5_async, in an order shuffled by ROUND. In round 1
 * also an untimed check: an async run whose buffers change after every dah5_file_wait, read
 * back and compared value by value.
 *
 * Rows (rank 0), 13 fields:
 *   behind,MODE,FACTOR,ROUND,T,COMPUTE_PER_STEP,IO,WAIT,FLUSH,WAITED,PROCESS_WAITED,
 *   MACHINE_WAITED,BYTES
 * T: seconds from file create to close (both included, between barriers); IO: T minus the
 * compute, (STEPS - 1) x COMPUTE_PER_STEP; WAIT: seconds in dah5_file_wait (the ranks'
 * largest); FLUSH: seconds in dah5_file_flush and dah5_file_close; WAITED: the largest
 * fraction of T any rank's main thread waited for a CPU (/proc/thread-self/schedstat, as the
 * other bench programs); PROCESS_WAITED: seconds all threads of a rank waited for a CPU
 * during T (the ranks' largest; dah5's background thread included); MACHINE_WAITED: seconds
 * of T during which some task of the machine waited for a CPU (PSI, /proc/pressure/cpu: any
 * process's, other users' too; 0 without PSI); BYTES: the data of all ranks.
 */
#include "common.h"

#include "schedstat.h"

enum { VARS = 8, MAX_STEPS = 64, CLOSE_DELAY = 2 };
static const char *const NAMES[VARS] = {"x", "y", "z", "px", "py", "pz", "id_1", "id_2"};

static int is_int(int v) { return v == 6; }

struct behind {
    uint64_t n; /* particles a rank */
    int steps;
    int spin; /* compute KIND spin (else sleep) */
    int each; /* ORDER each (else h5bench) */
    void *vars[VARS];
};

static struct behind g;

/* Seconds during which some task of the machine waited for a CPU so far (the "some" total
 * of /proc/pressure/cpu, PSI; 0 where the kernel has none): any process, dah5's background
 * threads and other users' alike. */
static double machine_waited(void)
{
    FILE *f = fopen("/proc/pressure/cpu", "r");
    if (!f)
        return 0;
    unsigned long long total = 0;
    if (fscanf(f, "some avg10=%*f avg60=%*f avg300=%*f total=%llu", &total) != 1)
        total = 0;
    fclose(f);
    return (double)total * 1e-6;
}

static void compute(double seconds)
{
    if (seconds <= 0)
        return;
    if (g.spin) {
        double end = now() + seconds;
        volatile unsigned long long k = 0;
        while (now() < end)
            k++;
    } else {
        usleep((useconds_t)(seconds * 1e6));
    }
}

/* Element i of this rank's block of variable k at step `step` (the check's run changes the
 * data every step; the timed runs write step 0's values every step, as h5bench does). */
static float value(int k, int step, uint64_t i)
{
    return (float)(g.n * (uint64_t)rank_g + i) + 0.125f * (float)k + 1024.0f * (float)step;
}

static int32_t int_value(int step, uint64_t i) { return (int32_t)(g.n * (uint64_t)rank_g + i) + 7 * step; }

static void fill(int step)
{
    for (int k = 0; k < VARS; k++)
        for (uint64_t i = 0; i < g.n; i++) {
            if (is_int(k))
                ((int32_t *)g.vars[k])[i] = int_value(step, i);
            else
                ((float *)g.vars[k])[i] = value(k, step, i);
        }
}

struct result {
    double total, wait, flush, waited, process, machine;
    double step_write; /* a step's write time: the ranks' largest, averaged over the steps */
};

static const char *file_name(int async) { return path(async ? "behind_async.h5" : "behind_sync.h5"); }

/* One run of the kernel. `changing`: new values at every step (the check's run). */
static struct result run(int async, double compute_per_step, int changing)
{
    uint64_t dims[1] = {g.n * (uint64_t)size_g}, off[1] = {g.n * (uint64_t)rank_g}, cnt[1] = {g.n};
    uint32_t xfer = async ? DAH5_INDEPENDENT | DAH5_ASYNC : DAH5_INDEPENDENT;
    double step_s[MAX_STEPS] = {0}, wait = 0, flush = 0;
    char name[64];
    dah5_dataset *ds[MAX_STEPS][VARS] = {{NULL}};
    if (rank_g == 0)
        unlink(file_name(async));
    if (changing)
        fill(0);
    sync();
    MPI_Barrier(MPI_COMM_WORLD);
    double machine0 = rank_g == 0 ? machine_waited() : 0, process0 = waited_all(NULL);
    struct moment start = moment_now();
    dah5_file *f = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, file_name(async), DAH5_TRUNC, &f), "create");
    for (int s = 0; s < g.steps; s++) {
        if (s > 0) {
            compute(compute_per_step);
            if (async) {
                /* The buffers are about to be overwritten: this rank's writes must be done. */
                double t = now();
                check(dah5_file_wait(f), "dah5_file_wait");
                wait += now() - t;
            }
            if (changing)
                fill(s);
        }
        double t = now();
        if (!g.each && s >= CLOSE_DELAY)
            for (int k = 0; k < VARS; k++)
                check(dah5_dataset_close(&ds[s - CLOSE_DELAY][k]), "close dataset");
        snprintf(name, sizeof name, "Timestep_%d", s);
        check(dah5_group_create(f, name), "group");
        for (int k = 0; k < VARS; k++) {
            int32_t type = is_int(k) ? DAH5_INT32 : DAH5_FLOAT32;
            snprintf(name, sizeof name, "Timestep_%d/%s", s, NAMES[k]);
            check(dah5_dataset_create(f, name, type, 1, dims, NULL, &ds[s][k]), "dataset");
            if (g.each) {
                check(dah5_write_block(ds[s][k], off, cnt, type, g.vars[k], xfer), "write_block");
                check(dah5_dataset_close(&ds[s][k]), "close dataset");
            }
        }
        for (int k = 0; !g.each && k < VARS; k++) {
            int32_t type = is_int(k) ? DAH5_INT32 : DAH5_FLOAT32;
            check(dah5_write_block(ds[s][k], off, cnt, type, g.vars[k], xfer), "write_block");
        }
        step_s[s] = now() - t;
    }
    double t = now();
    for (int s = 0; s < g.steps; s++)
        for (int k = 0; k < VARS; k++)
            check(dah5_dataset_close(&ds[s][k]), "close dataset"); /* NULL: a no-op */
    check(dah5_file_flush(f), "flush");
    check(dah5_file_close(&f), "close");
    flush = now() - t;
    MPI_Barrier(MPI_COMM_WORLD);
    struct timing timing = between(start, moment_now());
    struct result r = {timing.seconds, 0, 0, timing.waited, 0, 0, 0};
    double process = waited_all(NULL) - process0;
    if (rank_g == 0)
        r.machine = machine_waited() - machine0;
    MPI_Allreduce(&process, &r.process, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double most[MAX_STEPS];
    MPI_Allreduce(step_s, most, g.steps, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int s = 0; s < g.steps; s++)
        r.step_write += most[s] / g.steps;
    MPI_Allreduce(&wait, &r.wait, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&flush, &r.flush, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return r;
}

static void row_of(const char *mode, double factor, int round, double compute_per_step, struct result r)
{
    if (rank_g != 0)
        return;
    unsigned long long bytes = g.n * 4ULL * VARS * (unsigned long long)g.steps * (unsigned long long)size_g;
    printf("behind,%s,%g,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.4f,%.4f,%.4f,%llu\n", mode, factor, round, r.total,
           compute_per_step, r.total - compute_per_step * (g.steps - 1), r.wait, r.flush, r.waited, r.process,
           r.machine, bytes);
    fflush(stdout);
}

/* The check: every value of every step of the async file is the one written at that step
 * (the buffers changed after each dah5_file_wait). */
static void check_file(int async)
{
    run(async, 0, 1);
    uint64_t off[1] = {g.n * (uint64_t)rank_g}, cnt[1] = {g.n};
    dah5_file *f = NULL;
    char name[64];
    check(dah5_file_open_comm(MPI_COMM_WORLD, file_name(async), DAH5_RDONLY, &f), "open");
    for (int s = 0; s < g.steps; s++)
        for (int k = 0; k < VARS; k++) {
            dah5_dataset *d = NULL;
            snprintf(name, sizeof name, "Timestep_%d/%s", s, NAMES[k]);
            check(dah5_dataset_open(f, name, &d), "open dataset");
            int32_t type = is_int(k) ? DAH5_INT32 : DAH5_FLOAT32;
            memset(g.vars[k], 0, g.n * 4);
            check(dah5_read_block(d, off, cnt, type, g.vars[k], 0), "read_block");
            check(dah5_dataset_close(&d), "close dataset");
            for (uint64_t i = 0; i < g.n; i++) {
                int ok = is_int(k) ? ((int32_t *)g.vars[k])[i] == int_value(s, i)
                                   : ((float *)g.vars[k])[i] == value(k, s, i);
                if (!ok) {
                    fprintf(stderr, "write_behind: %s file: Timestep_%d/%s[%llu] on rank %d is wrong\n",
                            async ? "async" : "sync", s, NAMES[k], (unsigned long long)i, rank_g);
                    MPI_Abort(MPI_COMM_WORLD, 3);
                }
            }
        }
    check(dah5_file_close(&f), "close");
    fill(0);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_g);
    MPI_Comm_size(MPI_COMM_WORLD, &size_g);
    int bad = 1;
    if (argc >= 7) {
        snprintf(dir_g, sizeof dir_g, "%s", argv[1]);
        g.n = strtoull(argv[3], NULL, 10);
        g.steps = atoi(argv[4]);
        bad = g.n == 0 || g.steps < 1 || g.steps > MAX_STEPS;
        g.each = strcmp(argv[2], "measure") == 0 ? strcmp(argv[6], "each") == 0
                 : argc > 7                      ? strcmp(argv[7], "each") == 0
                                                 : 0;
    }
    if (!bad && strcmp(argv[2], "measure") == 0) {
        int rounds = atoi(argv[5]);
        double w[64];
        int nw = 0;
        for (int k = 0; k < VARS; k++)
            g.vars[k] = buffer(g.n * 4);
        fill(0);
        for (int round = 0; round <= rounds; round++) {
            struct result r = run(0, 0, 0);
            row_of("measure", 0, round, 0, r);
            if (round > 0 && nw < 64)
                w[nw++] = r.step_write;
        }
        qsort(w, (size_t)nw, sizeof w[0], cmp_double);
        double median = nw == 0 ? 0 : nw % 2 ? w[nw / 2] : (w[nw / 2 - 1] + w[nw / 2]) / 2;
        if (rank_g == 0)
            printf("# behind_step_write,%.6f\n", median);
    } else if (!bad && strcmp(argv[2], "round") == 0 && argc >= 10) {
        int round = atoi(argv[5]);
        g.spin = strcmp(argv[6], "spin") == 0;
        double step_write = atof(argv[8]);
        int nf = argc - 9;
        for (int k = 0; k < VARS; k++)
            g.vars[k] = buffer(g.n * 4);
        fill(0);
        const int modes = 2;
        if (round == 1) {
            check_file(1);
            if (rank_g == 0)
                printf("# behind_check,async file with new values every step read back: every value right\n");
        }
        int order[64];
        int n = nf * modes < 64 ? nf * modes : 64;
        shuffled(order, n, round);
        for (int i = 0; i < n; i++) {
            int factor_at = order[i] / modes, async = order[i] % modes;
            double factor = atof(argv[9 + factor_at]);
            struct result r = run(async, factor * step_write, 0);
            row_of(async ? "dah5_async" : "dah5_sync", factor, round, factor * step_write, r);
        }
        if (rank_g == 0) {
            unlink(file_name(0));
            unlink(file_name(1));
        }
    } else {
        bad = 1;
    }
    if (bad && rank_g == 0)
        fprintf(stderr, "usage: see the comment at the top of bench/write_behind.c\n");
    for (int k = 0; k < VARS; k++)
        free(g.vars[k]);
    MPI_Finalize();
    return bad;
}
