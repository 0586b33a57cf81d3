//! Direct block mode in the C ABI: no MPI, no collective calls. One process creates the
//! dataset, then any number of independent processes write and read their blocks.

use std::ffi::{c_char, c_void};

use crate::core::block::{Buffer, Direction};
use crate::core::shape::{byte_len, check_ndims};
use crate::core::without_mpi::{self, Direct, DirectPlan, Locks};
use crate::error::{Error, Result};
use crate::ffi::consts::{
    DAH5_DIRECT_LOCK, DAH5_NO_FILE_LOCKING, DAH5_ORDER_F, DAH5_RDONLY, DAH5_RDWR, DAH5_TRUNC,
    check_known, dtype_code, dtype_from_code, order, writable,
};
use crate::ffi::handles::{self, registry};
use crate::ffi::{self, boundary, dah5_direct, from_c, handle_ptr};

/// Create (or add to) an HDF5 file a dataset for direct mode: contiguous, allocated now,
/// never filled, 1 MiB aligned; with `nblocks` > 0, also the block table (the workers'
/// blocks, as `dah5_darray_write` records it; checked for bounds and overlaps). The file is
/// closed again when this returns.
///
/// Local, one process, no MPI needed (the coordinator, e.g. Julia's master process).
///
/// @param flags    `DAH5_TRUNC` to replace an existing file (otherwise the dataset is added
///                 to it, or to a new file), `| DAH5_ORDER_F` for column-major dims,
///                 `| DAH5_NO_FILE_LOCKING` where the file system has no flock.
/// @param nblocks  0, or the number of blocks in `offsets` and `counts` (nblocks × ndims
///                 u64s each, in the same order as `dims`).
///
/// # Safety
/// Strings are NULL or NUL-terminated; `dims` has `ndims` entries; with `nblocks` > 0,
/// `offsets` and `counts` have nblocks × ndims entries.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)] // the C signature
pub unsafe extern "C" fn dah5_direct_create(
    path: *const c_char,
    name: *const c_char,
    dtype: i32,
    ndims: u32,
    dims: *const u64,
    flags: u32,
    nblocks: u32,
    offsets: *const u64,
    counts: *const u64,
) -> i32 {
    boundary("dah5_direct_create", || {
        check_known(
            flags,
            DAH5_TRUNC | DAH5_ORDER_F | DAH5_NO_FILE_LOCKING,
            "flags",
        )?;
        check_ndims(ndims as usize)?;
        let n = ndims as usize;
        // SAFETY: by this function's contract.
        let (path, name, dims) = unsafe {
            (
                from_c::string(path, "path")?,
                from_c::string(name, "name")?,
                from_c::u64s(dims, n, "dims")?,
            )
        };
        let blocks = if nblocks == 0 {
            None
        } else {
            let len = nblocks as usize * n;
            // SAFETY: nblocks × ndims entries each, by the contract.
            let (o, c) = unsafe {
                (
                    from_c::u64s(offsets, len, "offsets")?,
                    from_c::u64s(counts, len, "counts")?,
                )
            };
            let rows = |v: Vec<u64>| v.chunks(n).map(<[u64]>::to_vec).collect();
            Some((rows(o), rows(c)))
        };
        without_mpi::create(DirectPlan {
            path: path.to_string(),
            name: name.to_string(),
            dtype: dtype_from_code(dtype, "dtype")?,
            dims,
            order: order(flags),
            truncate: flags & DAH5_TRUNC != 0,
            blocks,
            locking: flags & DAH5_NO_FILE_LOCKING == 0,
        })
    })
}

/// Open a dataset for direct block transfers. HDF5 opens the file read-only just long
/// enough to learn where the data is (`H5Dget_offset`), its dims and type; then dah5 holds
/// a plain file descriptor. Chunked, compressed, compact, external and not yet allocated
/// datasets, and foreign byte orders, are refused (`DAH5_ERR_INVALID_ARGUMENT`, saying
/// which).
///
/// Local, no MPI. Processes may hold the same dataset open at once and write disjoint
/// blocks concurrently.
///
/// @param flags  `DAH5_RDONLY` (default) or `DAH5_RDWR`, `| DAH5_ORDER_F`,
///               `| DAH5_DIRECT_LOCK` (an advisory fcntl lock around each write),
///               `| DAH5_NO_FILE_LOCKING` (HDF5 does not flock the file while it opens it).
///
/// # Safety
/// Strings are NULL or NUL-terminated; `direct_out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_direct_open(
    path: *const c_char,
    name: *const c_char,
    flags: u32,
    direct_out: *mut *mut dah5_direct,
) -> i32 {
    boundary("dah5_direct_open", || {
        from_c::out(direct_out, "direct_out")?;
        check_known(
            flags,
            DAH5_RDONLY | DAH5_RDWR | DAH5_ORDER_F | DAH5_DIRECT_LOCK | DAH5_NO_FILE_LOCKING,
            "flags",
        )?;
        // SAFETY: by this function's contract.
        let (path, name) =
            unsafe { (from_c::string(path, "path")?, from_c::string(name, "name")?) };
        let writable = writable(flags)?;
        let locks = Locks {
            hdf5: flags & DAH5_NO_FILE_LOCKING == 0,
            writes: flags & DAH5_DIRECT_LOCK != 0,
        };
        let opened = Direct::open(path, name, writable, order(flags), locks)?;
        let token = registry().insert_direct(opened);
        // SAFETY: checked non-NULL.
        unsafe { *direct_out = handle_ptr(token) };
        Ok(())
    })
}

/// Parse a direct transfer and run it.
///
/// # Safety
/// `offset` and `count` are NULL or have ndims entries; `buffer` is safe to call with the
/// block's byte length.
unsafe fn transfer<'a>(
    function: &str,
    direction: Direction,
    handle: *const dah5_direct,
    offset: *const u64,
    count: *const u64,
    mem_dtype: i32,
    buffer: impl FnOnce(usize) -> Result<Buffer<'a>>,
) -> i32 {
    ffi::local(function, handle, |opened| {
        let n = opened.dims().len();
        // SAFETY: ndims entries by this function's contract.
        let (offset, count): (Vec<u64>, Vec<u64>) = unsafe {
            (
                from_c::u64s(offset, n, "offset")?,
                from_c::u64s(count, n, "count")?,
            )
        };
        let mem_dtype = dtype_from_code(mem_dtype, "mem_dtype")?;
        let buffer = buffer(byte_len(&count, mem_dtype.size(), "count")?)?;
        opened.transfer(direction, &offset, &count, mem_dtype, buffer)
    })
}

/// Write this process's block `offset .. offset + count` (in the handle's order) from
/// `buf`, with `pwrite` (one call per contiguous run of the file; a block of whole rows is
/// one), retrying interrupted and short writes. No conversion: `mem_dtype` must be the
/// dataset's. Blocks of different processes must not overlap.
///
/// Local, no MPI.
///
/// # Safety
/// `offset` and `count` are NULL or have ndims entries; `buf` holds the block.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_direct_write_block(
    direct: *mut dah5_direct,
    offset: *const u64,
    count: *const u64,
    mem_dtype: i32,
    buf: *const c_void,
) -> i32 {
    // SAFETY: by this function's contract, `buf` holds the block's bytes.
    let buffer = |len| unsafe { from_c::source(buf, len, "buf") }.map(Buffer::Source);
    // SAFETY: by this function's contract.
    unsafe {
        transfer(
            "dah5_direct_write_block",
            Direction::Write,
            direct,
            offset,
            count,
            mem_dtype,
            buffer,
        )
    }
}

/// Read the block `offset .. offset + count` into `buf` (`pread`), as
/// `dah5_direct_write_block` writes it.
///
/// Local, no MPI.
///
/// # Safety
/// `offset` and `count` are NULL or have ndims entries; `buf` has room for the block.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_direct_read_block(
    direct: *const dah5_direct,
    offset: *const u64,
    count: *const u64,
    mem_dtype: i32,
    buf: *mut c_void,
) -> i32 {
    // SAFETY: by this function's contract, `buf` has room for the block's bytes.
    let buffer = |len| unsafe { from_c::sink(buf, len, "buf") }.map(Buffer::Sink);
    // SAFETY: by this function's contract.
    unsafe {
        transfer(
            "dah5_direct_read_block",
            Direction::Read,
            direct,
            offset,
            count,
            mem_dtype,
            buffer,
        )
    }
}

/// The dataset's dtype, ndims and dims (in the handle's order).
///
/// Local.
///
/// @param capacity  entries `dims_out` has room for (`DAH5_MAX_NDIMS` always suffices).
///
/// # Safety
/// The outputs are NULL or writable; `dims_out` has room for `capacity` u64s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_direct_shape(
    direct: *const dah5_direct,
    dtype_out: *mut i32,
    ndims_out: *mut u32,
    capacity: u32,
    dims_out: *mut u64,
) -> i32 {
    ffi::local("dah5_direct_shape", direct, |opened| {
        from_c::out(dtype_out, "dtype_out")?;
        from_c::out(ndims_out, "ndims_out")?;
        from_c::out(dims_out, "dims_out")?;
        let dims = opened.dims();
        if dims.len() > capacity as usize {
            return Err(Error::invalid(format!(
                "capacity = {capacity} is less than ndims = {}",
                dims.len()
            )));
        }
        // SAFETY: checked non-NULL; `dims_out` has room for `capacity` >= ndims entries.
        unsafe {
            *dtype_out = dtype_code(opened.dtype());
            *ndims_out = dims.len() as u32;
            std::ptr::copy_nonoverlapping(dims.as_ptr(), dims_out, dims.len());
        }
        Ok(())
    })
}

/// Put everything this process wrote on storage (`fsync`).
///
/// Local.
#[unsafe(no_mangle)]
pub extern "C" fn dah5_direct_sync(direct: *mut dah5_direct) -> i32 {
    ffi::local("dah5_direct_sync", direct, Direct::sync)
}

/// Close the file descriptor and set `*direct = NULL`; NULL or `*direct == NULL` is a
/// no-op. (It does not fsync: call `dah5_direct_sync` first where durability matters.)
///
/// Local.
///
/// # Safety
/// `direct` is NULL or points to a writable `dah5_direct *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_direct_close(direct: *mut *mut dah5_direct) -> i32 {
    boundary("dah5_direct_close", || {
        if direct.is_null() {
            return Ok(());
        }
        // SAFETY: non-NULL and readable by the contract.
        let token = unsafe { *direct }.addr() as u64;
        if token == 0 {
            return Ok(());
        }
        let removed = registry().remove_direct(token)?;
        // Closed once no other thread's call holds it.
        drop(handles::take(&removed));
        // SAFETY: non-NULL and writable by the contract.
        unsafe { *direct = std::ptr::null_mut() };
        Ok(())
    })
}
