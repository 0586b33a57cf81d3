//! Dataspaces and selections.

use hdf5_sys::h5s::{
    H5S_SELECT_SET, H5Sclose, H5Scopy, H5Screate_simple, H5Sget_simple_extent_dims,
    H5Sget_simple_extent_ndims, H5Sselect_hyperslab, H5Sselect_none,
};

use crate::core::error::Result;
use crate::h5::call;
use crate::h5::id::Id;

/// A simple dataspace of the given extents (storage order).
pub fn simple(dims: &[u64]) -> Result<Id> {
    // SAFETY: `dims` has `dims.len()` entries; NULL maxdims means "same as dims".
    Id::create("H5Screate_simple", H5Sclose, || unsafe {
        H5Screate_simple(dims.len() as i32, dims.as_ptr(), std::ptr::null())
    })
}

/// A copy of `space` with the block `offset, count` selected.
pub fn select_block(space: &Id, offset: &[u64], count: &[u64]) -> Result<Id> {
    let s = copy(space)?;
    let raw = s.raw();
    // SAFETY: `offset` and `count` have the rank of the space; NULL stride and block mean 1.
    call("H5Sselect_hyperslab", || unsafe {
        H5Sselect_hyperslab(
            raw,
            H5S_SELECT_SET,
            offset.as_ptr(),
            std::ptr::null(),
            count.as_ptr(),
            std::ptr::null(),
        )
    })?;
    Ok(s)
}

/// A copy of `space` with nothing selected: how a rank with no data takes part in a
/// collective transfer.
pub fn select_none(space: &Id) -> Result<Id> {
    let s = copy(space)?;
    let raw = s.raw();
    // SAFETY: `raw` is a dataspace.
    call("H5Sselect_none", || unsafe { H5Sselect_none(raw) })?;
    Ok(s)
}

fn copy(space: &Id) -> Result<Id> {
    let raw = space.raw();
    // SAFETY: `raw` is a dataspace.
    Id::create("H5Scopy", H5Sclose, || unsafe { H5Scopy(raw) })
}

/// The extents of a simple dataspace (storage order).
pub fn dims(space: &Id) -> Result<Vec<u64>> {
    let raw = space.raw();
    // SAFETY: `raw` is a dataspace.
    let ndims = call("H5Sget_simple_extent_ndims", || unsafe {
        H5Sget_simple_extent_ndims(raw)
    })?;
    let mut dims = vec![0u64; ndims as usize];
    // SAFETY: `dims` has room for the space's rank; NULL maxdims is allowed.
    call("H5Sget_simple_extent_dims", || unsafe {
        H5Sget_simple_extent_dims(raw, dims.as_mut_ptr(), std::ptr::null_mut())
    })?;
    Ok(dims)
}
