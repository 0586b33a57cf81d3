//! Status codes: the stable numbers every fallible function returns. Never renumber one;
//! a retired code stays reserved.

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

/// Every status with its name, for `dah5_status_name` and the tests.
pub(crate) const NAMES: [(i32, &std::ffi::CStr); 21] = [
    (DAH5_OK, c"DAH5_OK"),
    (DAH5_ERR_INVALID_ARGUMENT, c"DAH5_ERR_INVALID_ARGUMENT"),
    (DAH5_ERR_NULL_ARGUMENT, c"DAH5_ERR_NULL_ARGUMENT"),
    (DAH5_ERR_INVALID_HANDLE, c"DAH5_ERR_INVALID_HANDLE"),
    (DAH5_ERR_OUT_OF_BOUNDS, c"DAH5_ERR_OUT_OF_BOUNDS"),
    (DAH5_ERR_TYPE_MISMATCH, c"DAH5_ERR_TYPE_MISMATCH"),
    (DAH5_ERR_NOT_FOUND, c"DAH5_ERR_NOT_FOUND"),
    (DAH5_ERR_ALREADY_EXISTS, c"DAH5_ERR_ALREADY_EXISTS"),
    (DAH5_ERR_READ_ONLY, c"DAH5_ERR_READ_ONLY"),
    (DAH5_ERR_NOT_HDF5, c"DAH5_ERR_NOT_HDF5"),
    (DAH5_ERR_TRUNCATED, c"DAH5_ERR_TRUNCATED"),
    (DAH5_ERR_NO_SPACE, c"DAH5_ERR_NO_SPACE"),
    (DAH5_ERR_PERMISSION, c"DAH5_ERR_PERMISSION"),
    (
        DAH5_ERR_COLLECTIVE_MISMATCH,
        c"DAH5_ERR_COLLECTIVE_MISMATCH",
    ),
    (DAH5_ERR_HDF5, c"DAH5_ERR_HDF5"),
    (DAH5_ERR_MPI, c"DAH5_ERR_MPI"),
    (DAH5_ERR_IO, c"DAH5_ERR_IO"),
    (
        DAH5_ERR_MPI_NOT_INITIALIZED,
        c"DAH5_ERR_MPI_NOT_INITIALIZED",
    ),
    (DAH5_ERR_ABI_MISMATCH, c"DAH5_ERR_ABI_MISMATCH"),
    (DAH5_ERR_PANIC, c"DAH5_ERR_PANIC"),
    (DAH5_ERR_COLLECTIVE_TIMEOUT, c"DAH5_ERR_COLLECTIVE_TIMEOUT"),
];

/// The name of a status, for messages and `dah5_status_name`.
pub(crate) fn name(status: i32) -> &'static std::ffi::CStr {
    NAMES
        .iter()
        .find(|&&(s, _)| s == status)
        .map_or(c"unknown status", |&(_, name)| name)
}

pub(crate) fn of(kind: ErrorKind) -> i32 {
    match kind {
        ErrorKind::InvalidArgument => DAH5_ERR_INVALID_ARGUMENT,
        ErrorKind::NullArgument => DAH5_ERR_NULL_ARGUMENT,
        ErrorKind::InvalidHandle => DAH5_ERR_INVALID_HANDLE,
        ErrorKind::OutOfBounds => DAH5_ERR_OUT_OF_BOUNDS,
        ErrorKind::TypeMismatch => DAH5_ERR_TYPE_MISMATCH,
        ErrorKind::NotFound => DAH5_ERR_NOT_FOUND,
        ErrorKind::AlreadyExists => DAH5_ERR_ALREADY_EXISTS,
        ErrorKind::ReadOnly => DAH5_ERR_READ_ONLY,
        ErrorKind::NotHdf5 => DAH5_ERR_NOT_HDF5,
        ErrorKind::Truncated => DAH5_ERR_TRUNCATED,
        ErrorKind::NoSpace => DAH5_ERR_NO_SPACE,
        ErrorKind::Permission => DAH5_ERR_PERMISSION,
        ErrorKind::CollectiveMismatch => DAH5_ERR_COLLECTIVE_MISMATCH,
        ErrorKind::CollectiveTimeout => DAH5_ERR_COLLECTIVE_TIMEOUT,
        ErrorKind::Hdf5 => DAH5_ERR_HDF5,
        ErrorKind::Mpi => DAH5_ERR_MPI,
        ErrorKind::Io => DAH5_ERR_IO,
        ErrorKind::MpiNotInitialized => DAH5_ERR_MPI_NOT_INITIALIZED,
        ErrorKind::AbiMismatch => DAH5_ERR_ABI_MISMATCH,
        ErrorKind::Panic => DAH5_ERR_PANIC,
    }
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
            assert!(NAMES.iter().any(|&(s, _)| s == status));
        }
        let numbers: Vec<i32> = NAMES.iter().map(|&(s, _)| s).collect();
        assert_eq!(
            numbers,
            (-20..=0).rev().collect::<Vec<_>>(),
            "codes are 0, -1, ... -20"
        );
    }
}
