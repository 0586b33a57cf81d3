/*
 * selection.c: how long HDF5 takes to build the union of N blocks as one selection, the way
 * a many-block write must (bench/blocks.c, dah5_write_blocks). One process, HDF5 only (no
 * MPI calls; the file is never touched).
 *
 *   selection [LIMIT_SECONDS [N...]]     (defaults: 30; 10 1000 100000)
 *
 * Shapes: 1-D one-element runs (element 2k for k < N: none adjacent, so HDF5 cannot merge
 * them, like E3SM's runs of columns) and 2-D 8 x 8 tiles (every other tile of each row of
 * tiles, as one rank of two holds them block-cyclically), each in a random order (a fixed
 * seed) and sorted by their place in the file. Ways:
 *   or_loop     H5Sselect_hyperslab(H5S_SELECT_OR) a block at a time; stopped once it has
 *               taken LIMIT_SECONDS (the row then says how many blocks it had added)
 *   combine     a one-block selection a block, joined by halves with
 *               H5Scombine_select(H5S_SELECT_OR): log2(N) levels of merges
 * Each union is checked to hold N blocks' elements.
 *
 * CSV on stdout: selection,HDF5 version,shape,order,way,N,seconds,blocks added
 */
#include "common.h"

enum { TILE = 8 };

struct shape {
    const char *name;
    int ndims;
    hsize_t extent[2];
    hsize_t *starts; /* N x ndims */
    hsize_t count[2];
};

static unsigned long long rng_g = 0x2545F4914F6CDD1DULL;

static unsigned long long next_random(void)
{
    rng_g ^= rng_g << 13;
    rng_g ^= rng_g >> 7;
    rng_g ^= rng_g << 17;
    return rng_g;
}

/* The N blocks of `name` ("runs" or "tiles"), in file order or shuffled. */
static struct shape make_shape(const char *name, size_t n, int random)
{
    struct shape s = {name, 1, {2 * n, 1}, malloc(n * 2 * sizeof(hsize_t)), {1, 1}};
    size_t side = 1;
    while (side * side < n)
        side++;
    if (strcmp(name, "tiles") == 0) {
        s.ndims = 2;
        s.extent[0] = side * TILE, s.extent[1] = 2 * side * TILE;
        s.count[0] = s.count[1] = TILE;
    }
    for (size_t k = 0; k < n; k++) {
        if (s.ndims == 1) {
            s.starts[k] = 2 * k;
        } else {
            s.starts[2 * k] = k / side * TILE;
            s.starts[2 * k + 1] = 2 * (k % side) * TILE;
        }
    }
    for (size_t k = n - 1; random && k > 0; k--) {
        size_t j = next_random() % (k + 1);
        for (int d = 0; d < s.ndims; d++) {
            hsize_t t = s.starts[k * s.ndims + d];
            s.starts[k * s.ndims + d] = s.starts[j * s.ndims + d];
            s.starts[j * s.ndims + d] = t;
        }
    }
    return s;
}

static hid_t one_block(hid_t space, const struct shape *s, size_t k)
{
    hid_t b = H5Scopy(space);
    check_h5(H5Sselect_hyperslab(b, H5S_SELECT_SET, s->starts + k * s->ndims, NULL, s->count, NULL),
             "H5Sselect_hyperslab");
    return b;
}

static hid_t combined(hid_t space, const struct shape *s, size_t lo, size_t hi)
{
    if (hi - lo == 1)
        return one_block(space, s, lo);
    size_t mid = lo + (hi - lo) / 2;
    hid_t a = combined(space, s, lo, mid), b = combined(space, s, mid, hi);
    hid_t u = H5Scombine_select(a, H5S_SELECT_OR, b);
    check_h5(u, "H5Scombine_select");
    H5Sclose(a);
    H5Sclose(b);
    return u;
}

/* Blocks added one at a time until all are in or `limit` seconds have passed; returns how
 * many are in. */
static size_t or_loop(hid_t space, const struct shape *s, size_t n, double limit)
{
    double start = now();
    check_h5(H5Sselect_hyperslab(space, H5S_SELECT_SET, s->starts, NULL, s->count, NULL), "set");
    size_t k = 1;
    for (; k < n && now() - start < limit; k++)
        check_h5(H5Sselect_hyperslab(space, H5S_SELECT_OR, s->starts + k * s->ndims, NULL, s->count, NULL), "or");
    return k;
}

static void measure(const char *version, const char *name, int random, size_t n, double limit)
{
    struct shape s = make_shape(name, n, random);
    hid_t space = H5Screate_simple(s.ndims, s.extent, NULL);
    hssize_t per_block = (hssize_t)(s.count[0] * s.count[1]);
    const char *order = random ? "random" : "sorted";

    double t0 = now();
    hid_t u = combined(space, &s, 0, n);
    double t = now() - t0;
    if (H5Sget_select_npoints(u) != per_block * (hssize_t)n) {
        fprintf(stderr, "selection: the combined union of %zu %s misses elements\n", n, name);
        exit(3);
    }
    H5Sclose(u);
    printf("selection,%s,%s,%s,combine,%zu,%.6f,%zu\n", version, name, order, n, t, n);
    fflush(stdout);

    t0 = now();
    size_t done = or_loop(space, &s, n, limit);
    t = now() - t0;
    if (H5Sget_select_npoints(space) != per_block * (hssize_t)done) {
        fprintf(stderr, "selection: the or_loop union of %zu %s misses elements\n", done, name);
        exit(3);
    }
    printf("selection,%s,%s,%s,or_loop,%zu,%.6f,%zu\n", version, name, order, n, t, done);
    fflush(stdout);
    H5Sclose(space);
    free(s.starts);
}

int main(int argc, char **argv)
{
    double limit = argc > 1 ? atof(argv[1]) : 30;
    static const size_t defaults[] = {10, 1000, 100000};
    unsigned major, minor, release;
    char version[32];
    H5get_libversion(&major, &minor, &release);
    snprintf(version, sizeof version, "%u.%u.%u", major, minor, release);
    int count = argc > 2 ? argc - 2 : 3;
    for (int shape = 0; shape < 2; shape++)
        for (int random = 1; random >= 0; random--)
            for (int i = 0; i < count; i++) {
                size_t n = argc > 2 ? strtoull(argv[i + 2], NULL, 10) : defaults[i];
                measure(version, shape ? "tiles" : "runs", random, n, limit);
            }
    return 0;
}
