//! Files: collective create, open, flush and close, with agreement first and sticky failures.

use std::sync::{Arc, Mutex};

use crate::core::dataset::Dataset;
use crate::core::digest::Digest;
use crate::core::error::{Error, Result};
use crate::core::shape::Order;
use crate::h5;
use crate::h5::id::Id;
use crate::mpi;
use crate::mpi::agree::{agree, decode_failure, failure_word};
use crate::mpi::comm::Comm;

/// Objects of at least this many bytes start at a multiple of `DEFAULT_ALIGNMENT`: the
/// dataset's raw data then starts on a file-system block boundary.
pub const DEFAULT_ALIGNMENT_THRESHOLD: u64 = 1 << 20;
pub const DEFAULT_ALIGNMENT: u64 = 1 << 20;

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
    pub alignment_threshold: u64,
    pub alignment: u64,
}

impl FileRequest {
    fn validate(self) -> Result<FileRequest> {
        if self.path.is_empty() {
            return Err(Error::invalid("path is empty"));
        }
        if self.alignment == 0 {
            return Err(Error::invalid("alignment = 0: it must be at least 1"));
        }
        Ok(self)
    }

    fn digest(&self, operation: &str) -> u64 {
        let (mode, flag) = match self.access {
            Access::Create { truncate } => (0, truncate),
            Access::Open { writable } => (1, writable),
        };
        Digest::of(operation)
            .bytes(self.path.as_bytes())
            .u64s(&[mode, flag as u64, (self.order == Order::Fortran) as u64])
            .u64s(&[self.alignment_threshold, self.alignment])
            .value()
    }
}

/// What a file's datasets share with it: the communicator, the order of its arrays, and
/// the first failed write (reported again at close).
#[derive(Debug)]
pub struct FileShared {
    pub comm: Comm,
    pub order: Order,
    pub writable: bool,
    pub path: String,
    failure: Mutex<Option<Error>>,
}

impl FileShared {
    /// Remember the first failure of a write, so that close reports it.
    pub fn record_failure(&self, error: &Error) {
        let mut failure = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        failure.get_or_insert_with(|| error.clone());
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
        agree(
            &comm,
            operation,
            request.as_ref().map(|r| r.digest(operation)),
            &[],
        )?;
        let request = request?;
        let fapl =
            h5::plist::file_access(comm.raw(), request.alignment_threshold, request.alignment)?;
        let id = match request.access {
            Access::Create { truncate } => h5::file::create(&request.path, truncate, &fapl),
            Access::Open { writable } => h5::file::open(&request.path, writable, &fapl),
        }
        .map_err(|e| e.context(format_args!("path {:?}", request.path)))?;
        let writable = request.access != (Access::Open { writable: false });
        Ok(File {
            shared: Arc::new(FileShared {
                comm,
                order: request.order,
                writable,
                path: request.path,
                failure: Mutex::new(None),
            }),
            id,
        })
    }

    pub fn order(&self) -> Order {
        self.shared.order
    }

    fn digest(&self, operation: &str) -> u64 {
        Digest::of(operation)
            .bytes(self.shared.path.as_bytes())
            .value()
    }

    /// Flush everything to storage (collective): afterwards a new opener sees the data.
    pub fn flush(&self) -> Result<()> {
        let op = "dah5_file_flush";
        agree(&self.shared.comm, op, Ok(self.digest(op)), &[])?;
        h5::file::flush(&self.id).inspect_err(|e| self.shared.record_failure(e))
    }

    /// The agreement step of a close; nothing is closed when it fails.
    pub fn agree_to_close(&self) -> Result<CloseAgreed> {
        let op = "dah5_file_close";
        let sticky = match self.shared.failure() {
            Some(e) => failure_word(&self.shared.comm, e.kind),
            None => 0,
        };
        let agreed = agree(&self.shared.comm, op, Ok(self.digest(op)), &[sticky])?;
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
