//! The property lists behind dah5's defaults.

use hdf5_sys::h5d::{
    H5D_ALLOC_TIME_EARLY, H5D_CONTIGUOUS, H5D_FILL_TIME_ALLOC, H5D_FILL_TIME_NEVER,
};
use hdf5_sys::h5p::H5FD_mpio_xfer_t::{H5FD_MPIO_COLLECTIVE, H5FD_MPIO_INDEPENDENT};
use hdf5_sys::h5p::{
    H5P_CLS_DATASET_CREATE, H5P_CLS_DATASET_XFER, H5P_CLS_FILE_ACCESS, H5P_CLS_LINK_CREATE,
    H5Pclose, H5Pcreate, H5Pset_alignment, H5Pset_all_coll_metadata_ops, H5Pset_alloc_time,
    H5Pset_coll_metadata_write, H5Pset_create_intermediate_group, H5Pset_dxpl_mpio,
    H5Pset_fapl_mpio, H5Pset_fill_time, H5Pset_layout,
};
use mpi_sys::{MPI_Comm, RSMPI_INFO_NULL};

use crate::core::error::Result;
use crate::h5::call;
use crate::h5::id::Id;

fn create(class: &'static hdf5_sys::h5i::hid_t) -> Result<Id> {
    // SAFETY: the class id is one of HDF5's predefined classes, valid after H5open.
    Id::create("H5Pcreate", H5Pclose, || unsafe { H5Pcreate(*class) })
}

/// File access: the MPI-IO driver on `comm`, all metadata operations collective (reads and
/// writes: every rank makes the same metadata calls, and HDF5 then does them once, on one
/// rank, and broadcasts), and `alignment` for objects of at least `threshold` bytes.
pub fn file_access(comm: MPI_Comm, threshold: u64, alignment: u64) -> Result<Id> {
    let fapl = create(H5P_CLS_FILE_ACCESS)?;
    let p = fapl.raw();
    // SAFETY: `p` is a file access list; HDF5 dups `comm`, so it need not outlive the list.
    call("H5Pset_fapl_mpio", || unsafe {
        H5Pset_fapl_mpio(p, comm, RSMPI_INFO_NULL)
    })?;
    // SAFETY: `p` is a file access list.
    call("H5Pset_all_coll_metadata_ops", || unsafe {
        H5Pset_all_coll_metadata_ops(p, 1)
    })?;
    // SAFETY: `p` is a file access list.
    call("H5Pset_coll_metadata_write", || unsafe {
        H5Pset_coll_metadata_write(p, 1)
    })?;
    // SAFETY: `p` is a file access list.
    call("H5Pset_alignment", || unsafe {
        H5Pset_alignment(p, threshold, alignment)
    })?;
    Ok(fapl)
}

/// Dataset creation: contiguous, allocated at creation, and never filled unless asked
/// (filling writes the whole dataset once before the user's data does; HDF5's default fill
/// value is zero).
pub fn dataset_create(fill_with_zeros: bool) -> Result<Id> {
    let dcpl = create(H5P_CLS_DATASET_CREATE)?;
    let p = dcpl.raw();
    // SAFETY: `p` is a dataset creation list.
    call("H5Pset_layout", || unsafe {
        H5Pset_layout(p, H5D_CONTIGUOUS)
    })?;
    // SAFETY: `p` is a dataset creation list.
    call("H5Pset_alloc_time", || unsafe {
        H5Pset_alloc_time(p, H5D_ALLOC_TIME_EARLY)
    })?;
    let fill_time = if fill_with_zeros {
        H5D_FILL_TIME_ALLOC
    } else {
        H5D_FILL_TIME_NEVER
    };
    // SAFETY: `p` is a dataset creation list.
    call("H5Pset_fill_time", || unsafe {
        H5Pset_fill_time(p, fill_time)
    })?;
    Ok(dcpl)
}

/// Link creation: make the intermediate groups of a name like "results/step1/u".
pub fn link_create() -> Result<Id> {
    let lcpl = create(H5P_CLS_LINK_CREATE)?;
    let p = lcpl.raw();
    // SAFETY: `p` is a link creation list.
    call("H5Pset_create_intermediate_group", || unsafe {
        H5Pset_create_intermediate_group(p, 1)
    })?;
    Ok(lcpl)
}

/// Data transfer: independent or collective MPI-IO.
pub fn transfer(collective: bool) -> Result<Id> {
    let dxpl = create(H5P_CLS_DATASET_XFER)?;
    let p = dxpl.raw();
    let mode = if collective {
        H5FD_MPIO_COLLECTIVE
    } else {
        H5FD_MPIO_INDEPENDENT
    };
    // SAFETY: `p` is a transfer list.
    call("H5Pset_dxpl_mpio", || unsafe { H5Pset_dxpl_mpio(p, mode) })?;
    Ok(dxpl)
}
