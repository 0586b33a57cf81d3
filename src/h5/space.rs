//! Dataspaces and selections.

#[cfg(hdf5_combine_select)]
use hdf5_sys::h5s::H5Scombine_select;
use hdf5_sys::h5s::{
    H5S_SCALAR, H5S_SELECT_OR, H5S_SELECT_SET, H5Sclose, H5Scopy, H5Screate, H5Screate_simple,
    H5Sget_simple_extent_dims, H5Sget_simple_extent_ndims, H5Sselect_hyperslab, H5Sselect_none,
};

use crate::error::Result;
use crate::h5::id::Id;

/// A simple dataspace of the given extents (storage order).
pub fn simple(dims: &[u64]) -> Result<Id> {
    // SAFETY: `dims` has `dims.len()` entries; NULL maxdims means "same as dims".
    h5call!(unsafe { H5Screate_simple(dims.len() as i32, dims.as_ptr(), std::ptr::null()) }, closed by H5Sclose)
}

/// A simple dataspace that can grow to `max` (`u64::MAX` is `H5S_UNLIMITED`).
pub fn simple_with_max(dims: &[u64], max: &[u64]) -> Result<Id> {
    // SAFETY: `dims` and `max` have `dims.len()` entries.
    h5call!(unsafe { H5Screate_simple(dims.len() as i32, dims.as_ptr(), max.as_ptr()) }, closed by H5Sclose)
}

/// A scalar dataspace (one element, rank 0).
pub fn scalar() -> Result<Id> {
    // SAFETY: creating a new dataspace.
    h5call!(unsafe { H5Screate(H5S_SCALAR) }, closed by H5Sclose)
}

/// A copy of `space` with the block `offset, count` selected.
pub fn select_block(space: &Id, offset: &[u64], count: &[u64]) -> Result<Id> {
    let s = copy(space)?;
    let raw = s.raw();
    // SAFETY: `offset` and `count` have the rank of the space; NULL stride and block mean 1.
    h5call!(unsafe {
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

/// A copy of `space` with the union of `blocks` (offset, count; disjoint, non-empty)
/// selected, for one transfer of many blocks.
///
/// Adding blocks one at a time with `H5S_SELECT_OR` costs time quadratic in the blocks on
/// HDF5 1.10.8 (1-D runs: 1,000 in 5.5 ms, 10,000 in 1.3 s, 100,000 over 120 s), so only
/// runs of up to [`OR_RUN`] blocks are added so; the runs' unions are then combined by
/// halves with `H5Scombine_select` (docs/benchmarks.md has the measurements).
/// `H5Scombine_select` is in HDF5 from 1.10.7; before it, one loop over every block.
pub fn select_blocks(space: &Id, blocks: &[(&[u64], &[u64])]) -> Result<Id> {
    match blocks {
        [] => select_none(space),
        _ if blocks.len() <= OR_RUN || cfg!(not(hdf5_combine_select)) => or_loop(space, blocks),
        _ => by_halves(space, blocks),
    }
}

/// Blocks added one at a time: few enough that the quadratic cost stays below that of
/// copying and combining selections.
const OR_RUN: usize = 16;

#[cfg(hdf5_combine_select)]
fn by_halves(space: &Id, blocks: &[(&[u64], &[u64])]) -> Result<Id> {
    let (low, high) = blocks.split_at(blocks.len() / 2);
    let (low, high) = (select_blocks(space, low)?, select_blocks(space, high)?);
    let (a, b) = (low.raw(), high.raw());
    // SAFETY: both are dataspaces of the same extent with hyperslab selections.
    h5call!(unsafe { H5Scombine_select(a, H5S_SELECT_OR, b) }, closed by H5Sclose)
}

#[cfg(not(hdf5_combine_select))]
fn by_halves(space: &Id, blocks: &[(&[u64], &[u64])]) -> Result<Id> {
    or_loop(space, blocks)
}

/// The first block selected, then each of the others added with `H5S_SELECT_OR`.
fn or_loop(space: &Id, blocks: &[(&[u64], &[u64])]) -> Result<Id> {
    let (first_offset, first_count) = blocks[0];
    let union = select_block(space, first_offset, first_count)?;
    let raw = union.raw();
    for (offset, count) in &blocks[1..] {
        // SAFETY: `offset` and `count` have the rank of the space; NULL stride and block
        // mean 1.
        h5call!(unsafe {
            H5Sselect_hyperslab(
                raw,
                H5S_SELECT_OR,
                offset.as_ptr(),
                std::ptr::null(),
                count.as_ptr(),
                std::ptr::null(),
            )
        })?;
    }
    Ok(union)
}

/// A copy of `space` with nothing selected: how a rank with no data takes part in a
/// collective transfer.
pub fn select_none(space: &Id) -> Result<Id> {
    let s = copy(space)?;
    let raw = s.raw();
    // SAFETY: `raw` is a dataspace.
    h5call!(unsafe { H5Sselect_none(raw) })?;
    Ok(s)
}

fn copy(space: &Id) -> Result<Id> {
    let raw = space.raw();
    // SAFETY: `raw` is a dataspace.
    h5call!(unsafe { H5Scopy(raw) }, closed by H5Sclose)
}

/// The extents and maximum extents of a dataspace (storage order; empty for a scalar).
pub fn extents(space: &Id) -> Result<(Vec<u64>, Vec<u64>)> {
    let raw = space.raw();
    // SAFETY: `raw` is a dataspace.
    let ndims = h5call!(unsafe { H5Sget_simple_extent_ndims(raw) })?;
    let mut dims = vec![0u64; ndims as usize];
    let mut max = vec![0u64; ndims as usize];
    // SAFETY: both arrays have room for the space's rank.
    h5call!(unsafe { H5Sget_simple_extent_dims(raw, dims.as_mut_ptr(), max.as_mut_ptr()) })?;
    Ok((dims, max))
}
