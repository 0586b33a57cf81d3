//! Free space on the file system of a file, from statvfs. HDF5 says only "file write
//! failed" when a disk is full, and a collective close after such a failure can hang inside
//! HDF5 (a rank that failed to write metadata skips a barrier the others wait in). So dah5
//! checks for room before it creates a large dataset, and names a full disk when a write
//! fails.

use std::sync::Mutex;
use std::time::Duration;

use crate::error::{Error, ErrorKind, Result};
use crate::file_name;
use crate::os;

/// Room kept free beyond a dataset's data, for the file's metadata and alignment.
const METADATA_MARGIN: u64 = 1 << 20;

/// Datasets at least this big reserve their blocks when created (the alignment threshold
/// is the same size).
const RESERVED_SIZE: u64 = 1 << 20;

/// How long a statvfs answer is trusted while the disk has plenty of room.
const TRUSTED_FOR: Duration = Duration::from_millis(100);

/// What one dataset create or attribute write is assumed to add to the file's metadata.
const METADATA_PER_CALL: u64 = 4096;

/// How far beyond what a call needs the file's blocks are reserved at once (see
/// [`Room::reserve_ahead`]): one fallocate per this much growth, little enough beside
/// [`METADATA_MARGIN`] that the free-space checks, which see it as taken, do not refuse much
/// sooner.
const RESERVE_AHEAD: u64 = 256 << 10;

/// Bytes an unprivileged writer can still use on the file system holding `path` (its
/// directory, when the file does not exist yet).
pub fn free_bytes(path: &str) -> Option<u64> {
    os::free_bytes(file_name::file_or_directory(path)).ok()
}

/// Refuse `what` (of `bytes` of data) unless `free` leaves room for the metadata HDF5
/// still holds in memory (`cached`) and the margin after it.
fn refuse_unless_room(free: u64, path: &str, what: &str, bytes: u64, cached: u64) -> Result<()> {
    if free >= bytes.saturating_add(cached).saturating_add(METADATA_MARGIN) {
        return Ok(());
    }
    Err(Error::new(
        ErrorKind::NoSpace,
        format!(
            "{what} needs {bytes} bytes, the metadata not yet written {cached}, and \
             {METADATA_MARGIN} more are kept for metadata, but the file system of {path:?} \
             has {free} bytes free (statvfs)"
        ),
    ))
}

/// Refuse a dataset of `bytes` that cannot fit in the file system of the file `path`
/// (one process: direct mode).
pub fn check_room(path: &str, name: &str, bytes: u64) -> Result<()> {
    match free_bytes(path) {
        Some(free) => refuse_unless_room(free, path, &format!("dataset {name:?}"), bytes, 0),
        None => Ok(()),
    }
}

/// The free space of one open file's file system, as one rank sees it. Every dataset
/// create and attribute write claims its room first, so that a disk without the metadata
/// margin refuses them with `DAH5_ERR_NO_SPACE` instead of failing inside HDF5: HDF5 1.10
/// cannot recover from a failed metadata write (the file could not be opened again, or
/// H5Fclose crashed, in our tests). statvfs is asked again when its last answer is older
/// than [`TRUSTED_FOR`] or the claims since bring it near the limit, so a run of small
/// creates costs about one syscall per 100 ms.
#[derive(Debug)]
pub struct Room {
    path: String,
    /// The most HDF5's metadata cache can hold: metadata that may still have to be written.
    cache_limit: u64,
    /// When statvfs last answered ([`os::coarse_clock`]), and what it said minus what was
    /// claimed since.
    known: Mutex<Option<(Duration, u64)>>,
    /// How far rank 0 reserved the file's blocks ([`Room::reserve_ahead`]), and the file
    /// it reserves them through (opened once, at the file's create or open).
    reserved: Mutex<Reserved>,
}

#[derive(Debug, Default)]
struct Reserved {
    file: Option<std::fs::File>,
    /// Where HDF5 allocates next, reckoned: the file's size at open plus what every claim
    /// since said it adds, brought down to [`Room::allocation_bound`] whenever it reaches
    /// what is reserved (the MPI-IO driver does not tell HDF5's end of allocation:
    /// `H5Fget_eoa` wants a SWMR driver, and `H5Fget_filesize` fails once the driver forgot
    /// the file's size after a write).
    end: u64,
    /// The data of the datasets too small to reserve at their own offset, since the open:
    /// allocated when created, maybe not written yet.
    small_data: u64,
    to: u64,
}

impl Room {
    /// The room of the file `path`, whose metadata cache holds at most `cache_limit` bytes.
    pub fn new(path: &str, cache_limit: u64) -> Room {
        Room {
            path: path.to_string(),
            cache_limit,
            known: Mutex::new(None),
            reserved: Mutex::default(),
        }
    }

    /// Make this rank the one that reserves the file's blocks (rank 0, at open), reckoning
    /// where HDF5 allocates from the file's size now: nothing is reserved when the file
    /// cannot be opened for writing here.
    pub fn reserve_from_here(&self) {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(file_name::os_path(&self.path))
            .ok();
        let mut reserved = self.reserved.lock().unwrap_or_else(|e| e.into_inner());
        reserved.end = file
            .as_ref()
            .and_then(|f| f.metadata().ok())
            .map_or(0, |m| m.len());
        // What the file holds is its own already: reserving from its start would put blocks
        // in the holes HDF5 left between aligned objects (a 16 MiB alignment's gaps took
        // 60 MiB of disk at a reopen), which nothing ever writes.
        reserved.to = reserved.end;
        reserved.file = file;
    }

    /// Reserve the file's blocks (fallocate, keeping its size) for a call that makes HDF5
    /// allocate `data` bytes of a small dataset's data and some metadata
    /// ([`METADATA_PER_CALL`]), and [`RESERVE_AHEAD`] more when it must reserve at all.
    /// The metadata HDF5 holds in memory is written at a flush or close
    /// into space it allocated before: if another program fills the disk meanwhile, that
    /// write fails, and HDF5 1.10 does not recover (the collective close hung, or crashed
    /// in MPI_Finalize, and the file could not be opened). Reserved, those blocks are the
    /// file's, and so are those of the small datasets' data. One rank reserves for the
    /// file (it is one file on storage), through a descriptor it keeps. `cached` is the
    /// bytes of HDF5's metadata cache, asked only when the reckoning reaches what is
    /// reserved.
    pub fn reserve_ahead(
        &self,
        data: u64,
        cached: impl FnOnce() -> Result<u64>,
        what: impl FnOnce() -> String,
    ) -> Result<()> {
        let mut reserved = self.reserved.lock().unwrap_or_else(|e| e.into_inner());
        let Some(file) = &reserved.file else {
            return Ok(());
        };
        let grows_by = data.saturating_add(METADATA_PER_CALL);
        let mut wanted = reserved.end.saturating_add(grows_by);
        if wanted > reserved.to {
            let bound = Room::allocation_bound(file, reserved.small_data, cached()?);
            wanted = reserved.end.min(bound).saturating_add(grows_by);
            // A step ahead as soon as the bound is within half a step of what is reserved,
            // not only past it: the reckoning (4 KiB a call, ten times what the metadata
            // loop's calls add) then reaches what is reserved again half a step later at
            // the soonest, not at the next call (an fstat each: 112 a file of the loop).
            if wanted > reserved.to.saturating_sub(RESERVE_AHEAD / 2) {
                match reserve_from(file, reserved.to, wanted) {
                    Ok(to) => reserved.to = to,
                    Err(e) if matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT)) => {
                        return Err(Error::new(
                            ErrorKind::NoSpace,
                            format!(
                                "{} needs room for its data and metadata, but the file system \
                                 of {:?} has none left to reserve (fallocate: {e}); nothing was \
                                 done, and the file holds everything written before",
                                what(),
                                self.path
                            ),
                        ));
                    }
                    // A file system that cannot reserve (EOPNOTSUPP, e.g. NFSv3): nothing
                    // is reserved, and it is not tried again.
                    Err(_) => reserved.to = u64::MAX,
                }
            }
        }
        reserved.end = wanted;
        reserved.small_data = reserved.small_data.saturating_add(data);
        Ok(())
    }

    /// How far HDF5 can have allocated in `file`: what the file holds, plus what HDF5's
    /// metadata cache holds (`cached`: the metadata not yet written, and more), plus the
    /// small datasets' data (`small_data`), which HDF5 allocated at their create and
    /// writes only when the program does, plus a call's worth for the partly used blocks
    /// of HDF5's metadata and small-data aggregators. Reckoning with what each call was
    /// assumed to add alone (4 KiB) reserved 20 times what the file needed in the
    /// metadata loop (400 bytes a dataset), and giving it back at the close cost more.
    fn allocation_bound(file: &std::fs::File, small_data: u64, cached: u64) -> u64 {
        let size = file.metadata().map_or(u64::MAX, |m| m.len());
        size.saturating_add(cached)
            .saturating_add(small_data)
            .saturating_add(METADATA_PER_CALL)
    }

    /// Note a dataset's data reserved at its own `offset` ([`reserve`]): HDF5 allocates
    /// beyond it, after the alignment that the reckoning of [`Room::reserve_ahead`] lacks.
    pub fn reserved_at(&self, offset: u64, len: u64) {
        let mut reserved = self.reserved.lock().unwrap_or_else(|e| e.into_inner());
        let end = offset.saturating_add(len);
        reserved.end = reserved.end.max(end);
        reserved.to = reserved.to.max(end);
    }

    /// Give back the blocks reserved beyond the file's end (after its close): a truncate to
    /// its own size frees them.
    pub fn release_reserved(&self) {
        let mut reserved = self.reserved.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(file) = reserved.file.take()
            && reserved.to > 0
        {
            let _ = file.metadata().and_then(|m| file.set_len(m.len()));
        }
    }

    /// Claim room for what `what` says (asked only when refused), which adds `bytes` of data
    /// and some metadata, while HDF5's metadata cache holds bytes that may still have to be
    /// written: `cached` says how many, and is asked only when the disk has less room than
    /// the cache could ever hold.
    pub fn claim(
        &self,
        what: impl FnOnce() -> String,
        bytes: u64,
        cached: impl FnOnce() -> Result<u64>,
    ) -> Result<()> {
        let need = bytes.saturating_add(METADATA_PER_CALL);
        let roomy = |free: u64| {
            free >= need
                .saturating_add(self.cache_limit)
                .saturating_add(2 * METADATA_MARGIN)
        };
        let now = os::coarse_clock();
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        let trusted = known.filter(|&(when, free)| now < when + TRUSTED_FOR && roomy(free));
        let (when, free) = match trusted {
            Some(known) => known,
            None => match free_bytes(&self.path) {
                Some(free) => (now, free),
                None => return Ok(()),
            },
        };
        if !roomy(free) {
            refuse_unless_room(free, &self.path, &what(), bytes, cached()?)?;
        }
        *known = Some((when, free.saturating_sub(need)));
        Ok(())
    }
}

/// Reserve `file`'s blocks from `start` (what is reserved) to [`RESERVE_AHEAD`] beyond
/// `needed`, or, short of that, to `needed`: the end of what is reserved now.
fn reserve_from(file: &std::fs::File, start: u64, needed: u64) -> std::io::Result<u64> {
    let to = needed.saturating_add(RESERVE_AHEAD);
    match os::allocate_beyond_end(file, start, to - start) {
        Ok(()) => Ok(to),
        Err(_) if needed <= start => Ok(start),
        Err(_) => os::allocate_beyond_end(file, start, needed - start).map(|()| needed),
    }
}

/// Whether a dataset of `bytes` gets its space reserved at create (see [`reserve`]).
pub fn worth_reserving(bytes: u64) -> bool {
    bytes >= RESERVED_SIZE
}

/// Reserve the file system blocks for `len` bytes at `offset` of the file `path`
/// (`fallocate`), so that writing them later cannot run out of space. statvfs alone is not
/// enough: an allocated dataset takes no blocks until it is written, so several datasets
/// created before any is written all pass the free-space check, and the writes then fail
/// (Open MPI's ompio only prints the ENOSPC) and the collective close hangs. Where the file
/// system cannot reserve (EOPNOTSUPP, e.g. NFSv3), nothing is reserved and `Ok` returned.
pub fn reserve(path: &str, name: &str, offset: u64, len: u64) -> Result<()> {
    let Ok(file) = std::fs::OpenOptions::new()
        .write(true)
        .open(file_name::os_path(path))
    else {
        return Ok(());
    };
    match os::allocate(&file, offset, len) {
        Err(e) if matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT)) => Err(Error::new(
            ErrorKind::NoSpace,
            format!(
                "dataset {name:?} needs {len} bytes but the file system of {path:?} cannot \
                     hold them (fallocate: {e}); the dataset was not created"
            ),
        )),
        _ => Ok(()),
    }
}

/// A failed write or flush, as `DAH5_ERR_NO_SPACE` when the file system of `path` is full.
pub fn classify(error: Error, path: &str) -> Error {
    let full = free_bytes(path).is_some_and(|free| free < METADATA_MARGIN);
    if full && matches!(error.kind, ErrorKind::Hdf5 | ErrorKind::Io) {
        Error::new(
            ErrorKind::NoSpace,
            format!(
                "the file system of {path:?} is full (statvfs: {} bytes free): {}",
                free_bytes(path).unwrap_or(0),
                error.message
            ),
        )
    } else {
        error
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dataset_larger_than_the_disk_is_refused() {
        let free = free_bytes("Cargo.toml").expect("statvfs of the project directory");
        assert!(check_room("new.h5", "x", 4096).is_ok());
        let error = check_room("new.h5", "x", free.saturating_add(1 << 40)).unwrap_err();
        assert_eq!(error.kind, ErrorKind::NoSpace);
        assert!(error.message.contains("statvfs"), "{}", error.message);
        // Only a full disk turns a write error into NO_SPACE.
        let io = Error::new(ErrorKind::Io, "write failed");
        assert_eq!(classify(io, "Cargo.toml").kind, ErrorKind::Io);
    }

    #[test]
    fn claims_add_up_until_statvfs_is_asked_again() {
        let room = Room::new("Cargo.toml", 1 << 20);
        let free = free_bytes("Cargo.toml").expect("statvfs of the project directory");
        let nothing_cached = || Ok(0);
        room.claim(|| "dataset \"a\"".into(), 4096, nothing_cached)
            .unwrap();
        // A claim of all that is left (by the books) is refused even without a new statvfs.
        let error = room
            .claim(|| "dataset \"b\"".into(), free, nothing_cached)
            .unwrap_err();
        assert_eq!(error.kind, ErrorKind::NoSpace);
        assert!(
            error.message.contains("dataset \"b\" needs"),
            "{}",
            error.message
        );
    }
}
