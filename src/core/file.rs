//! Files: collective create, open, flush and close, with agreement first and sticky failures.

use std::sync::{Arc, Mutex};

use crate::core::dataset::Dataset;
use crate::core::layout::Layout;
use crate::core::shape::Order;
use crate::core::space;
use crate::error::{Error, ErrorKind, Result};
use crate::h5;
use crate::h5::id::Id;
pub use crate::h5::plist::Tuning;
use crate::mpi;
use crate::mpi::agree::{agree, decode_failure, failure_word};
use crate::mpi::comm::Comm;
use crate::mpi::digest::Args;
use crate::mpi::info::Info;
pub use crate::mpi::info::{Hints, parse_hints};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Create a new file; an existing one is an error unless `truncate`.
    Create {
        truncate: bool,
    },
    Open {
        writable: bool,
    },
}

/// Everything a rank says when it creates or opens a file.
#[derive(Clone, Debug)]
pub struct FileRequest {
    pub path: String,
    pub access: Access,
    pub order: Order,
    pub tuning: Tuning,
    pub hints: Hints,
    /// MPI atomic mode from the start (see [`File::set_atomic`]).
    pub atomic: bool,
}

impl FileRequest {
    fn validate(self) -> Result<FileRequest> {
        if self.path.is_empty() {
            return Err(Error::invalid("path is empty"));
        }
        // Open MPI's MPI_File_open crashes (SIGSEGV in its error path) on a path longer than
        // PATH_MAX, so such paths never reach it.
        let max = libc::PATH_MAX as usize - 1;
        if self.path.len() > max {
            return Err(Error::invalid(format!(
                "path is {} bytes long; the longest path the system allows is {max} (PATH_MAX)",
                self.path.len()
            )));
        }
        if let Some(long) = self.path.split('/').find(|c| c.len() > 255) {
            return Err(Error::invalid(format!(
                "path has a component of {} bytes ({}...); the system allows 255 (NAME_MAX)",
                long.len(),
                &long[..long.floor_char_boundary(16)]
            )));
        }
        if std::path::Path::new(&self.path).is_dir() {
            return Err(Error::invalid(format!(
                "path {:?} is a directory, not a file",
                self.path
            )));
        }
        if self.tuning.alignment == 0 {
            return Err(Error::invalid("alignment = 0: it must be at least 1"));
        }
        Ok(self)
    }

    fn args<'a>(&'a self, operation: &'a str, hints: &'a str) -> Args<'a> {
        let flags = match self.access {
            Access::Create { truncate: true } => "create, DAH5_TRUNC",
            Access::Create { truncate: false } => "create",
            Access::Open { writable: true } => "open, DAH5_RDWR",
            Access::Open { writable: false } => "open, DAH5_RDONLY",
        };
        let t = &self.tuning;
        Args::of(operation)
            .text("path", &self.path)
            .text("flags", flags)
            .text(
                "order",
                if self.order == Order::Fortran {
                    "F"
                } else {
                    "C"
                },
            )
            .numbers("options.alignment", &[t.alignment_threshold, t.alignment])
            .number("options.meta_block_size", t.meta_block_size)
            .number("options.metadata_cache_bytes", t.metadata_cache_bytes)
            .number("options.atomic", self.atomic as u64)
            .number("options.file_locking", t.file_locking as u64)
            .text("options.mpi_hints", hints)
    }
}

/// Replace rather than truncate: rank 0 removes an existing regular file before it is
/// created again. ext4 (`auto_da_alloc`) writes back a file that was truncated to zero
/// when it is closed, which made every `H5Fclose` after `H5F_ACC_TRUNC` a full flush
/// (measured: 0.11 s more per 512 MiB file, against raw MPI-IO creating a new file). A
/// symlink, or a file that cannot be removed, is left to HDF5's truncation.
fn remove_existing(comm: &Comm, path: &str) -> Result<()> {
    if comm.rank() == 0 && std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file()) {
        let _ = std::fs::remove_file(path);
    }
    // Nobody opens the file before it is gone.
    comm.barrier()
}

/// What a file's datasets share with it: the communicator, the order of its arrays, and
/// the first failed write (reported again at close).
#[derive(Debug)]
pub struct FileShared {
    pub comm: Comm,
    pub order: Order,
    pub writable: bool,
    pub path: String,
    /// The free space dataset creates and attribute writes claim first.
    pub room: space::Room,
    failure: Mutex<Option<Error>>,
}

impl FileShared {
    /// Remember the first failure of a write, so that close reports it.
    pub fn record_failure(&self, error: &Error) {
        let mut failure = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        failure.get_or_insert_with(|| error.clone());
    }

    /// A failed metadata operation (create, attribute write): a full disk is said as such,
    /// and remembered like a failed write, since the file may then lack metadata.
    pub fn metadata_failure(&self, error: Error) -> Error {
        let error = space::classify(error, &self.path);
        if error.kind == ErrorKind::NoSpace {
            self.record_failure(&error);
        }
        error
    }

    fn failure(&self) -> Option<Error> {
        self.failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

#[derive(Debug)]
pub struct File {
    pub(crate) shared: Arc<FileShared>,
    pub(crate) id: Id,
    /// Made once per file: building HDF5 property lists costs about a third of a small
    /// dataset's create (measured with perf: skip lists and string hashing in H5P).
    pub(crate) lists: CreateLists,
}

/// The property lists of the common dataset create.
#[derive(Debug)]
pub struct CreateLists {
    /// Intermediate groups made.
    pub lcpl: Id,
    /// Contiguous, allocated early, never filled: dah5's default.
    pub contiguous: Id,
}

/// Proof that all ranks agreed to close, carrying the agreed sticky-failure word.
pub struct CloseAgreed {
    failure_word: u64,
}

impl File {
    /// Create or open (collective over the communicator with Fortran handle `comm`).
    /// `operation` is the C function's name, for the agreement and its messages; `request`
    /// is this rank's arguments, or the reason they are invalid here.
    pub fn open(comm: i32, operation: &str, request: Result<FileRequest>) -> Result<File> {
        mpi::ensure_active()?;
        let comm = Comm::from_fortran(comm)?;
        let request = request.and_then(FileRequest::validate);
        let hints = request.as_ref().map_or(String::new(), |r| {
            let pairs: Vec<String> = r.hints.iter().map(|(k, v)| format!("{k}={v}")).collect();
            pairs.join(";")
        });
        agree(
            &comm,
            operation,
            request.as_ref().map(|r| r.args(operation, &hints)),
            &[],
        )?;
        let request = request?;
        let info = Info::new(&request.hints)?;
        let writable = request.access != (Access::Open { writable: false });
        let fapl = h5::plist::file_access(comm.raw(), &info, &request.tuning, writable)?;
        if request.access == (Access::Create { truncate: true }) {
            remove_existing(&comm, &request.path)?;
        }
        let id = match request.access {
            Access::Create { truncate } => h5::file::create(&request.path, truncate, &fapl),
            Access::Open { writable } => h5::file::open(&request.path, writable, &fapl),
        }
        .map_err(|e| e.context(format_args!("path {:?}", request.path)))?;
        if request.atomic {
            h5::file::set_atomicity(&id, true)?;
        }
        Ok(File {
            shared: Arc::new(FileShared {
                comm,
                order: request.order,
                writable,
                room: space::Room::new(&request.path),
                path: request.path,
                failure: Mutex::new(None),
            }),
            id,
            lists: CreateLists {
                lcpl: h5::plist::link_create()?,
                contiguous: h5::plist::dataset_create(&Layout::contiguous(), false)?,
            },
        })
    }

    pub fn order(&self) -> Order {
        self.shared.order
    }

    fn args<'a>(&'a self, operation: &'a str) -> Args<'a> {
        Args::of(operation).text("file", &self.shared.path)
    }

    /// Turn MPI atomic mode on or off (collective). In atomic mode a write by one rank is
    /// visible to a read by another as soon as the write returns (MPI_File_set_atomicity);
    /// otherwise only after a flush (or close) and a barrier.
    pub fn set_atomic(&self, atomic: Result<bool>) -> Result<()> {
        let op = "dah5_file_set_atomic";
        let args = atomic
            .as_ref()
            .map(|&on| self.args(op).number("atomic", on as u64));
        agree(&self.shared.comm, op, args, &[])?;
        h5::file::set_atomicity(&self.id, atomic?)
    }

    /// Claim room on the disk for `what` (a dataset of `bytes`, or an attribute), counting
    /// the metadata HDF5 has not written yet (see `space::Room`). Local.
    pub(crate) fn claim_room(&self, what: &str, bytes: u64) -> Result<()> {
        let cached = h5::file::metadata_cache_bytes(&self.id)?;
        self.shared.room.claim(what, bytes, cached)
    }

    /// The path the file was created or opened with.
    pub fn path(&self) -> &str {
        &self.shared.path
    }

    /// Flush everything to storage (collective): afterwards a new opener sees the data.
    pub fn flush(&self) -> Result<()> {
        let op = "dah5_file_flush";
        agree(&self.shared.comm, op, Ok(self.args(op)), &[])?;
        h5::file::flush(&self.id)
            .map_err(|e| space::classify(e, &self.shared.path))
            .inspect_err(|e| self.shared.record_failure(e))
    }

    /// The agreement step of a close; nothing is closed when it fails.
    pub fn agree_to_close(&self) -> Result<CloseAgreed> {
        let op = "dah5_file_close";
        let sticky = match self.shared.failure() {
            Some(e) => failure_word(&self.shared.comm, e.kind),
            None => 0,
        };
        let agreed = agree(&self.shared.comm, op, Ok(self.args(op)), &[sticky])?;
        Ok(CloseAgreed {
            failure_word: agreed[0],
        })
    }

    /// Close the file and the given datasets of it (in the given order, which is the same on
    /// every rank). Reports the first failure of any earlier write on any rank, after
    /// releasing everything.
    pub fn close(self, agreed: CloseAgreed, datasets: Vec<Dataset>) -> Result<()> {
        let mut result = Ok(());
        for dataset in datasets {
            result = result.and(dataset.close());
        }
        result = result.and(self.id.close());
        result?;
        if agreed.failure_word == 0 {
            return Ok(());
        }
        let comm = &self.shared.comm;
        let (failed_rank, kind) = decode_failure(comm, agreed.failure_word);
        let own = self.shared.failure();
        Err(match own {
            Some(e) if failed_rank == comm.rank() => Error::new(
                e.kind,
                format!(
                    "an earlier write to this file failed, so the file is incomplete: {}",
                    e.message
                ),
            ),
            _ => Error::new(
                kind,
                format!(
                    "an earlier write to this file failed on rank {failed_rank}, so the file \
                     is incomplete (that rank's message says why)"
                ),
            ),
        })
    }
}
