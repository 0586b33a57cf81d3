/*
 * bench.c: dah5 against raw MPI-IO, POSIX and the naive ways, under mpiexec.
 *
 *   bench bandwidth DIR MIB ROUNDS SHORT_ROUNDS
 *                                     write (3 protocols) and read bandwidth, CSV on stdout;
 *                                     SHORT_ROUNDS rounds of overwrite and read
 *   bench scaling DIR ROUNDS MIB...   dah5 vs MPI-IO overwrite at several block sizes
 *   bench metadata DIR COUNT [ROUNDS [ranks]]
 *                                     datasets with one attribute each: dah5 (checks on and
 *                                     off) vs raw HDF5; "ranks" labels rows with the ranks
 *   bench metacost DIR COUNT dah5|raw one method's metadata loop, untimed (for callgrind)
 *   bench darray DIR MIB ROUNDS       dah5_darray_write vs MPI-IO into new files, rows
 *                                     labelled with the number of ranks
 *   bench memory DIR MIB              peak RSS writing and reading one block
 *   bench create DIR MIB ROUNDS       dataset create time against write time, MIB in all
 *   bench readback DIR ROUNDS         after bandwidth (any rank count): the subfiled darray
 *                                     it left, read by dah5 in balanced parts, against pread
 *                                     of the same bytes from the file-per-process files
 *   bench layouts DIR MIB ROUNDS     a darray into new files (new, fsync) as one shared file
 *                                     and subfiled (bench/hosts.sh: across hosts, on
 *                                     GlusterFS and on the local disk)
 *   bench vpic DIR PARTICLES STEPS ROUNDS
 *                                     h5bench's VPIC-IO kernel (8 variables a step, a group
 *                                     a step), dah5 with its defaults vs raw HDF5 set up as
 *                                     h5bench does: write and read, independent and
 *                                     collective
 *
 * Every rank owns one contiguous block of MIB MiB (float64) of a 1-D array, at offset
 * rank * block in the data: the same offsets for every method. Methods are interleaved in
 * rounds, in an order shuffled anew each round (the same on every rank); the first round
 * is a warm-up and is dropped by the report; each op is timed barrier - op - barrier after
 * a sync(2). With each time goes how much of it the process spent waiting for a CPU (run
 * queue, /proc/thread-self/schedstat), the most of any rank: on a busy machine that, not
 * the code, decides the time, and the report leaves such rounds out.
 *
 * Protocols (write):
 *   overwrite  the file and dataset exist and are open: the write call alone (software cost);
 *              dah5_direct (direct block mode: each process pwrites, no MPI inside) runs
 *              here and in read, against posix_pwrite of the same bytes
 *   new        create the file (and dataset), write, close: end to end
 *   fsync      as new, plus flush/sync to storage before close (durability)
 *              dah5_subfiled (DAH5_DARRAY_SUBFILED: a file per rank behind a virtual dataset)
 *              runs in new and fsync, against posix_per_rank: a file per rank, pwrite
 * read: the file exists and is open: the read call alone.
 *
 * CSV: protocol,method,round,seconds,bytes,waited
 *   bytes: total over all ranks (for metadata: the number of datasets)
 *   waited: the largest fraction of the time any rank waited for a CPU
 */
#include "common.h"

#include <sys/resource.h>

/* ---- the methods ---- */

struct method;

struct run {
    const char *protocol; /* overwrite, new, fsync, read */
    double *buf;          /* this rank's block */
    double *other;        /* as big, for memcpy and the gather root */
    uint64_t n;           /* elements per rank */
    dah5_file *file;      /* open files and datasets for overwrite/read */
    dah5_dataset *ds;
    MPI_File mf;
    int fd;
    dah5_direct *direct; /* direct mode: this process's own descriptor, no MPI inside */
    const struct method *method; /* the one being timed */
};

static int is(const struct run *r, const char *protocol) { return strcmp(r->protocol, protocol) == 0; }
static MPI_Offset my_offset(const struct run *r) { return (MPI_Offset)rank_g * (MPI_Offset)(r->n * 8); }

static void dah5_op(struct run *r, uint32_t xfer)
{
    uint64_t dims[1] = {r->n * (uint64_t)size_g}, off[1] = {r->n * (uint64_t)rank_g}, cnt[1] = {r->n};
    if (is(r, "overwrite")) {
        check(dah5_write_block(r->ds, off, cnt, DAH5_FLOAT64, r->buf, xfer), "write_block");
        return;
    }
    if (is(r, "read")) {
        check(dah5_read_block(r->ds, off, cnt, DAH5_FLOAT64, r->buf, xfer), "read_block");
        return;
    }
    dah5_file *f = NULL;
    dah5_dataset *d = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, path("dah5_new.h5"), DAH5_TRUNC, &f), "create");
    check(dah5_dataset_create(f, "x", DAH5_FLOAT64, 1, dims, NULL, &d), "dataset");
    check(dah5_write_block(d, off, cnt, DAH5_FLOAT64, r->buf, xfer), "write_block");
    if (is(r, "fsync"))
        check(dah5_file_flush(f), "flush");
    check(dah5_file_close(&f), "close");
}

static void dah5_ind(struct run *r) { dah5_op(r, DAH5_INDEPENDENT); }
static void dah5_coll(struct run *r) { dah5_op(r, DAH5_COLLECTIVE); }

static void dah5_darray(struct run *r)
{
    uint64_t dims[1] = {r->n * (uint64_t)size_g}, off[1] = {r->n * (uint64_t)rank_g}, cnt[1] = {r->n};
    dah5_file *f = NULL;
    dah5_dataset *d = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, path("dah5_darray.h5"), DAH5_TRUNC, &f), "create");
    check(dah5_darray_write(f, "x", DAH5_FLOAT64, 1, dims, off, cnt, r->buf, 0, NULL, &d), "darray_write");
    if (is(r, "fsync"))
        check(dah5_file_flush(f), "flush");
    check(dah5_file_close(&f), "close");
}

/* A darray with DAH5_DARRAY_SUBFILED: each rank's block in a file of its own. */
static void dah5_subfiled(struct run *r)
{
    uint64_t dims[1] = {r->n * (uint64_t)size_g}, off[1] = {r->n * (uint64_t)rank_g}, cnt[1] = {r->n};
    dah5_file *f = NULL;
    dah5_dataset *d = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, path("dah5_subfiled.h5"), DAH5_TRUNC, &f), "create");
    uint32_t flags = DAH5_DARRAY_SUBFILED;
    check(dah5_darray_write(f, "x", DAH5_FLOAT64, 1, dims, off, cnt, r->buf, flags, NULL, &d), "subfiled");
    if (is(r, "fsync")) /* the main file, and the subfiles the write closed (core::unsynced) */
        check(dah5_file_flush(f), "flush");
    check(dah5_file_close(&f), "close");
}

/* File per process, the raw way: each rank creates its own file and pwrites its block. */
static const char *per_rank_path(int rank)
{
    char name[64];
    snprintf(name, sizeof name, "per_rank.%d.bin", rank);
    return path(name);
}

static void posix_per_rank(struct run *r)
{
    int fd = open(per_rank_path(rank_g), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    size_t len = r->n * 8;
    for (size_t done = 0; done < len;) {
        ssize_t k = pwrite(fd, (char *)r->buf + done, len - done, (off_t)done);
        if (k <= 0) {
            perror("pwrite");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        done += (size_t)k;
    }
    if (is(r, "fsync"))
        fsync(fd);
    close(fd);
}

static void mpiio_op(struct run *r, int collective)
{
    MPI_Status st;
    int count = (int)r->n; /* blocks are below 2^31 elements here */
    if (is(r, "overwrite") || is(r, "read")) {
        int rd = is(r, "read");
        if (collective)
            check_mpi(rd ? MPI_File_read_at_all(r->mf, my_offset(r), r->buf, count, MPI_DOUBLE, &st)
                         : MPI_File_write_at_all(r->mf, my_offset(r), r->buf, count, MPI_DOUBLE, &st),
                      "MPI_File_*_at_all");
        else
            check_mpi(rd ? MPI_File_read_at(r->mf, my_offset(r), r->buf, count, MPI_DOUBLE, &st)
                         : MPI_File_write_at(r->mf, my_offset(r), r->buf, count, MPI_DOUBLE, &st),
                      "MPI_File_*_at");
        return;
    }
    /* A new file, as H5F_ACC_TRUNC and O_TRUNC make one. */
    MPI_File f;
    if (rank_g == 0)
        MPI_File_delete(path("mpiio_new.bin"), MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    check_mpi(MPI_File_open(MPI_COMM_WORLD, path("mpiio_new.bin"), MPI_MODE_CREATE | MPI_MODE_WRONLY,
                            MPI_INFO_NULL, &f), "MPI_File_open");
    check_mpi(collective ? MPI_File_write_at_all(f, my_offset(r), r->buf, count, MPI_DOUBLE, &st)
                         : MPI_File_write_at(f, my_offset(r), r->buf, count, MPI_DOUBLE, &st),
              "MPI_File_write_at");
    if (is(r, "fsync"))
        check_mpi(MPI_File_sync(f), "MPI_File_sync");
    check_mpi(MPI_File_close(&f), "MPI_File_close");
}

static void mpiio_ind(struct run *r) { mpiio_op(r, 0); }
static void mpiio_coll(struct run *r) { mpiio_op(r, 1); }

static void posix(struct run *r)
{
    size_t len = r->n * 8;
    int fd = r->fd;
    if (!(is(r, "overwrite") || is(r, "read"))) {
        /* The file is created once by rank 0, then opened by all. */
        if (rank_g == 0)
            close(open(path("posix_new.bin"), O_CREAT | O_WRONLY | O_TRUNC, 0644));
        MPI_Barrier(MPI_COMM_WORLD);
        fd = open(path("posix_new.bin"), O_WRONLY);
    }
    for (size_t done = 0; done < len;) {
        ssize_t k = is(r, "read") ? pread(fd, (char *)r->buf + done, len - done, my_offset(r) + (off_t)done)
                                  : pwrite(fd, (char *)r->buf + done, len - done, my_offset(r) + (off_t)done);
        if (k <= 0) {
            perror("pwrite/pread");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        done += (size_t)k;
    }
    if (fd != r->fd) {
        if (is(r, "fsync"))
            fsync(fd);
        close(fd);
    }
}

/* Direct block mode: every process pwrites its block itself (the addprocs path). */
static void direct(struct run *r)
{
    uint64_t off[1] = {r->n * (uint64_t)rank_g}, cnt[1] = {r->n};
    if (is(r, "read"))
        check(dah5_direct_read_block(r->direct, off, cnt, DAH5_FLOAT64, r->buf), "direct read");
    else
        check(dah5_direct_write_block(r->direct, off, cnt, DAH5_FLOAT64, r->buf), "direct write");
}

/* The seed's first naive way: gather everything on rank 0, which writes it alone. */
static void naive_gather(struct run *r)
{
    uint64_t total = r->n * (uint64_t)size_g;
    double *all = rank_g == 0 ? buffer(total * 8) : NULL;
    check_mpi(MPI_Gather(r->buf, (int)r->n, MPI_DOUBLE, all, (int)r->n, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Gather");
    if (rank_g == 0) {
        dah5_file *f = NULL;
        dah5_dataset *d = NULL;
        uint64_t dims[1] = {total}, off[1] = {0};
        check(dah5_file_create_comm(MPI_COMM_SELF, path("naive_gather.h5"), DAH5_TRUNC, &f), "create");
        check(dah5_dataset_create(f, "x", DAH5_FLOAT64, 1, dims, NULL, &d), "dataset");
        check(dah5_write_block(d, off, dims, DAH5_FLOAT64, all, 0), "write");
        if (is(r, "fsync"))
            check(dah5_file_flush(f), "flush");
        check(dah5_file_close(&f), "close");
        free(all);
    }
}

/* The seed's second naive way (the "2n+2 variables" workaround): one dataset per rank,
 * written one rank after another, each opening and closing the file alone. */
static void naive_sequential(struct run *r)
{
    uint64_t dims[1] = {r->n}, off[1] = {0};
    for (int turn = 0; turn < size_g; turn++) {
        if (turn == rank_g) {
            dah5_file *f = NULL;
            dah5_dataset *d = NULL;
            char name[32];
            snprintf(name, sizeof name, "part%d", rank_g);
            int32_t self = MPI_Comm_c2f(MPI_COMM_SELF);
            if (turn == 0)
                check(dah5_file_create(self, path("naive_seq.h5"), DAH5_TRUNC, &f), "create");
            else
                check(dah5_file_open(self, path("naive_seq.h5"), DAH5_RDWR, &f), "open");
            check(dah5_dataset_create(f, name, DAH5_FLOAT64, 1, dims, NULL, &d), "dataset");
            check(dah5_write_block(d, off, dims, DAH5_FLOAT64, r->buf, 0), "write");
            if (is(r, "fsync"))
                check(dah5_file_flush(f), "flush");
            check(dah5_file_close(&f), "close");
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

static void copy(struct run *r)
{
    if (is(r, "read"))
        memcpy(r->buf, r->other, r->n * 8);
    else
        memcpy(r->other, r->buf, r->n * 8);
}

/* Which protocols a method runs in. */
enum { OVERWRITE = 1, NEW = 2, FSYNC = 4, READ = 8, ALL = 15 };

struct method {
    const char *name;
    void (*op)(struct run *);
    int protocols;
};

/* The naive ways are the seed's end-to-end workarounds: measured on new files only (in the
 * fsync protocol too they would only add a minute to the default run). */
static const struct method METHODS[] = {
    {"dah5_ind", dah5_ind, ALL},         {"dah5_coll", dah5_coll, ALL},
    {"dah5_darray", dah5_darray, NEW | FSYNC}, {"dah5_subfiled", dah5_subfiled, NEW | FSYNC},
    {"posix_per_rank", posix_per_rank, NEW | FSYNC}, {"mpiio_ind", mpiio_ind, ALL},
    {"mpiio_coll", mpiio_coll, ALL},     {"posix_pwrite", posix, ALL},
    {"dah5_direct", direct, OVERWRITE | READ},
    {"naive_gather", naive_gather, NEW}, {"naive_sequential", naive_sequential, NEW},
    {"memcpy", copy, ALL},
};
enum { NMETHODS = sizeof METHODS / sizeof METHODS[0] };

static int applies(const struct method *m, const char *protocol)
{
    static const char *const names[] = {"overwrite", "new", "fsync", "read"};
    for (int p = 0; p < 4; p++)
        if (strcmp(protocol, names[p]) == 0)
            return (m->protocols >> p) & 1;
    return 0;
}

/* Open the files the overwrite and read protocols use, written once, in place. */
static void prepare(struct run *r)
{
    uint64_t dims[1] = {r->n * (uint64_t)size_g}, off[1] = {r->n * (uint64_t)rank_g}, cnt[1] = {r->n};
    check(dah5_file_create_comm(MPI_COMM_WORLD, path("dah5_existing.h5"), DAH5_TRUNC, &r->file), "create");
    check(dah5_dataset_create(r->file, "x", DAH5_FLOAT64, 1, dims, NULL, &r->ds), "dataset");
    check(dah5_write_block(r->ds, off, cnt, DAH5_FLOAT64, r->buf, 0), "write");
    check_mpi(MPI_File_open(MPI_COMM_WORLD, path("mpiio_existing.bin"), MPI_MODE_CREATE | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &r->mf), "MPI_File_open");
    MPI_Status st;
    check_mpi(MPI_File_write_at(r->mf, my_offset(r), r->buf, (int)r->n, MPI_DOUBLE, &st), "write");
    if (rank_g == 0)
        close(open(path("posix_existing.bin"), O_CREAT | O_RDWR | O_TRUNC, 0644));
    MPI_Barrier(MPI_COMM_WORLD);
    r->fd = open(path("posix_existing.bin"), O_RDWR);
    if (rank_g == 0)
        check(dah5_direct_create(path("direct_existing.h5"), "x", DAH5_FLOAT64, 1, dims, DAH5_TRUNC, 0, NULL, NULL),
              "direct create");
    MPI_Barrier(MPI_COMM_WORLD);
    check(dah5_direct_open(path("direct_existing.h5"), "x", DAH5_RDWR, &r->direct), "direct open");
    check(dah5_direct_write_block(r->direct, off, cnt, DAH5_FLOAT64, r->buf), "direct write");
    if (pwrite(r->fd, r->buf, r->n * 8, my_offset(r)) != (ssize_t)(r->n * 8)) {
        perror("pwrite");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void finish(struct run *r)
{
    check(dah5_file_close(&r->file), "close");
    check_mpi(MPI_File_close(&r->mf), "MPI_File_close");
    close(r->fd);
    check(dah5_direct_close(&r->direct), "direct close");
}

static void run_method(void *arg)
{
    struct run *r = arg;
    r->method->op(r);
}

static struct run new_run(uint64_t mib)
{
    struct run r;
    memset(&r, 0, sizeof r);
    r.n = mib * 131072; /* float64 per MiB */
    r.buf = buffer(r.n * 8);
    r.other = buffer(r.n * 8);
    for (uint64_t i = 0; i < r.n; i++)
        r.buf[i] = (double)(r.n * (uint64_t)rank_g + i);
    memset(r.other, 0, r.n * 8);
    return r;
}

/* Rounds over the given protocols and methods (names NULL-terminated; NULL = all),
 * nrounds[i] of protocols[i]. */
static void rounds(struct run *r, const char *const *protocols, const char *const *only,
                   const int *nrounds, const char *label)
{
    prepare(r);
    for (const char *const *p = protocols; *p; p++) {
        r->protocol = *p;
        for (int round = 0; round <= nrounds[p - protocols]; round++) { /* round 0: warm-up */
            int order[NMETHODS];
            shuffled(order, NMETHODS, round);
            for (int k = 0; k < NMETHODS; k++) {
                const struct method *m = &METHODS[order[k]];
                int wanted = !only;
                for (const char *const *o = only; o && *o; o++)
                    wanted |= strcmp(*o, m->name) == 0;
                if (!wanted || !applies(m, *p))
                    continue;
                r->method = m;
                struct timing t = time_op(run_method, r);
                row(label ? label : *p, m->name, round, t, r->n * 8 * (uint64_t)size_g);
            }
        }
        fflush(stdout);
    }
    finish(r);
}

static int bandwidth(int argc, char **argv)
{
    if (argc < 6)
        return 1;
    struct run r = new_run(strtoull(argv[3], NULL, 10));
    static const char *const protocols[] = {"overwrite", "new", "fsync", "read", NULL};
    int n = atoi(argv[4]), short_n = atoi(argv[5]);
    rounds(&r, protocols, NULL, (int[]){short_n, n, n, short_n}, NULL);
    return 0;
}

/* dah5_darray_write of MIB MiB a rank into a new file, against raw MPI-IO writing the
 * same blocks into a new file, labelled with the number of ranks: ranks_darray_pRANKS. */
static int darray_ranks(int argc, char **argv)
{
    if (argc < 5)
        return 1;
    static const char *const protocols[] = {"new", NULL};
    static const char *const only[] = {"dah5_darray", "mpiio_ind", NULL};
    struct run r = new_run(strtoull(argv[3], NULL, 10));
    char label[64];
    snprintf(label, sizeof label, "ranks_darray_p%d", size_g);
    rounds(&r, protocols, only, (int[]){atoi(argv[4])}, label);
    return 0;
}

/* A darray into new files, shared and subfiled, without the files of the other protocols
 * (rounds() makes them first): across hosts on GlusterFS each of those is slow to write. */
static int layouts(int argc, char **argv)
{
    if (argc < 5)
        return 1;
    static const char *const protocols[] = {"new", "fsync"};
    const struct method *chosen[2] = {NULL, NULL};
    for (int m = 0; m < NMETHODS; m++) {
        if (strcmp(METHODS[m].name, "dah5_darray") == 0)
            chosen[0] = &METHODS[m];
        if (strcmp(METHODS[m].name, "dah5_subfiled") == 0)
            chosen[1] = &METHODS[m];
    }
    struct run r = new_run(strtoull(argv[3], NULL, 10));
    int nrounds = atoi(argv[4]);
    for (int p = 0; p < 2; p++) {
        r.protocol = protocols[p];
        for (int round = 0; round <= nrounds; round++) { /* round 0: warm-up */
            int order[2];
            shuffled(order, 2, round);
            for (int k = 0; k < 2; k++) {
                r.method = chosen[order[k]];
                struct timing t = time_op(run_method, &r);
                row(r.protocol, r.method->name, round, t, r.n * 8 * (uint64_t)size_g);
            }
        }
        fflush(stdout);
    }
    return 0;
}

/* The readback of what bandwidth left: rank r of any number reads the r-th balanced part
 * of the array, through dah5 (from the subfiles its part touches) or with pread from the
 * file-per-process files holding those bytes. */
struct readback {
    dah5_dataset *ds;
    uint64_t offset, count, per_file; /* elements */
    double *buf;
};

static void readback_dah5(void *arg)
{
    struct readback *b = arg;
    check(dah5_read_block(b->ds, &b->offset, &b->count, DAH5_FLOAT64, b->buf, 0), "read subfiled");
}

static void readback_pread(void *arg)
{
    struct readback *b = arg;
    for (uint64_t e = b->offset, end = b->offset + b->count; e < end;) {
        uint64_t file = e / b->per_file, within = e % b->per_file;
        uint64_t n = b->per_file - within < end - e ? b->per_file - within : end - e;
        int fd = open(per_rank_path((int)file), O_RDONLY);
        for (size_t done = 0; done < n * 8;) {
            ssize_t k = pread(fd, (char *)(b->buf + (e - b->offset)) + done, n * 8 - done,
                              (off_t)(within * 8 + done));
            if (k <= 0) {
                perror("pread");
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            done += (size_t)k;
        }
        close(fd);
        e += n;
    }
}

static int readback(int argc, char **argv)
{
    if (argc < 4)
        return 1;
    struct readback b;
    dah5_file *f = NULL;
    uint32_t nblocks = 0;
    check(dah5_file_open_comm(MPI_COMM_WORLD, path("dah5_subfiled.h5"), DAH5_RDONLY, &f), "open");
    check(dah5_dataset_open(f, "x", &b.ds), "dataset");
    check(dah5_darray_blocks(b.ds, 0, &nblocks, NULL, NULL), "blocks");
    uint64_t dims[1];
    check(dah5_dataset_dims(b.ds, 1, dims), "dims");
    b.per_file = dims[0] / nblocks;
    check(dah5_darray_partition(b.ds, rank_g, size_g, &b.offset, &b.count), "partition");
    b.buf = buffer(b.count * 8);
    struct {
        const char *name;
        void (*op)(void *);
    } methods[] = {{"dah5_subfiled", readback_dah5}, {"posix_per_rank", readback_pread}};
    char protocol[32];
    snprintf(protocol, sizeof protocol, "readback_p%d", size_g);
    for (int round = 0; round <= atoi(argv[3]); round++) {
        int order[2];
        shuffled(order, 2, round);
        for (int k = 0; k < 2; k++) {
            struct timing t = time_op(methods[order[k]].op, &b);
            row(protocol, methods[order[k]].name, round, t, dims[0] * 8);
        }
    }
    /* Both read the same bytes: the last round's must equal what bandwidth wrote. */
    for (uint64_t i = 0; i < b.count; i++)
        if (b.buf[i] != (double)(b.offset + i)) {
            fprintf(stderr, "rank %d: element %llu read back wrong\n", rank_g, (unsigned long long)(b.offset + i));
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    check(dah5_file_close(&f), "close");
    free(b.buf);
    return 0;
}

static int scaling(int argc, char **argv)
{
    if (argc < 5)
        return 1;
    static const char *const protocols[] = {"overwrite", NULL};
    static const char *const only[] = {"dah5_ind", "mpiio_ind", NULL};
    for (int a = 4; a < argc; a++) {
        struct run r = new_run(strtoull(argv[a], NULL, 10));
        char label[64];
        snprintf(label, sizeof label, "scaling_%sMiB", argv[a]);
        rounds(&r, protocols, only, (int[]){atoi(argv[3])}, label);
        free(r.buf);
        free(r.other);
    }
    return 0;
}

/* COUNT datasets of 4 float64 with one attribute each, through dah5; `flags` are file
 * option flags (DAH5_NO_CHECKS). */
static void metadata_dah5(int count, uint32_t flags)
{
    char name[32];
    double v = 1.5;
    uint64_t dims[1] = {4};
    dah5_file *f = NULL;
    dah5_dataset *d = NULL;
    dah5_file_options options;
    check(dah5_file_options_init(&options, DAH5_FILE_OPTIONS_VERSION), "options");
    options.flags |= flags;
    check(dah5_file_create_with_comm(MPI_COMM_WORLD, path("meta_dah5.h5"), DAH5_TRUNC, &options, &f),
          "create");
    for (int i = 0; i < count; i++) {
        snprintf(name, sizeof name, "d%06d", i);
        check(dah5_dataset_create(f, name, DAH5_FLOAT64, 1, dims, NULL, &d), "dataset");
        check(dah5_attr_write(f, name, "a", DAH5_FLOAT64, 0, 1, &v), "attr");
        check(dah5_dataset_close(&d), "close dataset");
    }
    check(dah5_file_close(&f), "close");
}

/* The same HDF5 calls with the same property lists, by hand. */
static void metadata_raw(int count)
{
    char name[32];
    double v = 1.5;
    hid_t fapl = raw_fapl();
    hid_t file = H5Fcreate(path("meta_raw.h5"), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    check_h5(file, "H5Fcreate");
    hid_t dcpl = raw_dcpl();
    hid_t space = H5Screate_simple(1, (hsize_t[]){4}, NULL), scalar = H5Screate(H5S_SCALAR);
    for (int i = 0; i < count; i++) {
        snprintf(name, sizeof name, "d%06d", i);
        hid_t ds = H5Dcreate2(file, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        hid_t at = H5Acreate2(ds, "a", H5T_NATIVE_DOUBLE, scalar, H5P_DEFAULT, H5P_DEFAULT);
        check_h5(H5Awrite(at, H5T_NATIVE_DOUBLE, &v), "H5Awrite");
        H5Aclose(at);
        H5Dclose(ds);
    }
    H5Sclose(space);
    H5Sclose(scalar);
    H5Pclose(dcpl);
    H5Pclose(fapl);
    check_h5(H5Fclose(file), "H5Fclose");
}

/* The metadata methods: dah5 with its checks, without them, and raw HDF5. */
static int meta_count_g;
static void meta_dah5(void *arg) { (void)arg; metadata_dah5(meta_count_g, 0); }
static void meta_dah5_nochecks(void *arg) { (void)arg; metadata_dah5(meta_count_g, DAH5_NO_CHECKS); }
static void meta_raw(void *arg) { (void)arg; metadata_raw(meta_count_g); }

/* File open + close of the file just made (the metadata of COUNT datasets). */
static void open_close_dah5(void *arg)
{
    (void)arg;
    dah5_file *f = NULL;
    check(dah5_file_open_comm(MPI_COMM_WORLD, path("meta_dah5.h5"), DAH5_RDONLY, &f), "open");
    check(dah5_file_close(&f), "close");
}

static void open_close_raw(void *arg)
{
    (void)arg;
    hid_t fapl = raw_fapl();
    hid_t file = H5Fopen(path("meta_raw.h5"), H5F_ACC_RDONLY, fapl);
    check_h5(file, "H5Fopen");
    H5Fclose(file);
    H5Pclose(fapl);
}

/* COUNT datasets of 4 float64 with one attribute each, in ROUNDS rounds (+ a warm-up) of
 * the three methods in shuffled order, then open + close of the files made. With LABEL
 * ("ranks"), the rows say the number of ranks: metadata_COUNT_pRANKS. */
static int metadata(int argc, char **argv)
{
    if (argc < 4)
        return 1;
    meta_count_g = atoi(argv[3]);
    int nrounds = argc > 4 ? atoi(argv[4]) : 5;
    char protocol[64];
    if (argc > 5)
        snprintf(protocol, sizeof protocol, "%s_metadata_%d_p%d", argv[5], meta_count_g, size_g);
    else
        snprintf(protocol, sizeof protocol, "metadata_%d", meta_count_g);
    char open_close[32];
    snprintf(open_close, sizeof open_close, "open_close_%d", meta_count_g);
    static const struct {
        const char *name;
        void (*op)(void *);
    } methods[] = {{"dah5", meta_dah5}, {"dah5_nochecks", meta_dah5_nochecks}, {"raw_hdf5", meta_raw}},
      open_closes[] = {{"dah5", open_close_dah5}, {"raw_hdf5", open_close_raw}};
    enum { N = sizeof methods / sizeof methods[0] };
    for (int round = 0; round <= nrounds; round++) {
        int order[N];
        shuffled(order, N, round);
        for (int k = 0; k < N; k++) {
            struct timing t = time_op(methods[order[k]].op, NULL);
            row(protocol, methods[order[k]].name, round, t, (unsigned long long)meta_count_g);
        }
        if (argc > 5)
            continue;
        /* The first file open after the creates pays for HDF5's metadata cache memory anew
         * (glibc gave the freed heap back: 2-9 ms, whichever library opens), so an untimed
         * open goes first, then the two in shuffled order. */
        open_close_raw(NULL);
        shuffled(order, 2, round);
        for (int k = 0; k < 2; k++) {
            struct timing t = time_op(open_closes[order[k]].op, NULL);
            row(open_close, open_closes[order[k]].name, round, t, 1);
        }
        fflush(stdout);
    }
    return 0;
}

/* One method's metadata loop alone, untimed: for instruction counts (valgrind
 * --tool=callgrind), whose difference between two COUNTs is the cost per dataset. */
static int metacost(int argc, char **argv)
{
    if (argc < 5)
        return 1;
    int count = atoi(argv[3]);
    if (strcmp(argv[4], "dah5") == 0)
        metadata_dah5(count, 0);
    else if (strcmp(argv[4], "raw") == 0)
        metadata_raw(count);
    else
        return 1;
    return 0;
}

/* Does dataset create write anything (a fill)? Its time against the write of the data. */
static int create(int argc, char **argv)
{
    if (argc < 5)
        return 1;
    uint64_t total = strtoull(argv[3], NULL, 10) * 131072;
    struct run r = new_run(strtoull(argv[3], NULL, 10) / (uint64_t)size_g);
    uint64_t dims[1] = {total}, off[1] = {r.n * (uint64_t)rank_g}, cnt[1] = {r.n};
    for (int round = 0; round <= atoi(argv[4]); round++) {
        dah5_file *f = NULL;
        dah5_dataset *d = NULL;
        check(dah5_file_create_comm(MPI_COMM_WORLD, path("create.h5"), DAH5_TRUNC, &f), "create");
        sync();
        MPI_Barrier(MPI_COMM_WORLD);
        struct moment start = moment_now();
        check(dah5_dataset_create(f, "x", DAH5_FLOAT64, 1, dims, NULL, &d), "dataset");
        MPI_Barrier(MPI_COMM_WORLD);
        struct moment created = moment_now();
        check(dah5_write_block(d, off, cnt, DAH5_FLOAT64, r.buf, 0), "write");
        MPI_Barrier(MPI_COMM_WORLD);
        struct moment written = moment_now();
        check(dah5_file_close(&f), "close");
        row("create", "dah5_dataset_create", round, between(start, created), total * 8);
        row("create", "dah5_write", round, between(created, written), total * 8);
    }
    free(r.buf);
    free(r.other);
    return 0;
}

/* ---- VPIC-IO, as h5bench runs it (samples/sync-write-1d-contig-contig.json) ----
 * Each of STEPS time steps is a group "Timestep_S" of 8 variables of the particles (7
 * float32, id_1 int32), 1-D, each rank one contiguous block of N particles at rank * N.
 * The raw kernel makes h5bench's HDF5 calls: an MPI-IO file with collective metadata
 * (reads and writes), no alignment, default dataset properties, one dataset transfer
 * property list (independent or collective); the datasets of step S are closed at the
 * start of step S + 2 (DELAYED_CLOSE_TIMESTEPS 2), the rest at the end, then
 * H5Fflush(LOCAL) (with the MPI-IO driver an MPI_File_sync: the data goes to storage) and
 * the close. h5bench's emulated compute time (a sleep between steps,
 * which it subtracts) is left out. dah5 writes the same with its defaults
 * (dah5_file_create_comm, dah5_dataset_create with NULL options) and dah5_file_flush. Read: the file opened,
 * every rank reads its block of every variable of every step. */
enum { VPIC_VARS = 8, VPIC_DELAY = 2 };
static const char *const VPIC_NAMES[VPIC_VARS] = {"x", "y", "z", "px", "py", "pz", "id_1", "id_2"};

struct vpic {
    uint64_t n; /* particles a rank */
    int steps;
    void *vars[VPIC_VARS];
};

static int vpic_is_int(int v) { return v == 6; }

static void vpic_name(char *name, size_t len, int step, int v)
{
    snprintf(name, len, "Timestep_%d/%s", step, VPIC_NAMES[v]);
}

/* h5bench's file access: MPI-IO, collective metadata; its ALIGN=YES sets `alignment`
 * (threshold and length alike; 0: none, its default). */
static hid_t vpic_raw_fapl(uint64_t alignment)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    check_h5(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), "fapl");
    H5Pset_all_coll_metadata_ops(fapl, 1);
    H5Pset_coll_metadata_write(fapl, 1);
    if (alignment)
        H5Pset_alignment(fapl, alignment, alignment);
    return fapl;
}

/* The selections of this rank's block: [0] memory, [1] file. */
static void vpic_spaces(const struct vpic *v, hid_t spaces[2])
{
    hsize_t total = v->n * (hsize_t)size_g, n = v->n, start = v->n * (hsize_t)rank_g;
    spaces[0] = H5Screate_simple(1, &n, NULL);
    spaces[1] = H5Screate_simple(1, &total, NULL);
    H5Sselect_hyperslab(spaces[1], H5S_SELECT_SET, &start, NULL, &n, NULL);
}

static hid_t vpic_dxpl(int collective)
{
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
    return dxpl;
}

static void vpic_write_raw(const struct vpic *v, uint64_t alignment, int collective)
{
    hid_t fapl = vpic_raw_fapl(alignment), dxpl = vpic_dxpl(collective), spaces[2];
    vpic_spaces(v, spaces);
    hid_t file = H5Fcreate(path("vpic_raw.h5"), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    check_h5(file, "H5Fcreate");
    hid_t groups[64], ds[64][VPIC_VARS];
    char name[64];
    for (int s = 0; s < v->steps; s++) {
        if (s >= VPIC_DELAY) {
            for (int k = 0; k < VPIC_VARS; k++)
                H5Dclose(ds[s - VPIC_DELAY][k]);
            H5Gclose(groups[s - VPIC_DELAY]);
        }
        snprintf(name, sizeof name, "Timestep_%d", s);
        groups[s] = H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        check_h5(groups[s], "H5Gcreate2");
        for (int k = 0; k < VPIC_VARS; k++) {
            hid_t type = vpic_is_int(k) ? H5T_NATIVE_INT : H5T_NATIVE_FLOAT;
            ds[s][k] = H5Dcreate2(groups[s], VPIC_NAMES[k], type, spaces[1], H5P_DEFAULT, H5P_DEFAULT,
                                  H5P_DEFAULT);
            check_h5(ds[s][k], "H5Dcreate2");
            check_h5(H5Dwrite(ds[s][k], type, spaces[0], spaces[1], dxpl, v->vars[k]), "H5Dwrite");
        }
    }
    for (int s = v->steps > VPIC_DELAY ? v->steps - VPIC_DELAY : 0; s < v->steps; s++) {
        for (int k = 0; k < VPIC_VARS; k++)
            H5Dclose(ds[s][k]);
        H5Gclose(groups[s]);
    }
    H5Fflush(file, H5F_SCOPE_LOCAL);
    check_h5(H5Fclose(file), "H5Fclose");
    H5Sclose(spaces[0]);
    H5Sclose(spaces[1]);
    H5Pclose(dxpl);
    H5Pclose(fapl);
}

static void vpic_read_raw(const struct vpic *v, int collective)
{
    hid_t fapl = vpic_raw_fapl(0), dxpl = vpic_dxpl(collective), spaces[2];
    vpic_spaces(v, spaces);
    hid_t file = H5Fopen(path("vpic_raw.h5"), H5F_ACC_RDONLY, fapl);
    check_h5(file, "H5Fopen");
    char name[64];
    for (int s = 0; s < v->steps; s++)
        for (int k = 0; k < VPIC_VARS; k++) {
            vpic_name(name, sizeof name, s, k);
            hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
            check_h5(d, "H5Dopen2");
            hid_t type = vpic_is_int(k) ? H5T_NATIVE_INT : H5T_NATIVE_FLOAT;
            check_h5(H5Dread(d, type, spaces[0], spaces[1], dxpl, v->vars[k]), "H5Dread");
            H5Dclose(d);
        }
    check_h5(H5Fclose(file), "H5Fclose");
    H5Sclose(spaces[0]);
    H5Sclose(spaces[1]);
    H5Pclose(dxpl);
    H5Pclose(fapl);
}

static void vpic_write_dah5(const struct vpic *v, uint64_t alignment, uint32_t xfer)
{
    uint64_t dims[1] = {v->n * (uint64_t)size_g}, off[1] = {v->n * (uint64_t)rank_g}, cnt[1] = {v->n};
    dah5_file *f = NULL;
    dah5_dataset *ds[64][VPIC_VARS];
    char name[64];
    dah5_file_options options;
    check(dah5_file_options_init(&options, DAH5_FILE_OPTIONS_VERSION), "options");
    if (alignment)
        options.alignment = options.alignment_threshold = alignment;
    check(dah5_file_create_with_comm(MPI_COMM_WORLD, path("vpic_dah5.h5"), DAH5_TRUNC, &options, &f),
          "create");
    for (int s = 0; s < v->steps; s++) {
        if (s >= VPIC_DELAY)
            for (int k = 0; k < VPIC_VARS; k++)
                check(dah5_dataset_close(&ds[s - VPIC_DELAY][k]), "close dataset");
        for (int k = 0; k < VPIC_VARS; k++) {
            int32_t type = vpic_is_int(k) ? DAH5_INT32 : DAH5_FLOAT32;
            vpic_name(name, sizeof name, s, k);
            check(dah5_dataset_create(f, name, type, 1, dims, NULL, &ds[s][k]), "dataset");
            check(dah5_write_block(ds[s][k], off, cnt, type, v->vars[k], xfer), "write_block");
        }
    }
    for (int s = v->steps > VPIC_DELAY ? v->steps - VPIC_DELAY : 0; s < v->steps; s++)
        for (int k = 0; k < VPIC_VARS; k++)
            check(dah5_dataset_close(&ds[s][k]), "close dataset");
    /* h5bench's H5Fflush: HDF5's MPI-IO driver syncs the file (MPI_File_sync). */
    check(dah5_file_flush(f), "flush");
    check(dah5_file_close(&f), "close");
}

static void vpic_read_dah5(const struct vpic *v, uint32_t xfer)
{
    uint64_t off[1] = {v->n * (uint64_t)rank_g}, cnt[1] = {v->n};
    dah5_file *f = NULL;
    char name[64];
    check(dah5_file_open_comm(MPI_COMM_WORLD, path("vpic_dah5.h5"), DAH5_RDONLY, &f), "open");
    for (int s = 0; s < v->steps; s++)
        for (int k = 0; k < VPIC_VARS; k++) {
            dah5_dataset *d = NULL;
            vpic_name(name, sizeof name, s, k);
            check(dah5_dataset_open(f, name, &d), "open dataset");
            int32_t type = vpic_is_int(k) ? DAH5_INT32 : DAH5_FLOAT32;
            check(dah5_read_block(d, off, cnt, type, v->vars[k], xfer), "read_block");
            check(dah5_dataset_close(&d), "close dataset");
        }
    check(dah5_file_close(&f), "close");
}

/* One way of writing and reading the kernel: a library, its alignment (0: the library's
 * default; raw HDF5's is none), and the transfer mode. */
struct vpic_case {
    const char *mode, *method;
    int raw;
    uint64_t alignment;
    int collective;
};

static struct vpic vpic_g;

/* Element i of this rank's block (the id variable holds it as is, the others as floats
 * shifted by the variable's number). */
static uint64_t vpic_global(const struct vpic *v, uint64_t i) { return v->n * (uint64_t)rank_g + i; }

static float vpic_value(const struct vpic *v, int k, uint64_t i)
{
    return (float)vpic_global(v, i) + 0.125f * (float)k;
}

static void vpic_fill(struct vpic *v)
{
    for (int k = 0; k < VPIC_VARS; k++)
        for (uint64_t i = 0; i < v->n; i++) {
            if (vpic_is_int(k))
                ((int32_t *)v->vars[k])[i] = (int32_t)vpic_global(v, i);
            else
                ((float *)v->vars[k])[i] = vpic_value(v, k, i);
        }
}

/* After a read into zeroed buffers: every value must be the one written. */
static void vpic_check(const struct vpic *v, const char *method)
{
    for (int k = 0; k < VPIC_VARS; k++)
        for (uint64_t i = 0; i < v->n; i++) {
            int ok = vpic_is_int(k) ? ((int32_t *)v->vars[k])[i] == (int32_t)vpic_global(v, i)
                                    : ((float *)v->vars[k])[i] == vpic_value(v, k, i);
            if (!ok) {
                fprintf(stderr, "vpic: %s read back a wrong %s[%llu] on rank %d\n", method,
                        VPIC_NAMES[k], (unsigned long long)i, rank_g);
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
        }
}

static void vpic_write(void *arg)
{
    const struct vpic_case *c = arg;
    if (c->raw)
        vpic_write_raw(&vpic_g, c->alignment, c->collective);
    else
        vpic_write_dah5(&vpic_g, c->alignment, c->collective ? DAH5_COLLECTIVE : DAH5_INDEPENDENT);
}

static void vpic_read(void *arg)
{
    const struct vpic_case *c = arg;
    if (c->raw)
        vpic_read_raw(&vpic_g, c->collective);
    else
        vpic_read_dah5(&vpic_g, c->collective ? DAH5_COLLECTIVE : DAH5_INDEPENDENT);
}

/* bench vpic DIR PARTICLES STEPS ROUNDS: write (independent, collective) and read of the
 * VPIC-IO kernel through dah5 and raw HDF5, in shuffled order each round; each read reads
 * the file its own library wrote in that round (the page cache holds it: h5bench's read
 * kernel run right after its write), into zeroed buffers, and every value is checked
 * (untimed). Rows vpic_write_ind, vpic_write_coll, vpic_read_ind, vpic_read_coll;
 * methods dah5, dah5_align1, raw_hdf5, raw_hdf5_align1m; bytes: the data of all ranks. */
static int vpic(int argc, char **argv)
{
    if (argc < 6)
        return 1;
    vpic_g.n = strtoull(argv[3], NULL, 10);
    vpic_g.steps = atoi(argv[4]);
    if (vpic_g.steps < 1 || vpic_g.steps > 64)
        return 1;
    for (int k = 0; k < VPIC_VARS; k++)
        vpic_g.vars[k] = buffer(vpic_g.n * 4);
    vpic_fill(&vpic_g);
    /* dah5 with its defaults and with alignment 1 (none); raw HDF5 as h5bench, without
     * alignment (its default) and with ALIGN=YES at 1 MiB. */
    static const struct vpic_case cases[] = {
        {"ind", "dah5", 0, 0, 0},         {"ind", "dah5_align1", 0, 1, 0},
        {"ind", "raw_hdf5", 1, 0, 0},     {"ind", "raw_hdf5_align1m", 1, 1 << 20, 0},
        {"coll", "dah5", 0, 0, 1},        {"coll", "dah5_align1", 0, 1, 1},
        {"coll", "raw_hdf5", 1, 0, 1},    {"coll", "raw_hdf5_align1m", 1, 1 << 20, 1},
    };
    enum { N = sizeof cases / sizeof cases[0] };
    unsigned long long bytes = vpic_g.n * 4ULL * VPIC_VARS * (unsigned long long)vpic_g.steps *
                               (unsigned long long)size_g;
    char protocol[64];
    for (int round = 0; round <= atoi(argv[5]); round++) {
        int order[N];
        shuffled(order, N, round);
        for (int i = 0; i < N; i++) {
            int c = order[i];
            snprintf(protocol, sizeof protocol, "vpic_write_%s", cases[c].mode);
            /* A new file, as a run of h5bench makes: the old one's blocks are freed untimed. */
            if (rank_g == 0) {
                unlink(path("vpic_raw.h5"));
                unlink(path("vpic_dah5.h5"));
            }
            row(protocol, cases[c].method, round, time_op(vpic_write, (void *)&cases[c]), bytes);
            snprintf(protocol, sizeof protocol, "vpic_read_%s", cases[c].mode);
            for (int k = 0; k < VPIC_VARS; k++)
                memset(vpic_g.vars[k], 0, vpic_g.n * 4);
            row(protocol, cases[c].method, round, time_op(vpic_read, (void *)&cases[c]), bytes);
            vpic_check(&vpic_g, cases[c].method);
            vpic_fill(&vpic_g);
        }
    }
    unlink(path("vpic_raw.h5"));
    unlink(path("vpic_dah5.h5"));
    for (int k = 0; k < VPIC_VARS; k++)
        free(vpic_g.vars[k]);
    return 0;
}

static long max_rss_kib(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

/* Peak RSS of writing and reading one MIB block with dah5, relative to the process after
 * allocating and touching its buffer. */
static int memory(int argc, char **argv)
{
    if (argc < 4)
        return 1;
    /* Only the one buffer: the peak before the calls must be the buffer alone. */
    struct run r;
    r.n = strtoull(argv[3], NULL, 10) * 131072;
    r.buf = buffer(r.n * 8);
    for (uint64_t i = 0; i < r.n; i++)
        r.buf[i] = (double)i;
    long base = max_rss_kib();
    uint64_t dims[1] = {r.n * (uint64_t)size_g}, off[1] = {r.n * (uint64_t)rank_g}, cnt[1] = {r.n};
    dah5_file *f = NULL;
    dah5_dataset *d = NULL;
    check(dah5_file_create_comm(MPI_COMM_WORLD, path("memory.h5"), DAH5_TRUNC, &f), "create");
    check(dah5_dataset_create(f, "x", DAH5_FLOAT64, 1, dims, NULL, &d), "dataset");
    check(dah5_write_block(d, off, cnt, DAH5_FLOAT64, r.buf, 0), "write");
    long after_write = max_rss_kib();
    check(dah5_read_block(d, off, cnt, DAH5_FLOAT64, r.buf, 0), "read");
    long after_read = max_rss_kib();
    check(dah5_file_close(&f), "close");
    long extra[2] = {after_write - base, after_read - base}, worst[2];
    MPI_Reduce(extra, worst, 2, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank_g == 0)
        printf("memory,%s MiB block,buffer %llu KiB,write +%ld KiB,read +%ld KiB\n", argv[3],
               (unsigned long long)(r.n * 8 / 1024), worst[0], worst[1]);
    unlink(path("memory.h5"));
    free(r.buf);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_g);
    MPI_Comm_size(MPI_COMM_WORLD, &size_g);
    int bad = 1;
    if (argc >= 3) {
        snprintf(dir_g, sizeof dir_g, "%s", argv[2]);
        if (strcmp(argv[1], "bandwidth") == 0)
            bad = bandwidth(argc, argv);
        else if (strcmp(argv[1], "scaling") == 0)
            bad = scaling(argc, argv);
        else if (strcmp(argv[1], "metadata") == 0)
            bad = metadata(argc, argv);
        else if (strcmp(argv[1], "darray") == 0)
            bad = darray_ranks(argc, argv);
        else if (strcmp(argv[1], "metacost") == 0)
            bad = metacost(argc, argv);
        else if (strcmp(argv[1], "memory") == 0)
            bad = memory(argc, argv);
        else if (strcmp(argv[1], "create") == 0)
            bad = create(argc, argv);
        else if (strcmp(argv[1], "readback") == 0)
            bad = readback(argc, argv);
        else if (strcmp(argv[1], "layouts") == 0)
            bad = layouts(argc, argv);
        else if (strcmp(argv[1], "vpic") == 0)
            bad = vpic(argc, argv);
    }
    if (bad && rank_g == 0)
        fprintf(stderr, "usage: see the comment at the top of bench/bench.c\n");
    MPI_Finalize();
    return bad;
}
