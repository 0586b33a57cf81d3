//! Direct block mode: independent processes without MPI (Distributed.jl workers started with
//! `addprocs`) write their blocks of one contiguous dataset straight into the file.
//!
//! A contiguous, early-allocated dataset's raw data has a fixed place in the file, so once
//! HDF5 has created it (one process, [`create`]) and told where it is ([`Direct::open`]
//! reads `H5Dget_offset`, dims and type, then lets go of HDF5), every worker can `pwrite`
//! its block's byte ranges with no HDF5 and no MPI at all. The file stays a plain HDF5 file:
//! only the raw data bytes are written, never metadata. Layouts whose data does not sit in
//! one known place (chunked, compressed, compact, external, not yet allocated) and foreign
//! byte orders are refused.

use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;

use crate::core::block::{Buffer, Direction};
use crate::core::block_table::{BlockTable, Blocks, RowWriter};
use crate::core::disk_space;
use crate::core::layout::Layout;
use crate::core::raw_data::{self, Place};
use crate::core::runs::for_each_run;
use crate::core::shape::{Order, byte_len, check_block, check_dims, data_bytes};
use crate::dtype::Dtype;
use crate::error::{Error, ErrorKind, Result};
use crate::file_name;
use crate::h5;
use crate::os;

/// What the coordinating process asks for in [`create`]. Dims and blocks in `order`.
pub struct DirectPlan {
    pub path: String,
    pub name: String,
    pub dtype: Dtype,
    pub dims: Vec<u64>,
    pub order: Order,
    /// Replace an existing file; otherwise the dataset is added to it (or to a new file).
    pub truncate: bool,
    /// The workers' blocks (offsets, counts), recorded as a block table, if given.
    pub blocks: Option<Blocks>,
    /// Let HDF5 flock the file while it creates the dataset (its default).
    pub locking: bool,
}

/// Create the dataset (one process; no MPI): contiguous, allocated now, never filled,
/// aligned, with the block table when the plan has one. The file is closed again.
pub fn create(plan: DirectPlan) -> Result<()> {
    // No MPI-IO here: a ROMIO prefix means nothing to the serial driver or to fallocate.
    let plan = DirectPlan {
        path: file_name::os_path(&plan.path).to_string(),
        ..plan
    };
    let storage_dims = plan.order.to_storage(&plan.dims);
    check_dims(&storage_dims, plan.dtype.size())?;
    let bytes = data_bytes(&storage_dims, plan.dtype.size());
    disk_space::check_room(&plan.path, &plan.name, bytes)?;
    let table = plan
        .blocks
        .map(|(offsets, counts)| {
            let to_storage = |rows: Vec<Vec<u64>>| -> Result<Vec<Vec<u64>>> {
                rows.into_iter()
                    .map(|r| {
                        if r.len() == storage_dims.len() {
                            Ok(plan.order.to_storage(&r))
                        } else {
                            Err(Error::invalid("every block needs ndims offsets and counts"))
                        }
                    })
                    .collect()
            };
            BlockTable::validate(
                &storage_dims,
                to_storage(offsets)?,
                to_storage(counts)?,
                None,
                plan.order,
            )
        })
        .transpose()?;
    let context = |e: Error| e.context(format_args!("path {:?}", plan.path));
    let fapl = h5::plist::serial_file_access(plan.locking)?;
    let exists = std::path::Path::new(&plan.path).exists();
    let file = if exists && !plan.truncate {
        h5::file::open(&plan.path, true, &fapl)
    } else {
        h5::file::create(&plan.path, true, &fapl)
    }
    .map_err(context)?;
    let dataset = h5::dataset::create(
        &file,
        &plan.name,
        &h5::types::native(plan.dtype)?,
        &h5::space::simple(&storage_dims)?,
        &h5::plist::link_create()?,
        &h5::plist::dataset_create(&Layout::contiguous(), false)?,
    )
    .map_err(|e| e.context(format_args!("dataset {:?}", plan.name)))?;
    let offset = h5::dataset::storage(&dataset)?.offset;
    dataset.close()?;
    if let (Some(offset), true) = (offset, disk_space::worth_reserving(bytes)) {
        // The workers' pwrites then cannot run out of space (see disk_space::reserve).
        if let Err(e) = disk_space::reserve(&plan.path, &plan.name, offset, bytes) {
            h5::dataset::unlink(&file, &plan.name)?;
            file.close()?;
            return Err(e);
        }
    }
    if let Some(table) = table {
        table.write(&file, &plan.name, plan.order, RowWriter::alone())?;
    }
    file.close()
}

/// The locks of a direct open.
#[derive(Clone, Copy, Debug)]
pub struct Locks {
    /// HDF5 flocks the file while it reads where the data is (its default).
    pub hdf5: bool,
    /// An fcntl write lock around every write (the serialized mode).
    pub writes: bool,
}

/// An open direct dataset: a plain file descriptor and where the data is.
#[derive(Debug)]
pub struct Direct {
    file: std::fs::File,
    path: String,
    name: String,
    /// Byte offset of element 0 in the file.
    data_offset: u64,
    dtype: Dtype,
    storage_dims: Vec<u64>,
    order: Order,
    writable: bool,
    /// Take an advisory write lock (fcntl) around every write.
    lock: bool,
}

fn refuse(name: &str, why: &str) -> Error {
    Error::invalid(format!(
        "dataset {name:?} {why}: direct mode needs a contiguous, allocated, unfiltered dataset \
         of this machine's byte order (make it with dah5_direct_create); use the MPI path \
         (dah5_file_open) for it"
    ))
}

impl Direct {
    /// Read where the dataset's data is, through HDF5 (read-only, just long enough), then
    /// hold a plain file descriptor (read-write if `writable`).
    pub fn open(
        path: &str,
        name: &str,
        writable: bool,
        order: Order,
        locks: Locks,
    ) -> Result<Direct> {
        let context = |e: Error| e.context(format_args!("path {path:?}, dataset {name:?}"));
        // No MPI-IO here: a ROMIO prefix means nothing to the serial driver or to open.
        let path = file_name::os_path(path);
        let fapl = h5::plist::serial_file_access(locks.hdf5)?;
        let file = h5::file::open(path, false, &fapl).map_err(context)?;
        let dataset = h5::dataset::open(&file, name).map_err(context)?;
        let (data_offset, dtype) = match raw_data::place(&dataset).map_err(context)? {
            Place::At { offset, dtype } => (offset, dtype),
            Place::Unfit(why) => return Err(refuse(name, why)),
        };
        let (storage_dims, _) = h5::space::extents(&h5::dataset::space(&dataset)?)?;
        dataset.close()?;
        file.close()?;
        let fd = OpenOptions::new()
            .read(true)
            .write(writable)
            .open(path)
            .map_err(|e| Error::io(&e, format_args!("open {path:?}")))?;
        Ok(Direct {
            file: fd,
            path: path.to_string(),
            name: name.to_string(),
            data_offset,
            dtype,
            storage_dims,
            order,
            writable,
            lock: locks.writes,
        })
    }

    pub fn dtype(&self) -> Dtype {
        self.dtype
    }

    /// Dims in the handle's order.
    pub fn dims(&self) -> Vec<u64> {
        self.order.to_storage(&self.storage_dims)
    }

    /// Write or read the block `offset .. offset + count` (handle order) with `pwrite` /
    /// `pread`, one call per contiguous run of the file (a block of whole rows is one run).
    pub fn transfer(
        &self,
        direction: Direction,
        offset: &[u64],
        count: &[u64],
        mem_dtype: Dtype,
        mut buffer: Buffer<'_>,
    ) -> Result<()> {
        if direction == Direction::Write && !self.writable {
            return Err(Error::new(
                ErrorKind::ReadOnly,
                format!("{:?} was opened read-only (DAH5_RDONLY)", self.path),
            ));
        }
        if mem_dtype != self.dtype {
            return Err(Error::new(
                ErrorKind::TypeMismatch,
                format!(
                    "mem_dtype {} differs from the dtype {} of dataset {:?} (direct mode does \
                     not convert)",
                    mem_dtype.name(),
                    self.dtype.name(),
                    self.name
                ),
            ));
        }
        let dims = self.dims();
        if offset.len() != dims.len() || count.len() != dims.len() {
            return Err(Error::invalid(format!(
                "offset and count need {} entries",
                dims.len()
            )));
        }
        check_block(&dims, offset, count)
            .map_err(|e| e.context(format_args!("dataset {:?} dims {dims:?}", self.name)))?;
        let needed = byte_len(count, mem_dtype.size(), "count")?;
        let held = buffer.size();
        if held != needed {
            return Err(Error::invalid(format!(
                "buf holds {held} bytes but the block needs {needed}"
            )));
        }
        let (offset, count) = (self.order.to_storage(offset), self.order.to_storage(count));
        let _lock = match direction {
            Direction::Write if self.lock => Some(WriteLock::take(
                &self.file,
                self.data_offset,
                self.data_len(),
            )?),
            _ => None,
        };
        let mut at = 0usize;
        for_each_run(
            &self.storage_dims,
            &offset,
            &count,
            self.dtype.size() as u64,
            |start, len| {
                let position = self.data_offset + start;
                let range = at..at + len as usize;
                at += len as usize;
                match &mut buffer {
                    Buffer::Source(b) => self.file.write_all_at(&b[range], position),
                    Buffer::Sink(b) => self.file.read_exact_at(&mut b[range], position),
                }
                .map_err(|e| Error::io(&e, format_args!("{:?} at byte {position}", self.path)))
            },
        )
    }

    fn data_len(&self) -> u64 {
        data_bytes(&self.storage_dims, self.dtype.size())
    }

    /// Everything written so far is on storage (fsync).
    pub fn sync(&self) -> Result<()> {
        self.file
            .sync_all()
            .map_err(|e| Error::io(&e, format_args!("fsync {:?}", self.path)))
    }
}

/// An advisory fcntl write lock on a byte range of the file, released on drop: the
/// serialized mode for file systems without coherent concurrent writes.
struct WriteLock<'a> {
    file: &'a std::fs::File,
    start: u64,
    len: u64,
}

impl<'a> WriteLock<'a> {
    fn take(file: &'a std::fs::File, start: u64, len: u64) -> Result<WriteLock<'a>> {
        os::lock_range(file, true, start, len).map_err(|e| Error::io(&e, "fcntl lock"))?;
        Ok(WriteLock { file, start, len })
    }
}

impl Drop for WriteLock<'_> {
    fn drop(&mut self) {
        let _ = os::lock_range(self.file, false, self.start, self.len);
    }
}
