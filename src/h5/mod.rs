//! The HDF5 boundary. Every HDF5 call in the library goes through [`h5call!`] (and so
//! [`call`]), which holds dah5's global HDF5 lock (this HDF5 is not thread-safe), makes
//! sure the library is initialized with automatic error printing off, and turns a failure
//! into an [`Error`] carrying the HDF5 error stack, captured before the lock is released and
//! classified by its major and minor error codes.

/// Call an HDF5 function, named in the error after the function called (after hdf5-rust's
/// `h5call!`). The caller writes the `unsafe` block, with its `// SAFETY:` line above:
///
/// - `h5call!(unsafe { H5Fflush(id, scope) })`: fails when the value is negative;
/// - `h5call!(unsafe { H5Tget_size(t) }, fails if |size| size == 0)`: for a function
///   whose failure value is another;
/// - `h5call!(unsafe { H5Dopen2(file, name, dapl) }, closed by H5Dclose)`: an owned [`Id`].
///
/// [`Id`]: id::Id
macro_rules! h5call {
    // clippy does not look into unsafe blocks inside macros: tests/layers.rs checks that
    // every `h5call!(unsafe` has its SAFETY comment above it.
    (@name { $function:ident $($call:tt)* }) => {
        stringify!($function)
    };
    ($unsafe:tt $body:tt) => {
        $crate::h5::call(h5call!(@name $body), || $unsafe $body)
    };
    ($unsafe:tt $body:tt, fails if $failed:expr) => {
        $crate::h5::call_checked(h5call!(@name $body), || {
            let value = $unsafe $body;
            let failed = ($failed)(value);
            (value, failed)
        })
    };
    ($unsafe:tt $body:tt, closed by $closer:ident) => {
        $crate::h5::id::Id::create(
            h5call!(@name $body),
            const { &$crate::h5::id::Closer { close: $closer, name: stringify!($closer) } },
            || $unsafe $body,
        )
    };
}

pub mod attr;
pub mod dataset;
mod error_stack;
pub mod file;
pub mod group;
pub mod id;
pub mod plist;
pub mod scale;
pub mod space;
pub mod types;

pub(crate) use error_stack::STACK_ENV;

use std::ffi::CString;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, Once, PoisonError};

use hdf5_sys::h5::{H5dont_atexit, H5get_libversion, H5open};
use hdf5_sys::h5e::{H5E_DEFAULT, H5Eset_auto2};

use crate::error::{Error, Result};

/// A value an HDF5 function returns whose sign says whether it failed.
pub trait H5Return: Copy {
    fn failed(self) -> bool;
}

impl H5Return for i32 {
    /// `herr_t` and `htri_t`: negative on failure.
    fn failed(self) -> bool {
        self < 0
    }
}

impl H5Return for i64 {
    /// `hid_t`: negative on failure.
    fn failed(self) -> bool {
        self < 0
    }
}

impl H5Return for isize {
    /// `ssize_t`: negative on failure.
    fn failed(self) -> bool {
        self < 0
    }
}

/// The lock every HDF5 call is made under. Not reentrant, so it is never taken while held:
/// an `h5call!` body is one FFI call whose arguments take no lock (`tests/layers.rs`
/// checks), and HDF5's callbacks into dah5 (iteration, error walk, conversion exceptions)
/// make no `h5call!`. (hdf5-sys's reentrant `LOCK` finds its thread's id at every call: in
/// a shared library that is a `__tls_get_addr` call. Five calls a dataset in the metadata
/// loop; this lock saves 0.1k instructions and 20 L1i misses a dataset, bench/metacost.sh.)
static HDF5: Mutex<()> = Mutex::new(());

fn lock() -> MutexGuard<'static, ()> {
    // Poisoning guards nothing here: the lock protects HDF5, not a Rust value.
    HDF5.lock().unwrap_or_else(PoisonError::into_inner)
}

/// HDF5's collective section: held by the one thread of the process whose collective call
/// is acting (its HDF5 calls wait for the other ranks). Another thread's collective call
/// on another file would wait for the HDF5 lock inside, while the rank it waits for holds
/// its own lock for that other file's call: the ranks would wait for each other for ever.
/// So a collective call takes the section only if it is free, and acts only when every
/// rank took it (`core::collective::run`); independent calls need only the HDF5 lock.
static SECTION: Mutex<()> = Mutex::new(());

thread_local! {
    /// This thread holds the section (a collective call acting inside another's act).
    static IN_SECTION: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A hold on the collective section (see [`SECTION`]), released when dropped.
pub struct Section(Option<MutexGuard<'static, ()>>);

impl Drop for Section {
    fn drop(&mut self) {
        if self.0.is_some() {
            IN_SECTION.with(|held| held.set(false));
        }
    }
}

/// The collective section, if no other thread holds it (this thread may already).
pub fn try_enter_section() -> Option<Section> {
    if IN_SECTION.with(std::cell::Cell::get) {
        return Some(Section(None));
    }
    let guard = match SECTION.try_lock() {
        Ok(guard) => guard,
        Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => return None,
    };
    IN_SECTION.with(|held| held.set(true));
    Some(Section(Some(guard)))
}

/// The collective section, waiting for it (calls made without agreement: with threads
/// they can wait for each other across ranks, see docs/c-api.md#threads).
pub fn enter_section() -> Section {
    if IN_SECTION.with(std::cell::Cell::get) {
        return Section(None);
    }
    let guard = SECTION.lock().unwrap_or_else(PoisonError::into_inner);
    IN_SECTION.with(|held| held.set(true));
    Section(Some(guard))
}

/// Run one HDF5 call under the global lock; `what` names it in the error message (use
/// [`h5call!`], which names it).
pub fn call<T: H5Return>(what: &str, f: impl FnOnce() -> T) -> Result<T> {
    let _guard = lock();
    init();
    let value = f();
    if value.failed() {
        Err(error_stack::take(what))
    } else {
        Ok(value)
    }
}

/// Like [`call`], for calls whose failure is not signalled by a negative value.
pub fn call_checked<T>(what: &str, f: impl FnOnce() -> (T, bool)) -> Result<T> {
    let _guard = lock();
    init();
    let (value, failed) = f();
    if failed {
        Err(error_stack::take(what))
    } else {
        Ok(value)
    }
}

/// Set once `H5open` has run (see `init`).
static OPENED: Once = Once::new();
/// HDF5 registered its `atexit` handler (the program used HDF5 before dah5 did).
static CLOSES_AT_EXIT: AtomicBool = AtomicBool::new(false);

fn init() {
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

/// The HDF5 library version this process runs with, as "major.minor.release".
pub fn library_version() -> Result<String> {
    let (mut major, mut minor, mut release) = (0, 0, 0);
    // SAFETY: the three out-pointers are valid locals.
    h5call!(unsafe { H5get_libversion(&mut major, &mut minor, &mut release) })?;
    Ok(format!("{major}.{minor}.{release}"))
}

/// A name or path as HDF5 takes it: NUL-terminated, on the stack when it is short (most
/// are: this saves an allocation per HDF5 call that takes a name).
pub(crate) enum CName {
    Short([u8; SHORT_NAME]),
    Long(CString),
}

const SHORT_NAME: usize = 64;

impl CName {
    pub(crate) fn as_ptr(&self) -> *const std::ffi::c_char {
        match self {
            CName::Short(bytes) => bytes.as_ptr().cast(),
            CName::Long(name) => name.as_ptr(),
        }
    }
}

pub(crate) fn c_string(name: &str) -> Result<CName> {
    if name.as_bytes().contains(&0) {
        return Err(Error::invalid(format!("name {name:?} contains a NUL byte")));
    }
    if name.len() < SHORT_NAME {
        let mut bytes = [0u8; SHORT_NAME];
        bytes[..name.len()].copy_from_slice(name.as_bytes());
        return Ok(CName::Short(bytes));
    }
    CString::new(name)
        .map(CName::Long)
        .map_err(|_| Error::invalid(format!("name {name:?} contains a NUL byte")))
}
