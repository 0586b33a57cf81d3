//! Reading C arguments: NULL checks and conversions, each naming the parameter on failure.

use std::ffi::{CStr, c_char, c_void};

use crate::core::shape::BlockList;
use crate::error::{Error, Result};

/// A NUL-terminated UTF-8 string argument.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string that lives for `'a`.
pub unsafe fn string<'a>(p: *const c_char, parameter: &str) -> Result<&'a str> {
    if p.is_null() {
        return Err(Error::null(parameter));
    }
    // SAFETY: non-NULL, and NUL-terminated by the caller's contract.
    let bytes = unsafe { CStr::from_ptr(p) }.to_bytes();
    if bytes.is_ascii() {
        // SAFETY: ASCII is UTF-8. (Most names are ASCII: this check is a few instructions,
        // the full UTF-8 validation several times that, at every call.)
        return Ok(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    std::str::from_utf8(bytes)
        .map_err(|_| Error::invalid(format!("{parameter} is not valid UTF-8")))
}

/// An array argument of `len` u64s, copied into a `Vec` or [`Dims`](crate::inline_storage::Dims) (it is at most 32
/// entries).
///
/// # Safety
/// `p` is NULL or points to `len` readable u64s.
pub unsafe fn u64s<T: for<'x> From<&'x [u64]>>(
    p: *const u64,
    len: usize,
    parameter: &str,
) -> Result<T> {
    if p.is_null() {
        return Err(Error::null(parameter));
    }
    // SAFETY: non-NULL and `len` elements long by the caller's contract.
    Ok(T::from(unsafe { std::slice::from_raw_parts(p, len) }))
}

/// `nblocks` blocks of `ndims` dimensions, (offset, count) each, from the array arguments
/// named `names` (`offsets[i*ndims ..]` is block i's offset). No blocks: the arrays may be
/// NULL.
///
/// # Safety
/// `offsets` and `counts` are NULL or point to `nblocks × ndims` readable u64s.
pub unsafe fn blocks(
    nblocks: u64,
    offsets: *const u64,
    counts: *const u64,
    ndims: usize,
    names: [&str; 2],
) -> Result<BlockList> {
    if nblocks == 0 {
        return Ok(BlockList::new(ndims, Vec::new(), Vec::new()));
    }
    let too_many = || {
        Error::invalid(format!(
            "nblocks = {nblocks}: {nblocks} × {ndims} offsets and counts cannot be held in memory"
        ))
    };
    let len = usize::try_from(nblocks)
        .ok()
        .and_then(|n| n.checked_mul(ndims))
        .ok_or_else(too_many)?;
    // The copies are made with room asked for first: a count no memory can hold is an
    // error, not an abort (and the C arrays are not read before it).
    let copy = |p: *const u64, name: &str| -> Result<Vec<u64>> {
        if p.is_null() {
            return Err(Error::null(name));
        }
        let mut values = Vec::new();
        values.try_reserve_exact(len).map_err(|_| too_many())?;
        // SAFETY: non-NULL and `len` readable u64s by this function's contract; `len`
        // u64s fit in memory (the room was reserved).
        values.extend_from_slice(unsafe { std::slice::from_raw_parts(p, len) });
        Ok(values)
    };
    Ok(BlockList::new(
        ndims,
        copy(offsets, names[0])?,
        copy(counts, names[1])?,
    ))
}

/// An array argument of `len` NUL-terminated UTF-8 strings, copied; each is named
/// `parameter[i]` in an error.
///
/// # Safety
/// `p` is NULL or points to `len` pointers, each NULL or to a NUL-terminated string.
pub unsafe fn strings(p: *const *const c_char, len: usize, parameter: &str) -> Result<Vec<String>> {
    if p.is_null() {
        return Err(Error::null(parameter));
    }
    // SAFETY: non-NULL and `len` elements long by the caller's contract.
    let pointers = unsafe { std::slice::from_raw_parts(p, len) };
    pointers
        .iter()
        .enumerate()
        // SAFETY: each is NULL or NUL-terminated by the caller's contract.
        .map(|(i, &s)| unsafe { string(s, &format!("{parameter}[{i}]")) }.map(str::to_owned))
        .collect()
}

/// A buffer argument of `len` bytes to read from; NULL is allowed when `len` is 0.
///
/// # Safety
/// `p` is NULL or points to `len` readable bytes that live for `'a`.
pub unsafe fn source<'a>(p: *const c_void, len: usize, parameter: &str) -> Result<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Error::null(parameter));
    }
    // SAFETY: non-NULL and `len` bytes long by the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(p.cast(), len) })
}

/// A buffer argument of `len` bytes to write into; NULL is allowed when `len` is 0.
///
/// # Safety
/// `p` is NULL or points to `len` writable bytes that live for `'a`, not aliased.
pub unsafe fn sink<'a>(p: *mut c_void, len: usize, parameter: &str) -> Result<&'a mut [u8]> {
    if len == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return Err(Error::null(parameter));
    }
    // SAFETY: non-NULL, `len` bytes long and unaliased by the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts_mut(p.cast(), len) })
}

/// Check an output pointer before doing any work, so that outputs are written only on
/// success and a NULL one is reported before anything changes.
pub fn out<T>(p: *mut T, parameter: &str) -> Result<()> {
    if p.is_null() {
        return Err(Error::null(parameter));
    }
    Ok(())
}
