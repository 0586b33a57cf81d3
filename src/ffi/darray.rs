//! Distributed arrays in the C ABI: write with the decomposition recorded, read it back.

use std::ffi::{c_char, c_void};

use crate::core::darray::{Darray, DarrayRequest};
use crate::core::file::File;
use crate::core::shape::blocks_byte_len;
use crate::error::{Error, Result};
use crate::ffi::consts::{DAH5_COLLECTIVE, DAH5_DARRAY_PARTIAL, DAH5_DARRAY_SUBFILED, check_known};
use crate::ffi::dataset::{dataset_request, hand_out};
use crate::ffi::options::dah5_dataset_options;
use crate::ffi::{self, dah5_dataset, dah5_file, from_c};

/// Write a distributed array: every rank passes the global dims and its own block, and the
/// library creates the dataset, records the decomposition in it, and writes every block.
///
/// **Collective** over the file's communicator. Before anything is written, the ranks'
/// blocks are gathered on rank 0 and checked there: each inside the dims, no two
/// overlapping, and together covering the whole array (unless `DAH5_DARRAY_PARTIAL`). When
/// a check fails every rank returns the same error and message, naming the ranks and
/// blocks, and nothing is created. (With `DAH5_DARRAY_SUBFILED` every rank gathers every
/// block: the virtual dataset maps them all on every rank.) The block
/// table is recorded in the file (scalar attributes on the dataset, the rows in the dataset
/// `/dah5_blocks/<name>`; see README, "File schema"), so any later job (or h5py, ncdump,
/// `dah5 info`) knows how the array was distributed. When writing the data (or, subfiled,
/// a subfile) fails on any rank, every rank returns an error and the dataset is taken out
/// again.
///
/// @param file         an open, writable file.
/// @param name         the dataset's path (groups made), the same on every rank.
/// @param dtype        the dataset's and the buffer's element type, the same on every rank.
/// @param ndims        1 .. `DAH5_MAX_NDIMS`.
/// @param dims         the global extents (the same on every rank), in the handle's order.
/// @param offset       this rank's block start, ndims entries, 0-based.
/// @param count        this rank's block extents; a zero extent is an empty block.
/// @param buf          the block, contiguous in the handle's order (NULL if empty).
/// @param flags        0 (independent data transfer), `DAH5_COLLECTIVE`,
///                     `| DAH5_DARRAY_PARTIAL`, or `DAH5_DARRAY_SUBFILED` (each node's
///                     blocks in a file of the node's own; the handle is then for reading
///                     only). Compressed
///                     datasets, and every dataset where MPI-IO does not make writes
///                     visible at once (NFS), always transfer collectively.
/// @param options      NULL, or dataset options (compression, chunks, max dims). When
///                     compressed without chunk dims given, the chunk is the largest block:
///                     one chunk per block for a regular decomposition.
/// @param dataset_out  receives the dataset, open, with its block table.
///
/// # Safety
/// `dims`, `offset`, `count` have `ndims` entries; `buf` holds the block; strings are
/// NUL-terminated; `options` is NULL or valid; `dataset_out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_darray_write(
    file: *mut dah5_file,
    name: *const c_char,
    dtype: i32,
    ndims: u32,
    dims: *const u64,
    offset: *const u64,
    count: *const u64,
    buf: *const c_void,
    flags: u32,
    options: *const dah5_dataset_options,
    dataset_out: *mut *mut dah5_dataset,
) -> i32 {
    let blocks = (1, offset, count);
    let args = (
        name,
        dtype,
        ndims,
        dims,
        blocks,
        flags,
        options,
        dataset_out,
    );
    // SAFETY: by this function's contract.
    unsafe { darray::<true, false>(file, DarrayArgs::of(args), buf) }
}

/// Create a distributed array without writing it: `dah5_darray_write`'s checks, dataset and
/// block table, for programs that then write their block in several `dah5_write_block`
/// calls (each rank inside its own block, or anywhere for a shared-file darray).
///
/// **Collective** over the file's communicator; the same arguments as `dah5_darray_write`
/// without `buf`. With `DAH5_DARRAY_SUBFILED` each node's subfile stays open until
/// `dah5_dataset_close` (collective), which marks the darray complete only when every rank
/// wrote its block and closed its subfile without an error; otherwise every rank's close returns an
/// error and the darray stays marked incomplete (dah5 then refuses to read it).
///
/// # Safety
/// As `dah5_darray_write`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_darray_create(
    file: *mut dah5_file,
    name: *const c_char,
    dtype: i32,
    ndims: u32,
    dims: *const u64,
    offset: *const u64,
    count: *const u64,
    flags: u32,
    options: *const dah5_dataset_options,
    dataset_out: *mut *mut dah5_dataset,
) -> i32 {
    let blocks = (1, offset, count);
    let args = (
        name,
        dtype,
        ndims,
        dims,
        blocks,
        flags,
        options,
        dataset_out,
    );
    // SAFETY: by this function's contract.
    unsafe { darray::<false, false>(file, DarrayArgs::of(args), std::ptr::null()) }
}

/// Write a distributed array whose ranks own many blocks each (block-cyclic matrices, AMR
/// boxes, a climate model's runs): `dah5_darray_write` with `nblocks` blocks a rank.
///
/// **Collective** over the file's communicator. Every block of every rank is gathered on
/// rank 0 and checked there (in O(B log B) for B blocks in all; the other ranks hold only
/// their own blocks): each inside the dims, no two overlapping
/// (two blocks of different ranks are named with their ranks: "rank 1's block 3 (offset …)
/// and rank 2's block 0 (…) overlap"), together covering the array unless
/// `DAH5_DARRAY_PARTIAL`. On any failure every rank returns the same error and message, and
/// nothing is created. The block table records every block with the rank that wrote it (schema 3:
/// `dah5_darray_blocks`, `dah5_darray_block_ranks`, `dah5 info --blocks`). Each rank's
/// blocks are then written in one transfer, as `dah5_write_blocks` (collectively with
/// `DAH5_COLLECTIVE`).
///
/// `DAH5_DARRAY_SUBFILED` is refused (`DAH5_ERR_INVALID_ARGUMENT`): a subfiled darray holds
/// one block a rank, its dataset in its node's subfile.
///
/// @param nblocks  this rank's number of blocks (ranks may differ; 0: none).
/// @param offsets  nblocks × ndims start indices, block after block, in the handle's order.
/// @param counts   nblocks × ndims extents, likewise.
/// @param buf      the blocks one after another, each packed in the handle's order.
///
/// The other parameters and the rest as `dah5_darray_write`.
///
/// # Safety
/// `dims` has `ndims` entries, `offsets` and `counts` nblocks × ndims; `buf` holds the
/// blocks; strings are NUL-terminated; `options` is NULL or valid; `dataset_out` is
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_darray_write_blocks(
    file: *mut dah5_file,
    name: *const c_char,
    dtype: i32,
    ndims: u32,
    dims: *const u64,
    nblocks: u64,
    offsets: *const u64,
    counts: *const u64,
    buf: *const c_void,
    flags: u32,
    options: *const dah5_dataset_options,
    dataset_out: *mut *mut dah5_dataset,
) -> i32 {
    let blocks = (nblocks, offsets, counts);
    let args = (
        name,
        dtype,
        ndims,
        dims,
        blocks,
        flags,
        options,
        dataset_out,
    );
    // SAFETY: by this function's contract.
    unsafe { darray::<true, true>(file, DarrayArgs::of(args), buf) }
}

/// Create a distributed array of many blocks a rank without writing it:
/// `dah5_darray_write_blocks` without `buf`. The ranks then write with `dah5_write_blocks`
/// (or `dah5_write_block`).
///
/// **Collective** over the file's communicator.
///
/// # Safety
/// As `dah5_darray_write_blocks`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_darray_create_blocks(
    file: *mut dah5_file,
    name: *const c_char,
    dtype: i32,
    ndims: u32,
    dims: *const u64,
    nblocks: u64,
    offsets: *const u64,
    counts: *const u64,
    flags: u32,
    options: *const dah5_dataset_options,
    dataset_out: *mut *mut dah5_dataset,
) -> i32 {
    let blocks = (nblocks, offsets, counts);
    let args = (
        name,
        dtype,
        ndims,
        dims,
        blocks,
        flags,
        options,
        dataset_out,
    );
    // SAFETY: by this function's contract.
    unsafe { darray::<false, true>(file, DarrayArgs::of(args), std::ptr::null()) }
}

/// The C arguments the four darray calls share (no data).
struct DarrayArgs {
    name: *const c_char,
    dtype: i32,
    ndims: u32,
    dims: *const u64,
    nblocks: u64,
    offsets: *const u64,
    counts: *const u64,
    flags: u32,
    options: *const dah5_dataset_options,
    dataset_out: *mut *mut dah5_dataset,
}

/// The arguments in the order the C functions take them; the blocks as (nblocks,
/// offsets, counts).
type ArgTuple = (
    *const c_char,
    i32,
    u32,
    *const u64,
    (u64, *const u64, *const u64),
    u32,
    *const dah5_dataset_options,
    *mut *mut dah5_dataset,
);

impl DarrayArgs {
    fn of(args: ArgTuple) -> DarrayArgs {
        let (name, dtype, ndims, dims, (nblocks, offsets, counts), flags, options, dataset_out) =
            args;
        DarrayArgs {
            name,
            dtype,
            ndims,
            dims,
            nblocks,
            offsets,
            counts,
            flags,
            options,
            dataset_out,
        }
    }

    /// The request they make (no data yet). One block's arrays are `offset` and `count`.
    ///
    /// # Safety
    /// As the darray calls' contracts.
    unsafe fn request<'a>(&self, many: bool) -> Result<DarrayRequest<'a>> {
        from_c::out(self.dataset_out, "dataset_out")?;
        // SAFETY: by this function's contract.
        let dataset =
            unsafe { dataset_request(self.name, self.dtype, self.ndims, self.dims, self.options) }?;
        let names = if many {
            ["offsets", "counts"]
        } else {
            ["offset", "count"]
        };
        let (n, offsets, counts) = (self.ndims as usize, self.offsets, self.counts);
        // SAFETY: by this function's contract.
        let blocks = unsafe { from_c::blocks(self.nblocks, offsets, counts, n, names) }?;
        let known = DAH5_COLLECTIVE | DAH5_DARRAY_PARTIAL | DAH5_DARRAY_SUBFILED;
        check_known(self.flags, known, "flags")?;
        Ok(DarrayRequest {
            dataset,
            blocks,
            data: None,
            partial: self.flags & DAH5_DARRAY_PARTIAL != 0,
            collective: self.flags & DAH5_COLLECTIVE != 0,
            subfiled: self.flags & DAH5_DARRAY_SUBFILED != 0,
        })
    }
}

/// Run a darray call: with `DATA`, `buf` holds the blocks.
///
/// # Safety
/// As the darray calls' contracts.
unsafe fn darray<const DATA: bool, const MANY: bool>(
    file: *mut dah5_file,
    args: DarrayArgs,
    buf: *const c_void,
) -> i32 {
    let request = |_: &File| {
        // SAFETY: by this function's contract.
        let mut request = unsafe { args.request(MANY) }?;
        if DATA {
            let (blocks, dtype) = (&request.blocks, request.dataset.dtype);
            let len = blocks_byte_len(blocks, dtype.size(), if MANY { "counts" } else { "count" })?;
            // SAFETY: `buf` holds the blocks' `len` bytes by the contract.
            request.data = Some(unsafe { from_c::source(buf, len, "buf") }?);
        }
        Ok(Darray::<DATA, MANY>(request))
    };
    let dataset_out = args.dataset_out;
    // SAFETY: `dataset_out` was checked non-NULL (on every rank, by agreement).
    ffi::collective(file, request, |r, d| unsafe {
        hand_out(r, file, d, dataset_out)
    })
}

/// The block table recorded by `dah5_darray_write` or `dah5_darray_write_blocks`: how
/// many blocks, and each block's offset and count (in the handle's order; an empty one has
/// a zero count). Which rank wrote each: `dah5_darray_block_ranks` (for
/// `dah5_darray_write`, block i was rank i's).
///
/// Local: the first call reads the table's rows on this rank alone (as data: rows another
/// handle wrote in this run are visible after `dah5_file_flush`); later calls copy them.
/// On the handle a darray call returned, rank 0 (which checked and wrote the table) holds
/// the rows already; the other ranks read them on first use.
///
/// @param capacity     blocks `offsets_out` and `counts_out` have room for (ndims u64s
///                     each). 0 asks only for the number: then they may be NULL.
/// @param nblocks_out  receives the number of blocks.
/// @return `DAH5_OK`; `DAH5_ERR_NOT_FOUND` when the dataset has no table (it was not
///         written by a darray call; read it with `dah5_darray_partition`);
///         `DAH5_ERR_INVALID_ARGUMENT` when 0 < capacity < the number of blocks.
///
/// # Safety
/// `nblocks_out` is writable; with capacity > 0, `offsets_out` and `counts_out` have room
/// for capacity × ndims u64s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_darray_blocks(
    dataset: *const dah5_dataset,
    capacity: u32,
    nblocks_out: *mut u32,
    offsets_out: *mut u64,
    counts_out: *mut u64,
) -> i32 {
    ffi::local("dah5_darray_blocks", dataset, |dataset| {
        from_c::out(nblocks_out, "nblocks_out")?;
        let (offsets, counts) = dataset.block_table()?;
        let nblocks = offsets.len();
        if capacity > 0 {
            check_capacity(capacity, nblocks)?;
            from_c::out(offsets_out, "offsets_out")?;
            from_c::out(counts_out, "counts_out")?;
            let (offsets, counts) = (offsets.concat(), counts.concat());
            // SAFETY: both have room for capacity × ndims >= nblocks × ndims entries.
            unsafe {
                std::ptr::copy_nonoverlapping(offsets.as_ptr(), offsets_out, offsets.len());
                std::ptr::copy_nonoverlapping(counts.as_ptr(), counts_out, counts.len());
            }
        }
        // SAFETY: checked non-NULL.
        unsafe { *nblocks_out = nblocks as u32 };
        Ok(())
    })
}

/// The rank that wrote each block of the block table, in the order of
/// `dah5_darray_blocks` (rows of one rank together, in rank order). Tables of
/// `dah5_darray_write` have block i from rank i.
///
/// Local, as `dah5_darray_blocks`.
///
/// @param capacity     entries `ranks_out` has room for; 0 asks only for the number (then
///                     `ranks_out` may be NULL).
/// @param nblocks_out  receives the number of blocks.
/// @param ranks_out    receives each block's rank.
/// @return `DAH5_OK`; `DAH5_ERR_NOT_FOUND` when the dataset has no table;
///         `DAH5_ERR_INVALID_ARGUMENT` when 0 < capacity < the number of blocks.
///
/// # Safety
/// `nblocks_out` is writable; with capacity > 0, `ranks_out` has room for capacity
/// entries.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_darray_block_ranks(
    dataset: *const dah5_dataset,
    capacity: u32,
    nblocks_out: *mut u32,
    ranks_out: *mut i32,
) -> i32 {
    ffi::local("dah5_darray_block_ranks", dataset, |dataset| {
        from_c::out(nblocks_out, "nblocks_out")?;
        let ranks = dataset.block_ranks()?;
        if capacity > 0 {
            check_capacity(capacity, ranks.len())?;
            from_c::out(ranks_out, "ranks_out")?;
            for (i, &rank) in ranks.iter().enumerate() {
                // SAFETY: `ranks_out` has room for capacity >= nblocks entries.
                unsafe { *ranks_out.add(i) = rank as i32 };
            }
        }
        // SAFETY: checked non-NULL.
        unsafe { *nblocks_out = ranks.len() as u32 };
        Ok(())
    })
}

/// Refuse an output array with room for fewer than the table's `nblocks` blocks.
fn check_capacity(capacity: u32, nblocks: usize) -> Result<()> {
    if (capacity as usize) < nblocks {
        return Err(Error::invalid(format!(
            "capacity = {capacity} but the dataset has {nblocks} blocks"
        )));
    }
    Ok(())
}

/// A balanced block of the dataset for rank `rank` of `nranks`: with it, any number of
/// ranks reads an array back with one call each to `dah5_read_block`, whatever wrote it.
/// The slowest-varying dimension in the file (the first in C order, the last in Fortran
/// order) with at least `nranks` elements is cut into nearly equal parts, so each rank
/// reads one contiguous range of the file; if no dimension is that long, the longest is
/// cut and some ranks get an empty block.
///
/// Local.
///
/// @param offset_out, count_out  ndims entries each, in the handle's order.
///
/// # Safety
/// `offset_out` and `count_out` have room for ndims u64s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_darray_partition(
    dataset: *const dah5_dataset,
    rank: i32,
    nranks: i32,
    offset_out: *mut u64,
    count_out: *mut u64,
) -> i32 {
    ffi::local("dah5_darray_partition", dataset, |dataset| {
        from_c::out(offset_out, "offset_out")?;
        from_c::out(count_out, "count_out")?;
        if nranks < 1 || rank < 0 || rank >= nranks {
            return Err(Error::invalid(format!(
                "rank = {rank} of nranks = {nranks}: need 0 <= rank < nranks"
            )));
        }
        let (offset, count) = dataset.partition(rank as u64, nranks as u64);
        // SAFETY: both have room for ndims entries by the contract.
        unsafe {
            std::ptr::copy_nonoverlapping(offset.as_ptr(), offset_out, offset.len());
            std::ptr::copy_nonoverlapping(count.as_ptr(), count_out, count.len());
        }
        Ok(())
    })
}
