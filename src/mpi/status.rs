//! MPI return codes: a code turned into a dah5 error of the right kind, with MPI's text.

use std::ffi::{CStr, c_char, c_int};

use mpi_sys::{MPI_Error_class, MPI_Error_string};

use crate::error::{Error, ErrorKind, Result};

/// `MPI_SUCCESS` is 0 in every MPI implementation (the standard fixes it).
const MPI_SUCCESS: c_int = 0;

/// Turn an MPI return code into a result; `what` names the call.
pub fn check(what: &str, code: c_int) -> Result<()> {
    if code == MPI_SUCCESS {
        return Ok(());
    }
    Err(Error::new(
        kind_of(code),
        format!("{what} failed: {}", error_string(code)),
    ))
}

/// The error classes that say more than "MPI failed", with the kind each one is. MPI-IO
/// reports file-system failures in these classes on every MPI (the numbers differ).
const CLASSES: [(u32, ErrorKind); 7] = [
    (mpi_sys::MPI_ERR_NO_SUCH_FILE, ErrorKind::NotFound),
    (mpi_sys::MPI_ERR_FILE_EXISTS, ErrorKind::AlreadyExists),
    (mpi_sys::MPI_ERR_ACCESS, ErrorKind::Permission),
    (mpi_sys::MPI_ERR_READ_ONLY, ErrorKind::Permission),
    (mpi_sys::MPI_ERR_NO_SPACE, ErrorKind::NoSpace),
    (mpi_sys::MPI_ERR_QUOTA, ErrorKind::NoSpace),
    (mpi_sys::MPI_ERR_IO, ErrorKind::Io),
];

/// The kind of an MPI error code, by its standard error class (`MPI_Error_class`).
pub fn kind_of(code: c_int) -> ErrorKind {
    let mut class: c_int = 0;
    // SAFETY: any code may be asked about; `class` is a live out-parameter.
    if unsafe { MPI_Error_class(code, &mut class) } != MPI_SUCCESS {
        return ErrorKind::Mpi;
    }
    CLASSES
        .iter()
        .find(|(c, _)| *c as c_int == class)
        .map_or(ErrorKind::Mpi, |(_, kind)| *kind)
}

/// The kind of an MPI error known only by its text, as HDF5's MPI-IO driver records it
/// (the code itself is not kept): the class whose own text (`MPI_Error_string` of the class)
/// the message starts with. Every MPI's message for a code begins with its class's text.
pub fn kind_of_text(message: &str) -> Option<ErrorKind> {
    CLASSES.iter().find_map(|&(class, kind)| {
        let text = error_string(class as c_int);
        (!text.is_empty() && message.trim_start().starts_with(text.trim())).then_some(kind)
    })
}

fn error_string(code: c_int) -> String {
    let mut buf = vec![0 as c_char; mpi_sys::MPI_MAX_ERROR_STRING as usize + 1];
    let mut len: c_int = 0;
    // SAFETY: `buf` has MPI_MAX_ERROR_STRING + 1 bytes, as MPI_Error_string requires.
    let ok = unsafe { MPI_Error_string(code, buf.as_mut_ptr(), &mut len) } == MPI_SUCCESS;
    if !ok {
        return format!("MPI error code {code}");
    }
    // SAFETY: MPI NUL-terminates the string inside `buf`.
    unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}
