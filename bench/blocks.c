/*
 * blocks.c: many blocks a rank (issue 31): dah5_write_blocks against raw HDF5 writing the
 * same selection, PnetCDF and parallel netCDF-4, under mpiexec.
 *
 *   blocks DIR cyclic ROUNDS N B   an N x N float64 matrix in B x B blocks, dealt
 *                                  block-cyclically over a process grid of pr x pc ranks (pr
 *                                  the largest divisor of the ranks up to their square root:
 *                                  1 x 2 at 2 ranks) as ScaLAPACK deals them; a rank's blocks
 *                                  listed row of blocks by row of blocks
 *   blocks DIR e3sm ROUNDS VARS    VARS variables of E3SM's F case, each a (lev, ncol) =
 *                                  (72, 866) float64 dataset written with a map of the shape
 *                                  of its map D3 (e3sm_columns below): a one-element block a
 *                                  run, not sorted. The map is of 16 ranks; rank q's runs go
 *                                  to rank q * ranks / 16 here, so at 2 ranks each has eight
 *                                  ranks' runs, about 31,000 a variable
 *   blocks DIR one ROUNDS N        the control: N x N, one block a rank (a slab of rows)
 *
 * Every method creates a new file in DIR (the old one removed untimed first, as bench.c's
 * VPIC-IO kernel does), defines the pattern's variables, writes every rank's blocks of each
 * and closes the file: timed as bench.c times (sync, barrier, op, barrier, with the ranks'
 * largest wait for a CPU), in ROUNDS rounds plus a warm-up (round 0), in an order shuffled
 * anew each round. The methods (DAH5_BENCH_BLOCKS_METHODS, comma-separated, picks some):
 *   dah5_ind, dah5_coll       one dah5_write_blocks a variable, independent / collective;
 *                             its buffer holds the blocks one after another
 *   dah5_darray               one dah5_darray_write_blocks a variable (collective: the
 *                             blocks of all ranks checked and recorded in a block table)
 *   dah5_loop                 one dah5_write_block a block, independent: the way without
 *                             write_blocks
 *   raw_hdf5_ind, raw_hdf5_coll
 *                             the same selection with raw HDF5 as dah5 sets it up (common.h's
 *                             raw_fapl, raw_dcpl): the union of the rank's blocks built once a
 *                             file, by halves (union_of), then one H5Dwrite a variable. HDF5
 *                             maps a contiguous memory buffer to a union of hyperslabs in the
 *                             file's order, so raw HDF5 writes from a buffer in file order,
 *                             made untimed (for block-cyclic that is ScaLAPACK's local
 *                             matrix); dah5 reorders inside the call where it must
 *   raw_hdf5_ind_per_var      as raw_hdf5_ind, the selection built anew for each variable,
 *                             as each dah5_write_blocks builds it (with several variables)
 *   pnetcdf                   ncmpi_put_varn_all a variable (blocks one after another), a
 *                             CDF-5 file (Debian's libpnetcdf-dev)
 *   netcdf4_ind, netcdf4_coll parallel netCDF-4 (libnetcdf-mpi-dev; HDF5 underneath,
 *                             variables contiguous and not filled, as dah5's): it has no call
 *                             for many blocks, so nc_put_vara a block. In collective mode every
 *                             nc_put_vara is a collective H5Dwrite, so every rank makes as many
 *                             calls as the rank with the most blocks, the others' padded with
 *                             empty ones: ranks wait for each other at every block
 * pnetcdf and netcdf4_* are there when built with them (the Makefile: only on Debian's Open MPI
 * stack).
 *
 * After its warm-up write, each method's file is read back untimed (every rank a slab of rows
 * of every variable) and every element compared with what was written, so a method that is
 * fast because it wrote something else stops the bench.
 *
 * CSV as bench.c's: protocol (blocks_cyclic, blocks_e3sm, blocks_one), method, round, seconds,
 * bytes (all ranks' data), waited; before the rows, one line "# protocol,what" describing the
 * pattern (for report.py).
 */
#include "common.h"


#ifdef HAVE_PNETCDF
#include <pnetcdf.h>
#endif
#ifdef HAVE_NETCDF4
/* pnetcdf.h defines some of netcdf.h's limits with other values; this program uses none of
 * them, netcdf.h's stand. */
#undef NC_MIN_INT64
#undef NC_MAX_DIMS
#undef NC_MAX_ATTRS
#undef NC_MAX_VARS
#undef NC_MAX_VAR_DIMS
#undef NC_QUANTIZE_BITGROOM_ATT_NAME
#include <netcdf.h>
#include <netcdf_par.h>
#endif

enum { NDIMS = 2 };

/* One rank's part of a decomposition: its blocks of each of `nvars` variables of `dims`. */
struct pattern {
    const char *protocol;
    const char *dim_names[NDIMS];
    uint64_t dims[NDIMS];
    int nvars;
    uint64_t nblocks, most_blocks; /* this rank's; the most of any rank */
    uint64_t *offsets, *counts;    /* nblocks x NDIMS */
    uint64_t elements;             /* this rank's in a variable */
    double *blocks;                /* nvars x elements: each variable's blocks one after another */
    double *file_order;            /* the same values in the file's order */
#ifdef HAVE_PNETCDF
    MPI_Offset **nc_starts, **nc_counts; /* the blocks as put_varn takes them */
#endif
};

static struct pattern pattern_g;

/* What variable v holds at (i, j): its place in all the variables' elements, exact in a
 * double below 2^53. */
static double value(const struct pattern *p, int v, uint64_t i, uint64_t j)
{
    return (double)(((uint64_t)v * p->dims[0] + i) * p->dims[1] + j);
}

static void variable_name(char *name, size_t len, int v) { snprintf(name, len, "v%d", v); }

static void add_block(struct pattern *p, uint64_t capacity, uint64_t i, uint64_t j, uint64_t rows,
                      uint64_t cols)
{
    if (p->nblocks == capacity) {
        fprintf(stderr, "rank %d: more blocks than reckoned\n", rank_g);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    uint64_t *o = p->offsets + NDIMS * p->nblocks, *c = p->counts + NDIMS * p->nblocks;
    o[0] = i, o[1] = j, c[0] = rows, c[1] = cols;
    p->nblocks++;
    p->elements += rows * cols;
}

static void alloc_blocks(struct pattern *p, uint64_t capacity)
{
    p->offsets = malloc((capacity ? capacity : 1) * NDIMS * sizeof(uint64_t));
    p->counts = malloc((capacity ? capacity : 1) * NDIMS * sizeof(uint64_t));
}

/* N x N in B x B blocks over a pr x pc grid: block (I, J) is rank (I % pr) * pc + J % pc's. */
static int cyclic(struct pattern *p, uint64_t n, uint64_t b)
{
    if (b == 0 || n % b != 0)
        return 1;
    int pr = 1;
    for (int d = 1; d * d <= size_g; d++)
        if (size_g % d == 0)
            pr = d;
    int pc = size_g / pr, my_row = rank_g / pc, my_col = rank_g % pc;
    uint64_t nb = n / b, rows = (nb + (uint64_t)pr - 1) / (uint64_t)pr, cols = (nb + (uint64_t)pc - 1) / (uint64_t)pc;
    p->protocol = "blocks_cyclic";
    p->dim_names[0] = "row", p->dim_names[1] = "col";
    p->dims[0] = p->dims[1] = n;
    p->nvars = 1;
    alloc_blocks(p, rows * cols);
    for (uint64_t bi = (uint64_t)my_row; bi < nb; bi += (uint64_t)pr)
        for (uint64_t bj = (uint64_t)my_col; bj < nb; bj += (uint64_t)pc)
            add_block(p, rows * cols, bi * b, bj * b, b, b);
    if (rank_g == 0)
        printf("# blocks_cyclic,%llu x %llu float64 in %llu x %llu blocks on a %d x %d grid "
               "(%llu blocks a rank)\n", (unsigned long long)n, (unsigned long long)n,
               (unsigned long long)b, (unsigned long long)b, pr, pc, (unsigned long long)p->nblocks);
    return 0;
}

enum { E3SM_RANKS = 16, E3SM_NCOL = 866, E3SM_NLEV = 72, E3SM_GROUPS = 64 };

/* Rank q's columns (of 16 ranks), in its order, in a map of the shape of E3SM's F case
 * (ncol 866 on 16 ranks, as map D2 of the E3SM-IO benchmark's datasets/map_f_case_16p.h5,
 * which is not copied here): the columns fall in 64 groups of columns 64 apart (g, g + 64,
 * ...: 13 or 14 each), dealt 4 groups a rank in a scrambled order, so a rank has 52-56
 * one-element runs, not sorted. Returns how many. */
static int e3sm_columns(int q, int *columns)
{
    int groups[E3SM_GROUPS];
    for (int g = 0; g < E3SM_GROUPS; g++)
        groups[g] = g;
    unsigned seed = 12345u;
    for (int g = E3SM_GROUPS - 1; g > 0; g--) {
        seed = seed * 1103515245u + 12345u;
        int j = (int)((seed >> 16) % (unsigned)(g + 1)), t = groups[g];
        groups[g] = groups[j], groups[j] = t;
    }
    int n = 0, per_rank = E3SM_GROUPS / E3SM_RANKS;
    for (int k = 0; k < per_rank; k++)
        for (int c = groups[q * per_rank + k]; c < E3SM_NCOL; c += E3SM_GROUPS)
            columns[n++] = c;
    return n;
}

/* VARS variables of (lev, ncol) with the map D3 of that shape: rank q of 16's runs of
 * columns at each level, level after level, as E3SM lists them. */
static int e3sm(struct pattern *p, int vars)
{
    if (vars < 1)
        return 1;
    p->protocol = "blocks_e3sm";
    p->dim_names[0] = "lev", p->dim_names[1] = "ncol";
    p->dims[0] = E3SM_NLEV, p->dims[1] = E3SM_NCOL;
    p->nvars = vars;
    alloc_blocks(p, (uint64_t)E3SM_NLEV * E3SM_NCOL);
    int columns[E3SM_NCOL];
    for (int q = 0; q < E3SM_RANKS; q++) {
        if (q * size_g / E3SM_RANKS != rank_g)
            continue;
        int n = e3sm_columns(q, columns);
        for (uint64_t lev = 0; lev < E3SM_NLEV; lev++)
            for (int k = 0; k < n; k++)
                add_block(p, (uint64_t)E3SM_NLEV * E3SM_NCOL, lev, (uint64_t)columns[k], 1, 1);
    }
    if (rank_g == 0)
        printf("# blocks_e3sm,%d variable%s of (lev %d; ncol %d) float64; a map of E3SM's F case's shape, one-element "
               "runs (%llu blocks a variable on rank 0)\n", vars, vars == 1 ? "" : "s", E3SM_NLEV, E3SM_NCOL,
               (unsigned long long)p->nblocks);
    return 0;
}

/* The control: rank r's slab of rows [r N / ranks, (r + 1) N / ranks). */
static int one(struct pattern *p, uint64_t n)
{
    if (n == 0)
        return 1;
    uint64_t first = n * (uint64_t)rank_g / (uint64_t)size_g, end = n * (uint64_t)(rank_g + 1) / (uint64_t)size_g;
    p->protocol = "blocks_one";
    p->dim_names[0] = "row", p->dim_names[1] = "col";
    p->dims[0] = p->dims[1] = n;
    p->nvars = 1;
    alloc_blocks(p, 1);
    if (end > first)
        add_block(p, 1, first, 0, end - first, n);
    if (rank_g == 0)
        printf("# blocks_one,%llu x %llu float64, one block (a slab of rows) a rank\n",
               (unsigned long long)n, (unsigned long long)n);
    return 0;
}

/* The values of every variable, blocks one after another and in the file's order. The file's
 * order comes from a map of the elements this rank owns (a byte each: 64 MiB at 8192^2), read
 * in order. */
static void fill(struct pattern *p)
{
    uint64_t e = p->elements, nd = p->dims[0] * p->dims[1];
    p->blocks = buffer((uint64_t)p->nvars * e * 8);
    p->file_order = buffer((uint64_t)p->nvars * e * 8);
    unsigned char *mine = calloc(nd ? nd : 1, 1);
    for (int v = 0; v < p->nvars; v++) {
        double *out = p->blocks + (uint64_t)v * e;
        for (uint64_t b = 0; b < p->nblocks; b++) {
            const uint64_t *o = p->offsets + NDIMS * b, *c = p->counts + NDIMS * b;
            for (uint64_t i = o[0]; i < o[0] + c[0]; i++)
                for (uint64_t j = o[1]; j < o[1] + c[1]; j++) {
                    *out++ = value(p, v, i, j);
                    mine[i * p->dims[1] + j] = 1;
                }
        }
        out = p->file_order + (uint64_t)v * e;
        for (uint64_t k = 0; k < nd; k++)
            if (mine[k])
                *out++ = value(p, v, k / p->dims[1], k % p->dims[1]);
    }
    free(mine);
    uint64_t most = p->nblocks;
    MPI_Allreduce(&most, &p->most_blocks, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
#ifdef HAVE_PNETCDF
    p->nc_starts = malloc((p->nblocks + 1) * sizeof(MPI_Offset *));
    p->nc_counts = malloc((p->nblocks + 1) * sizeof(MPI_Offset *));
    MPI_Offset *flat = malloc((p->nblocks + 1) * 2 * NDIMS * sizeof(MPI_Offset));
    for (uint64_t b = 0; b < p->nblocks; b++) {
        p->nc_starts[b] = flat + 2 * NDIMS * b;
        p->nc_counts[b] = flat + 2 * NDIMS * b + NDIMS;
        for (int d = 0; d < NDIMS; d++) {
            p->nc_starts[b][d] = (MPI_Offset)p->offsets[NDIMS * b + d];
            p->nc_counts[b][d] = (MPI_Offset)p->counts[NDIMS * b + d];
        }
    }
#endif
}

/* ---- the methods ---- */

enum dah5_way { BLOCKS, DARRAY, LOOP };

static void write_dah5(const char *file, enum dah5_way way, uint32_t xfer)
{
    const struct pattern *p = &pattern_g;
    dah5_file *f = NULL;
    char name[32];
    check(dah5_file_create_comm(MPI_COMM_WORLD, path(file), DAH5_TRUNC, &f), "create");
    for (int v = 0; v < p->nvars; v++) {
        dah5_dataset *d = NULL;
        const double *buf = p->blocks + (uint64_t)v * p->elements;
        variable_name(name, sizeof name, v);
        if (way == DARRAY) {
            check(dah5_darray_write_blocks(f, name, DAH5_FLOAT64, NDIMS, p->dims, p->nblocks, p->offsets,
                                           p->counts, buf, 0, NULL, &d), "darray_write_blocks");
        } else {
            check(dah5_dataset_create(f, name, DAH5_FLOAT64, NDIMS, p->dims, NULL, &d), "dataset");
            if (way == BLOCKS)
                check(dah5_write_blocks(d, p->nblocks, p->offsets, p->counts, DAH5_FLOAT64, buf, xfer),
                      "write_blocks");
            else
                for (uint64_t b = 0; b < p->nblocks; b++) {
                    const uint64_t *c = p->counts + NDIMS * b;
                    check(dah5_write_block(d, p->offsets + NDIMS * b, c, DAH5_FLOAT64, buf, DAH5_INDEPENDENT),
                          "write_block");
                    buf += c[0] * c[1];
                }
        }
        check(dah5_dataset_close(&d), "close dataset");
    }
    check(dah5_file_close(&f), "close");
}

static void dah5_ind(const char *file) { write_dah5(file, BLOCKS, DAH5_INDEPENDENT); }
static void dah5_coll(const char *file) { write_dah5(file, BLOCKS, DAH5_COLLECTIVE); }
static void dah5_darray(const char *file) { write_dah5(file, DARRAY, 0); }
static void dah5_loop(const char *file) { write_dah5(file, LOOP, DAH5_INDEPENDENT); }

/* The union of blocks [lo, hi) as a selection in `space`'s extent, built by halves: a
 * hyperslab a block, then the halves' unions joined with H5Scombine_select. HDF5 1.10.8's
 * H5Sselect_hyperslab with H5S_SELECT_OR adds a block in time that grows with the selection,
 * quadratic in all (bench/selection.c measures both). */
static hid_t union_of(hid_t space, const struct pattern *p, uint64_t lo, uint64_t hi)
{
    if (hi - lo == 1) {
        hsize_t start[NDIMS], count[NDIMS];
        for (int d = 0; d < NDIMS; d++)
            start[d] = p->offsets[NDIMS * lo + d], count[d] = p->counts[NDIMS * lo + d];
        hid_t s = H5Scopy(space);
        check_h5(H5Sselect_hyperslab(s, H5S_SELECT_SET, start, NULL, count, NULL), "H5Sselect_hyperslab");
        return s;
    }
    uint64_t mid = lo + (hi - lo) / 2;
    hid_t a = union_of(space, p, lo, mid), b = union_of(space, p, mid, hi);
    hid_t u = H5Scombine_select(a, H5S_SELECT_OR, b);
    check_h5(u, "H5Scombine_select");
    H5Sclose(a);
    H5Sclose(b);
    return u;
}

/* This rank's blocks as a selection of `whole` (none when it has none). */
static hid_t selection_of(hid_t whole, const struct pattern *p)
{
    if (p->nblocks)
        return union_of(whole, p, 0, p->nblocks);
    hid_t none = H5Scopy(whole);
    H5Sselect_none(none);
    return none;
}

/* With `per_variable`, the selection is built anew for each variable, as a call of
 * dah5_write_blocks builds it; otherwise once a file and used for every variable. */
static void write_raw(const char *file, int collective, int per_variable)
{
    const struct pattern *p = &pattern_g;
    hsize_t dims[NDIMS] = {p->dims[0], p->dims[1]}, n = p->elements;
    hid_t fapl = raw_fapl(), dcpl = raw_dcpl(), dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
    hid_t whole = H5Screate_simple(NDIMS, dims, NULL), memory = H5Screate_simple(1, &n, NULL);
    if (!p->nblocks)
        H5Sselect_none(memory);
    hid_t selection = per_variable ? -1 : selection_of(whole, p);
    hid_t f = H5Fcreate(path(file), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    check_h5(f, "H5Fcreate");
    char name[32];
    for (int v = 0; v < p->nvars; v++) {
        variable_name(name, sizeof name, v);
        hid_t d = H5Dcreate2(f, name, H5T_NATIVE_DOUBLE, whole, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        check_h5(d, "H5Dcreate2");
        hid_t s = per_variable ? selection_of(whole, p) : selection;
        check_h5(H5Dwrite(d, H5T_NATIVE_DOUBLE, memory, s, dxpl, p->file_order + (uint64_t)v * p->elements),
                 "H5Dwrite");
        if (per_variable)
            H5Sclose(s);
        H5Dclose(d);
    }
    check_h5(H5Fclose(f), "H5Fclose");
    if (!per_variable)
        H5Sclose(selection);
    H5Sclose(memory);
    H5Sclose(whole);
    H5Pclose(dxpl);
    H5Pclose(dcpl);
    H5Pclose(fapl);
}

static void raw_hdf5_ind(const char *file) { write_raw(file, 0, 0); }
static void raw_hdf5_coll(const char *file) { write_raw(file, 1, 0); }
static void raw_hdf5_ind_per_var(const char *file) { write_raw(file, 0, 1); }

#ifdef HAVE_PNETCDF
static void check_nc(int code, const char *what)
{
    if (code != NC_NOERR) {
        fprintf(stderr, "rank %d: %s: %s\n", rank_g, what, ncmpi_strerror(code));
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static void pnetcdf(const char *file)
{
    const struct pattern *p = &pattern_g;
    int nc, dimids[NDIMS], varid;
    char name[32];
    check_nc(ncmpi_create(MPI_COMM_WORLD, path(file), NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &nc),
             "ncmpi_create");
    for (int d = 0; d < NDIMS; d++)
        check_nc(ncmpi_def_dim(nc, p->dim_names[d], (MPI_Offset)p->dims[d], &dimids[d]), "ncmpi_def_dim");
    for (int v = 0; v < p->nvars; v++) {
        variable_name(name, sizeof name, v);
        check_nc(ncmpi_def_var(nc, name, NC_DOUBLE, NDIMS, dimids, &varid), "ncmpi_def_var");
    }
    check_nc(ncmpi_enddef(nc), "ncmpi_enddef");
    for (int v = 0; v < p->nvars; v++) /* variables are numbered 0, 1, ... as defined */
        check_nc(ncmpi_put_varn_double_all(nc, v, (int)p->nblocks, p->nc_starts, p->nc_counts,
                                           p->blocks + (uint64_t)v * p->elements),
                 "ncmpi_put_varn_double_all");
    check_nc(ncmpi_close(nc), "ncmpi_close");
}
#endif

#ifdef HAVE_NETCDF4
static void check_nc4(int code, const char *what)
{
    if (code != NC_NOERR) {
        fprintf(stderr, "rank %d: %s: %s\n", rank_g, what, nc_strerror(code));
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static void write_netcdf4(const char *file, int collective)
{
    const struct pattern *p = &pattern_g;
    int nc, dimids[NDIMS], varid, old_fill;
    char name[32];
    check_nc4(nc_create_par(path(file), NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &nc),
              "nc_create_par");
    check_nc4(nc_set_fill(nc, NC_NOFILL, &old_fill), "nc_set_fill");
    for (int d = 0; d < NDIMS; d++)
        check_nc4(nc_def_dim(nc, p->dim_names[d], p->dims[d], &dimids[d]), "nc_def_dim");
    for (int v = 0; v < p->nvars; v++) {
        variable_name(name, sizeof name, v);
        check_nc4(nc_def_var(nc, name, NC_DOUBLE, NDIMS, dimids, &varid), "nc_def_var");
        check_nc4(nc_def_var_chunking(nc, varid, NC_CONTIGUOUS, NULL), "nc_def_var_chunking");
    }
    check_nc4(nc_enddef(nc), "nc_enddef");
    /* Collective: as many calls on every rank, the last ones empty where a rank has fewer. */
    uint64_t calls = collective ? p->most_blocks : p->nblocks;
    for (int v = 0; v < p->nvars; v++) {
        check_nc4(nc_var_par_access(nc, v, collective ? NC_COLLECTIVE : NC_INDEPENDENT), "nc_var_par_access");
        const double *buf = p->blocks + (uint64_t)v * p->elements;
        for (uint64_t b = 0; b < calls; b++) {
            size_t start[NDIMS] = {0, 0}, count[NDIMS] = {0, 0};
            for (int d = 0; b < p->nblocks && d < NDIMS; d++)
                start[d] = p->offsets[NDIMS * b + d], count[d] = p->counts[NDIMS * b + d];
            check_nc4(nc_put_vara_double(nc, v, start, count, buf), "nc_put_vara_double");
            buf += count[0] * count[1];
        }
    }
    check_nc4(nc_close(nc), "nc_close");
}

static void netcdf4_ind(const char *file) { write_netcdf4(file, 0); }
static void netcdf4_coll(const char *file) { write_netcdf4(file, 1); }
#endif

/* A method: its name, how it writes, its file, how that file is read back, and whether it
 * needs more than one variable to differ from another method. */
enum reader { READ_HDF5, READ_PNETCDF };

struct method {
    const char *name;
    void (*write)(const char *file);
    const char *file;
    enum reader reader;
    int variables;
};

static const struct method METHODS[] = {
    {"dah5_ind", dah5_ind, "blocks_dah5_ind.h5", READ_HDF5, 0},
    {"dah5_coll", dah5_coll, "blocks_dah5_coll.h5", READ_HDF5, 0},
    {"dah5_darray", dah5_darray, "blocks_dah5_darray.h5", READ_HDF5, 0},
    {"dah5_loop", dah5_loop, "blocks_dah5_loop.h5", READ_HDF5, 0},
    {"raw_hdf5_ind", raw_hdf5_ind, "blocks_raw_ind.h5", READ_HDF5, 0},
    {"raw_hdf5_coll", raw_hdf5_coll, "blocks_raw_coll.h5", READ_HDF5, 0},
    {"raw_hdf5_ind_per_var", raw_hdf5_ind_per_var, "blocks_raw_ind_per_var.h5", READ_HDF5, 1},
#ifdef HAVE_PNETCDF
    {"pnetcdf", pnetcdf, "blocks_pnetcdf.nc", READ_PNETCDF, 0},
#endif
#ifdef HAVE_NETCDF4
    {"netcdf4_ind", netcdf4_ind, "blocks_netcdf4_ind.nc", READ_HDF5, 0},
    {"netcdf4_coll", netcdf4_coll, "blocks_netcdf4_coll.nc", READ_HDF5, 0},
#endif
};
enum { NMETHODS = sizeof METHODS / sizeof METHODS[0] };

/* Whether DAH5_BENCH_BLOCKS_METHODS (unset or empty: all) names `name`. */
static int wanted(const char *name)
{
    const char *list = getenv("DAH5_BENCH_BLOCKS_METHODS");
    if (!list || !*list)
        return 1;
    size_t len = strlen(name);
    for (const char *s = list; (s = strstr(s, name)); s += len)
        if ((s == list || s[-1] == ',') && (s[len] == ',' || s[len] == '\0'))
            return 1;
    return 0;
}

static void run_method(void *arg)
{
    const struct method *m = arg;
    m->write(m->file);
}

/* Rows [first, first + rows) of variable v of a method's file, into buf. */
static void read_rows(const struct method *m, int v, uint64_t first, uint64_t rows, double *buf)
{
    const struct pattern *p = &pattern_g;
    char name[32];
    variable_name(name, sizeof name, v);
#ifdef HAVE_PNETCDF
    if (m->reader == READ_PNETCDF) {
        int nc, varid;
        MPI_Offset start[NDIMS] = {(MPI_Offset)first, 0}, count[NDIMS] = {(MPI_Offset)rows, (MPI_Offset)p->dims[1]};
        check_nc(ncmpi_open(MPI_COMM_SELF, path(m->file), NC_NOWRITE, MPI_INFO_NULL, &nc), "ncmpi_open");
        check_nc(ncmpi_inq_varid(nc, name, &varid), "ncmpi_inq_varid");
        check_nc(ncmpi_get_vara_double_all(nc, varid, start, count, buf), "ncmpi_get_vara");
        check_nc(ncmpi_close(nc), "ncmpi_close");
        return;
    }
#endif
    hsize_t start[NDIMS] = {first, 0}, count[NDIMS] = {rows, p->dims[1]}, n = rows * p->dims[1];
    hid_t f = H5Fopen(path(m->file), H5F_ACC_RDONLY, H5P_DEFAULT);
    check_h5(f, "H5Fopen");
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    check_h5(d, "H5Dopen2");
    hid_t space = H5Dget_space(d), memory = H5Screate_simple(1, &n, NULL);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
    check_h5(H5Dread(d, H5T_NATIVE_DOUBLE, memory, space, H5P_DEFAULT, buf), "H5Dread");
    H5Sclose(memory);
    H5Sclose(space);
    H5Dclose(d);
    H5Fclose(f);
}

/* Every element of every variable of a method's file as written (the ranks' blocks cover
 * the arrays): each rank reads its slab of rows, a few rows at a time, by itself. */
static void verify(const struct method *m)
{
    const struct pattern *p = &pattern_g;
    uint64_t first = p->dims[0] * (uint64_t)rank_g / (uint64_t)size_g;
    uint64_t end = p->dims[0] * (uint64_t)(rank_g + 1) / (uint64_t)size_g;
    uint64_t step = p->dims[1] >= (1 << 20) ? 1 : (1 << 20) / p->dims[1];
    double *buf = malloc(step * p->dims[1] * 8);
    for (int v = 0; v < p->nvars; v++)
        for (uint64_t i = first; i < end; i += step) {
            uint64_t rows = end - i < step ? end - i : step;
            read_rows(m, v, i, rows, buf);
            for (uint64_t k = 0; k < rows * p->dims[1]; k++)
                if (buf[k] != value(p, v, i + k / p->dims[1], k % p->dims[1])) {
                    fprintf(stderr, "blocks: %s wrote %g at v%d (%llu, %llu), not %g\n", m->name, buf[k], v,
                            (unsigned long long)(i + k / p->dims[1]), (unsigned long long)(k % p->dims[1]),
                            value(p, v, i + k / p->dims[1], k % p->dims[1]));
                    MPI_Abort(MPI_COMM_WORLD, 3);
                }
        }
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_g);
    MPI_Comm_size(MPI_COMM_WORLD, &size_g);
    struct pattern *p = &pattern_g;
    int bad = 1;
    if (argc >= 5) {
        snprintf(dir_g, sizeof dir_g, "%s", argv[1]);
        if (strcmp(argv[2], "cyclic") == 0 && argc >= 6)
            bad = cyclic(p, strtoull(argv[4], NULL, 10), strtoull(argv[5], NULL, 10));
        else if (strcmp(argv[2], "e3sm") == 0)
            bad = e3sm(p, atoi(argv[4]));
        else if (strcmp(argv[2], "one") == 0)
            bad = one(p, strtoull(argv[4], NULL, 10));
    }
    if (bad) {
        if (rank_g == 0)
            fprintf(stderr, "usage: see the comment at the top of bench/blocks.c\n");
        MPI_Finalize();
        return 1;
    }
    fill(p);
    unsigned long long bytes = (unsigned long long)p->nvars * p->dims[0] * p->dims[1] * 8;
    for (int round = 0, rounds = atoi(argv[3]); round <= rounds; round++) {
        int order[NMETHODS];
        shuffled(order, NMETHODS, round);
        for (int k = 0; k < NMETHODS; k++) {
            const struct method *m = &METHODS[order[k]];
            if (!wanted(m->name) || (m->variables && p->nvars < 2))
                continue;
            if (rank_g == 0)
                unlink(path(m->file));
            row(p->protocol, m->name, round, time_op(run_method, (void *)m), bytes);
            if (round == 0)
                verify(m);
        }
        fflush(stdout);
    }
    for (int k = 0; k < NMETHODS; k++)
        if (rank_g == 0)
            unlink(path(METHODS[k].file));
    MPI_Finalize();
    return 0;
}
