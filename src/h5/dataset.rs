//! HDF5 datasets: create, open, describe, move data.

use hdf5_sys::h5d::{
    H5D_CONTIGUOUS, H5D_LAYOUT_ERROR, H5Dclose, H5Dcreate2, H5Dget_create_plist, H5Dget_offset,
    H5Dget_space, H5Dget_type, H5Dopen2, H5Dread, H5Dset_extent, H5Dwrite,
};
use hdf5_sys::h5i::hid_t;
use hdf5_sys::h5l::H5Ldelete;
use hdf5_sys::h5p::{H5P_DEFAULT, H5Pclose, H5Pget_external_count, H5Pget_layout};
use hdf5_sys::h5s::{H5S_ALL, H5Sclose};
use hdf5_sys::h5t::H5Tclose;

use crate::error::Result;
use crate::h5::id::Id;
use crate::h5::name::c_string;

/// Create the dataset `name` (intermediate groups made by `lcpl`), collective.
pub fn create(
    file: &Id,
    name: &str,
    file_type: &Id,
    space: &Id,
    lcpl: &Id,
    dcpl: &Id,
) -> Result<Id> {
    let c_name = c_string(name)?;
    let (f, t, s, l, d) = (
        file.raw(),
        file_type.raw(),
        space.raw(),
        lcpl.raw(),
        dcpl.raw(),
    );
    // SAFETY: every id is open and of the kind H5Dcreate2 expects; the name is NUL-terminated.
    h5call!(unsafe { H5Dcreate2(f, c_name.as_ptr(), t, s, l, d, H5P_DEFAULT) }, closed by H5Dclose)
}

/// Remove the link `name` (collective in a parallel file: every rank, the same name).
pub fn unlink(file: &Id, name: &str) -> Result<()> {
    let c_name = c_string(name)?;
    let f = file.raw();
    // SAFETY: `f` is an open file; the name is NUL-terminated.
    h5call!(unsafe { H5Ldelete(f, c_name.as_ptr(), H5P_DEFAULT) }).map(|_| ())
}

/// Open the existing dataset `name`, collective.
pub fn open(file: &Id, name: &str) -> Result<Id> {
    open_with(file, name, H5P_DEFAULT)
}

/// Open the existing dataset `name` on this rank alone (its metadata read independently).
pub fn open_independent(file: &Id, name: &str) -> Result<Id> {
    let dapl = crate::h5::plist::independent_dataset_access()?;
    open_with(file, name, dapl.raw())
}

fn open_with(file: &Id, name: &str, dapl: hid_t) -> Result<Id> {
    let c_name = c_string(name)?;
    let f = file.raw();
    // SAFETY: `f` is an open file, the name is NUL-terminated, `dapl` a dataset access list.
    h5call!(unsafe { H5Dopen2(f, c_name.as_ptr(), dapl) }, closed by H5Dclose)
}

pub fn space(dataset: &Id) -> Result<Id> {
    let d = dataset.raw();
    // SAFETY: `d` is an open dataset; the returned space is ours to close.
    h5call!(unsafe { H5Dget_space(d) }, closed by H5Sclose)
}

pub fn file_type(dataset: &Id) -> Result<Id> {
    let d = dataset.raw();
    // SAFETY: `d` is an open dataset; the returned type is ours to close.
    h5call!(unsafe { H5Dget_type(d) }, closed by H5Tclose)
}

pub fn create_plist(dataset: &Id) -> Result<Id> {
    let d = dataset.raw();
    // SAFETY: `d` is an open dataset; the returned list is ours to close.
    h5call!(unsafe { H5Dget_create_plist(d) }, closed by H5Pclose)
}

/// Change the extents (collective; storage order, within the maximum).
pub fn set_extent(dataset: &Id, dims: &[u64]) -> Result<()> {
    let d = dataset.raw();
    // SAFETY: `d` is an open dataset; `dims` has one entry per dimension.
    h5call!(unsafe { H5Dset_extent(d, dims.as_ptr()) })?;
    Ok(())
}

/// Where a dataset keeps its raw data.
pub struct Storage {
    pub contiguous: bool,
    pub filtered: bool,
    pub external: bool,
    /// The file address of element 0, if the storage is allocated.
    pub offset: Option<u64>,
}

pub fn storage(dataset: &Id) -> Result<Storage> {
    let dcpl = create_plist(dataset)?;
    let p = dcpl.raw();
    // SAFETY: `p` is a dataset creation list.
    let layout = h5call!(unsafe { H5Pget_layout(p) }, fails if |l| l == H5D_LAYOUT_ERROR)?;
    // SAFETY: `p` is a dataset creation list.
    let external = h5call!(unsafe { H5Pget_external_count(p) })? > 0;
    Ok(Storage {
        contiguous: layout == H5D_CONTIGUOUS,
        filtered: crate::h5::plist::has_filters(&dcpl)?,
        external,
        offset: data_offset(dataset)?,
    })
}

/// The file address of element 0 of a contiguous dataset whose storage is allocated; none
/// for any other (chunked, compact, external, not allocated).
pub fn data_offset(dataset: &Id) -> Result<Option<u64>> {
    let d = dataset.raw();
    // SAFETY: `d` is an open dataset. HADDR_UNDEF (all ones) means no such address.
    let offset = h5call!(unsafe { H5Dget_offset(d) }, fails if |_| false)?;
    Ok((offset != u64::MAX).then_some(offset))
}

/// The ids of one transfer: what the buffer holds, where it goes, how it moves.
pub struct TransferIds<'a> {
    pub dataset: &'a Id,
    pub mem_type: &'a Id,
    pub mem_space: &'a Id,
    pub file_space: &'a Id,
    pub dxpl: &'a Id,
}

/// Write `buf`, which holds exactly the elements selected in `mem_space`.
pub fn write(t: &TransferIds<'_>, buf: &[u8]) -> Result<()> {
    let ids = (
        t.dataset.raw(),
        t.mem_type.raw(),
        t.mem_space.raw(),
        t.file_space.raw(),
        t.dxpl.raw(),
    );
    // SAFETY: the caller sized `buf` to the memory selection; HDF5 only reads from it.
    h5call!(unsafe { H5Dwrite(ids.0, ids.1, ids.2, ids.3, ids.4, buf.as_ptr().cast()) })?;
    Ok(())
}

/// Write all of a dataset from `buf` (elements of `mem_type`, independent transfer).
pub fn write_whole(dataset: &Id, mem_type: &Id, buf: &[u8]) -> Result<()> {
    let all = Id::borrowed(H5S_ALL);
    let dxpl = Id::borrowed(H5P_DEFAULT);
    write(&whole(dataset, mem_type, &all, &dxpl), buf)
}

/// Write all of a dataset from `buf` where a rank passes one, nothing where it passes
/// `None`, in one collective transfer (every rank of the file calls).
pub fn write_whole_collectively(dataset: &Id, mem_type: &Id, buf: Option<&[u8]>) -> Result<()> {
    let dxpl = crate::h5::plist::transfer(true)?;
    match buf {
        Some(buf) => {
            let all = Id::borrowed(H5S_ALL);
            write(&whole(dataset, mem_type, &all, &dxpl), buf)
        }
        None => {
            let none = crate::h5::space::select_none(&space(dataset)?)?;
            write(&whole(dataset, mem_type, &none, &dxpl), &[])
        }
    }
}

/// Read all of a dataset into `buf` (elements of `mem_type`, independent transfer).
pub fn read_whole(dataset: &Id, mem_type: &Id, buf: &mut [u8]) -> Result<()> {
    let all = Id::borrowed(H5S_ALL);
    let dxpl = Id::borrowed(H5P_DEFAULT);
    read(&whole(dataset, mem_type, &all, &dxpl), buf)
}

fn whole<'a>(dataset: &'a Id, mem_type: &'a Id, all: &'a Id, dxpl: &'a Id) -> TransferIds<'a> {
    TransferIds {
        dataset,
        mem_type,
        mem_space: all,
        file_space: all,
        dxpl,
    }
}

/// Read into `buf`, which has room for exactly the elements selected in `mem_space`.
pub fn read(t: &TransferIds<'_>, buf: &mut [u8]) -> Result<()> {
    let ids = (
        t.dataset.raw(),
        t.mem_type.raw(),
        t.mem_space.raw(),
        t.file_space.raw(),
        t.dxpl.raw(),
    );
    // SAFETY: the caller sized `buf` to the memory selection; HDF5 writes only inside it.
    h5call!(unsafe { H5Dread(ids.0, ids.1, ids.2, ids.3, ids.4, buf.as_mut_ptr().cast()) })?;
    Ok(())
}
