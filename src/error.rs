//! The one error type of the library. `ErrorKind` says what went wrong (the C ABI maps it to
//! a stable status number in `ffi::status`); the message says where and why.

use std::fmt;

/// What went wrong. The order of the variants is not part of the ABI: the C status numbers
/// live in `ffi::status`. `ordinal` is used only to reduce kinds across ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    InvalidArgument,
    NullArgument,
    InvalidHandle,
    OutOfBounds,
    TypeMismatch,
    NotFound,
    AlreadyExists,
    ReadOnly,
    NotHdf5,
    Truncated,
    NoSpace,
    Permission,
    CollectiveMismatch,
    CollectiveTimeout,
    Hdf5,
    Mpi,
    Io,
    MpiNotInitialized,
    AbiMismatch,
    Panic,
    Unsupported,
    FileChanged,
    InUse,
}

impl ErrorKind {
    pub const ALL: [ErrorKind; 23] = [
        ErrorKind::InvalidArgument,
        ErrorKind::NullArgument,
        ErrorKind::InvalidHandle,
        ErrorKind::OutOfBounds,
        ErrorKind::TypeMismatch,
        ErrorKind::NotFound,
        ErrorKind::AlreadyExists,
        ErrorKind::ReadOnly,
        ErrorKind::NotHdf5,
        ErrorKind::Truncated,
        ErrorKind::NoSpace,
        ErrorKind::Permission,
        ErrorKind::CollectiveMismatch,
        ErrorKind::CollectiveTimeout,
        ErrorKind::Hdf5,
        ErrorKind::Mpi,
        ErrorKind::Io,
        ErrorKind::MpiNotInitialized,
        ErrorKind::AbiMismatch,
        ErrorKind::Panic,
        ErrorKind::Unsupported,
        ErrorKind::FileChanged,
        ErrorKind::InUse,
    ];

    /// A failure of the collective protocol itself (a mismatch or a timeout), not of a
    /// rank's own work.
    pub fn is_collective(self) -> bool {
        matches!(
            self,
            ErrorKind::CollectiveMismatch | ErrorKind::CollectiveTimeout
        )
    }

    /// Position in `ALL`, so that a kind can travel through an MPI reduction as a number.
    pub fn ordinal(self) -> u64 {
        Self::ALL.iter().position(|&k| k == self).unwrap_or(0) as u64
    }

    pub fn from_ordinal(ordinal: u64) -> ErrorKind {
        Self::ALL
            .get(ordinal as usize)
            .copied()
            .unwrap_or(ErrorKind::Panic)
    }
}

/// An error: a pointer to its kind and message. Boxed so that a `Result` is small: an
/// `Err` moves one word up through every `?`, and `Result<()>` or `Result<hid_t>` comes back
/// in registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(Box<ErrorData>);

/// What an [`Error`] points to (read through it: `error.kind`, `error.message`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorData {
    pub kind: ErrorKind,
    pub message: String,
}

impl std::ops::Deref for Error {
    type Target = ErrorData;

    fn deref(&self) -> &ErrorData {
        &self.0
    }
}

// The constructors are `#[cold]`: the compiler then lays out every branch that makes an
// error (with its message formatting) apart from the calls' common path, which runs
// through fewer instruction-cache lines (HDF5's own path evicts them between two calls).
impl Error {
    #[cold]
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error(Box::new(ErrorData {
            kind,
            message: message.into(),
        }))
    }

    #[cold]
    pub fn invalid(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::InvalidArgument, message)
    }

    #[cold]
    pub fn null(parameter: &str) -> Error {
        Error::new(
            ErrorKind::NullArgument,
            format!("{parameter} is NULL but must point to valid memory"),
        )
    }

    /// An operating-system error, classified by its errno (no space, permission, not found).
    #[cold]
    pub fn io(error: &std::io::Error, what: impl fmt::Display) -> Error {
        let kind = match error.raw_os_error() {
            Some(libc::ENOSPC) | Some(libc::EDQUOT) => ErrorKind::NoSpace,
            Some(libc::EACCES) | Some(libc::EPERM) | Some(libc::EROFS) => ErrorKind::Permission,
            Some(libc::ENOENT) => ErrorKind::NotFound,
            _ if error.kind() == std::io::ErrorKind::UnexpectedEof => ErrorKind::Truncated,
            _ => ErrorKind::Io,
        };
        Error::new(kind, format!("{what}: {error}"))
    }

    /// Prefix the message with what was being done, keeping the kind.
    #[cold]
    pub fn context(self, what: impl fmt::Display) -> Error {
        Error::new(self.kind, format!("{what}: {}", self.message))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_round_trip() {
        for kind in ErrorKind::ALL {
            assert_eq!(ErrorKind::from_ordinal(kind.ordinal()), kind);
        }
    }
}
