//! One HDF5 call, made under the global lock (`library`), its failure turned into an error
//! with HDF5's error stack; and the collective section a collective call acts in.

use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::error::Result;
use crate::h5::error_stack;
use crate::h5::library::{init, lock};

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
