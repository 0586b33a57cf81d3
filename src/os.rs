//! The operating-system calls dah5 makes itself (not through HDF5 or MPI): free space, the
//! file system's type and units, reserving blocks, byte-range locks, the exit hook, and the
//! environment's settings. The only module outside `h5` and `mpi` with unsafe code; each
//! call is a thin wrapper.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

use crate::error::{Error, Result};

/// The value of the environment variable `name`, without the spaces around it; `None` when
/// it is unset or empty. A value that is not UTF-8 is refused, naming the variable.
pub fn setting(name: &str) -> Result<Option<String>> {
    match std::env::var(name) {
        Ok(value) if value.trim().is_empty() => Ok(None),
        Ok(value) => Ok(Some(value.trim().to_string())),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(value)) => Err(Error::invalid(format!(
            "{name}={value:?} is not UTF-8 text: set it to a value dah5 reads, or unset it"
        ))),
    }
}

/// The switch in the environment variable `name`: `None` when unset or empty, else on (`on`,
/// `1`, `yes`, `true`) or off (`off`, `0`, `no`, `false`), in any case. Any other value is
/// refused, naming the variable and the values it takes.
pub fn switch(name: &str) -> Result<Option<bool>> {
    let Some(value) = setting(name)? else {
        return Ok(None);
    };
    match value.to_ascii_lowercase().as_str() {
        "on" | "1" | "yes" | "true" => Ok(Some(true)),
        "off" | "0" | "no" | "false" => Ok(Some(false)),
        _ => Err(Error::invalid(format!(
            "{name}={value:?} is not a switch: set it to on or off (or 1/0, yes/no, \
             true/false), or unset it"
        ))),
    }
}

/// Whether the switch `name` is off. A value [`switch`] refuses counts as not off here: it
/// is refused where a file is created or opened (`core::environment`).
pub fn switched_off(name: &str) -> bool {
    matches!(switch(name), Ok(Some(false)))
}

static EXIT_HOOK: OnceLock<fn()> = OnceLock::new();

/// Run `hook` when the process exits through `exit()` or a return from `main` (atexit;
/// registered once per process, later calls do nothing).
pub fn at_exit(hook: fn()) {
    if EXIT_HOOK.set(hook).is_ok() {
        // SAFETY: `run_exit_hook` is an `extern "C" fn()` that never unwinds.
        unsafe { libc::atexit(run_exit_hook) };
    }
}

/// End the process at once with `status`, running no exit handler (`_exit`).
pub fn exit_now(status: i32) -> ! {
    // SAFETY: _exit has no preconditions and does not return.
    unsafe { libc::_exit(status) }
}

extern "C" fn run_exit_hook() {
    // A panic must not unwind into libc's exit.
    if let Some(hook) = EXIT_HOOK.get() {
        let _ = std::panic::catch_unwind(hook);
    }
}

/// The time since some fixed point, at the resolution of the kernel's tick (a few ms):
/// `CLOCK_MONOTONIC_COARSE`, read without a syscall and at a fraction of `Instant::now`'s
/// cost, for checks made at every call that need no precision.
pub fn coarse_clock() -> Duration {
    clock(libc::CLOCK_MONOTONIC_COARSE)
}

/// The wall clock (since 1970), at the resolution of the kernel's tick:
/// `CLOCK_REALTIME_COARSE`, as cheap as [`coarse_clock`].
pub fn coarse_wall_clock() -> Duration {
    clock(libc::CLOCK_REALTIME_COARSE)
}

fn clock(id: libc::clockid_t) -> Duration {
    // SAFETY: timespec is plain data, filled by the call below.
    let mut now: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: a valid clock id and a pointer to a live timespec; the call cannot fail then.
    unsafe { libc::clock_gettime(id, &mut now) };
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))
}

/// Bytes an unprivileged writer can still use on the file system holding `dir` (statvfs).
pub fn free_bytes(dir: &Path) -> io::Result<u64> {
    let c_dir = c_path(dir)?;
    // SAFETY: statvfs is plain data, filled by the call below.
    let mut stats: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a pointer to a live statvfs.
    if unsafe { libc::statvfs(c_dir.as_ptr(), &mut stats) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(stats.f_bavail.saturating_mul(stats.f_frsize))
}

/// The number of CPUs online in this machine (whatever this process's affinity allows).
pub fn online_cpus() -> usize {
    // SAFETY: sysconf has no preconditions.
    let online = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    usize::try_from(online).unwrap_or(1).max(1)
}

/// The type of the file system holding `path` (statfs's `f_type`: a magic number such as
/// Lustre's 0x0BD00BD0) and the size of I/O it prefers for `path` (stat's `st_blksize`).
pub fn file_system(path: &Path) -> io::Result<(u64, u64)> {
    let c_path = c_path(path)?;
    // SAFETY: statfs is plain data, filled by the call below.
    let mut stats: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a pointer to a live statfs.
    if unsafe { libc::statfs(c_path.as_ptr(), &mut stats) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let preferred = std::os::unix::fs::MetadataExt::blksize(&std::fs::metadata(path)?);
    Ok((stats.f_type as u64, preferred))
}

/// The value of the extended attribute `name` of `path` (getxattr), if it has one of at
/// most 64 KiB (the most Linux stores).
pub fn extended_attribute(path: &Path, name: &str) -> Option<Vec<u8>> {
    let c_path = c_path(path).ok()?;
    let c_name = CString::new(name).ok()?;
    let mut value = vec![0u8; 64 << 10];
    // SAFETY: NUL-terminated path and name, and a live buffer of the length passed.
    let len = unsafe {
        libc::getxattr(
            c_path.as_ptr(),
            c_name.as_ptr(),
            value.as_mut_ptr().cast(),
            value.len(),
        )
    };
    let len = usize::try_from(len).ok()?;
    value.truncate(len);
    Some(value)
}

/// Allocate the file system blocks of `len` bytes at `offset` of `file` (fallocate, mode
/// 0: the file grows if needed), so that writing them later cannot run out of space.
pub fn allocate(file: &File, offset: u64, len: u64) -> io::Result<()> {
    fallocate(file, 0, offset, len)
}

/// As [`allocate`], leaving the file's size as it is (`FALLOC_FL_KEEP_SIZE`): blocks
/// reserved beyond the end, which a truncate to the file's own size gives back.
pub fn allocate_beyond_end(file: &File, offset: u64, len: u64) -> io::Result<()> {
    fallocate(file, libc::FALLOC_FL_KEEP_SIZE, offset, len)
}

fn fallocate(file: &File, mode: libc::c_int, offset: u64, len: u64) -> io::Result<()> {
    let too_big = || io::Error::from(io::ErrorKind::FileTooLarge);
    let start = libc::off_t::try_from(offset).map_err(|_| too_big())?;
    let size = libc::off_t::try_from(len).map_err(|_| too_big())?;
    // SAFETY: `file` is an open descriptor; `start` and `size` are valid offsets.
    if unsafe { libc::fallocate(file.as_raw_fd(), mode, start, size) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Take (`write` true, waiting for it) or release an advisory fcntl lock on `len` bytes at
/// `start` of `file`.
pub fn lock_range(file: &File, write: bool, start: u64, len: u64) -> io::Result<()> {
    set_lock(file, libc::F_SETLKW, write, start, len)
}

/// [`lock_range`] as a lock of this open of the file (`F_OFD_SETLKW`): it conflicts with
/// the locks of every other open of the file and with every process's fcntl locks, this
/// process's own included (MPI-IO's, on its own descriptor), and closing another
/// descriptor of the file does not drop it.
pub fn lock_open_file_range(file: &File, write: bool, start: u64, len: u64) -> io::Result<()> {
    set_lock(file, libc::F_OFD_SETLKW, write, start, len)
}

/// An fcntl lock `command` taking a write lock (or releasing one) on `len` bytes at `start`.
fn set_lock(
    file: &File,
    command: libc::c_int,
    write: bool,
    start: u64,
    len: u64,
) -> io::Result<()> {
    // SAFETY: flock is plain data; every field the call reads is set below (l_pid 0, as
    // OFD locks require).
    let mut lock: libc::flock = unsafe { std::mem::zeroed() };
    lock.l_type = if write { libc::F_WRLCK } else { libc::F_UNLCK } as libc::c_short;
    lock.l_whence = libc::SEEK_SET as libc::c_short;
    lock.l_start = start as libc::off_t;
    lock.l_len = len as libc::off_t;
    loop {
        // SAFETY: a valid descriptor and a pointer to a live flock.
        if unsafe { libc::fcntl(file.as_raw_fd(), command, &lock) } == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Take a write lock on `len` bytes at `start` of `file` without waiting (`F_OFD_SETLK`):
/// `Ok(false)` when another open of the file holds a lock there, in this process or another.
/// Unlike [`lock_range`]'s, this lock belongs to this open of the file, not to the process:
/// closing another descriptor of the file (as HDF5 and MPI-IO do) does not drop it, and a
/// second open in the same process conflicts with it. It goes when `file` is closed.
pub fn try_lock_open_file(file: &File, start: u64, len: u64) -> io::Result<bool> {
    // SAFETY: flock is plain data; every field the call reads is set below (l_pid 0, as
    // OFD locks require).
    let mut lock: libc::flock = unsafe { std::mem::zeroed() };
    lock.l_type = libc::F_WRLCK as libc::c_short;
    lock.l_whence = libc::SEEK_SET as libc::c_short;
    lock.l_start = start as libc::off_t;
    lock.l_len = len as libc::off_t;
    loop {
        // SAFETY: a valid descriptor and a pointer to a live flock.
        if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_OFD_SETLK, &lock) } == 0 {
            return Ok(true);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EAGAIN) | Some(libc::EACCES) => return Ok(false),
            Some(libc::EINTR) => continue,
            _ => return Err(e),
        }
    }
}
