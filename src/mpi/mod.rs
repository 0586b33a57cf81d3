//! The MPI boundary: communicator handling and the agreement that guards every collective
//! call. The library never initializes or finalizes MPI; it checks that the caller has. Only
//! the `dah5` command's parallel subcommand (`merge`) starts MPI itself ([`start`]).

pub mod agree;
pub mod board;
pub mod comm;
pub mod digest;
pub mod finalize;
pub mod foreign;
pub mod info;
pub mod roll_call;

use std::ffi::{CStr, c_char, c_int};

use mpi_sys::{
    MPI_Error_class, MPI_Error_string, MPI_Finalize, MPI_Finalized, MPI_Get_library_version,
    MPI_Init, MPI_Initialized, RSMPI_COMM_WORLD, RSMPI_Comm_c2f,
};

use crate::error::{Error, ErrorKind, Result};

pub use foreign::check_abi;

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

/// Start MPI for a program of its own (the `dah5` command) unless it runs already; true when
/// this call started it (then [`finish`] ends it).
pub fn start() -> Result<bool> {
    check_abi()?;
    if state().0 {
        return Ok(false);
    }
    // SAFETY: MPI is not initialized; NULL argc and argv are allowed.
    check("MPI_Init", unsafe {
        MPI_Init(std::ptr::null_mut(), std::ptr::null_mut())
    })?;
    Ok(true)
}

/// MPI_COMM_WORLD's Fortran handle, as `core::file::File::open` takes a communicator.
pub fn world_handle() -> i32 {
    // SAFETY: MPI is running (after [`start`]); RSMPI_COMM_WORLD is a predefined handle.
    unsafe { RSMPI_Comm_c2f(RSMPI_COMM_WORLD) }
}

/// End MPI started by [`start`].
pub fn finish() {
    // SAFETY: MPI is running and every dah5 object of the program is closed.
    unsafe { MPI_Finalize() };
}

/// `(initialized, finalized)`; both calls are legal at any time.
fn state() -> (bool, bool) {
    let (mut initialized, mut finalized) = (0, 0);
    // SAFETY: MPI_Initialized and MPI_Finalized may be called before MPI_Init and after
    // MPI_Finalize; the out-pointers are valid locals.
    unsafe {
        MPI_Initialized(&mut initialized);
        MPI_Finalized(&mut finalized);
    }
    (initialized != 0, finalized != 0)
}

/// Fail unless MPI is initialized and not yet finalized (and is the MPI dah5 was built for).
pub fn ensure_active() -> Result<()> {
    check_abi()?;
    // Asking MPI costs more than a reduction on the shared-memory board.
    if finalize::surely_active() {
        return Ok(());
    }
    match state() {
        (true, false) => Ok(()),
        (false, _) => Err(match foreign::initialized_other_mpi() {
            Some(other) => Error::new(
                ErrorKind::AbiMismatch,
                format!(
                    "this program initialized another MPI library, {other}, but dah5 is \
                     linked to {} ({}), which is not initialized. Use one MPI for both: \
                     from Julia, point MPI.jl at the system MPI \
                     (MPIPreferences.use_system_binary()); or build dah5 against the other \
                     MPI",
                    foreign::our_library(),
                    library_version()
                ),
            ),
            None => Error::new(
                ErrorKind::MpiNotInitialized,
                "MPI is not initialized: call MPI_Init (or MPI_Init_thread) before dah5",
            ),
        }),
        (true, true) => Err(Error::new(
            ErrorKind::MpiNotInitialized,
            "MPI has been finalized: dah5 calls must come before MPI_Finalize",
        )),
    }
}

/// True while MPI can be used (handles are freed only then).
pub fn is_active() -> bool {
    ensure_active().is_ok()
}

/// This process's rank and the size of MPI_COMM_WORLD, for messages; None when MPI is not
/// running.
pub fn world_rank() -> Option<(i32, i32)> {
    if !is_active() {
        return None;
    }
    let (mut rank, mut size) = (0, 0);
    // SAFETY: MPI is active; the out-pointers are valid locals.
    unsafe {
        mpi_sys::MPI_Comm_rank(mpi_sys::RSMPI_COMM_WORLD, &mut rank);
        mpi_sys::MPI_Comm_size(mpi_sys::RSMPI_COMM_WORLD, &mut size);
    }
    Some((rank, size))
}

/// The name and version of the MPI library this process's calls go to (legal before
/// MPI_Init, by MPI-3).
pub fn library_version() -> String {
    // SAFETY: the function has the C signature of MPI_Get_library_version.
    foreign::first_line(&unsafe { foreign::version_of(MPI_Get_library_version) })
}
