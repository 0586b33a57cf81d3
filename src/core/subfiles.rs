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
use std::sync::Arc;

use crate::core::attr::{AttrValue, write_value};
use crate::core::block_table::{BlockTable, read_scalar};
use crate::core::collective;
use crate::core::file::FileShared;
use crate::core::layout::Layout;
use crate::core::names::absolute;
use crate::dtype::Dtype;
use crate::error::{Error, ErrorKind, Result};
use crate::file_name;
use crate::h5;
use crate::h5::attr::Place;
use crate::h5::id::Id;

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

/// A read of a subfiled darray: the region (storage order) and how its elements come to
/// memory.
pub(crate) struct SubfiledRead<'a> {
    pub offset: &'a [u64],
    pub count: &'a [u64],
    pub mem_type: &'a Id,
    pub dxpl: &'a Id,
    /// Whether HDF5 locks the subfiles it opens (`FileShared::file_locking`).
    pub file_locking: bool,
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
    /// darray on every rank ([`Subfiles::finish`]).
    pub(crate) fn writing(&self) -> bool {
        self.writing.is_some()
    }

    /// The subfiles of a new darray `name` in the main file `main`, of the write `id`:
    /// `<main>.d/<stem>`.
    pub(crate) fn new(main: &str, name: &str, id: u64) -> Subfiles {
        let file_name = Path::new(file_name::os_path(main)).file_name();
        let file_name = file_name.unwrap_or_default().to_string_lossy();
        Subfiles {
            base: file_name::directory_of(main).to_path_buf(),
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
            base: file_name::directory_of(main).to_path_buf(),
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

impl Subfiles {
    /// A subfiled darray's part of `dah5_write_block`: the block must lie inside this rank's
    /// own block, and goes to its subfile (offset and count in storage order).
    pub(crate) fn write_own(
        &self,
        main: &FileShared,
        darray: &str,
        offset: &[u64],
        count: &[u64],
        mem_dtype: Dtype,
        data: &[u8],
    ) -> Result<()> {
        let writing = self.writing.as_ref().ok_or_else(|| {
            Error::invalid(format!(
                "dataset {:?} is a subfiled darray written whole by dah5_darray_write: its \
                 subfiles are closed. To write a subfiled darray in steps, create it with \
                 dah5_darray_create",
                darray
            ))
        })?;
        if is_empty(count) {
            return Ok(());
        }
        let order = main.order;
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
                    darray,
                    order.to_storage(offset),
                    order.to_storage(count)
                ),
            ));
        };
        let path = self.path(main.comm.rank() as usize);
        own.write(offset, count, mem_dtype, data)
            .map_err(|e| about(&path, e))
            .inspect_err(|e| {
                writing.failed.set(true);
                main.record_failure(e);
            })
    }

    /// A subfiled darray's part of `dah5_read_block`, once it is complete: every block of
    /// `table` the region touches is read from its subfile into its place in `buf` (C order
    /// of the region's count). `read.dxpl` converts, or refuses, as for any read.
    pub(crate) fn read_blocks(
        &self,
        table: &BlockTable,
        darray: &str,
        read: SubfiledRead<'_>,
        buf: &mut [u8],
    ) -> Result<()> {
        let SubfiledRead {
            offset,
            count,
            mem_type,
            dxpl,
            file_locking,
        } = read;
        if is_empty(count) {
            return Ok(());
        }
        let mem_space = h5::space::simple(count)?;
        let fapl = h5::plist::serial_file_access(file_locking)?;
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
            let path = self.path(block);
            let read = (|| {
                let (source, file) = self.open_block(block, &fapl)?;
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
                    "reading block {block} of subfiled darray {darray:?}"
                ))
            })?;
        }
        Ok(())
    }

    /// Close the subfile this rank writes (from `dah5_darray_create`) and, when every rank
    /// wrote and closed its own, mark the darray `darray` of `main` complete: true then
    /// (collective; false at once where no subfile is being written).
    pub(crate) fn finish(&mut self, main: &FileShared, darray: &Id, name: &str) -> Result<bool> {
        let Some(writing) = self.writing.take() else {
            return Ok(false);
        };
        let failed = writing.failed.get();
        let rank = main.comm.rank();
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
                "subfiled darray {name:?} stays marked incomplete (dah5_complete = 0)"
            ))
        });
        collective::settle(
            &main.comm,
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
            file: darray,
            object: ".",
            name: "dah5_complete",
        };
        let value = AttrValue::Numbers {
            dtype: Dtype::Uint8,
            shape: vec![],
            data: &complete,
        };
        write_value(&place, &value, &h5::space::scalar()?)?;
        Ok(true)
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
