/*
 * block_list.h: many blocks of one rank for the many-block drivers (many_blocks.c,
 * darray_blocks.c): blocks set in the handle's order, their pattern values packed block
 * after block as dah5_write_blocks takes them and compared with what was read (an
 * expect.h check), and a scrambled order.
 */
#ifndef DAH5_TEST_BLOCK_LIST_H
#define DAH5_TEST_BLOCK_LIST_H

#include <stdint.h>
#include <stdlib.h>

#include "expect.h"
#include "pattern.h"

/* The file handle's order: 1 for DAH5_ORDER_F. */
static int fortran;

/* Block i's offset and count as the handle takes them (storage order reversed for F). */
static void put(uint64_t *offsets, uint64_t *counts, size_t i, uint32_t ndims, const uint64_t *off,
                const uint64_t *cnt)
{
    for (uint32_t d = 0; d < ndims; d++) {
        uint32_t h = fortran ? ndims - 1 - d : d;
        offsets[i * ndims + h] = off[d];
        counts[i * ndims + h] = cnt[d];
    }
}

/* Pattern values of the blocks (storage order), packed block after block in the handle's
 * order: for F order each block is column-major, i.e. its storage-order index reversed. */
static double *pack(uint32_t ndims, const uint64_t *dims, size_t nblocks, const uint64_t *offsets,
                    const uint64_t *counts, size_t *n_out)
{
    size_t n = 0;
    for (size_t b = 0; b < nblocks; b++) {
        size_t m = 1;
        for (uint32_t d = 0; d < ndims; d++)
            m *= counts[b * ndims + d];
        n += m;
    }
    double *buf = malloc((n ? n : 1) * sizeof *buf);
    size_t at = 0;
    for (size_t b = 0; b < nblocks; b++) {
        const uint64_t *o = offsets + b * ndims, *c = counts + b * ndims;
        size_t m = 1;
        for (uint32_t d = 0; d < ndims; d++)
            m *= c[d];
        for (size_t k = 0; k < m; k++) {
            /* The block is packed in storage (C) order of its elements whichever the
             * handle's order: column-major in the handle's (reversed) dims for F. */
            uint64_t rest = k, l = 0, stride = 1;
            for (int d = (int)ndims - 1; d >= 0; d--) {
                uint32_t h = fortran ? ndims - 1 - (uint32_t)d : (uint32_t)d;
                l += (o[h] + rest % c[h]) * stride;
                rest /= c[h];
                stride *= dims[d];
            }
            pattern_value(DAH5_FLOAT64, l, &buf[at++]);
        }
    }
    *n_out = n;
    return buf;
}

/* A permutation of 0..n-1 that differs per rank and seed. */
static void scramble(size_t *order, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = n; i > 1; i--) {
        seed = seed * 1103515245u + 12345u;
        size_t j = (seed >> 8) % i, t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
}

/* Compare `got` with the pattern values of the blocks; count a failure naming `what`. */
static void compare(uint32_t ndims, const uint64_t *dims, size_t nblocks, const uint64_t *offsets,
                    const uint64_t *counts, const double *got, const char *what)
{
    size_t n;
    double *want = pack(ndims, dims, nblocks, offsets, counts, &n);
    checks++;
    if (n && memcmp(want, got, n * sizeof *got) != 0) {
        fprintf(stderr, "rank %d: FAIL %s: values differ\n", rank, what);
        failures++;
    }
    free(want);
}

/* The tiles of a 2-D block-cyclic matrix of ntiles[0] × ntiles[1] tiles of tile[0] ×
 * tile[1] that rank `owner` of `nranks` holds (tile (i, j) is rank (i + j) % nranks's),
 * in a scrambled order, as handle-order blocks. Returns their number. */
static size_t cyclic_tiles(int owner, int nranks, const uint64_t tile[2], const uint64_t ntiles[2],
                           uint64_t *offsets, uint64_t *counts)
{
    size_t total = (size_t)(ntiles[0] * ntiles[1]), n = 0;
    size_t *mine = malloc(total * sizeof *mine), *order = malloc(total * sizeof *order);
    for (size_t t = 0; t < total; t++)
        if ((int)((t / ntiles[1] + t % ntiles[1]) % (size_t)nranks) == owner)
            mine[n++] = t;
    scramble(order, n, 7u + (unsigned)owner);
    for (size_t i = 0; i < n; i++) {
        size_t t = mine[order[i]];
        uint64_t off[2] = {t / ntiles[1] * tile[0], t % ntiles[1] * tile[1]};
        put(offsets, counts, i, 2, off, tile);
    }
    free(mine);
    free(order);
    return n;
}

#endif
