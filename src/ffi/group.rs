//! Groups in the C ABI.

use std::ffi::c_char;

use crate::core::file::File;
use crate::core::group::CreateGroup;
use crate::ffi::{self, dah5_file, from_c};

/// Create a group, and any missing group above it (`"results/step1"` makes `results`
/// too). A dataset's create makes the groups above it already; this call is for a group
/// of its own: one that holds attributes, or that a later call fills.
///
/// **Collective** over the file's communicator: every rank passes the same path. If any
/// rank's path is invalid, or ranks pass different paths, every rank returns the same
/// error and nothing is created.
///
/// @param file  an open, writable file.
/// @param path  NUL-terminated UTF-8 path from the file's root group, with or without its
///              leading '/'; not empty, not ending in '/', and not in dah5's own group
///              `/dah5_blocks` (the same rules as a dataset's name).
/// @return `DAH5_OK`; on every rank alike: `DAH5_ERR_ALREADY_EXISTS` when the path exists
///         (a group or a dataset; nothing is changed), `DAH5_ERR_INVALID_ARGUMENT` for a
///         path that is not a group's name or runs through a dataset,
///         `DAH5_ERR_NULL_ARGUMENT` for a NULL path, `DAH5_ERR_READ_ONLY` for a file opened
///         `DAH5_RDONLY`, `DAH5_ERR_COLLECTIVE_MISMATCH` when ranks pass different paths,
///         `DAH5_ERR_NO_SPACE`, ...; the message of a rank whose own argument was wrong says
///         what is wrong with it, the others name that rank. `DAH5_ERR_INVALID_HANDLE`
///         (on the ranks that passed it) for a handle that is not an open file.
///
/// # Safety
/// `path` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_group_create(file: *mut dah5_file, path: *const c_char) -> i32 {
    let request = |_: &File| {
        // SAFETY: by this function's contract.
        let path = unsafe { from_c::string(path, "path") }?;
        Ok(CreateGroup(path))
    };
    ffi::collective(file, request, |_, ()| Ok(()))
}
