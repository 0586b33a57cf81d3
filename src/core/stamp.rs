//! What a read-only handle remembers of its file: size and the times of its last write and
//! change (ns), as each rank saw them just before HDF5 opened it, and an open descriptor
//! of it to look again. HDF5 keeps what it read of a file it opened read-only (metadata,
//! compressed chunks) and does not look again: after another job wrote and flushed, its
//! reads returned stale chunks and attributes beside new contiguous data, or failed in
//! inflate(); after a truncation they returned zeros. So every call of a read-only handle
//! that returns what the file holds (reads of blocks and attributes, the block table, a
//! dataset's open) compares the stamp first, one `fstat` of the descriptor (0.6 µs here;
//! a `stat` of the path cost 1.6 µs), and once it differs refuses with `FILE_CHANGED`:
//! close the handle and open the file again (which says `TRUNCATED` if it was cut short).
//!
//! The descriptor is the file HDF5 reads (checked once, after HDF5 opened it); a file
//! removed or replaced at its path while open changes too (its link count). What the stamp
//! cannot see: a write within the file system's timestamp granularity of the open (ext4
//! and xfs on Linux 6.1 stamp at the kernel's tick, a few ms) that leaves the size as it
//! was, and, on NFS, a change the client's attribute cache has not seen yet (`actimeo`,
//! seconds). A change during a read is seen by the next call.

use std::fs::{File, Metadata};
use std::os::unix::fs::MetadataExt;

use crate::error::{Error, ErrorKind, Result};
use crate::file_name;

/// A file's state, as `fstat` tells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Seen {
    size: u64,
    /// Last write and last change (of data or metadata), (s, ns).
    modified: (i64, i64),
    changed: (i64, i64),
    /// Its names: 0 once it was removed, or replaced by another file at its path.
    links: u64,
}

impl Seen {
    fn of(meta: &Metadata) -> Seen {
        Seen {
            size: meta.size(),
            modified: (meta.mtime(), meta.mtime_nsec()),
            changed: (meta.ctime(), meta.ctime_nsec()),
            links: meta.nlink(),
        }
    }
}

#[derive(Debug)]
pub struct Stamp {
    file: File,
    seen: Seen,
    /// The path named another file once HDF5 had opened it: what HDF5 read is not what
    /// the stamp saw.
    replaced: bool,
}

impl Stamp {
    /// The stamp of the file `name` (as given to dah5) now, before HDF5 opens it.
    pub fn take(name: &str) -> std::io::Result<Stamp> {
        let file = File::open(file_name::os_path(name))?;
        let seen = Seen::of(&file.metadata()?);
        Ok(Stamp {
            file,
            seen,
            replaced: false,
        })
    }

    /// After HDF5 opened `name`: whether it opened the file stamped (or one put in its
    /// place meanwhile, which every later check then refuses).
    pub fn confirm(mut self, name: &str) -> Stamp {
        let key = |meta: &Metadata| (meta.dev(), meta.ino());
        let stamped = self.file.metadata().map(|m| key(&m));
        let now = std::fs::metadata(file_name::os_path(name)).map(|m| key(&m));
        self.replaced = !matches!((stamped, now), (Ok(a), Ok(b)) if a == b);
        self
    }

    /// `Ok` while the file `name` is as this stamp says; else why not.
    pub fn check(&self, name: &str) -> Result<()> {
        let now = self.file.metadata().map(|m| Seen::of(&m));
        if !self.replaced && now.as_ref().is_ok_and(|now| *now == self.seen) {
            return Ok(());
        }
        Err(self.changed_to(name, now))
    }

    #[cold]
    fn changed_to(&self, name: &str, now: std::io::Result<Seen>) -> Error {
        let then = self.seen.size;
        let what = match now {
            _ if self.replaced => {
                "another file was put in its place while this handle opened it".to_string()
            }
            Err(e) => format!("it cannot be looked at now ({e})"),
            Ok(now) if now.links == 0 => {
                "it was removed, or replaced at its path (another job created it again?)"
                    .to_string()
            }
            // Not said to be truncated: HDF5 writers shrink files too (a flush cuts the file
            // to the space in use). Opening it again tells.
            Ok(now) if now.size < then => format!(
                "it shrank from {then} to {} bytes (truncated, or written anew by another job)",
                now.size
            ),
            Ok(now) if now.size != then => format!(
                "it grew from {then} to {} bytes (another job is writing it?)",
                now.size
            ),
            Ok(_) => "it was written (another job is writing it?)".to_string(),
        };
        Error::new(
            ErrorKind::FileChanged,
            format!(
                "the file {name:?} changed since this handle opened it: {what}; what this \
                 handle holds of it may be stale, so nothing was read: close the handle and \
                 open the file again"
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_tells_a_write_a_shrink_and_a_file_replaced_while_it_opened() {
        let dir = std::env::temp_dir().join(format!("dah5-stamp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.h5");
        let name = path.display().to_string();
        let write = |bytes: &[u8]| {
            use std::io::Write;
            let mut file = File::options().write(true).open(&path).unwrap();
            file.write_all(bytes).unwrap();
        };
        std::fs::write(&path, [1u8; 100]).unwrap();
        let stamp = Stamp::take(&name).unwrap().confirm(&name);
        stamp.check(&name).unwrap();
        write(&[2u8; 200]);
        let grown = stamp.check(&name).unwrap_err();
        assert_eq!(grown.kind, ErrorKind::FileChanged);
        assert!(grown.message.contains("grew from 100 to 200"), "{grown}");
        let stamp = Stamp::take(&name).unwrap().confirm(&name);
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(50)
            .unwrap();
        let shrunk = stamp.check(&name).unwrap_err();
        assert!(shrunk.message.contains("shrank from 200 to 50"), "{shrunk}");
        // Replaced after the stamp, before the open was confirmed (made before the old one
        // goes, so that it has an inode of its own).
        let stamp = Stamp::take(&name).unwrap();
        let other = dir.join("other.h5");
        std::fs::write(&other, [1u8; 50]).unwrap();
        std::fs::rename(&other, &path).unwrap();
        let stamp = stamp.confirm(&name);
        assert!(
            stamp
                .check(&name)
                .unwrap_err()
                .message
                .contains("another file")
        );
        // Replaced once open.
        let stamp = Stamp::take(&name).unwrap().confirm(&name);
        std::fs::write(&other, [3u8; 10]).unwrap();
        std::fs::rename(&other, &path).unwrap();
        let replaced = stamp.check(&name).unwrap_err();
        assert!(
            replaced.message.contains("removed, or replaced"),
            "{replaced}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
