/*
 * blockio.c: the test driver for block I/O. Every rank writes (or reads and checks) its
 * block of one dataset; blocks split one axis unevenly over the ranks (rank r gets a share
 * proportional to r + 1, and the rank named EMPTY gets nothing).
 *
 *   blockio MODE PATH DSET DTYPE ORDER XFER AXIS EMPTY D0 [D1 ...]
 *
 *   MODE   create (new file, TRUNC) | add (open RDWR, add a dataset) | read
 *   DTYPE  int8 .. complex128 (see pattern.h)
 *   ORDER  c | f            (f: DAH5_ORDER_F, dims and blocks in column-major order)
 *   XFER   ind | coll
 *   AXIS   the axis (in the ORDER's numbering) split over the ranks
 *   EMPTY  the rank with an empty block, or -1
 *   D...   dims in the ORDER's numbering
 *
 * Exits 0 when every element read equals the pattern of its global index. Rank 0 prints
 * one summary line per rank on stdout, in rank order; nothing goes to stderr unless
 * something fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "check.h"
#include "dah5_mpi.h"
#include "pattern.h"
#include "rank_order.h"

static int rank_g;

/* The share of `n` that rank `r` of `size` gets: weights r + 1, zero for `empty`. */
static void share(uint64_t n, int r, int size, int empty, uint64_t *start, uint64_t *len)
{
    uint64_t total = 0, before = 0;
    for (int i = 0; i < size; i++) {
        uint64_t w = i == empty ? 0 : (uint64_t)i + 1;
        total += w;
        if (i < r)
            before += w;
    }
    uint64_t w = r == empty ? 0 : (uint64_t)r + 1;
    *start = total ? n * before / total : 0;
    *len = (total ? n * (before + w) / total : 0) - *start;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_g);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 10) {
        fprintf(stderr, "usage: blockio MODE PATH DSET DTYPE ORDER XFER AXIS EMPTY D0 [D1 ...]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *mode = argv[1], *path = argv[2], *name = argv[3];
    const struct dtype_info *dt = dtype_by_name(argv[4]);
    int fortran = strcmp(argv[5], "f") == 0;
    uint32_t xfer = strcmp(argv[6], "coll") == 0 ? DAH5_COLLECTIVE : DAH5_INDEPENDENT;
    int axis = atoi(argv[7]), empty = atoi(argv[8]);
    uint32_t ndims = (uint32_t)(argc - 9);
    uint64_t dims[32], offset[32], count[32];
    for (uint32_t d = 0; d < ndims; d++)
        dims[d] = strtoull(argv[9 + d], NULL, 10);
    if (!dt || axis < 0 || (uint32_t)axis >= ndims) {
        fprintf(stderr, "bad dtype or axis\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    uint32_t order = fortran ? DAH5_ORDER_F : 0;

    /* This rank's block, in the handle's order. */
    uint64_t n = 1;
    for (uint32_t d = 0; d < ndims; d++) {
        offset[d] = 0;
        count[d] = dims[d];
    }
    share(dims[axis], rank_g, size, empty, &offset[axis], &count[axis]);
    for (uint32_t d = 0; d < ndims; d++)
        n *= count[d];

    /* The pattern for the block, in memory order (row-major for C, column-major for F).
     * Element k of the buffer has block index i, global index offset + i, and storage
     * linear index L (row-major over storage dims = the reversed handle dims for F). */
    unsigned char *expected = malloc(n * dt->size + 1);
    for (uint64_t k = 0; k < n; k++) {
        uint64_t rest = k, idx[32];
        for (uint32_t j = 0; j < ndims; j++) {
            uint32_t d = fortran ? j : ndims - 1 - j; /* fastest-varying first */
            idx[d] = offset[d] + rest % count[d];
            rest /= count[d];
        }
        uint64_t l = 0;
        for (uint32_t j = 0; j < ndims; j++) {
            uint32_t d = fortran ? ndims - 1 - j : j; /* slowest-varying first */
            l = l * dims[d] + idx[d];
        }
        pattern_value(dt->code, l, expected + k * dt->size);
    }

    dah5_file *file = NULL;
    dah5_dataset *dset = NULL;
    int bad = 0;
    if (strcmp(mode, "read") != 0) {
        if (strcmp(mode, "create") == 0)
            check(dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC | order, &file), "create");
        else
            check(dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDWR | order, &file), "open");
        check(dah5_dataset_create(file, name, dt->code, ndims, dims, NULL, &dset), "dataset_create");
        check(dah5_write_block(dset, offset, count, dt->code, n ? expected : NULL, xfer), "write_block");
    } else {
        check(dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDONLY | order, &file), "open");
        check(dah5_dataset_open(file, name, &dset), "dataset_open");
        int32_t code;
        uint32_t nd;
        uint64_t got[32];
        check(dah5_dataset_dtype(dset, &code), "dtype");
        check(dah5_dataset_ndims(dset, &nd), "ndims");
        check(dah5_dataset_dims(dset, 32, got), "dims");
        if (code != dt->code || nd != ndims) {
            fprintf(stderr, "rank %d: dtype %d ndims %u, expected %d %u\n", rank_g, code, nd, dt->code, ndims);
            bad++;
        }
        for (uint32_t d = 0; d < nd && d < ndims; d++)
            if (got[d] != dims[d]) {
                fprintf(stderr, "rank %d: dims[%u] = %llu, expected %llu\n", rank_g, d,
                        (unsigned long long)got[d], (unsigned long long)dims[d]);
                bad++;
            }
        unsigned char *buf = malloc(n * dt->size + 1);
        memset(buf, 0xA5, n * dt->size);
        check(dah5_read_block(dset, offset, count, dt->code, n ? buf : NULL, xfer), "read_block");
        for (uint64_t k = 0; k < n; k++)
            if (memcmp(buf + k * dt->size, expected + k * dt->size, dt->size) != 0) {
                if (bad < 5)
                    fprintf(stderr, "rank %d: element %llu of the block differs\n", rank_g,
                            (unsigned long long)k);
                bad++;
            }
        free(buf);
    }
    check(dah5_dataset_close(&dset), "dataset_close");
    check(dah5_file_close(&file), "file_close");
    if (dset != NULL || file != NULL) {
        fprintf(stderr, "rank %d: close did not set the handle to NULL\n", rank_g);
        bad++;
    }
    char line[512];
    snprintf(line, sizeof line, "rank %d/%d %s %s: block offset[%d]=%llu count[%d]=%llu, %llu elements, %d wrong\n",
             rank_g, size, mode, name, axis, (unsigned long long)offset[axis], axis,
             (unsigned long long)count[axis], (unsigned long long)n, bad);
    print_in_rank_order(line);
    free(expected);
    MPI_Finalize();
    return bad ? 1 : 0;
}
