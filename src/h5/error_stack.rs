//! Reading and classifying HDF5's error stack after a failed call.

use std::ffi::{CStr, c_char, c_uint, c_void};

use hdf5_sys::h5e::{
    H5E_DEFAULT, H5E_WALK_DOWNWARD, H5E_error2_t, H5E_type_t, H5Eclear2, H5Eget_msg, H5Ewalk2,
};

use crate::core::error::{Error, ErrorKind};

/// One frame of the stack, as text.
struct Frame {
    function: String,
    description: String,
    major: String,
    minor: String,
}

/// Take the current error stack (and clear it) into an error for the failed call `what`.
/// Must be called with the global HDF5 lock held, right after the failure.
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
    let mut message = format!("{what} failed");
    if let Some(reason) = frames.iter().rev().find(|f| !f.description.is_empty()) {
        message.push_str(&format!(": {}", reason.description));
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
    message.push_str("\nHDF5 error stack:");
    for (n, f) in frames.iter().enumerate() {
        message.push_str(&format!(
            "\n  #{n:03} {}(): {}\n       major: {}\n       minor: {}",
            f.function, f.description, f.major, f.minor
        ));
    }
    Error::new(kind, message)
}

unsafe extern "C" fn push_frame(
    _n: c_uint,
    err: *const H5E_error2_t,
    data: *mut c_void,
) -> hdf5_sys::h5::herr_t {
    // SAFETY: HDF5 passes a valid frame, and `data` is the `Vec<Frame>` given to H5Ewalk2.
    let (err, frames) = unsafe { (&*err, &mut *data.cast::<Vec<Frame>>()) };
    frames.push(Frame {
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

/// Map the stack to the most specific kind: HDF5's minor messages first, then the MPI error
/// class names that the MPI-IO driver copies into its descriptions.
fn classify(frames: &[Frame]) -> ErrorKind {
    const RULES: [(&str, ErrorKind); 13] = [
        ("MPI_ERR_NO_SPACE", ErrorKind::NoSpace),
        ("MPI_ERR_QUOTA", ErrorKind::NoSpace),
        ("No space left on device", ErrorKind::NoSpace),
        // A write that failed under any operation is the cause, whatever the frames above
        // it say (a dataset create whose metadata write failed also reads "not found").
        ("file write failed", ErrorKind::Io),
        ("MPI_ERR_NO_SUCH_FILE", ErrorKind::NotFound),
        ("MPI_ERR_FILE_EXISTS", ErrorKind::AlreadyExists),
        ("MPI_ERR_ACCESS", ErrorKind::Permission),
        ("MPI_ERR_READ_ONLY", ErrorKind::Permission),
        ("file signature not found", ErrorKind::NotHdf5),
        ("truncated file", ErrorKind::Truncated),
        ("already exists", ErrorKind::AlreadyExists),
        ("doesn't exist", ErrorKind::NotFound),
        ("not found", ErrorKind::NotFound),
    ];
    for (needle, kind) in RULES {
        if frames
            .iter()
            .any(|f| f.description.contains(needle) || f.minor.contains(needle))
        {
            return kind;
        }
    }
    if frames.iter().any(|f| f.description.contains("MPI_ERR")) {
        return ErrorKind::Io;
    }
    ErrorKind::Hdf5
}
