//! Attributes in the C ABI: numbers and strings on the root, groups and datasets.

use std::ffi::{c_char, c_void};

use crate::core::attr::{AttrKind, AttrName, WriteAttr, WriteText};
use crate::core::file::File;
use crate::error::{Error, Result};
use crate::ffi::consts::{DAH5_STRING, dtype_code, dtype_from_code};
use crate::ffi::{self, dah5_file, from_c};

/// The attribute's place from the C strings.
///
/// # Safety
/// Both are NULL or NUL-terminated.
unsafe fn attr_name<'a>(object: *const c_char, name: *const c_char) -> Result<AttrName<'a>> {
    // SAFETY: by this function's contract.
    let (object, name) = unsafe {
        (
            from_c::string(object, "object")?,
            from_c::string(name, "name")?,
        )
    };
    Ok(AttrName { object, name })
}

/// Write (or replace) a numeric attribute: a scalar (`ndims` 0, `count` 1) or a 1-D array
/// of `count` elements (`ndims` 1).
///
/// **Collective** over the file's communicator: every rank passes the same object, name,
/// dtype and values (dah5 checks, values included, since HDF5 would keep rank 0's alone).
///
/// @param object  the path of the root group (`"/"`), a group or a dataset.
/// @param name    the attribute's name.
/// @param dtype   `DAH5_INT8` .. `DAH5_COMPLEX128`, the type of `buf` and of the attribute.
/// @return `DAH5_OK`; `DAH5_ERR_UNSUPPORTED` for a value over 64 KiB (with its name) where
///         the file's format keeps attributes in the object header (HDF5 1.10 and 1.14's
///         default; store such values as a dataset); `DAH5_ERR_NOT_FOUND` when `object`
///         does not exist, ...
///
/// # Safety
/// Strings are NULL or NUL-terminated; `buf` holds `count` elements of `dtype`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_attr_write(
    file: *mut dah5_file,
    object: *const c_char,
    name: *const c_char,
    dtype: i32,
    ndims: u32,
    count: u64,
    buf: *const c_void,
) -> i32 {
    let request = |_: &File| {
        // SAFETY: by this function's contract.
        let at = unsafe { attr_name(object, name) }?;
        let dtype = dtype_from_code(dtype, "dtype")?;
        let shape = match (ndims, count) {
            (0, 1) => vec![],
            (1, 1..) => vec![count],
            _ => {
                return Err(Error::invalid(format!(
                    "ndims = {ndims}, count = {count}: a scalar is ndims 0 and count 1, an \
                     array ndims 1 and count >= 1"
                )));
            }
        };
        let len = usize::try_from(count)
            .ok()
            .and_then(|n| n.checked_mul(dtype.size()))
            .ok_or_else(|| Error::invalid(format!("count = {count} is too large")))?;
        // SAFETY: `buf` holds `count` elements by the contract.
        let data = unsafe { from_c::source(buf, len, "buf") }?;
        Ok(WriteAttr {
            at,
            dtype,
            shape,
            data,
        })
    };
    ffi::collective(file, request, |_, ()| Ok(()))
}

/// Write (or replace) a UTF-8 string attribute (stored as a variable-length UTF-8 string,
/// as h5py and HDF5.jl store `str`).
///
/// **Collective**, like `dah5_attr_write`.
///
/// # Safety
/// Strings are NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_attr_write_string(
    file: *mut dah5_file,
    object: *const c_char,
    name: *const c_char,
    value: *const c_char,
) -> i32 {
    let request = |_: &File| {
        // SAFETY: by this function's contract.
        let at = unsafe { attr_name(object, name) }?;
        // SAFETY: by this function's contract.
        let text = unsafe { from_c::string(value, "value") }?;
        Ok(WriteText { at, text })
    };
    ffi::collective(file, request, |_, ()| Ok(()))
}

/// What an attribute holds: its dtype (`DAH5_STRING` for text) and its number of elements
/// (for a string, its length in bytes without the NUL).
///
/// Local.
///
/// @return `DAH5_OK`, `DAH5_ERR_NOT_FOUND`, `DAH5_ERR_TYPE_MISMATCH` (a type dah5 does not
///         read), `DAH5_ERR_FILE_CHANGED` (here and in the attribute reads: a read-only file
///         changed since it was opened), ...
///
/// # Safety
/// Strings are NULL or NUL-terminated; the outputs are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_attr_info(
    file: *const dah5_file,
    object: *const c_char,
    name: *const c_char,
    dtype_out: *mut i32,
    count_out: *mut u64,
) -> i32 {
    ffi::local("dah5_attr_info", file, |file| {
        from_c::out(dtype_out, "dtype_out")?;
        from_c::out(count_out, "count_out")?;
        // SAFETY: by this function's contract.
        let at = unsafe { attr_name(object, name) }?;
        let info = file.attr_info(at)?;
        let code = match info.kind {
            AttrKind::Numbers(dtype) => dtype_code(dtype),
            AttrKind::Text => DAH5_STRING,
        };
        // SAFETY: checked non-NULL.
        unsafe {
            *dtype_out = code;
            *count_out = info.count;
        }
        Ok(())
    })
}

/// Read a numeric attribute into `buf`. `mem_dtype` must be the attribute's dtype, and
/// `capacity` at least its number of elements: a buffer too small is
/// `DAH5_ERR_INVALID_ARGUMENT`, never a truncation.
///
/// Local.
///
/// @param count_out  receives the number of elements read.
///
/// # Safety
/// Strings are NULL or NUL-terminated; `buf` has room for `capacity` elements of
/// `mem_dtype`; `count_out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_attr_read(
    file: *const dah5_file,
    object: *const c_char,
    name: *const c_char,
    mem_dtype: i32,
    capacity: u64,
    buf: *mut c_void,
    count_out: *mut u64,
) -> i32 {
    ffi::local("dah5_attr_read", file, |file| {
        from_c::out(count_out, "count_out")?;
        // SAFETY: by this function's contract.
        let at = unsafe { attr_name(object, name) }?;
        let dtype = dtype_from_code(mem_dtype, "mem_dtype")?;
        let len = usize::try_from(capacity)
            .ok()
            .and_then(|n| n.checked_mul(dtype.size()))
            .ok_or_else(|| Error::invalid(format!("capacity = {capacity} is too large")))?;
        // SAFETY: `buf` has room for `capacity` elements by the contract.
        let buf = unsafe { from_c::sink(buf, len, "buf") }?;
        let count = file.read_attr(at, dtype, buf)?;
        // SAFETY: checked non-NULL.
        unsafe { *count_out = count };
        Ok(())
    })
}

/// Read a string attribute into `buf`, NUL-terminated. `len` must be at least its length
/// plus one (`dah5_attr_info` gives the length): a buffer too small is
/// `DAH5_ERR_INVALID_ARGUMENT`, never a truncation.
///
/// Local.
///
/// @param len_out  receives the length without the NUL.
///
/// # Safety
/// Strings are NULL or NUL-terminated; `buf` has room for `len` bytes; `len_out` is
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_attr_read_string(
    file: *const dah5_file,
    object: *const c_char,
    name: *const c_char,
    buf: *mut c_char,
    len: usize,
    len_out: *mut usize,
) -> i32 {
    ffi::local("dah5_attr_read_string", file, |file| {
        from_c::out(len_out, "len_out")?;
        // SAFETY: by this function's contract.
        let at = unsafe { attr_name(object, name) }?;
        let text = file.read_attr_text(at)?;
        if text.len() >= len {
            return Err(Error::invalid(format!(
                "the string has {} bytes and its NUL needs one more, but len = {len}",
                text.len()
            )));
        }
        // SAFETY: `buf` has room for `len` > text.len() bytes by the contract.
        let out = unsafe { from_c::sink(buf.cast(), len, "buf") }?;
        out[..text.len()].copy_from_slice(&text);
        out[text.len()] = 0;
        // SAFETY: checked non-NULL.
        unsafe { *len_out = text.len() };
        Ok(())
    })
}
