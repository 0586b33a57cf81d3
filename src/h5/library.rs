//! HDF5 in this process: the lock every call is made under, the library opened once (error
//! printing and the `atexit` handler off), and its predefined ids read after it is open.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, Once, PoisonError};

use hdf5_sys::h5::{H5dont_atexit, H5open};
use hdf5_sys::h5e::{H5E_DEFAULT, H5Eset_auto2};

/// The lock every HDF5 call is made under. Not reentrant, so it is never taken while held:
/// an `h5call!` body is one FFI call whose arguments take no lock (`tests/layers.rs`
/// checks), and HDF5's callbacks into dah5 (iteration, error walk, conversion exceptions)
/// make no `h5call!`. (hdf5-sys's reentrant `LOCK` finds its thread's id at every call: in
/// a shared library that is a `__tls_get_addr` call. Five calls a dataset in the metadata
/// loop; this lock saves 0.1k instructions and 20 L1i misses a dataset, bench/metacost.sh.)
static HDF5: Mutex<()> = Mutex::new(());

pub(crate) fn lock() -> MutexGuard<'static, ()> {
    // Poisoning guards nothing here: the lock protects HDF5, not a Rust value.
    HDF5.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Set once `H5open` has run (see `init`).
static OPENED: Once = Once::new();
/// HDF5 registered its `atexit` handler (the program used HDF5 before dah5 did).
static CLOSES_AT_EXIT: AtomicBool = AtomicBool::new(false);

pub(crate) fn init() {
    OPENED.call_once(|| {
        // HDF5's atexit handler closes every open file, and closing a parallel file is
        // collective: a rank that called exit() with a file open waited there for ranks
        // that were not coming, and the job hung instead of ending. Without the handler
        // such a file stays as of its last flush; parallel HDF5 still shuts down in
        // MPI_Finalize (its own MPI_COMM_SELF hook), where every rank is.
        // SAFETY: H5dont_atexit only sets a flag; it fails when HDF5 is already running.
        let stopped = unsafe { H5dont_atexit() } >= 0;
        CLOSES_AT_EXIT.store(!stopped, Ordering::Release);
        // SAFETY: called under the global HDF5 lock; H5open has no preconditions, and a NULL
        // handler turns off HDF5's printing of errors to stderr (we report them ourselves).
        unsafe {
            H5open();
            H5Eset_auto2(H5E_DEFAULT, None, std::ptr::null_mut());
        }
    });
}

/// Whether HDF5 will close the files still open when the process exits, collectively:
/// only when the program initialized HDF5 itself before dah5 did (see `init`).
pub fn closes_files_at_exit() -> bool {
    open_library();
    CLOSES_AT_EXIT.load(Ordering::Acquire)
}

/// Initialize HDF5 now (it is otherwise initialized by the first call). Parallel HDF5
/// registers its own `MPI_Finalize` hook when it starts, and hooks run in reverse order, so
/// a hook that must run before HDF5 shuts down is registered after this.
pub fn open_library() {
    let _guard = lock();
    init();
}

/// One of HDF5's predefined ids (a native type, a property list class, an error code): a
/// global that `H5open` sets. hdf5-sys declares these globals immutable, so the compiler may
/// read one before the call that opens HDF5: with fat LTO, read directly, `dah5 info`'s
/// first `H5Pcreate` got the class id from before `H5open` ("not a property list class").
/// Read here after opening HDF5, by a volatile read, which the compiler keeps after the
/// opaque `H5open` call. Every read of such a global goes through here.
pub fn predefined(id: &'static hdf5_sys::h5i::hid_t) -> hdf5_sys::h5i::hid_t {
    // An acquire load: nothing after it is read before it.
    if !OPENED.is_completed() {
        open_library();
    }
    // SAFETY: `id` is a global of libhdf5: valid, aligned and readable for the whole run.
    unsafe { std::ptr::read_volatile(id) }
}
