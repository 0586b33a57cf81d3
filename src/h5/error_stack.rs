//! Reading and classifying HDF5's error stack after a failed call.

use std::ffi::{CStr, c_char, c_uint, c_void};

use hdf5_sys::h5e::{
    H5E_DEFAULT, H5E_EXISTS, H5E_FILEEXISTS, H5E_MPI, H5E_MPIERRSTR, H5E_NOTFOUND, H5E_NOTHDF5,
    H5E_TRUNCATED, H5E_WALK_DOWNWARD, H5E_WRITEERROR, H5E_error2_t, H5E_type_t, H5Eclear2,
    H5Eget_msg, H5Ewalk2,
};

use crate::error::{Error, ErrorKind};

/// One frame of the stack: its minor error code, and its texts.
struct Frame {
    minor_id: hdf5_sys::h5i::hid_t,
    function: String,
    description: String,
    major: String,
    minor: String,
}

/// Take the current error stack (and clear it) into an error for the failed call `what`.
/// Must be called with the global HDF5 lock held, right after the failure.
#[cold]
pub fn take(what: &str) -> Error {
    let mut frames: Vec<Frame> = Vec::new();
    // SAFETY: the callback only reads the frame HDF5 passes and pushes into `frames`, which
    // outlives the walk; the lock is held by the caller.
    unsafe {
        H5Ewalk2(
            H5E_DEFAULT,
            H5E_WALK_DOWNWARD,
            Some(push_frame),
            (&mut frames as *mut Vec<Frame>).cast(),
        );
        H5Eclear2(H5E_DEFAULT);
    }
    let kind = classify(&frames);
    // The first line carries the answer; HDF5's stack follows only where the cause is not
    // one of the common ones (or when asked for with DAH5_ERROR_STACK=1).
    let mut message = format!("{what} failed: {}", cause(&frames));
    let advice = advice(kind, what);
    if let Some(advice) = advice {
        message.push_str(&format!(" ({advice})"));
    }
    if frames
        .iter()
        .any(|f| f.description.contains("unable to lock file"))
    {
        message.push_str(
            "\nHDF5 could not lock the file: another process holds it open for writing, or \
             the file system does not support flock (some NFS and Lustre mounts). For the \
             latter, pass DAH5_NO_FILE_LOCKING (direct mode) or set \
             HDF5_USE_FILE_LOCKING=FALSE.",
        );
    }
    if advice.is_none() || stack_wanted() {
        message.push_str("\nHDF5 error stack:");
        for (n, f) in frames.iter().enumerate() {
            message.push_str(&format!(
                "\n  #{n:03} {}(): {}\n       major: {}\n       minor: {}",
                f.function, f.description, f.major, f.minor
            ));
        }
    }
    Error::new(kind, message)
}

/// Environment variable: a switch (`1`, `on`; see `os::switch`) to have HDF5's error stack
/// in every message.
pub(crate) const STACK_ENV: &str = "DAH5_ERROR_STACK";

/// Whether the stack goes into every message: the switch is on, or set to a value it does
/// not take (which the next file create or open refuses; meanwhile more is said, not less).
fn stack_wanted() -> bool {
    !matches!(crate::os::switch(STACK_ENV), Ok(None | Some(false)))
}

/// The cause in one line: the operating system's or MPI's own words where HDF5 quotes them,
/// else the description of the deepest frame.
fn cause(frames: &[Frame]) -> String {
    let quoted = frames.iter().find_map(|f| {
        let d = &f.description;
        errno_text_in(d)
            .or_else(|| mpi_text_in(d).map(|t| t.split(", error stack").next().unwrap_or(t)))
    });
    let text = quoted
        .map(str::to_string)
        .or_else(|| {
            frames
                .iter()
                .rev()
                .find(|f| !f.description.is_empty())
                .map(|f| f.description.clone())
        })
        .unwrap_or_else(|| "no reason given by HDF5".to_string());
    let line = text.lines().next().unwrap_or("").trim_end_matches('\'');
    line.to_string()
}

/// What to do about the common causes, said in the message's first line, for the failed
/// call `what` (of a file, `H5F*`, or of an object in one). None: an uncommon cause, for
/// which the stack follows.
fn advice(kind: ErrorKind, what: &str) -> Option<&'static str> {
    let of_a_file = what.starts_with("H5F");
    match kind {
        ErrorKind::NotFound if of_a_file => Some(
            "check the name; a relative path is relative to each rank's working directory, \
             and every directory on it must exist",
        ),
        ErrorKind::NotFound => {
            Some("check the name: a path from the file's root group, through groups that exist")
        }
        ErrorKind::AlreadyExists if of_a_file => {
            Some("pass DAH5_TRUNC to replace a file, or another name")
        }
        ErrorKind::AlreadyExists => Some("an object of that name exists already"),
        ErrorKind::Permission => {
            Some("this user may not read or write it, or create files in its directory")
        }
        ErrorKind::NotHdf5 => Some("it is not an HDF5 file"),
        ErrorKind::Truncated => Some(
            "it is shorter than HDF5 expects: cut off by a failed copy or a full disk, or \
             still being written",
        ),
        ErrorKind::NoSpace => Some("the file system is full, or over quota"),
        _ => None,
    }
}

/// The operating system's message in a description of HDF5's file drivers ("..., errno =
/// 2, error message = 'No such file or directory', ...").
fn errno_text_in(description: &str) -> Option<&str> {
    let (_, after) = description.split_once("error message = '")?;
    after.split('\'').next()
}

unsafe extern "C" fn push_frame(
    _n: c_uint,
    err: *const H5E_error2_t,
    data: *mut c_void,
) -> hdf5_sys::h5::herr_t {
    // SAFETY: HDF5 passes a valid frame, and `data` is the `Vec<Frame>` given to H5Ewalk2.
    let (err, frames) = unsafe { (&*err, &mut *data.cast::<Vec<Frame>>()) };
    frames.push(Frame {
        minor_id: err.min_num,
        function: text(err.func_name),
        description: text(err.desc),
        major: message_text(err.maj_num),
        minor: message_text(err.min_num),
    });
    0
}

fn text(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: HDF5 hands out NUL-terminated strings that live for the walk.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

fn message_text(id: hdf5_sys::h5i::hid_t) -> String {
    let mut buf = [0 as c_char; 256];
    let mut kind = H5E_type_t::H5E_MINOR;
    // SAFETY: `buf` has the size we pass, and H5Eget_msg NUL-terminates within it.
    let n = unsafe { H5Eget_msg(id, &mut kind, buf.as_mut_ptr(), buf.len()) };
    if n < 0 {
        return String::new();
    }
    text(buf.as_ptr())
}

/// Map the stack to the most specific kind. The operating system's or MPI's own report of
/// the cause comes first (errno where HDF5 records one, the MPI error class of the text the
/// MPI-IO driver records), then HDF5's minor error codes. A write that failed under any
/// operation is the cause, whatever the frames above it say (a dataset create whose
/// metadata write failed also reports "object not found").
fn classify(frames: &[Frame]) -> ErrorKind {
    let reported = frames.iter().find_map(|f| {
        errno_in(&f.description)
            .and_then(kind_of_errno)
            .or_else(|| mpi_text_in(&f.description).and_then(crate::mpi::kind_of_text))
    });
    if let Some(kind) = reported {
        return kind;
    }
    let minors = [
        (H5E_WRITEERROR, ErrorKind::Io),
        (H5E_NOTHDF5, ErrorKind::NotHdf5),
        (H5E_TRUNCATED, ErrorKind::Truncated),
        (H5E_FILEEXISTS, ErrorKind::AlreadyExists),
        (H5E_EXISTS, ErrorKind::AlreadyExists),
        (H5E_NOTFOUND, ErrorKind::NotFound),
        (H5E_MPI, ErrorKind::Io),
        (H5E_MPIERRSTR, ErrorKind::Io),
    ];
    minors
        .iter()
        .find(|&&(minor, _)| {
            let minor = crate::h5::library::predefined(minor);
            frames.iter().any(|f| f.minor_id == minor)
        })
        .map_or(ErrorKind::Hdf5, |(_, kind)| *kind)
}

/// The errno in a description of HDF5's file drivers ("..., errno = 28, error message =
/// 'No space left on device'").
fn errno_in(description: &str) -> Option<i32> {
    let (_, after) = description.split_once("errno = ")?;
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

fn kind_of_errno(errno: i32) -> Option<ErrorKind> {
    match errno {
        libc::ENOSPC | libc::EDQUOT => Some(ErrorKind::NoSpace),
        libc::ENOENT | libc::ENOTDIR => Some(ErrorKind::NotFound),
        libc::EACCES | libc::EPERM | libc::EROFS => Some(ErrorKind::Permission),
        libc::EEXIST => Some(ErrorKind::AlreadyExists),
        _ => None,
    }
}

/// The MPI error text that HDF5's MPI-IO driver quotes ("MPI error string is '...'").
fn mpi_text_in(description: &str) -> Option<&str> {
    description
        .split_once("MPI error string is '")
        .map(|(_, text)| text)
}
