//! Library-wide functions: versions, status names and the last error.

use std::ffi::c_char;
use std::sync::OnceLock;

use crate::core::process;
use crate::ffi::consts::DAH5_VERSION_NUMBER;
use crate::ffi::status;
use crate::ffi::with_last_error;

/// The version of the dah5 library that is running, as
/// `major * 10000 + minor * 100 + patch`; compare with `DAH5_VERSION_NUMBER` from the header
/// the program was compiled with.
///
/// Local (any rank, any time, also before `MPI_Init`).
#[unsafe(no_mangle)]
pub extern "C" fn dah5_version() -> u32 {
    DAH5_VERSION_NUMBER
}

/// A one-line description of the running dah5, HDF5 and MPI libraries, e.g.
/// `"dah5 0.1.0; HDF5 1.10.8; Open MPI v4.1.4"`. The string is static: do not free it.
///
/// Local (any rank, any time, also before `MPI_Init`).
#[unsafe(no_mangle)]
pub extern "C" fn dah5_version_string() -> *const c_char {
    static TEXT: OnceLock<std::ffi::CString> = OnceLock::new();
    TEXT.get_or_init(|| std::ffi::CString::new(process::versions()).unwrap_or_default())
        .as_ptr()
}

/// The name of a status code (`"DAH5_ERR_NULL_ARGUMENT"`), or `"unknown status"`. Static:
/// do not free it.
///
/// Local.
#[unsafe(no_mangle)]
pub extern "C" fn dah5_status_name(status: i32) -> *const c_char {
    status::name(status).as_ptr()
}

/// Copy the calling thread's last error message into `buf` (for Fortran and other callers
/// that own their buffers). The message names the failed function, the rank, the offending
/// parameter or value, and the HDF5 error stack or MPI error string underneath. It is set
/// only when a call fails: a successful call leaves it unchanged.
///
/// @param buf  where to copy the message; may be NULL when `len` is 0.
/// @param len  size of `buf` in bytes. When `len > 0` the copy is always NUL-terminated,
///             truncated if needed.
/// @return the full length of the message in bytes, without the NUL (0 when no call has
///         failed yet), so a caller can retry with a larger buffer.
///
/// Local.
///
/// # Safety
/// `buf` points to `len` writable bytes, or `len` is 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_last_error(buf: *mut c_char, len: usize) -> usize {
    with_last_error(|message| {
        let bytes = message.as_bytes();
        if len > 0 && !buf.is_null() {
            let n = bytes.len().min(len - 1);
            // SAFETY: `buf` has `len` > n bytes by the caller's contract; the regions are
            // distinct (ours is a Rust allocation).
            unsafe {
                std::ptr::copy_nonoverlapping(bytes.as_ptr().cast(), buf, n);
                *buf.add(n) = 0;
            }
        }
        bytes.len()
    })
}

/// The calling thread's last error message (see `dah5_last_error`), as a NUL-terminated
/// string owned by dah5: valid until the next failing dah5 call on this thread. Never NULL
/// (empty when no call has failed yet).
///
/// Local.
#[unsafe(no_mangle)]
pub extern "C" fn dah5_last_error_message() -> *const c_char {
    // The CString lives in a thread-local that is replaced only by the next failure.
    with_last_error(|message| message.as_ptr())
}
