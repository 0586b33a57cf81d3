//! Status codes: the stable numbers every fallible function returns. Never renumber one;
//! a retired code stays reserved.

use std::ffi::CStr;

use crate::error::ErrorKind;

/// Success.
pub const DAH5_OK: i32 = 0;
/// An argument has a value the function does not accept (unknown flag, bad ndims, ...).
pub const DAH5_ERR_INVALID_ARGUMENT: i32 = -1;
/// A pointer argument that must not be NULL is NULL.
pub const DAH5_ERR_NULL_ARGUMENT: i32 = -2;
/// A handle is closed, stale, of the wrong kind, or was never a handle.
pub const DAH5_ERR_INVALID_HANDLE: i32 = -3;
/// A block reaches outside the dataset (or its offset + count wraps).
pub const DAH5_ERR_OUT_OF_BOUNDS: i32 = -4;
/// The memory dtype differs from the dataset's and no conversion was asked for, or the
/// dataset's type is not one dah5 supports.
pub const DAH5_ERR_TYPE_MISMATCH: i32 = -5;
/// The file, directory or object does not exist.
pub const DAH5_ERR_NOT_FOUND: i32 = -6;
/// The file or object exists already.
pub const DAH5_ERR_ALREADY_EXISTS: i32 = -7;
/// A write to a file opened with `DAH5_RDONLY`.
pub const DAH5_ERR_READ_ONLY: i32 = -8;
/// The file is not an HDF5 file.
pub const DAH5_ERR_NOT_HDF5: i32 = -9;
/// The file is shorter than its HDF5 metadata says.
pub const DAH5_ERR_TRUNCATED: i32 = -10;
/// The file system is full (or over quota).
pub const DAH5_ERR_NO_SPACE: i32 = -11;
/// The operating system refused access.
pub const DAH5_ERR_PERMISSION: i32 = -12;
/// The ranks made a collective call with different arguments, or different calls.
pub const DAH5_ERR_COLLECTIVE_MISMATCH: i32 = -13;
/// HDF5 failed for another reason; the message holds its error stack.
pub const DAH5_ERR_HDF5: i32 = -14;
/// An MPI call failed; the message holds MPI's error string.
pub const DAH5_ERR_MPI: i32 = -15;
/// An I/O error below HDF5 (MPI-IO) not covered by a more specific code.
pub const DAH5_ERR_IO: i32 = -16;
/// MPI is not initialized, or already finalized.
pub const DAH5_ERR_MPI_NOT_INITIALIZED: i32 = -17;
/// The program initialized an MPI library other than the one dah5 is linked to (the
/// message names both).
pub const DAH5_ERR_ABI_MISMATCH: i32 = -18;
/// A bug in dah5 (a Rust panic, caught at the boundary).
pub const DAH5_ERR_PANIC: i32 = -19;
/// A collective call waited longer than `DAH5_COLLECTIVE_TIMEOUT` seconds (default 60)
/// for the other ranks; the file's communicator can no longer be used (end the job).
pub const DAH5_ERR_COLLECTIVE_TIMEOUT: i32 = -20;
/// The call cannot work on this file system or stack, and nothing was done; the message
/// names the cause and what works instead (e.g. an independent write where MPI-IO does not
/// make writes visible at once, as on NFS: write collectively).
pub const DAH5_ERR_UNSUPPORTED: i32 = -21;
/// The file changed on storage since this handle opened it read-only (another job wrote,
/// flushed, replaced or truncated it), so what HDF5 holds of it may be stale: close the
/// handle and open the file again. A subfile that belongs to another write of its darray
/// (put back from an earlier run) is refused with it too.
pub const DAH5_ERR_FILE_CHANGED: i32 = -22;
/// Another handle has the file open for writing: in this program (close that handle
/// first) or in another job (wait for it to end, or use another file).
pub const DAH5_ERR_IN_USE: i32 = -23;

/// One row of [`STATUSES`]: the constant, its name, and the error kind it reports.
macro_rules! status {
    ($code:ident) => {
        status!($code, None)
    };
    ($code:ident => $kind:ident) => {
        status!($code, Some(ErrorKind::$kind))
    };
    ($code:ident, $kind:expr) => {
        (
            $code,
            match CStr::from_bytes_with_nul(concat!(stringify!($code), "\0").as_bytes()) {
                Ok(name) => name,
                Err(_) => panic!("a status name has no NUL inside"),
            },
            $kind,
        )
    };
}

/// Every status, its name and the error kind it reports (none for `DAH5_OK`): the one
/// table `dah5_status_name` and the error mapping read. A new status is a constant above
/// (for the header) and a row here.
const STATUSES: [(i32, &CStr, Option<ErrorKind>); 24] = [
    status!(DAH5_OK),
    status!(DAH5_ERR_INVALID_ARGUMENT => InvalidArgument),
    status!(DAH5_ERR_NULL_ARGUMENT => NullArgument),
    status!(DAH5_ERR_INVALID_HANDLE => InvalidHandle),
    status!(DAH5_ERR_OUT_OF_BOUNDS => OutOfBounds),
    status!(DAH5_ERR_TYPE_MISMATCH => TypeMismatch),
    status!(DAH5_ERR_NOT_FOUND => NotFound),
    status!(DAH5_ERR_ALREADY_EXISTS => AlreadyExists),
    status!(DAH5_ERR_READ_ONLY => ReadOnly),
    status!(DAH5_ERR_NOT_HDF5 => NotHdf5),
    status!(DAH5_ERR_TRUNCATED => Truncated),
    status!(DAH5_ERR_NO_SPACE => NoSpace),
    status!(DAH5_ERR_PERMISSION => Permission),
    status!(DAH5_ERR_COLLECTIVE_MISMATCH => CollectiveMismatch),
    status!(DAH5_ERR_HDF5 => Hdf5),
    status!(DAH5_ERR_MPI => Mpi),
    status!(DAH5_ERR_IO => Io),
    status!(DAH5_ERR_MPI_NOT_INITIALIZED => MpiNotInitialized),
    status!(DAH5_ERR_ABI_MISMATCH => AbiMismatch),
    status!(DAH5_ERR_PANIC => Panic),
    status!(DAH5_ERR_COLLECTIVE_TIMEOUT => CollectiveTimeout),
    status!(DAH5_ERR_UNSUPPORTED => Unsupported),
    status!(DAH5_ERR_FILE_CHANGED => FileChanged),
    status!(DAH5_ERR_IN_USE => InUse),
];

/// The name of a status, for messages and `dah5_status_name`.
pub(crate) fn name(status: i32) -> &'static CStr {
    STATUSES
        .iter()
        .find(|&&(s, _, _)| s == status)
        .map_or(c"unknown status", |&(_, name, _)| name)
}

/// The status an error of `kind` returns.
pub(crate) fn of(kind: ErrorKind) -> i32 {
    STATUSES
        .iter()
        .find(|&&(_, _, k)| k == Some(kind))
        .map_or(DAH5_ERR_PANIC, |&(status, _, _)| status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_own_named_status() {
        let mut seen = std::collections::HashSet::new();
        for kind in ErrorKind::ALL {
            let status = of(kind);
            assert!(status < 0);
            assert!(seen.insert(status), "{kind:?} shares status {status}");
            assert_eq!(STATUSES.iter().filter(|&&(s, _, _)| s == status).count(), 1);
        }
        let numbers: Vec<i32> = STATUSES.iter().map(|&(s, _, _)| s).collect();
        assert_eq!(
            numbers,
            (-23..=0).rev().collect::<Vec<_>>(),
            "codes are 0, -1, ... -23"
        );
    }
}
