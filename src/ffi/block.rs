//! The two headline functions, one rank's block in and out of a dataset, and their
//! many-block forms.

use std::ffi::c_void;

use crate::core::block::{BlockRequest, Buffer, ReadBlock, ReadBlocks, WriteBlock, WriteBlocks};
use crate::core::collective::Collective;
use crate::core::dataset::Dataset;
use crate::core::shape::blocks_byte_len;
use crate::error::Error;
use crate::error::Result;
use crate::ffi::consts::{DAH5_ASYNC, dtype_from_code, is_collective, transfer_convert};
use crate::ffi::{self, dah5_dataset, from_c};
use crate::lent::Lent;

/// The arguments all four functions share, before the buffer is known.
struct Raw {
    /// What the C arrays are called in messages: `offset`, `count` for one block.
    names: [&'static str; 2],
    nblocks: u64,
    offsets: *const u64,
    counts: *const u64,
    mem_dtype: i32,
    xfer_flags: u32,
}

/// Parse the block arguments of `dataset` and get the buffer of the right length from
/// `buffer`.
///
/// # Safety
/// `offsets` and `counts` are NULL or have nblocks × ndims entries; `buffer` is safe to
/// call with the blocks' byte length.
unsafe fn block_request<'a>(
    dataset: &Dataset,
    raw: &Raw,
    buffer: impl FnOnce(usize) -> Result<Buffer<'a>>,
) -> Result<BlockRequest<'a>> {
    let names = raw.names;
    let ndims = dataset.ndims();
    // SAFETY: by this function's contract.
    let blocks = unsafe { from_c::blocks(raw.nblocks, raw.offsets, raw.counts, ndims, names) }?;
    let mem_dtype = dtype_from_code(raw.mem_dtype, "mem_dtype")?;
    let convert = transfer_convert(raw.xfer_flags & !DAH5_ASYNC)?;
    let buffer = buffer(blocks_byte_len(&blocks, mem_dtype.size(), names[1])?)?;
    let lent = match (&buffer, raw.xfer_flags & DAH5_ASYNC != 0) {
        (_, false) => None,
        // SAFETY: with DAH5_ASYNC the caller keeps `buf` allocated and unmodified until
        // dah5_file_wait, flush or close returns (the write functions' contract).
        (Buffer::Source(bytes), true) => Some(unsafe { Lent::new(bytes) }),
        (Buffer::Sink(_), true) => {
            return Err(Error::invalid(
                "xfer_flags has DAH5_ASYNC, which is for writes: reads are synchronous",
            ));
        }
    };
    Ok(BlockRequest {
        blocks,
        mem_dtype,
        convert,
        collective: is_collective(raw.xfer_flags),
        buffer,
        lent,
    })
}

/// Run a transfer: collective (agreed) when its flags say so, else this rank's alone.
fn transfer<C: Collective<Target = Dataset, Output = ()>>(
    dataset: *const dah5_dataset,
    collective: bool,
    request: impl FnOnce(&Dataset) -> Result<C>,
) -> i32 {
    if collective {
        ffi::collective(dataset, request, |_, ()| Ok(()))
    } else {
        ffi::independent(dataset, request)
    }
}

/// Write this rank's block `offset .. offset + count` of the dataset from `buf`.
///
/// **Independent** by default: only this rank calls, and ranks may write different numbers
/// of blocks. With `DAH5_COLLECTIVE` in `xfer_flags` it is **collective**: every rank of
/// the file calls it, and a rank with nothing to write passes a zero count (and may pass
/// NULL `buf`). Blocks over 1 GiB are moved in several MPI-IO calls (HDF5 1.10 cannot move
/// 2 GiB or more in one), straight from `buf`: dah5 never copies it.
///
/// A failed write is remembered: `dah5_file_close` reports it again. Where MPI-IO does not
/// make one rank's writes visible to the others at once (NFS: ROMIO says
/// `romio_visibility_immediate=false`, or `HDF5_DO_MPI_FILE_SYNC=1`), an independent write
/// is `DAH5_ERR_UNSUPPORTED` on the rank that tries, and nothing is written: pass
/// `DAH5_COLLECTIVE` there (docs/stacks.md).
///
/// With `DAH5_ASYNC` the write goes on **behind the caller**: the call checks everything a
/// write checks, starts the write and returns; `buf` must then stay allocated and
/// unmodified until `dah5_file_wait`, `dah5_file_flush` or `dah5_file_close` on the file
/// returns. A later read or write of the same elements on this rank waits for it; nothing
/// else does (creating, closing datasets, attributes go on while the data moves).
/// Independent writes of contiguous datasets in the dataset's own dtype only (collective,
/// chunked or compressed, `DAH5_CONVERT` to another dtype, a subfiled darray:
/// `DAH5_ERR_INVALID_ARGUMENT`); in atomic mode the write is made at once. A write that
/// fails after the call returned is said by this rank's `dah5_file_wait` and by the next
/// flush and the close on every rank.
///
/// @param dataset     an open dataset of a writable file.
/// @param offset      ndims start indices (0-based), in the file handle's order.
/// @param count       ndims extents; any zero means an empty block (always legal).
/// @param mem_dtype   the type of the elements in `buf`. It must equal the dataset's dtype
///                    unless `DAH5_CONVERT` is given (then HDF5 converts; a value that
///                    does not fit is `DAH5_ERR_TYPE_MISMATCH` and nothing is written).
/// @param buf         the block, contiguous, in the handle's order (row-major for C order,
///                    column-major with `DAH5_ORDER_F`).
/// @param xfer_flags  `DAH5_INDEPENDENT` (0), `DAH5_COLLECTIVE`, `| DAH5_CONVERT`, or
///                    `DAH5_ASYNC`.
/// @return `DAH5_OK`, `DAH5_ERR_OUT_OF_BOUNDS`, `DAH5_ERR_TYPE_MISMATCH`,
///         `DAH5_ERR_READ_ONLY`, `DAH5_ERR_NULL_ARGUMENT`, `DAH5_ERR_UNSUPPORTED`, ...
///
/// # Safety
/// `offset` and `count` are NULL or have ndims entries; `buf` is NULL or holds the block.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_write_block(
    dataset: *mut dah5_dataset,
    offset: *const u64,
    count: *const u64,
    mem_dtype: i32,
    buf: *const c_void,
    xfer_flags: u32,
) -> i32 {
    let raw = Raw {
        names: ["offset", "count"],
        nblocks: 1,
        offsets: offset,
        counts: count,
        mem_dtype,
        xfer_flags,
    };
    // SAFETY: by this function's contract, `buf` holds the block's bytes.
    let buffer = |len| unsafe { from_c::source(buf, len, "buf") }.map(Buffer::Source);
    transfer(dataset, is_collective(xfer_flags), |d| {
        // SAFETY: by this function's contract.
        unsafe { block_request(d, &raw, buffer) }.map(WriteBlock::new)
    })
}

/// Read this rank's block `offset .. offset + count` of the dataset into `buf`.
///
/// **Independent** by default, **collective** with `DAH5_COLLECTIVE`, exactly as
/// `dah5_write_block`; the same rules for dtypes, order, empty and large blocks. With
/// `DAH5_CONVERT`, a stored value `mem_dtype` cannot hold (NaN or ±Inf into an integer, a
/// value out of its range) stops the read: `DAH5_ERR_TYPE_MISMATCH` naming it, `buf`
/// partly filled; collectively, on every rank.
///
/// On a file opened `DAH5_RDONLY` that changed on storage since (another job wrote,
/// flushed, replaced or truncated it): `DAH5_ERR_FILE_CHANGED`, nothing read; close the file
/// and open it again. A subfile of another write of a subfiled darray is refused with it too.
///
/// # Safety
/// `offset` and `count` are NULL or have ndims entries; `buf` is NULL or has room for the
/// block.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_read_block(
    dataset: *mut dah5_dataset,
    offset: *const u64,
    count: *const u64,
    mem_dtype: i32,
    buf: *mut c_void,
    xfer_flags: u32,
) -> i32 {
    let raw = Raw {
        names: ["offset", "count"],
        nblocks: 1,
        offsets: offset,
        counts: count,
        mem_dtype,
        xfer_flags,
    };
    // SAFETY: by this function's contract, `buf` has room for the block's bytes.
    let buffer = |len| unsafe { from_c::sink(buf, len, "buf") }.map(Buffer::Sink);
    transfer(dataset, is_collective(xfer_flags), |d| {
        // SAFETY: by this function's contract.
        unsafe { block_request(d, &raw, buffer) }.map(ReadBlock::new)
    })
}

/// Write this rank's `nblocks` blocks of the dataset from `buf`, in one HDF5 transfer with
/// one selection for all of them (blocks over 1 GiB in all are moved in several).
///
/// **Independent** by default, **collective** with `DAH5_COLLECTIVE` (every rank of the
/// file calls it; MPI-IO's two-phase aggregation can merge the ranks' pieces; a rank with
/// nothing passes `nblocks = 0` and may pass NULL arrays and `buf`), as `dah5_write_block`,
/// with its rules for dtypes, conversion, order, visibility and failed writes. Every rank of
/// a collective call calls `dah5_write_blocks` (not `dah5_write_block`).
///
/// With `DAH5_ASYNC` the blocks are written behind the caller, as `dah5_write_block` says
/// (each block's rows straight from `buf`, no copy).
///
/// HDF5 moves the elements of many blocks in the file's order, not block after block:
/// where the blocks' rows interleave in the file (tiles side by side) or the blocks are not
/// given in file order, dah5 copies them once into a buffer in file order (as many bytes as
/// the blocks, at most 1 GiB at a time). Blocks given in file order that follow each other
/// (runs of a 1-D array, sorted) are written straight from `buf`.
///
/// @param dataset     an open dataset of a writable file (not a subfiled darray: there a rank
///                    writes its one block with `dah5_write_block`).
/// @param nblocks     the number of blocks; 0 takes part with nothing.
/// @param offsets     nblocks × ndims start indices: block i's are `offsets[i*ndims ..]`, in
///                    the file handle's order.
/// @param counts      nblocks × ndims extents, likewise; a block with a zero count is empty.
/// @param mem_dtype   the type of the elements in `buf` (see `dah5_write_block`).
/// @param buf         the blocks one after another, each packed in the handle's order.
/// @param xfer_flags  `DAH5_INDEPENDENT` (0), `DAH5_COLLECTIVE`, `| DAH5_CONVERT`, or
///                    `DAH5_ASYNC`.
/// @return `DAH5_OK`; `DAH5_ERR_OUT_OF_BOUNDS` naming the first block out of the dataset;
///         `DAH5_ERR_INVALID_ARGUMENT` naming two blocks that overlap, or when `buf`'s size
///         is not the blocks'; the errors of `dah5_write_block`. Nothing is written when a
///         check fails (collectively: on every rank).
///
/// # Safety
/// `offsets` and `counts` are NULL or have nblocks × ndims entries; `buf` is NULL or holds
/// the blocks.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_write_blocks(
    dataset: *mut dah5_dataset,
    nblocks: u64,
    offsets: *const u64,
    counts: *const u64,
    mem_dtype: i32,
    buf: *const c_void,
    xfer_flags: u32,
) -> i32 {
    let raw = Raw {
        names: ["offsets", "counts"],
        nblocks,
        offsets,
        counts,
        mem_dtype,
        xfer_flags,
    };
    // SAFETY: by this function's contract, `buf` holds the blocks' bytes.
    let buffer = |len| unsafe { from_c::source(buf, len, "buf") }.map(Buffer::Source);
    transfer(dataset, is_collective(xfer_flags), |d| {
        // SAFETY: by this function's contract.
        unsafe { block_request(d, &raw, buffer) }.map(WriteBlocks::new)
    })
}

/// Read this rank's `nblocks` blocks of the dataset into `buf`, one after another, each
/// packed in the handle's order: one HDF5 transfer with one selection for all of them.
///
/// **Independent** by default, **collective** with `DAH5_COLLECTIVE`, exactly as
/// `dah5_write_blocks` (its arguments, its copy through a buffer in file order when the
/// blocks are not in it), with the rules of `dah5_read_block` for conversion
/// (`DAH5_ERR_TYPE_MISMATCH` on a value `mem_dtype` cannot hold) and for a read-only file
/// that changed (`DAH5_ERR_FILE_CHANGED`). Blocks may not overlap here either.
///
/// # Safety
/// `offsets` and `counts` are NULL or have nblocks × ndims entries; `buf` is NULL or has
/// room for the blocks.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_read_blocks(
    dataset: *mut dah5_dataset,
    nblocks: u64,
    offsets: *const u64,
    counts: *const u64,
    mem_dtype: i32,
    buf: *mut c_void,
    xfer_flags: u32,
) -> i32 {
    let raw = Raw {
        names: ["offsets", "counts"],
        nblocks,
        offsets,
        counts,
        mem_dtype,
        xfer_flags,
    };
    // SAFETY: by this function's contract, `buf` has room for the blocks' bytes.
    let buffer = |len| unsafe { from_c::sink(buf, len, "buf") }.map(Buffer::Sink);
    transfer(dataset, is_collective(xfer_flags), |d| {
        // SAFETY: by this function's contract.
        unsafe { block_request(d, &raw, buffer) }.map(ReadBlocks::new)
    })
}
