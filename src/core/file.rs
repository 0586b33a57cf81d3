//! Files: collective create, open, flush and close, with agreement first and sticky failures.

use std::cell::{RefCell, RefMut};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::core::alignment;
use crate::core::closing::{CloseWithFile, Closes, HeldCloses};
use crate::core::collective::{self, Agreed, Args, Collective, Members};
use crate::core::disk_space;
use crate::core::environment;
use crate::core::layout::Layout;
use crate::core::shape::Order;
use crate::core::stamp::Stamp;
use crate::core::write_behind::WriteBehind;
use crate::core::writer_lock::{self, Holder, WriterLock};
use crate::error::{Error, ErrorKind, Result};
use crate::file_name;
use crate::h5;
use crate::h5::id::{Id, hid_t};
pub use crate::h5::plist::Tuning;
use crate::inline_storage::Name;
use crate::mpi;
use crate::mpi::agree::{decode_failure, failure_word};
use crate::mpi::comm::Comm;
use crate::mpi::info::Info;
pub use crate::mpi::info::{Hints, file_sync_from_env, parse_hints};

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
    pub options: FileOptions,
}

/// How a file is opened: the file options of the C API.
#[derive(Clone, Debug)]
pub struct FileOptions {
    pub tuning: Tuning,
    pub hints: Hints,
    /// MPI atomic mode from the start (see [`SetAtomic`]).
    pub atomic: bool,
    /// The cross-rank agreement of every collective call (see `core::collective`); off
    /// with `DAH5_NO_CHECKS` or `DAH5_CHECKS=off`.
    pub checks: bool,
    /// `HDF5_DO_MPI_FILE_SYNC` as this rank reads it (`mpi::info::file_sync_from_env`),
    /// agreed at open: ranks that disagree on it would disagree on which writes must be
    /// collective (`FileShared::writes_visible_at_once`).
    pub file_sync: Option<bool>,
}

/// Whether the environment leaves the checks on.
pub fn checks_from_env() -> bool {
    !crate::os::switched_off(environment::CHECKS_ENV)
}

impl FileRequest {
    fn validate(self) -> Result<FileRequest> {
        environment::check()?;
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
        let alignment = self.options.tuning.alignment;
        if alignment > alignment::LARGEST_BY_HAND {
            return Err(Error::invalid(format!(
                "options.alignment = {alignment} is more than 4 GiB (Lustre's largest stripe \
                 size): objects would start that far apart. Pass the file system's stripe or \
                 block size, or 0 to let dah5 choose it"
            )));
        }
        if std::path::Path::new(file_name::os_path(&self.path)).is_dir() {
            return Err(Error::invalid(format!(
                "path {:?} is a directory, not a file",
                self.path
            )));
        }
        Ok(self)
    }

    /// Whether a writer of this file locks it (`core::writer_lock`).
    fn writer_locking(&self) -> bool {
        writer_lock::wanted(self.options.tuning.file_locking)
    }

    fn args(&self, name: &'static str) -> Args<'_> {
        let flags = match self.access {
            Access::Create { truncate: true } => "create, DAH5_TRUNC",
            Access::Create { truncate: false } => "create",
            Access::Open { writable: true } => "open, DAH5_RDWR",
            Access::Open { writable: false } => "open, DAH5_RDONLY",
        };
        let options = &self.options;
        let hints: Vec<String> = options
            .hints
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let t = &options.tuning;
        Args::of(name)
            .text("path", &self.path)
            .text("flags", flags)
            .text("order", self.order.letter())
            .number("options.alignment_threshold", t.alignment_threshold)
            .number("options.alignment", t.alignment)
            .number("options.meta_block_size", t.meta_block_size)
            .number("options.metadata_cache_bytes", t.metadata_cache_bytes)
            .number("options.atomic", options.atomic as u64)
            .number("options.checks", options.checks as u64)
            .text(
                mpi::info::FILE_SYNC_ENV,
                match options.file_sync {
                    Some(true) => "1",
                    Some(false) => "0",
                    None => "unset",
                },
            )
            .number("options.file_locking", t.file_locking as u64)
            .text("options.mpi_hints", hints.join(";"))
    }
}

/// How a mismatch of [`place_of`] is named.
const PLACE: &str = "the file the path names (its inode, or its directory's for a create; \
                     one file on every rank, whatever its working directory)";

/// Which file `path` names on this rank, as a number the ranks can compare: the inode number
/// of the file (an open) or of the directory it goes in (a create), 0 when there is none.
/// Ranks whose path names different files (other working directories, a node-local copy)
/// hung in `MPI_File_open`, or each wrote its metadata into its own file. Inode numbers are
/// the file system's, the same on every client of a shared one.
fn place_of(path: &str, create: bool) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let place = match create {
        true => file_name::directory_of(path),
        false => std::path::Path::new(file_name::os_path(path)),
    };
    std::fs::metadata(place).map_or(0, |m| m.ino())
}

/// `dah5_file_create` (`CREATE`) or `dah5_file_open`: a rank's request for a file.
pub struct FileCall<const CREATE: bool> {
    request: FileRequest,
    /// Rank 0's writer lock on the file as it is (`core::writer_lock`), taken by the check
    /// of a call that writes it, or who holds it.
    lock: std::result::Result<Option<WriterLock>, Holder>,
    /// The alignment rank 0 chose from the file system (`core::alignment`) where the options
    /// leave it to dah5; 0 on the other ranks, or when the options set one.
    alignment: u64,
    /// Which file the path names on this rank ([`place_of`]), compared by the agreement.
    place: u64,
}

pub type CreateFile = FileCall<true>;
pub type OpenFile = FileCall<false>;

impl<const CREATE: bool> FileCall<CREATE> {
    pub fn new(request: FileRequest) -> Self {
        FileCall {
            request,
            lock: Ok(None),
            alignment: 0,
            place: 0,
        }
    }
}

impl<const CREATE: bool> Collective for FileCall<CREATE> {
    const NAME: &'static str = if CREATE {
        "dah5_file_create"
    } else {
        "dah5_file_open"
    };
    // Rank 0's lock taken or not, and the alignment it chose, travel as the maximum, so
    // that every rank can say who has the file and uses that alignment (see `local_max`).
    const NEEDS_MAX: bool = true;
    type Target = Arc<Comm>;
    type Output = File;

    fn check(self, comm: &Arc<Comm>) -> Result<Self> {
        let request = self.request.validate()?;
        let replaces = matches!(
            request.access,
            Access::Create { truncate: true } | Access::Open { writable: true }
        );
        let first = comm.rank() == 0;
        let lock = if replaces && first && request.writer_locking() {
            writer_lock::lock_existing(&request.path)
        } else {
            Ok(None)
        };
        let alignment = if first && request.options.tuning.alignment == 0 {
            alignment::for_file(&request.path)
        } else {
            0
        };
        let place = place_of(&request.path, CREATE);
        Ok(FileCall {
            request,
            lock,
            alignment,
            place,
        })
    }

    fn args<'a>(&'a self, _comm: &'a Arc<Comm>) -> Args<'a> {
        self.request.args(Self::NAME).number(PLACE, self.place)
    }

    /// Who holds the file, if another writer does (`Holder` as a number, 1 or 2), else 0;
    /// and the alignment chosen, in the bits above.
    fn local_max(&self, _comm: &Arc<Comm>) -> u64 {
        let holder = self
            .lock
            .as_ref()
            .map_or_else(|&holder| holder as u64, |_| 0);
        self.alignment << 2 | holder
    }

    fn act(mut self, comm: &mut Arc<Comm>, agreed: Agreed) -> Result<File> {
        let rank_0_says = agreed.max;
        let (holder, alignment) = (rank_0_says & 3, rank_0_says >> 2);
        if holder != 0 {
            return Err(Holder::from_number(holder).error(&self.request.path));
        }
        if alignment != 0 {
            self.request.options.tuning.alignment = alignment;
        }
        File::open_agreed(comm, self.request, self.lock.ok().flatten())
    }
}

/// Rank 0 makes the file of a create (`writer_lock::make_new`: an existing one replaced,
/// or refused without `truncate`; the new one locked, given `held` from the check) and
/// writes an empty HDF5 file into it, and every rank learns how that went before any opens
/// it. Returns rank 0's lock and what is there now.
fn make_new(
    comm: &Comm,
    request: &FileRequest,
    truncate: bool,
    held: Option<WriterLock>,
) -> Result<(Option<WriterLock>, Made)> {
    // Every rank makes the image (once per process), though only rank 0 writes it: HDF5's
    // state must be the same on every rank. With rank 0 alone making it, HDF5's close of a
    // file left out of step (a timeout, then MPI_Finalize) hung.
    let image = h5::file::empty_image();
    let (made, lock) = match comm.rank() {
        0 => match writer_lock::make_new(&request.path, truncate, held, request.writer_locking()) {
            Ok(lock) => (
                Made::write_empty_hdf5(&request.path, image).map(|made| made as u64),
                lock,
            ),
            Err(e) => (Err(e), None),
        },
        _ => (Ok(0), None),
    };
    let path = &request.path;
    let made = collective::settle_max(comm, CreateFile::NAME, "the new file", made, |kind| {
        match kind {
            ErrorKind::InUse => format!(
                "the file {path:?} is open for writing by another handle or job (rank 0 found it \
             locked; its message says which). Nothing was done"
            ),
            ErrorKind::AlreadyExists => format!(
                "the file {path:?} exists already (pass DAH5_TRUNC to replace it, or use another \
             name). Nothing was done"
            ),
            _ => format!("rank 0 could not make the file {path:?} (its message says why)"),
        }
    })?;
    Ok((lock, Made::from_number(made)))
}

/// What rank 0 made of a new file before the ranks open it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Made {
    /// Nothing HDF5 can open (rank 0 could not write the file itself, a path only MPI-IO
    /// reaches, or has no empty file to write: `h5::file::empty_image`): every rank creates
    /// it through MPI-IO, and flushes it at once.
    Nothing = 0,
    /// A valid HDF5 file without objects, written and closed: every rank opens it.
    EmptyHdf5 = 1,
}

impl Made {
    fn from_number(number: u64) -> Made {
        if number == Made::EmptyHdf5 as u64 {
            Made::EmptyHdf5
        } else {
            Made::Nothing
        }
    }

    /// Rank 0 alone writes an HDF5 file without objects at `name` (as given to dah5):
    /// `image`, the bytes this HDF5 writes for one with the same (default) creation
    /// properties (`h5::file::empty_image`). A file created through the MPI-IO driver
    /// holds nothing until HDF5 writes its superblock and root group, at the first flush:
    /// a job that ended before (a rank's exit(), ranks out of step, a full disk) left a file
    /// no reader could open, and flushing at the create cost an `MPI_File_sync` on every
    /// rank (0.3-0.8 ms on ext4, more where every rank's sync goes to the servers). Written
    /// this way the file is valid before any rank opens it, for one `pwrite`.
    fn write_empty_hdf5(name: &str, image: Result<&[u8]>) -> Result<Made> {
        let Ok(image) = image else {
            return Ok(Made::Nothing);
        };
        let path = file_name::os_path(name);
        let written = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(path)
            .and_then(|mut file| std::io::Write::write_all(&mut file, image));
        match written {
            Ok(()) => Ok(Made::EmptyHdf5),
            // A full disk, found before HDF5 is called: `NO_SPACE` on every rank and no file
            // (HDF5's create and flush there failed on some ranks only, and the close that
            // followed hung).
            Err(e) if matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT)) => {
                let _ = std::fs::remove_file(path);
                Err(Error::new(
                    ErrorKind::NoSpace,
                    format!(
                        "the file system of {name:?} has no room for a new HDF5 file's first {} \
                         bytes ({e}); nothing was made",
                        image.len()
                    ),
                ))
            }
            Err(_) => Ok(Made::Nothing),
        }
    }
}

/// What a file's datasets share with it: the communicator, the order of its arrays, and
/// the first failed write (reported again at close).
#[derive(Debug)]
pub struct FileShared {
    pub comm: Arc<Comm>,
    pub order: Order,
    pub writable: bool,
    /// Collective calls are agreed on (see `FileOptions::checks`).
    pub checked: bool,
    pub path: String,
    /// The free space dataset creates and attribute writes claim first.
    pub room: disk_space::Room,
    failure: Mutex<Option<Error>>,
    /// The datasets of the file open now: (path, HDF5 id), so an attribute written on one
    /// goes through its id.
    open_datasets: Mutex<Vec<(Name, hid_t)>>,
    /// Datasets this rank closed that HDF5 has not closed yet (`core::closing`).
    closes: Mutex<Closes>,
    /// This rank's subfiles of subfiled darrays, which a flush puts on storage too.
    pub(crate) subfiles: crate::core::unsynced::Unsynced,
    /// The transfer property lists of independent and collective transfers, made on the
    /// first transfer of each kind and shared by the file's datasets (a new list per call
    /// cost a third of a small write's instructions; one per dataset made every dataset
    /// larger to move and to hold).
    pub(crate) transfer_lists: [OnceLock<Id>; 2],
    /// This rank's last many-block plans (`core::recent_plans`).
    pub(crate) recent_plans: crate::core::recent_plans::RecentPlans,
    /// This rank's writes behind (`DAH5_ASYNC`, `core::write_behind`).
    pub(crate) behind: WriteBehind,
    /// MPI atomic mode is on ([`SetAtomic`]): a write behind is then made at once.
    atomic: AtomicBool,
    /// HDF5 locks the file (and the subfiles it opens) while open (`DAH5_NO_FILE_LOCKING`
    /// turns it off, for file systems without flock).
    pub file_locking: bool,
    /// MPI-IO makes one rank's writes visible to the others at once (`mpi::info`). Where
    /// it does not (NFS), every write of data goes through a collective transfer, which
    /// HDF5 follows with `MPI_File_sync`.
    pub writes_visible_at_once: bool,
    /// The file's format stores numeric attributes larger than an object header holds
    /// (`h5::file::keeps_large_attributes`); where it does not, dah5 refuses them itself.
    pub large_attributes: bool,
    /// A read-only file as this rank saw it just before opening it (`core::stamp`); none
    /// for a file this rank could not open itself.
    stamp: Option<Stamp>,
}

impl HeldCloses for FileShared {
    fn closes(&self) -> MutexGuard<'_, Closes> {
        self.closes.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn record_failure(&self, error: &Error) {
        FileShared::record_failure(self, error)
    }
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
        let error = disk_space::classify(error, &self.path);
        if error.kind == ErrorKind::NoSpace {
            self.record_failure(&error);
        }
        error
    }

    /// Note a dataset open under `path` with id `raw` (until [`FileShared::unlist`]).
    pub(crate) fn list(&self, path: &Name, raw: hid_t) {
        let mut open = self.open_datasets.lock().unwrap_or_else(|e| e.into_inner());
        open.push((path.clone(), raw));
    }

    pub(crate) fn unlist(&self, raw: hid_t) {
        let mut open = self.open_datasets.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = open.iter().position(|&(_, r)| r == raw) {
            open.swap_remove(i);
        }
    }

    /// The id of a dataset open under exactly `path`, if any.
    pub(crate) fn open_dataset(&self, path: &str) -> Option<hid_t> {
        let open = self.open_datasets.lock().unwrap_or_else(|e| e.into_inner());
        open.iter().find(|(p, _)| &**p == path).map(|&(_, raw)| raw)
    }

    /// Before a read-only handle returns what the file holds: fail with
    /// `DAH5_ERR_FILE_CHANGED` (or `TRUNCATED`) if the file changed since it was opened
    /// (`core::stamp`). Local.
    pub fn check_unchanged(&self) -> Result<()> {
        match &self.stamp {
            Some(stamp) => stamp.check(&self.path),
            None => Ok(()),
        }
    }

    /// Fail with `DAH5_ERR_READ_ONLY` unless the file was opened for writing.
    pub fn check_writable(&self) -> Result<()> {
        if self.writable {
            return Ok(());
        }
        Err(Error::new(
            ErrorKind::ReadOnly,
            format!(
                "the file {:?} was opened read-only (DAH5_RDONLY)",
                self.path
            ),
        ))
    }

    /// Whether MPI atomic mode is on.
    pub fn atomic(&self) -> bool {
        self.atomic.load(Ordering::Relaxed)
    }

    /// Wait for this rank's writes behind; one that failed is remembered as a failed write
    /// (then the file's close fails on every rank) and returned.
    pub fn wait_for_writes(&self) -> Result<()> {
        self.behind.wait().inspect_err(|e| self.record_failure(e))
    }

    /// The error of a call told that an earlier write failed on the rank of `word`
    /// (`failure_word`): this rank's own (`own`) or another's.
    fn failed_write(&self, word: u64, own: Option<Error>) -> Error {
        let (failed_rank, kind) = decode_failure(&self.comm, word);
        match own {
            Some(e) if failed_rank == self.comm.rank() => Error::new(
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
        }
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
    /// Rank 0's lock of a file open for writing (`core::writer_lock`), held until the file
    /// is closed (declared after `id`, so dropped after it).
    _writer_lock: Option<WriterLock>,
}

/// The property lists of the common dataset create, and dataspaces to reuse.
#[derive(Debug)]
pub struct CreateLists {
    /// Intermediate groups made.
    pub lcpl: Id,
    /// Contiguous, allocated early, never filled: dah5's default.
    pub contiguous: Id,
    /// For scalar attributes.
    pub scalar: Id,
    /// The dataspace of the last dataset created: a run of datasets of one shape makes it
    /// once.
    pub last_space: RefCell<Option<Dataspace>>,
}

/// A dataspace with its dims and max dims (storage order).
#[derive(Debug)]
pub struct Dataspace {
    dims: Vec<u64>,
    max_dims: Vec<u64>,
    id: Id,
}

/// Proof that all ranks agreed to close, carrying the agreed sticky-failure word.
pub struct CloseAgreed {
    failure_word: u64,
}

impl Members for File {
    fn comm(&self) -> &Arc<Comm> {
        &self.shared.comm
    }

    fn file(&self) -> Option<&dyn HeldCloses> {
        Some(&*self.shared)
    }

    fn checked(&self) -> bool {
        self.shared.checked
    }
}

/// `dah5_file_set_atomic`: MPI atomic mode on or off. In atomic mode a write by one rank
/// is visible to a read by another as soon as the write returns (MPI_File_set_atomicity);
/// otherwise only after a flush (or close) and a barrier.
pub struct SetAtomic(pub bool);

impl Collective for SetAtomic {
    const NAME: &'static str = "dah5_file_set_atomic";
    type Target = File;
    type Output = ();

    fn args<'a>(&'a self, file: &'a File) -> Args<'a> {
        file.args(Self::NAME).number("atomic", self.0 as u64)
    }

    fn act(self, file: &mut File, _: Agreed) -> Result<()> {
        h5::file::set_atomicity(&file.id, self.0)?;
        file.shared.atomic.store(self.0, Ordering::Relaxed);
        Ok(())
    }
}

/// `dah5_file_flush`: everything to storage; afterwards a new opener sees the data. Every
/// rank's writes behind end first, and one that failed on any rank fails the flush on
/// every rank.
pub struct Flush;

impl Collective for Flush {
    const NAME: &'static str = "dah5_file_flush";
    const NEEDS_MAX: bool = true;
    type Target = File;
    type Output = ();

    fn check(self, file: &File) -> Result<Self> {
        // Before the agreement, so that after it every rank's writes are in the file. One
        // that failed is not this rank's check failing (the flush goes on, as for every
        // rank): it is told to all in `local_max`.
        let _ = file.shared.wait_for_writes();
        Ok(self)
    }

    fn args<'a>(&'a self, file: &'a File) -> Args<'a> {
        file.args(Self::NAME)
    }

    fn local_max(&self, file: &File) -> u64 {
        let failed = file.shared.behind.failure();
        failed.map_or(0, |e| failure_word(&file.shared.comm, e.kind))
    }

    fn act(self, file: &mut File, agreed: Agreed) -> Result<()> {
        let flushed =
            h5::file::flush(&file.id).map_err(|e| disk_space::classify(e, &file.shared.path));
        // The subfiles also where the main file's flush failed: a node's subfile is flushed
        // by all the node's ranks together.
        let synced = file.shared.subfiles.sync();
        flushed
            .and(synced)
            .inspect_err(|e| file.shared.record_failure(e))?;
        match agreed.max {
            0 => Ok(()),
            word => Err(file.shared.failed_write(word, file.shared.behind.failure())),
        }
    }
}

/// `dah5_file_close`, its agreement: every rank learns the first failed write on any
/// rank. Nothing is closed when it fails; [`File::close`] then closes.
pub struct CloseFile;

impl Collective for CloseFile {
    const NAME: &'static str = "dah5_file_close";
    const NEEDS_MAX: bool = true;
    type Target = File;
    type Output = CloseAgreed;

    fn args<'a>(&'a self, file: &'a File) -> Args<'a> {
        file.args(Self::NAME)
    }

    fn check(self, file: &File) -> Result<Self> {
        // A write behind that failed is then a failed write of this rank (`local_max`).
        let _ = file.shared.wait_for_writes();
        Ok(self)
    }

    fn local_max(&self, file: &File) -> u64 {
        file.shared
            .failure()
            .map_or(0, |e| failure_word(&file.shared.comm, e.kind))
    }

    fn act(self, _file: &mut File, agreed: Agreed) -> Result<CloseAgreed> {
        Ok(CloseAgreed {
            failure_word: agreed.max,
        })
    }
}

impl File {
    /// Create or open (collective over the communicator with Fortran handle `comm`):
    /// `request` is this rank's [`CreateFile`] or [`OpenFile`], or why its arguments are
    /// invalid.
    pub fn open<C: Collective<Target = Arc<Comm>, Output = File>>(
        comm: i32,
        request: Result<C>,
    ) -> Result<File> {
        mpi::ensure_active()?;
        let mut comm = Arc::new(Comm::from_fortran(comm)?);
        collective::run(&mut comm, request)
    }

    /// Run `hook` when the program calls `MPI_Finalize` (registered once; only while MPI
    /// runs). It runs before HDF5's own finalize hook, so files can still be closed there.
    pub fn at_finalize(hook: fn()) -> Result<()> {
        if !mpi::is_active() {
            return Ok(());
        }
        // HDF5 registers its hook when it starts, and hooks run in reverse order.
        h5::open_library();
        mpi::finalize::on_finalize(hook)
    }

    /// Run `hook` when the process exits through `exit()` or a return from `main` without
    /// `MPI_Finalize` (registered once). HDF5 itself then closes nothing (`h5::init`)
    /// unless the program started HDF5 before dah5: see [`h5::closes_files_at_exit`].
    pub fn at_exit(hook: fn()) {
        h5::open_library();
        crate::os::at_exit(hook);
    }

    /// Create or open the file every rank agreed on (collective); `held` is rank 0's lock
    /// on the file as it was at the check.
    fn open_agreed(
        comm: &Arc<Comm>,
        request: FileRequest,
        held: Option<WriterLock>,
    ) -> Result<File> {
        let options = &request.options;
        let info = Info::new(&options.hints)?;
        let writable = request.access != (Access::Open { writable: false });
        let fapl = h5::plist::file_access(comm.raw(), &info, &options.tuning, writable)?;
        let (writer_lock, stamp, made) = match request.access {
            Access::Create { truncate } => {
                let (lock, made) = make_new(comm, &request, truncate, held)?;
                (lock, None, Some(made))
            }
            Access::Open { writable: true } => (held, None, None),
            // Taken before HDF5 reads anything: a change while it opens is a change too. A
            // file this rank cannot open itself (but MPI-IO can) goes unstamped.
            Access::Open { writable: false } => (None, Stamp::take(&request.path).ok(), None),
        };
        let in_context = |e: Error| e.context(format_args!("path {:?}", request.path));
        let id = match made {
            Some(Made::EmptyHdf5) => h5::file::open(&request.path, true, &fapl),
            Some(Made::Nothing) => h5::file::create(&request.path, true, &fapl),
            None => h5::file::open(&request.path, writable, &fapl),
        }
        .map_err(in_context)?;
        if made == Some(Made::Nothing) {
            // Valid from here on (see `Made::write_empty_hdf5`).
            h5::file::flush(&id)
                .map_err(|e| disk_space::classify(e, &request.path))
                .map_err(in_context)?;
        }
        let stamp = stamp.map(|stamp| stamp.confirm(&request.path));
        if options.atomic {
            h5::file::set_atomicity(&id, true)?;
        }
        // Local calls; the answer is the same on every rank (ROMIO agrees on the file
        // system at open). Where it cannot be told, writes are taken as not visible at
        // once: collective transfers work everywhere.
        let writes_visible_at_once = !writable
            || h5::file::mpi_file(&id)
                .and_then(|file| mpi::info::writes_visible_at_once(file, options.file_sync))
                .unwrap_or(false);
        let room = disk_space::Room::new(&request.path, options.tuning.metadata_cache_limit());
        if writable && comm.rank() == 0 {
            room.reserve_from_here();
        }
        let large_attributes = h5::file::keeps_large_attributes(&id)?;
        Ok(File {
            shared: Arc::new(FileShared {
                comm: comm.clone(),
                order: request.order,
                writable,
                checked: options.checks,
                room,
                path: request.path,
                failure: Mutex::new(None),
                open_datasets: Mutex::new(Vec::new()),
                closes: Mutex::new(Closes::default()),
                subfiles: Default::default(),
                transfer_lists: Default::default(),
                recent_plans: Default::default(),
                behind: Default::default(),
                atomic: AtomicBool::new(options.atomic),
                file_locking: options.tuning.file_locking,
                writes_visible_at_once,
                large_attributes,
                stamp,
            }),
            id,
            lists: CreateLists {
                lcpl: h5::plist::link_create()?,
                contiguous: h5::plist::dataset_create(&Layout::contiguous(), false)?,
                scalar: h5::space::scalar()?,
                last_space: RefCell::new(None),
            },
            _writer_lock: writer_lock,
        })
    }

    pub fn order(&self) -> Order {
        self.shared.order
    }

    /// `dah5_file_wait`: wait for this rank's writes behind (local).
    pub fn wait_for_writes(&self) -> Result<()> {
        self.shared.wait_for_writes()
    }

    /// The file in an agreement's arguments.
    pub(crate) fn args(&self, name: &'static str) -> Args<'_> {
        Args::of(name).text("file", &self.shared.path)
    }

    /// A dataspace of `dims` and `max_dims` (storage order) for a new dataset.
    pub(crate) fn dataspace(&self, dims: &[u64], max_dims: &[u64]) -> Result<RefMut<'_, Id>> {
        let mut last = self.lists.last_space.borrow_mut();
        if !matches!(&*last, Some(s) if s.dims == dims && s.max_dims == max_dims) {
            *last = Some(Dataspace {
                dims: dims.to_vec(),
                max_dims: max_dims.to_vec(),
                id: h5::space::simple_with_max(dims, max_dims)?,
            });
        }
        RefMut::filter_map(last, |last| last.as_mut().map(|space| &mut space.id))
            .map_err(|_| Error::new(ErrorKind::Panic, "the dataspace was not kept"))
    }

    /// Claim room on the disk for `what` (a dataset of `bytes`, or an attribute), counting
    /// the metadata HDF5 has not written yet (see `disk_space::Room`). Local.
    /// Rank 0 also reserves the file's blocks ahead of HDF5's allocations
    /// (`disk_space::Room::reserve_ahead`), for the metadata and for `unreserved` of the data:
    /// what is not reserved at its own offset once created.
    pub(crate) fn claim_room(
        &self,
        what: impl Fn() -> String,
        bytes: u64,
        unreserved: u64,
    ) -> Result<()> {
        let cached = || h5::file::metadata_cache_bytes(&self.id);
        let room = &self.shared.room;
        room.claim(&what, bytes, cached)?;
        if self.shared.comm.rank() != 0 {
            return Ok(());
        }
        room.reserve_ahead(unreserved, cached, what)
    }

    /// The path the file was created or opened with.
    pub fn path(&self) -> &str {
        &self.shared.path
    }

    /// Close the file and the given datasets of it (in the given order, which is the same on
    /// every rank). Reports the first failure of any earlier write on any rank, after
    /// releasing everything.
    pub fn close(self, agreed: CloseAgreed, datasets: Vec<impl CloseWithFile>) -> Result<()> {
        let mut result = Ok(());
        for dataset in datasets {
            result = result.and(dataset.close());
        }
        result = result.and(self.shared.closes().close_unmatched());
        result = result.and(self.id.close());
        // Every write behind ended at the agreement: this ends the thread.
        let _ = self.shared.behind.finish();
        self.shared.room.release_reserved();
        result?;
        let own = self.shared.failure();
        if agreed.failure_word == 0 {
            // A failure now was not there at the agreement: a held dataset close that
            // failed after it (`core::closing`), which only this rank can report.
            return own.map_or(Ok(()), Err);
        }
        Err(self.shared.failed_write(agreed.failure_word, own))
    }
}
