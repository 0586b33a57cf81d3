//! File functions of the C ABI.

use std::ffi::c_char;

use crate::core::collective::{self, Collective, Section};
use crate::core::dataset::Dataset;
use crate::core::file::{
    Access, CloseAgreed, CloseFile, CreateFile, File, FileCall, FileRequest, Flush, OpenFile,
    SetAtomic,
};
use crate::core::process;
use crate::core::shape::Order;
use crate::error::{Error, Result};
use crate::ffi::consts::{create_flags, open_flags};
use crate::ffi::handles::{self, Handle, Held, Registry, Shared, registry, try_registry};
use crate::ffi::options::{dah5_file_options, file_options};
use crate::ffi::{self, boundary, dah5_file, from_c, handle_ptr};

/// Shared body of create and open: parse this rank's arguments (keeping a local error for
/// the agreement), create or open collectively with `open`, register the handle.
///
/// # Safety
/// As for `dah5_file_create_with`.
unsafe fn open_file(
    function: &str,
    path: *const c_char,
    parse_flags: fn(u32) -> Result<(Access, Order)>,
    flags: u32,
    options: *const dah5_file_options,
    file_out: *mut *mut dah5_file,
    open: impl FnOnce(Result<FileRequest>) -> Result<File>,
) -> i32 {
    boundary(function, || {
        File::at_finalize(close_leaked)?;
        File::at_exit(left_open_at_exit);
        let request = (|| {
            // SAFETY: by this function's contract.
            let path = unsafe { from_c::string(path, "path") }?;
            let (access, order) = parse_flags(flags)?;
            // SAFETY: by this function's contract (options, and its mpi_hints string).
            let options = unsafe { file_options(options) }?;
            from_c::out(file_out, "file_out")?;
            Ok(FileRequest {
                path: path.to_string(),
                access,
                order,
                options,
            })
        })();
        let file = open(request)?;
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
/// @param path      NUL-terminated UTF-8 path; it may start with ROMIO's file-system type
///                  (`nfs:/scratch/x.h5`), which dah5 passes on to MPI-IO and takes off where
///                  it calls the operating system itself (Open MPI's default ompio does not
///                  take such prefixes: `OMPI_MCA_io=^ompio` chooses its ROMIO).
/// @param flags     `DAH5_TRUNC` to replace an existing file (default: `DAH5_ERR_ALREADY_EXISTS`
///                  if it exists), `DAH5_ORDER_F` for column-major arrays on this handle.
/// @param file_out  receives the handle on success; untouched on failure.
/// @return `DAH5_OK` or a negative `DAH5_ERR_*` status (see `dah5_last_error_message`):
///         `DAH5_ERR_IN_USE` when another handle, of this program or another job, has the
///         file open for writing (one writer at a time; the file is left as it is).
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
            CreateFile::NAME,
            path,
            create_flags,
            flags,
            options,
            file_out,
            |request| File::open(comm, request.map(FileCall::<true>::new)),
        )
    }
}

/// Open an existing HDF5 file for parallel I/O.
///
/// **Collective** over `comm`, like `dah5_file_create`.
///
/// A file another job is writing opens `DAH5_RDONLY` as of that job's last flush; once it
/// changes on storage, every call of this handle that reads it returns
/// `DAH5_ERR_FILE_CHANGED` (open it again). `DAH5_RDWR` is one writer at a time.
///
/// @param flags  `DAH5_RDONLY` (default) or `DAH5_RDWR`, optionally `| DAH5_ORDER_F`.
/// @return `DAH5_OK`, or e.g. `DAH5_ERR_NOT_FOUND`, `DAH5_ERR_NOT_HDF5`,
///         `DAH5_ERR_PERMISSION`, `DAH5_ERR_IN_USE` (`DAH5_RDWR` while another handle, of
///         this program or another job, has the file open for writing).
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
            OpenFile::NAME,
            path,
            open_flags,
            flags,
            options,
            file_out,
            |request| File::open(comm, request.map(FileCall::<false>::new)),
        )
    }
}

/// Write everything HDF5 holds for the file to storage. Afterwards a new opener of the file
/// sees all data written before the flush. Each rank also puts on storage (fsync) the
/// subfiles of subfiled darrays it wrote through this file. A failure is remembered and
/// reported again by `dah5_file_close`. Every rank's writes behind (`DAH5_ASYNC`) are
/// completed first (their buffers are the caller's again when this returns); one that
/// failed on any rank makes the flush fail on every rank, naming that rank (its own message
/// says why), and every later flush and the close too.
///
/// **Collective** over the file's communicator.
///
/// @return `DAH5_OK`, `DAH5_ERR_NULL_ARGUMENT`, `DAH5_ERR_INVALID_HANDLE`, or an I/O status.
#[unsafe(no_mangle)]
pub extern "C" fn dah5_file_flush(file: *mut dah5_file) -> i32 {
    ffi::collective(file, |_| Ok(Flush), |_, ()| Ok(()))
}

/// Wait until this rank's writes behind (`DAH5_ASYNC`) on the file are in it; then their
/// buffers are the caller's again. Returns the first failure of any of them (with its
/// message: which dataset, how many bytes where, and why), and again at every later wait,
/// flush and close: a failed write is sticky, and the close then fails on every rank.
///
/// **Local**: only this rank's writes, no communication; it never waits for another rank.
/// Other ranks see the data after `dah5_file_flush` (or in atomic mode, where
/// `DAH5_ASYNC` writes at once).
///
/// @return `DAH5_OK` (also when nothing was started), `DAH5_ERR_NULL_ARGUMENT`,
///         `DAH5_ERR_INVALID_HANDLE`, or the failed write's status (`DAH5_ERR_NO_SPACE`,
///         `DAH5_ERR_IO`, `DAH5_ERR_PERMISSION`, ...).
#[unsafe(no_mangle)]
pub extern "C" fn dah5_file_wait(file: *mut dah5_file) -> i32 {
    ffi::local("dah5_file_wait", file, File::wait_for_writes)
}

/// Close a file, and first every dataset of it still open (their handles become invalid).
/// Sets `*file = NULL`. NULL or `*file == NULL` is a no-op.
///
/// Every rank's writes behind (`DAH5_ASYNC`) are completed first. If an earlier write to
/// the file failed on any rank (also one behind the caller), the file is incomplete and
/// close returns that error on every rank, after releasing everything. If the ranks disagree
/// (`DAH5_ERR_COLLECTIVE_MISMATCH`) nothing is closed and `*file` is left as it was.
///
/// **Collective** over the file's communicator.
///
/// # Safety
/// `file` is NULL or points to a writable `dah5_file *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_file_close(file: *mut *mut dah5_file) -> i32 {
    // SAFETY: by this function's contract.
    unsafe { ffi::close_out(file) }
}

/// The file's close: its datasets close with it, and HDF5's collective section is held
/// from the agreement to the end.
impl ffi::Closable for dah5_file {
    const NAME: &'static str = CloseFile::NAME;
    type Agreed = (CloseAgreed, Section);

    fn closed_with(token: u64) -> Option<Vec<Shared<Dataset>>> {
        Some(registry().datasets_of(token))
    }

    fn agree(file: &mut File) -> Result<Self::Agreed> {
        collective::run_in_section(file, Ok(CloseFile))
    }

    fn take_out(registry: &mut Registry, token: u64) -> Result<()> {
        registry.remove_file(token)
    }

    fn close(file: File, datasets: Option<Vec<Held<Dataset>>>, agreed: Self::Agreed) -> Result<()> {
        let (agreed, _section) = agreed;
        // Taken while held: a call on one from another thread finds it closed.
        let datasets = datasets.into_iter().flatten().map(Held::take).collect();
        file.close(agreed, datasets)
    }
}

/// Close the files the program left open when it calls `MPI_Finalize` (run from MPI's
/// finalize hook, while MPI still works). Without this the HDF5 files would be closed at
/// exit, after MPI is gone: the job hung there and the files were left unreadable. Every
/// rank closes its files in the same (slot) order, as its own closes would have. A file
/// whose collective calls are out of step (a timeout) cannot be agreed on: it is left to
/// HDF5, which closes it in `MPI_Finalize` when every rank gets there; nothing here waits.
fn close_leaked() {
    let tokens = registry().file_tokens();
    if tokens.is_empty() {
        return;
    }
    let mut report = format!(
        "dah5: MPI_Finalize was called with {} dah5 file(s) still open (call \
         dah5_file_close before MPI_Finalize):",
        tokens.len()
    );
    for token in tokens {
        let handle: *mut dah5_file = handle_ptr(token);
        let Ok(shared) = handles::shared(handle) else {
            continue;
        };
        let Ok(path) = handles::hold::<dah5_file>(&shared).map(|f| f.path().to_string()) else {
            continue;
        };
        let closed = ffi::close(handle, || ());
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

/// Say which files this rank leaves open when it exits without `MPI_Finalize` (`exit()`, a
/// return from `main`, Fortran's `error stop`; run from atexit). They are not closed: a
/// close is collective, and the other ranks are not known to be anywhere near one (they
/// may wait in their own `MPI_Allreduce`), so MPI ends the job as it would without dah5.
/// Should HDF5 close them itself at exit (the program started HDF5 before dah5 did), this
/// rank ends at once instead, before that collective close could wait for ever.
fn left_open_at_exit() {
    // After MPI_Finalize the finalize hook has said what it could not close, and HDF5
    // closed those files there, where every rank was.
    if process::finalize_began() {
        return;
    }
    // Another thread may hold the registry (in a call); then only the count is unknown.
    let paths: Option<Vec<String>> = try_registry().map(|registry| {
        let tokens = registry.file_tokens();
        tokens
            .into_iter()
            .filter_map(|t| <dah5_file as Handle>::get(&registry, t).ok())
            .map(|shared| match shared.try_lock() {
                Ok(open) => open
                    .as_ref()
                    .map_or(String::new(), |f| format!("{:?}", f.path())),
                Err(_) => "a file in use by another thread".to_string(),
            })
            .filter(|path| !path.is_empty())
            .collect()
    });
    if paths.as_ref().is_some_and(Vec::is_empty) {
        return;
    }
    let rank = process::world_rank().map_or("?".to_string(), |(r, _)| r.to_string());
    let files = paths.map_or("dah5 files".to_string(), |p| p.join(", "));
    let report = format!(
        "dah5: rank {rank} exits without MPI_Finalize with {files} open: not closed (a close \
         is collective and the other ranks are not there); the data is as of the last \
         dah5_file_flush\n"
    );
    let _ = std::io::Write::write_all(&mut std::io::stderr(), report.as_bytes());
    if process::hdf5_closes_files_at_exit() {
        crate::os::exit_now(1);
    }
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
    let request = |_: &File| match atomic {
        0 => Ok(SetAtomic(false)),
        1 => Ok(SetAtomic(true)),
        _ => Err(Error::invalid(format!(
            "atomic = {atomic}: pass 1 (on) or 0 (off)"
        ))),
    };
    ffi::collective(file, request, |_, ()| Ok(()))
}
