//! The C ABI: the only place with `extern "C"` functions. Each one is thin: it checks
//! pointers, turns C values into core types, calls core, and maps the error to a status.

pub mod attr;
pub mod block;
pub mod consts;
pub mod darray;
pub mod dataset;
pub mod direct;
pub mod file;
mod from_c;
pub mod group;
mod handles;
pub mod library;
pub mod options;
pub mod status;

use std::cell::RefCell;
use std::ffi::CString;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::core::collective::{self, Collective, Members};
use crate::core::dataset::Dataset;
use crate::core::process;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi::handles::{Handle, Held, Registry, Shared, registry, token};
pub(crate) use handles::handle_ptr;
pub use handles::{dah5_dataset, dah5_direct, dah5_file};

thread_local! {
    /// The message of this thread's last failure (set only on failure).
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Run the body of the C function `function`: a panic becomes `DAH5_ERR_PANIC`, an error
/// becomes its status and this thread's last error message. Nothing runs when the program's
/// MPI is not the one dah5 was built for: the first HDF5 or MPI call would crash.
pub(crate) fn boundary(function: &str, body: impl FnOnce() -> Result<()>) -> i32 {
    let checked_body = || process::check_abi().and_then(|()| body());
    let error = match catch_unwind(AssertUnwindSafe(checked_body)) {
        Ok(Ok(())) => return status::DAH5_OK,
        Ok(Err(e)) => e,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Error::new(
                ErrorKind::Panic,
                format!("internal error (please report): {what}"),
            )
        }
    };
    set_last_error(function, &error);
    status::of(error.kind)
}

/// The body of every collective C function on a handle: look the handle up, parse this
/// rank's arguments (`request`, given what the handle stands for; a failure takes part in
/// the agreement), run the call
/// (`core::collective::run`: check, agree, act), then hand the output to C (`deliver`).
/// The registry is locked only to find the handle and in `deliver`; the value, and its
/// communicator's turn, for the call.
pub(crate) fn collective<H: Handle, C: Collective<Target = H::Value>>(
    handle: *const H,
    request: impl FnOnce(&H::Value) -> Result<C>,
    deliver: impl FnOnce(&mut Registry, C::Output) -> Result<()>,
) -> i32
where
    H::Value: Members,
{
    boundary(C::NAME, || {
        let output = run_held(handle, |target| {
            let request = request(target);
            collective::run(target, request)
        })?;
        deliver(&mut registry(), output)
    })
}

/// Run `call` on what `handle` stands for, held, in its communicator's turn (see
/// `Comm::one_call_at_a_time`).
fn run_held<H: Handle, T>(
    handle: *const H,
    call: impl FnOnce(&mut H::Value) -> Result<T>,
) -> Result<T>
where
    H::Value: Members,
{
    let shared = handles::shared(handle)?;
    let mut target = handles::hold::<H>(&shared)?;
    let comm = target.comm().clone();
    let _turn = comm.one_call_at_a_time();
    call(&mut target)
}

/// As [`collective`], for a call this rank makes alone (an independent transfer): look
/// up, parse, check, act.
pub(crate) fn independent<H: Handle, C: Collective<Target = H::Value, Output = ()>>(
    handle: *const H,
    request: impl FnOnce(&H::Value) -> Result<C>,
) -> i32 {
    boundary(C::NAME, || {
        let shared = handles::shared(handle)?;
        let mut target = handles::hold::<H>(&shared)?;
        let request = request(&target);
        collective::run_alone(&mut *target, request)
    })
}

/// A handle whose collective close takes it out of the registry (`dah5_file_close`,
/// `dah5_dataset_close`): what differs between them in [`close`]'s steps.
pub(crate) trait Closable: Handle + Sized
where
    Self::Value: Members,
{
    /// The C function's name.
    const NAME: &'static str;
    /// What the agreement hands the close.
    type Agreed;

    /// The datasets closed with it, held from the start as every call holds its handle
    /// before it waits for its turn, so that a call on one from another thread ends first.
    /// (None, not an empty list: a dataset's close, on the metadata loop's path, then
    /// makes and drops no list.)
    fn closed_with(_token: u64) -> Option<Vec<Shared<Dataset>>> {
        None
    }

    /// The agreement (collective); nothing is taken out or closed when it fails.
    fn agree(value: &mut Self::Value) -> Result<Self::Agreed>;

    /// Take the handle (and what goes with it) out of the registry.
    fn take_out(registry: &mut Registry, token: u64) -> Result<()>;

    /// Close, after the agreement, with the datasets of [`Closable::closed_with`] (held:
    /// take them).
    fn close(
        value: Self::Value,
        datasets: Option<Vec<Held<Dataset>>>,
        agreed: Self::Agreed,
    ) -> Result<()>;
}

/// Close `handle` (collective): hold it and what closes with it, wait for its
/// communicator's turn, agree, take it out of the registry while held (a call on it from
/// another thread then finds it closed; `taken` runs then), and close.
pub(crate) fn close<H: Closable>(handle: *mut H, taken: impl FnOnce()) -> Result<()>
where
    H::Value: Members,
{
    let token = token(handle)?;
    let shared = handles::shared(handle)?;
    let mut open = handles::hold::<H>(&shared)?;
    let datasets = H::closed_with(token);
    let held = datasets.as_ref().map(|all| {
        all.iter()
            .filter_map(|d| handles::hold::<dah5_dataset>(d).ok())
            .collect()
    });
    let comm = open.comm().clone();
    let _turn = comm.one_call_at_a_time();
    let agreed = H::agree(&mut open)?;
    let closing = open.take();
    H::take_out(&mut registry(), token)?;
    taken();
    H::close(closing, held, agreed)
}

/// The body of a close's C function, given where the caller keeps the handle: NULL, or a
/// NULL handle there, is a no-op; else [`close`], which clears the caller's pointer once
/// the handle is out of the registry.
///
/// # Safety
/// `handle_out` is NULL or points to a readable and writable handle pointer.
pub(crate) unsafe fn close_out<H: Closable>(handle_out: *mut *mut H) -> i32
where
    H::Value: Members,
{
    boundary(H::NAME, || {
        if handle_out.is_null() {
            return Ok(());
        }
        // SAFETY: non-NULL and readable by the contract.
        let handle = unsafe { *handle_out };
        if handle.is_null() {
            return Ok(());
        }
        // SAFETY: non-NULL and writable by the contract.
        close(handle, || unsafe { *handle_out = std::ptr::null_mut() })
    })
}

/// The body of a local C function on a handle: look the handle up, then run `body` on
/// what it stands for (held: it waits for a call on the same handle in another thread).
pub(crate) fn local<H: Handle>(
    function: &str,
    handle: *const H,
    body: impl FnOnce(&H::Value) -> Result<()>,
) -> i32 {
    boundary(function, || {
        let shared = handles::shared(handle)?;
        let target = handles::hold::<H>(&shared)?;
        body(&target)
    })
}

/// The body of a local query of a dataset's dtype or shape: answered from its
/// [`handles::Facts`], which never waits for a call on the dataset in another thread.
pub(crate) fn dataset_facts(
    function: &str,
    handle: *const dah5_dataset,
    body: impl FnOnce(&handles::Facts) -> Result<()>,
) -> i32 {
    boundary(function, || body(registry().facts(handle)?))
}

fn set_last_error(function: &str, error: &Error) {
    let rank = match process::world_rank() {
        Some((rank, size)) => format!("rank {rank} of {size}"),
        None => "rank unknown".to_string(),
    };
    let text = format!("{function} ({rank}): {}", error.message).replace('\0', "\\0");
    let text = CString::new(text).unwrap_or_default();
    LAST_ERROR.with(|last| *last.borrow_mut() = text);
}

/// Run `f` with this thread's last error message.
pub(crate) fn with_last_error<R>(f: impl FnOnce(&CString) -> R) -> R {
    LAST_ERROR.with(|last| f(&last.borrow()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_and_errors_become_statuses_with_messages() {
        let status = boundary("dah5_test", || panic!("deliberate"));
        assert_eq!(status, status::DAH5_ERR_PANIC);
        let message = with_last_error(|m| m.to_string_lossy().into_owned());
        assert!(
            message.starts_with("dah5_test (rank unknown): internal error"),
            "{message}"
        );
        assert!(message.contains("deliberate"), "{message}");

        let status = boundary("dah5_other", || Err(Error::null("buf")));
        assert_eq!(status, status::DAH5_ERR_NULL_ARGUMENT);
        assert_eq!(boundary("dah5_fine", || Ok(())), status::DAH5_OK);
        let message = with_last_error(|m| m.to_string_lossy().into_owned());
        assert!(
            message.contains("dah5_other") && message.contains("buf is NULL"),
            "success keeps it: {message}"
        );
    }
}
