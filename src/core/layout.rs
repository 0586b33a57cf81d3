//! How a dataset is stored: contiguous, or chunked (needed for compression and for
//! extendible dims). Pure logic on storage-order shapes; `h5::plist` turns it into a
//! creation property list.

use crate::core::shape::element_count;
use crate::error::{Error, Result};
pub use crate::h5::plist::Layout;

/// A maximum extent without bound (`H5S_UNLIMITED`).
pub(crate) const UNLIMITED: u64 = u64::MAX;

/// HDF5 refuses chunks of 4 GiB or more.
const MAX_CHUNK_BYTES: u64 = (4 << 30) - 1;
/// The size the library aims for when it picks chunks itself with no block to follow:
/// big enough for efficient I/O, small enough to compress and cache.
const TARGET_CHUNK_BYTES: u64 = 1 << 20;

/// What the user asked for, in storage order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LayoutRequest {
    pub chunk: Option<Vec<u64>>,
    pub max_dims: Option<Vec<u64>>,
    /// 0 (none) to 9.
    pub deflate_level: u32,
    pub shuffle: bool,
}

impl LayoutRequest {
    /// Nothing asked: no chunk, no maximum dims, no filter. [`decide`] makes such a dataset
    /// contiguous whatever its dims, so callers may skip it (and the copies of the request
    /// in storage order it takes).
    pub fn is_plain(&self) -> bool {
        self.chunk.is_none() && self.max_dims.is_none() && self.deflate_level == 0 && !self.shuffle
    }
}

fn check_len(values: &[u64], ndims: usize, what: &str) -> Result<()> {
    if values.len() != ndims {
        return Err(Error::invalid(format!(
            "{what} has {} entries but the dataset has {ndims} dims",
            values.len()
        )));
    }
    Ok(())
}

/// Decide the layout of a dataset of `dims` (storage order) with elements of `elem_size`
/// bytes. `block` is the shape to follow when the library picks the chunk itself (a darray's
/// largest block, so that a regular decomposition gets one chunk per block).
pub fn decide(
    dims: &[u64],
    elem_size: usize,
    request: &LayoutRequest,
    block: Option<&[u64]>,
) -> Result<Layout> {
    let ndims = dims.len();
    if request.deflate_level > 9 {
        return Err(Error::invalid(format!(
            "deflate_level = {} is out of range: 0 (none) to 9",
            request.deflate_level
        )));
    }
    if let Some(max_dims) = &request.max_dims {
        check_len(max_dims, ndims, "max_dims")?;
        for (d, (&max, &n)) in max_dims.iter().zip(dims).enumerate() {
            if max < n {
                return Err(Error::invalid(format!(
                    "max_dims[{d}] = {max} is less than dims[{d}] = {n}"
                )));
            }
        }
    }
    let extendible = request
        .max_dims
        .as_ref()
        .is_some_and(|max| max.iter().zip(dims).any(|(m, n)| m != n));
    let chunk = match &request.chunk {
        Some(chunk) => {
            check_len(chunk, ndims, "chunk")?;
            if chunk.contains(&0) {
                return Err(Error::invalid(format!(
                    "chunk {chunk:?} has a zero extent: every chunk extent is at least 1"
                )));
            }
            let bytes = element_count(chunk).and_then(|n| n.checked_mul(elem_size as u64));
            if bytes.is_none_or(|b| b > MAX_CHUNK_BYTES) {
                return Err(Error::invalid(format!(
                    "chunk {chunk:?} of {elem_size}-byte elements is 4 GiB or more, HDF5's limit"
                )));
            }
            Some(chunk.clone())
        }
        None if extendible || request.deflate_level > 0 || request.shuffle => Some(default_chunk(
            dims,
            elem_size,
            request.max_dims.as_deref(),
            block,
        )),
        None => None,
    };
    Ok(Layout {
        chunk,
        max_dims: request.max_dims.clone(),
        deflate_level: request.deflate_level,
        shuffle: request.shuffle,
    })
}

/// A chunk shape: the block to follow (capped at HDF5's limit), or else the dims with
/// extendible dims at 1 (one time step per chunk), halved along the largest extent until
/// about 1 MiB.
fn default_chunk(
    dims: &[u64],
    elem_size: usize,
    max_dims: Option<&[u64]>,
    block: Option<&[u64]>,
) -> Vec<u64> {
    let (mut chunk, cap) = match block {
        Some(block) => (block.to_vec(), MAX_CHUNK_BYTES),
        None => {
            let chunk = dims
                .iter()
                .enumerate()
                .map(|(d, &n)| match max_dims {
                    Some(max) if max[d] != n => 1,
                    _ => n,
                })
                .collect();
            (chunk, TARGET_CHUNK_BYTES)
        }
    };
    for c in &mut chunk {
        *c = (*c).max(1);
    }
    let bytes = |chunk: &[u64]| {
        chunk
            .iter()
            .fold(elem_size as u64, |acc, &c| acc.saturating_mul(c))
    };
    while bytes(&chunk) > cap {
        let largest = (0..chunk.len()).max_by_key(|&d| chunk[d]).unwrap_or(0);
        chunk[largest] = chunk[largest].div_ceil(2);
    }
    chunk
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> LayoutRequest {
        LayoutRequest::default()
    }

    #[test]
    fn contiguous_unless_asked() {
        let layout = decide(&[10, 20], 8, &request(), None).unwrap();
        assert_eq!(layout.chunk, None);
        assert!(!layout.filtered());
        // What `is_plain` lets callers skip: any dims, any block, gives this layout.
        assert!(request().is_plain());
        for (dims, block) in [(&[0u64][..], None), (&[1 << 40, 3], Some(&[1u64, 3][..]))] {
            let layout = decide(dims, 16, &request(), block).unwrap();
            assert_eq!(layout, Layout::contiguous());
            assert!(layout.is_contiguous());
        }
        let shuffled = LayoutRequest {
            shuffle: true,
            ..request()
        };
        assert!(!shuffled.is_plain());
        assert!(!decide(&[4], 8, &shuffled, None).unwrap().is_contiguous());
    }

    #[test]
    fn compression_follows_the_block_or_picks_about_a_mebibyte() {
        let compressed = LayoutRequest {
            deflate_level: 4,
            ..request()
        };
        let layout = decide(&[8, 100], 8, &compressed, Some(&[2, 100])).unwrap();
        assert_eq!(layout.chunk, Some(vec![2, 100]));
        assert!(layout.filtered());
        let layout = decide(&[4096, 4096], 8, &compressed, None).unwrap();
        let chunk = layout.chunk.unwrap();
        assert!(chunk.iter().product::<u64>() * 8 <= 1 << 20, "{chunk:?}");
        // An empty block still gives a valid chunk.
        let layout = decide(&[8, 100], 8, &compressed, Some(&[0, 0])).unwrap();
        assert_eq!(layout.chunk, Some(vec![1, 1]));
    }

    #[test]
    fn extendible_dims_get_one_step_per_chunk() {
        let series = LayoutRequest {
            max_dims: Some(vec![UNLIMITED, 6, 5]),
            ..request()
        };
        let layout = decide(&[0, 6, 5], 4, &series, None).unwrap();
        assert_eq!(layout.chunk, Some(vec![1, 6, 5]));
        // max_dims equal to dims is not extendible: contiguous.
        let fixed = LayoutRequest {
            max_dims: Some(vec![3, 6]),
            ..request()
        };
        assert_eq!(decide(&[3, 6], 4, &fixed, None).unwrap().chunk, None);
    }

    #[test]
    fn bad_requests_are_refused() {
        let bad = |r: LayoutRequest| decide(&[4, 4], 8, &r, None).unwrap_err().message.clone();
        assert!(
            bad(LayoutRequest {
                deflate_level: 10,
                ..request()
            })
            .contains("deflate_level")
        );
        assert!(
            bad(LayoutRequest {
                chunk: Some(vec![2]),
                ..request()
            })
            .contains("chunk has 1 entries")
        );
        assert!(
            bad(LayoutRequest {
                chunk: Some(vec![0, 2]),
                ..request()
            })
            .contains("zero extent")
        );
        assert!(
            bad(LayoutRequest {
                chunk: Some(vec![1 << 20, 1 << 20]),
                ..request()
            })
            .contains("4 GiB")
        );
        assert!(
            bad(LayoutRequest {
                max_dims: Some(vec![3, UNLIMITED]),
                ..request()
            })
            .contains("max_dims[0] = 3")
        );
    }
}
