//! MPI's state in this process: whether it runs (every call checks), starting and ending it
//! for the `dah5` command, and what the world and the library are.

use mpi_sys::{
    MPI_Finalize, MPI_Finalized, MPI_Get_library_version, MPI_Init, MPI_Initialized,
    RSMPI_COMM_WORLD, RSMPI_Comm_c2f,
};

use crate::error::{Error, ErrorKind, Result};
use crate::mpi::foreign::{self, check_abi};
use crate::mpi::{finalize, status::check};

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
