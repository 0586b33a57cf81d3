//! File functions of the C ABI.

use std::ffi::c_char;

use crate::core::file::{File, FileRequest};
use crate::error::Result;
use crate::ffi::consts::{create_flags, dah5_file_options, file_options, open_flags};
use crate::ffi::handles::registry;
use crate::ffi::{args, boundary, dah5_file, handle_ptr};

/// Fill `options_out` with the defaults (1 MiB alignment threshold and alignment).
///
/// Local.
///
/// @return `DAH5_OK`, or `DAH5_ERR_NULL_ARGUMENT`.
///
/// # Safety
/// `options_out` is NULL or points to a writable `dah5_file_options`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_file_options_default(options_out: *mut dah5_file_options) -> i32 {
    boundary("dah5_file_options_default", || {
        args::out(options_out, "options_out")?;
        // SAFETY: checked non-NULL; the caller gives a writable struct.
        unsafe { *options_out = dah5_file_options::default() };
        Ok(())
    })
}

/// Shared body of create and open: parse this rank's arguments (keeping a local error for
/// the agreement), open collectively, register the handle.
///
/// # Safety
/// As for `dah5_file_create_with`.
unsafe fn open_file(
    function: &str,
    comm: i32,
    path: *const c_char,
    parse_flags: fn(u32) -> Result<(crate::core::file::Access, crate::core::shape::Order)>,
    flags: u32,
    options: *const dah5_file_options,
    file_out: *mut *mut dah5_file,
) -> i32 {
    boundary(function, || {
        if crate::mpi::is_active() {
            // After HDF5's own finalize hook, so that ours runs first (hooks run in reverse).
            crate::h5::open_library();
            crate::mpi::finalize::on_finalize(close_leaked)?;
        }
        let request = (|| {
            // SAFETY: by this function's contract.
            let path = unsafe { args::string(path, "path") }?;
            let (access, order) = parse_flags(flags)?;
            // SAFETY: by this function's contract (options, and its mpi_hints string).
            let (tuning, hints, atomic) = unsafe { file_options(&args::options(options)) }?;
            args::out(file_out, "file_out")?;
            Ok(FileRequest {
                path: path.to_string(),
                access,
                order,
                tuning,
                hints,
                atomic,
            })
        })();
        let file = File::open(comm, function, request)?;
        let token = registry().insert_file(file);
        // SAFETY: `file_out` was checked non-NULL, and agreement made it so on every rank.
        unsafe { *file_out = handle_ptr(token) };
        Ok(())
    })
}

/// Create an HDF5 file for parallel I/O.
///
/// **Collective** over `comm`: every rank calls with the same path, flags and options. If
/// any rank's arguments are invalid, or ranks disagree, every rank returns the same error
/// and no file is created.
///
/// @param comm      the communicator's Fortran handle: `MPI_Comm_c2f(comm)` from C (or use
///                  `dah5_mpi.h`), the integer from Fortran, `MPI.API.MPI_Comm_c2f(comm)` from
///                  Julia. dah5 duplicates it.
/// @param path      NUL-terminated UTF-8 path.
/// @param flags     `DAH5_TRUNC` to replace an existing file (default: `DAH5_ERR_ALREADY_EXISTS`
///                  if it exists), `DAH5_ORDER_F` for column-major arrays on this handle.
/// @param file_out  receives the handle on success; untouched on failure.
/// @return `DAH5_OK` or a negative `DAH5_ERR_*` status (see `dah5_last_error_message`).
///
/// # Safety
/// `path` is NULL or NUL-terminated; `file_out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_file_create(
    comm: i32,
    path: *const c_char,
    flags: u32,
    file_out: *mut *mut dah5_file,
) -> i32 {
    // SAFETY: same contract.
    unsafe { dah5_file_create_with(comm, path, flags, std::ptr::null(), file_out) }
}

/// `dah5_file_create` with options (NULL means the defaults of `dah5_file_options_default`).
///
/// **Collective** over `comm`, options included.
///
/// # Safety
/// As `dah5_file_create`; `options` is NULL or points to a `dah5_file_options`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_file_create_with(
    comm: i32,
    path: *const c_char,
    flags: u32,
    options: *const dah5_file_options,
    file_out: *mut *mut dah5_file,
) -> i32 {
    // SAFETY: same contract.
    unsafe {
        open_file(
            "dah5_file_create",
            comm,
            path,
            create_flags,
            flags,
            options,
            file_out,
        )
    }
}

/// Open an existing HDF5 file for parallel I/O.
///
/// **Collective** over `comm`, like `dah5_file_create`.
///
/// @param flags  `DAH5_RDONLY` (default) or `DAH5_RDWR`, optionally `| DAH5_ORDER_F`.
/// @return `DAH5_OK`, or e.g. `DAH5_ERR_NOT_FOUND`, `DAH5_ERR_NOT_HDF5`,
///         `DAH5_ERR_PERMISSION`.
///
/// # Safety
/// As `dah5_file_create`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_file_open(
    comm: i32,
    path: *const c_char,
    flags: u32,
    file_out: *mut *mut dah5_file,
) -> i32 {
    // SAFETY: same contract.
    unsafe { dah5_file_open_with(comm, path, flags, std::ptr::null(), file_out) }
}

/// `dah5_file_open` with options (NULL means the defaults).
///
/// **Collective** over `comm`, options included.
///
/// # Safety
/// As `dah5_file_create_with`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_file_open_with(
    comm: i32,
    path: *const c_char,
    flags: u32,
    options: *const dah5_file_options,
    file_out: *mut *mut dah5_file,
) -> i32 {
    // SAFETY: same contract.
    unsafe {
        open_file(
            "dah5_file_open",
            comm,
            path,
            open_flags,
            flags,
            options,
            file_out,
        )
    }
}

/// Write everything HDF5 holds for the file to storage. Afterwards a new opener of the file
/// sees all data written before the flush. A failure is remembered and reported again by
/// `dah5_file_close`.
///
/// **Collective** over the file's communicator.
///
/// @return `DAH5_OK`, `DAH5_ERR_NULL_ARGUMENT`, `DAH5_ERR_INVALID_HANDLE`, or an I/O status.
#[unsafe(no_mangle)]
pub extern "C" fn dah5_file_flush(file: *mut dah5_file) -> i32 {
    boundary("dah5_file_flush", || {
        args::out(file, "file")?;
        registry().file(file.addr() as u64)?.flush()
    })
}

/// Close a file, and first every dataset of it still open (their handles become invalid).
/// Sets `*file = NULL`. NULL or `*file == NULL` is a no-op.
///
/// If an earlier write to the file failed on any rank, the file is incomplete and close
/// returns that error on every rank, after releasing everything. If the ranks disagree
/// (`DAH5_ERR_COLLECTIVE_MISMATCH`) nothing is closed and `*file` is left as it was.
///
/// **Collective** over the file's communicator.
///
/// # Safety
/// `file` is NULL or points to a writable `dah5_file *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_file_close(file: *mut *mut dah5_file) -> i32 {
    boundary("dah5_file_close", || {
        if file.is_null() {
            return Ok(());
        }
        // SAFETY: non-NULL and readable by the contract.
        let token = unsafe { *file }.addr() as u64;
        if token == 0 {
            return Ok(());
        }
        let mut registry = registry();
        let agreed = registry.file(token)?.agree_to_close()?;
        let (handle, datasets) = registry.remove_file(token)?;
        // SAFETY: non-NULL and writable by the contract.
        unsafe { *file = std::ptr::null_mut() };
        handle.close(agreed, datasets)
    })
}

/// Close the files the program left open when it calls `MPI_Finalize` (run from MPI's
/// finalize hook, while MPI still works). Without this the HDF5 files would be closed at
/// exit, after MPI is gone: the job hung there and the files were left unreadable. Every
/// rank closes its files in the same (slot) order, as its own closes would have. A file
/// whose collective calls are out of step (a timeout) cannot be agreed on: it is left to
/// HDF5, which closes it in `MPI_Finalize` when every rank gets there; nothing here waits.
fn close_leaked() {
    let mut registry = registry();
    let tokens = registry.file_tokens();
    if tokens.is_empty() {
        return;
    }
    let mut report = format!(
        "dah5: MPI_Finalize was called with {} dah5 file(s) still open (call \
         dah5_file_close before MPI_Finalize):",
        tokens.len()
    );
    for token in tokens {
        let Ok(path) = registry.file(token).map(|f| f.path().to_string()) else {
            continue;
        };
        let closed = registry
            .file(token)
            .and_then(|f| f.agree_to_close())
            .and_then(|agreed| {
                let (handle, datasets) = registry.remove_file(token)?;
                handle.close(agreed, datasets)
            });
        report.push_str(&match closed {
            Ok(()) => format!(" dah5 closed {path:?}."),
            Err(e) => format!(
                " dah5 could not close {path:?} ({}); data written since its last \
                 successful dah5_file_flush may be missing.",
                e.message
            ),
        });
    }
    report.push('\n');
    // One write: the ranks' lines must not interleave.
    let _ = std::io::Write::write_all(&mut std::io::stderr(), report.as_bytes());
}

/// Turn MPI atomic mode on (`atomic` = 1) or off (0) for the file. In atomic mode, data one
/// rank writes is seen by another rank's read as soon as the write has returned (and the
/// ranks have synchronized, e.g. with a barrier); without it, only after `dah5_file_flush`
/// (or close) and a barrier. Atomic mode makes writes slower. `DAH5_ATOMIC` in the file
/// options turns it on from the start.
///
/// **Collective** over the file's communicator, with the same value on every rank.
#[unsafe(no_mangle)]
pub extern "C" fn dah5_file_set_atomic(file: *mut dah5_file, atomic: i32) -> i32 {
    boundary("dah5_file_set_atomic", || {
        args::out(file, "file")?;
        let on = match atomic {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(crate::error::Error::invalid(format!(
                "atomic = {atomic}: pass 1 (on) or 0 (off)"
            ))),
        };
        registry().file(file.addr() as u64)?.set_atomic(on)
    })
}
