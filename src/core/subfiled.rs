//! Subfiled darrays (`DAH5_DARRAY_SUBFILED`): each rank's block in an HDF5 file of its own,
//! written by that rank alone (no lock shared with another rank), and in the main file a
//! virtual dataset (VDS, HDF5 1.10) that maps every block to its subfile, with the block
//! table. Every HDF5 reader reads the VDS as one array, opening the subfiles relative to
//! the main file's directory. dah5 reads the subfiles itself, each reader opening only those
//! its block touches: parallel HDF5 does not read virtual datasets ("parallel reads not
//! supported on virtual datasets", 1.10 to 1.14).
//!
//! On disk, for the darray `/grp/temp` of `out.h5`:
//!
//! | file                      | holds                                                   |
//! |---------------------------|---------------------------------------------------------|
//! | `out.h5`                  | the VDS `/grp/temp`, its block table, and the attributes |
//! |                           | `dah5_subfiles` = `"out.h5.d/grp~temp"`, `dah5_subfiles_id` |
//! | `out.h5.d/grp~temp.0.h5`  | rank 0's block as the dataset `/block`, with the same    |
//! |                           | `dah5_subfiles_id`                                      |
//! | `out.h5.d/grp~temp.1.h5`  | rank 1's block, ...; an empty block has no file          |
//!
//! `dah5_complete` is 1 only once every subfile was written and closed: at the end of
//! `dah5_darray_write`, or at the dataset's close after `dah5_darray_create`. dah5 refuses
//! to read a subfiled darray that is not complete, and a missing or truncated subfile is an
//! error naming it, never fill values. `dah5_subfiles_id` (uint64) ties the subfiles to the
//! write that made them: a number drawn for each write, by rank 0, sent with the blocks.
//! A subfile of another write (an earlier run's, put back beside the main file) is refused
//! with `DAH5_ERR_FILE_CHANGED` naming it, where it would have mixed old values with new.
//! A darray written without the id (dah5 before it) reads as before; `dah5 info` says so.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::core::attr::{AttrValue, write_value};
use crate::core::block_table::{BlockTable, Recorded, read_scalar};
use crate::core::collective;
use crate::core::darray::DarrayRequest;
use crate::core::dataset::{Dataset, absolute};
use crate::core::file::{File, FileShared};
use crate::core::layout::Layout;
use crate::dtype::Dtype;
use crate::error::{Error, ErrorKind, Result};
use crate::file_name;
use crate::h5;
use crate::h5::attr::Place;
use crate::h5::id::{Id, hid_t};

/// The darray's attribute naming its subfiles: block i is `<value>.<i>.h5`, relative to
/// the main file's directory.
pub(crate) const PREFIX_ATTR: &str = "dah5_subfiles";

/// The id of the write that made a darray's subfiles, on the darray and on each block.
pub(crate) const ID_ATTR: &str = "dah5_subfiles_id";

/// The dataset holding the block in each subfile.
const SOURCE: &str = "block";

/// A subfiled darray's subfiles, and this rank's own while the darray is written.
#[derive(Debug)]
pub struct Subfiles {
    /// The main file's directory, which `prefix` is relative to.
    base: PathBuf,
    prefix: String,
    /// The id of the write that made them (none: written by a dah5 without ids).
    id: Option<u64>,
    /// From `dah5_darray_create` until the dataset's close: this rank's subfile.
    writing: Option<Writing>,
}

/// What `dah5 info` finds of a darray's subfiles.
pub struct Survey {
    /// How many blocks have a subfile (the empty ones have none).
    pub files: usize,
    /// The blocks whose subfile is not there (HDF5's readers show fill values instead).
    pub missing: Vec<usize>,
    /// The blocks whose subfile is of another write of the darray.
    pub foreign: Vec<usize>,
}

#[derive(Debug)]
struct Writing {
    /// None for an empty block.
    own: Option<OwnSubfile>,
    /// A write to the subfile failed: the close then does not mark the darray complete.
    failed: Cell<bool>,
}

/// This rank's subfile, open for writing.
#[derive(Debug)]
struct OwnSubfile {
    // Dropped in this order: the dataset before its file.
    block: Id,
    file: Id,
    /// The block's place in the darray (storage order).
    offset: Vec<u64>,
    count: Vec<u64>,
    path: PathBuf,
    /// The main file, whose flush puts this subfile on storage too.
    main: Arc<FileShared>,
}

/// This rank's subfiles written through one main file since its last `dah5_file_flush`,
/// which puts them on storage with the main file: HDF5's default driver never fsyncs, so
/// without this a subfiled darray would not be durable after a flush (open ones are flushed
/// by HDF5 first, then each is fsynced).
#[derive(Debug, Default)]
pub struct Unsynced(Mutex<Vec<(PathBuf, Option<hid_t>)>>);

impl Unsynced {
    fn entries(&self) -> std::sync::MutexGuard<'_, Vec<(PathBuf, Option<hid_t>)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn opened(&self, path: &Path, file: hid_t) {
        self.entries().push((path.to_path_buf(), Some(file)));
    }

    fn closed(&self, path: &Path) {
        for entry in self.entries().iter_mut().filter(|(p, _)| p == path) {
            entry.1 = None;
        }
    }

    /// Flush the open subfiles and fsync every one; the closed ones are then forgotten.
    pub(crate) fn sync(&self) -> Result<()> {
        let mut entries = self.entries();
        for (path, file) in entries.iter() {
            let synced = file
                .map_or(Ok(()), |raw| h5::file::flush(&Id::borrowed(raw)))
                .and_then(|()| {
                    std::fs::File::open(path)
                        .and_then(|f| f.sync_all())
                        .map_err(|e| Error::io(&e, "fsync"))
                });
            synced.map_err(|e| about(path, e))?;
        }
        entries.retain(|(_, file)| file.is_some());
        Ok(())
    }
}

/// The subfiles' names in the file name of a dataset path: '/' becomes '~', letters,
/// digits, '.', '_' and '-' stay, every other byte is `+XX` (so no two paths meet).
fn stem(name: &str) -> String {
    absolute(name)[1..]
        .bytes()
        .map(|b| match b {
            b'/' => "~".to_string(),
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'_' | b'-' => (b as char).to_string(),
            _ => format!("+{b:02X}"),
        })
        .collect()
}

fn is_empty(count: &[u64]) -> bool {
    count.contains(&0)
}

impl Subfiles {
    /// Whether this rank's subfile is being written: the dataset's close then settles the
    /// darray on every rank ([`Dataset::finish_subfiles`]).
    pub(crate) fn writing(&self) -> bool {
        self.writing.is_some()
    }

    /// The subfiles of a new darray `name` in the main file `main`, of the write `id`:
    /// `<main>.d/<stem>`.
    pub(crate) fn new(main: &str, name: &str, id: u64) -> Subfiles {
        let main = Path::new(file_name::os_path(main));
        let file_name = main.file_name().unwrap_or_default().to_string_lossy();
        Subfiles {
            base: directory_of(main),
            prefix: format!("{file_name}.d/{}", stem(name)),
            id: Some(id),
            writing: None,
        }
    }

    /// Block `block`'s subfile, relative to the main file's directory (as the VDS names it).
    fn relative(&self, block: usize) -> String {
        format!("{}.{block}.h5", self.prefix)
    }

    /// Block `block`'s subfile as this process opens it.
    fn path(&self, block: usize) -> PathBuf {
        self.base.join(self.relative(block))
    }

    /// The subfiles recorded on an open darray of the file `main`, if it is subfiled.
    pub fn read(dataset: &Id, main: &str) -> Result<Option<Subfiles>> {
        let Some(prefix) = h5::attr::text(dataset, PREFIX_ATTR)? else {
            return Ok(None);
        };
        let prefix = String::from_utf8(prefix).map_err(|_| {
            Error::new(
                ErrorKind::TypeMismatch,
                format!("its {PREFIX_ATTR} attribute is not UTF-8"),
            )
        })?;
        Ok(Some(Subfiles {
            base: directory_of(Path::new(file_name::os_path(main))),
            prefix,
            id: read_id(dataset)?,
            writing: None,
        }))
    }

    /// The relative prefix, as recorded (`dah5 info` shows it).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Whether the subfiles are tied to the write that made them (`ID_ATTR`).
    pub fn tied(&self) -> bool {
        self.id.is_some()
    }

    /// The subfiles of the blocks of `table` as they are (`dah5 info`).
    pub fn survey(&self, table: &BlockTable) -> Result<Survey> {
        let blocks: Vec<usize> = (0..table.counts.len())
            .filter(|&b| !is_empty(&table.counts[b]))
            .collect();
        let (present, missing): (Vec<usize>, Vec<usize>) =
            blocks.iter().partition(|&&b| self.path(b).is_file());
        let fapl = h5::plist::serial_file_access(true)?;
        let foreign = present
            .into_iter()
            .filter(|&b| {
                self.open_block(b, &fapl)
                    .is_err_and(|e| e.kind == ErrorKind::FileChanged)
            })
            .collect();
        Ok(Survey {
            files: blocks.len(),
            missing,
            foreign,
        })
    }

    /// Block `block`'s subfile opened for reading with `fapl`: its `/block` dataset, then
    /// the file, refused (`FILE_CHANGED`) when it is of another write of the darray.
    fn open_block(&self, block: usize, fapl: &Id) -> Result<(Id, Id)> {
        let file = h5::file::open(&self.path(block).to_string_lossy(), false, fapl)?;
        let source = h5::dataset::open(&file, SOURCE)?;
        let Some(id) = self.id else {
            return Ok((source, file));
        };
        match read_id(&source)? {
            Some(theirs) if theirs == id => Ok((source, file)),
            theirs => Err(Error::new(
                ErrorKind::FileChanged,
                format!(
                    "it is of another write of the darray: it holds {}, the main file says \
                     {id:#x} (a subfile of another write, an earlier run's, was put in its \
                     place), so nothing was read from it. Write the darray again, or put its \
                     own subfile back",
                    theirs.map_or("no write id".to_string(), |t| format!(
                        "the write id {t:#x}"
                    ))
                ),
            )),
        }
    }
}

/// The write id on `object` (a darray, or a subfile's block), if it has one.
fn read_id(object: &Id) -> Result<Option<u64>> {
    let place = Place {
        file: object,
        object: ".",
        name: ID_ATTR,
    };
    if !h5::attr::exists(&place, false)? {
        return Ok(None);
    }
    read_scalar(object, ID_ATTR).map(Some)
}

/// Record the write id `id` on `object` (a darray, or a subfile's block).
fn write_id(object: &Id, id: u64, scalar: &Id) -> Result<()> {
    let place = Place {
        file: object,
        object: ".",
        name: ID_ATTR,
    };
    let value = AttrValue::Numbers {
        dtype: Dtype::Uint64,
        shape: vec![],
        data: &id.to_ne_bytes(),
    };
    write_value(&place, &value, scalar)
}

fn directory_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Why a subfile could not be used, with its path.
fn about(path: &Path, e: Error) -> Error {
    e.context(format_args!("subfile {}", path.display()))
}

impl OwnSubfile {
    /// Create the subfile at `path` (and its directory) holding an empty block of `count`,
    /// for the darray of the main file `main`, of the write `id` (if it has one).
    fn create(
        path: &Path,
        dtype: Dtype,
        offset: &[u64],
        count: &[u64],
        main: &Arc<FileShared>,
        id: Option<u64>,
    ) -> Result<OwnSubfile> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::io(&e, format_args!("creating {}", dir.display())))?;
        }
        let text = path.to_string_lossy();
        let fapl = h5::plist::serial_file_access(main.file_locking)?;
        let file = h5::file::create(&text, true, &fapl)?;
        main.subfiles.opened(path, file.raw());
        // From here on, dropping `own` closes the subfile and tells the main file.
        let mut own = OwnSubfile {
            block: Id::borrowed(-1),
            file,
            offset: offset.to_vec(),
            count: count.to_vec(),
            path: path.to_path_buf(),
            main: main.clone(),
        };
        own.block = h5::dataset::create(
            &own.file,
            SOURCE,
            &h5::types::native(dtype)?,
            &h5::space::simple(count)?,
            &Id::borrowed(h5::plist::DEFAULT),
            &h5::plist::dataset_create(&Layout::contiguous(), false)?,
        )?;
        if let Some(id) = id {
            write_id(&own.block, id, &h5::space::scalar()?)?;
        }
        // Reserved as a shared-file dataset is (`core::disk_space`): a full disk is said now, and
        // the write into reserved blocks is faster (measured: see docs/benchmarks.md).
        let bytes = crate::core::shape::data_bytes(count, dtype.size());
        if crate::core::disk_space::worth_reserving(bytes)
            && let Some(offset) = h5::dataset::storage(&own.block)?.offset
        {
            crate::core::disk_space::reserve(&text, SOURCE, offset, bytes)?;
        }
        Ok(own)
    }

    /// Write `data` (C order, storage `count`) at `offset` of the darray, inside the block.
    fn write(&self, offset: &[u64], count: &[u64], mem_dtype: Dtype, data: &[u8]) -> Result<()> {
        let local: Vec<u64> = offset
            .iter()
            .zip(&self.offset)
            .map(|(o, b)| o - b)
            .collect();
        let space = h5::dataset::space(&self.block)?;
        let transfer = h5::dataset::TransferIds {
            dataset: &self.block,
            mem_type: &h5::types::native(mem_dtype)?,
            mem_space: &h5::space::simple(count)?,
            file_space: &h5::space::select_block(&space, &local, count)?,
            dxpl: &Id::borrowed(h5::plist::DEFAULT),
        };
        h5::dataset::write(&transfer, data)
    }

    fn close(mut self) -> Result<()> {
        let block = std::mem::replace(&mut self.block, Id::borrowed(-1)).close();
        let file = std::mem::replace(&mut self.file, Id::borrowed(-1)).close();
        block.and(file)
    }
}

impl Drop for OwnSubfile {
    fn drop(&mut self) {
        self.main.subfiles.closed(&self.path);
    }
}

impl Subfiles {
    /// This rank's subfile of its block (rank `rank` of `table`, storage order): written
    /// whole and closed when `data` is given (`dah5_darray_write`), else left open for
    /// `dah5_write_block` until the dataset's close (`dah5_darray_create`). Local.
    pub(crate) fn make_own(
        &mut self,
        main: &Arc<FileShared>,
        rank: usize,
        dtype: Dtype,
        table: &BlockTable,
        data: Option<&[u8]>,
    ) -> Result<()> {
        let (offset, count) = (&table.offsets[rank], &table.counts[rank]);
        let own = if is_empty(count) {
            None
        } else {
            let path = self.path(rank);
            let own = crate::core::fault::check("subfile", rank as i32)
                .and_then(|()| OwnSubfile::create(&path, dtype, offset, count, main, self.id))
                .map_err(|e| about(&path, e))?;
            match data {
                Some(data) => {
                    let written = own.write(offset, count, dtype, data);
                    written.and(own.close()).map_err(|e| about(&path, e))?;
                    None
                }
                None => Some(own),
            }
        };
        if data.is_none() {
            self.writing = Some(Writing {
                own,
                failed: Cell::new(false),
            });
        }
        Ok(())
    }

    /// Undo [`Subfiles::make_own`] after the call failed on some rank: close and remove
    /// this rank's subfile (if it was made). Local.
    pub(crate) fn discard_own(&mut self, rank: usize, table: &BlockTable) {
        self.writing = None;
        if !is_empty(&table.counts[rank]) {
            let _ = std::fs::remove_file(self.path(rank));
        }
    }

    /// The virtual layout of a darray of `dims` (storage order) with the blocks of `table`,
    /// each mapped to its subfile.
    pub(crate) fn virtual_layout(&self, dims: &[u64], table: &BlockTable) -> Result<Id> {
        let space = h5::space::simple(dims)?;
        let names: Vec<String> = (0..table.offsets.len()).map(|i| self.relative(i)).collect();
        let blocks = table.offsets.iter().zip(&table.counts).zip(&names);
        h5::plist::virtual_dataset(
            &space,
            blocks.filter(|((_, count), _)| !is_empty(count)).map(
                |((offset, count), file_name)| h5::plist::VirtualMap {
                    offset,
                    count,
                    file_name,
                    source: SOURCE,
                },
            ),
        )
    }

    /// Record the subfiles on the darray `dataset` (collective: attribute writes).
    pub(crate) fn record(&self, dataset: &Id, scalar: &Id) -> Result<()> {
        let place = Place {
            file: dataset,
            object: ".",
            name: PREFIX_ATTR,
        };
        write_value(&place, &AttrValue::Text(&self.prefix), scalar)?;
        match self.id {
            Some(id) => write_id(dataset, id, scalar),
            None => Ok(()),
        }
    }
}

impl Dataset {
    /// A subfiled darray's part of `dah5_write_block`: the block must lie inside this rank's
    /// own block, and goes to its subfile (offset and count in storage order).
    pub(crate) fn write_subfile(
        &self,
        subfiles: &Subfiles,
        offset: &[u64],
        count: &[u64],
        mem_dtype: Dtype,
        data: &[u8],
    ) -> Result<()> {
        let writing = subfiles.writing.as_ref().ok_or_else(|| {
            Error::invalid(format!(
                "dataset {:?} is a subfiled darray written whole by dah5_darray_write: its \
                 subfiles are closed. To write a subfiled darray in steps, create it with \
                 dah5_darray_create",
                self.name()
            ))
        })?;
        if is_empty(count) {
            return Ok(());
        }
        let order = self.file.order;
        let inside = writing.own.as_ref().filter(|own| {
            (0..offset.len()).all(|d| {
                own.offset[d] <= offset[d] && offset[d] + count[d] <= own.offset[d] + own.count[d]
            })
        });
        let Some(own) = inside else {
            let own = writing.own.as_ref().map_or_else(
                || "an empty block".to_string(),
                |own| {
                    format!(
                        "offset {:?} count {:?}",
                        order.to_storage(&own.offset),
                        order.to_storage(&own.count)
                    )
                },
            );
            return Err(Error::new(
                ErrorKind::OutOfBounds,
                format!(
                    "dataset {:?} is subfiled: each rank writes only inside its own block, \
                     and this rank's is {own}; the block offset {:?} count {:?} is not inside \
                     it",
                    self.name(),
                    order.to_storage(offset),
                    order.to_storage(count)
                ),
            ));
        };
        let path = subfiles.path(self.file.comm.rank() as usize);
        own.write(offset, count, mem_dtype, data)
            .map_err(|e| about(&path, e))
            .inspect_err(|e| {
                writing.failed.set(true);
                self.file.record_failure(e);
            })
    }

    /// A subfiled darray's part of `dah5_read_block`: every block the region `offset,
    /// count` (storage order) touches is read from its subfile into its place in `buf` (C
    /// order of `count`). `dxpl` converts, or refuses, as for any read.
    pub(crate) fn read_subfiles(
        &self,
        subfiles: &Subfiles,
        offset: &[u64],
        count: &[u64],
        mem_type: &Id,
        dxpl: &Id,
        buf: &mut [u8],
    ) -> Result<()> {
        let recorded = self.blocks.as_ref().filter(|r| r.complete);
        let Some(recorded) = recorded else {
            return Err(Error::invalid(format!(
                "subfiled darray {:?} is not complete (dah5_complete = 0): it is still being \
                 written (close it first), or a writer failed; its subfiles are not read",
                self.name()
            )));
        };
        if is_empty(count) {
            return Ok(());
        }
        let table = recorded.table(&self.id, &self.storage_dims)?;
        let mem_space = h5::space::simple(count)?;
        let fapl = h5::plist::serial_file_access(self.file.file_locking)?;
        for (block, (b_offset, b_count)) in table.offsets.iter().zip(&table.counts).enumerate() {
            let (lo, hi): (Vec<u64>, Vec<u64>) = (0..count.len())
                .map(|d| {
                    let lo = offset[d].max(b_offset[d]);
                    let hi = (offset[d] + count[d]).min(b_offset[d] + b_count[d]);
                    (lo, hi.max(lo))
                })
                .unzip();
            let extent: Vec<u64> = hi.iter().zip(&lo).map(|(h, l)| h - l).collect();
            if is_empty(&extent) {
                continue;
            }
            let path = subfiles.path(block);
            let read = (|| {
                let (source, file) = subfiles.open_block(block, &fapl)?;
                let space = h5::dataset::space(&source)?;
                let (stored, _) = h5::space::extents(&space)?;
                if stored != *b_count {
                    return Err(Error::new(
                        ErrorKind::TypeMismatch,
                        format!("its block has extents {stored:?}, the table says {b_count:?}"),
                    ));
                }
                let within = |from: &[u64]| -> Vec<u64> {
                    lo.iter().zip(from).map(|(l, f)| l - f).collect()
                };
                let transfer = h5::dataset::TransferIds {
                    dataset: &source,
                    mem_type,
                    mem_space: &h5::space::select_block(&mem_space, &within(offset), &extent)?,
                    file_space: &h5::space::select_block(&space, &within(b_offset), &extent)?,
                    dxpl,
                };
                h5::dataset::read(&transfer, buf)?;
                source.close()?;
                file.close()
            })();
            read.map_err(|e| {
                about(&path, e).context(format_args!(
                    "reading block {block} of subfiled darray {:?}",
                    self.name()
                ))
            })?;
        }
        Ok(())
    }

    /// Close the subfile this handle writes (from `dah5_darray_create`) and, when every
    /// rank wrote and closed its own, mark the darray complete (collective; a no-op for
    /// any other dataset).
    pub(crate) fn finish_subfiles(&mut self) -> Result<()> {
        let writing = self.subfiles.as_mut().and_then(|s| s.writing.take());
        let Some(writing) = writing else {
            return Ok(());
        };
        let failed = writing.failed.get();
        let rank = self.file.comm.rank();
        let closed = writing
            .own
            .map_or(Ok(()), OwnSubfile::close)
            .and_then(|()| crate::core::fault::check("subfile_close", rank));
        let outcome = match (closed, failed) {
            (Err(e), _) => Err(e.context(format_args!("closing this rank's subfile"))),
            (Ok(()), true) => Err(Error::new(
                ErrorKind::Io,
                "a write to this rank's subfile failed earlier (that call's error said why)",
            )),
            (Ok(()), false) => Ok(()),
        };
        let outcome = outcome.map_err(|e| {
            e.context(format_args!(
                "subfiled darray {:?} stays marked incomplete (dah5_complete = 0)",
                self.name()
            ))
        });
        let name = self.name().to_string();
        collective::settle(
            &self.file.comm,
            "dah5_dataset_close",
            "the subfiles",
            outcome,
            |_| {
                format!(
                    "another rank's subfile of darray {name:?} was not written (its message says \
                 why), so the darray stays marked incomplete (dah5_complete = 0)"
                )
            },
        )?;
        let complete = [1u8];
        let place = Place {
            file: &self.id,
            object: ".",
            name: "dah5_complete",
        };
        let value = AttrValue::Numbers {
            dtype: Dtype::Uint8,
            shape: vec![],
            data: &complete,
        };
        write_value(&place, &value, &h5::space::scalar()?)?;
        if let Some(recorded) = self.blocks.as_mut() {
            recorded.complete = true;
        }
        Ok(())
    }
}

impl File {
    /// The rest of `dah5_darray_write` (or `call`) with `DAH5_DARRAY_SUBFILED`, once the
    /// blocks are checked: every rank its subfile, then (all made) the virtual dataset and
    /// the table. A step that fails on any rank undoes all of them on every rank.
    pub(crate) fn create_subfiled(
        &mut self,
        request: DarrayRequest<'_>,
        mut table: BlockTable,
        write_id: u64,
        call: &'static str,
    ) -> Result<Dataset> {
        let rank = self.shared.comm.rank() as usize;
        let name = request.dataset.name.clone();
        let mut subfiles = Subfiles::new(&self.shared.path, &name, write_id);
        let dtype = request.dataset.dtype;
        let made = subfiles.make_own(&self.shared, rank, dtype, &table, request.data);
        if let Err(e) = self.settle(call, "the subfiles", made) {
            subfiles.discard_own(rank, &table);
            return Err(e);
        }
        let storage_dims = self.order().to_storage(&request.dataset.dims);
        let created = subfiles
            .virtual_layout(&storage_dims, &table)
            .and_then(|vds| {
                let dataset = request.dataset;
                self.create_with(dataset.name, dataset.dtype, storage_dims.into(), None, &vds)
            });
        let mut dataset = match created {
            Ok(dataset) => dataset,
            Err(e) => {
                subfiles.discard_own(rank, &table);
                return Err(e);
            }
        };
        // Complete once every subfile is written: now for dah5_darray_write, at the close
        // for dah5_darray_create.
        table.complete = subfiles.writing.is_none();
        let recorded = table
            .write(&self.id, &name, self.order(), self.shared.table_rows())
            .and_then(|()| subfiles.record(&dataset.id, &self.lists.scalar))
            .and_then(|()| crate::core::fault::check("darray_table", rank as i32));
        if let Err(e) = self.settle(call, "the block table", recorded) {
            subfiles.discard_own(rank, &table);
            return Err(self.take_out_darray(dataset.take_id(), &name, e));
        }
        dataset.blocks = Some(Box::new(Recorded::held(table)));
        dataset.subfiles = Some(Box::new(subfiles));
        Ok(dataset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subfile_names_keep_paths_apart_and_sit_beside_the_main_file() {
        assert_eq!(stem("/grp/temp"), "grp~temp");
        assert_eq!(stem("a~b"), "a+7Eb");
        assert_ne!(stem("/a/b"), stem("/a~b"));
        assert_eq!(stem("t 1%"), "t+201+25");
        let subfiles = Subfiles::new("/scratch/run/out.h5", "grp/temp", 1);
        assert_eq!(subfiles.relative(3), "out.h5.d/grp~temp.3.h5");
        assert_eq!(
            subfiles.path(3),
            PathBuf::from("/scratch/run/out.h5.d/grp~temp.3.h5")
        );
        assert_eq!(
            Subfiles::new("out.h5", "x", 1).path(0),
            PathBuf::from("./out.h5.d/x.0.h5")
        );
    }
}
