/*
 * pattern.h: the closed form every test writes and checks: element value as a function of
 * its linear index in the dataset's storage (C) order, one formula per dtype. The Python
 * checker (tests/py/check_pattern.py) has the same formulas.
 */
#ifndef DAH5_TEST_PATTERN_H
#define DAH5_TEST_PATTERN_H

#include <stdint.h>
#include <string.h>

#include "dah5.h"

struct dtype_info {
    const char *name;
    int32_t code;
    size_t size;
};

static const struct dtype_info DTYPES[] = {
    {"int8", DAH5_INT8, 1},         {"int16", DAH5_INT16, 2},       {"int32", DAH5_INT32, 4},
    {"int64", DAH5_INT64, 8},       {"uint8", DAH5_UINT8, 1},       {"uint16", DAH5_UINT16, 2},
    {"uint32", DAH5_UINT32, 4},     {"uint64", DAH5_UINT64, 8},     {"float32", DAH5_FLOAT32, 4},
    {"float64", DAH5_FLOAT64, 8},   {"complex64", DAH5_COMPLEX64, 8},
    {"complex128", DAH5_COMPLEX128, 16},
};

static inline const struct dtype_info *dtype_by_name(const char *name)
{
    for (size_t i = 0; i < sizeof DTYPES / sizeof DTYPES[0]; i++)
        if (strcmp(DTYPES[i].name, name) == 0)
            return &DTYPES[i];
    return NULL;
}

/* Store the pattern value of linear index `l` as dtype `code` at `out`. */
static inline void pattern_value(int32_t code, uint64_t l, void *out)
{
    switch (code) {
    case DAH5_INT8: { int8_t v = (int8_t)((int64_t)(l % 251) - 125); memcpy(out, &v, 1); break; }
    case DAH5_INT16: { int16_t v = (int16_t)((int64_t)(l % 65521) - 32760); memcpy(out, &v, 2); break; }
    case DAH5_INT32: { int32_t v = (int32_t)((int64_t)l * 3 - 123456); memcpy(out, &v, 4); break; }
    case DAH5_INT64: { int64_t v = (int64_t)l * 1000003 - 5000000000000LL; memcpy(out, &v, 8); break; }
    case DAH5_UINT8: { uint8_t v = (uint8_t)(l % 251); memcpy(out, &v, 1); break; }
    case DAH5_UINT16: { uint16_t v = (uint16_t)(l % 65521); memcpy(out, &v, 2); break; }
    case DAH5_UINT32: { uint32_t v = (uint32_t)(l * 5 + 7); memcpy(out, &v, 4); break; }
    case DAH5_UINT64: { uint64_t v = l * 1000003 + (1ULL << 40); memcpy(out, &v, 8); break; }
    case DAH5_FLOAT32: { float v = (float)l * 0.25f - 100.0f; memcpy(out, &v, 4); break; }
    case DAH5_FLOAT64: { double v = (double)l + (double)l / 1024.0; memcpy(out, &v, 8); break; }
    case DAH5_COMPLEX64: { float v[2] = {(float)l * 0.25f, -(float)l * 0.5f}; memcpy(out, v, 8); break; }
    case DAH5_COMPLEX128: { double v[2] = {(double)l + 0.5, -(double)l}; memcpy(out, v, 16); break; }
    default: memset(out, 0xff, 1); break;
    }
}

/* Fill buf with the pattern of the block (offset, count, in the handle's order) of an array
 * of dims; the pattern is defined on the C-order linear index. Returns elements. */
static inline uint64_t pattern_fill(int32_t dtype, size_t esize, uint32_t ndims, const uint64_t *dims,
                     const uint64_t *offset, const uint64_t *count, int forder, void *buf)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < ndims; d++)
        n *= count[d];
    for (uint64_t e = 0; e < n; e++) {
        /* e is the element's position in the block, in the handle's memory order. */
        uint64_t rest = e, linear = 0;
        uint64_t idx[DAH5_MAX_NDIMS];
        for (uint32_t k = 0; k < ndims; k++) {
            uint32_t d = forder ? k : ndims - 1 - k; /* fastest dimension first */
            idx[d] = offset[d] + rest % count[d];
            rest /= count[d];
        }
        /* C-order (storage) linear index: storage dims are the handle's, reversed if F. */
        for (uint32_t k = 0; k < ndims; k++) {
            uint32_t d = forder ? ndims - 1 - k : k; /* slowest storage dim first */
            linear = linear * dims[d] + idx[d];
        }
        pattern_value(dtype, linear, (char *)buf + e * esize);
    }
    return n;
}

/* The block of grid cell `cell` of `grid` over `dims` (cells numbered in C order over the
 * grid; everything in the handle's order): the blocks of a regular decomposition. */
static inline void grid_block(uint32_t ndims, const uint64_t *dims, const uint64_t *grid, uint64_t cell,
                              uint64_t *offset, uint64_t *count)
{
    for (uint32_t k = 0; k < ndims; k++) {
        uint32_t d = ndims - 1 - k;
        uint64_t c = cell % grid[d];
        cell /= grid[d];
        offset[d] = dims[d] * c / grid[d];
        count[d] = dims[d] * (c + 1) / grid[d] - offset[d];
    }
}

#endif
