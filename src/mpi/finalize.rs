//! A hook run when the program calls `MPI_Finalize`, while MPI still works. MPI deletes the
//! attributes of `MPI_COMM_SELF` first thing in `MPI_Finalize`; the delete callback of one
//! is how a library learns that MPI is about to go (MPI 4.1, section 11.2.4).

use std::ffi::{c_int, c_void};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use mpi_sys::{MPI_Comm, MPI_Comm_create_keyval, MPI_Comm_set_attr, RSMPI_COMM_SELF};

use crate::error::Result;
use crate::mpi::status::check;

static HOOK: OnceLock<fn()> = OnceLock::new();
/// The hook is registered (MPI was active then), and MPI_Finalize has begun running it.
static REGISTERED: AtomicBool = AtomicBool::new(false);
static FINALIZING: AtomicBool = AtomicBool::new(false);

/// Whether MPI is surely initialized and not finalizing, known without asking MPI: the hook
/// was registered and has not run. (When false, ask MPI.)
pub fn surely_active() -> bool {
    REGISTERED.load(Ordering::Acquire) && !FINALIZING.load(Ordering::Acquire)
}

/// Whether the program has called `MPI_Finalize` (the hook began to run).
pub fn finalize_began() -> bool {
    FINALIZING.load(Ordering::Acquire)
}

/// Run `hook` at `MPI_Finalize` (registered once per process; later calls do nothing).
pub fn on_finalize(hook: fn()) -> Result<()> {
    if HOOK.set(hook).is_err() {
        return Ok(());
    }
    let mut keyval: c_int = 0;
    // SAFETY: both callbacks have MPI's signatures; `keyval` receives the new key.
    check("MPI_Comm_create_keyval", unsafe {
        MPI_Comm_create_keyval(
            Some(no_copy),
            Some(at_finalize),
            &mut keyval,
            std::ptr::null_mut(),
        )
    })?;
    // SAFETY: MPI_COMM_SELF is valid while MPI is; the attribute value is unused.
    check("MPI_Comm_set_attr", unsafe {
        MPI_Comm_set_attr(RSMPI_COMM_SELF, keyval, std::ptr::null_mut())
    })?;
    REGISTERED.store(true, Ordering::Release);
    Ok(())
}

/// The attribute is never copied to a duplicate of MPI_COMM_SELF.
unsafe extern "C" fn no_copy(
    _comm: MPI_Comm,
    _keyval: c_int,
    _extra: *mut c_void,
    _value_in: *mut c_void,
    _value_out: *mut c_void,
    flag: *mut c_int,
) -> c_int {
    // SAFETY: MPI passes a valid pointer to the flag.
    unsafe { *flag = 0 };
    0
}

unsafe extern "C" fn at_finalize(
    _comm: MPI_Comm,
    _keyval: c_int,
    _value: *mut c_void,
    _extra: *mut c_void,
) -> c_int {
    FINALIZING.store(true, Ordering::Release);
    // A panic must not unwind into MPI.
    if let Some(hook) = HOOK.get() {
        let _ = std::panic::catch_unwind(hook);
    }
    0
}
