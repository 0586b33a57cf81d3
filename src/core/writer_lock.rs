//! One writer at a time. While a handle has a file open for writing, rank 0 of its
//! communicator holds a write lock on one byte of the file far past any data, taken before
//! HDF5 opens, creates or replaces it. A second writer, through another handle of this
//! program or in another job, gets `DAH5_ERR_IN_USE` on every rank and the file is left as
//! it is: two HDF5 writers of one file each write their own metadata over the other's (the
//! datasets made through one of them vanish), and a create with `DAH5_TRUNC` replaced a
//! file another job was still writing. Readers (`DAH5_RDONLY`) take no lock: they may read
//! while a job writes (`core::stamp` tells them when what they read went stale).
//!
//! The lock is an OFD lock (`os::try_lock_open_file`): it is not dropped when HDF5 or
//! MPI-IO close a descriptor of the file, and a second open in the same process conflicts
//! with it. It is advisory: only dah5 writers keep to it. Where the file system has no
//! byte-range locks (the call fails: ENOLCK, ENOSYS, EOPNOTSUPP, ...), and where file
//! locking is turned off (`DAH5_NO_FILE_LOCKING`, `HDF5_USE_FILE_LOCKING=FALSE`: also for
//! file systems whose locks hang), writers open unprotected.

use std::fs::{File, OpenOptions};
use std::io::ErrorKind as IoKind;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;
use std::sync::Mutex;

use crate::error::{Error, ErrorKind, Result};
use crate::file_name;

/// The locked byte, 4 EiB into the file: past the data of any file, so that no byte-range
/// lock on data (direct mode's, or another program's) meets it.
const LOCKED_BYTE: u64 = 1 << 62;

/// HDF5's switch for its own file locks, which turns dah5's off too.
const HDF5_LOCKING_ENV: &str = "HDF5_USE_FILE_LOCKING";

/// The files this process holds writer locks on, by (device, inode), so that a second
/// writer in this program is told so.
static HELD: Mutex<Vec<(u64, u64)>> = Mutex::new(Vec::new());

/// Who holds the lock a writer could not take (its number travels in an agreement).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    ThisProgram = 1,
    Elsewhere = 2,
}

impl Holder {
    pub fn from_number(number: u64) -> Holder {
        if number == Holder::ThisProgram as u64 {
            Holder::ThisProgram
        } else {
            Holder::Elsewhere
        }
    }

    fn of(key: (u64, u64)) -> Holder {
        if held().contains(&key) {
            Holder::ThisProgram
        } else {
            Holder::Elsewhere
        }
    }

    /// The error of a writer that found the file `name` locked by this holder.
    #[cold]
    pub fn error(self, name: &str) -> Error {
        let message = match self {
            Holder::ThisProgram => format!(
                "the file {name:?} is already open for writing in this program, through \
                 another dah5_file handle: close that handle first (two writers of one file \
                 each overwrite what the other wrote); DAH5_RDONLY opens it for reading"
            ),
            Holder::Elsewhere => format!(
                "the file {name:?} is open for writing by another job (or by another handle \
                 of this program on other ranks): dah5 lets one writer at a time have a file. \
                 Wait until it is closed, or use another name; DAH5_RDONLY opens it for \
                 reading as of its last flush"
            ),
        };
        Error::new(ErrorKind::InUse, format!("{message}. Nothing was done"))
    }
}

fn held() -> std::sync::MutexGuard<'static, Vec<(u64, u64)>> {
    HELD.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether writers lock their files: `file_locking` (off with `DAH5_NO_FILE_LOCKING`), unless
/// `HDF5_USE_FILE_LOCKING` turns locks off (`FALSE` or `0`, as HDF5 reads it).
pub fn wanted(file_locking: bool) -> bool {
    file_locking
        && !matches!(
            std::env::var(HDF5_LOCKING_ENV).as_deref(),
            Ok("FALSE" | "0")
        )
}

/// A writer's lock on its file, held until dropped.
#[derive(Debug)]
pub struct WriterLock {
    /// The open that holds the lock: closing it releases the lock.
    file: File,
    /// Its (device, inode), as listed in `HELD`.
    key: (u64, u64),
}

impl Drop for WriterLock {
    fn drop(&mut self) {
        let mut held = held();
        if let Some(i) = held.iter().position(|&k| k == self.key) {
            held.swap_remove(i);
        }
    }
}

fn key_of(meta: &std::fs::Metadata) -> (u64, u64) {
    (meta.dev(), meta.ino())
}

impl WriterLock {
    /// Lock `file`, just opened: `Ok(None)` where its file system takes no locks.
    fn take(file: File) -> std::result::Result<Option<WriterLock>, Holder> {
        let Ok(meta) = file.metadata() else {
            return Ok(None);
        };
        let key = key_of(&meta);
        match crate::os::try_lock_open_file(&file, LOCKED_BYTE, 1) {
            Ok(true) => {
                held().push(key);
                Ok(Some(WriterLock { file, key }))
            }
            Ok(false) => Err(Holder::of(key)),
            Err(_) => Ok(None),
        }
    }

    /// Whether the file at `path` is still the one locked.
    fn still_at(&self, path: &Path) -> bool {
        let locked = self.file.metadata().map(|m| key_of(&m));
        std::fs::metadata(path).is_ok_and(|m| locked.is_ok_and(|k| k == key_of(&m)))
    }
}

/// Lock the file `name` (as given to dah5) as it is now, before it is opened for writing or
/// replaced: `Ok(None)` when there is no such regular file, or it cannot be opened for
/// writing (HDF5 then says why) or locked; `Err` with the holder when another writer has it.
pub fn lock_existing(name: &str) -> std::result::Result<Option<WriterLock>, Holder> {
    let path = Path::new(file_name::os_path(name));
    // A file replaced between its open and its lock is locked again as it is then.
    for _ in 0..3 {
        // Only a regular file is opened here (a device or a FIFO is left to HDF5).
        if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
            return Ok(None);
        }
        let Ok(file) = OpenOptions::new().read(true).write(true).open(path) else {
            return Ok(None);
        };
        match WriterLock::take(file)? {
            Some(lock) if !lock.still_at(path) => continue,
            lock => return Ok(lock),
        }
    }
    // Replaced again and again: another job is making it.
    Err(Holder::Elsewhere)
}

/// Rank 0's part of a create, before HDF5 creates the file `name`: replace an existing
/// file (`truncate`, locking it first: `held`, the lock the check took, if it is still
/// that file) or refuse one (`ALREADY_EXISTS`), then make the new, empty file and lock it
/// (with `locking`). HDF5 then creates over an empty file, which it need not truncate.
/// `Ok(None)`: the file cannot be locked, or not made here (HDF5 then says why).
pub fn make_new(
    name: &str,
    truncate: bool,
    held: Option<WriterLock>,
    locking: bool,
) -> Result<Option<WriterLock>> {
    let path = Path::new(file_name::os_path(name));
    let in_use = |holder: Holder| holder.error(name);
    if truncate {
        let old = match held {
            Some(lock) if lock.still_at(path) => Some(lock),
            _ if locking => lock_existing(name).map_err(in_use)?,
            _ => None,
        };
        remove_regular(path);
        drop(old);
    }
    let created = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(0o666)
        .open(path);
    match created {
        // Locked through an open of its own, the creating descriptor closed first: on
        // GlusterFS every other open of a file while its O_CREAT open is still open reads
        // through the host's page cache, stale once another host wrote (the FUSE client
        // gives direct I/O to such opens only after the create's descriptor is closed;
        // docs/gluster.md). Another job may lock it in between: then it is that job's.
        Ok(file) if locking => {
            drop(file);
            lock_existing(name).map_err(in_use)
        }
        Ok(_) => Ok(None),
        // Made again since it was removed (then locked as any existing file), or left to
        // HDF5's truncation (a symlink, a file that cannot be removed).
        Err(e) if e.kind() == IoKind::AlreadyExists && truncate => match locking {
            true => lock_existing(name).map_err(in_use),
            false => Ok(None),
        },
        Err(e) if e.kind() == IoKind::AlreadyExists => Err(Error::new(
            ErrorKind::AlreadyExists,
            format!(
                "the file {name:?} exists already (pass DAH5_TRUNC to replace it, or use \
                 another name). Nothing was done"
            ),
        )),
        Err(_) => Ok(None),
    }
}

/// Replace rather than truncate: an existing regular file is removed before it is created
/// again. ext4 (`auto_da_alloc`) writes back a file that was truncated to zero when it is
/// closed, which made every `H5Fclose` after `H5F_ACC_TRUNC` a full flush (measured:
/// 0.11 s more per 512 MiB file, against raw MPI-IO creating a new file). A symlink, or a
/// file that cannot be removed, is left to HDF5's truncation.
fn remove_regular(path: &Path) {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file()) {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_in_this_process_is_refused_and_said_to_be_ours() {
        let dir = std::env::temp_dir().join(format!("dah5-writer-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let name = dir.join("x.h5").display().to_string();
        let first = make_new(&name, true, None, true).unwrap();
        assert!(first.is_some(), "this file system takes OFD locks");
        assert_eq!(lock_existing(&name).unwrap_err(), Holder::ThisProgram);
        let again = make_new(&name, true, None, true).unwrap_err();
        assert_eq!(again.kind, ErrorKind::InUse);
        assert!(
            again.message.contains("in this program"),
            "{}",
            again.message
        );
        let exclusive = make_new(&name, false, None, true).unwrap_err();
        assert_eq!(exclusive.kind, ErrorKind::AlreadyExists);
        drop(first);
        assert!(lock_existing(&name).unwrap().is_some());
        assert!(held().is_empty());
        // Locking off: nothing is locked, the file is still made.
        assert!(make_new(&name, true, None, false).unwrap().is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
