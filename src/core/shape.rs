//! Dimensions, storage order and bounds: pure arithmetic, overflow-checked everywhere.

use std::borrow::Cow;

use crate::error::{Error, ErrorKind, Result};

/// HDF5 allows at most 32 dimensions (`H5S_MAX_RANK`).
pub(crate) const MAX_NDIMS: usize = 32;

/// The order of every dims/offset/count array passed on a file handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Row-major: the last index varies fastest (C, NumPy, HDF5's own view).
    C,
    /// Column-major: the first index varies fastest (Fortran, Julia). Arrays are reversed
    /// at the boundary, so `(nx, ny)` is stored as HDF5 dims `(ny, nx)` with the same bytes,
    /// exactly as HDF5's Fortran API and HDF5.jl do.
    Fortran,
}

impl Order {
    /// "C" or "F", as messages and the block table say it.
    pub fn letter(self) -> &'static str {
        match self {
            Order::C => "C",
            Order::Fortran => "F",
        }
    }

    /// Turn a user-order array into HDF5 (C) order, or back: the map is its own inverse.
    pub fn to_storage(self, values: &[u64]) -> Vec<u64> {
        self.as_storage(values).into_owned()
    }

    /// As [`Order::to_storage`], in place.
    pub fn into_storage<T: std::ops::DerefMut<Target = [u64]>>(self, mut values: T) -> T {
        if self == Order::Fortran {
            values.reverse();
        }
        values
    }

    /// As [`Order::to_storage`], without a copy in C order.
    pub fn as_storage(self, values: &[u64]) -> Cow<'_, [u64]> {
        match self {
            Order::C => Cow::Borrowed(values),
            Order::Fortran => Cow::Owned(values.iter().rev().copied().collect()),
        }
    }
}

/// Row-major position of an element in an array of `dims` (u128: no product overflows).
pub fn position(dims: &[u64], index: impl Iterator<Item = u64>) -> u128 {
    dims.iter()
        .zip(index)
        .fold(0u128, |acc, (&n, i)| acc * n as u128 + i as u128)
}

/// One rank's blocks of one call, flat: block i's offset is `offsets[i * ndims ..][..ndims]`
/// and its count likewise (two allocations for any number of blocks).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockList {
    ndims: usize,
    offsets: Vec<u64>,
    counts: Vec<u64>,
}

impl BlockList {
    /// `offsets` and `counts` hold the same whole number of blocks of `ndims`.
    pub fn new(ndims: usize, offsets: Vec<u64>, counts: Vec<u64>) -> BlockList {
        debug_assert!(offsets.len() == counts.len() && offsets.len().is_multiple_of(ndims.max(1)));
        BlockList {
            ndims,
            offsets,
            counts,
        }
    }

    pub fn one(offset: Vec<u64>, count: Vec<u64>) -> BlockList {
        BlockList::new(offset.len(), offset, count)
    }

    pub fn len(&self) -> usize {
        self.offsets.len() / self.ndims.max(1)
    }

    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// Block i's (offset, count).
    pub fn get(&self, i: usize) -> (&[u64], &[u64]) {
        let range = i * self.ndims..(i + 1) * self.ndims;
        (&self.offsets[range.clone()], &self.counts[range])
    }

    pub fn iter(&self) -> impl Iterator<Item = (&[u64], &[u64])> {
        (0..self.len()).map(|i| self.get(i))
    }
}

/// Bytes of the blocks' elements together (`count` names the counts in an error).
pub fn blocks_byte_len(blocks: &BlockList, elem_size: usize, count: &str) -> Result<usize> {
    let mut total = 0usize;
    for (_, c) in blocks.iter() {
        total = byte_len(c, elem_size, count)?
            .checked_add(total)
            .ok_or_else(|| Error::invalid("the blocks hold more bytes than memory can"))?;
    }
    Ok(total)
}

pub fn check_ndims(ndims: usize) -> Result<()> {
    if ndims == 0 || ndims > MAX_NDIMS {
        return Err(Error::invalid(format!(
            "ndims = {ndims} is out of range: it must be between 1 and {MAX_NDIMS}"
        )));
    }
    Ok(())
}

/// Number of elements in an array of the given extents, if it fits in a `u64`.
pub fn element_count(extents: &[u64]) -> Option<u64> {
    extents.iter().try_fold(1u64, |acc, &n| acc.checked_mul(n))
}

/// Bytes of the data of a dataset with `dims` (checked by [`check_dims`], so the product
/// fits; it saturates otherwise).
pub fn data_bytes(dims: &[u64], elem_size: usize) -> u64 {
    element_count(dims)
        .and_then(|n| n.checked_mul(elem_size as u64))
        .unwrap_or(u64::MAX)
}

/// Bytes needed for `extents` elements of `elem_size` bytes, as a `usize` for a buffer.
pub fn byte_len(extents: &[u64], elem_size: usize, what: &str) -> Result<usize> {
    element_count(extents)
        .and_then(|n| n.checked_mul(elem_size as u64))
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| {
            Error::invalid(format!(
                "{what} {extents:?} of {elem_size}-byte elements does not fit in memory addresses"
            ))
        })
}

/// Check that a dataset shape (already in storage order) can exist.
pub fn check_dims(dims: &[u64], elem_size: usize) -> Result<()> {
    check_ndims(dims.len())?;
    if element_count(dims)
        .and_then(|n| n.checked_mul(elem_size as u64))
        .is_none()
    {
        return Err(Error::invalid(format!(
            "dims {dims:?} of {elem_size}-byte elements overflow a 64-bit byte size"
        )));
    }
    Ok(())
}

/// Check that the block `offset .. offset + count` lies inside `dims` (all three in storage
/// order), without overflowing.
pub fn check_block(dims: &[u64], offset: &[u64], count: &[u64]) -> Result<()> {
    for (d, ((&n, &o), &c)) in dims.iter().zip(offset).zip(count).enumerate() {
        match o.checked_add(c) {
            None => {
                return Err(Error::new(
                    ErrorKind::OutOfBounds,
                    format!("offset[{d}] + count[{d}] = {o} + {c} wraps around 2^64"),
                ));
            }
            Some(end) if end > n => {
                return Err(Error::new(
                    ErrorKind::OutOfBounds,
                    format!("offset[{d}] + count[{d}] = {o} + {c} = {end} > dims[{d}] = {n}"),
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// Native-endian u64s from their bytes (a trailing part of one is dropped).
pub fn u64s(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(8)
        .map(|b| u64::from_ne_bytes(b.try_into().unwrap_or_default()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fortran_order_reverses_and_is_its_own_inverse() {
        let v = [2, 3, 5];
        assert_eq!(Order::Fortran.to_storage(&v), vec![5, 3, 2]);
        assert_eq!(Order::Fortran.to_storage(&Order::Fortran.to_storage(&v)), v);
        assert_eq!(Order::C.to_storage(&v), v.to_vec());
    }

    #[test]
    fn ndims_limits() {
        assert!(check_ndims(0).is_err());
        assert!(check_ndims(1).is_ok());
        assert!(check_ndims(32).is_ok());
        assert!(check_ndims(33).is_err());
    }

    #[test]
    fn block_bounds_are_inclusive_of_the_end_and_catch_wrapping() {
        assert!(check_block(&[8, 4], &[4, 0], &[4, 4]).is_ok());
        assert!(
            check_block(&[8, 4], &[8, 0], &[0, 4]).is_ok(),
            "empty block at the end"
        );
        let e = check_block(&[8, 4], &[5, 0], &[4, 4]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::OutOfBounds);
        assert!(
            e.message
                .contains("offset[0] + count[0] = 5 + 4 = 9 > dims[0] = 8")
        );
        let e = check_block(&[8, 4], &[0, u64::MAX], &[1, 2]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::OutOfBounds);
        assert!(e.message.contains("wraps"));
    }

    #[test]
    fn sizes_overflow_cleanly() {
        assert_eq!(element_count(&[2, 3, 4]), Some(24));
        assert_eq!(element_count(&[u64::MAX, 2]), None);
        assert!(check_dims(&[u64::MAX / 4, 1], 8).is_err());
        assert!(check_dims(&[1 << 20, 1 << 20], 8).is_ok());
        assert_eq!(byte_len(&[3, 0], 8, "count").unwrap(), 0);
        assert!(byte_len(&[u64::MAX, 2], 1, "count").is_err());
    }
}
